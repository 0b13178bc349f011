"""Saving and restoring the whole physics state of a world: rewind, replays, rollback netcode.

Guarantees:
- ``take(physics)`` returns a `Snapshot`: a plain value (NumPy arrays, tuples, numbers and
  shape values; it pickles) holding everything a step reads that a step or a game changes:
  every adopted body's position, velocity, previous position, named accelerations, collider
  settings and shape (a tile map's tiles too), what it stood on, the touching pairs with
  their durations and contacts (events and hysteresis), the entities whose pairs restart,
  and the clock (accumulator, alpha, steps, time).
- ``restore(physics, snapshot)`` puts all of it back, so stepping again with the same inputs
  gives bit-identical positions, velocities and event sequences. It needs the same entities
  adopted with the same kinds of components (Position, Velocity, AccelerationMap, Collider,
  Geometry) as when the snapshot was taken; otherwise it raises ``ValueError`` naming the
  entities that differ and changes nothing. Events a raising handler left undelivered are
  dropped.
- A snapshot is a copy: later steps never change it, and restoring it twice works.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .body_table import MOTION_COLUMNS
from .shapes import Shape
from .tilemap import TileMap

if TYPE_CHECKING:
    from .physics import Physics

_COLLIDER_FIELDS = ("kind", "layer", "mask", "sensor", "mass", "restitution", "slide",
                    "friction", "stop_on_slope", "one_way")
_FORMAT = 1


@dataclass(frozen=True, eq=False)
class Snapshot:
    """A saved physics state (see `ecsphys.snapshot`); make one with ``physics.snapshot()``."""

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

    def __repr__(self) -> str:
        return (f"Snapshot(bodies={len(self.entities)}, steps={self.clock[2]}, "
                f"touching={len(self.contacts)})")


def take(physics: Physics) -> Snapshot:
    """The state of ``physics`` now (see the module docstring)."""
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
        pairs=copy.deepcopy(physics._events._pairs),
        clock=(physics.accumulator, physics.alpha, physics.steps, physics.time,
               physics.last_dt),
    )


def _check(physics: Physics, snap: object) -> np.ndarray:
    """The rows of the snapshot's entities now; ValueError / TypeError if they do not match."""
    if not isinstance(snap, Snapshot):
        raise TypeError(f"snapshot must be a Snapshot (physics.snapshot()), got {snap!r}")
    if snap.format != _FORMAT:
        raise ValueError(f"snapshot format {snap.format!r} is not {_FORMAT}")
    t = physics.table
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
    rows = _check(physics, snap)
    t = physics.table
    for i, r in enumerate(rows.tolist()):
        _, _, acc, col, geo = t.comps[r]
        if geo is not None:
            shape, tiles = snap.shapes[i], snap.tiles[i]
            now = geo.shape
            if tiles is not None and isinstance(now, TileMap) and now.shape == tiles.shape:
                # the game's own map (it digs and builds through it): its tiles put back
                for rc in zip(*np.nonzero(now.grid != tiles), strict=True):
                    now[rc] = int(tiles[rc])
            elif now is not shape and not (now == shape):
                geo.shape = shape
        if col is not None:
            saved = dict(zip(_COLLIDER_FIELDS, snap.colliders[i], strict=True))
            # a finite mass before the kind, an infinite one after it (ACTIVE): no write
            # passes through infinite mass on a STATIC or PASSIVE collider, which is refused
            order = (_COLLIDER_FIELDS if saved["mass"] == math.inf
                     else ("mass", *(f for f in _COLLIDER_FIELDS if f != "mass")))
            for name in order:
                if getattr(col, name) != saved[name]:
                    setattr(col, name, saved[name])
        if acc is not None and tuple(acc.items()) != snap.accelerations[i]:
            acc.clear()
            for name, value in snap.accelerations[i] or ():
                acc[name] = value
    t.refresh_tilemaps()
    for name in MOTION_COLUMNS:
        getattr(t, name)[rows] = snap.columns[name]
    # the carriers were saved as entities (rows may have moved since)
    carrier = snap.columns["carrier"]
    t.carrier[rows] = [-1 if e < 0 else t.row_of[int(e)] for e in carrier.tolist()]
    t.pose_version += 1
    t.static_version += 1  # statics the game moved since are indexed again
    t.changed.clear()
    t.changed.update(snap.changed)
    physics._narrowphase.result = copy.deepcopy(snap.contacts)
    physics._events.restore_pairs(copy.deepcopy(snap.pairs))
    physics._response.forget_end()
    (physics.accumulator, physics.alpha, physics.steps, physics.time,
     physics.last_dt) = snap.clock
