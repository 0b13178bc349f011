"""Finds the pairs of bodies whose swept boxes overlap, filtered by the game's rules.

Guarantees:
- a dynamic body's box covers every point its shape can reach this step: its bounding box at
  the start grown by the length of its move (a slide may turn the move but never lengthens
  it) and by ``contact_offset``, so the pairs found hold every pair that can touch at the end;
- static bodies are indexed once; afterwards only those the table says changed
  (``table.static_dirty``: a static body added, removed, moved, re-shaped or moved to another
  row) are looked at, and the index updates just the boxes that changed (insert, remove,
  update: the grid and the brute force; the sweep and the quad tree rebuild their static
  index instead). It is built again from every static body (``static_rebuilds`` counts
  those builds) only when ``table.static_all`` says so (a snapshot restored), when more than
  a quarter of the statics (and more than ``REBUILD_MIN``) changed at once, when a changed
  box does not fit the grid's static cells, or to pack away the ids of removed statics
  once they are half of them. Both fields are cleared once read. The pairs are the same as
  from an index built afresh (the index is exact; pairs are put in entity order);
- static ids are slots that stay with a static body while it exists: a free list hands the
  ids of removed statics to new ones, and ``static_rows[id]`` is its row (``FREE_ROW``, a row
  no table has, for a free id), written in place when the table moves it to another row; so
  a dynamic body created or deleted never re-indexes a static one;
  static-static pairs are never produced; bodies without Collider or Geometry never pair;
- a sleeping body is indexed as a static box (it does not move while it sleeps), so a
  sleeper pairs only with awake bodies, never with a static body or another sleeper: the
  stage's dynamic rows are the awake colliding bodies (learnt again when
  ``table.sleep_version`` changes);
- a pair is kept only if each side's layer is in the other's mask, and then only if the
  optional ``filter_pair(entity_a, entity_b)`` hook (a Python call per pair: slower) agrees;
- output: rows ``ra``, ``rb`` with ``entity[ra] < entity[rb]``, sorted by that entity pair,
  unique (fresh arrays each step, made when first read: the compiled step reads the pairs
  in the stage's C memory).

How it stays cheap: one compiled pass a step (``broadphase.stage.Stage``, run from the compiled
step after `BroadphaseSystem.prepare`, or by ``process``) computes the swept boxes, runs the
index, applies the layer filter and puts the pairs in entity order. The dynamic boxes go to
the index in entity order, so its sorted dynamic pairs (``di < dj``) already come out sorted by
entity pair; only the few dynamic-static pairs are sorted and merged in.
``filter_pair`` is the only per-pair Python call, and only when set. What depends only on the
table's layout (the dynamic rows in entity order, whether every layer passes every mask) is
kept until ``table.layout_version`` changes; the static rows are kept by the static ids.
"""

from __future__ import annotations

from collections.abc import Callable

import esper
import numpy as np

from .. import broadphase
from ..broadphase.stage import Stage, dynamic_layout, follow_sleep
from ..components import STATIC
from ..state.body_table import BodyTable

PairFilter = Callable[[int, int], bool]

#: The row of a free static id: no table has it (the world queries skip rows >= table.n).
FREE_ROW = np.iinfo(np.int64).max
#: The static index is built afresh when more than a quarter of the statics changed at once,
#: and more than this many.
REBUILD_MIN = 16
_STATIC = int(STATIC)
_FEW = 8  # changed statics read one by one (more: with NumPy)
_FEW_FIND = 4  # entities looked up in the static slots one by one (more: with NumPy)


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


