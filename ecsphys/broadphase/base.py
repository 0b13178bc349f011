"""What the broadphases share in Python: the interface, input checking, the brute-force kernels.

Guarantees:
- ``as_boxes`` returns C-contiguous ``(n, 2)`` float64 arrays (no copy when the input already
  is one) and rejects mismatched or badly shaped inputs with ``ValueError``.
- ``brute_pairs`` / ``brute_cross`` return every overlapping pair, sorted lexicographically,
  each once, as int64 arrays, testing at most about ``CHUNK_ELEMENTS`` box pairs at a time.
- Boxes are closed: two boxes overlap when ``lo_a <= hi_b and lo_b <= hi_a`` on both axes.
- ``median`` is ``np.median``'s value for a 1-D float array (NaN if any item is NaN) without
  its one-off cost: NumPy's median takes about 17 ms the first time a process calls it, which
  was most of the first step of a game with static bodies.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

__all__ = [
    "Broadphase",
    "PairArrays",
    "as_boxes",
    "median",
    "empty_pairs",
    "brute_pairs",
    "brute_cross",
]

PairArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""(di, dj, sk, sl): dynamic-dynamic pairs and dynamic-static pairs, all int64."""

#: Upper bound on the number of box comparisons held in memory at once by the brute kernels.
CHUNK_ELEMENTS = 1 << 21


class Broadphase(Protocol):
    """What every broadphase offers; the physics systems call only this (and, where a
    broadphase has them, ``update_static(ids, lo, hi) -> bool`` and ``remove_static(ids)``,
    which change single static boxes: see the package docstring)."""

    rebuilds: int

    def set_static(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """Index the static boxes (ids ``0..m-1``); increments ``rebuilds``."""
        ...

    def query(self, lo: np.ndarray, hi: np.ndarray) -> PairArrays:
        """Return ``(di, dj, sk, sl)`` for the dynamic boxes (ids ``0..n-1``)."""
        ...


def as_boxes(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``lo, hi`` as C-contiguous ``(n, 2)`` float64 arrays, checking their shapes."""
    lo = np.ascontiguousarray(lo, dtype=np.float64)
    hi = np.ascontiguousarray(hi, dtype=np.float64)
    if lo.size == 0 and hi.size == 0:
        return lo.reshape(0, 2), hi.reshape(0, 2)
    if lo.ndim != 2 or lo.shape[1] != 2 or lo.shape != hi.shape:
        raise ValueError(
            f"boxes must be two (n, 2) arrays of the same shape, got {lo.shape} and {hi.shape}"
        )
    return lo, hi


def median(values: np.ndarray) -> float:
    """The median of a 1-D float array, as ``np.median`` gives it (see the module notes)."""
    v = np.sort(np.asarray(values, dtype=np.float64).ravel())  # NaN sorts last
    k = v.shape[0]
    if k == 0 or np.isnan(v[-1]):
        return float("nan")
    if k % 2:
        return float(v[k // 2])
    return float((v[k // 2 - 1] + v[k // 2]) / 2.0)


def empty_pairs() -> tuple[np.ndarray, np.ndarray]:
    """Two empty int64 arrays (fresh, writable)."""
    return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)


def brute_pairs(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All overlapping ``(i, j)`` with ``i < j`` among the boxes, sorted; memory bounded."""
    n = lo.shape[0]
    out_i: list[np.ndarray] = []
    out_j: list[np.ndarray] = []
    rows = max(1, CHUNK_ELEMENTS // max(n, 1))
    for a in range(0, n, rows):
        b = min(n, a + rows)
        # columns from a on: every j > i for rows i in [a, b)
        cl, ch = lo[a:], hi[a:]
        rl, rh = lo[a:b, None, :], hi[a:b, None, :]
        m = (rl[..., 0] <= ch[None, :, 0]) & (cl[None, :, 0] <= rh[..., 0])
        m &= (rl[..., 1] <= ch[None, :, 1]) & (cl[None, :, 1] <= rh[..., 1])
        # keep strictly upper triangle: j > i
        m &= np.arange(a, n)[None, :] > np.arange(a, b)[:, None]
        i, j = np.nonzero(m)
        out_i.append(i + a)
        out_j.append(j + a)
    if not out_i:
        return empty_pairs()
    return (
        np.concatenate(out_i).astype(np.int64, copy=False),
        np.concatenate(out_j).astype(np.int64, copy=False),
    )


def brute_cross(
    lo_a: np.ndarray, hi_a: np.ndarray, lo_b: np.ndarray, hi_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """All overlapping ``(i, j)``, box ``i`` of set a against box ``j`` of set b, sorted."""
    n, m_ = lo_a.shape[0], lo_b.shape[0]
    if n == 0 or m_ == 0:
        return empty_pairs()
    out_i: list[np.ndarray] = []
    out_j: list[np.ndarray] = []
    rows = max(1, CHUNK_ELEMENTS // m_)
    for a in range(0, n, rows):
        b = min(n, a + rows)
        rl, rh = lo_a[a:b, None, :], hi_a[a:b, None, :]
        m = (rl[..., 0] <= hi_b[None, :, 0]) & (lo_b[None, :, 0] <= rh[..., 0])
        m &= (rl[..., 1] <= hi_b[None, :, 1]) & (lo_b[None, :, 1] <= rh[..., 1])
        i, j = np.nonzero(m)
        out_i.append(i + a)
        out_j.append(j)
    return (
        np.concatenate(out_i).astype(np.int64, copy=False),
        np.concatenate(out_j).astype(np.int64, copy=False),
    )
