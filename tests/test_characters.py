"""Characters and levels: moving platforms that carry, friction, floors, slopes, one-way
platforms.

Shows: a body that is never pushed (``mass=math.inf``) carries what stands on it and is not
pushed down by it, and stops at a body it squeezes against a wall; a rider that jumps off
keeps the platform's velocity; a ``stop_on_slope`` character stands still on ramps up to
``floor_max_angle`` (and slides on steeper ones) and walks along them; a crate slides the
distance friction predicts; ``ground`` tells floor, wall and ceiling; a one-way platform is
passed from below and landed on from above, however fast.
"""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

import ecsphys as ep

DT = 1 / 60
G = 30.0


def body(x, y, shape, kind=ep.ACTIVE, vx=0.0, vy=0.0, gravity=True, **collider):
    comps = [ep.Position(x, y), ep.Velocity(vx, vy), ep.Collider(kind, **collider),
             ep.Geometry(shape)]
    if gravity:
        comps.append(ep.AccelerationMap(gravity=(0.0, -G)))
    return esper.create_entity(*comps)


def pos(e):
    return esper.component_for_entity(e, ep.Position)


def vel(e):
    return esper.component_for_entity(e, ep.Velocity)


def run(steps):
    for _ in range(steps):
        esper.process(DT)


# ------------------------------------------------------------------ moving platforms

@pytest.mark.parametrize("platform_v", [(2.0, 0.0), (0.0, 1.5), (0.0, -1.5), (1.5, 1.0)])
def test_a_player_rides_a_moving_platform_for_five_seconds(world, platform_v):
    ep.Physics(fixed_dt=DT)
    body(0, -20, ep.Rect(200, 1), ep.STATIC, gravity=False)
    platform = body(0, 0, ep.Rect(4, 0.5), vx=platform_v[0], vy=platform_v[1],
                    gravity=False, mass=math.inf)
    player = body(0.5, 0.25 + 0.5 + 1e-4, ep.Rect(0.8, 1.0))
    run(10)
    offset = np.subtract(pos(player).xy, pos(platform).xy)
    worst = 0.0
    for _ in range(300):
        esper.process(DT)
        worst = max(worst, float(np.abs(np.subtract(pos(player).xy, pos(platform).xy)
                                        - offset).max()))
    assert worst < 0.05
    # the platform moved exactly at its own velocity: the rider neither pushed nor slowed it
    assert vel(platform).xy == platform_v
    assert pos(platform).x == pytest.approx(platform_v[0] * 310 * DT, abs=1e-9)
    assert pos(platform).y == pytest.approx(platform_v[1] * 310 * DT, abs=1e-9)


def test_jumping_off_a_platform_keeps_its_velocity(world):
    physics = ep.Physics(fixed_dt=DT)
    platform = body(0, 0, ep.Rect(20, 0.5), vx=3.0, gravity=False, mass=math.inf)
    player = body(0, 0.75 + 1e-4, ep.Rect(0.8, 1.0))
    run(20)
    ground = physics.ground(player)
    assert ground.on_floor and ground.floor_entity == platform
    assert ground.floor_velocity == (3.0, 0.0)
    assert vel(player).x == pytest.approx(0.0)  # its own velocity: the platform carries it
    vel(player).y = 8.0  # jump
    run(3)
    assert not physics.ground(player).on_floor
    assert vel(player).x == pytest.approx(3.0)  # the platform's velocity, kept in the air
    x0 = pos(player).x
    run(6)
    assert pos(player).x - x0 == pytest.approx(3.0 * 6 * DT, abs=1e-6)


def test_an_infinite_mass_platform_is_not_pushed_down_by_its_rider(world):
    ep.Physics(fixed_dt=DT)
    lift = body(0, 0, ep.Rect(4, 0.5), vy=1.0, gravity=False, mass=math.inf)
    heavy = body(0, 0.75 + 1e-4, ep.Rect(1, 1), ep.PASSIVE, mass=1000.0)
    run(120)
    assert vel(lift).xy == (0.0, 1.0)
    assert pos(lift).y == pytest.approx(2.0, abs=1e-9)
    assert pos(heavy).y == pytest.approx(2.75, abs=0.01)