class StaticSlots:
    """Entity -> static id of the indexed statics: the ids a rebuild gave (its entities sorted
    once, in C: a look-up is a binary search) and the changes since (a dict, a removed one
    kept as -1). A single sleeper waking in a world of 50,000 costs a search, not a dict of
    every sleeper."""

    __slots__ = ("_changed", "_order", "_sorted", "_live")

    def __init__(self, ents: np.ndarray) -> None:
        """``ents[j]``: the entity of static id ``j`` (ids ``0 .. len(ents) - 1``)."""
        self._order = np.argsort(ents, kind="stable")  # (rows ascending: nearly sorted)
        self._sorted = ents[self._order]
        self._changed: dict[int, int] = {}
        self._live = len(ents)

    def __len__(self) -> int:
        return self._live

    def find(self, ents: list[int]) -> list[int | None]:
        """The static id of each entity in ``ents`` (None: not indexed)."""
        out: list[int | None] = [None] * len(ents)
        base: list[int] = []
        changed = self._changed
        for k, e in enumerate(ents):
            slot = changed.get(e)
            if slot is None:
                base.append(k)
            elif slot >= 0:
                out[k] = slot
        srt = self._sorted
        if base and len(base) <= _FEW_FIND and len(srt):  # (a wake, a door: scalar searches)
            m = len(srt)
            for k in base:
                j = int(srt.searchsorted(ents[k]))
                if j < m and srt[j] == ents[k]:
                    out[k] = int(self._order[j])
        elif base and len(srt):
            want = np.array([ents[k] for k in base], dtype=np.int64)
            at = np.searchsorted(self._sorted, want)
            at[at == len(self._sorted)] = 0
            hit = self._sorted[at] == want
            for k, ok, j in zip(base, hit.tolist(), self._order[at].tolist(), strict=True):
                if ok:
                    out[k] = j
        return out

    def __setitem__(self, entity: int, slot: int) -> None:
        """``entity`` (not indexed) gets static id ``slot``."""
        self._changed[entity] = slot
        self._live += 1

    def __delitem__(self, entity: int) -> None:
        """``entity`` (indexed) leaves the index."""
        self._changed[entity] = -1
        self._live -= 1


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
        # the stage's pairs as arrays, made when first read after its run (`Stage.version`)
        self._ra: np.ndarray = np.zeros(0, dtype=np.int64)
        self._rb: np.ndarray = np.zeros(0, dtype=np.int64)
        self._pairs_version = -1
        self._layout: tuple[int, int, int] | None = None
        self._dyn = np.zeros(0, dtype=np.int64)
        self._all_layers_pass = True
        self._stage = Stage()
        #: how many times the stage ran (the world's queries read the index it left)
        self.runs = 0
        #: static boxes put in, updated or taken out one by one so far (diagnostics)
        self.static_updates = 0
        # static ids: slot -> row and box (capacity arrays), entity -> slot, free slots
        self._slots = 0
        self._srow = np.full(16, FREE_ROW, dtype=np.int64)
        self._slo = np.full((16, 2), np.nan)
        self._shi = np.full((16, 2), np.nan)
        self._slot_of = StaticSlots(np.zeros(0, dtype=np.int64))  # entity -> slot
        self._free: list[int] = []
        self._built = False
        self._incremental = callable(getattr(self.index, "update_static", None))
        self._stage.set_static_rows(self._srow)

    @property
    def static_rebuilds(self) -> int:
        """How many times the static index was built from every static body."""
        return int(self.index.rebuilds)

    @property
    def static_rows(self) -> np.ndarray:
        """Static id ``j`` is row ``static_rows[j]`` (``FREE_ROW``: a free id). A view."""
        return self._srow[: self._slots]

    @property
    def static_lo(self) -> np.ndarray:
        """The static boxes as indexed, by static id (NaN: a free id). A view."""
        return self._slo[: self._slots]

    @property
    def static_hi(self) -> np.ndarray:
        """The static boxes' upper corners as indexed, by static id. A view."""
        return self._shi[: self._slots]

    @property
    def dynamic_rows(self) -> np.ndarray:
        """Dynamic id ``i`` (of the swept boxes the index holds) is row ``dynamic_rows[i]``."""
        return self._dyn

    def process(self, dt: float = 0.0) -> None:
        """This step's pairs into ``ra``, ``rb`` (the compiled step does the same through
        `prepare`, the stage and `after_stage`)."""
        self.prepare()
        t = self.table
        ra, rb, _ = self._stage.run(
            self.index, t, self.contact_offset, not self._all_layers_pass)
        if self.filter_pair is not None and len(ra):
            ra, rb = game_rules(t, ra, rb, self.filter_pair, check_layers=False)
            self._stage.set_pairs(ra, rb)
        self._ra, self._rb, self._pairs_version = ra, rb, self._stage.version

    def prepare(self) -> None:
        """Before the stage runs: the dynamic rows of a new layout, the static index brought
        up to date (see the module notes)."""
        t = self.table
        layout = self._layout
        if (layout is None or layout[0] != t.layout_version or layout[1] != t.n
                or layout[2] != t.sleep_version):
            moved = (t.sleep_moves_since(layout[2]) if layout is not None
                     and layout[:2] == (t.layout_version, t.n) else None)
            if moved is None:
                self._learn_layout()
            else:
                self._follow_sleep(moved)
            self._layout = (t.layout_version, t.n, t.sleep_version)
        if (not self._built or t.static_all or t.static_dirty
                or t.static_version != self._static_version):  # (rare: a static changed)
            if not self._built or t.static_all:
                self._rebuild_statics()
            else:
                self._update_statics()
            t.static_dirty.clear()
            t.static_all = False
            self._static_version = t.static_version
        self.runs += 1

    def after_stage(self) -> None:
        """After the compiled step ran the stage with ``filter_pair`` set (the step calls it
        only then): ``filter_pair`` asked (a Python call per pair) and the pairs it kept put
        back in the stage."""
        stage = self._stage
        if self.filter_pair is not None and stage.npairs:
            ra, rb = stage.pairs()
            ra, rb = game_rules(self.table, ra, rb, self.filter_pair, check_layers=False)
            stage.set_pairs(ra, rb)
            self._ra, self._rb, self._pairs_version = ra, rb, stage.version

    @property
    def box_pairs(self) -> int:
        """How many swept boxes overlapped in the last run (before layers and masks)."""
        return self._stage.box_pairs

    def _pairs(self) -> None:
        stage = self._stage
        if self._pairs_version != stage.version:
            self._ra, self._rb = stage.pairs()
            self._pairs_version = stage.version

    @property
    def ra(self) -> np.ndarray:
        """The first rows of this step's pairs (fresh arrays each step; see the module)."""
        self._pairs()
        return self._ra

    @property
    def rb(self) -> np.ndarray:
        """The second rows of this step's pairs."""
        self._pairs()
        return self._rb

    @property
    def stage(self) -> Stage:
        """The compiled half (the compiled step runs it)."""
        return self._stage

    @property
    def check_layers(self) -> bool:
        """Whether some pair needs the layer test in this layout."""
        return not self._all_layers_pass

    # ------------------------------------------------------------ static ids

    def _room(self, slots: int) -> None:
        """Capacity for ``slots`` static ids (the stage is given the new row array)."""
        cap = self._srow.shape[0]
        if slots <= cap:
            return
        cap = max(slots, 2 * cap)
        srow = np.full(cap, FREE_ROW, dtype=np.int64)
        slo = np.full((cap, 2), np.nan)
        shi = np.full((cap, 2), np.nan)
        k = self._slots
        srow[:k], slo[:k], shi[:k] = self._srow[:k], self._slo[:k], self._shi[:k]
        self._srow, self._slo, self._shi = srow, slo, shi
        self._stage.set_static_rows(srow)

    def _rebuild_statics(self) -> None:
        """Every static body gets a static id again (in row order) and the index is built."""
        t = self.table
        n = t.n
        rows = np.flatnonzero(t.collides[:n] & ((t.kind[:n] == _STATIC) | (t.asleep[:n] != 0)))
        m = rows.size
        self._room(m)
        base = t.pos[rows]
        self._srow[:m] = rows
        self._srow[m:] = FREE_ROW
        self._slo[:m] = base + t.lo[rows]
        self._shi[:m] = base + t.hi[rows]
        self._slo[m:] = np.nan
        self._shi[m:] = np.nan
        self._slots = m
        self._slot_of = StaticSlots(t.entity[rows])
        self._free = []
        self.index.set_static(self._slo[:m], self._shi[:m])
        self._built = True

    def _update_statics(self) -> None:
        """The statics the table says changed: new ids, rows, boxes; the index updated for
        those whose box came, went or changed (or built again: see the module notes)."""
        t = self.table
        dirty = t.static_dirty
        if not dirty:  # the version moved with nothing named: look at everything
            self._rebuild_statics()
            return
        row_of, collides, kind, asleep = t.row_of, t.collides, t.kind, t.asleep
        slot_of, free = self._slot_of, self._free
        put_slots: list[int] = []
        put_rows: list[int] = []
        gone: list[int] = []
        ents = sorted(dirty)  # (sorted: the same ids in every process)
        for e, slot in zip(ents, slot_of.find(ents), strict=True):
            row = row_of.get(e)
            now = row is not None and bool(collides[row]) and (
                int(kind[row]) == _STATIC or bool(asleep[row]))
            if slot is None:
                if not now:
                    continue
                if free:
                    slot = free.pop()
                else:
                    slot = self._slots
                    self._room(slot + 1)
                    self._slots = slot + 1
                slot_of[e] = slot
            elif not now:
                del slot_of[e]
                free.append(slot)
                gone.append(slot)
                continue
            put_slots.append(slot)
            put_rows.append(row)
        srow, slo, shi = self._srow, self._slo, self._shi
        for slot in gone:
            srow[slot] = FREE_ROW
            slo[slot] = shi[slot] = np.nan
        # new rows; the boxes that changed (not just a row) go to the index
        if len(put_slots) <= _FEW:  # a door, a spawn: plain floats (the same sums)
            pos, tlo, thi = t.pos, t.lo, t.hi
            moved: list[int] = []
            boxes: list[tuple[float, float, float, float]] = []
            for slot, row in zip(put_slots, put_rows, strict=True):
                srow[slot] = row
                x, y = float(pos[row, 0]), float(pos[row, 1])
                box = (x + float(tlo[row, 0]), y + float(tlo[row, 1]),
                       x + float(thi[row, 0]), y + float(thi[row, 1]))
                if box != (slo[slot, 0], slo[slot, 1], shi[slot, 0], shi[slot, 1]):
                    slo[slot] = box[:2]
                    shi[slot] = box[2:]
                    moved.append(slot)
                    boxes.append(box)
            slots = np.array(moved, dtype=np.int64)
            lo = np.array([b[:2] for b in boxes]).reshape(-1, 2)
            hi = np.array([b[2:] for b in boxes]).reshape(-1, 2)
        else:
            slots = np.array(put_slots, dtype=np.int64)
            rows = np.array(put_rows, dtype=np.int64)
            srow[slots] = rows
            base = t.pos[rows]
            lo, hi = base + t.lo[rows], base + t.hi[rows]
            same = (lo == slo[slots]).all(axis=1) & (hi == shi[slots]).all(axis=1)
            slots, lo, hi = slots[~same], lo[~same], hi[~same]
            slo[slots] = lo
            shi[slots] = hi
        changed = len(slots) + len(gone)
        if not changed:
            return
        live = len(slot_of)
        if (not self._incremental or (changed > REBUILD_MIN and 4 * changed > live)
                or 2 * len(free) > max(self._slots, 2 * REBUILD_MIN)):
            self._rebuild_statics()
            return
        self.static_updates += changed
        if gone:
            self.index.remove_static(np.array(gone, dtype=np.int64))
        if len(slots) and not self.index.update_static(slots, lo, hi):
            self._rebuild_statics()  # a box beyond the grid's static cells

    def _follow_sleep(self, moved: np.ndarray) -> None:
        """The dynamic rows after the rows ``moved`` fell asleep or woke, and nothing else
        changed: those asleep now leave, those awake now (colliding, not static) come, in
        entity order as `_learn_layout` gives them (the layer shortcut does not depend on
        sleep)."""
        dyn = follow_sleep(self.table, self._dyn, moved)  # (compiled: a merge)
        self._dyn = dyn
        self._stage.set_dynamic_rows(dyn)

    def _learn_layout(self) -> None:
        """Dynamic rows in entity order, and the layer shortcut, for this layout (one
        compiled pass: `broadphase.stage.dynamic_layout`)."""
        dyn, self._all_layers_pass = dynamic_layout(self.table)
        self._dyn = dyn
        self._stage.set_dynamic_rows(dyn)
