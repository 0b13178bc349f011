"""Uniform grid (spatial hash) broadphase: boxes binned by centre cell, pairs from neighbour cells.

Guarantees:
- Exact: returns every overlapping (closed-box) dynamic-dynamic pair with ``di < dj`` and every
  overlapping dynamic-static pair, each once, sorted lexicographically, as fresh int64 arrays.
- Dynamic boxes no larger than (99% of) a cell go in the cell of their centre; each one is
  checked against its own cell and the forward half of its 8 neighbours, which with keys
  ``cell_y * W + cell_x`` are two contiguous key ranges (see ``_bins.Bins``). Boxes larger
  than that ("large") are not binned: each large box scans the cells under it (grown by one
  cell) row by row, and the large boxes are paired among themselves by brute force (a few) or
  by a nested grid of their own (many). So any size mix is correct; cost grows with the area
  large boxes cover.
- ``cell_size=None`` picks the cell from the box extents (see ``dynamic_cell_size``): just
  above the largest box when the largest is at most twice the median (no large boxes at all:
  the common case of similar bodies whose swept boxes grow and shrink with their speed), else
  just above the 98th percentile (at most 3x the median). The current cell is kept while the
  estimate stays within ``[cell / 1.05, cell * 1.005]``.
- Static boxes are indexed once per ``set_static`` in their own cell structure (each static box
  in every cell it covers, see ``_cells.CellIndex``). A query looks the dynamic boxes up in it,
  unless the statics are few and cover few dynamic cells (walls around a crowd): then each
  static box scans the dynamic cells under it instead, which costs nothing per dynamic box.
- Steady state needs no memory of earlier calls and allocates little: the cell sort is a radix
  sort, cell starts come from ``bincount`` + ``cumsum``, box tests run on packed rows over whole
  key ranges (``_ranges.range_pairs``), and work arrays are reused (``_scratch.Scratch``).
  Adding or deleting dynamic boxes between calls is fine (ids are ``0..n-1`` each call).
- Negative and far-away coordinates work (exact while ``|coordinate| / cell_size`` stays below
  about 1e12); a thin scene over a huge area switches from a dense cell table to binary search.
"""

from __future__ import annotations

import numpy as np

from ._bins import NORMAL_FRACTION, Bins
from ._cells import CellIndex, auto_cell_size
from ._ranges import pack
from ._scratch import Scratch
from .base import PairArrays, as_boxes, brute_pairs, empty_pairs, sorted_pairs

__all__ = ["Grid", "dynamic_cell_size"]

_FIT_RATIO = 2.0  # largest box <= this x median: the cell fits every box
_FIT_MARGIN = 1.0 / 0.98  # cell over the largest box (all boxes stay below NORMAL_FRACTION)
_KEEP_ABOVE = 1.05  # the current cell is kept while estimate * 1.05 >= cell ...
_KEEP_BELOW = 1.005  # ... and estimate <= cell * 1.005
_BRUTE_LARGE = 64  # up to this many large boxes are paired among themselves by brute force
_MAX_DEPTH = 4  # nesting limit for the grids of large boxes
_SCAN_STATICS = 4  # statics scan the dynamic cells when m <= n / 4 and cover <= n cells


