"""What ``import ecsphys`` loads: the core and its two dependencies (NumPy, esper), never
pyglet, pytiled-parser, Pillow, mapbox-earcut, shapely or SciPy (each loaded only by the
part of the library that needs it: drawing, Tiled maps, images, convex decomposition),
checked in a fresh interpreter; and what the import costs there, printed for the record
(``pytest -s``), not timed as a test."""

from __future__ import annotations

import json
import subprocess
import sys

OPTIONAL = ("pyglet", "pytiled_parser", "PIL", "mapbox_earcut", "shapely", "scipy")

PROBE = """
import json, sys, time
t0 = time.perf_counter()
import ecsphys
took = time.perf_counter() - t0
print(json.dumps({"loaded": sorted({m.split(".")[0] for m in sys.modules}),
                  "ms": took * 1e3}))
"""


def _probe() -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_ecsphys_loads_no_optional_library():
    got = _probe()
    loaded = set(got["loaded"])
    assert "ecsphys" in loaded and "numpy" in loaded and "esper" in loaded
    assert not loaded & set(OPTIONAL), sorted(loaded & set(OPTIONAL))
    print(f"import ecsphys: {got['ms']:.0f} ms in a fresh interpreter")


def test_a_convex_decomposition_loads_earcut_when_it_runs():
    code = ("import sys, ecsphys\nfrom ecsphys.geometry import convex_decompose\n"
            "assert 'mapbox_earcut' not in sys.modules\n"
            "parts = convex_decompose([(0, 0), (2, 0), (2, 2), (1, 1), (0, 2)])\n"
            "assert 'mapbox_earcut' in sys.modules and len(parts) >= 2, parts\n")
    subprocess.run([sys.executable, "-c", code], check=True)
