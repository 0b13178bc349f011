"""The compiled core is what gets imported: every ``.pyx`` of the package is a built extension
module, a source tree without the built modules refuses to import with a message saying how
to build them, and the public functions reject what is not a shape by naming its type."""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

PKG = Path(importlib.util.find_spec("ecsphys").origin).parent
COMPILED = sorted(
    ".".join(pyx.relative_to(PKG.parent).with_suffix("").parts) for pyx in PKG.rglob("*.pyx")
)


def test_there_are_compiled_modules() -> None:
    assert "ecsphys.geometry.query" in COMPILED


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_module_is_the_extension(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__file__.endswith(tuple(EXTENSION_SUFFIXES)), module.__file__


_PROBE = """
import importlib.util, sys
sys.path.insert(0, sys.argv[1])
print(importlib.util.find_spec("ecsphys").origin)
try:
    import ecsphys
except ImportError as e:
    print("ImportError:", e)
else:
    print("imported")
"""


def _sources_only(folder: str, names: list[str]) -> list[str]:
    return [
        n for n in names
        if n == "__pycache__"
        or (Path(folder, n).is_file() and Path(n).suffix not in (".py", ".pyx", ".pxd"))
    ]


def test_unbuilt_source_tree_refuses_to_import(tmp_path: Path) -> None:
    shutil.copytree(PKG, tmp_path / "ecsphys", ignore=_sources_only)
    assert not [p for s in EXTENSION_SUFFIXES for p in (tmp_path / "ecsphys").rglob("*" + s)]
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    lines = out.stdout.splitlines()
    assert lines and lines[0].startswith(str(tmp_path)), (out.stdout, out.stderr)  # the copy
    message = "\n".join(lines[1:])
    assert message.startswith("ImportError:"), (out.stdout, out.stderr)
    assert "compiled" in message and "pip install" in message, message


def _calls():
    import ecsphys.geometry as g
    from ecsphys.shapes import Circle

    bad, c, o = "circle", Circle(1), (0, 0)
    return {
        "point_in": lambda: g.point_in(bad, o, o),
        "raycast": lambda: g.raycast(bad, o, o, (1, 0)),
        "segment_hits": lambda: g.segment_hits(bad, o, o, (1, 0)),
        "segment_hits_point": lambda: g.segment_hits(bad, o, o, o),
        "line_overlaps": lambda: g.line_overlaps(g.Line(o, (1, 0)), bad, o),
        "contact": lambda: g.contact(bad, o, c, o),
        "contact_second": lambda: g.contact(c, o, bad, o),
        "overlaps": lambda: g.overlaps(c, o, bad, o),
        "distance": lambda: g.distance(bad, o, c, o),
        "contact_within": lambda: g.contact_within(c, o, bad, o, 0.1),
        "time_of_impact": lambda: g.time_of_impact(bad, o, (1, 0), c, (3, 0)),
    }


CALLS = ("contact", "contact_second", "contact_within", "distance", "line_overlaps", "overlaps",
         "point_in", "raycast", "segment_hits", "segment_hits_point", "time_of_impact")


@pytest.mark.parametrize("name", CALLS)
def test_public_functions_name_the_bad_type(name: str) -> None:
    calls = _calls()
    assert sorted(calls) == sorted(CALLS)
    with pytest.raises(TypeError, match=r"\bstr\b"):
        calls[name]()
