"""Boxes binned by the cell of their centre: the uniform grid's layout for one query.

Guarantees:
- ``Bins(lo, hi, extent, cell, scratch)`` sorts the boxes by cell key ``cell_y * W + cell_x``
  (a radix sort of 16-bit keys, two passes up to 32 bits; stable, so ties keep box order).
  Boxes whose larger extent is over ``NORMAL_FRACTION * cell`` ("large") are not binned: they
  sort last, at positions ``nn .. n-1``. Positions are indices into ``order`` (box ids).
- ``forward_pairs()``: every overlapping pair of binned boxes, once, as positions ``p < q``:
  each box against the rest of its own cell, the next cell to the right and the three cells of
  the row above, which are two contiguous key ranges.
- ``scan(lo, hi, high, owner)``: every overlapping (query box, binned box) pair, for query boxes
  of any size: each query box looks at the cells under it grown by one cell, row by row (a
  binned box sits in the cell of its centre and is at most a cell wide, so it can touch a query
  box only from there). Returns ``None`` instead when that would look at more than
  ``max_cells`` cells.
- Exact keys while ``|coordinate| / cell`` stays below about 1e12 (the cell is raised so a row
  has at most 2**25 cells); one empty padding cell on every side, so neighbour keys never wrap
  into another row; a dense start table (``bincount`` + ``cumsum``) when there are at most
  ``4n + 4096`` cells, binary search otherwise.
- Work arrays come from ``scratch``; results are valid until the next ``Bins`` on it.
"""

from __future__ import annotations

import numpy as np

from ._ranges import pack, range_pairs
from ._scratch import Scratch
from .base import expand_ranges

__all__ = ["Bins", "NORMAL_FRACTION"]

NORMAL_FRACTION = 0.99  # boxes up to this fraction of a cell are binned by centre
_MAX_AXIS_CELLS = 1 << 25  # keeps keys below 2**53 (exact in float64)


def _cell_order(keys: np.ndarray, kmax: int, scratch: Scratch) -> np.ndarray:
    """A stable sort permutation of the non-negative int64 ``keys`` (all ``<= kmax``)."""
    n = keys.shape[0]
    k16 = scratch.get("k16", n, np.uint16)
    if kmax < 1 << 16:
        np.copyto(k16, keys, casting="unsafe")
        return np.argsort(k16, kind="stable")  # a radix sort
    if kmax < 1 << 32:  # two radix passes: low 16 bits, then (stable) high 16 bits
        np.copyto(k16, keys, casting="unsafe")  # wraps modulo 2**16
        low = np.argsort(k16, kind="stable")
        t = np.take(keys, low, out=scratch.get("k_hi", n, np.int64), mode="clip")
        np.right_shift(t, 16, out=t)
        np.copyto(k16, t, casting="unsafe")
        return np.take(low, np.argsort(k16, kind="stable"))
    return np.argsort(keys, kind="stable")


