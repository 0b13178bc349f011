"""Broadphase: arrays of axis-aligned boxes in, candidate pairs out.

Guarantees:
- Every broadphase (``Grid``, ``SweepAndPrune``, ``QuadTree``, ``BruteForce``) has the same
  interface: ``rebuilds``, ``set_static(lo, hi)`` and ``query(lo, hi) -> (di, dj, sk, sl)``, and
  returns exactly the same pairs: closed boxes (touching counts), int64 arrays, dynamic pairs
  with ``di < dj``, each pair once, sorted lexicographically; no static-static pairs.
- ``Grid`` and ``BruteForce`` also change single static boxes: ``update_static(ids, lo, hi)``
  (new ids, or ids whose box changed; the grid returns False for a box its cells cannot hold:
  then ``set_static`` again) and ``remove_static(ids)``; these count no rebuild, and the
  pairs are those of a ``set_static`` of the same boxes (a removed id meets nothing). The
  sweep and the quad tree have no such update: their statics are set again.
- ``Grid``, ``SweepAndPrune`` and ``QuadTree`` are compiled (Cython, one call per query, no
  Python inside; see each module's opening comment); ``BruteForce`` is NumPy, the oracle the
  tests compare the others against. No esper, no pyglet.
- ``stage.Stage`` is the compiled step of the physics' broadphase stage
  (``systems/broadphase.py``).
- ``make_broadphase(name, **options)`` builds one by name and raises ``ValueError`` naming a bad
  name.
"""

from __future__ import annotations

from typing import Any

from .base import Broadphase, PairArrays
from .brute import BruteForce
from .grid import Grid
from .quadtree import QuadTree
from .sweep import SweepAndPrune

__all__ = [
    "Broadphase",
    "BruteForce",
    "Grid",
    "PairArrays",
    "QuadTree",
    "SweepAndPrune",
    "make_broadphase",
    "BROADPHASES",
]

BROADPHASES: dict[str, type] = {
    "grid": Grid,
    "sweep": SweepAndPrune,
    "quadtree": QuadTree,
    "brute": BruteForce,
}
"""The broadphase classes by the names ``make_broadphase`` accepts."""


def make_broadphase(name: str, **options: Any) -> Broadphase:
    """Build the broadphase called ``name`` ("grid", "sweep", "quadtree" or "brute").

    ``options`` go to its constructor (``Grid(cell_size=..., static_cell_size=...)``,
    ``QuadTree(capacity=..., max_depth=...)``). Raises ``ValueError`` for an unknown name.
    """
    try:
        cls = BROADPHASES[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown broadphase {name!r}; expected one of {', '.join(map(repr, BROADPHASES))}"
        ) from None
    return cls(**options)
