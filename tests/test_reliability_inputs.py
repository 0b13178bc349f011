"""Regression tests for the failures a probe of the library found (issue: reliability), and the
valid range of `ecsphys.limits`: every one raises a clear error naming the field, or steps.

A step that could hang runs in a subprocess with a timeout, so a regression fails the test
instead of freezing the suite."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys import geometry, limits


def ball(pos=(0.0, 0.0), vel=(0.0, 0.0), kind=ep.ACTIVE, shape=None, **collider):
    return esper.create_entity(ep.Position(*pos), ep.Velocity(*vel), ep.Collider(kind, **collider),
                               ep.Geometry(shape or ep.Circle(0.5)))


def state(physics):
    t = physics.table
    n = t.n
    return t.entity[:n].copy(), t.pos[:n].copy(), t.vel[:n].copy()


def assert_finite(physics):
    _, pos, vel = state(physics)
    assert np.isfinite(pos).all() and np.isfinite(vel).all()


# ------------------------------------------------------------ steps that never returned


HANG_SCRIPT = """
import esper, ecsphys as ep
esper.switch_world("hang")
physics = ep.Physics()
a = esper.create_entity(ep.Position(0, 0), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                        ep.Geometry(ep.Circle(0.5)))
b = esper.create_entity(ep.Position(1.5, 0), ep.Velocity(0, 0), ep.Collider(ep.PASSIVE),
                        ep.Geometry(ep.Rect(1, 1)))
esper.process(1 / 60)
try:
    {attempt}
except (ValueError, TypeError) as e:
    print("refused:", e)
for _ in range(120):
    esper.process(1 / 60)