class Bins:
    """The boxes sorted by centre cell, packed for range tests (see the module docstring)."""

    def __init__(
        self, lo: np.ndarray, hi: np.ndarray, extent: np.ndarray, cell: float, sc: Scratch
    ) -> None:
        n = lo.shape[0]
        self.n = n
        self._sc = sc
        # column views; reductions over (n, 2) arrays along axis 0 are slow in NumPy
        lo_x, lo_y, hi_x, hi_y = lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]
        sx = np.add(lo_x, hi_x, out=sc.get("sx", n))  # twice the centres
        sy = np.add(lo_y, hi_y, out=sc.get("sy", n))
        sx_min, sx_max, sy_min, sy_max = sx.min(), sx.max(), sy.min(), sy.max()
        span = max(sx_max - sx_min, sy_max - sy_min) * 0.5 + float(extent.max())
        c = max(cell, float(span) / _MAX_AXIS_CELLS)
        self.cell = c
        self.inv = inv = 1.0 / c
        big = np.greater(extent, NORMAL_FRACTION * c, out=sc.get("big", n, np.bool_))
        nbig = int(np.count_nonzero(big))
        self.nn = n - nbig
        half = 0.5 * inv
        np.floor(np.multiply(sx, half, out=sx), out=sx)
        np.floor(np.multiply(sy, half, out=sy), out=sy)
        if nbig == 0:
            cmin = (float(np.floor(sx_min * half)), float(np.floor(sy_min * half)))
            cmax = (float(np.floor(sx_max * half)), float(np.floor(sy_max * half)))
        elif nbig < n:
            normal = ~big
            nx, ny = sx[normal], sy[normal]
            cmin = (float(nx.min()), float(ny.min()))
            cmax = (float(nx.max()), float(ny.max()))
            sx[big] = cmin[0]  # keeps every key in range (overwritten below)
            sy[big] = cmin[1]
        else:
            cmin = cmax = (0.0, 0.0)
            sx.fill(0.0)
            sy.fill(0.0)
        # one empty padding cell on every side, so neighbour keys never wrap into another row
        self.origin = np.array([cmin[0] - 1.0, cmin[1] - 1.0])  # the padding corner cell
        self.w = w = int(cmax[0] - cmin[0]) + 3
        self.h = h = int(cmax[1] - cmin[1]) + 3
        sy -= self.origin[1]
        sy *= w
        sy += sx
        sy -= self.origin[0]
        keys = sc.get("keys", n, np.int64)
        np.copyto(keys, sy, casting="unsafe")
        sentinel = w * h  # large boxes sort after every real cell and are never a neighbour
        if nbig:
            keys[big] = sentinel
        self.order = order = _cell_order(keys, sentinel, sc)
        self.keys = np.take(keys, order, out=sc.get("skeys", n, np.int64), mode="clip")
        self._starts: np.ndarray | None = None
        if sentinel <= 4 * n + 4096:
            starts = sc.get("starts", sentinel + 2, np.int64)
            starts[0] = 0
            np.cumsum(np.bincount(self.keys, minlength=sentinel + 1), out=starts[1:])
            self._starts = starts
        self.lo = np.take(lo, order, axis=0, out=sc.get("los", n, np.float64, 2), mode="clip")
        self.hi = np.take(hi, order, axis=0, out=sc.get("his", n, np.float64, 2), mode="clip")
        self.low, self.high = pack(self.lo, self.hi, sc)

    def first(self, k: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Position of the first box of cell key ``k`` or later (``k`` int64, in range)."""
        if self._starts is not None:
            return np.take(self._starts, k, out=out, mode="clip")
        if out is None:
            return np.searchsorted(self.keys, k, side="left")
        out[...] = np.searchsorted(self.keys, k, side="left")
        return out

    def forward_pairs(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Overlapping binned pairs as positions ``(p, q)``, ``p < q``, and candidates tested."""
        nn, w, sc = self.nn, self.w, self._sc
        k = self.keys[:nn]
        st = sc.get("st", 2 * nn, np.int64)  # range starts: nn of kind A, then nn of kind B
        ct = sc.get("ct", 2 * nn, np.int64)  # range lengths
        tmp = sc.get("tmp", nn, np.int64)
        # range A: the rest of my own cell and the next cell to the right
        st[:nn] = sc.arange(nn + 1)[1:]
        self.first(np.add(k, 2, out=tmp), ct[:nn])
        np.subtract(ct[:nn], st[:nn], out=ct[:nn])
        # range B: the three cells of the row above
        self.first(np.add(k, w - 1, out=tmp), st[nn:])
        self.first(np.add(k, w + 2, out=tmp), ct[nn:])
        np.subtract(ct[nn:], st[nn:], out=ct[nn:])
        owner = sc.get("owner", 2 * nn, np.int64)
        owner[:nn] = sc.arange(nn)
        owner[nn:] = owner[:nn]
        return range_pairs(self.high, owner, self.low, st, ct, sc, "fw")

    def scan(
        self,
        lo: np.ndarray,
        hi: np.ndarray,
        high: np.ndarray,
        owner: np.ndarray,
        tag: str,
        max_cells: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray, int] | None:
        """Overlapping ``(owner[q], position)`` of query boxes ``lo, hi`` (packed ``high``,
        indexed by ``owner``) with the binned boxes; ``None`` if over ``max_cells`` cells."""
        c, inv = self.cell, self.inv
        top = np.array([self.w - 2.0, self.h - 2.0])
        # the real cells (the padding excluded) under each box grown by one cell
        g0 = np.floor((lo - c) * inv)
        g0 -= self.origin
        g1 = np.floor((hi + c) * inv)
        g1 -= self.origin
        gx0, gy0 = np.clip(g0, 1.0, top).astype(np.int64).T
        gx1, gy1 = np.clip(g1, 1.0, top).astype(np.int64).T
        rows = np.maximum(gy1 - gy0 + 1, 0)
        rows[gx1 < gx0] = 0
        if max_cells is not None and int(np.dot(rows, gx1 - gx0 + 1)) > max_cells:
            return None
        local = np.repeat(np.arange(rows.size), rows)
        if local.size == 0:
            empty = np.empty(0, dtype=np.int64)
            return empty, empty, 0
        base = expand_ranges(gy0, rows, local.size) * self.w
        s = self.first(base + gx0[local])
        cnt = self.first(base + gx1[local] + 1) - s
        return range_pairs(high, owner[local], self.low, s, cnt, self._sc, tag)
