"""Sets of ids (rows, entities) as sorted NumPy arrays, without ``np.unique``.

Guarantees: `unique_ids(a)` is ``np.unique(a)`` for integer arrays (sorted ascending, each
value once, int64) and `union_ids(a, b)` is ``np.union1d(a, b)``, with the same values; but
neither imports ``numpy.ma``, which ``np.unique`` and ``np.union1d`` import at their first
call (15 to 80 ms: a hitch in the first step that wakes or puts a body to sleep, the first
restore or the first query with ``exclude``). A sort and one comparison: O(n log n) on the
given ids only.
"""

from __future__ import annotations

import numpy as np


def unique_ids(a: object) -> np.ndarray:
    """The distinct values of the integer array ``a`` (any shape), ascending, as int64."""
    out = np.sort(np.asarray(a, dtype=np.int64).ravel())
    if out.size > 1:
        keep = np.empty(out.size, dtype=bool)
        keep[0] = True
        np.not_equal(out[1:], out[:-1], out=keep[1:])
        out = out[keep]
    return out


def union_ids(a: object, b: object) -> np.ndarray:
    """The distinct values of ``a`` and ``b`` together, ascending, as int64."""
    return unique_ids(np.concatenate((np.asarray(a, dtype=np.int64).ravel(),
                                      np.asarray(b, dtype=np.int64).ravel())))
