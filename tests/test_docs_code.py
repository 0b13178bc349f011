"""Every fenced ```python block of the docs' Markdown pages runs.

Guarantees:
- each page under ``docs/`` (and ``docs/howto/``) runs its blocks in order, in one namespace of
  its own (a block may use what an earlier block of the same page made), in a fresh esper world
  that is deleted afterwards (with any world a block switched to), from the repository's root
  (so ``examples/platformer.tmj`` is found by its path in the repository);
- a ```text block that directly follows a python block (blank lines between them at most) is
  what that block prints: its lines up to a line ``...`` (the rest left out) are the first
  lines printed, or all of them where there is no ``...``;
- a block is skipped only when the line directly above its fence is the marker
  ``<!-- not run: <why> -->`` (a window opens, for instance), and the skipped blocks are few:
  their list is in the assertion's message.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import re
from pathlib import Path

import esper
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted([*DOCS.glob("*.md"), *DOCS.glob("howto/*.md")])
NOT_RUN = re.compile(r"^<!-- not run: .+ -->$")
FENCE = re.compile(r"^```(\S*)\s*$")
#: at most this many blocks in all the docs may be marked not run
MAX_SKIPPED = 6

_worlds = itertools.count()


def blocks(page: Path) -> list[tuple[int, str, bool, str | None]]:
    """The ```python blocks of a page: (first line number, code, skipped, the ```text block
    that follows it directly or None)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    fenced: list[tuple[int, int, str, str]] = []  # (fence line, closing line, lang, body)
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        fenced.append((start, i, m.group(1), "\n".join(body) + "\n"))
        i += 1
    found: list[tuple[int, str, bool, str | None]] = []
    for n, (start, end, lang, body_text) in enumerate(fenced):
        if lang != "python":
            continue
        marked = start > 0 and bool(NOT_RUN.match(lines[start - 1].strip()))
        output = None
        if n + 1 < len(fenced) and fenced[n + 1][2] == "text":
            between = lines[end + 1:fenced[n + 1][0]]
            if all(not line.strip() for line in between):
                output = fenced[n + 1][3]
        found.append((start + 1, body_text, marked, output))
    return found


def check_output(where: str, printed: str, expected: str) -> None:
    """``printed`` begins with ``expected``'s lines up to a ``...`` line (all of them if none)."""
    want = expected.rstrip("\n").splitlines()
    got = printed.rstrip("\n").splitlines()
    if "..." in want:
        want = want[:want.index("...")]
        got = got[:len(want)]
    assert [g.rstrip() for g in got] == [w.rstrip() for w in want], (
        f"{where} printed:\n{printed}\nnot what the page shows:\n{expected}")


def test_pages_have_python() -> None:
    """The pages this test is for exist (a renamed folder would make it pass vacuously)."""
    names = {p.name for p in PAGES}
    assert {"tutorial.md"} <= names, names


def test_few_blocks_skipped() -> None:
    skipped = [f"{p.relative_to(ROOT)}:{line}" for p in PAGES
               for line, _code, marked, _out in blocks(p) if marked]
    assert len(skipped) <= MAX_SKIPPED, f"too many blocks marked not run: {skipped}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_blocks_run(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    world = f"docs-{page.stem}-{next(_worlds)}"
    before = esper.current_world
    worlds = set(esper._context_map)  # noqa: SLF001
    esper.switch_world(world)
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    try:
        for line, code, marked, output in blocks(page):
            if marked:
                continue
            where = f"{page.relative_to(ROOT)}:{line}"
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed):
                    exec(compile(code, where, "exec"), namespace)  # noqa: S102
            except Exception as exc:
                raise AssertionError(f"{where}: the block failed: {exc!r}") from exc
            if output is not None:
                check_output(where, printed.getvalue(), output)
    finally:
        esper.switch_world(before)
        # the page's world and any a block made (a recipe in a world of its own) go
        for made in set(esper._context_map) - worlds:  # noqa: SLF001
            esper.delete_world(made)
    assert os.getcwd() == str(ROOT)
