"""Rest and contact feel: what piles, stacks, slopes, crates and platforms must do.

Shows: a heap reads velocities of about zero whatever its restitution (impacts slower than
the rest speed do not bounce); a body pressing sideways on a crate that cannot move still
falls, lands and jumps; static friction holds a body on a slope where ``friction >= tan``
and kinetic friction slides it at the rate Coulomb predicts, its motion agreeing with its
velocity; every landing's touch carries its speed; a rider's world velocity is its own
plus its platform's, counted once, from its first step; a body of infinite mass keeps the
velocity the game gave it; a body grown into a neighbour is pushed out the short way.
"""

from __future__ import annotations

import math
import random

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys import geometry

DT = 1 / 60


def body(x, y, shape, kind=ep.ACTIVE, vx=0.0, vy=0.0, g=0.0, **collider):
    comps = [ep.Position(x, y), ep.Velocity(vx, vy), ep.Collider(kind, **collider),
             ep.Geometry(shape)]
    if g:
        comps.append(ep.AccelerationMap(gravity=(0.0, -g)))
    return esper.create_entity(*comps)


def pos(e):
    return esper.component_for_entity(e, ep.Position)


def vel(e):
    return esper.component_for_entity(e, ep.Velocity)


def run(steps):
    for _ in range(steps):
        esper.process(DT)


# ------------------------------------------------------------------ bouncy piles at rest

def _heap(restitution, kind):
    """16 balls of radius 0.5 in five rows between two walls, resting from the start."""
    ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(20, 1), ep.STATIC)
    body(-2.5, 3, ep.Rect(1, 8), ep.STATIC)
    body(2.5, 3, ep.Rect(1, 8), ep.STATIC)
    h = math.sqrt(3) * 0.5
    rows = [(-1.5, 0.5, 4), (-1.0, 0.5 + h, 3), (-1.5, 0.5 + 2 * h, 4), (-1.0, 0.5 + 3 * h, 3),
            (-0.5, 0.5 + 4 * h, 2)]
    return [body(x0 + i, y + 1e-4, ep.Circle(0.5), kind, g=20.0, restitution=restitution)
            for x0, y, k in rows for i in range(k)]


@pytest.mark.parametrize("kind", [ep.ACTIVE, ep.PASSIVE])
@pytest.mark.parametrize("restitution", [0.0, 0.3, 0.8])
def test_a_resting_heap_reads_no_velocity_whatever_its_restitution(world, restitution, kind):
    balls = _heap(restitution, kind)
    start = np.array([pos(b).xy for b in balls])
    for _ in range(5):  # 5 s, checked every second (before: |v| grew by 20 every second)
        run(60)
        assert max(math.hypot(*vel(b).xy) for b in balls) < 1.0
    moved = np.abs(np.array([pos(b).xy for b in balls]) - start).max()
    assert moved < 0.05


def test_a_thousand_bouncy_balls_settle_to_rest(world):
    ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(42, 1), ep.STATIC)
    body(-20.5, 20, ep.Rect(1, 42), ep.STATIC)
    body(20.5, 20, ep.Rect(1, 42), ep.STATIC)
    rng = random.Random(5)
    balls = [body(-19 + (i % 38) + rng.uniform(-0.2, 0.2), 1 + 1.2 * (i // 38),
                  ep.Circle(0.5), ep.ACTIVE, g=20.0, restitution=0.3) for i in range(1000)]
    run(1200)  # 20 s
    speeds = [math.hypot(*vel(b).xy) for b in balls]
    assert max(speeds) < 1.0
    assert min(pos(b).y for b in balls) > 0.49  # all above the floor


def test_a_bouncing_ball_comes_to_rest_and_reads_zero(world):
    ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(20, 1), ep.STATIC)
    ball = body(0, 3, ep.Circle(0.5), g=20.0, restitution=0.5)
    crate = body(3, 3, ep.Rect(1, 1), ep.PASSIVE, g=20.0, restitution=0.5)
    run(60)
    assert vel(ball).y > 0.0 or pos(ball).y > 0.6  # it did bounce
    run(540)
    for e in (ball, crate):
        assert pos(e).y == pytest.approx(0.5, abs=0.01)
        assert abs(vel(e).y) < 1e-9  # no speed into the floor, and none out of it either