def test_a_platform_squeezing_a_body_against_a_wall_stops_at_it(world):
    ep.Physics(fixed_dt=DT)
    body(0, 5.0, ep.Rect(10, 1), ep.STATIC, gravity=False)  # ceiling, bottom at 4.5
    lift = body(0, 0, ep.Rect(4, 0.5), vy=2.0, gravity=False, mass=math.inf)
    crate = body(0, 0.75 + 1e-4, ep.Rect(1, 1), ep.PASSIVE)
    run(180)
    # the crate is caught between the lift (top 0.25 above its centre) and the ceiling
    assert pos(crate).y + 0.5 <= 4.5 + 1e-6
    assert pos(lift).y + 0.25 <= pos(crate).y - 0.5 + 1e-6
    assert pos(crate).y == pytest.approx(4.0, abs=0.01)


def test_a_moving_wall_pushes_an_active_body_out_of_its_way(world):
    ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(100, 1), ep.STATIC, gravity=False)
    piston = body(-3, 1.0, ep.Rect(1, 2), vx=2.0, gravity=False, mass=math.inf)
    player = body(0, 0.5 + 1e-4, ep.Rect(0.8, 1.0))
    run(60)
    assert pos(piston).x == pytest.approx(-1.0, abs=1e-9)
    assert pos(player).x >= pos(piston).x + 0.5 + 0.4 - 1e-6  # in front of it, not inside
    assert pos(player).y == pytest.approx(0.5, abs=0.01)


# ------------------------------------------------------------------ slopes

def _ramp(angle_deg, length=40.0):
    """A static ramp through the origin rising at ``angle_deg``; the surface point at x."""
    a = math.radians(angle_deg)
    ramp = ep.OrientedRect(length, 2.0, angle_deg)
    # its top face passes through the origin: centre 1 below it along the normal
    body(math.sin(a) * 1.0, -math.cos(a) * 1.0, ramp, ep.STATIC, gravity=False)
    return a


@pytest.mark.parametrize("angle", [10.0, 26.6, 40.0])
@pytest.mark.parametrize("shape", ["circle", "rect"])
def test_a_character_stands_still_on_a_ramp(world, angle, shape):
    ep.Physics(fixed_dt=DT)
    a = _ramp(angle)
    if shape == "circle":
        s, lift = ep.Circle(0.5), 0.5
        x, y = -math.sin(a) * lift, math.cos(a) * lift
    else:
        s = ep.Rect(0.8, 1.0)
        # the lower corner on the surface
        x, y = 0.0, 0.5 + 0.4 * math.tan(a)
    player = body(x, y + 0.05, s, stop_on_slope=True)
    run(30)  # lands
    start = pos(player).xy
    drift = 0.0
    for _ in range(600):
        esper.process(DT)
        drift = max(drift, math.dist(pos(player).xy, start))
    assert drift < 0.01


def test_a_character_slides_down_a_steep_ramp(world):
    ep.Physics(fixed_dt=DT)
    a = _ramp(60.0)
    player = body(-math.sin(a) * 0.5, math.cos(a) * 0.5 + 0.01, ep.Circle(0.5),
                  stop_on_slope=True)
    start = pos(player).xy
    run(60)
    assert pos(player).y < start[1] - 1.0


def test_without_stop_on_slope_a_body_slides_down_a_gentle_ramp(world):
    ep.Physics(fixed_dt=DT)
    a = _ramp(26.6)
    player = body(-math.sin(a) * 0.5, math.cos(a) * 0.5 + 0.01, ep.Circle(0.5))
    start = pos(player).xy
    run(120)
    assert pos(player).y < start[1] - 0.5


@pytest.mark.parametrize("direction", [1.0, -1.0])
def test_a_character_walks_up_and_down_a_ramp_staying_on_it(world, direction):
    physics = ep.Physics(fixed_dt=DT)
    a = _ramp(26.6)
    player = body(-math.sin(a) * 0.5, math.cos(a) * 0.5 + 1e-3, ep.Circle(0.5),
                  stop_on_slope=True)
    run(10)
    xs = []
    for _ in range(120):
        vel(player).x = 3.0 * direction
        esper.process(DT)
        xs.append(pos(player).x)
        # on the surface all the way (the centre 0.5 above it along the normal), never flying
        gap = (pos(player).y * math.cos(a) - pos(player).x * math.sin(a)) - 0.5
        assert -1e-6 <= gap <= 0.02
        assert physics.ground(player).on_floor
    # at the game's horizontal speed
    assert np.diff(xs)[10:] / DT == pytest.approx(3.0 * direction, abs=0.05)


# ------------------------------------------------------------------ friction

