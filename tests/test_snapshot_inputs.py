"""Snapshots are untrusted input: restore checks everything first and changes nothing when it
refuses; a snapshot taken after a handler deleted or made entities holds the world the next
step will see.

Shows: a NaN, infinite or out-of-range value anywhere in a snapshot (positions, velocities,
accelerations, collider settings, shapes, tiles, contacts, pair histories, the clock), a
wrong dtype, length or type, is refused with a ValueError / TypeError naming the field,
before anything changes (before: a NaN position was taken and the next step never returned,
and a snapshot refused part way left the world half restored); hypothesis tampers with
every field.
"""

from __future__ import annotations

import dataclasses
import math
import pickle

import esper
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ecsphys as ep
from ecsphys.state.body_table import MOTION_COLUMNS

DT = 1 / 60


def _scene():
    physics = ep.Physics(fixed_dt=DT)
    tiles = ep.TileMap("#....#\n######", 1.0)
    esper.create_entity(ep.Position(-3, -4), ep.Collider(ep.STATIC), ep.Geometry(tiles))
    esper.create_entity(ep.Position(0, -0.5), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.Rect(40, 1)))
    balls = [esper.create_entity(ep.Position(x, 1.0), ep.Velocity(1.0, 0.0),
                                 ep.AccelerationMap(gravity=(0, -10)),
                                 ep.Collider(ep.ACTIVE, restitution=0.2),
                                 ep.Geometry(ep.Circle(0.5)))
             for x in (-2.0, 0.0, 2.0)]
    for _ in range(20):
        esper.process(DT)
    return physics, tiles, balls


def _state(physics, tiles):
    """Everything a refused restore must leave as it was."""
    t = physics.table
    cols = tuple(getattr(t, name)[: t.n].copy() for name in MOTION_COLUMNS)
    comps = [(None if acc is None else tuple(acc.items()),
              None if col is None else (col.kind, col.mass, col.restitution, col.friction),
              None if geo is None else geo.shape)
             for _, _, acc, col, geo in t.comps[: t.n]]
    return cols, comps, tiles.grid.copy(), physics.steps, physics.time, len(physics.contacts())


def _same(a, b):
    assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0], strict=True))
    assert a[1:] == b[1:] if not isinstance(a[2], np.ndarray) else (
        a[1] == b[1] and np.array_equal(a[2], b[2]) and a[3:] == b[3:])


def _with_column(snap, name, value):
    columns = dict(snap.columns)
    columns[name] = value
    return dataclasses.replace(snap, columns=columns)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 1e300])
@pytest.mark.parametrize("column", ["pos", "prev_pos", "vel", "floor_v", "floor_n"])
def test_a_non_finite_or_out_of_range_column_is_refused_and_nothing_changes(world, column,
                                                                               bad):
    physics, tiles, balls = _scene()
    snap = physics.snapshot()
    tampered = snap.columns[column].copy()
    tampered[-1, 0] = bad
    before = _state(physics, tiles)
    with pytest.raises(ValueError, match=f"columns\\['{column}'\\]"):
        physics.restore(_with_column(snap, column, tampered))
    _same(before, _state(physics, tiles))
    esper.process(DT)  # and the next step returns (before: it spun for ever on a NaN)
    assert np.isfinite(physics.table.pos[: physics.table.n]).all()


def test_a_snapshot_refused_part_way_changes_nothing(world):
    """The tile map and first collider would be restored before the last collider is read:
    the bad value at the end must keep them as they are now."""
    physics, tiles, balls = _scene()
    snap = physics.snapshot()
    tiles[0, 2] = 1  # build a tile and change a collider: restore would put both back
    esper.component_for_entity(balls[0], ep.Collider).restitution = 0.9
    esper.process(DT)
    colliders = list(snap.colliders)
    colliders[-1] = (*colliders[-1][:5], math.nan, *colliders[-1][6:])  # restitution
    before = _state(physics, tiles)
    with pytest.raises(ValueError, match="restitution"):
        physics.restore(dataclasses.replace(snap, colliders=tuple(colliders)))
    _same(before, _state(physics, tiles))
    assert tiles[0, 2] == 1
    assert esper.component_for_entity(balls[0], ep.Collider).restitution == 0.9


