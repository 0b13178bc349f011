"""Physics: integration, the fixed-step accumulator, component views, worlds, bad input."""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

import ecsphys as ep


def body(x=0.0, y=0.0, vx=0.0, vy=0.0, kind=ep.ACTIVE, **acc):
    comps = [ep.Position(x, y), ep.Velocity(vx, vy), ep.Collider(kind), ep.Geometry(ep.Circle(0.5))]
    if acc:
        comps.append(ep.AccelerationMap(**acc))
    return esper.create_entity(*comps)


def test_projectile_matches_closed_form(world):
    dt, g, n = 1 / 60, -9.8, 90
    physics = ep.Physics(fixed_dt=dt)
    e = body(1.0, 2.0, 3.0, 4.0, gravity=(0, g))
    for _ in range(n):
        esper.process(dt)
    pos = esper.component_for_entity(e, ep.Position)
    vel = esper.component_for_entity(e, ep.Velocity)
    assert physics.steps == n
    # Semi-implicit Euler, summed exactly: y_n = y0 + vy0 n dt + g dt^2 n (n + 1) / 2.
    assert pos.x == pytest.approx(1.0 + 3.0 * n * dt, abs=1e-9)
    assert pos.y == pytest.approx(2.0 + 4.0 * n * dt + g * dt * dt * n * (n + 1) / 2, abs=1e-9)
    assert vel.y == pytest.approx(4.0 + g * n * dt, abs=1e-9)
    # ...and the continuous parabola within the scheme's O(dt) error.
    t = n * dt
    assert pos.y == pytest.approx(2.0 + 4.0 * t + g * t * t / 2, abs=abs(g) * t * dt)


def test_changing_and_deleting_a_named_acceleration_changes_motion_next_step(world):
    ep.Physics(fixed_dt=0.1)
    e = body(gravity=(0, -10), wind=(2, 0))
    vel = esper.component_for_entity(e, ep.Velocity)
    acc = esper.component_for_entity(e, ep.AccelerationMap)
    esper.process(0.1)
    assert vel.xy == pytest.approx((0.2, -1.0))
    acc["wind"] = (-2, 0)
    esper.process(0.1)
    assert vel.xy == pytest.approx((0.0, -2.0))
    del acc["wind"]
    del acc["gravity"]
    esper.process(0.1)
    assert vel.xy == pytest.approx((0.0, -2.0))
    acc["thrust"] = (0, 30)
    esper.process(0.1)
    assert vel.xy == pytest.approx((0.0, 1.0))


def test_static_bodies_never_move(world):
    ep.Physics(fixed_dt=0.1)
    e = body(5, 5, 10, 10, kind=ep.STATIC, gravity=(0, -10))
    for _ in range(10):
        esper.process(0.1)
    assert esper.component_for_entity(e, ep.Position).xy == (5.0, 5.0)


def test_passive_bodies_fall_under_their_own_gravity(world):
    ep.Physics(fixed_dt=0.1)
    e = body(0, 10, kind=ep.PASSIVE, gravity=(0, -10))
    esper.process(0.1)
    assert esper.component_for_entity(e, ep.Position).y == pytest.approx(10 - 0.1)


@pytest.mark.parametrize(
    ("frames", "expected_steps"),
    [([1 / 30] * 10, 20), ([1 / 144] * 144, 60), ([0.005, 0.02, 0.013, 0.05, 0.0, 0.031], 7)],
)
def test_accumulator_runs_the_right_number_of_steps(world, frames, expected_steps):
    physics = ep.Physics(fixed_dt=1 / 60)
    total = 0.0
    for dt in frames:
        esper.process(dt)
        total += dt
        assert 0.0 <= physics.alpha < 1.0
        assert physics.steps == int(math.floor(total * 60 + 1e-6))
        assert physics.alpha == pytest.approx(total * 60 - physics.steps, abs=1e-6)
    assert physics.steps == expected_steps


def test_step_cap_drops_the_excess_time(world):
    physics = ep.Physics(fixed_dt=1 / 60, max_steps_per_frame=3)
    esper.process(1.0)  # a one-second stall
    assert physics.steps == 3
    assert 0.0 <= physics.alpha < 1.0
    esper.process(1 / 60)
    assert physics.steps == 4


