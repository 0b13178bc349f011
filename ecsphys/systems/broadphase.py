"""Finds the pairs of bodies whose swept boxes overlap, filtered by the game's rules.

Guarantees:
- a dynamic body's box covers every point its shape can reach this step: its bounding box at
  the start grown by the length of its move (a slide may turn the move but never lengthens
  it) and by ``contact_offset``, so the pairs found hold every pair that can touch at the end;
- static bodies are indexed once and re-indexed only when ``table.static_version`` changes;
  static-static pairs are never produced; bodies without Collider or Geometry never pair;
- a pair is kept only if each side's layer is in the other's mask, and then only if the
  optional ``filter_pair(entity_a, entity_b)`` hook (a Python call per pair: slower) agrees;
- output: rows ``ra``, ``rb`` with ``entity[ra] < entity[rb]``, sorted by that entity pair,
  unique.
"""

from __future__ import annotations

from collections.abc import Callable

import esper
import numpy as np

from .. import broadphase
from ..body_table import BodyTable
from ..components import STATIC
from ..contact_set import pair_keys

PairFilter = Callable[[int, int], bool]


class BroadphaseSystem(esper.Processor):
    """Stage 2 of the step: candidate pairs for the narrowphase and the response."""

    def __init__(
        self, table: BodyTable, name: str = "grid", contact_offset: float = 0.01,
        **options: object,
    ) -> None:
        self.table = table
        self.name = name
        self.index = broadphase.make_broadphase(name, **options)
        self.contact_offset = contact_offset
        self.filter_pair: PairFilter | None = None
        self._static_version = -1
        self.static_rows = np.zeros(0, dtype=np.int64)
        self.ra = np.zeros(0, dtype=np.int64)
        self.rb = np.zeros(0, dtype=np.int64)
        #: pairs whose boxes overlapped before the layer filter (diagnostics)
        self.box_pairs = 0

    @property
    def static_rebuilds(self) -> int:
        """How many times the static index was built."""
        return int(self.index.rebuilds)

    def process(self, dt: float = 0.0) -> None:
        t = self.table
        n = t.n
        collides = t.collides[:n]
        static = collides & (t.kind[:n] == STATIC)
        if t.static_version != self._static_version:
            rows = np.flatnonzero(static)
            self.static_rows = rows
            base = t.pos[rows]
            self.index.set_static(base + t.lo[rows], base + t.hi[rows])
            self._static_version = t.static_version
        dyn = np.flatnonzero(collides & ~static)
        move = t.move[dyn]
        reach = np.sqrt(np.einsum("ij,ij->i", move, move)) + self.contact_offset
        base = t.pos[dyn]
        lo = base + t.lo[dyn]
        lo -= reach[:, None]
        hi = base + t.hi[dyn]
        hi += reach[:, None]
        di, dj, sk, sl = self.index.query(lo, hi)
        ra = np.concatenate((dyn[di], dyn[sk]))
        rb = np.concatenate((dyn[dj], self.static_rows[sl]))
        self.box_pairs = len(ra)
        layer, mask = t.layer, t.mask
        keep = ((layer[ra] & mask[rb]) != 0) & ((layer[rb] & mask[ra]) != 0)
        ra, rb = ra[keep], rb[keep]
        ent = t.entity
        swap = ent[ra] > ent[rb]
        ra, rb = np.where(swap, rb, ra), np.where(swap, ra, rb)
        if self.filter_pair is not None and len(ra):
            fn = self.filter_pair
            ok = np.fromiter((bool(fn(int(a), int(b))) for a, b in zip(ent[ra], ent[rb],
                             strict=True)), dtype=np.bool_, count=len(ra))
            ra, rb = ra[ok], rb[ok]
        order = np.argsort(pair_keys(ent[ra], ent[rb]), kind="stable")
        self.ra = ra[order]
        self.rb = rb[order]
