"""Brute force broadphase: test every box against every other, vectorised; the test oracle.

Guarantees:
- Exact: returns every overlapping (closed-box) dynamic-dynamic pair with ``di < dj`` and every
  overlapping dynamic-static pair, each once, sorted lexicographically, as int64 arrays.
- Memory stays bounded: the all-pairs test runs in row chunks of at most about two million
  comparisons.
- O(n^2 + n*m) time; meant for small scenes and as the reference the others are tested against.
- ``update_static`` / ``remove_static`` change single static boxes in place (a removed id
  holds an empty box, lo = +inf and hi = -inf, that meets nothing); ``rebuilds`` counts only
  ``set_static``.
"""

from __future__ import annotations

import numpy as np

from .base import PairArrays, as_boxes, brute_cross, brute_pairs

__all__ = ["BruteForce"]


class BruteForce:
    """All-pairs broadphase; ``set_static`` just stores the static boxes."""

    def __init__(self) -> None:
        self.rebuilds: int = 0
        self._slo = np.empty((0, 2))
        self._shi = np.empty((0, 2))

    def set_static(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """Store the static boxes (ids ``0..m-1``) and count a rebuild."""
        lo, hi = as_boxes(lo, hi)
        self._slo, self._shi = lo.copy(), hi.copy()
        self.rebuilds += 1

    def update_static(self, ids: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> bool:
        """Store the boxes ``lo[k]``-``hi[k]`` as static ids ``ids[k]`` (new ids, or ids whose
        box changed); always True (it can take any box)."""
        ids = np.asarray(ids, dtype=np.int64).ravel()
        lo, hi = as_boxes(lo, hi)
        if ids.size != lo.shape[0]:
            raise ValueError(f"ids must be one id per box, got {ids.size} for {lo.shape[0]}")
        if ids.size == 0:
            return True
        if ids.min() < 0:
            raise ValueError("static ids must be >= 0")
        top = int(ids.max()) + 1
        if top > self._slo.shape[0]:
            extra = top - self._slo.shape[0]
            self._slo = np.concatenate((self._slo, np.full((extra, 2), np.inf)))
            self._shi = np.concatenate((self._shi, np.full((extra, 2), -np.inf)))
        self._slo[ids] = lo
        self._shi[ids] = hi
        return True

    def remove_static(self, ids: np.ndarray) -> None:
        """Give the static ids ``ids`` an empty box (ids not held are ignored)."""
        ids = np.asarray(ids, dtype=np.int64).ravel()
        ids = ids[(ids >= 0) & (ids < self._slo.shape[0])]
        self._slo[ids] = np.inf
        self._shi[ids] = -np.inf

    @property
    def static_count(self) -> int:
        """How many static boxes it holds (not empty)."""
        return int(np.count_nonzero((self._slo <= self._shi).all(axis=1)))

    def query(self, lo: np.ndarray, hi: np.ndarray) -> PairArrays:
        """Return ``(di, dj, sk, sl)``: all overlapping dynamic-dynamic and dynamic-static pairs."""
        lo, hi = as_boxes(lo, hi)
        di, dj = brute_pairs(lo, hi)
        sk, sl = brute_cross(lo, hi, self._slo, self._shi)
        return di, dj, sk, sl