def _cell_from_extents(e: np.ndarray) -> float:
    """The automatic cell for boxes whose larger extents are ``e`` (0.0 when degenerate)."""
    n = e.size
    emax = float(e.max())
    step = max(1, n // 512)
    s = e[::step].copy()
    k98, k50 = (s.size * 98) // 100, s.size // 2
    s.partition((k50, k98))
    med = float(s[k50])
    if emax <= _FIT_RATIO * med:
        est = emax * _FIT_MARGIN
    else:
        est = min(1.02 * float(s[k98]) / NORMAL_FRACTION, 3.0 * med)
    return est if est > 0 and np.isfinite(est) else 0.0


def dynamic_cell_size(lo: np.ndarray, hi: np.ndarray) -> float:
    """The automatic dynamic cell size for the boxes ``lo, hi``.

    With ``e`` the larger extent of each box: when ``max(e) <= 2 * median(e)`` the cell is just
    above ``max(e)``, so no box is large (measured on the rain scene at 10,000 bodies: 3x faster
    than a 98th-percentile cell that leaves a few hundred large boxes); otherwise just above the
    98th percentile of ``e``, capped at 3x the median, so a few giants do not coarsen the grid for
    everybody. Percentiles come from a sample of at most about 1,000 boxes. Points (all extents
    zero) fall back to ``auto_cell_size``.
    """
    if lo.shape[0] == 0:
        return 1.0
    e = np.maximum(hi[:, 0] - lo[:, 0], hi[:, 1] - lo[:, 1])
    est = _cell_from_extents(e)
    return est if est > 0 else auto_cell_size(lo, hi)


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
        self._static_high = np.empty((0, 4))
        self._depth = 0
        self._nested: Grid | None = None
        self._scratch = Scratch()
        self.last_candidates: int = 0
        """Candidate pairs examined by the last ``query`` (dynamic-dynamic), for benchmarks."""
        self.last_static_scan: bool = False
        """Whether the last ``query`` found the static pairs by scanning from the statics."""

    def set_static(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """Index the static boxes (ids ``0..m-1``); increments ``rebuilds``."""
        self._static.build(lo, hi)
        self._static_high = pack(*self._static.boxes)[1]
        self.rebuilds += 1

    def query(self, lo: np.ndarray, hi: np.ndarray) -> PairArrays:
        """Return ``(di, dj, sk, sl)`` for the dynamic boxes ``lo, hi`` (ids ``0..n-1``)."""
        lo, hi = as_boxes(lo, hi)
        self.last_candidates = 0
        self.last_static_scan = False
        if lo.shape[0] == 0:
            return (*empty_pairs(), *empty_pairs())
        bins = self._bin(lo, hi)
        di, dj = self._dynamic_pairs(bins)
        sk, sl = self._static_pairs(bins, lo, hi)
        return di, dj, sk, sl

    def _pick_cell(self, lo: np.ndarray, hi: np.ndarray, e: np.ndarray) -> float:
        if self._auto:
            est = _cell_from_extents(e)
            if est <= 0:
                est = auto_cell_size(lo, hi)
            c = self.cell_size
            if c is None or not (est <= c * _KEEP_BELOW and c <= est * _KEEP_ABOVE):
                self.cell_size = est
        assert self.cell_size is not None
        return self.cell_size

    def _bin(self, lo: np.ndarray, hi: np.ndarray) -> Bins:
        n, sc = lo.shape[0], self._scratch
        e = np.subtract(hi[:, 0], lo[:, 0], out=sc.get("e", n))
        np.maximum(e, np.subtract(hi[:, 1], lo[:, 1], out=sc.get("ey", n)), out=e)
        return Bins(lo, hi, e, self._pick_cell(lo, hi, e), sc)

    # -- dynamic-dynamic -------------------------------------------------------------------

    def _dynamic_pairs(self, bins: Bins) -> tuple[np.ndarray, np.ndarray]:
        """Sorted, unique id pairs ``(i, j)``, ``i < j``, of the binned boxes (fresh arrays)."""
        parts_i: list[np.ndarray] = []
        parts_j: list[np.ndarray] = []
        if bins.nn > 1:
            i, j, tested = bins.forward_pairs()
            self.last_candidates += tested
            parts_i.append(i)
            parts_j.append(j)
        if bins.nn < bins.n:
            bi, bj = self._large_pairs(bins)
            parts_i.append(bi)
            parts_j.append(bj)
        if not parts_i:
            return empty_pairs()
        pi = np.concatenate(parts_i) if len(parts_i) > 1 else parts_i[0]
        pj = np.concatenate(parts_j) if len(parts_j) > 1 else parts_j[0]
        return _id_pairs(bins.order, pi, pj, self._scratch)

    def _large_pairs(self, bins: Bins) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (positions) involving the large boxes, which sit at positions nn..n-1."""
        nn, n = bins.nn, bins.n
        out_i: list[np.ndarray] = []
        out_j: list[np.ndarray] = []
        q = np.arange(nn, n, dtype=np.int64)
        if nn:
            found = bins.scan(bins.lo[nn:], bins.hi[nn:], bins.high, q, "lg")
            assert found is not None
            i, j, tested = found
            self.last_candidates += tested
            out_i.append(i)
            out_j.append(j)
        if q.size > 1:
            blo, bhi = bins.lo[nn:], bins.hi[nn:]
            if q.size <= _BRUTE_LARGE or self._depth >= _MAX_DEPTH:
                i, j = brute_pairs(blo, bhi)
            else:
                # the large boxes among themselves: a grid of their own
                if self._nested is None:
                    self._nested = Grid()
                    self._nested._depth = self._depth + 1
                i, j = self._nested._dynamic_pairs(self._nested._bin(blo, bhi))
            out_i.append(i + nn)
            out_j.append(j + nn)
        if not out_i:
            return empty_pairs()
        return np.concatenate(out_i), np.concatenate(out_j)

    # -- dynamic-static --------------------------------------------------------------------

    def _static_pairs(
        self, bins: Bins, lo: np.ndarray, hi: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Sorted ``(dynamic id, static id)`` pairs, from the statics' side when that is cheap."""
        st = self._static
        m, n, nn = st.m, bins.n, bins.nn
        if m == 0 or m * _SCAN_STATICS > n:
            return st.query(lo, hi)
        slo, shi = st.boxes
        found = bins.scan(slo, shi, self._static_high, np.arange(m), "st", max_cells=n)
        if found is None:
            return st.query(lo, hi)
        self.last_static_scan = True
        sl, pos, _ = found
        sk = np.take(bins.order, pos)
        if nn < n:  # the large dynamic boxes are not binned: look them up in the index
            k, l_ = st.query(bins.lo[nn:], bins.hi[nn:])
            sk = np.concatenate((sk, bins.order[nn:][k]))
            sl = np.concatenate((sl, l_))
        return sorted_pairs(sk, sl, m, unique=True)


def _id_pairs(
    order: np.ndarray, pi: np.ndarray, pj: np.ndarray, sc: Scratch
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of cell-order positions to sorted, unique box id pairs ``(min, max)`` (fresh)."""
    n = order.shape[0]
    if n > 1 << 31:
        a, b = order[pi], order[pj]
        return sorted_pairs(np.minimum(a, b), np.maximum(a, b), n, unique=True)
    m = pi.shape[0]
    a = np.take(order, pi, out=sc.get("pa", m, np.int64), mode="clip")
    b = np.take(order, pj, out=sc.get("pb", m, np.int64), mode="clip")
    key = np.minimum(a, b, out=sc.get("pkey", m, np.int64))
    np.maximum(a, b, out=b)
    np.left_shift(key, 32, out=key)
    np.bitwise_or(key, b, out=key)
    key.sort()
    return key >> 32, key & np.int64(0xFFFFFFFF)
