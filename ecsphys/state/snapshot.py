"""Saving and restoring the whole physics state of a world: rewind, replays, rollback netcode.

Guarantees:
- ``take(physics)`` returns a `Snapshot`: a plain value (NumPy arrays, tuples, numbers and
  shape values; it pickles) holding everything a step reads that a step or a game changes:
  every adopted body's position, velocity, previous position, named accelerations, collider
  settings and shape (a tile map's tiles too), what it stood on, whether it sleeps (its
  island) and how long it has rested, the touching pairs with
  their durations and contacts (events and hysteresis), the sleeping pairs' contacts as they
  are kept (with the clock each fell asleep at), the entities whose pairs restart,
  the STATIC bodies the game changed since the last step (they wake the sleepers they
  reach in the next step), the order of the rows and where each was after the last step
  (``home``: the next step's rows follow from it; ``state.body_table``), and the clock
  (accumulator, alpha, steps, time).
- ``restore(physics, snapshot)`` puts all of it back, so stepping again with the same inputs
  gives bit-identical positions, velocities and event sequences, in this process or in
  another (the rows are put in the snapshot's order first). It needs the same entities
  adopted with the same kinds of components (Position, Velocity, AccelerationMap, Collider,
  Geometry) as when the snapshot was taken; otherwise it raises ``ValueError`` naming the
  entities that differ and changes nothing. Events a raising handler left undelivered are
  dropped.
- A snapshot is untrusted input (it may have been pickled, stored or sent over the network
  for rollback): ``restore`` checks all of it before it changes anything, every array's type,
  dtype and shape, every number against the valid range (``ecsphys.limits``: positions,
  velocities, accelerations, collider settings, shapes rebuilt through their constructors,
  tiles, contacts and pair histories, the clock), and refuses a snapshot that fails with a
  ``ValueError`` / ``TypeError`` naming the field, leaving the world exactly as it was.
- ``take`` first lets esper carry out deletions it deferred and adopts what was created
  since the last step (a handler that deleted or made entities during the step), so the
  snapshot holds the world as the next step will see it.
- A snapshot is a copy: later steps never change it, and restoring it twice works.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..components import AccelerationMap, Collider
from ..limits import MAX_COORD, MAX_DT, MAX_SPEED
from ..mask import Mask
from ..shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment, Shape
from ..tilemap import TileMap
from .body_table import MOTION_COLUMNS
from .contact_set import ContactSet
from .id_sets import unique_ids

if TYPE_CHECKING:
    from ..physics import Physics

_COLLIDER_FIELDS = ("kind", "layer", "mask", "sensor", "mass", "restitution", "slide",
                    "friction", "stop_on_slope", "one_way")
#: 2: the sleep state (``asleep``, ``rest_time``, ``island``) joined the columns; 3: where
#: each rest began (``rest_pos``)
_FORMAT = 3


@dataclass(frozen=True, eq=False)
class Snapshot:
    """A saved physics state (see `ecsphys.state.snapshot`); make one with
    ``physics.snapshot()``."""

    format: int
    entities: np.ndarray
    #: which components each entity had (Position, Velocity, AccelerationMap, Collider,
    #: Geometry), as five flags a row
    parts: np.ndarray
    columns: dict[str, np.ndarray]
    accelerations: tuple[tuple[tuple[str, tuple[float, float]], ...] | None, ...]
    colliders: tuple[tuple[Any, ...] | None, ...]
    shapes: tuple[Shape | None, ...]
    #: per row: a copy of a tile map's tiles (None for other shapes)
    tiles: tuple[np.ndarray | None, ...]
    changed: frozenset[int]
    contacts: Any
    pairs: Any
    clock: tuple[float, float, int, float, float]
    #: the STATIC bodies changed since the last step, whose wake is still to come (the next
    #: step wakes the sleepers they reach); empty in a snapshot pickled before it was kept
    wake_statics: frozenset[int] = frozenset()
    #: the sleeping contacts (``ecsphys.systems.events.SleepingState``: the pairs asleep
    #: since before the last step, with the clock when each fell asleep); None in a
    #: snapshot pickled before they were kept apart (its ``pairs`` hold them)
    sleeping: Any = None
    #: per entity (in ``entities``' order, the rows' order): the row it held after the last
    #: step (-1: adopted since), and how many rows there were then (``BodyTable.canonical``)
    home: Any = None
    home_n: int = 0
    #: tile map entity -> the box (relative to its position) of the tiles changed since the
    #: last step, as the next step will read it (``BodyTable.tile_regions``)
    tile_regions: Any = None

    def __repr__(self) -> str:
        return (f"Snapshot(bodies={len(self.entities)}, steps={self.clock[2]}, "
                f"touching={len(self.contacts)})")


def take(physics: Physics) -> Snapshot:
    """The state of ``physics`` now (see the module docstring)."""
    physics.sync()  # deletions esper deferred and entities made since the last step
    if physics.table.tilemaps:  # tiles dug or built since the last step: where, as the
        physics.table.refresh_tilemaps()  # next step will see it
    if physics.table.wake_requests or physics.table.wake_islands:
        physics._take_wakes(keep_statics=True)  # a sleeper the game changed is awake
    t = physics.table
    n = t.n
    comps = t.comps[:n]
    parts = np.array([[c is not None for c in row] for row in comps],
                     dtype=np.bool_).reshape(n, 5)
    accelerations = tuple(None if acc is None else tuple(acc.items())
                          for _, _, acc, _, _ in comps)
    colliders = tuple(None if col is None else tuple(getattr(col, f) for f in _COLLIDER_FIELDS)
                      for _, _, _, col, _ in comps)
    shapes = tuple(t.shapes[:n])
    tiles = tuple(s.grid.copy() if isinstance(s, TileMap) else None for s in shapes)
    columns = {name: getattr(t, name)[:n].copy() for name in MOTION_COLUMNS}
    carrier = columns["carrier"]  # rows: kept as the entities they are
    columns["carrier"] = np.where(carrier >= 0, t.entity[np.maximum(carrier, 0)], -1)
    return Snapshot(
        format=_FORMAT,
        entities=t.entity[:n].copy(),
        parts=parts,
        columns=columns,
        accelerations=accelerations,
        colliders=colliders,
        shapes=shapes,
        tiles=tiles,
        changed=frozenset(t.changed),
        contacts=copy.deepcopy(physics._narrowphase.result),
        pairs=copy.deepcopy(physics._events.step_pairs),
        sleeping=copy.deepcopy(physics._events.sleeping_state()),
        clock=(physics.accumulator, physics.alpha, physics.steps, physics.time,
               physics.last_dt),
        # (what _take_wakes kept: the requests left are the STATIC bodies')
        wake_statics=frozenset(int(e) for e in t.wake_requests if e in t.row_of),
        home=t.home[:n].copy(),
        home_n=t.home_n,
        tile_regions={int(e): tuple(float(v) for v in box)
                      for e, box in t.tile_regions.items()},
    )


def _check(physics: Physics, snap: object) -> np.ndarray:
    """The rows of the snapshot's entities now; ValueError / TypeError if they do not match."""
    if not isinstance(snap, Snapshot):
        raise TypeError(f"snapshot must be a Snapshot (physics.snapshot()), got {snap!r}")
    if snap.format != _FORMAT:
        raise ValueError(f"snapshot format {snap.format!r} is not {_FORMAT}")
    t = physics.table
    if not isinstance(snap.entities, np.ndarray) or snap.entities.ndim != 1:
        raise TypeError("snapshot entities must be a 1-D NumPy array of entity ids")
    _array("entities", snap.entities, np.dtype(np.int64), snap.entities.shape)
    if len(unique_ids(snap.entities)) != len(snap.entities):
        raise _fail("entities", "must not repeat an entity")
    _array("parts", snap.parts, np.dtype(np.bool_), (len(snap.entities), 5))
    saved = [int(e) for e in snap.entities]
    missing = sorted(set(saved) - set(t.row_of))
    extra = sorted(set(t.row_of) - set(saved))
    if missing or extra:
        raise ValueError(
            f"snapshot does not match this world: entities {missing[:10]} are gone and "
            f"{extra[:10]} are new since it was taken (restore needs the same bodies)")
    rows = np.array([t.row_of[e] for e in saved], dtype=np.int64)
    now = np.array([[c is not None for c in t.comps[r]] for r in rows],
                   dtype=np.bool_).reshape(len(rows), 5)
    differ = np.flatnonzero((now != snap.parts).any(axis=1))
    if len(differ):
        raise ValueError(
            f"snapshot does not match this world: entities "
            f"{[saved[i] for i in differ[:10]]} gained or lost a component since it was taken")
    return rows


