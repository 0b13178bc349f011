"""Mask against mask: overlap tests per second for two 64 x 64 masks whose boxes overlap in a
32 x 32 window, in ecsphys (``geometry.overlaps``) and pygame-ce (``Mask.overlap``) on the
same masks and offsets, alternating in one process; medians of the rounds.

Two cases: pixels that never meet in the window (both engines scan it all: the worst case)
and pixels that meet (both stop at the first shared pixel). A third column times the test
inside one compiled call (``geometry.mask.overlaps_at``, 1,000 placements a call): what a
test costs without the Python call around it.

    python benchmarks/bench_mask.py [--rounds 7] [--calls 20000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import pygame

from ecsphys import geometry
from ecsphys.geometry.mask import overlaps_at
from ecsphys.mask import Mask

SIZE = 64
SHIFT = 32  # the second mask's offset in pixels, right and down: a 32 x 32 window


def masks(meet: bool) -> tuple[np.ndarray, np.ndarray]:
    """Two chequered 64 x 64 masks whose set pixels never share a pixel at the shift (or,
    with ``meet``, share one in the window's last row)."""
    board = (np.add.outer(np.arange(SIZE), np.arange(SIZE)) % 2).astype(bool)
    a, b = board, ~board  # the shift is even: b's pixels fall on a's empty ones
    if meet:
        b = b.copy()
        b[SIZE - SHIFT - 1, SIZE - SHIFT - 2] = True  # on a's set pixel (63, 62)
    return a, b


def ours(a: np.ndarray, b: np.ndarray) -> Callable[[], object]:
    ma, mb = Mask(a), Mask(b)
    # b's top-left pixel SHIFT pixels right of and below a's (y up, so below is minus)
    pa, pb = (0.0, 0.0), (float(SHIFT), -float(SHIFT))
    overlaps = geometry.overlaps
    return lambda: overlaps(ma, pa, mb, pb)


def theirs(a: np.ndarray, b: np.ndarray) -> Callable[[], object]:
    def to_pygame(px: np.ndarray) -> pygame.mask.Mask:
        m = pygame.mask.Mask((SIZE, SIZE))
        for y, x in zip(*np.nonzero(px), strict=True):
            m.set_at((int(x), int(y)))
        return m

    ma, mb = to_pygame(a), to_pygame(b)
    offset = (SHIFT, SHIFT)  # pygame's y grows down, as rows do
    return lambda: ma.overlap(mb, offset)


BATCH = 1000


def batched(a: np.ndarray, b: np.ndarray) -> Callable[[], object]:
    ma, mb = Mask(a), Mask(b)
    where = np.tile((float(SHIFT), -float(SHIFT)), (BATCH, 1))
    return lambda: overlaps_at(ma, (0.0, 0.0), mb, where)


def rate(fn: Callable[[], object], calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return calls / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--calls", type=int, default=20_000)
    args = p.parse_args()
    print("| case | ecsphys tests/s | pygame-ce tests/s | ratio | ecsphys in one call, tests/s |")
    print("|---|---:|---:|---:|---:|")
    for meet in (False, True):
        a, b = masks(meet)
        f_ours, f_theirs, f_batch = ours(a, b), theirs(a, b), batched(a, b)
        assert bool(f_ours()) == (f_theirs() is not None) == meet
        assert bool(f_batch().all()) == meet
        r_ours, r_theirs, r_batch = [], [], []
        for _ in range(args.rounds):
            r_ours.append(rate(f_ours, args.calls))
            r_theirs.append(rate(f_theirs, args.calls))
            r_batch.append(rate(f_batch, max(1, args.calls // BATCH)) * BATCH)
        mo, mt, mb = (statistics.median(r) for r in (r_ours, r_theirs, r_batch))
        case = "pixels meet (first hit)" if meet else "no shared pixel (full window)"
        print(f"| {case} | {mo:,.0f} | {mt:,.0f} | {mo / mt:.2f} | {mb:,.0f} |")


if __name__ == "__main__":
    main()