def test_a_tampered_shape_is_rebuilt_and_refused(world):
    physics, tiles, balls = _scene()
    snap = physics.snapshot()
    shape = pickle.loads(pickle.dumps(snap.shapes[-1]))
    object.__setattr__(shape, "radius", math.nan)  # what a tampered pickle can hold
    shapes = (*snap.shapes[:-1], shape)
    before = _state(physics, tiles)
    with pytest.raises(ValueError, match="radius"):
        physics.restore(dataclasses.replace(snap, shapes=shapes))
    _same(before, _state(physics, tiles))


@pytest.mark.parametrize("field, value, error", [
    ("entities", np.array([1, 2], dtype=np.int64), ValueError),
    ("parts", np.ones((2, 5), dtype=np.bool_), ValueError),
    ("parts", "parts", TypeError),
    ("columns", {"pos": np.zeros((5, 2))}, ValueError),
    ("accelerations", (), ValueError),
    ("colliders", None, ValueError),
    ("shapes", (ep.Circle(1.0),), ValueError),
    ("changed", frozenset({"x"}), TypeError),
    ("contacts", None, TypeError),
    ("pairs", [], TypeError),
    ("clock", (0.0, 0.0, 3, math.nan, DT), ValueError),
    ("clock", (0.0, 2.0, 3, 1.0, DT), ValueError),
    ("clock", (0.0, 0.0, -1, 1.0, DT), ValueError),
    ("clock", None, TypeError),
])
def test_wrong_types_and_lengths_are_refused_naming_the_field(world, field, value, error):
    physics, tiles, balls = _scene()
    snap = physics.snapshot()
    before = _state(physics, tiles)
    with pytest.raises(error):
        physics.restore(dataclasses.replace(snap, **{field: value}))
    _same(before, _state(physics, tiles))


def test_wrong_dtypes_are_refused(world):
    physics, tiles, balls = _scene()
    snap = physics.snapshot()
    with pytest.raises(TypeError, match="columns\\['pos'\\].*dtype"):
        physics.restore(_with_column(snap, "pos", snap.columns["pos"].astype(np.float32)))
    with pytest.raises(TypeError, match="columns\\['vel'\\]"):
        physics.restore(_with_column(snap, "vel", snap.columns["vel"].tolist()))
    with pytest.raises(ValueError, match="carrier"):
        bad = snap.columns["carrier"].copy()
        bad[0] = 12345
        physics.restore(_with_column(snap, "carrier", bad))


def test_tampered_contacts_and_tiles_are_refused(world):
    physics, tiles, balls = _scene()
    snap = physics.snapshot()
    assert len(snap.contacts.a)
    contacts = dataclasses.replace(snap.contacts, normal=np.full_like(snap.contacts.normal,
                                                                      math.nan))
    with pytest.raises(ValueError, match="contacts.normal"):
        physics.restore(dataclasses.replace(snap, contacts=contacts))
    grids = [g if g is None else np.full_like(g, -3) for g in snap.tiles]
    with pytest.raises(ValueError, match="tiles"):
        physics.restore(dataclasses.replace(snap, tiles=tuple(grids)))
    physics.restore(snap)  # the untampered one still restores


# ------------------------------------------------------------------ hypothesis tampering

_HOSTILE = st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e12, 1e12, 0.0, -0.0,
                            2**63, -1])


@settings(max_examples=150)
@given(column=st.sampled_from(MOTION_COLUMNS), row=st.integers(0, 4), col=st.integers(0, 1),
       value=_HOSTILE)
