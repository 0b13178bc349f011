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

How it stays cheap: one compiled call a step (``broadphase.stage.Stage.run``) computes the
swept boxes, runs the index, applies the layer filter and puts the pairs in entity order. The
dynamic boxes go to the index in entity order, so its sorted dynamic pairs (``di < dj``) already
come out sorted by entity pair; only the few dynamic-static pairs are sorted and merged in.
``filter_pair`` is the only per-pair Python call, and only when set. What depends only on the
table's layout (the dynamic rows in entity order, the static rows, whether every layer passes
every mask) is kept until ``table.layout_version`` changes.
"""

from __future__ import annotations

from collections.abc import Callable

import esper
import numpy as np

from .. import broadphase
from ..broadphase.stage import Stage
from ..components import STATIC
from ..state.body_table import BodyTable

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
        self._all_layers_pass = True
        self._stage = Stage()
        #: how many times the stage ran (the world's queries read the index it left)
        self.runs = 0
        #: the static boxes as indexed (static id j is row ``static_rows[j]``)
        self.static_lo = np.zeros((0, 2))
        self.static_hi = np.zeros((0, 2))

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
            self.static_lo, self.static_hi = base + t.lo[rows], base + t.hi[rows]
            self.index.set_static(self.static_lo, self.static_hi)
            self._static_version = t.static_version
        self.runs += 1
        ra, rb, self.box_pairs = self._stage.run(
            self.index, t, self.contact_offset, not self._all_layers_pass)
        if self.filter_pair is not None and len(ra):
            ra, rb = game_rules(t, ra, rb, self.filter_pair, check_layers=False)
        self.ra, self.rb = ra, rb

    def _learn_layout(self) -> None:
        """Dynamic and static rows, entity order, and the layer shortcut, for this layout."""
        t = self.table
        n = t.n
        collides = t.collides[:n]
        static = collides & (t.kind[:n] == STATIC)
        self.static_rows = np.flatnonzero(static)
        dyn = np.flatnonzero(collides & ~static)  # ascending rows
        ent = t.entity[dyn]
        if dyn.size > 1 and not (ent[1:] > ent[:-1]).all():
            dyn = dyn[np.argsort(ent, kind="stable")]
        self._dyn = dyn
        self._stage.set_rows(dyn, self.static_rows)
        # every pair passes the layer test when every layer meets the AND of all masks
        layers, masks = t.layer[:n][collides], t.mask[:n][collides]
        common = np.bitwise_and.reduce(masks) if masks.size else 0
        self._all_layers_pass = bool(((layers & common) != 0).all())
