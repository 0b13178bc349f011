"""The first step from a cold start: a fresh process imports ecsphys, builds a 1,000-body
rain and runs its first step; what that costs (import, build, first step with adoption).

Guarantees: each run is a fresh ``python -c`` process (nothing cached in memory), the runs
are sequential, and the table shows each part's median over the runs with its min and max.
Measured on the development machine (2 cores, 2026-11): 0.14-0.19 s in all when quiet, 0.20-0.41 s
with other work running; the import (mostly NumPy) is 0.11-0.29 s of it, building the scene
0.01 s and the first step (adopting the 1,004 bodies included) 0.03-0.08 s. (It was a timed
unit test; on a loaded machine it failed, so it is measured here.)

    python -m benchmarks.bench_first_step [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

_SCRIPT = r'''
import time
t0 = time.perf_counter()
import ecsphys as ep
import esper
t1 = time.perf_counter()
physics = ep.Physics(fixed_dt=1 / 60)
w, h = 80.0, 100.0
for x, y, sw, sh in ((w / 2, -1, w + 4, 2), (w / 2, h + 1, w + 4, 2), (-1, h / 2, 2, h),
                     (w + 1, h / 2, 2, h)):
    esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(sw, sh)))
circle = ep.Circle(1.0)
for i in range(1000):  # a rain of 1,000 circles on a grid of spacing 2.5
    esper.create_entity(ep.Position(1.25 + (i % 32) * 2.5, 1.25 + (i // 32) * 2.5),
                        ep.Velocity((i * 7) % 11 - 5.0, (i * 3) % 7 - 3.0),
                        ep.AccelerationMap(gravity=(0.0, -9.8)),
                        ep.Collider(ep.ACTIVE), ep.Geometry(circle))
t2 = time.perf_counter()
physics.step()
t3 = time.perf_counter()
import json, sys
print(json.dumps({
    "total": t3 - t0, "import": t1 - t0, "build": t2 - t1, "step": t3 - t2,
    "bodies": physics.body_count, "steps": physics.steps,
    "compilers": sorted(m for m in ("Cython", "pyximport", "distutils", "setuptools")
                        if m in sys.modules),
}))
'''


def fresh_run() -> dict:
    """One cold start in a new process: its timings (seconds) and what it saw."""
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         timeout=120)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)
    runs = [fresh_run() for _ in range(args.runs)]
    print(f"first step of a 1,000-body rain from a cold start, {args.runs} fresh processes")
    for part in ("total", "import", "build", "step"):
        vals = [r[part] for r in runs]
        print(f"{part:>7}: median {statistics.median(vals):.3f} s "
              f"({min(vals):.3f}-{max(vals):.3f})")


if __name__ == "__main__":
    main()