def test_resting_pairs_report_no_impact_speed(world):
    physics = ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(20, 1), ep.STATIC)
    body(0, 0.5 + 1e-4, ep.Circle(0.5), g=30.0)
    speeds = []
    physics.on_keep_touching(lambda c: speeds.append(c.speed))
    run(120)
    assert len(speeds) >= 110
    assert max(speeds) == 0.0  # before: g * dt (0.5) every step


# ------------------------------------------------------------------ a crate that cannot move

def _blocked_crate():
    """A floor, a wall at x = 5 and a PASSIVE crate (1.6) resting against it."""
    physics = ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    body(5.5, 5, ep.Rect(1, 10), ep.STATIC)
    crate = body(5 - 0.8 - 1e-4, 0.8 + 1e-4, ep.Rect(1.6, 1.6), ep.PASSIVE, g=30.0)
    return physics, crate


@pytest.mark.parametrize("speed", [7.0, 2.0])
def test_a_body_pressing_on_a_blocked_crate_still_falls_and_jumps(world, speed):
    physics, crate = _blocked_crate()
    # the player's feet start 0.05 below the crate's top, beside it, walking into it
    player = body(pos(crate).x - 0.8 - 0.45 - 0.05, 1.55 + 0.9, ep.Rect(0.9, 1.8), g=30.0)
    for _ in range(60):
        vel(player).x = speed
        esper.process(DT)
    assert pos(player).y - 0.9 == pytest.approx(0.0, abs=0.01)  # on the floor (before: 1.52)
    assert physics.ground(player).on_floor
    assert pos(crate).x == pytest.approx(4.2, abs=1e-3)  # the crate never moved
    vel(player).y = 12.0  # jump, still holding "right"
    top = 0.0
    for _ in range(60):
        vel(player).x = speed
        esper.process(DT)
        top = max(top, pos(player).y - 0.9)
    assert top > 1.6 + 0.5  # clears the crate (before: 0.9)
    assert pos(player).x > pos(crate).x - 0.8  # and lands on top of it
    assert pos(player).y - 0.9 == pytest.approx(1.6, abs=0.01)


# ------------------------------------------------------------------ friction on slopes

def _ramp_box(friction, kind, angle=26.565):
    """A static ramp rising to the left at ``angle`` and a box resting on it at the origin."""
    a = math.radians(angle)
    body(math.sin(a), -math.cos(a), ep.OrientedRect(200, 2, angle), ep.STATIC,
         friction=friction)
    nx, ny = -math.sin(a), math.cos(a)
    return body(nx * (0.5 + 1e-4), ny * (0.5 + 1e-4), ep.OrientedRect(1, 1, angle), kind,
                g=20.0, friction=friction)


@pytest.mark.parametrize("kind", [ep.PASSIVE, ep.ACTIVE])
@pytest.mark.parametrize("friction", [0.6, 1.0])
def test_static_friction_holds_a_box_on_a_slope(world, friction, kind):
    ep.Physics(fixed_dt=DT)
    box = _ramp_box(friction, kind)
    start = np.array(pos(box).xy)
    for _ in range(300):
        esper.process(DT)
        assert math.hypot(*vel(box).xy) < 1e-9  # its velocity agrees: none
    assert np.hypot(*(np.array(pos(box).xy) - start)) < 0.05  # before: 1.118 in 5 s