@pytest.mark.parametrize("mu", [0.3, 0.6])
def test_a_crate_slides_to_a_stop_where_friction_says(world, mu):
    ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(200, 1), ep.STATIC, gravity=False, friction=mu)
    crate = body(0, 0.5 + 1e-4, ep.Rect(1, 1), ep.PASSIVE, friction=mu)
    run(5)
    vel(crate).x = 6.0  # pushed and released
    x0 = pos(crate).x
    run(240)
    assert vel(crate).x == pytest.approx(0.0, abs=1e-9)
    predicted = 6.0**2 / (2 * mu * G)
    assert (pos(crate).x - x0) == pytest.approx(predicted, rel=0.10)


def test_a_frictionless_crate_keeps_going(world):
    ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(200, 1), ep.STATIC, gravity=False, friction=0.6)
    crate = body(0, 0.5 + 1e-4, ep.Rect(1, 1), ep.PASSIVE, friction=0.0)
    run(5)
    vel(crate).x = 6.0
    run(120)
    assert vel(crate).x == pytest.approx(6.0)
    assert pos(crate).x == pytest.approx(6.0 * 2.0, abs=0.02)


# ------------------------------------------------------------------ floors, walls, ceilings

def test_ground_tells_floor_wall_and_ceiling(world):
    physics = ep.Physics(fixed_dt=DT)
    floor = body(0, -0.5, ep.Rect(40, 1), ep.STATIC, gravity=False)
    wall = body(3.0, 2.0, ep.Rect(1, 6), ep.STATIC, gravity=False)
    body(-6.0, 1.6, ep.Rect(2, 1), ep.STATIC, gravity=False)  # low ceiling, bottom at 1.1
    free = body(-12, 0.5 + 1e-4, ep.Rect(0.8, 1.0))
    walled = body(2.1 - 1e-3, 0.5 + 1e-4, ep.Rect(0.8, 1.0), vx=1.0)
    capped = body(-6.0, 0.5 + 1e-4, ep.Rect(0.8, 1.0))
    flying = body(10.0, 5.0, ep.Rect(0.8, 1.0), gravity=False)
    run(3)
    g = physics.ground(free)
    assert (g.on_floor, g.on_wall, g.on_ceiling) == (True, False, False)
    assert g.floor_normal == pytest.approx((0.0, 1.0), abs=1e-9) and g.floor_entity == floor
    assert g.floor_velocity == (0.0, 0.0)
    g = physics.ground(walled)
    assert (g.on_floor, g.on_wall, g.on_ceiling) == (True, True, False)
    g = physics.ground(capped)
    vel(capped).y = 5.0  # jumps into the ceiling
    run(2)
    g = physics.ground(capped)
    assert g.on_ceiling and not g.on_wall
    g = physics.ground(flying)
    assert g == ep.Ground(False, False, False, (0.0, 0.0), (0.0, 0.0), None)
    with pytest.raises(KeyError, match="not a body"):
        physics.ground(10_000)
    assert wall


@pytest.mark.parametrize(("angle", "floor"), [(44.0, True), (46.0, False)])
def test_a_slope_just_below_and_above_the_floor_angle(world, angle, floor):
    physics = ep.Physics(fixed_dt=DT)
    a = _ramp(angle)
    ball = body(-math.sin(a) * 0.5, math.cos(a) * 0.5 + 1e-4, ep.Circle(0.5),
                stop_on_slope=True)
    esper.process(DT)
    g = physics.ground(ball)
    assert g.on_floor is floor and g.on_wall is not floor
    if floor:
        assert g.floor_normal == pytest.approx((-math.sin(a), math.cos(a)), abs=1e-6)


def test_up_and_floor_angle_without_gravity(world):
    physics = ep.Physics(fixed_dt=DT, up=(1.0, 0.0), floor_max_angle=30.0)
    body(-0.5, 0, ep.Rect(1, 10), ep.STATIC, gravity=False)  # a "floor" to the left
    e = body(0.5 + 1e-4, 0, ep.Circle(0.5), vx=-1.0, gravity=False)
    esper.process(DT)
    assert physics.ground(e).on_floor
    assert physics.ground(e).floor_normal == pytest.approx((1.0, 0.0))


