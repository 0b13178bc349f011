"""Adoption follows changes: a sync looks only at the entities esper added, changed or deleted
since the last one, and sees them exactly as a sync that reads the whole world does.

The oracle is the same Physics forced to read the whole world at every step (``_full``):
both worlds get the same random creates, deletes (deferred and immediate), component adds,
replacements and removals and position writes, and must step to the same bits with the same
events.
"""

from __future__ import annotations

import random
import warnings

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys.systems.adopt import MissingGeometryWarning, WatchedSet

KINDS = (ep.ACTIVE, ep.ACTIVE, ep.PASSIVE, ep.STATIC)


def _shape(rng: random.Random) -> ep.Geometry:
    if rng.random() < 0.5:
        return ep.Geometry(ep.Circle(rng.uniform(0.2, 0.8)))
    return ep.Geometry(ep.Rect(rng.uniform(0.3, 1.5), rng.uniform(0.3, 1.5)))


def _body(rng: random.Random) -> list[object]:
    comps: list[object] = [ep.Position(rng.uniform(-20, 20), rng.uniform(-5, 20))]
    if rng.random() < 0.85:
        comps.append(ep.Velocity(rng.uniform(-3, 3), rng.uniform(-3, 3)))
    if rng.random() < 0.5:
        comps.append(ep.AccelerationMap(gravity=(0.0, -9.8)))
    if rng.random() < 0.9:
        comps.append(ep.Collider(rng.choice(KINDS)))
        comps.append(_shape(rng))
    return comps


def _op(rng: random.Random) -> tuple:
    """One random change, as data both worlds replay the same way."""
    r = rng.random()
    if r < 0.25:
        return ("create", _seed(rng))
    if r < 0.40:
        return ("delete", rng.random(), rng.random() < 0.3)
    if r < 0.55:
        return ("remove", rng.random(), rng.choice(
            (ep.Velocity, ep.AccelerationMap, ep.Collider, ep.Geometry, ep.Position)))
    if r < 0.75:
        return ("add", rng.random(), rng.choice(("vel", "acc", "col", "geo", "pos")), _seed(rng))
    if r < 0.90:
        return ("write", rng.random(), rng.uniform(-20, 20), rng.uniform(-5, 20))
    return ("plain", _seed(rng))  # an entity that is no body


def _seed(rng: random.Random) -> int:
    return rng.randrange(2**31)


def _apply(op: tuple) -> None:
    alive = sorted(e for e in esper._entities if e not in esper._dead_entities)
    kind = op[0]
    if kind == "create":
        esper.create_entity(*_body(random.Random(op[1])))
    elif kind == "plain":
        esper.create_entity(ep.Velocity(1.0, 0.0))
    elif not alive:
        return
    elif kind == "delete":
        esper.delete_entity(alive[int(op[1] * len(alive))], immediate=op[2])
    elif kind == "remove":
        esper.try_remove_component(alive[int(op[1] * len(alive))], op[2])
    elif kind == "add":
        e = alive[int(op[1] * len(alive))]
        rng = random.Random(op[3])
        new = {"vel": lambda: ep.Velocity(rng.uniform(-3, 3), 0.0),
               "acc": lambda: ep.AccelerationMap(wind=(1.0, 0.0)),
               "col": lambda: ep.Collider(rng.choice(KINDS)),
               "geo": lambda: _shape(rng),
               "pos": lambda: ep.Position(rng.uniform(-20, 20), 5.0)}[op[2]]()
        esper.add_component(e, new)
    elif kind == "write":
        e = alive[int(op[1] * len(alive))]
        pos = esper.try_component(e, ep.Position)
        if pos is not None:
            pos.xy = (op[2], op[3])


def _world(name: str) -> tuple[ep.Physics, list[tuple]]:
    if name in esper.list_worlds():
        esper.switch_world("default")
        esper.delete_world(name)
    esper.switch_world(name)
    physics = ep.Physics(fixed_dt=1 / 60)
    events: list[tuple] = []
    physics.on_touch(lambda c: events.append(("touch", c.a, c.b)))
    physics.on_separate(lambda c: events.append(("separate", c.a, c.b)))
    esper.create_entity(ep.Position(0, -8), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(60, 2)))
    return physics, events


def _state(physics: ep.Physics) -> tuple:
    t = physics.table
    n = t.n
    return (t.entity[:n].tobytes(), t.pos[:n].tobytes(), t.vel[:n].tobytes(),
            t.kind[:n].tobytes(), t.shape_hash[:n].tobytes())


