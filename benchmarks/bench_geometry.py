"""Per-pair cost of the compiled geometry: microseconds per pair, median of repeated runs.

Each routine runs in the narrowphase's compiled loop over ``--pairs`` pairs (default
100,000), every pair its own two bodies at a random placement near contact (so the exact test
runs, not only the box rejection), and through the public Python function per call (the cost
a game pays calling ``ecsphys.geometry.contact`` itself).

Run: ``python benchmarks/bench_geometry.py [--pairs 100000] [--repeat 7]``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from functools import partial

import numpy as np

from ecsphys.components import ACTIVE, Collider, Geometry, Position
from ecsphys.geometry import contact, time_of_impact
from ecsphys.shapes import Circle, OrientedRect, Polygon, Shape
from ecsphys.state.body_table import BodyTable
from ecsphys.systems.narrowphase import contacts, times_of_impact

OCTAGON = Polygon([(math.cos(k * math.pi / 4), math.sin(k * math.pi / 4)) for k in range(8)])
CASES: dict[str, tuple[Shape, Shape, str]] = {
    "circle-circle contact": (Circle(1), Circle(1), "contact"),
    "polygon(8)-polygon(8) contact": (OCTAGON, OCTAGON, "contact"),
    "orect-orect contact": (OrientedRect(2, 1, 30), OrientedRect(2, 1, -20), "contact"),
    "circle-polygon(8) toi": (Circle(1), OCTAGON, "toi"),
    "polygon(8)-polygon(8) toi": (OCTAGON, OCTAGON, "toi"),
}


def table_of(a: Shape, b: Shape, pairs: int, toi: bool, rng: np.random.Generator) -> BodyTable:
    """Rows 2i (shape a) and 2i + 1 (shape b): b near a (overlapping a little, or for a time
    of impact, 3 units away with a moving towards it)."""
    t = BodyTable(2 * pairs)
    angle = rng.uniform(0, 2 * math.pi, pairs)
    reach = 4.0 if toi else 1.7
    for i in range(pairs):
        x, y = reach * math.cos(angle[i]), reach * math.sin(angle[i])
        for k, (shape, p) in enumerate(((a, (0.0, 0.0)), (b, (x, y)))):
            comps = (Position(*p), None, None, Collider(ACTIVE), Geometry(shape))
            t.add(2 * i + k, comps)
    if toi:  # a moves at b, a little off centre
        d = t.pos[1 : 2 * pairs : 2] - t.pos[0 : 2 * pairs : 2]
        t.move[0 : 2 * pairs : 2] = d + rng.uniform(-0.5, 0.5, (pairs, 2))
    return t


def median_us(fn, pairs: int, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t0) / pairs * 1e6)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    print(f"{'pair':32s} {'compiled loop':>14s} {'public call':>12s}  (us per pair, median)")
    for name, (a, b, what) in CASES.items():
        toi = what == "toi"
        t = table_of(a, b, args.pairs, toi, rng)
        ra = np.arange(0, 2 * args.pairs, 2, dtype=np.int64)
        rb = ra + 1
        pos, move = t.pos[: t.n], t.move[: t.n]
        if toi:
            found, _ = times_of_impact(t, ra, rb, pos, move)
            hits = int(np.isfinite(found).sum())
            loop = median_us(partial(times_of_impact, t, ra, rb, pos, move), args.pairs,
                             args.repeat)
        else:
            hits = int(contacts(t, ra, rb, pos, 0.0)[0].sum())
            loop = median_us(partial(contacts, t, ra, rb, pos, 0.0), args.pairs, args.repeat)
        few = min(args.pairs, 5000)
        placed = [(tuple(pos[2 * i]), tuple(pos[2 * i + 1]), tuple(move[2 * i]))
                  for i in range(few)]

        def public(placed=placed, toi=toi, a=a, b=b) -> None:
            for pa, pb, m in placed:
                if toi:
                    time_of_impact(a, pa, m, b, pb)
                else:
                    contact(a, pa, b, pb)

        call = median_us(public, few, args.repeat)
        print(f"{name:32s} {loop:14.3f} {call:12.2f}  ({hits} of {args.pairs} hit)")


if __name__ == "__main__":
    main()