def test_bad_character_settings_are_refused_naming_them():
    with pytest.raises(ValueError, match="Collider.friction"):
        ep.Collider(ep.PASSIVE, friction=-1)
    with pytest.raises(TypeError, match="Collider.stop_on_slope"):
        ep.Collider(ep.ACTIVE, stop_on_slope=1)
    with pytest.raises(ValueError, match="Collider.one_way"):
        ep.Collider(ep.STATIC, one_way=(0, 0))
    with pytest.raises(ValueError, match="Collider.mass"):
        ep.Collider(ep.ACTIVE, mass=-math.inf)
    assert ep.Collider(ep.STATIC, one_way=(0, 2)).one_way == (0.0, 1.0)


def test_bad_physics_settings_are_refused_naming_them(world):
    with pytest.raises(ValueError, match="floor_max_angle"):
        ep.Physics(floor_max_angle=100)
    with pytest.raises(ValueError, match="up"):
        ep.Physics(up=(0, 0))
    with pytest.raises(ValueError, match="floor_snap"):
        ep.Physics(floor_snap=-1)


# ------------------------------------------------------------------ one-way platforms

def _one_way_level():
    body(0, -0.5, ep.Rect(40, 1), ep.STATIC, gravity=False)  # floor, top at 0
    return body(0, 3.0, ep.Rect(6, 0.2), ep.STATIC, gravity=False, one_way=(0.0, 1.0))


def test_jump_up_through_a_one_way_platform_and_land_on_it(world):
    physics = ep.Physics(fixed_dt=DT)
    shelf = _one_way_level()
    player = body(0, 0.5 + 1e-4, ep.Rect(0.8, 1.0))
    run(5)
    vel(player).y = 16.0  # up to 16**2 / 60 = 4.3 above: through the shelf at 2.9 .. 3.1
    top = 0.0
    for _ in range(120):
        esper.process(DT)
        top = max(top, pos(player).y)
    assert top > 3.1 + 0.5  # went up through it
    assert pos(player).y == pytest.approx(3.1 + 0.5, abs=0.01)  # and landed on it
    g = physics.ground(player)
    assert g.on_floor and g.floor_entity == shelf


def test_a_body_dropped_on_a_one_way_platform_rests_on_it(world):
    ep.Physics(fixed_dt=DT)
    _one_way_level()
    crate = body(1.0, 6.0, ep.Rect(1, 1), ep.PASSIVE)
    run(120)
    assert pos(crate).y == pytest.approx(3.1 + 0.5, abs=0.01)
    assert vel(crate).y == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("speed", [50.0, 500.0, 5000.0])
def test_a_fast_body_from_above_never_passes_a_one_way_platform(world, speed):
    ep.Physics(fixed_dt=DT)
    _one_way_level()
    bullet = body(0.0, 8.0, ep.Circle(0.1), vy=-speed, gravity=False)
    run(30)
    assert pos(bullet).y >= 3.1 + 0.1 - 1e-6


def test_a_body_walks_into_a_one_way_platform_from_the_side(world):
    ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(40, 1), ep.STATIC, gravity=False)
    body(4.0, 0.5, ep.Rect(2, 1), ep.STATIC, gravity=False, one_way=(0.0, 1.0))
    walker = body(0, 0.5 + 1e-4, ep.Rect(0.8, 0.6))
    for _ in range(180):
        vel(walker).x = 3.0
        esper.process(DT)
    assert pos(walker).x > 6.0  # through it from the side


def test_a_slope_of_exactly_floor_max_angle_is_a_floor_all_the_way_up(world):
    """A 45-degree ramp with the default ``floor_max_angle`` (45): the walker is on a floor in
    every step of the climb (its normal rounds to either side of cos 45: before, it was a
    wall in 36 of the steps and the walker fell behind) and reaches the top."""
    physics = ep.Physics(fixed_dt=1 / 60)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.Polygon([(0, 0), (5, 0), (5, 5)])))
    esper.create_entity(ep.Position(-5, -0.5), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(10, 1)))
    esper.create_entity(ep.Position(7.5, 4.5), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(5, 1)))
    walker = esper.create_entity(
        ep.Position(-1.0, 0.5), ep.Velocity(2.0, 0), ep.AccelerationMap(gravity=(0, -9.8)),
        ep.Collider(ep.ACTIVE, stop_on_slope=True), ep.Geometry(ep.Circle(0.5)))
    off = []
    for step in range(240):
        esper.component_for_entity(walker, ep.Velocity).x = 2.0
        esper.process(1 / 60)
        if not physics.ground(walker).on_floor:
            off.append(step)
    assert off == []
    p = esper.component_for_entity(walker, ep.Position)
    assert p.x == pytest.approx(7.0, abs=0.01) and p.y == pytest.approx(5.5, abs=0.01)