@pytest.mark.parametrize("seed", [1, 2])
def test_random_changes_step_to_the_same_bits_as_reading_the_whole_world(world, seed):
    rng = random.Random(seed)
    ops = [_op(rng) for _ in range(5000)]
    runs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingGeometryWarning)
        for full in (False, True):
            physics, events = _world(f"{world}-{full}")
            states = []
            looked = 0
            for i, op in enumerate(ops):
                _apply(op)
                if i % 10 == 9:
                    if full:
                        physics._adopt._full = True
                    physics.step()
                    looked += physics._adopt.looked
                    states.append(_state(physics))
            runs[full] = (states, events, looked, physics)
    (inc, inc_events, inc_looked, inc_ph), (ref, ref_events, ref_looked, _) = \
        runs[False], runs[True]
    assert len(inc) == len(ref) == 500
    for step, (a, b) in enumerate(zip(inc, ref, strict=True)):
        assert a == b, f"step {step} differs"
    assert inc_events == ref_events
    assert len(inc_events) > 50  # the scene collides
    assert inc_ph._adopt.full_syncs == 1  # the first sync only
    assert ref_looked > 5 * inc_looked  # the incremental syncs looked at the changes only
    # the survivors are those of the esper world, with the components it holds
    esper.switch_world(f"{world}-False")
    t = inc_ph.table
    bodies = {e for e, c in esper._entities.items()
              if ep.Position in c and (ep.Velocity in c or ep.Collider in c)}
    assert set(t.row_of) == bodies
    for e, row in t.row_of.items():
        held = esper._entities[e]
        assert t.comps[row] == tuple(held.get(k) for k in (
            ep.Position, ep.Velocity, ep.AccelerationMap, ep.Collider, ep.Geometry))
        assert tuple(t.pos[row]) == held[ep.Position].xy


