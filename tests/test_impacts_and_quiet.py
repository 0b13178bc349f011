"""Every impact is reported, resting piles go quiet, a steady push, clear errors: scenes through
the public API (DESIGN "Events"), each stepped by ``esper.process``."""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

import ecsphys as ep

DT = 1 / 60
GRAVITY = (0.0, -9.8)


class Log:
    """Every event of a Physics as ``(event, step, contact)``."""

    def __init__(self, physics: ep.Physics) -> None:
        self.physics = physics
        self.events: list[tuple[str, int, ep.BodyContact]] = []
        physics.on_touch(lambda c: self.events.append(("touch", physics.steps, c)))
        physics.on_keep_touching(lambda c: self.events.append(("keep", physics.steps, c)))
        physics.on_separate(lambda c: self.events.append(("separate", physics.steps, c)))

    def of(self, *names: str) -> list[tuple[str, int, ep.BodyContact]]:
        return [e for e in self.events if e[0] in names]


def _first_meeting(p: np.ndarray, v: np.ndarray, reach: float) -> float:
    """The first time t >= 0 at which |p + v t| == reach (relative motion of two circles)."""
    a = float(v @ v)
    b = 2.0 * float(p @ v)
    c = float(p @ p) - reach * reach
    disc = b * b - 4 * a * c
    assert disc > 0.0
    return (-b - math.sqrt(disc)) / (2 * a)


# ------------------------------------------------------------------ every impact is reported

@pytest.mark.parametrize("enemy_velocity", [(90.0, 0.0), (0.0, 90.0)])
@pytest.mark.parametrize("direction", [(1, 0), (-1, 0), (0, 1), (0, -1)])
def test_bullet_hitting_a_moving_enemy_touches_in_the_step_of_the_hit(
        world, direction, enemy_velocity):
    # The scene: a light fast bullet (mass 0.05, 900 units/s, radius 3) against an
    # enemy (radius 10) the game drives at (90, 0) or (0, 90) every frame. Where the enemy moves
    # across the bullet's path the bullet glances off and both end the step apart: the hit
    # still gives its touch in that step.
    physics = ep.Physics(fixed_dt=DT)
    enemy = esper.create_entity(ep.Position(0, 0), ep.Velocity(*enemy_velocity),
                                ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(10)))
    dx, dy = direction
    start = np.array([-100.0 * dx, -100.0 * dy])
    bullet_v = np.array([900.0 * dx, 900.0 * dy])
    bullet = esper.create_entity(ep.Position(*start), ep.Velocity(*bullet_v),
                                 ep.Collider(ep.ACTIVE, mass=0.05), ep.Geometry(ep.Circle(3)))
    log = Log(physics)
    vel = esper.component_for_entity(enemy, ep.Velocity)
    # when the two meet, worked out from the motion alone
    ev = np.array(enemy_velocity)
    t_hit = _first_meeting(start, bullet_v - ev, 13.0)
    hit_step = math.ceil(t_hit / DT)
    assert 1 < hit_step < 10
    for _ in range(hit_step + 3):
        vel.xy = enemy_velocity  # the game drives the enemy every frame
        esper.process(DT)
    touches = log.of("touch")
    assert touches, "the hit was not reported"
    name, step, c = touches[0]
    assert step == hit_step
    assert (c.a, c.b) == (enemy, bullet)
    # the normal (from the enemy to the bullet) faces where the bullet came from; bodies move
    # one at a time (the enemy first), so it is the normal of the bullet's move against the
    # enemy where it stands after its own move
    n = np.array(c.normal)
    assert n @ n == pytest.approx(1.0)
    assert float(n @ -np.array(direction)) > 0.5
    # the approach speed along that normal
    assert c.speed == pytest.approx(float(-(bullet_v - ev) @ n), rel=1e-6)
    assert c.speed > 400.0  # 810 / 990 head-on, 458 for the glancing hits
    # every touch is followed by its separate, in order, never two touches in a row
    names = [e[0] for e in log.of("touch", "separate")]
    assert names[:2] in (["touch"], ["touch", "separate"])


