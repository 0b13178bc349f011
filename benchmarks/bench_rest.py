"""A bouncy pile at rest: step time as the rain scene settles, with and without restitution.

Guarantees: the same rain layout (``benchmarks.scenes.rain_layout``: balls of radius 1 with
random velocities in a walled box, gravity) is built twice, with restitution 0 and with the
restitution asked for, in one process; both are stepped alike and their step times are read
over the same windows of simulated time (each window's median ms per step), alternating
between the two piles step by step so load from other processes hits them alike. Also
reports the largest speed in each pile at the end of each window: a settled pile reads
about zero whatever its restitution, and its step then costs what the pile at restitution 0
costs.

    python -m benchmarks.bench_rest [--n 10000] [--restitution 0.2] [--seconds 20]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import numpy as np

from . import scenes as S


def _pile(n: int, restitution: float) -> S.EcsScene:
    lay = S.rain_layout(n)
    lay.restitution = restitution
    return S.EcsScene(lay)


def _top_speed(scene: S.EcsScene) -> float:
    t = scene.physics.table
    v = t.vel[scene._rows()]
    return float(np.hypot(v[:, 0], v[:, 1]).max())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--restitution", type=float, default=0.2)
    ap.add_argument("--seconds", type=float, default=20.0, help="simulated time to run")
    ap.add_argument("--window", type=float, default=1.0, help="seconds per reported window")
    args = ap.parse_args(argv)
    piles = {0.0: _pile(args.n, 0.0), args.restitution: _pile(args.n, args.restitution)}
    per_window = max(1, round(args.window / S.DT))
    windows = max(1, round(args.seconds / args.window))
    print(f"rain pile of {args.n} balls; ms per step (median of each {args.window:g} s window)"
          f" and the largest speed at its end")
    print(f"{'t (s)':>6} | " + " | ".join(
        f"e={e:g}: ms/step  max|v|" for e in piles))
    gc.disable()
    try:
        for w in range(windows):
            ms: dict[float, list[float]] = {e: [] for e in piles}
            for _ in range(per_window):
                for e, scene in piles.items():  # alternate: load hits both alike
                    t0 = time.perf_counter()
                    scene.step()
                    ms[e].append((time.perf_counter() - t0) * 1e3)
            gc.collect()
            row = " | ".join(f"{statistics.median(ms[e]):>11.2f}  {_top_speed(s):>7.2f}"
                             for e, s in piles.items())
            print(f"{(w + 1) * args.window:>6.1f} | {row}", flush=True)
    finally:
        gc.enable()
        for scene in piles.values():
            scene.close()


if __name__ == "__main__":
    main()