def restore(physics: Physics, snap: Snapshot) -> None:
    """Put ``snap`` back into ``physics`` (see the module docstring)."""
    physics.sync()  # the world's bodies now: deletions esper deferred, entities made since
    rows = _check(physics, snap)
    checked = _Checked(physics, snap, rows)  # everything, before anything changes
    t = physics.table
    t.permute(rows)  # the snapshot's row order (the next step's rows follow from it)
    rows = np.arange(len(rows), dtype=np.int64)
    t.home[rows] = snap.home
    t.home_n = snap.home_n
    t.reordered = snap.home_n != len(rows) or bool((snap.home != rows).any())
    for i, r in enumerate(rows.tolist()):
        _, _, acc, col, geo = t.comps[r]
        if geo is not None:
            shape, tiles = checked.shapes[i], checked.tiles[i]
            now = geo.shape
            if tiles is not None and isinstance(now, TileMap) and now.shape == tiles.shape:
                # the game's own map (it digs and builds through it): its tiles put back
                for rc in zip(*np.nonzero(now.grid != tiles), strict=True):
                    now[rc] = int(tiles[rc])
            elif now is not shape and not (now == shape):
                geo.shape = shape
        if col is not None:
            saved = checked.colliders[i]
            # a finite mass before the kind, an infinite one after it (ACTIVE): no write
            # passes through infinite mass on a STATIC or PASSIVE collider, which is refused
            order = (_COLLIDER_FIELDS if saved["mass"] == math.inf
                     else ("mass", *(f for f in _COLLIDER_FIELDS if f != "mass")))
            for name in order:
                if getattr(col, name) != saved[name]:
                    setattr(col, name, saved[name])
        if acc is not None and tuple(acc.items()) != checked.accelerations[i]:
            acc.clear()
            for name, value in checked.accelerations[i]:
                acc[name] = value
    t.refresh_tilemaps()
    t.tile_regions.clear()  # (not the restore's own tile writes: the snapshot's changes)
    t.tile_regions.update({e: list(box) for e, box in snap.tile_regions.items()})
    for name in MOTION_COLUMNS:
        getattr(t, name)[rows] = snap.columns[name]
    # the carriers were saved as entities (rows may have moved since)
    carrier = snap.columns["carrier"]
    t.carrier[rows] = [-1 if e < 0 else t.row_of[int(e)] for e in carrier.tolist()]
    t.sleepers = int(np.count_nonzero(t.asleep[: t.n]))
    t.relink_islands()  # (the islands' lists, from their ids)
    t.wake_requests.clear()  # (the state is the snapshot's)
    t.wake_islands.clear()
    t.wake_requests.update(snap.wake_statics)  # (checked: STATIC bodies of the snapshot)
    t.pose_version += 1
    t.static_version += 1  # statics the game moved since are indexed again
    t.static_all = True
    t.sleep_version += 1  # (who is awake: the broadphase learns its rows again)
    t.sleep_log.clear()
    t.changed.clear()
    t.changed.update(snap.changed)
    t.move[rows] = 0.0  # (a sleeper's is 0; an awake body's is the next step's to make)
    physics._events.restore_pairs(copy.deepcopy(snap.pairs), copy.deepcopy(snap.sleeping))
    # one set of last-step rows, as a step leaves them: the events diff against them and the
    # narrowphase's hysteresis reads them
    physics._narrowphase.rows = physics._events._rows
    physics._events.woke(t)  # the sleeping pairs' rows marked from the sleep state
    physics._response.forget_end()
    (physics.accumulator, physics.alpha, physics.steps, physics.time,
     physics.last_dt) = snap.clock