def test_glancing_impact_that_ends_apart_touches_then_separates_next_step(world):
    physics = ep.Physics(fixed_dt=DT)
    enemy = esper.create_entity(ep.Position(0, 0), ep.Velocity(90, 0),
                                ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(10)))
    bullet = esper.create_entity(ep.Position(0, -100), ep.Velocity(0, 900),
                                 ep.Collider(ep.ACTIVE, mass=0.05), ep.Geometry(ep.Circle(3)))
    log = Log(physics)
    vel = esper.component_for_entity(enemy, ep.Velocity)
    for _ in range(12):
        vel.xy = (90, 0)
        esper.process(DT)
    seq = [(name, step) for name, step, _ in log.of("touch", "separate")]
    assert seq == [("touch", 7), ("separate", 8)]
    touch = log.of("touch")[0][2]
    assert touch.depth == 0.0  # apart at the end of the step: the impact's contact
    assert touch.pair == (enemy, bullet)
    assert touch.point[1] < 0.0  # hit from below
    assert touch.speed > 400.0


@pytest.mark.parametrize("kind", [ep.STATIC, ep.PASSIVE])
def test_fast_body_through_a_thin_sensor_touches_and_separates(world, kind):
    # 10 units a step through a gate 0.2 thick: never overlapping it at a step's end.
    physics = ep.Physics(fixed_dt=DT)
    gate = esper.create_entity(ep.Position(0, 0), ep.Collider(kind, sensor=True),
                               ep.Geometry(ep.Rect(0.2, 4)))
    ball = esper.create_entity(ep.Position(-5, 0.5), ep.Velocity(600, 0),
                               ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.25)))
    log = Log(physics)
    for _ in range(4):
        esper.process(DT)
    seq = [(name, step) for name, step, _ in log.events]
    # documented: the touch in the step of the crossing, the separate in the next step
    assert seq == [("touch", 1), ("separate", 2)]
    c = log.events[0][2]
    assert c.pair == (gate, ball) and c.sensor
    assert c.speed == pytest.approx(600.0)
    assert c.normal == pytest.approx((-1.0, 0.0))  # the ball entered from the left
    assert c.point == pytest.approx((-0.1, 0.5))
    assert c.depth == 0.0
    # a sensor does not stop it
    assert esper.component_for_entity(ball, ep.Position).x == pytest.approx(35.0)
    assert physics.contact_set.speed.shape == (0,)


def test_resting_contact_reports_no_impact_speed(world):
    physics = ep.Physics(fixed_dt=DT)
    esper.create_entity(ep.Position(0, -0.5), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(10, 1)))
    esper.create_entity(ep.Position(0, 0.5001), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                        ep.Geometry(ep.Circle(0.5)))
    log = Log(physics)
    for _ in range(5):
        esper.process(DT)
    assert [e[0] for e in log.events] == ["touch"] + ["keep"] * 4
    assert all(e[2].speed == 0.0 for e in log.events)


# ------------------------------------------------------------------ resting piles go quiet

def test_touching_pair_separates_only_beyond_the_separation_offset(world):
    # contact_offset 0.01: a new pair touches within 0.01, a touching pair stays touching up
    # to 0.02 apart (hysteresis), so a resting pair jittering by a few thousandths never
    # flickers.
    physics = ep.Physics(fixed_dt=DT)
    assert physics.separation_offset == pytest.approx(2 * physics.contact_offset)
    a = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(ep.Circle(1)))
    b = esper.create_entity(ep.Position(2.015, 0), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                            ep.Geometry(ep.Circle(1)))
    pos = esper.component_for_entity(b, ep.Position)
    log = Log(physics)

    def at(x: float) -> list[str]:
        pos.x = x
        esper.process(DT)
        out = [e[0] for e in log.events]
        log.events.clear()
        return out

    assert at(2.015) == []  # a new pair 0.015 apart: not touching yet
    assert at(2.005) == ["touch"]
    assert at(2.015) == ["keep"]  # touching: stays so within 0.02
    assert at(2.019) == ["keep"]
    assert at(2.012) == ["keep"]
    assert at(2.021) == ["separate"]
    assert at(2.015) == []  # apart again: 0.015 is too far for a new touch
    assert at(2.009) == ["touch"]
    assert physics.touching(a) == [b]
    # a changed collider starts again like a new pair (narrow offset)
    assert at(2.015) == ["keep"]
    esper.component_for_entity(b, ep.Collider).layer = 2
    assert at(2.015) == ["separate"]


