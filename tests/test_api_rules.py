"""Rules of the public face that hold across its calls.

Shows: a world cleared with ``esper.clear_database()`` (a level restart; esper then reuses
entity ids) is forgotten without events: no ``separate`` for the old level's pairs names an
entity of the new one, and the new level's pairs touch afresh. A body with a Collider and no
Geometry collides with nothing: the physics warns once, naming it. Every per-body query
(``touching``, ``contacts_of``, ``ground``, ``interpolated_position``) raises the same
``KeyError`` for an entity that is no body. Every shape is in the ``ecsphys`` namespace.
Infinite mass is an ACTIVE collider's only (a moving platform): STATIC or PASSIVE with it is
refused, in the constructor and in a write, changing nothing.
"""

from __future__ import annotations

import math
import warnings

import esper
import numpy as np
import pytest

import ecsphys as ep

DT = 1 / 60


class Log:
    """Every event of a Physics, by its registry and by esper's bus, as (event, a, b)."""

    def __init__(self, physics: ep.Physics) -> None:
        self.events: list[tuple[str, int, int]] = []
        self.contacts: list[ep.events.BodyContact] = []
        physics.on_touch(lambda c: self._add("touch", c))
        physics.on_separate(lambda c: self._add("separate", c))
        self._bus = lambda c: self._add("bus separate", c)  # esper keeps a weak reference
        esper.set_handler("on_separate", self._bus)

    def _add(self, name: str, contact: ep.events.BodyContact) -> None:
        self.events.append((name, contact.a, contact.b))
        self.contacts.append(contact)

    def take(self) -> list[tuple[str, int, int]]:
        out, self.events = self.events, []
        self.contacts = []
        return out


def floor_and_ball(x: float = 0.0) -> tuple[int, int]:
    floor = esper.create_entity(ep.Position(x, 0), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.Rect(10, 1)))
    ball = esper.create_entity(ep.Position(x, 1.0), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(0.5)))
    return floor, ball


# ------------------------------------------------------------------ a cleared world


def test_a_cleared_world_sends_no_separate_naming_the_new_levels_entities(world):
    physics = ep.Physics(fixed_dt=DT)
    log = Log(physics)
    floor, ball = floor_and_ball()
    old_ball_pos = esper.component_for_entity(ball, ep.Position)
    esper.process(DT)
    assert log.take() == [("touch", floor, ball)]
    esper.clear_database()  # the level restarts: esper counts entity ids from 1 again
    # the new level: the same ids, far apart from each other, and a third body
    wall = esper.create_entity(ep.Position(50, 0), ep.Collider(ep.STATIC),
                               ep.Geometry(ep.Rect(1, 1)))
    hero = esper.create_entity(ep.Position(-50, 0), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(0.5)))
    esper.create_entity(ep.Position(0, 50), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(1, 1)))
    assert (wall, hero) == (floor, ball)  # the ids were reused
    for _ in range(5):
        esper.process(DT)
    assert log.take() == []
    assert physics.contacts() == [] and physics.touching(hero) == []
    assert physics.body_count == 3
    assert old_ball_pos._table is None and old_ball_pos.y == pytest.approx(1.0)


def test_a_cleared_world_touches_the_new_level_afresh(world):
    physics = ep.Physics(fixed_dt=DT)
    log = Log(physics)
    floor, ball = floor_and_ball()
    for _ in range(30):
        esper.process(DT)
    assert log.take() == [("touch", floor, ball)]
    esper.clear_database()
    assert floor_and_ball(x=20.0) == (floor, ball)  # the same ids touch again, elsewhere
    esper.process(DT)
    assert log.take() == [("touch", floor, ball)]  # a fresh touch, not separate + touch
    (contact,) = physics.contacts()
    assert contact.steps == 0 and contact.duration == 0.0
    assert contact.point[0] == pytest.approx(20.0)


def test_a_cleared_world_with_fewer_entities_sends_no_separate(world):
    """Ids of the old level that the new one does not reuse separate silently too."""
    physics = ep.Physics(fixed_dt=DT)
    log = Log(physics)
    floor, ball = floor_and_ball()
    esper.process(DT)
    assert log.take() == [("touch", floor, ball)]
    esper.clear_database()
    lone = esper.create_entity(ep.Position(0, 0), ep.Velocity(1, 0), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(0.5)))
    assert lone == floor
    esper.process(DT)
    esper.process(DT)
    assert log.take() == []
    assert physics.body_count == 1
    assert esper.component_for_entity(lone, ep.Position).x == pytest.approx(2 * DT)