# ------------------------------------------------------------------ checking a snapshot

def _fail(field: str, why: str) -> ValueError:
    return ValueError(f"snapshot {field} {why}")


def _array(field: str, value: object, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` as an array of exactly ``dtype`` and ``shape``; TypeError / ValueError."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"snapshot {field} must be a NumPy array, got {type(value).__name__}")
    if value.dtype != dtype:
        raise TypeError(f"snapshot {field} must be of dtype {dtype}, got {value.dtype}")
    if value.shape != shape:
        raise _fail(field, f"must have shape {shape}, got {value.shape}")
    return value


def _within(field: str, value: np.ndarray, low: float, high: float) -> None:
    """Every entry finite and in [low, high]; ValueError naming the first that is not."""
    bad = ~(np.isfinite(value) & (value >= low) & (value <= high))
    if bad.any():
        first = np.argwhere(bad)[0]
        raise _fail(field, f"must be finite and in [{low:g}, {high:g}], got "
                           f"{value[tuple(first)]!r} at {tuple(int(k) for k in first)}")


#: the dtype of each column of the events' pairs (``snapshot.pairs``, ``sleeping.pairs``)
_PAIR_DTYPES = {"keys": np.int64, "a": np.int64, "b": np.int64, "normal": np.float64,
                "depth": np.float64, "point": np.float64, "sensor": np.bool_,
                "duration": np.float64, "steps": np.int64, "layer_a": np.int64,
                "layer_b": np.int64, "speed": np.float64, "tile": np.int64,
                "tile_kind": np.int64}


def _unique_contacts(field: str, keys: np.ndarray, tiles: np.ndarray, why: str = "") -> None:
    """Every contact (pair key and tile) once; ValueError naming the first held twice."""
    both = np.stack((np.asarray(keys, dtype=np.int64), np.asarray(tiles, dtype=np.int64)),
                    axis=1)
    if len(both) < 2:
        return
    order = np.lexsort((both[:, 1], both[:, 0]))
    twice = np.flatnonzero((np.diff(both[order], axis=0) == 0).all(axis=1))
    if len(twice):
        key, tile = both[order[twice[0]]].tolist()
        raise _fail(field, f"hold the contact of pair {key} (a {key >> 32}, b "
                           f"{key & 0xFFFFFFFF}) and tile {tile} twice {why}".rstrip())


def _entities_in(field: str, value: np.ndarray, known: np.ndarray, allow_none: bool) -> None:
    ok = np.isin(value, known) | ((value == -1) if allow_none else False)
    if not ok.all():
        raise _fail(field, f"names {int(value[~ok][0])}, not an entity of the snapshot")


def _entity_ids(field: str, value: np.ndarray, allow_none: bool) -> None:
    """Entity ids (they may name entities deleted since: their pairs separate next step)."""
    _within(field, np.asarray(value, dtype=np.float64), -1 if allow_none else 0, 2**31 - 1)


def _fresh_shape(field: str, shape: object) -> Shape:
    """A shape rebuilt through its constructor from its public values (a tampered pickle
    is checked like any shape the game makes), or None."""
    if type(shape) is Circle:
        return Circle(shape.radius, shape.offset)
    if type(shape) is Rect:
        return Rect(shape.width, shape.height, shape.offset)
    if type(shape) is OrientedRect:
        return OrientedRect(shape.width, shape.height, shape.angle, shape.offset)
    if type(shape) is Segment:
        return Segment(shape.p1, shape.p2, shape.offset)
    if type(shape) is Polygon:
        return Polygon(shape.points, shape.offset)
    if type(shape) is Compound:
        if not isinstance(shape.shapes, tuple):
            raise TypeError(f"snapshot {field} parts must be a tuple of shapes")
        return Compound([_fresh_shape(field, part) for part in shape.shapes], shape.offset)
    if type(shape) is Mask:
        return Mask(np.array(shape.pixels, dtype=np.bool_), shape.scale, shape.offset)
    if type(shape) is TileMap:
        fresh = TileMap(np.array(shape.grid), shape.tile_size, shape.origin)
        kinds = shape.kinds
        if kinds is not None and not (isinstance(kinds, dict) and all(
                isinstance(k, str) and type(v) is int for k, v in kinds.items())):
            raise TypeError(f"snapshot {field} kinds must map characters to ints")
        fresh._set("kinds", None if kinds is None else dict(kinds))
        return fresh
    raise TypeError(f"snapshot {field} must be a shape, got {type(shape).__name__}")


class _Checked:
    """A snapshot checked against the valid range and the world; ValueError / TypeError
    naming the field if any of it is not. Holds the rebuilt values restore writes."""

    def __init__(self, physics: Physics, snap: Snapshot, rows: np.ndarray) -> None:
        t = physics.table
        n = len(rows)
        entities = snap.entities
        _array("parts", snap.parts, np.dtype(np.bool_), (n, 5))
        cols = snap.columns
        if not isinstance(cols, dict) or set(cols) != set(MOTION_COLUMNS):
            raise _fail("columns", f"must be a dict of {MOTION_COLUMNS}")
        for name in MOTION_COLUMNS:
            table_col = getattr(t, name)
            dtype = np.dtype(np.int64) if name == "carrier" else table_col.dtype  # entities
            _array(f"columns[{name!r}]", cols[name], dtype, (n, *table_col.shape[1:]))
        _within("columns['pos']", cols["pos"], -MAX_COORD, MAX_COORD)
        _within("columns['prev_pos']", cols["prev_pos"], -MAX_COORD, MAX_COORD)
        _within("columns['vel']", cols["vel"], -MAX_SPEED, MAX_SPEED)
        _within("columns['floor_v']", cols["floor_v"], -MAX_SPEED, MAX_SPEED)
        _within("columns['floor_n']", cols["floor_n"], -1.0, 1.0)
        _within("columns['ground']", cols["ground"], 0, 31)
        _entity_ids("columns['floor_entity']", cols["floor_entity"], True)
        _entities_in("columns['carrier']", cols["carrier"], entities, True)
        _within("columns['asleep']", cols["asleep"], 0, 1)
        _within("columns['rest_time']", cols["rest_time"], 0.0, 1e300)
        _within("columns['rest_pos']", cols["rest_pos"], -MAX_COORD, MAX_COORD)
        _entities_in("columns['island']", cols["island"], entities, True)
        if ((cols["island"] >= 0) != (cols["asleep"] == 1)).any():
            raise _fail("columns['island']", "must name an island exactly for the sleepers "
                                              "(columns['asleep'] == 1)")
        moving = np.flatnonzero((cols["asleep"] == 1) & (cols["vel"] != 0.0).any(axis=1))
        if len(moving):
            raise _fail("columns['vel']", f"entity {int(entities[moving[0]])} sleeps with "
                                          f"velocity {tuple(cols['vel'][moving[0]].tolist())}"
                                          f" (a sleeper's is exactly 0)")
        self.accelerations = self._accelerations(snap, n)
        self.colliders = self._colliders(snap, n)
        self.shapes, self.tiles = self._shapes(snap, n)
        if not isinstance(snap.changed, frozenset) or not all(
                type(e) is int for e in snap.changed):
            raise TypeError("snapshot changed must be a frozenset of entity ids")
        wake = getattr(snap, "wake_statics", frozenset())
        if not isinstance(wake, frozenset) or not all(type(e) is int for e in wake):
            raise TypeError(f"snapshot wake_statics must be a frozenset of entity ids, got "
                            f"{wake!r}")
        where = {int(e): i for i, e in enumerate(entities.tolist())}
        for e in sorted(wake):
            i = where.get(e)
            if i is None or self.colliders[i].get("kind", -1) != 0:
                raise _fail("wake_statics", f"entity {e} is not a STATIC body of the snapshot")
        self._home(snap.home, snap.home_n, n)
        self._tile_regions(snap.tile_regions, entities, self.shapes)
        self._contacts(snap.contacts)
        self._pairs(snap.pairs)
        self._sleeping(getattr(snap, "sleeping", None), snap.pairs, entities, cols["asleep"])
        self._clock(snap.clock)

    @staticmethod
    def _tile_regions(regions: object, entities: np.ndarray, shapes: list[Any]) -> None:
        """Each a tile map of the snapshot's, with a box of four finite numbers."""
        if not isinstance(regions, dict):
            raise TypeError(f"snapshot tile_regions must be a dict, got {regions!r}")
        where = {int(e): i for i, e in enumerate(entities.tolist())}
        for e, box in regions.items():
            i = where.get(e) if type(e) is int else None
            if i is None or not isinstance(shapes[i], TileMap):
                raise _fail("tile_regions", f"entity {e!r} is not a tile map of the snapshot")
            if (not isinstance(box, tuple) or len(box) != 4
                    or not all(type(v) is float and math.isfinite(v) for v in box)
                    or box[0] > box[2] or box[1] > box[3]):
                raise _fail("tile_regions", f"the box of entity {e} must be a tuple of four "
                                            f"finite floats (x0, y0, x1, y1), got {box!r}")

    @staticmethod
    def _home(home: object, home_n: object, n: int) -> None:
        """Where each row was after the last step: -1 or a row of the ``home_n`` then, each
        row once."""
        if type(home_n) is not int or not 0 <= home_n <= 2**31:
            raise _fail("home_n", f"must be an int in [0, 2**31], got {home_n!r}")
        _array("home", home, np.dtype(np.int64), (n,))
        _within("home", home, -1, home_n - 1)
        kept = home[home >= 0]
        if len(unique_ids(kept)) != len(kept):
            raise _fail("home", "must name each row of the last step at most once")

    @staticmethod
    def _per_row(field: str, value: object, n: int) -> tuple[Any, ...]:
        if not isinstance(value, tuple) or len(value) != n:
            raise _fail(field, f"must be a tuple of one entry per entity ({n})")
        return value

    def _accelerations(self, snap: Snapshot, n: int) -> list[tuple[Any, ...]]:
        out = []
        for i, items in enumerate(self._per_row("accelerations", snap.accelerations, n)):
            field = f"accelerations[{i}]"
            if (items is None) != (not snap.parts[i, 2]):
                raise _fail(field, "does not match the entity's AccelerationMap")
            if items is None:
                out.append(())
                continue
            if not isinstance(items, tuple) or not all(
                    isinstance(it, tuple) and len(it) == 2 and isinstance(it[0], str)
                    for it in items):
                raise TypeError(f"snapshot {field} must be a tuple of (name, (x, y))")
            acc = AccelerationMap(**dict(items))  # checks names and values, in order
            out.append(tuple(acc.items()))
        return out

    def _colliders(self, snap: Snapshot, n: int) -> list[dict[str, Any]]:
        out = []
        for i, values in enumerate(self._per_row("colliders", snap.colliders, n)):
            field = f"colliders[{i}]"
            if (values is None) != (not snap.parts[i, 3]):
                raise _fail(field, "does not match the entity's Collider")
            if values is None:
                out.append({})
                continue
            if not isinstance(values, tuple) or len(values) != len(_COLLIDER_FIELDS):
                raise _fail(field, f"must be a tuple of {_COLLIDER_FIELDS}")
            saved = dict(zip(_COLLIDER_FIELDS, values, strict=True))
            Collider(**saved)  # checks every field and their combination
            out.append(saved)
        return out

    def _shapes(self, snap: Snapshot, n: int) -> tuple[list[Any], list[Any]]:
        shapes, tiles = [], []
        for i, (shape, grid) in enumerate(zip(self._per_row("shapes", snap.shapes, n),
                                              self._per_row("tiles", snap.tiles, n),
                                              strict=True)):
            if (shape is None) != (not snap.parts[i, 4]):
                raise _fail(f"shapes[{i}]", "does not match the entity's Geometry")
            fresh = None if shape is None else _fresh_shape(f"shapes[{i}]", shape)
            if grid is not None:
                if not isinstance(fresh, TileMap):
                    raise _fail(f"tiles[{i}]", "belongs to a body without a tile map")
                _array(f"tiles[{i}]", grid, fresh.grid.dtype, fresh.shape)
                _within(f"tiles[{i}]", grid, 0, np.iinfo(fresh.grid.dtype).max)
                if not grid.any():
                    raise _fail(f"tiles[{i}]", "must hold at least one solid tile")
            shapes.append(fresh)
            tiles.append(grid)
        return shapes, tiles

    @staticmethod
    def _rows_of(field: str, obj: object, names: tuple[str, ...]) -> int:
        m = len(getattr(obj, "a", ()))
        for name in names:
            col = getattr(obj, name, None)
            if col is not None and (not isinstance(col, np.ndarray) or len(col) != m):
                raise _fail(f"{field}.{name}", f"must be an array of {m} rows")
        return m

    def _contacts(self, c: object) -> None:
        if type(c) is not ContactSet:
            raise TypeError(f"snapshot contacts must be a ContactSet, got {type(c).__name__}")
        m = self._rows_of("contacts", c, ("a", "b", "normal", "depth", "point", "toi",
                                          "sensor", "speed", "layer_a", "layer_b", "tile",
                                          "tile_kind"))
        _array("contacts.a", c.a, np.dtype(np.int64), (m,))
        _array("contacts.b", c.b, np.dtype(np.int64), (m,))
        _array("contacts.normal", c.normal, np.dtype(np.float64), (m, 2))
        _array("contacts.point", c.point, np.dtype(np.float64), (m, 2))
        _array("contacts.sensor", c.sensor, np.dtype(np.bool_), (m,))
        _entity_ids("contacts.a", c.a, False)
        _entity_ids("contacts.b", c.b, False)
        _within("contacts.normal", c.normal, -1.0, 1.0)
        _within("contacts.point", c.point, -2 * MAX_COORD, 2 * MAX_COORD)
        for name in ("depth", "speed"):
            _within(f"contacts.{name}", np.asarray(getattr(c, name), dtype=np.float64),
                    -2 * MAX_COORD, 2 * MAX_COORD)
        toi = np.asarray(c.toi, dtype=np.float64)
        if not ((toi >= 0.0) & ((toi <= 1.0) | (toi == np.inf))).all():
            raise _fail("contacts.toi", "must be in [0, 1] or inf")

    def _pairs(self, p: object, field: str = "pairs") -> None:
        from ..systems.events import _Pairs
        if type(p) is not _Pairs:
            raise TypeError(f"snapshot {field} must be the events' pairs, got "
                            f"{type(p).__name__}")
        m = len(p.keys) if isinstance(p.keys, np.ndarray) else -1
        for name in _Pairs.__slots__:
            col = getattr(p, name)
            if not isinstance(col, np.ndarray) or len(col) != m:
                raise _fail(f"{field}.{name}", f"must be an array of {max(m, 0)} rows")
        for name, dtype in _PAIR_DTYPES.items():  # (every column, as the rows take them:
            col = getattr(p, name)                 # a wrong one is refused here, not later)
            _array(f"{field}.{name}", col, np.dtype(dtype),
                   (m, 2) if name in ("normal", "point") else (m,))
        _entity_ids(f"{field}.a", p.a, False)
        _entity_ids(f"{field}.b", p.b, False)
        if m and not (np.diff(p.keys) >= 0).all():
            raise _fail(f"{field}.keys", "must be sorted")
        _within(f"{field}.normal", np.asarray(p.normal, dtype=np.float64), -1.0, 1.0)
        _within(f"{field}.point", np.asarray(p.point, dtype=np.float64),
                -2 * MAX_COORD, 2 * MAX_COORD)
        _within(f"{field}.duration", np.asarray(p.duration, dtype=np.float64), 0.0, 1e15)
        _within(f"{field}.steps", np.asarray(p.steps, dtype=np.float64), 0, 2**62)
        for name in ("depth", "speed"):
            _within(f"{field}.{name}", np.asarray(getattr(p, name), dtype=np.float64),
                    -2 * MAX_COORD, 2 * MAX_COORD)

    def _sleeping(self, s: object, pairs: Any, entities: np.ndarray,
                  asleep: np.ndarray) -> None:
        """The sleeping contacts: their pairs as ``pairs`` are checked, each one's clock and
        step count when it fell asleep within the clock now; each side a body of the
        snapshot (``entities``), asleep or STATIC, one at least asleep (``asleep``); and
        every contact (pair and tile) held once, in ``pairs`` or in the sleeping contacts."""
        _unique_contacts("pairs.keys", pairs.keys, pairs.tile)
        from ..systems.events import SleepingState
        if s is None:
            return
        if type(s) is not SleepingState:
            raise TypeError(f"snapshot sleeping must be the events' SleepingState, got "
                            f"{type(s).__name__}")
        self._pairs(s.pairs, "sleeping.pairs")
        m = len(s.pairs.keys)
        if not isinstance(s.clock, float) or not 0.0 <= s.clock <= 1e15:
            raise _fail("sleeping.clock", f"must be a float in [0, 1e15], got {s.clock!r}")
        if type(s.count) is not int or not 0 <= s.count <= 2**62:
            raise _fail("sleeping.count", f"must be an int in [0, 2**62], got {s.count!r}")
        _array("sleeping.entered", s.entered, np.dtype(np.float64), (m,))
        _within("sleeping.entered", s.entered, 0.0, s.clock)
        _array("sleeping.entered_steps", s.entered_steps, np.dtype(np.int64), (m,))
        _within("sleeping.entered_steps", s.entered_steps.astype(np.float64), 0, s.count)
        _unique_contacts("sleeping.pairs.keys", s.pairs.keys, s.pairs.tile)
        _unique_contacts("sleeping.pairs.keys", np.concatenate((pairs.keys, s.pairs.keys)),
                         np.concatenate((pairs.tile, s.pairs.tile)),
                         "(a pair is asleep or in the last step's pairs)")
        if not m:
            return
        order = np.argsort(entities, kind="stable")
        known = entities[order]
        still = np.zeros(len(entities), dtype=np.int8)  # 1 STATIC, 2 asleep
        still[[c.get("kind", -1) == 0 for c in self.colliders]] = 1
        still[asleep == 1] = 2
        side = []
        for name in ("a", "b"):
            e = getattr(s.pairs, name)
            at = np.minimum(np.searchsorted(known, e), len(known) - 1) if len(known) else e * 0
            found = (known[at] == e) if len(known) else np.zeros(m, dtype=bool)
            if not found.all():
                bad = int(e[np.flatnonzero(~found)[0]])
                raise _fail(f"sleeping.pairs.{name}", f"names entity {bad}, not a body of "
                                                      f"the snapshot")
            side.append(still[order[at]])
        ok = (side[0] > 0) & (side[1] > 0) & ((side[0] == 2) | (side[1] == 2))
        if not ok.all():
            q = int(np.flatnonzero(~ok)[0])
            raise _fail("sleeping.pairs", f"pair ({int(s.pairs.a[q])}, {int(s.pairs.b[q])}) "
                                          f"is not asleep (each side asleep or STATIC, one "
                                          f"at least asleep)")

    @staticmethod
    def _clock(clock: object) -> None:
        if not isinstance(clock, tuple) or len(clock) != 5:
            raise TypeError("snapshot clock must be (accumulator, alpha, steps, time, last_dt)")
        accumulator, alpha, steps, time, last_dt = clock
        if type(steps) is not int or steps < 0:
            raise _fail("clock steps", f"must be an int >= 0, got {steps!r}")
        for name, value, high in (("accumulator", accumulator, 1e4 * MAX_DT),
                                  ("alpha", alpha, 1.0), ("time", time, 1e15),
                                  ("last_dt", last_dt, MAX_DT)):
            if not isinstance(value, float) or not (0.0 <= value <= high):
                raise _fail(f"clock {name}", f"must be a float in [0, {high:g}], got {value!r}")