def _settled_pile(world_name: str, seconds: float):
    from benchmarks.scenes import rain_layout  # the benchmark's "events" scene (200 balls)

    lay = rain_layout(200, seed=0)
    physics = ep.Physics(fixed_dt=DT)
    for (cx, cy), (w, h) in zip(lay.static_centre.tolist(), lay.static_size.tolist(),
                                strict=True):
        esper.create_entity(ep.Position(cx, cy), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(w, h)))
    circle = ep.Circle(lay.radius)
    balls = [esper.create_entity(ep.Position(x, y), ep.Velocity(vx, vy),
                                 ep.AccelerationMap(gravity=GRAVITY), ep.Collider(ep.ACTIVE),
                                 ep.Geometry(circle))
             for (x, y), (vx, vy) in zip(lay.dynamic_pos.tolist(), lay.dynamic_vel.tolist(),
                                         strict=True)]
    for _ in range(round(seconds / DT)):
        esper.process(DT)
    return physics, balls


def _watch(physics, balls, steps: int = 300) -> tuple[int, float, float]:
    """Touches + separates, the largest displacement and the largest |velocity| component
    of the balls over ``steps`` more steps."""
    log = Log(physics)
    rows = np.array([physics.table.row_of[e] for e in balls])
    start = physics.table.pos[rows].copy()
    moved = 0.0
    fastest = 0.0
    for _ in range(steps):
        esper.process(DT)
        moved = max(moved, float(np.abs(physics.table.pos[rows] - start).max()))
        fastest = max(fastest, float(np.abs(physics.table.vel[rows]).max()))
    return len(log.of("touch", "separate")), moved, fastest


def test_settled_pile_of_200_stays_quiet(world):
    """A pile that has come to rest stays put: no flicker of touches and separates, no
    wandering, velocities that read about zero. The pile is frictionless (the benchmark's
    scene), so it settles like a liquid: at 10 s some balls are still rolling into gaps
    (measured: 22 touches + separates and one ball rolling 0.58 in the next 5 s, each a real
    rearrangement, not jitter); by 25 s it has come to rest. Watched from 30 s.
    Thresholds from measurements (5 s watched): pymunk 7 after 10 s gives 6 touches / 5
    separates, 0.12 max displacement, 0.09 max |v|; here 2, 0.05 and 0.27."""
    physics, balls = _settled_pile(world, seconds=30.0)
    flicker, moved, fastest = _watch(physics, balls)
    assert flicker <= 10, flicker
    assert moved < 0.15, moved
    assert fastest < 1.0, fastest


def test_a_falling_pile_keeps_velocities_near_its_motion(world):
    """While the pile still settles (at 10 s), resting balls do not read the speed gravity
    would give them: what they read stays near what they do (the issue saw -3 to -16.7 on
    balls that did not move)."""
    physics, balls = _settled_pile(world, seconds=10.0)
    flicker, moved, fastest = _watch(physics, balls)
    assert fastest < 2.0, fastest
    assert flicker <= 40, flicker  # was ~2,600 before the compiled slide


# ------------------------------------------------------------------ a steady push

def _push(player_y: float, gap: float, steps: int = 60):
    """Per-step crate and player displacements, and the events between them, while an ACTIVE
    player walks at 4 into a PASSIVE crate of the same mass, both resting on a floor (crate
    and floor with friction 0.6)."""
    esper.switch_world(f"push-{player_y}-{gap}")
    try:
        physics = ep.Physics(fixed_dt=DT)
        log = Log(physics)
        esper.create_entity(ep.Position(0, -0.5), ep.Collider(ep.STATIC, friction=0.6),
                            ep.Geometry(ep.Rect(100, 1)))
        player = esper.create_entity(ep.Position(0, player_y), ep.Velocity(0, 0),
                                     ep.AccelerationMap(gravity=GRAVITY),
                                     ep.Collider(ep.ACTIVE), ep.Geometry(ep.Rect(0.8, 1.8)))
        crate = esper.create_entity(ep.Position(1.2 + gap, 0.8), ep.Velocity(0, 0),
                                    ep.AccelerationMap(gravity=GRAVITY),
                                    ep.Collider(ep.PASSIVE, friction=0.6),
                                    ep.Geometry(ep.Rect(1.6, 1.6)))
        vel = esper.component_for_entity(player, ep.Velocity)
        cpos = esper.component_for_entity(crate, ep.Position)
        ppos = esper.component_for_entity(player, ep.Position)
        crate_moves, player_moves = [], []
        for _ in range(steps):
            vel.xy = (4.0, vel.y)  # the game walks the player every frame
            c0, p0 = cpos.x, ppos.x
            esper.process(DT)
            crate_moves.append(cpos.x - c0)
            player_moves.append(ppos.x - p0)
            assert abs(cpos.y - 0.8) < 1e-3 and abs(ppos.y - player_y) < 1e-3  # on the floor
        pair = [(name, step) for name, step, c in log.of("touch", "separate")
                if c.pair == (player, crate)]
        return np.array(crate_moves) / DT, np.array(player_moves) / DT, pair
    finally:
        esper.switch_world("default")


