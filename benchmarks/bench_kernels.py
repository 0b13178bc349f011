"""Pairs per second of each vectorised kernel in ``ecsphys.geometry.kernels``.

Run: ``python benchmarks/bench_kernels.py [--pairs 100000] [--repeat 15]``. Prints a table of
the median time per call and pairs per second over ``--repeat`` calls on random pairs
(about half of them touching), after one warm-up call; "best" is the fastest call (the least
disturbed by other processes on a shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from ecsphys.geometry import kernels as k


def cases(n: int, seed: int = 0) -> dict[str, tuple[Callable[..., object], tuple[object, ...]]]:
    """Random inputs for every kernel: positions in a 6 x 6 box, sizes 0.1..1, moves up to 2."""
    rng = np.random.default_rng(seed)

    def pos() -> np.ndarray:
        return rng.uniform(-3, 3, (n, 2))

    def size() -> np.ndarray:
        return rng.uniform(0.1, 1.0, n)

    def half() -> np.ndarray:
        return rng.uniform(0.1, 1.0, (n, 2))

    def move() -> np.ndarray:
        return rng.uniform(-2, 2, (n, 2))

    return {
        "circle_circle": (k.circle_circle, (pos(), size(), pos(), size())),
        "circle_rect": (k.circle_rect, (pos(), size(), pos(), half())),
        "rect_rect": (k.rect_rect, (pos(), half(), pos(), half())),
        "circle_segment": (k.circle_segment, (pos(), size(), pos(), pos())),
        "toi_circle_circle": (
            k.toi_circle_circle,
            (pos(), size(), move(), pos(), size(), move()),
        ),
        "toi_circle_rect": (k.toi_circle_rect, (pos(), size(), move(), pos(), half())),
        "toi_circle_segment": (k.toi_circle_segment, (pos(), size(), move(), pos(), pos())),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    n = args.pairs
    print(f"{'kernel':<20} {'ms / call':>10} {'Mpairs / s':>11} {'best Mp/s':>10}   "
          f"({n:,} pairs, median of {args.repeat})")  # fmt: skip
    for name, (fn, inputs) in cases(n).items():
        fn(*inputs)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fn(*inputs)
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        print(f"{name:<20} {med * 1e3:>10.2f} {n / med / 1e6:>11.1f} {n / min(times) / 1e6:>10.1f}")


if __name__ == "__main__":
    main()
