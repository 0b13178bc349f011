"""The README's quickstart runs as written and does what it says."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import esper

import ecsphys as ep

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_quickstart_runs_and_the_ball_lands(world):
    text = README.read_text()
    code = re.search(r"## Quickstart\s+```python\n(.*?)```", text, re.S).group(1)
    out = io.StringIO()
    scope: dict[str, object] = {}
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README quickstart", "exec"), scope)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("touch 1 2 ")  # one touch: floor (1) and ball (2), in that order
    assert sum(line.startswith("touch") for line in lines) == 1
    pos = esper.component_for_entity(scope["ball"], ep.Position)
    assert 0.5 + 0.5 <= pos.y <= 1.0 + 0.01  # resting on the floor's top (0.5) by its radius
    assert pos.x > 2.0  # and still rolling along it