def test_variable_step_runs_once_per_frame_with_frame_dt(world):
    physics = ep.Physics(fixed_dt=None)
    e = body(vx=1.0)
    for dt in (0.01, 0.1, 0.05):
        esper.process(dt)
    assert physics.steps == 3 and physics.alpha == 0.0
    assert esper.component_for_entity(e, ep.Position).x == pytest.approx(0.16)


def test_interpolated_position_lies_between_steps(world):
    physics = ep.Physics(fixed_dt=0.1)
    e = body(vx=1.0)
    esper.process(0.25)  # two steps, a half step left over
    assert physics.alpha == pytest.approx(0.5)
    assert physics.interpolated_position(e) == pytest.approx((0.15, 0.0))
    ents, xy = physics.interpolated_positions()
    assert list(ents) == [e] and xy[0] == pytest.approx((0.15, 0.0))


def test_views_read_and_write_through_the_table(world):
    ep.Physics(fixed_dt=0.1)
    e = body(vx=1.0)
    pos = esper.component_for_entity(e, ep.Position)
    vel = esper.component_for_entity(e, ep.Velocity)
    esper.process(0.1)
    assert pos._table is not None  # adopted: a view
    assert pos.x == pytest.approx(0.1)
    pos.x = 10.0  # a teleport, seen by the next step
    vel.y = 2.0
    esper.process(0.1)
    assert pos.xy == pytest.approx((10.1, 0.2))
    with pytest.raises(ValueError, match=r"Position\.x must be finite"):
        pos.x = math.nan
    assert pos.xy == pytest.approx((10.1, 0.2))


def test_deleted_entity_component_keeps_its_last_values(world):
    ep.Physics(fixed_dt=0.1)
    e = body(vx=1.0)
    pos = esper.component_for_entity(e, ep.Position)
    esper.process(0.1)
    esper.delete_entity(e)
    esper.process(0.1)
    assert pos._table is None
    assert pos.xy == pytest.approx((0.1, 0.0))
    pos.x = 3.0  # holds its own values again
    assert pos.x == 3.0


def test_removed_component_detaches_and_readded_entity_resumes(world):
    physics = ep.Physics(fixed_dt=0.1)
    e = body(vx=1.0)
    esper.process(0.1)
    vel = esper.remove_component(e, ep.Velocity)
    esper.process(0.1)  # no Velocity: at rest, but still a body (it has a Collider)
    assert vel._table is None and vel.xy == (1.0, 0.0)
    assert esper.component_for_entity(e, ep.Position).x == pytest.approx(0.1)
    esper.add_component(e, ep.Velocity(0, 5))
    esper.process(0.1)
    assert esper.component_for_entity(e, ep.Position).xy == pytest.approx((0.1, 0.5))
    assert physics.body_count == 1


def test_thousand_entities_delete_every_other_rest_correct(world):
    physics = ep.Physics(fixed_dt=0.1)
    ents = [body(i, -i, vx=i % 7, vy=1.0) for i in range(1000)]
    esper.process(0.1)
    for e in ents[::2]:
        esper.delete_entity(e)
    esper.process(0.1)
    assert physics.body_count == 500
    for i, e in enumerate(ents):
        if i % 2:
            p = esper.component_for_entity(e, ep.Position)
            assert p.xy == pytest.approx((i + 0.2 * (i % 7), -i + 0.2))
    # rows are dense and each adopted component points at its own entity's row
    t = physics.table
    assert sorted(t.entity[: t.n]) == sorted(ents[1::2])
    for e in ents[1::2]:
        assert esper.component_for_entity(e, ep.Position)._row == t.row_of[e]


def test_entities_without_velocity_or_collider_are_not_adopted(world):
    physics = ep.Physics(fixed_dt=0.1)
    esper.create_entity(ep.Position(0, 0))
    particle = esper.create_entity(ep.Position(0, 0), ep.Velocity(1, 0))
    esper.process(0.1)
    assert physics.body_count == 1
    assert esper.component_for_entity(particle, ep.Position).x == pytest.approx(0.1)