@pytest.mark.parametrize(("player_y", "gap"), [
    (0.9, 0.0), (0.9, 1e-4), (0.9001, 0.0), (0.9001, 1e-4),
    (0.9002, 0.0), (0.9002, 1e-4)])
def test_player_pushes_a_crate_at_a_steady_speed(world, player_y, gap):
    crate, player, pair = _push(player_y, gap)
    # after getting going (each step halves the gap to the steady speed, a little under the
    # player's 4 as the floor's friction drags the crate), no cycling (the issue saw 4, 0, 2,
    # 1 ... per step): crate and player move the same distance every step, together
    steady_crate, steady_player = crate[30:], player[30:]
    assert 3.5 < steady_crate.min() < 4.0, crate
    assert np.ptp(steady_crate) < 1e-6, crate
    assert np.ptp(steady_player) < 1e-6, player
    assert steady_player == pytest.approx(steady_crate)
    # they touch once and stay in touch while pushing
    assert pair == [("touch", pair[0][1])] and pair[0][1] <= 2, pair


# ------------------------------------------------------------------ clear errors

def test_bare_shape_on_a_body_raises_naming_the_fix(world):
    physics = ep.Physics(fixed_dt=DT)
    e = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.ACTIVE), ep.Circle(0.5))
    with pytest.raises(TypeError, match=r"Geometry\(") as info:
        esper.process(DT)
    assert f"entity {e}" in str(info.value) and "Circle(0.5)" in str(info.value)
    assert physics.body_count == 0  # nothing adopted
    with pytest.raises(TypeError, match=r"Geometry\("):  # still refused on the next frame
        esper.process(DT)
    # the fix works: a Geometry holding the shape
    esper.remove_component(e, ep.Circle)
    esper.add_component(e, ep.Geometry(ep.Circle(0.5)))
    esper.process(DT)
    assert physics.body_count == 1


def test_bare_shape_added_later_raises_too(world):
    ep.Physics(fixed_dt=DT)
    e = esper.create_entity(ep.Position(0, 0), ep.Velocity(1, 0), ep.Collider(ep.ACTIVE))
    with pytest.warns(ep.MissingGeometryWarning, match=f"entity {e} "):
        esper.process(DT)
    esper.add_component(e, ep.Rect(1, 1))
    with pytest.raises(TypeError, match=r"Geometry\(Rect"):
        esper.process(DT)


def test_a_shape_on_a_body_with_a_geometry_or_on_a_non_body_is_left_alone(world):
    physics = ep.Physics(fixed_dt=DT)
    esper.create_entity(ep.Circle(1))  # not a body (no Position): not the physics' business
    esper.create_entity(ep.Position(0, 0), ep.Rect(1, 1))  # no Velocity, no Collider
    body = esper.create_entity(ep.Position(5, 0), ep.Velocity(1, 0), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(1)), ep.Circle(2))  # has its Geometry
    esper.process(DT)
    assert physics.body_count == 1
    assert esper.component_for_entity(body, ep.Position).x > 5.0  # it moves


def test_interpolated_position_of_an_unknown_entity_names_it(world):
    physics = ep.Physics(fixed_dt=DT)
    e = esper.create_entity(ep.Position(1, 2), ep.Velocity(0, 0))
    with pytest.raises(KeyError, match=f"entity {e}"):  # not adopted yet
        physics.interpolated_position(e)
    esper.process(DT)
    assert physics.interpolated_position(e) == (1.0, 2.0)
    with pytest.raises(KeyError, match="entity 12345"):
        physics.interpolated_position(12345)