def test_kinetic_friction_slides_a_box_at_the_rate_coulomb_predicts(world):
    ep.Physics(fixed_dt=DT)
    a = math.radians(26.565)
    box = _ramp_box(0.3, ep.PASSIVE)
    run(60)
    p0, v0 = np.array(pos(box).xy), math.hypot(*vel(box).xy)
    run(120)
    accel = 20.0 * (math.sin(a) - 0.3 * math.cos(a))
    expected = v0 * 2.0 + 0.5 * accel * 2.0 ** 2
    moved = float(np.hypot(*(np.array(pos(box).xy) - p0)))
    assert moved == pytest.approx(expected, rel=0.1)
    assert math.hypot(*vel(box).xy) == pytest.approx(v0 + accel * 2.0, rel=0.1)


# ------------------------------------------------------------------ every landing's speed

def test_every_landing_reports_its_speed_in_its_touch(world):
    physics = ep.Physics(fixed_dt=DT)
    floor = body(0, -0.5, ep.Rect(800, 1), ep.STATIC)
    rng = random.Random(1)
    heights = {}
    for i in range(120):
        h = rng.uniform(0.6, 12.0)
        shape = ep.Circle(0.5) if i % 3 else ep.Mask(np.ones((4, 4), dtype=bool), 0.25)
        heights[body(i * 3 - 180, h, shape, g=20.0)] = h
    first = {}

    @physics.on_touch
    def landed(contact):
        if floor in (contact.a, contact.b):
            first.setdefault(contact.other(floor), contact.speed)

    run(240)
    assert set(first) == set(heights)
    for e, h in heights.items():
        landing = math.sqrt(2 * 20.0 * (h - 0.5))
        assert first[e] >= 0.7 * landing, (e, h, first[e])  # before: 0.0 on 11 of 120


# ------------------------------------------------------------------ riders and platforms

def test_hops_on_a_moving_platform_keep_the_riders_speed_relative_to_it(world):
    physics = ep.Physics(fixed_dt=DT)
    platform = body(0, 0, ep.Rect(400, 0.5), vx=3.0, mass=math.inf)
    player = body(0, 0.75 + 1e-4, ep.Rect(0.8, 1.0), g=30.0)
    run(20)
    for _ in range(10):
        vel(player).y = 6.0  # hop
        start = pos(player).x - pos(platform).x
        run(40)
        assert physics.ground(player).on_floor
        # in the air and back it stayed above the same spot: its speed relative to the
        # platform is what the game set (0), counted once (before: +3 more each hop)
        assert pos(player).x - pos(platform).x == pytest.approx(start, abs=1e-6)
        assert vel(player).x == pytest.approx(0.0, abs=1e-9)
    assert vel(platform).xy == (3.0, 0.0)


@pytest.mark.parametrize("g", [30.0, 60.0])
def test_a_rider_stays_on_a_descending_lift_from_its_first_step(world, g):
    physics = ep.Physics(fixed_dt=DT)
    lift = body(0, 0, ep.Rect(4, 0.5), vy=-12.0, mass=math.inf)
    rider = body(0, 0.75 + 1e-4, ep.Rect(0.8, 1.0), g=g)
    for _ in range(90):
        esper.process(DT)
        assert physics.ground(rider).on_floor
        assert pos(rider).y - pos(lift).y == pytest.approx(0.75, abs=0.01)


def test_an_infinite_mass_body_on_a_moving_platform_keeps_its_velocity(world):
    ep.Physics(fixed_dt=DT)
    body(8.5, 3, ep.Rect(1, 8), ep.STATIC)  # a wall, left face at 8
    platform = body(0, 0, ep.Rect(6, 0.5), vx=3.0, mass=math.inf)
    block = body(0, 0.75 + 1e-4, ep.Rect(1, 1), vx=1.0, mass=math.inf)
    for _ in range(240):
        esper.process(DT)
        assert vel(block).xy == (1.0, 0.0)  # only the game changes it
        assert pos(block).x + 0.5 <= 8.0 + 1e-6  # it never passes the wall
    assert vel(platform).xy == (3.0, 0.0)


