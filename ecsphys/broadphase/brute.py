"""Brute force broadphase: test every box against every other, vectorised; the test oracle.

Guarantees:
- Exact: returns every overlapping (closed-box) dynamic-dynamic pair with ``di < dj`` and every
  overlapping dynamic-static pair, each once, sorted lexicographically, as int64 arrays.
- Memory stays bounded: the all-pairs test runs in row chunks of at most about two million
  comparisons.
- O(n^2 + n*m) time; meant for small scenes and as the reference the others are tested against.
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

    def query(self, lo: np.ndarray, hi: np.ndarray) -> PairArrays:
        """Return ``(di, dj, sk, sl)``: all overlapping dynamic-dynamic and dynamic-static pairs."""
        lo, hi = as_boxes(lo, hi)
        di, dj = brute_pairs(lo, hi)
        sk, sl = brute_cross(lo, hi, self._slo, self._shi)
        return di, dj, sk, sl