def test_two_worlds_step_independently(world):
    a = ep.Physics(fixed_dt=0.1)
    ea = body(vx=1.0)
    esper.switch_world(world + "-b")
    try:
        b = ep.Physics(fixed_dt=0.1)
        eb = body(vx=-1.0)
        eb2 = body(y=10.0, vx=-2.0)
        esper.process(0.1)
        esper.process(0.1)
        assert b.body_count == 2 and b.steps == 2
        assert esper.component_for_entity(eb, ep.Position).x == pytest.approx(-0.2)
        b.step()  # an explicit step from another world switches to its own
        esper.switch_world(world)
        b.step()
        assert esper.current_world == world
        esper.process(0.1)
        assert a.body_count == 1 and a.steps == 1
        assert esper.component_for_entity(ea, ep.Position).x == pytest.approx(0.1)
        esper.switch_world(world + "-b")
        assert esper.component_for_entity(eb2, ep.Position).x == pytest.approx(-0.8)
    finally:
        esper.switch_world(world)
        esper.delete_world(world + "-b")


def test_bad_physics_arguments_raise_and_leave_the_world_unchanged(world):
    with pytest.raises(ValueError, match="fixed_dt must be positive or None, got 0"):
        ep.Physics(fixed_dt=0)
    with pytest.raises(ValueError, match="fixed_dt must be finite, got nan"):
        ep.Physics(fixed_dt=math.nan)
    with pytest.raises(ValueError, match=r"max_steps_per_frame must be in \[1, 10000\], got 0"):
        ep.Physics(max_steps_per_frame=0)
    assert esper._processors == []
    physics = ep.Physics()
    with pytest.raises(ValueError, match="already has a Physics"):
        ep.Physics()
    e = body(vx=1.0)
    esper.process(1 / 60)
    with pytest.raises(ValueError, match="dt must be finite, got nan"):
        esper.process(math.nan)
    with pytest.raises(ValueError, match="dt must be >= 0, got -1"):
        esper.process(-1)
    assert physics.steps == 1
    assert esper.component_for_entity(e, ep.Position).x == pytest.approx(1 / 60)
    with pytest.raises(ValueError, match=r"Position\.y must be finite"):
        esper.create_entity(ep.Position(0, math.inf), ep.Collider(ep.ACTIVE))
    assert physics.body_count == 1


def test_collider_changes_reach_the_table(world):
    physics = ep.Physics(fixed_dt=0.1)
    e = body(vx=1.0, gravity=(0, -10))
    esper.process(0.1)
    col = esper.component_for_entity(e, ep.Collider)
    version = physics.table.static_version
    col.kind = ep.STATIC
    assert physics.table.static_version == version + 1
    esper.process(0.1)
    assert esper.component_for_entity(e, ep.Position).x == pytest.approx(0.1)
    col.layer = 4
    row = physics.table.row_of[e]
    assert physics.table.layer[row] == 4
    assert np.all(physics.table.kind[: physics.table.n] == ep.STATIC)


def test_removed_physics_stops_stepping_and_releases_components(world):
    physics = ep.Physics(fixed_dt=0.1)
    e = body(vx=1.0)
    esper.process(0.1)
    physics.remove()
    pos = esper.component_for_entity(e, ep.Position)
    assert pos._table is None and pos.x == pytest.approx(0.1)
    esper.process(0.1)
    assert pos.x == pytest.approx(0.1) and physics.steps == 1
    with pytest.raises(KeyError, match=f"entity {e} is not a body"):  # released
        physics.touching(e)
    ep.Physics(fixed_dt=0.1)  # the world takes a new one
    esper.process(0.1)
    assert pos.x == pytest.approx(0.2)


def test_a_frame_of_several_steps_adopts_what_a_handler_did_before_the_next_step(world):
    """A frame runs its steps without syncing again before the first (nothing ran since the
    frame's sync), but a handler's deletion and creation in one step are adopted before the
    next step of the same frame."""
    physics = ep.Physics(fixed_dt=0.1)
    wall = body(1.05, 0.0, kind=ep.STATIC)
    ball = body(0.0, 0.0, vx=1.0)
    made: list[int] = []

    def on_touch(contact: ep.BodyContact) -> None:
        if not made:
            esper.delete_entity(ball)
            made.append(body(10.0, 0.0, vx=1.0))

    physics.on_touch(on_touch, entity=wall)
    esper.process(0.3)  # three steps: the touch in the first, two more after it
    assert physics.steps == 3
    assert made and ball not in physics.table.row_of
    assert esper.component_for_entity(made[0], ep.Position).x == pytest.approx(10.2)
    assert physics.body_count == 2