def test_an_infinite_mass_body_on_a_moving_body_is_not_carried_or_changed(world):
    ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    body(0, 0.5 + 1e-4, ep.Rect(4, 1), vx=2.0, g=30.0)
    block = body(0, 1.5 + 2e-4, ep.Rect(1, 1), g=30.0, mass=math.inf)
    run(120)
    assert vel(block).x == 0.0
    assert pos(block).x == 0.0


# ------------------------------------------------------------------ pushing up a ramp

@pytest.mark.parametrize("shape", [ep.Rect(1.6, 1.6), ep.Circle(0.8)])
def test_a_crate_is_pushed_up_a_ramp_from_its_foot(world, shape):
    ep.Physics(fixed_dt=DT)
    body(24, 1.5, ep.Rect(48, 1), ep.STATIC, friction=0.6)  # floor, top at 2
    body(18, 3.5, ep.Polygon([(-3, -1.5), (3, -1.5), (3, 1.5)]), ep.STATIC, friction=0.6)
    crate = body(12, 2.8 + 1e-4, shape, ep.PASSIVE, g=30.0, friction=0.6)
    player = body(10, 2.9 + 1e-4, ep.Rect(0.9, 1.8), g=30.0, stop_on_slope=True)
    climbed = 0.0
    for _ in range(150):
        vel(player).x = 2.0
        esper.process(DT)
        climbed = max(climbed, pos(crate).y - 2.8)
    assert pos(crate).x > 15.0  # past the ramp's foot (x = 15)
    assert climbed > 0.2  # and up it


RAMP_30 = [(5.0, 0.0), (8.0, 0.0), (8.0, 3.0 * math.tan(math.radians(30)))]  # foot at x 5


def _on_the_floor(x, shape, kind):
    """A body standing on the floor (top at y 0) at x, placed as a level places it: its
    bottom exactly on the floor, at the height of the ramp's foot."""
    return body(x, 0.5, shape, kind, g=9.8)


@pytest.mark.parametrize("pushed", [False, True])
def test_a_box_standing_on_the_floor_climbs_a_ramp_whose_foot_lies_on_it(world, pushed):
    # the box's corner meets the ramp's foot vertex exactly (both at floor height): the
    # ramp's face is as true a normal there as the box's own side, and the move slides up it
    # (it stopped at the foot for good, a crate reading a velocity of (0.2, 0.4))
    ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    body(0, 0, ep.Polygon(RAMP_30), ep.STATIC)
    player = _on_the_floor(1.5, ep.Rect(1, 1), ep.ACTIVE)
    crate = _on_the_floor(3.0, ep.Rect(1, 1), ep.PASSIVE) if pushed else player
    top = 0.0
    for _ in range(150):
        vel(player).x = 3.0
        esper.process(DT)
        top = max(top, pos(crate).y)
    assert pos(crate).x > 8.0  # over the ramp's top (x 8) ...
    assert top > 0.5 + RAMP_30[2][1] - 0.05  # ... having climbed it to its height


def test_the_time_of_impact_at_a_ramps_foot_gives_the_ramps_normal():
    slope = (-math.sin(math.radians(30)), math.cos(math.radians(30)))  # out of the ramp
    toi = geometry.time_of_impact(ep.Rect(1, 1), (4.0, 0.5), (1.0, 0.0),
                                  ep.Polygon(RAMP_30), (0, 0))
    assert toi is not None and toi[0] == pytest.approx(0.5, abs=1e-6)
    assert toi[1].normal == pytest.approx((-slope[0], -slope[1]))  # from the box to the ramp
    # a box met on its side (no vertex on a vertex) keeps the side's normal
    toi = geometry.time_of_impact(ep.Rect(1, 1), (4.0, 0.5), (1.0, 0.0),
                                  ep.Rect(3, 1), (6.5, 0.5))
    assert toi[1].normal == (1.0, 0.0)
    toi = geometry.time_of_impact(ep.Rect(1, 1), (4.0, 0.6), (1.0, 0.0),
                                  ep.Polygon(RAMP_30), (0, 0))  # its corner on the slope
    assert toi[1].normal == pytest.approx((-slope[0], -slope[1]))


