"""The scenes the sleeping tests share (tests/test_sleep.py, tests/test_sleep_wake.py): a body
maker, a pile of balls in a walled box, and settling it until it sleeps."""

from __future__ import annotations

import esper
import numpy as np

import ecsphys as ep

DT = 1 / 60


def body(x, y, shape, kind=ep.ACTIVE, vx=0.0, vy=0.0, g=0.0, **collider):
    """A body at (x, y) with a Velocity, a Collider of ``kind`` and gravity ``g`` if given."""
    comps = [ep.Position(x, y), ep.Velocity(vx, vy), ep.Collider(kind, **collider),
             ep.Geometry(shape)]
    if g:
        comps.append(ep.AccelerationMap(gravity=(0.0, -g)))
    return esper.create_entity(*comps)


def run(steps):
    for _ in range(steps):
        esper.process(DT)


def world(name, sleep_after=0.5):
    """A fresh esper world ``name`` with its Physics."""
    esper.switch_world(name)
    esper.clear_database()
    return ep.Physics(fixed_dt=DT, sleep_after=sleep_after)


def pile(name, n, sleep_after=0.5, seed=3):
    """``n`` balls of radius 0.5 dropped into a box 8 wide; returns (physics, floor, walls,
    balls)."""
    physics = world(name, sleep_after)
    floor = body(0, -0.5, ep.Rect(12, 1), ep.STATIC)
    walls = [body(-4.5, 10, ep.Rect(1, 22), ep.STATIC), body(4.5, 10, ep.Rect(1, 22), ep.STATIC)]
    rng = np.random.default_rng(seed)
    balls = []
    for i in range(n):
        x = -3.4 + (i % 7) * 1.1 + rng.uniform(-0.05, 0.05)
        y = 0.6 + (i // 7) * 1.15
        balls.append(body(x, y, ep.Circle(0.5), g=9.8, vx=rng.uniform(-1, 1)))
    return physics, floor, walls, balls


def settle(physics, bodies, limit_s=20):
    """Step until every one of ``bodies`` sleeps; AssertionError after ``limit_s`` seconds."""
    for _ in range(int(limit_s / DT)):
        esper.process(DT)
        if all(physics.is_sleeping(b) for b in bodies):
            return
    asleep = sum(physics.is_sleeping(b) for b in bodies)
    raise AssertionError(f"{asleep} of {len(bodies)} asleep after {limit_s} s")


def positions(bodies):
    """The bodies' positions, an (n, 2) array."""
    return np.array([esper.component_for_entity(b, ep.Position).xy for b in bodies])


def body_state(physics):
    """Entities, positions, velocities and sleep flags of every body of ``physics``, in
    entity order (copies): what replays and twins compare bit for bit."""
    t = physics.table
    n = t.n
    order = np.argsort(t.entity[:n], kind="stable")
    return (t.entity[:n][order].copy(), t.pos[:n][order].copy(), t.vel[:n][order].copy(),
            t.asleep[:n][order].copy())
