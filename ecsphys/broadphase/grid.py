"""Uniform grid (spatial hash) broadphase: boxes binned by centre cell, pairs from neighbour cells.

Guarantees:
- Exact: returns every overlapping (closed-box) dynamic-dynamic pair with ``di < dj`` and every
  overlapping dynamic-static pair, each once, sorted lexicographically, as int64 arrays.
- Dynamic boxes no larger than (99% of) a cell go in the cell of their centre; each one is
  checked against its own cell and the forward half of its 8 neighbours, which with keys
  ``cell_y * W + cell_x`` are two contiguous key ranges. Boxes larger than that ("large") are not
  binned: each large box scans the cells under it (grown by one cell) row by row, and the large
  boxes are tested against each other by brute force. So any size mix is correct; cost grows
  with the area large boxes cover and with the square of their number.
- ``cell_size=None`` picks a cell just above the 98th percentile box extent (at most 3x the
  median; see ``dynamic_cell_size``) and keeps it until that estimate drifts (below 1/1.5 or
  above 1.15 times the current cell).
- Static boxes are indexed once per ``set_static`` in their own cell structure (each static box
  in every cell it covers, see ``_cells.CellIndex``); ``query`` looks the dynamic boxes up in it.
- Steady state is cheap: the cell sort starts from the previous call's order (a stable sort of
  nearly sorted keys), cell starts come from ``bincount`` + ``cumsum``, candidates from
  ``np.repeat``. Deleting or adding dynamic boxes between calls is fine (ids are ``0..n-1``
  each call).
- Negative and far-away coordinates work (exact while ``|coordinate| / cell_size`` stays below
  about 1e12); a thin scene over a huge area switches from a dense cell table to binary search.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._cells import CellIndex, auto_cell_size
from .base import (
    PairArrays,
    as_boxes,
    brute_pairs,
    empty_pairs,
    expand_ranges,
    range_overlaps,
    sorted_pairs,
)

__all__ = ["Grid", "dynamic_cell_size"]

_NORMAL_FRACTION = 0.99  # boxes up to this fraction of a cell are binned by centre
_DRIFT = 1.5  # automatic cell size is re-picked when the estimate leaves [c/1.5, c*1.15]
_DRIFT_UP = 1.15  # (growing boxes make many "large" ones, so react sooner to growth)
_MAX_AXIS_CELLS = 1 << 25  # keeps keys below 2**53 (exact in float64)
_BRUTE_LARGE = 64  # up to this many large boxes are paired among themselves by brute force
_MAX_DEPTH = 4  # nesting limit for the grids of large boxes


def dynamic_cell_size(lo: np.ndarray, hi: np.ndarray) -> float:
    """The automatic dynamic cell size: just above the 98th percentile box extent.

    Capped at 3x the median extent, so a few giants do not coarsen the grid for everybody (they
    are handled as large boxes instead). Estimated from a sample of at most about 1,000 boxes.
    Measured on mixed circles (extent 1-4): this cell (about 4) gives 30% fewer candidates and
    a 25% faster query than 2x the median (about 5).
    """
    n = lo.shape[0]
    if n == 0:
        return 1.0
    step = max(1, n // 512)
    ext = hi[::step] - lo[::step]
    e = np.maximum(ext[:, 0], ext[:, 1])
    k98, k50 = (e.size * 98) // 100, e.size // 2
    e.partition((k50, k98))
    est = min(1.02 * float(e[k98]) / _NORMAL_FRACTION, 3.0 * float(e[k50]))
    if est > 0 and np.isfinite(est):
        return est
    return auto_cell_size(lo, hi)


class Grid:
    """Uniform grid broadphase over dynamic boxes, with a static cell index."""

    def __init__(self, cell_size: float | None = None, static_cell_size: float | None = None):
        """``cell_size``: dynamic grid cell (None = automatic); ``static_cell_size`` likewise."""
        if cell_size is not None and not (cell_size > 0 and np.isfinite(cell_size)):
            raise ValueError(f"cell_size must be a positive finite number, got {cell_size!r}")
        self.rebuilds: int = 0
        self.cell_size: float | None = None if cell_size is None else float(cell_size)
        self._auto = cell_size is None
        self._static = CellIndex(static_cell_size)
        self._order = np.empty(0, dtype=np.int64)
        self._depth = 0
        self._nested: Grid | None = None
        self.last_candidates: int = 0
        """Candidate pairs examined by the last ``query`` (dynamic-dynamic), for benchmarks."""

    def set_static(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """Index the static boxes (ids ``0..m-1``); increments ``rebuilds``."""
        self._static.build(lo, hi)
        self.rebuilds += 1

    def query(self, lo: np.ndarray, hi: np.ndarray) -> PairArrays:
        """Return ``(di, dj, sk, sl)`` for the dynamic boxes ``lo, hi`` (ids ``0..n-1``)."""
        lo, hi = as_boxes(lo, hi)
        di, dj = self._dynamic_pairs(lo, hi)
        sk, sl = self._static.query(lo, hi)
        return di, dj, sk, sl

    # -- dynamic-dynamic -------------------------------------------------------------------

    def _pick_cell(self, lo: np.ndarray, hi: np.ndarray) -> float:
        if self._auto:
            est = dynamic_cell_size(lo, hi)
            c = self.cell_size
            if c is None or not (c / _DRIFT <= est <= c * _DRIFT_UP):
                self.cell_size = est
        assert self.cell_size is not None
        return self.cell_size

    def _reuse_order(self, n: int) -> np.ndarray:
        """The previous call's sort order, trimmed or extended to a permutation of 0..n-1."""
        order = self._order
        if order.size == n:
            return order
        if order.size > n:
            return order[order < n]
        return np.concatenate([order, np.arange(order.size, n, dtype=np.int64)])

    def _dynamic_pairs(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = lo.shape[0]
        self.last_candidates = 0
        if n < 2:
            self._order = np.arange(n, dtype=np.int64)
            return empty_pairs()
        # column views; reductions over (n, 2) arrays along axis 0 are slow in NumPy
        lo_x, lo_y, hi_x, hi_y = lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]
        c = self._pick_cell(lo, hi)
        span = max(hi_x.max() - lo_x.min(), hi_y.max() - lo_y.min(), 0.0)
        c = max(c, float(span) / _MAX_AXIS_CELLS)
        inv = 1.0 / c
        limit = _NORMAL_FRACTION * c
        ext = hi - lo
        big = ext > limit
        big = big[:, 0] | big[:, 1]
        nbig = int(np.count_nonzero(big))

        cen = lo + hi
        cen *= 0.5 * inv
        np.floor(cen, out=cen)
        cen_x, cen_y = cen[:, 0], cen[:, 1]
        if nbig == 0:
            cmin = (cen_x.min(), cen_y.min())
            cmax = (cen_x.max(), cen_y.max())
        elif nbig < n:
            normal = ~big
            cmin = (cen_x[normal].min(), cen_y[normal].min())
            cmax = (cen_x[normal].max(), cen_y[normal].max())
        else:
            cmin = cmax = (0.0, 0.0)
        # one empty padding cell on every side, so neighbour keys never wrap into another row
        w = int(cmax[0] - cmin[0]) + 3
        h = int(cmax[1] - cmin[1]) + 3
        cen_y -= cmin[1] - 1.0
        cen_y *= w
        cen_y += cen_x
        keys = cen_y.astype(np.int64)
        keys -= int(cmin[0]) - 1
        sentinel = w * h  # large boxes sort after every real cell and are never a neighbour
        if nbig:
            keys[big] = sentinel

        order = self._reuse_order(n)
        kperm = keys[order]
        s = np.argsort(kperm, kind="stable")
        order = order[s]
        skeys = kperm[s]
        self._order = order
        nn = n - nbig

        if sentinel <= 4 * n + 4096:
            starts = np.zeros(sentinel + 2, dtype=np.int64)
            np.cumsum(np.bincount(skeys, minlength=sentinel + 1), out=starts[1:])

            def first(k: np.ndarray) -> np.ndarray:
                return starts[k]
        else:

            def first(k: np.ndarray) -> np.ndarray:
                return np.searchsorted(skeys, k, side="left")

        # sorted box columns, contiguous
        lx = lo_x[order]
        ly = lo_y[order]
        hx = hi_x[order]
        hy = hi_y[order]

        parts_i: list[np.ndarray] = []
        parts_j: list[np.ndarray] = []
        if nn > 1:
            k = skeys[:nn]
            st = np.empty((nn, 2), dtype=np.int64)
            ct = np.empty((nn, 2), dtype=np.int64)
            # range A: the rest of my own cell and the next cell to the right
            a_start = st[:, 0]
            np.add(np.arange(nn, dtype=np.int64), 1, out=a_start)
            np.subtract(first(k + 2), a_start, out=ct[:, 0])
            # range B: the three cells of the row above
            st[:, 1] = first(k + (w - 1))
            np.subtract(first(k + (w + 2)), st[:, 1], out=ct[:, 1])
            cols = (lx, ly, hx, hy)
            i, j, total = range_overlaps(st, ct, cols, cols)
            self.last_candidates += total
            parts_i.append(i)
            parts_j.append(j)
        if nbig:
            bi, bj = self._large_pairs(lx, ly, hx, hy, first, nn, n, w, h, cmin, inv, c)
            parts_i.append(bi)
            parts_j.append(bj)
        if not parts_i:
            return empty_pairs()
        pi = np.concatenate(parts_i) if len(parts_i) > 1 else parts_i[0]
        pj = np.concatenate(parts_j) if len(parts_j) > 1 else parts_j[0]
        a = order[pi]
        b = order[pj]
        return sorted_pairs(np.minimum(a, b), np.maximum(a, b), n, unique=True)

    def _large_pairs(
        self,
        lx: np.ndarray,
        ly: np.ndarray,
        hx: np.ndarray,
        hy: np.ndarray,
        first: Callable[[np.ndarray], np.ndarray],
        nn: int,
        n: int,
        w: int,
        h: int,
        cmin: tuple[float, float],
        inv: float,
        c: float,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (sorted positions) involving the large boxes, which sit at positions nn..n-1."""
        out_i: list[np.ndarray] = []
        out_j: list[np.ndarray] = []
        q = np.arange(nn, n, dtype=np.int64)
        if nn:
            # cells whose centre-binned boxes may touch a large box: its box grown by one cell
            gx0 = np.clip(np.floor((lx[nn:] - c) * inv) - cmin[0] + 1, 1, w - 2).astype(np.int64)
            gx1 = np.clip(np.floor((hx[nn:] + c) * inv) - cmin[0] + 1, 1, w - 2).astype(np.int64)
            gy0 = np.clip(np.floor((ly[nn:] - c) * inv) - cmin[1] + 1, 1, h - 2).astype(np.int64)
            gy1 = np.clip(np.floor((hy[nn:] + c) * inv) - cmin[1] + 1, 1, h - 2).astype(np.int64)
            rows = np.maximum(gy1 - gy0 + 1, 0)
            rows[gx1 < gx0] = 0
            owner = np.repeat(np.arange(q.size), rows)
            if owner.size:
                row = expand_ranges(gy0, rows, owner.size)
                base = row * w
                s = first(base + gx0[owner])
                e = first(base + gx1[owner] + 1)
                cnt = e - s
                j = expand_ranges(s, cnt)
                i = np.repeat(q[owner], cnt)
                m = (lx[i] <= hx[j]) & (lx[j] <= hx[i]) & (ly[i] <= hy[j]) & (ly[j] <= hy[i])
                out_i.append(i[m])
                out_j.append(j[m])
        if q.size > 1:
            blo = np.stack([lx[nn:], ly[nn:]], axis=1)
            bhi = np.stack([hx[nn:], hy[nn:]], axis=1)
            if q.size <= _BRUTE_LARGE or self._depth >= _MAX_DEPTH:
                i, j = brute_pairs(blo, bhi)
            else:
                # the large boxes among themselves: a coarser grid of their own
                if self._nested is None:
                    self._nested = Grid()
                    self._nested._depth = self._depth + 1
                i, j = self._nested._dynamic_pairs(blo, bhi)
            out_i.append(i + nn)
            out_j.append(j + nn)
        if not out_i:
            return empty_pairs()
        return np.concatenate(out_i), np.concatenate(out_j)