def test_a_sync_after_one_create_and_one_delete_looks_at_two_entities(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    ids = [esper.create_entity(ep.Position(i * 2.0, 0), ep.Velocity(0, 0),
                               ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
           for i in range(2000)]
    physics.step()
    assert physics._adopt.looked == 2000
    physics.step()
    assert physics._adopt.looked == 0  # nothing changed: nothing looked at
    new = esper.create_entity(ep.Position(-50, 0), ep.Velocity(1, 0), ep.Collider(ep.ACTIVE),
                              ep.Geometry(ep.Circle(0.2)))
    esper.delete_entity(ids[700])
    physics.step()
    assert physics._adopt.looked == 2
    assert physics.body_count == 2000
    assert new in physics.table and ids[700] not in physics.table
    assert physics._adopt.full_syncs == 1


def test_removing_the_last_component_of_a_type_and_adding_one_again_is_seen(world):
    """esper drops a type's set when its last entity goes and makes a plain one later."""
    physics = ep.Physics(fixed_dt=1 / 60)
    a = esper.create_entity(ep.Position(0, 0), ep.Velocity(0, 0))
    physics.step()
    assert a in physics.table
    esper.remove_component(a, ep.Velocity)  # the world has no Velocity left
    assert ep.Velocity not in esper._components
    esper.add_component(a, ep.Velocity(2, 0))  # a plain set again
    b = esper.create_entity(ep.Position(5, 0), ep.Velocity(0, 1))
    physics.step()
    assert a in physics.table and b in physics.table
    assert esper.component_for_entity(a, ep.Position).x == pytest.approx(2 / 60)
    assert isinstance(esper._components[ep.Velocity], WatchedSet)
    esper.delete_entity(a, immediate=True)
    esper.delete_entity(b, immediate=True)
    physics.step()
    assert physics.body_count == 0


def test_a_replaced_component_is_taken_and_a_bare_shape_added_later_is_refused(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    e = esper.create_entity(ep.Position(0, 0), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                            ep.Geometry(ep.Circle(0.5)))
    physics.step()
    esper.add_component(e, ep.Velocity(6, 0))  # replaces the adopted one
    physics.step()
    assert esper.component_for_entity(e, ep.Position).x == pytest.approx(0.1)
    plain = esper.create_entity(ep.Position(3, 3), ep.Velocity(0, 0))
    physics.step()
    esper.add_component(plain, ep.Circle(0.5))  # a shape as a component of its own
    with pytest.raises(TypeError, match=f"entity {plain} has the shape"):
        physics.step()
    with pytest.raises(TypeError, match=f"entity {plain}"):  # looked at again
        physics.step()
    esper.remove_component(plain, ep.Circle)
    physics.step()
    assert plain in physics.table


def test_removing_the_physics_gives_esper_plain_sets_back(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    e = esper.create_entity(ep.Position(0, 0), ep.Velocity(1, 0))
    physics.step()
    assert type(esper._components[ep.Position]) is WatchedSet
    physics.remove()
    assert type(esper._components[ep.Position]) is set
    assert esper._components[ep.Position] == {e}
    again = ep.Physics(fixed_dt=1 / 60)  # a new one reads the world afresh
    again.step()
    assert e in again.table


def test_a_cleared_world_then_one_create_per_step_is_incremental(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    for i in range(50):
        esper.create_entity(ep.Position(i, 0), ep.Velocity(0, 0))
    physics.step()
    esper.clear_database()
    physics.step()
    assert physics.body_count == 0
    made = []
    for i in range(5):
        made.append(esper.create_entity(ep.Position(i, 0), ep.Velocity(0, 0)))
        physics.step()
        assert physics._adopt.looked == 1
    assert sorted(physics.table.row_of) == made
    assert physics._adopt.full_syncs == 2  # the first sync and the one after the clear
    assert np.all(physics.table.entity[:5] == np.array(made))


def test_spawns_into_a_resting_pile_are_pushed_out_as_by_a_full_overlap_pass(world):
    """After a clean step only new, moved or changed rows are looked at for overlaps: the
    same bits as looking at every pair (``forget_end`` before each step)."""
    runs = []
    for full in (False, True):
        name = f"{world}-pile-{full}"
        esper.switch_world(name)
        physics = ep.Physics(fixed_dt=1 / 60)
        esper.create_entity(ep.Position(0, -1), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(30, 2)))
        rng = random.Random(5)
        for i in range(60):
            esper.create_entity(ep.Position(rng.uniform(-8, 8), 1 + i * 0.4), ep.Velocity(0, 0),
                                ep.AccelerationMap(gravity=(0.0, -9.8)),
                                ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
        states = []
        pushed = 0
        for step in range(240):
            if 120 <= step < 200 and step % 5 == 0:  # into the settled pile, overlapping
                x = rng.uniform(-6, 6)
                e = esper.create_entity(ep.Position(x, 1.0), ep.Velocity(0, 0),
                                        ep.AccelerationMap(gravity=(0.0, -9.8)),
                                        ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
                if step % 10 == 0:
                    esper.component_for_entity(e - 3, ep.Position).xy = (x + 0.3, 1.2)
            if full:
                physics._response.forget_end()
            physics.step()
            pushed += physics._response.pushed_apart
            states.append(_state(physics))
        runs.append((states, pushed, physics))
    (inc, inc_pushed, inc_ph), (ref, ref_pushed, _) = runs
    for step, (a, b) in enumerate(zip(inc, ref, strict=True)):
        assert a == b, f"step {step} differs"
    assert ref_pushed == 240 and 16 <= inc_pushed < 200
    # nothing was left overlapping: the pile pushed every spawn out
    assert inc_ph._narrowphase.deepest < 0.05  # a resting pile presses about 0.01 deep


def _mixed_bodies(count: int) -> list[tuple]:
    rng = random.Random(9)
    tiles = ep.TileMap(["#..#", "####"], 1.0)
    out = []
    for i in range(count):
        kind = rng.choice(KINDS)
        col = ep.Collider(kind, layer=1 + i % 3, mass=1.0 + i % 4, restitution=0.25,
                          one_way=(0.0, 1.0) if i % 7 == 0 else None)
        shape = (tiles if i == 5 else ep.Circle(0.25 + i % 3 / 10) if i % 2
                 else ep.Rect(1.0, 0.5 + i % 5 / 10))
        out.append((ep.Position(rng.uniform(-9, 9), rng.uniform(-9, 9)),
                    None if i % 5 == 0 else ep.Velocity(1.0, -2.0),
                    ep.AccelerationMap(g=(0.0, -9.8)) if i % 3 == 0 else None,
                    None if i % 11 == 0 else col,
                    None if i % 13 == 0 else ep.Geometry(shape)))
    return out


def test_adopting_many_at_once_gives_the_rows_of_adopting_one_at_a_time():
    from ecsphys.state.body_table import _COLLIDER_COLUMNS, BodyTable
    bulk, single = BodyTable(), BodyTable()
    first = _mixed_bodies(3)
    for e, comps in enumerate(first):  # a table that holds rows already
        bulk.add(100 + e, comps)
    for e, comps in enumerate(_mixed_bodies(3)):
        single.add(100 + e, comps)
    entities = list(range(200, 300))
    bulk.add_many(entities, _mixed_bodies(100))
    for e, comps in zip(entities, _mixed_bodies(100), strict=True):
        single.add(e, comps)
    n = single.n
    assert bulk.n == n == 103 and bulk.capacity == single.capacity
    for name in ("pos", "prev_pos", "vel", "acc", "move", "lo", "hi", "entity", "collides",
                 "shape_code", "leaf0", "nleaf", "shape_hash", "ground", "floor_entity",
                 "carrier", *_COLLIDER_COLUMNS):
        assert getattr(bulk, name)[:n].tobytes() == getattr(single, name)[:n].tobytes(), name
    assert bulk.row_of == single.row_of
    assert bulk.layout_version == single.layout_version
    assert bulk.static_version == single.static_version
    assert bulk.static_dirty == single.static_dirty and bulk.touched == single.touched
    assert bulk.has == single.has and bulk.tilemaps.keys() == single.tilemaps.keys()
    row = bulk.row_of[233]
    assert bulk.comps[row][0]._row == row and bulk.comps[row][0]._table is bulk
    with pytest.raises(ValueError, match="entity 250 is already"):
        bulk.add_many([300, 250], _mixed_bodies(2))
    assert bulk.n == 103 and 300 not in bulk.row_of


def test_the_dynamic_layout_is_the_colliding_movers_in_entity_order():
    """After removals (a swap moves the last row into the hole) the rows leave entity order;
    the broadphase's dynamic ids must follow entities, and the layer shortcut hold only when
    every layer meets every mask."""
    from ecsphys.broadphase.stage import dynamic_layout
    from ecsphys.state.body_table import BodyTable
    t = BodyTable()
    bodies = _mixed_bodies(60)
    for e, comps in enumerate(bodies):
        t.add(e, comps)
    for e in (3, 17, 40, 8):
        t.remove(e)
    n = t.n
    dyn, all_pass = dynamic_layout(t)
    want = [r for r in range(n) if t.collides[r] and t.kind[r] != ep.STATIC]
    want.sort(key=lambda r: t.entity[r])
    assert dyn.tolist() == want
    assert not (np.diff(t.entity[:n]) > 0).all()  # the rows were out of order
    solid = t.collides[:n]
    common = np.bitwise_and.reduce(t.mask[:n][solid])
    assert all_pass == bool(((t.layer[:n][solid] & common) != 0).all())
    assert all_pass  # every mask is ALL here
    row = int(np.flatnonzero(solid)[0])
    t.mask[row] = 2  # one body ignores layer 1
    assert dynamic_layout(t)[1] is False
    empty = BodyTable()
    assert dynamic_layout(empty)[0].tolist() == [] and dynamic_layout(empty)[1] is True



def test_idle_says_exactly_when_a_sync_has_work_and_the_step_adopts_after_each_change(world):
    """``AdoptSystem.idle`` (the test `Physics` repeats inline before it syncs) is False after
    each kind of change the game makes and True again once a step synced it, and that step
    adopted the change: a create, a component removed and one added, a deferred delete, an
    immediate delete, a world cleared."""
    physics = ep.Physics(fixed_dt=1 / 60)
    ad = physics._adopt
    rows = physics.table.row_of
    assert not ad.idle  # the first sync reads the whole world
    physics.step()
    assert ad.idle
    e = esper.create_entity(ep.Position(0, 0), ep.Velocity(1, 0))
    assert not ad.idle
    physics.step()
    assert ad.idle and e in rows and ad.looked == 1
    physics.step()
    assert ad.looked == 0  # (a step with nothing to adopt says so)
    esper.remove_component(e, ep.Velocity)  # a Position alone: not a body
    assert not ad.idle
    physics.step()
    assert ad.idle and e not in rows
    esper.add_component(e, ep.Velocity(1, 0))
    assert not ad.idle
    physics.step()
    assert ad.idle and e in rows
    esper.delete_entity(e)  # deferred: esper's dead entities, cleared by the step
    physics.step()
    assert ad.idle and e not in rows
    f = esper.create_entity(ep.Position(0, 0), ep.Velocity(1, 0))
    physics.step()
    esper.delete_entity(f, immediate=True)
    assert not ad.idle
    physics.step()
    assert ad.idle and f not in rows
    g = esper.create_entity(ep.Position(0, 0), ep.Velocity(1, 0))
    physics.step()
    assert g in rows
    esper.clear_database()
    assert not ad.idle
    physics.step()
    assert ad.idle and physics.table.n == 0
