"""Response scenes through the public API: no tunneling, resting, sliding, crowds, pushing."""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

import ecsphys as ep


def make(kind, x, y, shape, vx=0.0, vy=0.0, **collider):
    return esper.create_entity(ep.Position(x, y), ep.Velocity(vx, vy),
                               ep.Collider(kind, **collider), ep.Geometry(shape))


def pos(e):
    return esper.component_for_entity(e, ep.Position)


def vel(e):
    return esper.component_for_entity(e, ep.Velocity)


@pytest.mark.parametrize("dt", [1 / 60, 1 / 20])
@pytest.mark.parametrize("angle", [0.0, 17.0, 45.0, 63.0, 80.0])
@pytest.mark.parametrize("wall", ["rect", "segment"])
def test_fast_bullet_never_passes_a_thin_wall(world, dt, angle, wall):
    physics = ep.Physics(fixed_dt=dt)
    shape = ep.Rect(0.1, 40) if wall == "rect" else ep.Segment((0, -20), (0, 20))
    make(ep.STATIC, 0.0, 0.0, shape)
    a = math.radians(angle)
    speed = 2000.0
    bullet = make(ep.ACTIVE, -3.0, -3.0 * math.tan(a) * 0.5, ep.Circle(0.05),
                  speed * math.cos(a), speed * math.sin(a), restitution=0.0)
    for _ in range(10):
        physics.step()
        assert pos(bullet).x < 0.0, f"bullet crossed the wall at step {physics.steps}"
    # it stopped at the wall's face (minus its radius), not short of it
    face = -0.05 if wall == "rect" else 0.0
    assert pos(bullet).x == pytest.approx(face - 0.05, abs=2e-3)


