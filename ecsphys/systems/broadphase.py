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
  unique (fresh arrays each step).

How it stays cheap: the dynamic boxes go to the broadphase in entity order, so its sorted
dynamic pairs (``di < dj``) already come out sorted by entity pair; only the few
dynamic-static pairs are sorted and merged in. What depends only on the table's layout (the
dynamic rows in entity order, whether they are one contiguous block, whether every layer
passes every mask) is kept until ``table.layout_version`` changes.
"""

from __future__ import annotations

from collections.abc import Callable

import esper
import numpy as np

from .. import broadphase
from ..body_table import BodyTable
from ..broadphase._scratch import Scratch
from ..components import STATIC
from ..contact_set import KEY_SHIFT, pair_keys

PairFilter = Callable[[int, int], bool]


def game_rules(
    t: BodyTable, ra: np.ndarray, rb: np.ndarray, filter_pair: PairFilter | None,
    check_layers: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of rows ``(ra, rb)`` the game's rules allow: each side's layer in the other's
    mask (skipped with ``check_layers=False``, when the caller knows every pair passes), then
    ``filter_pair(entity_a, entity_b)`` if set (a Python call per pair: slower)."""
    if check_layers:
        layer, mask = t.layer, t.mask
        keep = ((layer[ra] & mask[rb]) != 0) & ((layer[rb] & mask[ra]) != 0)
        ra, rb = ra[keep], rb[keep]
    if filter_pair is not None and len(ra):
        ent = t.entity
        ok = np.fromiter((bool(filter_pair(int(a), int(b))) for a, b in zip(ent[ra], ent[rb],
                         strict=True)), dtype=np.bool_, count=len(ra))
        ra, rb = ra[ok], rb[ok]
    return ra, rb


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
        self._layout: tuple[int, int] | None = None
        self._dyn = np.zeros(0, dtype=np.int64)
        self._block: slice | None = None
        self._all_layers_pass = True
        self._scratch = Scratch()

    @property
    def static_rebuilds(self) -> int:
        """How many times the static index was built."""
        return int(self.index.rebuilds)

    def process(self, dt: float = 0.0) -> None:
        t = self.table
        layout = (t.layout_version, t.n)
        if layout != self._layout:
            self._learn_layout()
            self._layout = layout
        if t.static_version != self._static_version:
            rows = self.static_rows
            base = t.pos[rows]
            self.index.set_static(base + t.lo[rows], base + t.hi[rows])
            self._static_version = t.static_version
        lo, hi = self._swept_boxes()
        di, dj, sk, sl = self.index.query(lo, hi)
        ra, rb = self._entity_sorted(di, dj, sk, sl)
        self.box_pairs = len(ra)
        self.ra, self.rb = game_rules(t, ra, rb, self.filter_pair,
                                      check_layers=not self._all_layers_pass)

    def _learn_layout(self) -> None:
        """Dynamic and static rows, entity order, and the layer shortcut, for this layout."""
        t = self.table
        n = t.n
        collides = t.collides[:n]
        static = collides & (t.kind[:n] == STATIC)
        self.static_rows = np.flatnonzero(static)
        dyn = np.flatnonzero(collides & ~static)  # ascending rows
        k = dyn.size
        self._block = None
        ent = t.entity[dyn]
        if k > 1 and not (ent[1:] > ent[:-1]).all():
            dyn = dyn[np.argsort(ent, kind="stable")]
        elif k and int(dyn[-1]) - int(dyn[0]) == k - 1:  # rows in entity order, one block
            self._block = slice(int(dyn[0]), int(dyn[-1]) + 1)
        self._dyn = dyn
        # every pair passes the layer test when every layer meets the AND of all masks
        layers, masks = t.layer[:n][collides], t.mask[:n][collides]
        common = np.bitwise_and.reduce(masks) if masks.size else 0
        self._all_layers_pass = bool(((layers & common) != 0).all())

    def _swept_boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """Swept boxes of the dynamic bodies, in entity order (arrays reused every step)."""
        t, sc, dyn = self.table, self._scratch, self._dyn
        k = dyn.size
        if self._block is not None:
            b = self._block
            move, pos, rlo, rhi = t.move[b], t.pos[b], t.lo[b], t.hi[b]
        else:
            def take(col: np.ndarray, name: str) -> np.ndarray:
                return np.take(col, dyn, axis=0, out=sc.get(name, k, np.float64, 2), mode="clip")

            move, pos = take(t.move, "move"), take(t.pos, "pos")
            rlo, rhi = take(t.lo, "rlo"), take(t.hi, "rhi")
        # column by column: NumPy is slow on (k, 2) arrays broadcast against (k, 1) ones
        reach = np.multiply(move[:, 0], move[:, 0], out=sc.get("reach", k))
        reach += np.square(move[:, 1], out=sc.get("tmp", k))
        np.sqrt(reach, out=reach)
        reach += self.contact_offset
        lo = np.add(pos, rlo, out=sc.get("lo", k, np.float64, 2))
        hi = np.add(pos, rhi, out=sc.get("hi", k, np.float64, 2))
        for c in (0, 1):
            lo[:, c] -= reach
            hi[:, c] += reach
        return lo, hi

    def _entity_sorted(
        self, di: np.ndarray, dj: np.ndarray, sk: np.ndarray, sl: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the pairs, ``entity[ra] < entity[rb]``, sorted by entity pair (fresh)."""
        dyn, ent = self._dyn, self.table.entity
        # dynamic ids follow entity order, so (di, dj) sorted is (entity, entity) sorted
        ra, rb = np.take(dyn, di), np.take(dyn, dj)
        if not len(sk):
            return ra, rb
        sa, sb = np.take(dyn, sk), np.take(self.static_rows, sl)
        swap = ent[sa] > ent[sb]
        sa, sb = np.where(swap, sb, sa), np.where(swap, sa, sb)
        skey = pair_keys(ent[sa], ent[sb])
        o = np.argsort(skey)
        sa, sb, skey = sa[o], sb[o], skey[o]
        m, sc = len(ra), self._scratch
        dkey = np.take(ent, ra, out=sc.get("ea", m, np.int64), mode="clip")
        np.left_shift(dkey, KEY_SHIFT, out=dkey)
        dkey |= np.take(ent, rb, out=sc.get("eb", m, np.int64), mode="clip")
        at = np.searchsorted(dkey, skey)
        return np.insert(ra, at, sa), np.insert(rb, at, sb)
