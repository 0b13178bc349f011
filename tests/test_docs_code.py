"""Every fenced ```python block of the docs' Markdown pages runs.

Guarantees:
- each page under ``docs/`` (and ``docs/howto/``) runs its blocks in order, in one namespace of
  its own (a block may use what an earlier block of the same page made), in a fresh esper world
  that is deleted afterwards (with any world a block switched to), from the repository's root
  (so ``examples/platformer.tmj`` is found by its path in the repository);
- a block is skipped only when the line directly above its fence is the marker
  ``<!-- not run: <why> -->`` (a window opens, for instance), and the skipped blocks are few:
  their list is in the assertion's message.
"""

from __future__ import annotations

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


def blocks(page: Path) -> list[tuple[int, str, bool]]:
    """The ```python blocks of a page: (first line number, code, skipped)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[tuple[int, str, bool]] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        i += 1
        if lang == "python":
            marked = start > 0 and bool(NOT_RUN.match(lines[start - 1].strip()))
            found.append((start + 1, "\n".join(body) + "\n", marked))
    return found


def test_pages_have_python() -> None:
    """The pages this test is for exist (a renamed folder would make it pass vacuously)."""
    names = {p.name for p in PAGES}
    assert {"tutorial.md"} <= names, names


def test_few_blocks_skipped() -> None:
    skipped = [f"{p.relative_to(ROOT)}:{line}" for p in PAGES
               for line, _code, marked in blocks(p) if marked]
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
        for line, code, marked in blocks(page):
            if marked:
                continue
            compiled = compile(code, f"{page.relative_to(ROOT)}:{line}", "exec")
            try:
                exec(compiled, namespace)  # noqa: S102
            except Exception as exc:
                raise AssertionError(
                    f"{page.relative_to(ROOT)}, the block at line {line} failed: {exc!r}"
                ) from exc
    finally:
        esper.switch_world(before)
        # the page's world and any a block made (a recipe in a world of its own) go
        for made in set(esper._context_map) - worlds:  # noqa: SLF001
            esper.delete_world(made)
    assert os.getcwd() == str(ROOT)