# ------------------------------------------------------------------ growing into a neighbour

def test_a_body_grown_into_the_floor_is_pushed_out_the_short_way(world):
    ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    body(0, 2.5, ep.Rect(40, 1), ep.STATIC)  # a ceiling, bottom at 2
    player = body(0, 0.6 + 1e-4, ep.Rect(0.8, 1.2), g=30.0)
    run(5)
    # stands up around its centre: 0.3 into the floor, with room below the ceiling
    esper.component_for_entity(player, ep.Geometry).shape = ep.Rect(0.8, 1.8)
    esper.process(DT)
    assert pos(player).y - 0.9 == pytest.approx(0.0, abs=0.01)
    for _ in range(30):
        vel(player).x = 2.0
        esper.process(DT)
        assert pos(player).y - 0.9 >= -0.01 and pos(player).y + 0.9 <= 2.0 + 0.01


# ------------------------------------------------------------------ the bounce threshold

def test_bounce_threshold_decides_which_slow_impacts_bounce(world):
    ep.Physics(fixed_dt=DT, bounce_threshold=2.0)
    body(0, 0, ep.Rect(1, 10), ep.STATIC)
    slow = body(2, 0, ep.Circle(0.5), vx=-1.5, restitution=1.0)  # no gravity: only the setting
    fast = body(2, 3, ep.Circle(0.5), vx=-3.0, restitution=1.0)
    run(120)
    assert vel(slow).x == 0.0  # met the wall slower than 2: stops there
    assert vel(fast).x == pytest.approx(3.0)  # bounced back at full speed


@pytest.mark.parametrize("bad", [-0.1, math.nan, math.inf, "1"])
def test_bounce_threshold_refuses_bad_values(world, bad):
    with pytest.raises((ValueError, TypeError), match="bounce_threshold"):
        ep.Physics(bounce_threshold=bad)


def test_a_body_grown_where_it_does_not_fit_stays_put_until_it_fits(world):
    """The documented rule: a body grown between a floor and a ceiling closer than its new
    height is pushed into neither; it stays where it is, overlapping, and the game can ask
    ``query_region`` before growing it."""
    physics = ep.Physics(fixed_dt=DT)
    floor = body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    ceiling = body(0, 2.0, ep.Rect(40, 1), ep.STATIC)  # bottom at 1.5: room for 1.5
    player = body(0, 0.6 + 1e-4, ep.Rect(0.8, 1.2), g=30.0)
    run(5)
    standing = ep.Rect(0.8, 1.8)
    assert set(physics.query_region(standing, pos(player).xy)) >= {floor, ceiling}
    esper.component_for_entity(player, ep.Geometry).shape = standing
    for _ in range(30):
        vel(player).x = 2.0
        esper.process(DT)
        y = pos(player).y
        assert y - 0.9 >= -0.3 - 1e-6 and y + 0.9 <= 1.5 + 0.3 + 1e-6  # sinks into neither
        assert np.isfinite(y)
    esper.component_for_entity(player, ep.Geometry).shape = ep.Rect(0.8, 1.2)  # crouch again
    run(30)
    assert pos(player).y - 0.6 == pytest.approx(0.0, abs=0.01)  # back on the floor


@pytest.mark.parametrize("height", [1.0, 2.5, 4.0, 4.75, 6.25, 8.0])
def test_a_mask_landing_on_a_mask_reports_its_speed(world, height):
    physics = ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Mask(np.ones((4, 80), dtype=bool), 0.25), ep.STATIC)
    body(0, height, ep.Mask(np.ones((4, 4), dtype=bool), 0.25), g=20.0)
    speeds = []
    physics.on_touch(lambda contact: speeds.append(contact.speed))
    run(150)
    assert len(speeds) == 1
    # pixel-aligned arrivals (4.0 and 6.25 here) reported 0.0 before
    assert speeds[0] == pytest.approx(math.sqrt(2 * 20.0 * (height - 0.5)), rel=0.05)