def test_a_cleared_world_drops_the_old_levels_undelivered_events(world):
    """A handler raised in the old level's last step: the events it kept from the handlers
    after it name old entities, and are dropped with the old level."""
    physics = ep.Physics(fixed_dt=DT)

    @physics.on_touch
    def boom(contact):
        raise RuntimeError("boom")

    log = Log(physics)
    floor, ball = floor_and_ball()
    with pytest.raises(RuntimeError, match="boom"):
        esper.process(DT)
    assert log.take() == []  # the touch waits for the next process
    physics.remove_handler(boom)
    esper.clear_database()
    esper.create_entity(ep.Position(50, 0), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(1, 1)))
    esper.process(DT)
    assert log.take() == []


def test_advancing_from_another_world_is_no_clear(world):
    """``physics.advance`` called while another esper world is current reads its own world
    (another world's entity counter is no clear of this one)."""
    physics = ep.Physics(fixed_dt=DT)
    log = Log(physics)
    floor, ball = floor_and_ball()
    esper.process(DT)
    assert log.take() == [("touch", floor, ball)]
    esper.switch_world(f"{world}-elsewhere")
    try:
        assert physics.advance(DT) == 1
    finally:
        esper.switch_world(world)
        esper.delete_world(f"{world}-elsewhere")
    assert log.take() == [] and physics.touching(ball) == [floor]
    assert physics.contacts()[0].steps == 1


def test_deleting_every_entity_without_a_clear_still_separates(world):
    """Not a clear: esper does not reuse the ids of deleted entities, so their pairs end with
    ``separate`` as always."""
    physics = ep.Physics(fixed_dt=DT)
    log = Log(physics)
    floor, ball = floor_and_ball()
    esper.process(DT)
    log.take()
    for e in (floor, ball):
        esper.delete_entity(e)
    floor_and_ball(x=20.0)
    esper.process(DT)
    events = log.take()
    assert ("separate", floor, ball) in events and ("bus separate", floor, ball) in events
    assert physics.body_count == 2


# ------------------------------------------------------------------ a collider without a shape


def test_a_collider_without_geometry_warns_once_naming_the_entity(world):
    physics = ep.Physics(fixed_dt=DT)
    wall = esper.create_entity(ep.Position(2, 0), ep.Collider(ep.STATIC),
                               ep.Geometry(ep.Rect(1, 4)))
    ghost = esper.create_entity(ep.Position(0, 0), ep.Velocity(1, 0), ep.Collider(ep.ACTIVE))
    with pytest.warns(ep.MissingGeometryWarning) as record:
        esper.process(DT)
    assert len(record) == 1
    message = str(record[0].message)
    assert f"entity {ghost}" in message and "Collider" in message and "no Geometry" in message
    assert issubclass(ep.MissingGeometryWarning, UserWarning)
    assert record[0].filename == __file__  # points at the game's esper.process
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(10):
            esper.process(DT)
        esper.add_component(ghost, ep.AccelerationMap(gravity=(0, -1)))  # re-adopted
        physics.step()  # the other way in
        esper.add_component(ghost, ep.Geometry(ep.Circle(0.25)))  # the game adds it later
        for _ in range(90):
            esper.process(DT)
    assert physics.touching(ghost) == [wall]  # now it collides
    assert esper.component_for_entity(ghost, ep.Position).x == pytest.approx(1.25, abs=0.02)


def test_no_warning_for_bodies_with_both_or_without_a_collider(world):
    physics = ep.Physics(fixed_dt=DT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        floor_and_ball()
        esper.create_entity(ep.Position(0, 5), ep.Velocity(1, 0))  # moves, never collides
        esper.create_entity(ep.Velocity(1, 0), ep.Collider(ep.ACTIVE))  # no body: no Position
        esper.process(DT)
        physics.step()
    assert physics.body_count == 3


def test_a_collider_without_geometry_warns_again_for_a_new_entity(world):
    ep.Physics(fixed_dt=DT)
    first = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.PASSIVE))
    with pytest.warns(ep.MissingGeometryWarning, match=f"entity {first} "):
        esper.process(DT)
    esper.delete_entity(first)
    second = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.PASSIVE))
    with pytest.warns(ep.MissingGeometryWarning, match=f"entity {second} ") as record:
        esper.process(DT)
    assert len(record) == 1
    # a Geometry taken away later leaves the body inert again: it warns
    third = esper.create_entity(ep.Position(9, 0), ep.Collider(ep.PASSIVE),
                                ep.Geometry(ep.Circle(1)))
    esper.process(DT)
    esper.remove_component(third, ep.Geometry)
    with pytest.warns(ep.MissingGeometryWarning, match=f"entity {third} "):
        esper.process(DT)


# ------------------------------------------------------------------ an entity that is no body


