"""State as arrays: every body's entity, position, velocity, sleep flag and kind as NumPy arrays,
and batch writes of positions and velocities.

Guarantees:
- ``read`` gives fresh arrays (copies: writing them changes nothing) for every adopted body, in
  ascending entity order, after adopting what the game created or deleted since the last step
  (as ``Physics.sync``; no step runs). Fields: ``"entity"`` (int64), ``"position"`` and
  ``"velocity"`` (``(n, 2)`` float64), ``"sleeping"`` (bool, as ``Physics.is_sleeping``: a
  sleeper the game wrote still reads True until the next step wakes it) and ``"kind"`` (int64,
  the `ColliderKind` numbers: STATIC 0, PASSIVE 1, ACTIVE 2; a body without a Collider reads
  ACTIVE, as it moves). O(n) NumPy, no Python loop over the bodies.
- ``write`` checks everything before it writes anything (all or nothing): the entities are a
  1-D integer array of distinct bodies of this physics, each value array has shape ``(k, 2)``,
  holds real numbers, finite and within the limits the components check (``limits.MAX_COORD``
  for positions, ``limits.MAX_SPEED`` for velocities), and a velocity goes only to a body with
  a Velocity component; a fault is a ``TypeError`` / ``ValueError`` naming the field, the entity
  and the value, and leaves the world unchanged.
- a write is bit for bit what ``Position.xy = (x, y)`` and ``Velocity.xy = (vx, vy)`` on each
  entity's components would do: the same values in the body table (which the adopted components
  are views onto, so the game reads them back), the same wake requests (a sleeper wakes when it
  is moved or given a velocity other than (0, 0), not when it is written what it has), the same
  rest-time resets, re-indexing of static boxes and notes for the response.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..components import STATIC
from ..limits import MAX_COORD, MAX_SPEED

if TYPE_CHECKING:
    from .body_table import BodyTable

#: The fields ``read`` knows, in the order the docs list them.
FIELDS = ("entity", "position", "velocity", "sleeping", "kind")

_STATIC = int(STATIC)


class StateArrays:
    """The array face of one body table (a `Physics` holds one): ``read`` and ``write``."""

    def __init__(self, table: BodyTable) -> None:
        self.table = table
        #: ``(layout_version, n, order)``: the rows in ascending entity order (None: the rows
        #: are in that order), kept while no row is added, removed or moved
        self._order: tuple[int, int, np.ndarray | None] = (-1, -1, None)

    def order(self) -> np.ndarray | None:
        """The rows in ascending entity order, or None when rows ``0 .. n-1`` already are."""
        t = self.table
        version, n, order = self._order
        if version == t.layout_version and n == t.n:
            return order
        e = t.entity[: t.n]
        order = None if bool((e[1:] > e[:-1]).all()) else np.argsort(e, kind="stable")
        self._order = (t.layout_version, t.n, order)
        return order

    def read(self, fields: tuple[object, ...]) -> np.ndarray | tuple[np.ndarray, ...]:
        """The arrays of ``fields`` (see the module docstring); the table must be synced."""
        names = _check_fields(fields)
        t = self.table
        n = t.n
        order = self.order()
        out = []
        for name in names:
            if name == "entity":
                column = t.entity[:n]
            elif name == "position":
                column = t.pos[:n]
            elif name == "velocity":
                column = t.vel[:n]
            elif name == "sleeping":
                column = t.asleep[:n] != 0
            else:
                column = t.kind[:n].astype(np.int64)
            if order is not None:
                out.append(column[order])  # (a fancy index copies)
            elif name in ("sleeping", "kind"):
                out.append(column)  # (already made afresh above)
            else:
                out.append(column.copy())
        return out[0] if len(out) == 1 else tuple(out)

    def write(self, entities: object, position: object = None, velocity: object = None) -> None:
        """Write ``position`` and / or ``velocity`` (``(k, 2)``) of ``entities`` (see the module
        docstring); the table must be synced."""
        if position is None and velocity is None:
            raise ValueError("set_arrays needs position=... or velocity=... (or both)")
        t = self.table
        ents = _check_entities(entities)
        k = len(ents)
        pos = None if position is None else _check_values("position", position, ents,
                                                          MAX_COORD, "Position")
        vel = None if velocity is None else _check_values("velocity", velocity, ents,
                                                          MAX_SPEED, "Velocity")
        rows = self._rows(ents)
        if vel is not None and len(t.has[1]) != t.n:  # some body has no Velocity component
            has_velocity = t.has[1]
            for e in ents.tolist():
                if e not in has_velocity:
                    raise ValueError(
                        f"set_arrays velocity: entity {e} has no Velocity component (a body "
                        f"moved by pushes and gravity only); add one to give it a velocity")
        if not k:
            return
        # ---- every check passed: the writes, as the components' setters and hooks make them
        if pos is not None:
            _write_positions(t, rows, ents, pos)
        if vel is not None:
            _write_velocities(t, rows, ents, vel)

    def _rows(self, ents: np.ndarray) -> np.ndarray:
        """The rows of ``ents`` (distinct, bodies of this table); ValueError naming the first
        entity that is not a body, or one given twice."""
        t = self.table
        n = t.n
        order = self.order()
        table_entities = t.entity[:n]
        ordered = table_entities if order is None else table_entities[order]
        at = np.searchsorted(ordered, ents)
        found = at < n
        found[found] = ordered[at[found]] == ents[found]
        if not found.all():
            e = int(ents[np.flatnonzero(~found)[0]])
            raise ValueError(
                f"set_arrays entities: entity {e} is not a body of this Physics (a body has a "
                f"Position and a Velocity or a Collider in this physics' esper world)")
        if len(ents) > 1:
            seen = np.zeros(n, dtype=np.bool_)
            seen[at] = True
            if np.count_nonzero(seen) != len(ents):  # an entity twice: name the first
                s = np.sort(at)
                e = int(ordered[s[np.flatnonzero(s[1:] == s[:-1])[0]]])
                raise ValueError(f"set_arrays entities: entity {e} is given more than once")
        return at if order is None else order[at]


def _check_fields(fields: tuple[object, ...]) -> tuple[str, ...]:
    if not fields:
        raise ValueError(f"arrays needs at least one field of {FIELDS}")
    for f in fields:
        if not isinstance(f, str):
            raise TypeError(f"arrays fields must be str, one of {FIELDS}, got {f!r}")
        if f not in FIELDS:
            raise ValueError(f"arrays field {f!r} is unknown: the fields are {FIELDS}")
    return fields  # type: ignore[return-value]


def _check_entities(entities: object) -> np.ndarray:
    """``entities`` as a 1-D int64 array; TypeError / ValueError if it is not one of ints."""
    try:
        a = np.asarray(entities)
    except (TypeError, ValueError) as exc:  # ragged nesting and the like
        raise TypeError(f"set_arrays entities must be a 1-D array of ints, got {entities!r}: "
                        f"{exc}") from None
    if a.dtype.kind not in "iu" or a.dtype == np.bool_:
        if a.size == 0 and a.ndim == 1:  # [] reads as float64: no entity, nothing to write
            return np.zeros(0, dtype=np.int64)
        raise TypeError(f"set_arrays entities must be ints (entity ids), got an array of "
                        f"{a.dtype}: {_short(a)}")
    if a.ndim != 1:
        raise ValueError(f"set_arrays entities must be 1-D, got shape {a.shape}")
    if a.dtype.kind == "u" and a.size and int(a.max()) > np.iinfo(np.int64).max:
        e = int(a[np.argmax(a)])
        raise ValueError(f"set_arrays entities: entity {e} is not a body of this Physics")
    return a.astype(np.int64, copy=False)


def _check_values(field: str, values: object, ents: np.ndarray, limit: float,
                  component: str) -> np.ndarray:
    """``values`` as a ``(k, 2)`` float64 array, each coordinate finite and within ``limit``
    of 0 (as ``component`` checks it); TypeError / ValueError naming ``field`` and the
    entity and value at fault."""
    k = len(ents)
    try:
        a = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"set_arrays {field} must be a ({k}, 2) array of numbers, got "
                        f"{_short(values)}: {exc}") from None
    if a.dtype == np.bool_ or a.dtype.kind not in "iuf":
        if a.dtype.kind == "O":  # Python numbers of several kinds, or other objects
            try:
                a = a.astype(np.float64)
            except (TypeError, ValueError, OverflowError):
                raise TypeError(f"set_arrays {field} must hold numbers, got "
                                f"{_short(values)}") from None
            if any(isinstance(v, bool) for v in np.asarray(values, dtype=object).ravel()):
                raise TypeError(f"set_arrays {field} must hold numbers, not bools")
        elif not (a.size == 0 and a.dtype.kind == "f"):
            raise TypeError(f"set_arrays {field} must hold real numbers, got an array of "
                            f"{a.dtype}: {_short(values)}")
    if a.shape != (k, 2):
        if a.size == 0 and k == 0:
            return np.zeros((0, 2), dtype=np.float64)
        raise ValueError(f"set_arrays {field} must have shape ({k}, 2) (one (x, y) per entity), "
                         f"got {a.shape}")
    if a.dtype.kind in "iu":
        bad_int = np.abs(a) > limit if a.dtype.kind == "i" else a > limit
        # (ints are compared before they become floats, as the components do)
        bad = bad_int[:, 0] | bad_int[:, 1]
        f = a.astype(np.float64)
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            f = a.astype(np.float64)
        ok = np.abs(f) <= limit  # (NaN fails the comparison)
        bad = ~(ok[:, 0] & ok[:, 1])
        if a.dtype.itemsize > 8:  # a long double beyond float64's range became inf
            finite = np.isfinite(a)
            bad |= ~(finite[:, 0] & finite[:, 1])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"set_arrays {field} of entity {int(ents[i])} must be finite and in "
            f"[{-limit:g}, {limit:g}] on each axis (as {component}), got "
            f"({a[i, 0].item()!r}, {a[i, 1].item()!r})")
    return np.ascontiguousarray(f)


def _write_positions(t: BodyTable, rows: np.ndarray, ents: np.ndarray, pos: np.ndarray) -> None:
    """``Position.xy = ...`` for each row: the values, then `BodyTable.position_written`'s
    notes."""
    t.pos[rows] = pos
    t.pose_version += 1
    asleep = t.asleep[rows] != 0
    still = asleep | (t.kind[rows] == _STATIC)  # (a sleeper or a static body)
    # a write wakes unless it is the position a sleeper or a static body already has
    # (their prev_pos is their position)
    prev = t.prev_pos[rows]
    moved = (pos[:, 0] != prev[:, 0]) | (pos[:, 1] != prev[:, 1]) | ~still
    t.rest_time[rows[moved]] = 0.0
    if t.sleepers:
        t.wake_requests.update(ents[moved].tolist())
    t.touched.update(ents.tolist())
    indexed = still & (t.collides[rows] != 0)
    if indexed.any():
        t.static_version += 1
        t.static_dirty.update(ents[indexed].tolist())


def _write_velocities(t: BodyTable, rows: np.ndarray, ents: np.ndarray,
                      vel: np.ndarray) -> None:
    """``Velocity.xy = ...`` for each row: the values, then `BodyTable.velocity_written`'s:
    a velocity other than (0, 0) wakes a sleeper and makes an awake body rest afresh."""
    t.vel[rows] = vel
    moving = (vel[:, 0] != 0.0) | (vel[:, 1] != 0.0)
    asleep = t.asleep[rows] != 0
    t.wake_requests.update(ents[moving & asleep].tolist())
    t.rest_time[rows[moving & ~asleep]] = 0.0


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + "..." + text[-10:]
