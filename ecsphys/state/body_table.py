"""The body table: one row per adopted entity, NumPy columns the systems work on all at once.

Guarantees:
- rows ``0 .. n-1`` are the live bodies, dense; a removed row is filled by the last row
  (swap-remove) and the moved entity's components are rebound to their new row;
- the rows a step works on depend on the world, never on when it was synced: between steps
  the rows follow the game's creates and deletes as they are synced (a snapshot, a frame
  without a step, the step itself), and ``canonical()`` (the start of each step) puts them
  in the one order that follows from the rows of the last step alone: the rows removed
  since are swap-removed from the last step's rows in descending order, and the bodies
  adopted since are appended in ascending entity order (``home``: per row, the row it held
  after the last step, -1 if adopted since; ``home_n`` the last step's row count). Only
  the rows whose place differs are moved (a delete costs the rows it moves, not the table);
- a bound component keeps the table and its row, never an array, so growing the columns
  (reallocation) never breaks it;
- ``static_version`` changes whenever the set of static colliders, or the position or shape
  of one of them, changes, so the broadphase re-indexes statics only then; ``static_dirty``
  collects the entities of those changes (a static body added, removed, moved to another row,
  written, re-shaped, or a body that stopped or started being static), so the index can
  update just those; ``static_all`` is set when every static must be indexed again (a
  snapshot restored);
- ``layout_version`` changes whenever a row is added or removed or a collider or shape is
  written (what pairs exist and how they collide), so a system can trust what it learnt
  about the bodies at the last step only while it stays the same;
- every row's shape is interned in the table's ``store`` (``geometry.shape_store``): the
  compiled routines read a row's shape from ``leaf0`` / ``nleaf`` (its leaf range),
  ``shape_code``, ``lo`` / ``hi`` and ``shape_hash`` without Python;
- a `TileMap` whose tiles changed is brought up to date in the store by
  ``refresh_tilemaps()`` (the physics calls it at the start of each step): only the edges
  around the changed tiles are written; its rows get a new leaf range and ``layout_version``
  changes only when the map's edges outgrew their room; its pairs are not ended (each tile's
  contact ends or stays on its own);
- ``touched`` collects the entities added, written (position), re-shaped or whose collider
  changed since the response last read it: after a step that ended with no two bodies
  overlapping, only their pairs (and those of rows that moved) are looked at for overlaps;
  a tile map whose tiles changed goes to ``tile_regions`` instead, with the box of the
  changed tiles grown by a tile, and only its pairs with bodies that reach into that box
  are looked at (the whole map when it changed more than 256 tiles since); a box no other
  row's box reaches into when the step takes the change is not noted at all (none of the
  map's pairs would be looked at for it; the step's positions are those rows' positions);
- ``sleepers`` counts the rows that sleep (``asleep``: never integrated, fixed partners in
  the response, velocity exactly 0; ``island``: the island they sleep in); a game's write
  of a non-zero Velocity or a new acceleration total to a sleeper, and a write to any
  body's Position (other than the one a sleeper or a static body has), Collider or
  Geometry or its removal while something sleeps, go to ``wake_requests`` (a removed
  sleeper leaves its island's list, ``island_next`` / ``island_prev``, and another member
  goes to ``wake_islands``), which the physics applies at the start of the next step
  (`systems.sleep`); the island lists follow every row that moves; a sleeper is indexed as
  a static box (it moves no more than a static body does), so removing, moving or
  re-shaping one, or one falling asleep or waking, is a static change too
  (``static_dirty`` / ``static_all``); ``sleep_version`` changes
  whenever a body falls asleep or wakes (the awake rows are another set), and
  ``sleep_log`` lists the rows of each such change (`sleep_moves_since`: what changed since a
  version, so the awake rows and the broadphase's dynamic rows follow a few rows falling
  asleep or waking at their cost, not the table's);
- ``changed`` collects the entities whose collider changed (kind, layer, mask, sensor) or
  whose Collider/Geometry component was replaced, added or removed since the events system
  last read it (their touching pairs end and start again).
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from ..components import (
    STATIC,
    AccelerationMap,
    Collider,
    ColliderKind,
    Geometry,
    Position,
    Velocity,
)
from ..geometry.shape_store import ShapeStore
from ..ground import NEW
from ..shapes import Shape
from ..tilemap import TileMap
from .id_sets import unique_ids
from .tile_watch import TileWatch, refresh_maps

_STATIC, _ACTIVE = int(STATIC), int(ColliderKind.ACTIVE)
#: Shape codes stored per row (Circle 0, Rect 1, ... as ``Shape.type_code``); -1: no geometry.
NO_SHAPE = -1
SLIDE_CODE = {"project": 0, "tangent": 1}
CIRCLE_CODE, RECT_CODE, SEGMENT_CODE = 0, 1, 3
#: How many changes of the sleep state ``BodyTable.sleep_log`` keeps.
SLEEP_LOG = 32
#: The store is rebuilt from the live shapes once it holds more than this many leaves and
#: more than twice as many as the rows use (shapes replaced over and over).
_COMPACT_LEAVES = 4096

Comps = tuple[Position, Velocity | None, AccelerationMap | None, Collider | None, Geometry | None]

_VEC_COLUMNS = ("pos", "vel", "acc", "move", "prev_pos", "lo", "hi", "one_way", "floor_n",
                "floor_v", "rest_pos")
_SCALAR_COLUMNS = {
    "entity": np.int64, "kind": np.int8, "layer": np.int64, "mask": np.int64,
    "sensor": np.bool_, "collides": np.bool_, "mass": np.float64, "inv_mass": np.float64,
    "restitution": np.float64, "slide": np.int8, "shape_code": np.int8,
    "shape_hash": np.int64, "leaf0": np.intc, "nleaf": np.intc,
    "friction": np.float64, "stop_slope": np.bool_,
    # what the last step's contacts said (systems/ground.pyx)
    "ground": np.int8, "floor_entity": np.int64, "carrier": np.intc,
    # sleeping (systems/sleep.pyx): asleep 0/1, seconds rested without a break, the island
    # a sleeper sleeps in (an entity of the island: see sleep.fall_asleep; -1: awake)
    "asleep": np.uint8, "rest_time": np.float64, "island": np.int64,
    # a sleeper's island as a circular list of rows, next and previous (-1: awake; kept by
    # systems/islands.pxd and here as rows move; made again from ``island``: relink_islands)
    "island_next": np.intc, "island_prev": np.intc,
    # the row it held after the last step (-1: adopted since; see `BodyTable.canonical`)
    "home": np.int64,
}
#: what a step changes in the rows (``motion`` / ``set_motion``, snapshots)
MOTION_COLUMNS = ("pos", "prev_pos", "vel", "ground", "floor_n", "floor_v", "floor_entity",
                   "carrier", "asleep", "rest_time", "rest_pos", "island")


def _xy(c: Position | Velocity) -> tuple[float, float]:
    """A Position's or Velocity's pair (its own values before it is bound)."""
    return (c._x, c._y) if c._table is None else c.xy


def _vectors(pairs: list | tuple) -> np.ndarray:
    """``(x, y)`` pairs as an ``(n, 2)`` float array (faster than NumPy's nested-list path)."""
    return np.fromiter(chain.from_iterable(pairs), dtype=np.float64,
                       count=2 * len(pairs)).reshape(len(pairs), 2)


#: the columns `BodyTable._shape_fields` fills, in its order
_SHAPE_COLUMNS = ("shape_code", "lo", "hi", "leaf0", "nleaf", "shape_hash")
#: the columns `_collider_fields` fills, in its order
_COLLIDER_COLUMNS = ("kind", "layer", "mask", "sensor", "mass", "restitution", "slide",
                     "friction", "stop_slope", "one_way", "inv_mass")


def _collider_fields(col: Collider | None) -> tuple:
    """A row's collider columns (``_COLLIDER_COLUMNS``) for ``col``; without a Collider a body
    is integrated like an active body but never collides."""
    if col is None:
        return (_ACTIVE, 0, 0, False, 1.0, 0.0, 0, 0.0, False, (0.0, 0.0), 1.0)
    kind = int(col._kind)
    mass = col._mass
    return (kind, col._layer, col._mask, col._sensor, mass, col._restitution,
            SLIDE_CODE[col._slide], col._friction, col._stop_on_slope,
            col._one_way if col._one_way is not None else (0.0, 0.0),
            0.0 if kind == _STATIC else 1.0 / mass)


class BodyTable:
    """Columns of all adopted bodies (see the module docstring for the guarantees).

    Vector columns have shape ``(capacity, 2)``: ``pos``, ``vel``, ``acc`` (total of the
    AccelerationMap), ``move`` (this step's displacement), ``prev_pos`` (position at the start
    of the step, for interpolation), ``lo`` / ``hi`` (the shape's bounding box relative to
    ``pos``). Scalar columns: see ``_SCALAR_COLUMNS``; the shape's leaves in ``store`` are
    ``leaf0 .. leaf0 + nleaf`` and ``shape_hash`` orders same-kind pairs. Use ``[:n]`` slices.
    ``one_way`` is a Collider's one-way direction ((0, 0): solid both ways).
    """

    pos: np.ndarray
    vel: np.ndarray
    acc: np.ndarray
    move: np.ndarray
    prev_pos: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    entity: np.ndarray
    kind: np.ndarray
    layer: np.ndarray
    mask: np.ndarray
    sensor: np.ndarray
    collides: np.ndarray
    mass: np.ndarray
    inv_mass: np.ndarray
    restitution: np.ndarray
    slide: np.ndarray
    shape_code: np.ndarray
    shape_hash: np.ndarray
    leaf0: np.ndarray
    nleaf: np.ndarray
    friction: np.ndarray
    stop_slope: np.ndarray
    one_way: np.ndarray
    #: per row, from the last step's contacts: GROUND_* flags, the floor's normal, velocity
    #: and entity (-1: none), and the row of the ACTIVE body it rides on (-1: none)
    ground: np.ndarray
    floor_n: np.ndarray
    floor_v: np.ndarray
    floor_entity: np.ndarray
    carrier: np.ndarray

    def __init__(self, capacity: int = 64) -> None:
        self.n = 0
        self.capacity = 0
        self.shapes: list[Shape | None] = []
        #: the leaves of every row's shape, read by the compiled routines
        self.store = ShapeStore()
        self.comps: list[Comps] = []
        self.row_of: dict[int, int] = {}
        self.static_version = 0
        #: entities whose static box, presence or row changed since the broadphase read it
        self.static_dirty: set[int] = set()
        #: every static must be indexed again (the broadphase clears it)
        self.static_all = False
        #: changes whenever the columns are reallocated (they grew)
        self.columns_version = 0
        #: changes whenever a row is added or removed or a collider or shape is written
        self.layout_version = 0
        #: changes whenever a game writes a Position (the world's queries look again)
        self.pose_version = 0
        self.changed: set[int] = set()
        #: entities added, written, re-shaped or with a changed collider since the response
        #: last looked for overlaps (it clears it)
        self.touched: set[int] = set()
        #: per component slot (Position, Velocity, AccelerationMap, Collider, Geometry): the
        #: entities that have that component bound here.
        self.has: list[set[int]] = [set() for _ in range(5)]
        #: entity -> the watch on its TileMap (``tile_watch.TileWatch``: the map, the version
        #: of its tiles the row last took, the map's compiled copy in the store)
        self.tilemaps: dict[int, TileWatch] = {}
        #: tile map entity -> ``[x0, y0, x1, y1]``, relative to its position: the box of the
        #: tiles changed since the response last looked for overlaps (it clears it); only the
        #: bodies near it are looked at with the map (a map not otherwise touched)
        self.tile_regions: dict[int, list[float]] = {}
        #: how many rows sleep (``asleep``); the wake hooks below cost nothing while it is 0
        self.sleepers = 0
        #: entities that ask their island, and the sleepers touching them, to wake at the
        #: start of the next step (written, re-shaped, collider changed, removed, woken)
        self.wake_requests: set[int] = set()
        #: sleepers whose islands wake at the start of the next step (a member left: the
        #: entity of another member; every sleeper when the game's rules changed)
        self.wake_islands: set[int] = set()
        #: changes whenever a body falls asleep or wakes
        self.sleep_version = 0
        #: ``(sleep_version after, rows)`` of the last ``SLEEP_LOG`` changes of the sleep
        #: state (`systems.sleep.sleep_changed` notes them; empty after a change that did not
        #: say its rows: `sleep_moves_since` answers None then)
        self.sleep_log: list[tuple[int, np.ndarray]] = []
        #: the row count after the last step, and whether a row was added or removed since
        #: (``home`` says where each row was then; see `canonical`)
        self.home_n = 0
        self.reordered = False
        self._allocate(max(capacity, 1))

    # ---------------------------------------------------------------- storage

    def _allocate(self, capacity: int) -> None:
        old_n = self.n
        for name in _VEC_COLUMNS:
            new = np.zeros((capacity, 2), dtype=np.float64)
            if self.capacity:
                new[:old_n] = getattr(self, name)[:old_n]
            setattr(self, name, new)
        for name, dtype in _SCALAR_COLUMNS.items():
            new = np.zeros(capacity, dtype=dtype)
            if self.capacity:
                new[:old_n] = getattr(self, name)[:old_n]
            setattr(self, name, new)
        self.capacity = capacity
        self.columns_version += 1  # the compiled views of the columns must be taken again
        self._columns = [getattr(self, name) for name in (*_VEC_COLUMNS, *_SCALAR_COLUMNS)]

    def _copy_row(self, src: int, dst: int) -> None:
        for a in self._columns:
            a[dst] = a[src]

    # ---------------------------------------------------------------- rows

    def add(self, entity: int, comps: Comps) -> int:
        """Adopt ``entity`` with its components; returns its row. Binds the components."""
        if entity in self.row_of:
            raise ValueError(f"entity {entity} is already in the body table")
        if self.n == self.capacity:
            self._allocate(self.capacity * 2)
        row = self.n
        self.n += 1
        self.layout_version += 1
        self.shapes.append(None)
        self.comps.append(comps)
        self.row_of[entity] = row
        self.touched.add(entity)
        self.home[row] = -1
        self.reordered = True
        pos, vel, acc, col, geo = comps
        self.entity[row] = entity
        xy = pos.xy
        self.pos[row] = xy
        self.prev_pos[row] = xy
        self.vel[row] = vel.xy if vel is not None else (0.0, 0.0)
        self.acc[row] = acc.total if acc is not None else (0.0, 0.0)
        self._fresh_motion(row)
        self._write_collider(row, col)
        self._write_shape(row, geo.shape if geo is not None else None)
        collides = col is not None and geo is not None
        self.collides[row] = collides
        for c, has in zip(comps, self.has, strict=True):
            if c is not None:
                c._bind(self, row)
                has.add(entity)
        if collides and col.kind == _STATIC:
            self._static_touched(entity)
        return row

    def add_many(self, entities: list[int], comps: list[Comps]) -> None:
        """Adopt ``entities`` (with their components, in that order) at once: the same rows,
        values and versions as ``add`` for each in turn, each column written once (a level
        of 10,000 bodies adopts in a few milliseconds, not a row at a time). ``ValueError``
        naming the entity, before anything changes, if one is adopted already or twice."""
        k = len(entities)
        if len(comps) != k:
            raise ValueError(f"add_many needs one components tuple per entity, got {len(comps)} "
                             f"for {k}")
        seen: set[int] = set()
        for e in entities:
            if e in self.row_of or e in seen:
                raise ValueError(f"entity {e} is already in the body table")
            seen.add(e)
        if k == 0:
            return
        start, end = self.n, self.n + k
        capacity = self.capacity
        while capacity < end:
            capacity *= 2
        if capacity != self.capacity:
            self._allocate(capacity)
        if self._store_wasted():  # as the first add would
            self._compact_store()
        self.n = end
        self.layout_version += 3 * k  # add, collider and shape, per body
        span = slice(start, end)
        self.entity[span] = entities
        self.home[span] = -1
        self.reordered = True
        xy = _vectors([_xy(c[0]) for c in comps])
        self.pos[span] = xy
        self.prev_pos[span] = xy
        self.vel[span] = _vectors([(0.0, 0.0) if c[1] is None else _xy(c[1]) for c in comps])
        self.acc[span] = _vectors([(0.0, 0.0) if c[2] is None else c[2].total for c in comps])
        self._fresh_motion(span)
        fields = [_collider_fields(c[3]) for c in comps]
        for name, column in zip(_COLLIDER_COLUMNS, zip(*fields, strict=True), strict=True):
            getattr(self, name)[span] = _vectors(column) if name == "one_way" else column
        geo = [None if c[4] is None else c[4].shape for c in comps]
        # bodies often share one shape object (every bullet the same Circle): its fields once
        known: dict[int, tuple] = {}
        rows = []
        for shape in geo:
            f = known.get(id(shape))
            if f is None:
                f = self._shape_fields(shape)
                if not isinstance(shape, TileMap):  # (a map's fields follow its tiles)
                    known[id(shape)] = f
            rows.append(f)
        for name, column in zip(_SHAPE_COLUMNS, zip(*rows, strict=True), strict=True):
            getattr(self, name)[span] = _vectors(column) if name in ("lo", "hi") else column
        for e, shape in zip(entities, geo, strict=True):
            if isinstance(shape, TileMap):
                self.tilemaps[e] = TileWatch(shape)
        self.shapes.extend(geo)
        self.comps.extend(comps)
        collides = [c[3] is not None and c[4] is not None for c in comps]
        self.collides[span] = collides
        row_of, touched, has = self.row_of, self.touched, self.has
        for row, (e, cs, solid, f) in enumerate(
                zip(entities, comps, collides, fields, strict=True), start):
            row_of[e] = row
            touched.add(e)
            for c, held in zip(cs, has, strict=True):
                if c is not None:  # (what `_Bindable._bind` does, without the call)
                    c._table = self
                    c._row = row
                    held.add(e)
            if solid and f[0] == _STATIC:
                self._static_touched(e)

    def remove(self, entity: int) -> None:
        """Release ``entity``: its components take back their values; the last row moves in."""
        row = self.row_of.pop(entity)
        if self.sleepers:  # what rested on it, and the rest of its island, wake
            self.wake_requests.add(entity)
            if self.asleep[row]:
                self.sleepers -= 1
                nxt, prv = self.island_next, self.island_prev
                after = int(nxt[row])
                if after != row:  # (a member left in its island names it)
                    self.wake_islands.add(int(self.entity[after]))
                    nxt[prv[row]] = after
                    prv[after] = prv[row]
                nxt[row] = prv[row] = -1
        self.tilemaps.pop(entity, None)
        self.tile_regions.pop(entity, None)
        for has in self.has:
            has.discard(entity)
        if self.indexed_static(row):
            self._static_touched(entity)
        for c in self.comps[row]:
            if c is not None and c._table is self and c._row == row:
                c._unbind()
        last = self.n - 1
        if row != last and self.indexed_static(last):
            # a static body (or a sleeper) changes row: the index holds rows
            self._static_touched(int(self.entity[last]))
        # riders of the removed row ride nothing; those of the last row follow it (only an
        # ACTIVE body of infinite mass carries riders: no scan for the others)
        carrier = self.carrier[: self.n]
        if self._carries(row):
            carrier[carrier == row] = -1
        if row != last and self._carries(last):
            carrier[carrier == last] = row
        if row != last:
            self._copy_row(last, row)
            if self.island_next[row] >= 0:  # its island's list names its new row
                self._island_moved(last, row)
            self.shapes[row] = self.shapes[last]
            self.comps[row] = self.comps[last]
            moved = int(self.entity[row])
            self.row_of[moved] = row
            for c in self.comps[row]:
                if c is not None:
                    c._row = row
        self.shapes.pop()
        self.comps.pop()
        self.n = last
        self.layout_version += 1
        self.reordered = True

    def _island_moved(self, old: int, new: int) -> None:
        """Row ``old``'s columns were copied to row ``new`` (a sleeper): its list follows."""
        nxt, prv = self.island_next, self.island_prev
        if nxt[new] == old:  # (alone)
            nxt[new] = prv[new] = new
        else:
            prv[nxt[new]] = new
            nxt[prv[new]] = new

    def canonical(self) -> None:
        """Put the rows in the order the step works on (see the module notes): the last
        step's rows less those removed since, each hole filled by the last row (holes in
        descending order), then the bodies adopted since in ascending entity order. Moves
        only the rows whose place differs; then every row's ``home`` is its row."""
        if not self.reordered:
            return
        n = self.n
        home = self.home[:n]
        old = np.flatnonzero(home >= 0)
        at = np.full(self.home_n, -1, dtype=np.int64)  # at[r]: the row now of last step's r
        at[home[old]] = old
        size = self.home_n
        for h in np.flatnonzero(at < 0)[::-1].tolist():  # (the rows removed since)
            size -= 1
            if h != size:
                at[h] = at[size]
        order = at[:size]
        new = np.flatnonzero(home < 0)
        if len(new):
            new = new[np.argsort(self.entity[new], kind="stable")]
            order = np.concatenate((order, new))
        self.permute(order)
        self.home[:n] = np.arange(n)
        self.home_n = n
        self.reordered = False

    def permute(self, order: np.ndarray) -> None:
        """Move the rows so that row ``j`` holds what row ``order[j]`` held (``order`` a
        permutation of ``0 .. n-1``): the columns, shapes and components of the rows that
        move, their components rebound, the carriers (rows) renamed; a static box that
        changes row is a static change (the index holds rows)."""
        n = self.n
        if len(order) != n:
            raise ValueError(f"permute needs one row per row ({n}), got {len(order)}")
        moved = np.flatnonzero(order != np.arange(n))
        if not len(moved):
            return
        src = order[moved]
        for a in self._columns:
            a[moved] = a[src]
        shapes, comps = self.shapes, self.comps
        took = [(shapes[r], comps[r]) for r in src.tolist()]
        row_of = self.row_of
        for j, (shape, cs) in zip(moved.tolist(), took, strict=True):
            shapes[j] = shape
            comps[j] = cs
            e = int(self.entity[j])
            row_of[e] = j
            for c in cs:
                if c is not None and c._table is self:
                    c._row = j
            if self.indexed_static(j):
                self._static_touched(e)
        carried = self.carrier[:n] >= 0
        inverse = None
        if carried.any():
            inverse = np.empty(n, dtype=np.intc)
            inverse[order] = np.arange(n, dtype=np.intc)
            carrier = self.carrier[:n]
            carrier[carried] = inverse[carrier[carried]]
        if self.sleepers:  # the island lists name rows too
            if inverse is None:
                inverse = np.empty(n, dtype=np.intc)
                inverse[order] = np.arange(n, dtype=np.intc)
            linked = self.island_next[:n] >= 0
            for links in (self.island_next[:n], self.island_prev[:n]):
                links[linked] = inverse[links[linked]]
        self.layout_version += 1

    def indexed_static(self, row: int) -> bool:
        """Whether row ``row`` is a static box of the broadphase: a colliding body that is
        STATIC or asleep."""
        return bool(self.collides[row]) and (self.kind[row] == _STATIC or bool(self.asleep[row]))

    def _carries(self, row: int) -> bool:
        """Whether other rows may ride row ``row`` (an ACTIVE body of infinite mass)."""
        return self.kind[row] != _STATIC and self.mass[row] == np.inf

    def clear(self) -> None:
        """Release every body."""
        for entity in list(self.row_of):
            self.remove(entity)
        self.wake_requests.clear()
        self.wake_islands.clear()

    # ---------------------------------------------------------------- writes from components

    def _write_collider(self, row: int, col: Collider | None) -> None:
        self.layout_version += 1
        for name, value in zip(_COLLIDER_COLUMNS, _collider_fields(col), strict=True):
            getattr(self, name)[row] = value

    def _write_shape(self, row: int, shape: Shape | None) -> None:
        self.layout_version += 1
        self.shapes[row] = shape
        entity = int(self.entity[row])
        if isinstance(shape, TileMap):
            self.tilemaps[entity] = TileWatch(shape)
        else:
            self.tilemaps.pop(entity, None)
            self.tile_regions.pop(entity, None)
        if shape is not None and self._store_wasted():
            self._compact_store()
        for name, value in zip(_SHAPE_COLUMNS, self._shape_fields(shape), strict=True):
            getattr(self, name)[row] = value

    def _shape_fields(self, shape: Shape | None) -> tuple:
        """A row's shape columns (``_SHAPE_COLUMNS``) for ``shape``, interned in the store."""
        if shape is None:
            return (NO_SHAPE, (0.0, 0.0), (0.0, 0.0), 0, 0, 0)
        x0, y0, x1, y1 = shape.bounds()
        return (shape.type_code, (x0, y0), (x1, y1), *self.store.intern(shape))

    def _store_wasted(self) -> bool:
        """The store holds more than ``_COMPACT_LEAVES`` leaves and twice what the rows use
        (shapes replaced over and over): time to intern the live shapes afresh."""
        leaves = self.store.leaves
        return leaves > _COMPACT_LEAVES and leaves > 2 * int(self.nleaf[: self.n].sum())

    def _fresh_motion(self, rows: int | slice) -> None:
        """New rows have not moved and stand on nothing yet (``ground`` says NEW)."""
        self.move[rows] = 0.0
        self.ground[rows] = NEW
        self.floor_n[rows] = 0.0
        self.floor_v[rows] = 0.0
        self.floor_entity[rows] = -1
        self.carrier[rows] = -1
        self.asleep[rows] = 0
        self.rest_time[rows] = 0.0
        self.rest_pos[rows] = 0.0
        self.island[rows] = -1
        self.island_next[rows] = -1
        self.island_prev[rows] = -1

    def relink_islands(self) -> None:
        """The island lists (``island_next``, ``island_prev``) made afresh from the
        ``island`` column: the sleepers with one id form one circular list, in row order
        (after a snapshot's or a saved motion's columns were written)."""
        n = self.n
        nxt, prv, island = self.island_next[:n], self.island_prev[:n], self.island[:n]
        nxt[:] = -1
        prv[:] = -1
        rows = np.flatnonzero(island >= 0)
        if not len(rows):
            return
        order = rows[np.argsort(island[rows], kind="stable")]
        ids = island[order]
        k = len(order)
        start = np.ones(k, dtype=bool)
        np.not_equal(ids[1:], ids[:-1], out=start[1:])
        first = np.maximum.accumulate(np.where(start, np.arange(k), 0))  # its group's start
        end = np.roll(start, -1)  # (the last one ends a group: start[0] is set)
        following = np.roll(order, -1)
        following[end] = order[first[end]]
        nxt[order] = following
        prv[following] = order

    def _compact_store(self) -> None:
        """Intern the live rows' shapes afresh (shapes replaced many times left leaves no row
        uses any more)."""
        self.store.clear()
        for row, shape in enumerate(self.shapes):
            if shape is not None:
                self.leaf0[row], self.nleaf[row], self.shape_hash[row] = self.store.intern(shape)

    def refresh_tilemaps(self) -> None:
        """Take the tile changes of the rows' tile maps (see the module docstring). The store
        writes a map's changed tiles in place, so its rows keep their leaf range and
        ``layout_version`` changes only when the range does (the map outgrew its room). The
        changed tiles' box, and a tile around them (a body near a changed tile is looked at
        with the map), goes to ``tile_regions`` if another row's box reaches into it; the
        whole map is ``touched`` instead when the map no longer lists its changes one by one,
        or lists many. Compiled (``tile_watch.refresh_maps``): a step with no change reads
        each map's version and nothing else."""
        if self.tilemaps:
            refresh_maps(self)

    def _write_range(self, entity: int, found: tuple[int, int, int]) -> None:
        """The leaf range ``found`` of ``entity``'s map in its row (``layout_version``
        changes if it moved)."""
        row = self.row_of[entity]
        first, count, key = found
        if first != self.leaf0[row] or count != self.nleaf[row]:
            self.leaf0[row], self.nleaf[row], self.shape_hash[row] = first, count, key
            self.layout_version += 1

    def motion(self) -> tuple[np.ndarray, ...]:
        """Copies of what a step changes in the rows (positions, velocities, what each body
        stands on), for ``set_motion``."""
        n = self.n
        return tuple(getattr(self, name)[:n].copy() for name in MOTION_COLUMNS)

    def set_motion(self, saved: tuple[np.ndarray, ...]) -> None:
        """Put back what ``motion()`` copied (the rows must be the same)."""
        n = self.n
        for name, values in zip(MOTION_COLUMNS, saved, strict=True):
            getattr(self, name)[:n] = values
        self.pose_version += 1
        sleepers = int(np.count_nonzero(self.asleep[:n]))
        if sleepers or self.sleepers:
            # who sleeps may differ: sleepers are static boxes
            self.relink_islands()
            self.static_all = True
            self.static_version += 1
            self.sleep_version += 1
            self.sleep_log.clear()
        self.sleepers = sleepers

    def sleep_moves_since(self, version: int) -> np.ndarray | None:
        """The rows that fell asleep or woke since ``sleep_version`` was ``version`` (each
        once, ascending), or None when the log does not cover every change since (the
        caller looks at every row)."""
        if version == self.sleep_version:
            return np.zeros(0, dtype=np.int64)
        log = self.sleep_log
        if not log or log[-1][0] != self.sleep_version or log[0][0] > version + 1:
            return None
        parts = [rows for v, rows in log if v > version]
        if len(parts) != self.sleep_version - version:
            return None
        if len(parts) == 1:  # (each entry is ascending and unique already)
            return parts[0]
        return unique_ids(np.concatenate(parts))

    def _wake_request(self, row: int) -> None:
        """Row ``row`` was changed by the game: its island and the sleepers touching it wake
        at the start of the next step (nothing to do while nobody sleeps), and an awake body
        starts resting afresh (so it wakes the sleepers it can reach in the next step, as a
        body that moved does)."""
        self.rest_time[row] = 0.0
        if self.sleepers:
            self.wake_requests.add(int(self.entity[row]))

    def acceleration_changed(self, row: int) -> None:
        """The total of a body's AccelerationMap changed: a sleeping body wakes; an awake
        one rests afresh (it wakes the sleepers it reaches in the next step, as one that
        moved does)."""
        if self.asleep[row]:
            self.wake_requests.add(int(self.entity[row]))
        else:
            self.rest_time[row] = 0.0

    def velocity_written(self, row: int) -> None:
        """A game wrote a Velocity: a sleeping body wakes, unless it wrote (0, 0) (what a
        sleeper's velocity is); an awake body given a velocity other than (0, 0) rests
        afresh (a still platform the game starts wakes what sleeps on it in that step)."""
        if self.vel[row, 0] != 0.0 or self.vel[row, 1] != 0.0:
            if self.asleep[row]:
                self.wake_requests.add(int(self.entity[row]))
            else:
                self.rest_time[row] = 0.0

    def position_written(self, row: int) -> None:
        """A game wrote a Position: statics must be re-indexed; queries look again. What
        sleeps on or against it wakes, unless it wrote the position it had (a sleeper's
        and a static body's ``prev_pos`` is its position)."""
        self.pose_version += 1
        if (self.pos[row, 0] != self.prev_pos[row, 0] or self.pos[row, 1] != self.prev_pos[row, 1]
                or not (self.asleep[row] or self.kind[row] == STATIC)):
            self._wake_request(row)
        self.touched.add(int(self.entity[row]))
        if self.indexed_static(row):
            self._static_touched(int(self.entity[row]))

    def collider_changed(self, row: int, col: Collider) -> None:
        """A field of an adopted Collider changed."""
        was_static = self.indexed_static(row)
        carried = self._carries(row)
        self._wake_request(row)
        self._write_collider(row, col)
        self.touched.add(int(self.entity[row]))
        if carried and not self._carries(row):  # its riders ride nothing from now on
            carrier = self.carrier[: self.n]
            carrier[carrier == row] = -1
        if was_static or self.indexed_static(row):
            self._static_touched(int(self.entity[row]))
        self.changed.add(int(self.entity[row]))

    def geometry_changed(self, row: int, shape: Shape) -> None:
        """An adopted Geometry got a new shape."""
        self._wake_request(row)
        self._write_shape(row, shape)
        self.touched.add(int(self.entity[row]))
        if self.indexed_static(row):
            self._static_touched(int(self.entity[row]))

    def _static_touched(self, entity: int) -> None:
        """A static body of ``entity`` appeared, went, moved row, or its box changed."""
        self.static_version += 1
        self.static_dirty.add(entity)

    # ---------------------------------------------------------------- reading

    def row(self, entity: int) -> int:
        """The row of ``entity``; raises ``KeyError`` if it is not adopted."""
        return self.row_of[entity]

    def __len__(self) -> int:
        return self.n

    def __contains__(self, entity: object) -> bool:
        return entity in self.row_of

    def column(self, name: str) -> Any:
        """The live ``[:n]`` slice of a column, by name."""
        return getattr(self, name)[: self.n]