print("stepped")
"""


@pytest.mark.parametrize("attempt, field", [
    ("esper.component_for_entity(a, ep.Velocity).x = -1e156", "Velocity.x"),
    ("esper.component_for_entity(a, ep.Geometry).shape = ep.Circle(1e308)", "Circle.radius"),
    ("esper.add_component(b, ep.AccelerationMap(a=(-1.797e308, 0)))", "AccelerationMap"),
    ("esper.component_for_entity(a, ep.Velocity).xy = (1e7, -1e7)", None),  # at the limit
])
def test_inputs_that_hung_the_step_are_refused_or_step(attempt, field):
    code = textwrap.dedent(HANG_SCRIPT).format(attempt=attempt)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "stepped" in done.stdout
    if field is None:
        assert "refused" not in done.stdout
    else:
        assert f"refused: {field}" in done.stdout, done.stdout


# ------------------------------------------------------------ worlds that failed on every step


@pytest.mark.parametrize("make, field", [
    (lambda: ep.Position(1e308, 0), "Position.x"),
    (lambda: ep.Position(0, -1.0000001e9), "Position.y"),
    (lambda: ep.Velocity(0, 1e8), "Velocity.y"),
    (lambda: ep.Collider(ep.PASSIVE, mass=5e-324), "Collider.mass"),
    (lambda: ep.Collider(ep.PASSIVE, mass=1e13), "Collider.mass"),
    (lambda: ep.Physics(fixed_dt=5e-324), "fixed_dt"),
    (lambda: ep.Physics(fixed_dt=2.0), "fixed_dt"),
    (lambda: ep.AccelerationMap(g=(0, 2e9)), "AccelerationMap"),
    (lambda: ep.AccelerationMap(g=(0, -6e8), more=(0, -6e8)), "AccelerationMap total"),
])
def test_values_beyond_the_range_are_refused_naming_the_field(world, make, field):
    with pytest.raises(ValueError, match=field):
        make()


def test_a_static_body_moved_far_away_is_refused_and_the_world_steps_on(world):
    physics = ep.Physics()
    wall = ball(kind=ep.STATIC, shape=ep.Rect(1, 1))
    ball(pos=(3, 0), vel=(-5, 0))
    esper.process(1 / 60)
    before = state(physics)
    with pytest.raises(ValueError, match="Position.x"):
        esper.component_for_entity(wall, ep.Position).x = 3e19
    after = state(physics)
    assert all((x == y).all() for x, y in zip(before, after, strict=True))
    for _ in range(60):
        esper.process(1 / 60)
    assert_finite(physics)


def test_a_huge_frame_caps_its_steps_and_positions_stay_finite(world):
    physics = ep.Physics()
    ball(vel=(1e7, -1e7), shape=ep.Circle(1))
    ball(pos=(0, -3), kind=ep.STATIC, shape=ep.Rect(10, 1))
    esper.process(1e308)
    assert physics.steps == physics.max_steps_per_frame
    assert_finite(physics)


def test_a_huge_frame_with_no_fixed_step_runs_one_step_of_max_dt(world):
    physics = ep.Physics(fixed_dt=None)
    b = ball(vel=(3, 0))
    esper.process(1e308)
    assert physics.steps == 1 and physics.last_dt == limits.MAX_DT
    assert esper.component_for_entity(b, ep.Position).x == pytest.approx(3.0)


def test_a_body_at_full_speed_stops_at_the_edge_of_the_world(world):
    physics = ep.Physics(fixed_dt=1.0, max_steps_per_frame=200)
    b = ball(pos=(limits.MAX_COORD - 1e8, 0), vel=(limits.MAX_SPEED, 0),
             shape=ep.Circle(1))
    for _ in range(20):
        esper.process(1.0)
    pos = esper.component_for_entity(b, ep.Position)
    vel = esper.component_for_entity(b, ep.Velocity)
    assert pos.x == limits.MAX_COORD and vel.x == 0.0
    assert_finite(physics)


def test_a_very_light_passive_body_in_a_collision_stays_finite(world):
    physics = ep.Physics()
    ball(pos=(0, 0), vel=(limits.MAX_SPEED / 100, 0), kind=ep.PASSIVE, mass=limits.MAX_MASS)
    ball(pos=(2, 0), kind=ep.PASSIVE, mass=limits.MIN_MASS)
    ball(pos=(40, 0), kind=ep.STATIC, shape=ep.Rect(1, 100))
    for _ in range(120):
        esper.process(1 / 60)
        assert_finite(physics)


# ------------------------------------------------------------ wrong exception types


@pytest.mark.parametrize("make, error, field", [
    (lambda: ep.Position(10**400, 0), ValueError, "Position.x"),
    (lambda: ep.Velocity(0, -(10**400)), ValueError, "Velocity.y"),
    (lambda: ep.Circle(10**400), ValueError, "Circle.radius"),
    (lambda: ep.OrientedRect(1, 1e17, 30), ValueError, "OrientedRect.height"),
    (lambda: ep.OrientedRect(5e-324, 5e-324), ValueError, "OrientedRect.width"),
    (lambda: ep.Rect(1, 1, offset=(1e16, 0)), ValueError, "Rect.offset.x"),
    (lambda: ep.Circle(1, offset=(0, -1e16)), ValueError, "Circle.offset.y"),
    (lambda: ep.Rect(1e7, 1e7, offset=(9e6, 0)), ValueError, "Rect must reach at most"),
    (lambda: ep.Polygon([(0, 0), (1e200, 0), (0, 1e200)]), ValueError, r"Polygon.points\[1\]"),
    (lambda: ep.Segment((-1e308, 0), (1e308, 0)), ValueError, "Segment.p1.x"),
    (lambda: ep.Segment((0, 0), (5e-324, 0)), ValueError, "zero length"),
    (lambda: ep.Rect(1.7e308, 1.7e308), ValueError, "Rect.width"),
    (lambda: ep.Collider(ep.ACTIVE, slide=np.array(["project"])), TypeError, "Collider.slide"),
    (lambda: ep.Collider(ep.ACTIVE, sensor=np.array([True])), TypeError, "Collider.sensor"),
    (lambda: ep.Geometry(ep.Shape()), TypeError, "Geometry.shape"),
    (lambda: ep.Position("1", 0), TypeError, "Position.x"),
    (lambda: ep.TileMap(["#"], 1e8), ValueError, "TileMap.tile_size"),
    (lambda: ep.TileMap(["#"], 1.0, origin=(2e7, 0)), ValueError, "TileMap.origin.x"),
])
def test_bad_values_raise_value_or_type_errors_naming_the_field(make, error, field):
    with pytest.raises(error, match=field):
        make()


def test_numpy_numbers_and_bools_are_accepted():
    assert ep.Position(np.float32(1.5), np.int64(2)).xy == (1.5, 2.0)
    assert ep.Collider(ep.ACTIVE, sensor=np.bool_(True)).sensor is True


def test_a_compound_nested_500_deep_is_adopted(world):
    physics = ep.Physics()
    shape = ep.Circle(0.5)
    for _ in range(500):
        shape = ep.Compound([shape])
    e = ball(shape=shape)
    ball(pos=(0.9, 0), kind=ep.STATIC)
    esper.process(1 / 60)
    assert physics.touching(e) != []


# ------------------------------------------------------------ rejected writes change nothing


def test_a_rejected_acceleration_write_keeps_the_map(world):
    physics = ep.Physics()
    acc = ep.AccelerationMap(gravity=(0, -9.8))
    esper.create_entity(ep.Position(0, 0), ep.Velocity(0, 0), acc, ep.Collider(ep.ACTIVE),
                        ep.Geometry(ep.Circle(1)))
    esper.process(1 / 60)
    with pytest.raises(ValueError, match="gust"):
        acc["gust"] = (1.7e308, 0)
    assert "gust" not in acc and acc.total == (0.0, -9.8)
    with pytest.raises(ValueError, match="total"):
        acc["gust"] = (0, -1e9)
    assert "gust" not in acc and physics.table.acc[0].tolist() == [0.0, -9.8]


def test_a_rejected_shape_write_keeps_the_shape_and_the_world_steps(world):
    physics = ep.Physics()
    e = ball()
    esper.process(1 / 60)
    geo = esper.component_for_entity(e, ep.Geometry)
    with pytest.raises(TypeError, match="Geometry.shape"):
        geo.shape = ep.Shape()
    assert geo.shape == ep.Circle(0.5)
    esper.remove_component(e, ep.Geometry)
    esper.add_component(e, geo)  # adopted again
    for _ in range(5):
        esper.process(1 / 60)
    assert physics.table.shapes[physics.table.row_of[e]] == ep.Circle(0.5)


# ------------------------------------------------------------ faults inside the step


def test_a_filter_pair_that_raises_leaves_the_world_as_before_the_step(world):
    physics = ep.Physics()
    ball(pos=(0, 0), vel=(3, 0), kind=ep.PASSIVE)
    ball(pos=(1.2, 0), vel=(-3, 0), kind=ep.PASSIVE)
    esper.create_entity(ep.Position(5, 5), ep.Velocity(1, 1), ep.AccelerationMap(g=(0, -9.8)),
                        ep.Collider(ep.ACTIVE), ep.Geometry(ep.Rect(1, 1)))
    esper.process(1 / 60)
    before = state(physics)
    steps = physics.steps

    def boom(a, b):
        raise RuntimeError("game bug")

    physics.filter_pair = boom
    with pytest.raises(RuntimeError, match="game bug"):
        physics.step()
    assert physics.steps == steps
    after = state(physics)
    assert all((x == y).all() for x, y in zip(before, after, strict=True))
    physics.filter_pair = None
    physics.step()  # and the next step is the step it would have been
    stepped = state(physics)

    esper.switch_world(world + "-twin")
    twin = ep.Physics()
    ball(pos=(0, 0), vel=(3, 0), kind=ep.PASSIVE)
    ball(pos=(1.2, 0), vel=(-3, 0), kind=ep.PASSIVE)
    esper.create_entity(ep.Position(5, 5), ep.Velocity(1, 1), ep.AccelerationMap(g=(0, -9.8)),
                        ep.Collider(ep.ACTIVE), ep.Geometry(ep.Rect(1, 1)))
    esper.process(1 / 60)
    twin.step()
    assert all((x == y).all() for x, y in zip(stepped, state(twin), strict=True))
    esper.switch_world(world)
    esper.delete_world(world + "-twin")


def _pushed_crate_scene(physics: ep.Physics, overlap: bool) -> tuple[int, int]:
    """A heavy pusher, after one step at rest, sent 10 units a step into a crate with a wall
    5 units beyond: the crate is pushed past the box the broadphase swept for it, so its pair
    with the wall is first looked up in the response. With ``overlap`` the pusher is made
    overlapping the crate by 0.3, so the push apart moves the crate first. Returns (crate,
    wall)."""
    pusher = esper.create_entity(ep.Position(0, 0), ep.Velocity(0, 0),
                                 ep.Collider(ep.ACTIVE, mass=math.inf), ep.Geometry(ep.Rect(1, 1)))
    crate = ball(pos=(1.2, 0), kind=ep.PASSIVE, shape=ep.Rect(1, 1))
    wall = esper.create_entity(ep.Position(7, 0), ep.Collider(ep.STATIC),
                               ep.Geometry(ep.Rect(1, 4)))
    physics.step()
    esper.component_for_entity(pusher, ep.Velocity).x = 600.0
    if overlap:
        esper.component_for_entity(pusher, ep.Position).x = 0.5
    return crate, wall


@pytest.mark.parametrize("overlap", [False, True], ids=["slide", "push apart"])
def test_a_filter_pair_raising_inside_the_response_leaves_the_world_as_before(world, overlap):
    """``filter_pair`` is also asked inside the response, about bodies pushed beyond their
    swept boxes: raising there aborts the step like raising in the broadphase (the error
    reaches the game, the bodies are as before the step), and is not swallowed."""
    physics = ep.Physics(fixed_dt=1 / 60)
    crate, wall = _pushed_crate_scene(physics, overlap)
    asked = []

    def picky(a, b):
        asked.append((a, b))
        if {a, b} == {crate, wall}:
            raise RuntimeError("game bug")
        return True

    esper.switch_world(world + "-twin")
    twin = ep.Physics(fixed_dt=1 / 60)
    _pushed_crate_scene(twin, overlap)
    esper.switch_world(world)
    before = state(physics)
    steps = physics.steps
    physics.filter_pair = picky
    with pytest.raises(RuntimeError, match="game bug"):
        physics.step()
    assert (min(crate, wall), max(crate, wall)) in asked
    assert physics.steps == steps
    assert all((x == y).all() for x, y in zip(before, state(physics), strict=True))
    physics.filter_pair = None
    physics.step()
    esper.switch_world(world + "-twin")
    twin.step()
    twin_state = state(twin)
    esper.switch_world(world)
    esper.delete_world(world + "-twin")
    assert all((x == y).all() for x, y in zip(state(physics), twin_state, strict=True))
    x = esper.component_for_entity(crate, ep.Position).x
    assert x < 6.0, f"the crate was pushed into the wall: x = {x}"


class Listener:
    def __init__(self, fail: bool = False) -> None:
        self.log: list[tuple[str, tuple[int, int]]] = []
        self.fail = fail

    def on_touch(self, c) -> None:  # noqa: ANN001
        self.log.append(("touch", c.pair))
        if self.fail:
            raise RuntimeError("listener bug")

    def on_separate(self, c) -> None:  # noqa: ANN001
        self.log.append(("separate", c.pair))


def test_an_esper_handler_that_raises_keeps_the_touch_from_no_other(world):
    physics = ep.Physics()
    good, bad = Listener(), Listener(fail=True)
    for listener in (good, bad):
        esper.set_handler("on_touch", listener.on_touch)
        esper.set_handler("on_separate", listener.on_separate)
    ball(pos=(0, 0), vel=(5, 0))
    ball(pos=(2, 0), kind=ep.STATIC)
    raised = 0
    for _ in range(60):
        try:
            esper.process(1 / 60)
        except RuntimeError:
            raised += 1
    assert raised >= 1
    assert good.log and good.log[0][0] == "touch"
    assert [e for e, _ in good.log].count("touch") == [e for e, _ in bad.log].count("touch")
    assert physics.steps == 60
    assert math.isfinite(physics.time)


# ------------------------------------------------------------ the public geometry functions


@pytest.mark.parametrize("call, field", [
    (lambda: geometry.contact(ep.Circle(1), (math.nan, 0), ep.Circle(1), (0, 0)), "pos_a.x"),
    (lambda: geometry.overlaps(ep.Circle(1), (0, 0), ep.Rect(1, 1), (0, 2e9)), "pos_b.y"),
    (lambda: geometry.distance(ep.Circle(1), (0, 0), ep.Circle(1), (math.inf, 0)), "pos_b.x"),
    (lambda: geometry.time_of_impact(ep.Circle(1), (0, 0), (math.nan, 0), ep.Circle(1),
                                     (3, 0)), "move_a.x"),
    (lambda: geometry.point_in(ep.Circle(1), (0, 0), (0, math.nan)), "point.y"),
    (lambda: geometry.raycast(ep.Circle(1), (0, 0), (1e300, 0), (1, 0)), "origin.x"),
    (lambda: geometry.raycast(ep.Circle(1), (0, 0), (-5, 0), (1, 0), math.nan), "max_t"),
    (lambda: geometry.segment_hits(ep.Circle(1), (0, 0), (0, 0), (math.inf, 0)), "p2.x"),
    (lambda: geometry.point_in(ep.Circle(1), "ab", (0, 0)), "pos"),
])
def test_the_geometry_functions_refuse_bad_positions_naming_them(call, field):
    with pytest.raises((ValueError, TypeError), match=field):
        call()