@pytest.mark.parametrize("query", ["touching", "contacts_of", "ground", "interpolated_position"])
def test_every_per_body_query_refuses_an_entity_that_is_no_body(world, query):
    physics = ep.Physics(fixed_dt=DT)
    floor, ball = floor_and_ball()
    marker = esper.create_entity(ep.Position(0, 0))  # an entity, but no body
    pending = esper.create_entity(ep.Position(0, 3), ep.Velocity(0, 0))  # adopted at process
    ask = getattr(physics, query)
    for entity in (12345, marker, pending):
        with pytest.raises(KeyError, match=f"entity {entity} is not a body of this Physics"):
            ask(entity)
    esper.process(DT)
    ask(ball)  # a body: answers
    ask(pending)
    esper.delete_entity(ball)
    esper.process(DT)
    with pytest.raises(KeyError, match=f"entity {ball} is not a body"):
        ask(ball)
    assert physics.touching(floor) == [] and physics.contacts_of(floor) == []


# ------------------------------------------------------------------ the namespace


def test_every_shape_is_in_the_package_namespace():
    import ecsphys.mask

    assert ep.Mask is ecsphys.mask.Mask
    shapes = {name for name in ep.__all__
              if isinstance(getattr(ep, name), type) and issubclass(getattr(ep, name), ep.Shape)}
    assert shapes == {"Shape", "Circle", "Rect", "OrientedRect", "Segment", "Polygon",
                      "Compound", "Mask", "TileMap"}


# ------------------------------------------------------------------ infinite mass


@pytest.mark.parametrize("kind", [ep.STATIC, ep.PASSIVE, "static", "Passive"])
@pytest.mark.parametrize("mass", [math.inf, float("inf"), np.float64(np.inf)])
def test_infinite_mass_is_refused_for_static_and_passive_colliders(kind, mass):
    with pytest.raises(ValueError, match=r"Collider\.mass .*inf.*ACTIVE") as info:
        ep.Collider(kind, mass=mass)
    assert "platform" in str(info.value)
    assert ep.Collider(ep.ACTIVE, mass=mass).mass == math.inf  # a moving platform
    assert ep.Collider(kind, mass=1e12).mass == 1e12


def test_a_write_giving_infinite_mass_to_a_static_or_passive_collider_changes_nothing(world):
    physics = ep.Physics(fixed_dt=DT)
    floor, crate = floor_and_ball()
    esper.add_component(crate, ep.Collider(ep.PASSIVE))
    lift = esper.create_entity(ep.Position(3, 1), ep.Velocity(0, 1),
                               ep.Collider(ep.ACTIVE, mass=math.inf), ep.Geometry(ep.Rect(2, 1)))
    loose = ep.Collider(ep.STATIC)  # not adopted: the same rule
    esper.process(DT)
    t = physics.table
    cols = {e: esper.component_for_entity(e, ep.Collider) for e in (floor, crate, lift)}

    def state():
        return ([t.column(c).tolist() for c in ("kind", "mass", "inv_mass")], set(t.changed),
                t.static_version, t.layout_version, [c._fields() for c in cols.values()],
                loose._fields())

    before = state()
    for col in (cols[floor], cols[crate], loose):
        with pytest.raises(ValueError, match=r"Collider\.mass .*inf.*ACTIVE"):
            col.mass = math.inf
    for kind in (ep.STATIC, ep.PASSIVE, "static"):
        with pytest.raises(ValueError, match=r"Collider\.kind .*inf.*ACTIVE.*finite mass first"):
            cols[lift].kind = kind
    assert state() == before
    # the way that is taken: a finite mass first, then the kind
    cols[lift].mass = 50.0
    cols[lift].kind = ep.PASSIVE
    assert t.inv_mass[t.row_of[lift]] == pytest.approx(1 / 50)
    esper.process(DT)


def test_a_snapshot_restores_a_collider_across_infinite_mass(world):
    """Restoring writes a collider's mass and kind in the order that never passes through
    infinite mass on a STATIC or PASSIVE collider."""
    physics = ep.Physics(fixed_dt=DT)
    crate = esper.create_entity(ep.Position(0, 0), ep.Velocity(0, 0), ep.Collider(ep.PASSIVE),
                                ep.Geometry(ep.Rect(1, 1)))
    lift = esper.create_entity(ep.Position(5, 0), ep.Velocity(0, 1),
                               ep.Collider(ep.ACTIVE, mass=math.inf), ep.Geometry(ep.Rect(2, 1)))
    esper.process(DT)
    saved = physics.snapshot()
    crate_col = esper.component_for_entity(crate, ep.Collider)
    lift_col = esper.component_for_entity(lift, ep.Collider)
    crate_col.kind = ep.ACTIVE  # the crate becomes a platform...
    crate_col.mass = math.inf
    lift_col.mass = 2.0  # ...and the lift a crate
    lift_col.kind = ep.PASSIVE
    physics.restore(saved)
    assert (crate_col.kind, crate_col.mass) == (ep.PASSIVE, 1.0)
    assert (lift_col.kind, lift_col.mass) == (ep.ACTIVE, math.inf)
