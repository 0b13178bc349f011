"""A static cell index: boxes inserted into every grid cell they cover, queried by box.

Guarantees:
- Built once per ``set_static``; ``query`` is read-only and may be called any number of times.
- Exact: ``query`` returns every overlapping (closed-box) pair ``(query box, indexed box)``
  exactly once, sorted lexicographically, as int64 arrays.
- A pair met in several shared cells is reported only from the cell holding the lower-left
  corner of the two boxes' intersection (the reference-point rule), so no dedupe sort is needed.
- Boxes covering more than ``max_cells_per_box`` cells are kept in a separate "huge" list that
  is tested against every query box (vectorised); so are all boxes when the grid would be
  absurdly large.
- Works for negative and far-away coordinates (exact while ``|coordinate| / cell_size`` stays
  below about 1e12); a sparse key table (binary search) replaces the dense one when the boxes
  are spread thinly over a large area.
"""

from __future__ import annotations

import numpy as np

from ._ranges import pack, range_pairs
from ._scratch import Scratch
from .base import as_boxes, brute_cross, empty_pairs, expand_ranges, sorted_pairs

__all__ = ["CellIndex", "auto_cell_size", "static_cell_size"]

_MAX_AXIS_CELLS = 1 << 25  # keeps keys below 2**53 (exact in float64)