def test_ball_dropped_on_floor_comes_to_rest_without_jitter(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    make(ep.STATIC, 0, 0, ep.Rect(40, 1))  # top at y = 0.5
    ball = esper.create_entity(ep.Position(0, 5), ep.Velocity(0, 0),
                               ep.AccelerationMap(gravity=(0, -9.8)),
                               ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
    ys = []
    for _ in range(600):
        physics.step()
        ys.append(pos(ball).y)
    bottom = pos(ball).y - 0.5
    assert 0.5 <= bottom <= 0.5 + 0.01
    assert vel(ball).y == 0.0
    tail = np.array(ys[-300:])
    assert tail.max() - tail.min() < 1e-9  # no jitter


def test_diagonal_move_into_a_long_wall_slides_along_it(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    make(ep.STATIC, 0, 0, ep.Rect(100, 1))  # top at 0.5
    body = make(ep.ACTIVE, 0, 1.5, ep.Circle(0.5), 3.0, -3.0)
    for _ in range(60):
        v = esper.component_for_entity(body, ep.Velocity)
        v.xy = (3.0, -3.0)  # the game pushes diagonally into the wall every frame
        physics.step()
    # the tangential speed is kept: one second of 3 units/s along the wall
    assert pos(body).x == pytest.approx(3.0, abs=0.06)
    assert 1.0 <= pos(body).y <= 1.0 + 0.01


@pytest.mark.parametrize("mode", ["tangent", "project"])
def test_sliding_along_a_segment_wall(world, mode):
    physics = ep.Physics(fixed_dt=1 / 60)
    make(ep.STATIC, 0, 0, ep.Segment((-50, 0), (50, 0)))
    body = make(ep.ACTIVE, 0, 1.0, ep.Circle(0.5), 2.0, -4.0, slide=mode)
    for _ in range(30):
        vel(body).xy = (2.0, -4.0)
        physics.step()
    assert pos(body).y >= 0.5
    assert pos(body).x > 0.5  # it kept moving along the wall


def test_two_tangent_circles_meeting_head_on_pass_each_other(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    a = make(ep.ACTIVE, -5, 0, ep.Circle(0.5), slide="tangent")
    b = make(ep.ACTIVE, 5, 0, ep.Circle(0.5), slide="tangent")
    goals = {a: (5.0, 0.0), b: (-5.0, 0.0)}
    for _ in range(600):
        for e, (gx, gy) in goals.items():
            p = pos(e)
            dx, dy = gx - p.x, gy - p.y
            d = math.hypot(dx, dy)
            vel(e).xy = (0.0, 0.0) if d < 0.05 else (3 * dx / d, 3 * dy / d)
        physics.step()
        pa, pb = np.array(pos(a).xy), np.array(pos(b).xy)
        assert np.linalg.norm(pa - pb) >= 1.0 - 1e-3
    assert pos(a).x > 4.5 and pos(b).x < -4.5


def test_project_ball_rolling_on_floor_keeps_horizontal_speed(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    for i in range(-20, 21):  # a floor of tiles: no seams felt
        make(ep.STATIC, i * 2.0, 0, ep.Rect(2, 1))
    ball = esper.create_entity(ep.Position(-30, 1.0 + 1e-4), ep.Velocity(4, 0),
                               ep.AccelerationMap(gravity=(0, -9.8)),
                               ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
    for _ in range(300):
        physics.step()
        # tile seams may tilt a contact normal by a hair, never more: no bounce, no sinking
        assert vel(ball).x == pytest.approx(4.0, abs=2e-3)
        assert abs(vel(ball).y) <= 1e-12
    assert pos(ball).x == pytest.approx(-30 + 4 * 5, abs=0.01)
    assert pos(ball).y == pytest.approx(1.0, abs=0.01)


def crate_push(crate_mass):
    """A player walking right on a floor into a crate (friction 0.6 between crate and
    floor); returns both x after two seconds."""
    physics = ep.Physics(fixed_dt=1 / 60)
    make(ep.STATIC, 0, -0.5, ep.Rect(100, 1), friction=0.6)  # floor top at 0
    gravity = ep.AccelerationMap(gravity=(0, -9.8))
    player = make(ep.ACTIVE, 0, 0.5 + 1e-4, ep.Rect(1, 1))
    esper.add_component(player, gravity)
    crate = make(ep.PASSIVE, 1.6, 0.5 + 1e-4, ep.Rect(1, 1), mass=crate_mass, friction=0.6)
    esper.add_component(crate, ep.AccelerationMap(gravity=(0, -9.8)))
    for _ in range(120):
        vel(player).x = 3.0  # walking right
        physics.step()
        assert pos(crate).y == pytest.approx(0.5, abs=0.01)
    return pos(player).x, pos(crate).x


def test_player_pushes_crate_and_heavier_crate_slows_more(world):
    light_player, light_crate = crate_push(1.0)
    assert light_crate > 1.6 + 1.0  # the crate moved
    assert light_crate - light_player >= 1.0 - 1e-3  # never overlapping
    esper.switch_world(world + "-heavy")
    try:
        heavy_player, heavy_crate = crate_push(5.0)
    finally:
        esper.switch_world(world)
    assert heavy_player < light_player - 0.5
    assert heavy_crate < light_crate
    assert heavy_crate - heavy_player >= 1.0 - 1e-3


def test_crate_on_moving_platform_moves_with_it(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    platform = make(ep.ACTIVE, 0, 0, ep.Rect(6, 0.5), mass=math.inf)  # never pushed: carries
    crate = esper.create_entity(ep.Position(0, 0.75 + 1e-3), ep.Velocity(0, 0),
                                ep.AccelerationMap(gravity=(0, -9.8)),
                                ep.Collider(ep.PASSIVE), ep.Geometry(ep.Rect(1, 1)))
    for _ in range(120):
        vel(platform).xy = (2.0, 0.0)
        physics.step()
    assert pos(platform).x == pytest.approx(4.0, abs=1e-6)
    assert pos(crate).x == pytest.approx(pos(platform).x, abs=0.1)
    assert pos(crate).y == pytest.approx(0.75, abs=0.01)


def test_sensor_changes_nothing_about_motion(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    make(ep.STATIC, 0, 0, ep.Rect(2, 2), sensor=True)
    body = make(ep.ACTIVE, -3, 0, ep.Circle(0.5), 3.0, 0.0)
    for _ in range(120):
        physics.step()
    assert pos(body).x == pytest.approx(3.0)
    assert vel(body).xy == (3.0, 0.0)
    assert physics.steps == 120


def test_body_spawned_inside_a_wall_is_pushed_out_the_short_way(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    make(ep.STATIC, 0, 0, ep.Rect(10, 2))  # top at 1
    body = make(ep.ACTIVE, 3.0, 0.8, ep.Circle(0.5))
    physics.step()
    assert pos(body).y == pytest.approx(1.5, abs=1e-6)
    assert pos(body).x == pytest.approx(3.0)


def test_static_bodies_never_move_when_hit(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    wall = make(ep.STATIC, 0, 0, ep.Rect(1, 10))
    for i in range(5):
        make(ep.PASSIVE, -3, i * 1.5 - 3, ep.Circle(0.5), 30.0, 0.0, mass=100.0)
    for _ in range(60):
        physics.step()
    assert pos(wall).xy == (0.0, 0.0)


def gap_crowd(n=200, steps=900):
    """n tangent-sliding agents through a 4-unit gap; returns (all through, max overlap)."""
    physics = ep.Physics(fixed_dt=1 / 60)
    make(ep.STATIC, 0, 12.0, ep.Rect(1, 20))  # wall above the gap: y from 2 to 22
    make(ep.STATIC, 0, -12.0, ep.Rect(1, 20))  # below: y from -22 to -2
    rng = np.random.default_rng(1)
    agents = []
    cols = 10
    for i in range(n):
        x = -3.0 - (i // cols) * 0.9 + rng.uniform(-0.02, 0.02)
        y = ((i % cols) - (cols - 1) / 2) * 0.9
        agents.append(make(ep.ACTIVE, x, y, ep.Circle(0.4), slide="tangent"))
    goal = np.array([40.0, 0.0])
    worst = 0.0
    positions = [pos(e) for e in agents]  # the components: views, read every step
    velocities = [vel(e) for e in agents]
    apart = np.eye(len(agents)) * 10  # an agent against itself never counts
    xy = np.array([p.xy for p in positions])
    for _ in range(steps):
        d = goal - xy
        d *= 3.0 / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)[:, None]
        for v, (vx, vy) in zip(velocities, d.tolist(), strict=True):
            v.xy = (vx, vy)
        physics.step()
        xy = np.array([p.xy for p in positions])
        diff = xy[:, None, :] - xy[None, :, :]
        dist = np.sqrt((diff**2).sum(-1)) + apart
        worst = max(worst, float(0.8 - dist.min()))
    through = int((xy[:, 0] > 0.5).sum())
    return through, worst


def test_small_crowd_passes_a_gap_without_overlap(world):
    through, worst = gap_crowd(n=40, steps=500)
    assert through == 40
    assert worst <= 1e-3


def test_crowd_of_200_passes_a_gap_without_overlap(world):
    through, worst = gap_crowd(n=200, steps=1800)
    assert through == 200
    assert worst <= 1e-3


def test_bouncing_bullets_keep_their_energy(world):
    """Elastic bullets (restitution 1, no gravity) in a closed box bounce off the walls and
    each other for 120 steps: kinetic energy never grows and is kept (to 1e-6), however many
    bullets meet a wall and another bullet in the same step; none leaves the box."""
    size, n = 40.0, 300
    physics = ep.Physics(fixed_dt=1 / 60)
    for x, y, w, h in ((size / 2, -0.05, size, 0.1), (size / 2, size + 0.05, size, 0.1),
                       (-0.05, size / 2, 0.1, size), (size + 0.05, size / 2, 0.1, size)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(w, h)))
    rng = np.random.default_rng(7)
    for _ in range(n):
        speed, angle = rng.uniform(200, 2000), rng.uniform(0, 2 * math.pi)
        esper.create_entity(
            ep.Position(*rng.uniform(1, size - 1, 2)),
            ep.Velocity(speed * math.cos(angle), speed * math.sin(angle)),
            ep.Collider(ep.ACTIVE, restitution=1.0), ep.Geometry(ep.Circle(0.05)))
    bullets = [e for e, c in esper.get_component(ep.Collider) if c.kind == ep.ACTIVE]

    def energy() -> float:
        vs = [esper.component_for_entity(e, ep.Velocity) for e in bullets]
        return sum(v.x * v.x + v.y * v.y for v in vs)

    e0 = energy()
    met = 0
    for _ in range(120):
        physics.step()
        e = energy()
        assert e <= e0 * (1 + 1e-9)
        met += sum(1 for c in physics.contacts() if c.a in bullets and c.b in bullets)
    assert energy() == pytest.approx(e0, rel=1e-6)
    assert met > 0  # bullets did meet each other, not only the walls
    for e in bullets:
        p = esper.component_for_entity(e, ep.Position)
        assert 0.0 <= p.x <= size and 0.0 <= p.y <= size