def test_any_tampered_value_is_refused_or_restored_into_a_valid_world(column, row, col,
                                                                      value):
    esper.switch_world(f"snap-fuzz-{column}-{row}-{col}-{value!r}")
    esper.clear_database()
    try:
        physics, tiles, balls = _scene()
        snap = physics.snapshot()
        arr = snap.columns[column].copy()
        index = (row, col) if arr.ndim == 2 else (row,)
        try:
            arr[index] = value
        except (OverflowError, ValueError):
            return  # not representable in this column's dtype: nothing to restore
        before = _state(physics, tiles)
        try:
            physics.restore(_with_column(snap, column, arr))
        except (ValueError, TypeError) as e:
            assert "snapshot" in str(e)
            _same(before, _state(physics, tiles))
        for _ in range(3):
            esper.process(DT)
        t = physics.table
        assert np.isfinite(t.pos[: t.n]).all() and np.isfinite(t.vel[: t.n]).all()
    finally:
        esper.switch_world("default")


# ------------------------------------------------------------------ pending creates and deletes

def test_a_snapshot_after_a_handler_deleted_and_made_entities_holds_the_next_steps_world(
        world):
    physics = ep.Physics(fixed_dt=DT)
    esper.create_entity(ep.Position(0, -0.5), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(40, 1)))
    ball = esper.create_entity(ep.Position(0, 0.6), ep.Velocity(0, -1),
                               ep.AccelerationMap(gravity=(0, -10)),
                               ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
    made = []

    @physics.on_touch
    def replace(contact):
        if ball in (contact.a, contact.b) and not made:
            esper.delete_entity(ball)  # esper defers this
            made.append(esper.create_entity(
                ep.Position(5, 2), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                ep.Geometry(ep.Circle(0.5))))

    for _ in range(10):
        esper.process(DT)
        if made:
            break
    assert made
    snap = physics.snapshot()
    saved = set(snap.entities.tolist())
    assert ball not in saved and made[0] in saved
    esper.process(DT)
    physics.restore(snap)  # the world the snapshot describes is the one the step saw


_WRONG = {np.dtype(np.int64): np.float64, np.dtype(np.float64): np.float32,
          np.dtype(np.bool_): np.int8}


@pytest.mark.parametrize("where", ["pairs", "sleeping.pairs"])
def test_a_pair_column_of_the_wrong_dtype_is_refused_before_anything_changes(world, where):
    """Every column of the touching pairs and of the sleeping pairs is checked for its dtype
    before anything changes (before: a tile or layer column of floats passed the checks and
    the restore failed half way, after the positions were put back)."""
    from ecsphys.systems.events import _Pairs

    physics, tiles, balls = _scene()
    for e in balls[1:]:  # stopped, they come to rest and sleep: their pairs go to the store
        esper.component_for_entity(e, ep.Velocity).xy = (0.0, 0.0)
    for _ in range(60):
        esper.process(DT)
    snap = physics.snapshot()
    assert len(snap.pairs.keys) and len(snap.sleeping.pairs.keys)
    tiles[0, 2] = 1  # the world moves on: a refused restore must leave it so
    esper.component_for_entity(balls[0], ep.Velocity).xy = (3.0, 2.0)
    esper.process(DT)
    before = _state(physics, tiles)
    for name in _Pairs.__slots__:
        source = snap.pairs if where == "pairs" else snap.sleeping.pairs
        col = getattr(source, name)
        bad = _Pairs(*(getattr(source, n).astype(_WRONG[col.dtype]) if n == name
                       else getattr(source, n) for n in _Pairs.__slots__))
        tampered = (dataclasses.replace(snap, pairs=bad) if where == "pairs" else
                    dataclasses.replace(snap, sleeping=type(snap.sleeping)(
                        bad, snap.sleeping.entered, snap.sleeping.entered_steps,
                        snap.sleeping.clock, snap.sleeping.count)))
        with pytest.raises(TypeError, match=f"{where}\\.{name}.*dtype"):
            physics.restore(tampered)
        _same(before, _state(physics, tiles))
    physics.restore(snap)  # the snapshot itself restores
    assert tiles[0, 2] == 0
