"""Broadphase benchmark: ms per ``query`` for each broadphase on circles of mixed sizes in a box.

Scene: N circles of radius 0.5-2 placed uniformly in a square of side ``2.5 * sqrt(N)`` (mean
spacing 2.5, like a rain scene), plus a floor and two walls as static boxes. Steady state: the
circles move a little between calls (as in a simulation), the statics never change. Reports
the median over the timed calls, the candidate pairs per body the broadphase examined (where it
counts them) and the overlapping pairs per body.

Run: ``.venv/bin/python benchmarks/bench_broadphase.py [--sizes 1000 10000 50000] [--calls 30]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ecsphys.broadphase import make_broadphase


def scene(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Centres, radii and static boxes for ``n`` circles."""
    rng = np.random.default_rng(seed)
    side = 2.5 * np.sqrt(n)
    c = rng.uniform(0, side, (n, 2))
    r = rng.uniform(0.5, 2.0, (n, 1))
    slo = np.array([[-1.0, -1.0], [-1.0, 0.0], [side, 0.0]])
    shi = np.array([[side + 1, 0.0], [0.0, side], [side + 1, side]])
    return c, r, slo, shi


def bench(name: str, n: int, calls: int, warmup: int = 5) -> tuple[float, float, float]:
    """Median ms per query, candidates per body, pairs per body."""
    c, r, slo, shi = scene(n)
    rng = np.random.default_rng(1)
    bp = make_broadphase(name)
    bp.set_static(slo, shi)
    times = []
    cands = []
    pairs = 0
    for k in range(warmup + calls):
        c += rng.normal(0.0, 0.02, c.shape)
        lo, hi = c - r, c + r
        t0 = time.perf_counter()
        di, _, sk, _ = bp.query(lo, hi)
        t1 = time.perf_counter()
        if k >= warmup:
            times.append(t1 - t0)
            cands.append(getattr(bp, "last_candidates", float("nan")))
            pairs = len(di) + len(sk)
    return float(np.median(times)) * 1e3, float(np.median(cands)) / n, pairs / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    ap.add_argument("--calls", type=int, default=30)
    args = ap.parse_args()
    print(f"{'broadphase':<10} {'N':>7} {'ms/query':>9} {'cand/body':>9} {'pairs/body':>10}")
    for n in args.sizes:
        for name in ("grid", "sweep", "quadtree", "brute"):
            if name == "brute" and n > 1000:
                continue
            calls = args.calls if n <= 10000 or name == "grid" else max(5, args.calls // 3)
            ms, cand, pairs = bench(name, n, calls)
            cand_s = "-" if np.isnan(cand) else f"{cand:.1f}"
            print(f"{name:<10} {n:>7} {ms:>9.2f} {cand_s:>9} {pairs:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
