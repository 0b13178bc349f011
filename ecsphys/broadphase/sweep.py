"""Sort-and-sweep (sweep and prune) broadphase: boxes sorted by min-x, pairs from x-overlap runs.

Guarantees:
- Exact: returns every overlapping (closed-box) dynamic-dynamic pair with ``di < dj`` and every
  overlapping dynamic-static pair, each once, sorted lexicographically, as int64 arrays.
- Dynamic boxes: sorted by ``lo_x`` starting from the previous call's order (a stable sort of
  nearly sorted keys in steady state); box ``p`` is tested against the run of later boxes with
  ``lo_x <= hi_x[p]`` (one ``searchsorted``), then vectorised on y. Any size mix is correct; cost
  grows with the number of x-overlapping pairs (tall columns of boxes are the bad case).
- Static boxes: sorted by ``lo_x`` once per ``set_static``; a dynamic box looks up the statics
  with ``lo_x`` in ``[its lo_x - widest static, its hi_x]``. Statics much wider than typical
  (over 8x the median width) are kept apart and tested against every dynamic box, so one long
  floor does not widen every lookup.
"""

from __future__ import annotations

import numpy as np

from .base import (
    PairArrays,
    as_boxes,
    brute_cross,
    empty_pairs,
    range_overlaps,
    sorted_pairs,
)

__all__ = ["SweepAndPrune"]

_WIDE_FACTOR = 8.0


def _columns(lo: np.ndarray, hi: np.ndarray, order: np.ndarray | None = None):
    if order is None:
        return (
            np.ascontiguousarray(lo[:, 0]),
            np.ascontiguousarray(lo[:, 1]),
            np.ascontiguousarray(hi[:, 0]),
            np.ascontiguousarray(hi[:, 1]),
        )
    return lo[:, 0][order], lo[:, 1][order], hi[:, 0][order], hi[:, 1][order]


class SweepAndPrune:
    """Sort-and-sweep on the x axis for dynamic boxes; a sorted static list for statics."""

    def __init__(self) -> None:
        self.rebuilds: int = 0
        self.last_candidates: int = 0
        """Candidate pairs examined by the last ``query`` (dynamic-dynamic), for benchmarks."""
        self._order = np.empty(0, dtype=np.int64)
        self._m = 0
        self._s_cols: tuple[np.ndarray, ...] | None = None
        self._s_ids = np.empty(0, dtype=np.int64)
        self._s_maxw = 0.0
        self._s_mag = 0.0
        self._wide = np.empty(0, dtype=np.int64)
        self._slo = np.empty((0, 2))
        self._shi = np.empty((0, 2))

    def set_static(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """Sort the static boxes (ids ``0..m-1``) by ``lo_x``; increments ``rebuilds``."""
        lo, hi = as_boxes(lo, hi)
        self.rebuilds += 1
        self._m = m = lo.shape[0]
        self._slo, self._shi = lo.copy(), hi.copy()
        self._s_cols = None
        self._wide = np.empty(0, dtype=np.int64)
        if m == 0:
            return
        width = hi[:, 0] - lo[:, 0]
        med = float(np.median(width))
        wide = width > _WIDE_FACTOR * med if med > 0 else np.zeros(m, dtype=bool)
        self._wide = np.flatnonzero(wide).astype(np.int64)
        keep = np.flatnonzero(~wide).astype(np.int64)
        order = keep[np.argsort(lo[keep, 0], kind="stable")]
        self._s_ids = order
        self._s_cols = _columns(lo, hi, order)
        self._s_maxw = float(width[keep].max()) if keep.size else 0.0
        self._s_mag = 1e-15 * float(max(np.abs(lo).max(), np.abs(hi).max()))

    def query(self, lo: np.ndarray, hi: np.ndarray) -> PairArrays:
        """Return ``(di, dj, sk, sl)`` for the dynamic boxes ``lo, hi`` (ids ``0..n-1``)."""
        lo, hi = as_boxes(lo, hi)
        di, dj = self._dynamic_pairs(lo, hi)
        sk, sl = self._static_pairs(lo, hi)
        return di, dj, sk, sl

    def _dynamic_pairs(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = lo.shape[0]
        self.last_candidates = 0
        order = self._order
        if order.size > n:
            order = order[order < n]
        elif order.size < n:
            order = np.concatenate([order, np.arange(order.size, n, dtype=np.int64)])
        if n < 2:
            self._order = order
            return empty_pairs()
        key = lo[:, 0][order]
        s = np.argsort(key, kind="stable")
        order = order[s]
        self._order = order
        cols = _columns(lo, hi, order)
        lx, _, hx, _ = cols
        p = np.arange(n, dtype=np.int64)
        end = np.searchsorted(lx, hx, side="right")
        st = (p + 1).reshape(n, 1)
        ct = np.maximum(end - st[:, 0], 0).reshape(n, 1)
        i, j, total = range_overlaps(st, ct, cols, cols)
        self.last_candidates = total
        a, b = order[i], order[j]
        return sorted_pairs(np.minimum(a, b), np.maximum(a, b), n, unique=True)

    def _static_pairs(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = lo.shape[0]
        if n == 0 or self._m == 0:
            return empty_pairs()
        parts_k: list[np.ndarray] = []
        parts_l: list[np.ndarray] = []
        if self._s_cols is not None and self._s_ids.size:
            slx = self._s_cols[0]
            # widen by a few ulps so rounding in the subtraction never drops a static
            q = lo[:, 0] - self._s_maxw
            q -= np.abs(q) * 1e-15 + self._s_mag
            s0 = np.searchsorted(slx, q, side="left")
            s1 = np.searchsorted(slx, hi[:, 0], side="right")
            k, j, _ = range_overlaps(
                s0.reshape(n, 1), (s1 - s0).reshape(n, 1), _columns(lo, hi), self._s_cols
            )
            parts_k.append(k)
            parts_l.append(self._s_ids[j])
        if self._wide.size:
            k, j = brute_cross(lo, hi, self._slo[self._wide], self._shi[self._wide])
            parts_k.append(k)
            parts_l.append(self._wide[j])
        if not parts_k:
            return empty_pairs()
        return sorted_pairs(np.concatenate(parts_k), np.concatenate(parts_l), self._m, unique=True)