def auto_cell_size(lo: np.ndarray, hi: np.ndarray, factor: float = 2.0) -> float:
    """A cell size of ``factor`` times the median box extent (larger axis), from a sample.

    Falls back to the scene span divided by ``sqrt(n)`` (or 1.0) when the boxes are points.
    """
    n = lo.shape[0]
    if n == 0:
        return 1.0
    step = max(1, n // 1024)
    ext = hi[::step] - lo[::step]
    med = float(np.median(np.maximum(ext[:, 0], ext[:, 1])))
    if med > 0 and np.isfinite(med):
        return factor * med
    span = float(np.max(hi.max(axis=0) - lo.min(axis=0)))
    if span > 0 and np.isfinite(span):
        return max(span / np.sqrt(n), np.finfo(np.float64).tiny)
    return 1.0


def static_cell_size(lo: np.ndarray, hi: np.ndarray) -> float:
    """The automatic static cell: 2x the median of the boxes' *smaller* side.

    Static scenes mix tiles with long thin floors and walls; sizing cells by the long side
    would put every dynamic box in the same few cells as every wall. Thin boxes span several
    cells instead (the index stores a box in each cell it covers).
    """
    ext = hi - lo
    small = np.minimum(ext[:, 0], ext[:, 1])
    med = float(np.median(small))
    if med > 0 and np.isfinite(med):
        return 2.0 * med
    return auto_cell_size(lo, hi)


class CellIndex:
    """Boxes in every cell they cover; query boxes find their overlapping indexed boxes."""

    def __init__(self, cell_size: float | None = None, max_cells_per_box: int = 1024) -> None:
        """Create an empty index; ``cell_size=None`` picks ``static_cell_size`` at build."""
        if cell_size is not None and not (cell_size > 0 and np.isfinite(cell_size)):
            raise ValueError(f"cell_size must be a positive finite number, got {cell_size!r}")
        self._requested = cell_size
        self.max_cells_per_box = max_cells_per_box
        self.cell_size: float = 1.0 if cell_size is None else float(cell_size)
        self.m = 0
        self._lo = np.empty((0, 2))
        self._hi = np.empty((0, 2))
        self._huge = np.empty(0, dtype=np.int64)
        self._owner = np.empty(0, dtype=np.int64)
        self._ex = np.empty(0, dtype=np.int64)
        self._ey = np.empty(0, dtype=np.int64)
        self._starts: np.ndarray | None = None
        self._cols: tuple[np.ndarray, ...] = ()
        self._elow = np.empty((0, 4))
        self._scratch = Scratch()
        self._sat: np.ndarray | None = None
        self._keys = np.empty(0, dtype=np.int64)
        self._x0 = 0
        self._y0 = 0
        self._w = 0
        self._h = 0

    def build(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """(Re)build the index over the boxes ``lo, hi`` (ids ``0..m-1``)."""
        lo, hi = as_boxes(lo, hi)
        self.m = m = lo.shape[0]
        self._lo, self._hi = lo.copy(), hi.copy()
        self._owner = np.empty(0, dtype=np.int64)
        self._keys = np.empty(0, dtype=np.int64)
        self._starts = None
        self._sat = None
        self._w = self._h = 0
        if m == 0:
            self._huge = np.empty(0, dtype=np.int64)
            return
        c = self._requested if self._requested is not None else static_cell_size(lo, hi)
        span = float(np.max(hi.max(axis=0) - lo.min(axis=0)))
        c = max(c, span / _MAX_AXIS_CELLS)
        while True:
            inv = 1.0 / c
            fx0 = np.floor(lo[:, 0] * inv)
            fy0 = np.floor(lo[:, 1] * inv)
            fx1 = np.floor(hi[:, 0] * inv)
            fy1 = np.floor(hi[:, 1] * inv)
            ncell = (fx1 - fx0 + 1) * (fy1 - fy0 + 1)
            huge = ncell > self.max_cells_per_box
            # bound the memory: at most ~64 cell entries per box on average
            if self._requested is not None or ncell[~huge].sum() <= 64 * m + 65536:
                break
            c *= 2.0
        self.cell_size = c
        self._huge = np.flatnonzero(huge).astype(np.int64)
        keep = np.flatnonzero(~huge)
        if keep.size == 0:
            return
        x0, y0 = int(fx0[keep].min()), int(fy0[keep].min())
        self._x0, self._y0 = x0, y0
        ix0 = fx0[keep].astype(np.int64) - x0
        iy0 = fy0[keep].astype(np.int64) - y0
        nx = fx1[keep].astype(np.int64) - x0 - ix0 + 1
        ny = fy1[keep].astype(np.int64) - y0 - iy0 + 1
        self._w = w = int((ix0 + nx).max())
        self._h = h = int((iy0 + ny).max())
        count = nx * ny
        slot = np.repeat(np.arange(keep.size), count)
        local = expand_ranges(np.zeros(keep.size, dtype=np.int64), count)
        ex = ix0[slot] + local % nx[slot]
        ey = iy0[slot] + local // nx[slot]
        key = ey * w + ex
        order = np.argsort(key, kind="stable")
        self._owner = keep[slot[order]]
        self._ex = ex[order]
        self._ey = ey[order]
        self._keys = key[order]
        self._cols = (
            lo[:, 0][self._owner],
            lo[:, 1][self._owner],
            hi[:, 0][self._owner],
            hi[:, 1][self._owner],
        )
        self._elow = pack(np.take(lo, self._owner, axis=0), np.take(hi, self._owner, axis=0))[0]
        ncells = w * h
        if ncells <= 4 * key.size + 65536:  # dense start table (built once, <= ~0.5 MB)
            starts = np.zeros(ncells + 1, dtype=np.int64)
            per_cell = np.bincount(self._keys, minlength=ncells)
            np.cumsum(per_cell, out=starts[1:])
            self._starts = starts
            # summed-area table of entries per cell: O(1) "is anything under this box?"
            sat = np.zeros((h + 1, w + 1), dtype=np.int64)
            np.cumsum(np.cumsum(per_cell.reshape(h, w), axis=0), axis=1, out=sat[1:, 1:])
            self._sat = sat.ravel()

    @property
    def boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """The indexed boxes ``(lo, hi)`` (do not modify)."""
        return self._lo, self._hi

    def query(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All overlapping ``(k, l)``: query box ``k`` with indexed box ``l``, sorted, once each."""
        n = lo.shape[0]
        if n == 0 or self.m == 0:
            return empty_pairs()
        parts_k: list[np.ndarray] = []
        parts_l: list[np.ndarray] = []
        if self._owner.size:
            k, l_ = self._query_cells(lo, hi)
            parts_k.append(k)
            parts_l.append(l_)
        if self._huge.size:
            k, j = brute_cross(lo, hi, self._lo[self._huge], self._hi[self._huge])
            parts_k.append(k)
            parts_l.append(self._huge[j])
        if len(parts_k) == 1 and not self._huge.size:
            return parts_k[0], parts_l[0]  # already sorted and unique
        return sorted_pairs(np.concatenate(parts_k), np.concatenate(parts_l), self.m)

    def _query_cells(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = lo.shape[0]
        sc = self._scratch
        inv = 1.0 / self.cell_size
        w, h = self._w, self._h
        # cell ranges of the query boxes, clipped to the grid as floats (no int overflow): an
        # outside box gets an empty range (g1 < g0 on an axis). Column by column with scalar
        # operands: NumPy is several times slower on (n, 2) arrays broadcast with a (2,) one.
        fb = sc.get("gf", n)
        cells = []
        for col, arr, origin, low, top in (
            (0, lo, self._x0, 0.0, w), (1, lo, self._y0, 0.0, h),
            (0, hi, self._x0, -1.0, w - 1), (1, hi, self._y0, -1.0, h - 1),
        ):
            np.multiply(arr[:, col], inv, out=fb)
            np.floor(fb, out=fb)
            fb -= origin
            np.clip(fb, low, top, out=fb)
            g = sc.get(f"g{len(cells)}", n, np.int64)
            np.copyto(g, fb, casting="unsafe")
            cells.append(g)
        gx0, gy0, gx1, gy1 = cells
        if self._sat is not None:
            # keep only the boxes whose cells hold something (most are away from the statics);
            # for an empty range the two corners coincide on that axis and the count is 0
            w1 = w + 1
            y0 = np.multiply(gy0, w1, out=sc.get("y0", n, np.int64))
            y1 = np.add(gy1, 1, out=sc.get("y1", n, np.int64))
            y1 *= w1
            x1 = np.add(gx1, 1, out=sc.get("x1", n, np.int64))
            t = sc.get("t", n, np.int64)
            occ = np.take(self._sat, np.add(y1, x1, out=t), out=sc.get("occ", n, np.int64),
                          mode="clip")
            occ -= np.take(self._sat, np.add(y0, x1, out=t), mode="clip")
            occ -= np.take(self._sat, np.add(y1, gx0, out=t), mode="clip")
            occ += np.take(self._sat, np.add(y0, gx0, out=t), mode="clip")
            sel = np.flatnonzero(occ > 0)
        else:
            sel = np.flatnonzero((gx1 >= gx0) & (gy1 >= gy0))
        if sel.size == 0:
            return empty_pairs()
        sx0, sy0 = gx0[sel], gy0[sel]
        rows = gy1[sel] - sy0 + 1
        local = np.repeat(np.arange(sel.size, dtype=np.int64), rows)
        base = expand_ranges(sy0, rows, local.size) * w
        klo = base + sx0[local]
        khi = base + gx1[sel][local]
        if self._starts is not None:
            s = self._starts[klo]
            e = self._starts[khi + 1]
        else:
            s = np.searchsorted(self._keys, klo, side="left")
            e = np.searchsorted(self._keys, khi, side="right")
        qlo = np.take(lo, sel, axis=0)
        _, qhigh = pack(qlo, np.take(hi, sel, axis=0))
        r, pos, _ = range_pairs(qhigh, local, self._elow, s, e - s, sc, "ci")
        # reference point: the lower-left corner of the intersection must lie in this cell
        rx = np.floor(np.maximum(qlo[:, 0][r], self._cols[0][pos]) * inv) - self._x0
        ry = np.floor(np.maximum(qlo[:, 1][r], self._cols[1][pos]) * inv) - self._y0
        mask = rx == self._ex[pos]
        mask &= ry == self._ey[pos]
        return sorted_pairs(sel[r[mask]], self._owner[pos[mask]], self.m)
