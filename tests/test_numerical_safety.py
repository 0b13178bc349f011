"""Numerical safety of the compiled step: identical centres, exactly touching bodies, bodies
spawned inside each other and inside walls, very fast and very slow bodies, huge coordinates.
No NaN or infinity ever appears in a position or a velocity, and nothing passes through a
wall."""

from __future__ import annotations

import itertools
import math

import esper
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ecsphys as ep
from ecsphys import limits
from ecsphys.mask import Mask

SHAPES = [ep.Circle(0.5), ep.Rect(1, 1), ep.OrientedRect(1, 0.6, 30), ep.Segment((0, 0), (1, 0)),
          ep.Polygon([(0, 0), (1, 0), (0, 1)]),
          ep.Compound([ep.Circle(0.3), ep.Rect(0.5, 0.5, offset=(0.5, 0))]),
          Mask(np.ones((3, 3), dtype=bool), scale=0.3)]
KINDS = [ep.STATIC, ep.PASSIVE, ep.ACTIVE]
_WORLDS = itertools.count()


def finite(physics: ep.Physics) -> bool:
    t = physics.table
    return bool(np.isfinite(t.pos[: t.n]).all() and np.isfinite(t.vel[: t.n]).all())


@settings(max_examples=300)
@given(
    centre=st.sampled_from([(0.0, 0.0), (1e6, -1e6), (-3e8, 5e8)]),
    specs=st.lists(st.tuples(
        st.integers(0, len(SHAPES) - 1), st.integers(0, 2),
        st.sampled_from([(0.0, 0.0), (1.0, 0.0), (0.5, 0.0), (0.0, 1e-12), (1e-9, 1e-9),
                         (0.99999999, 0.0)]),
        st.sampled_from([(0.0, 0.0), (1e-12, 0.0), (5.0, -3.0), (1e5, 0.0), (0.0, -1e6),
                         (limits.MAX_SPEED, limits.MAX_SPEED)]),
        st.sampled_from([1.0, limits.MIN_MASS, limits.MAX_MASS, math.inf])),
        min_size=2, max_size=5),
    gravity=st.booleans())
def test_no_nan_from_degenerate_placements(centre, specs, gravity):
    """Bodies at identical centres, exactly touching (1.0 apart for unit shapes), a hair
    apart, inside each other, at rest, crawling or at the speed limit, very light and very
    heavy, near the origin or far from it."""
    previous = esper.current_world
    name = f"nan-{next(_WORLDS)}"
    esper.switch_world(name)
    physics = ep.Physics()
    cx, cy = centre
    for i, (s, k, (dx, dy), (vx, vy), mass) in enumerate(specs):
        kind = KINDS[k]
        comps = [ep.Position(cx + dx * i, cy + dy * i), ep.Velocity(vx, vy),
                 # infinite mass is an ACTIVE collider's only
                 ep.Collider(kind, mass=mass if kind == ep.ACTIVE or (
                     kind == ep.PASSIVE and mass != math.inf) else 1.0),
                 ep.Geometry(SHAPES[s])]
        if gravity:
            comps.append(ep.AccelerationMap(g=(0, -9.8)))
        esper.create_entity(*comps)
    try:
        for _ in range(20):
            esper.process(1 / 60)
            assert finite(physics)
    finally:
        esper.switch_world(previous)
        esper.delete_world(name)


@pytest.mark.parametrize("centre", [(0.0, 0.0), (1e6, 1e6), (-1e8, 2e8)])
@pytest.mark.parametrize("speed", [1.0, 1e3, 1e5, limits.MAX_SPEED])
@pytest.mark.parametrize("shape", [ep.Circle(0.2), ep.Rect(0.3, 0.3),
                                   ep.OrientedRect(0.4, 0.1, 45)])
def test_fast_bodies_never_pass_a_thin_wall_far_from_the_origin(world, centre, speed, shape):
    cx, cy = centre
    physics = ep.Physics()
    esper.create_entity(ep.Position(cx + 5, cy), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.Segment((0, -50), (0, 50))))
    ball = esper.create_entity(ep.Position(cx, cy), ep.Velocity(speed, speed / 1e3),
                               ep.Collider(ep.ACTIVE), ep.Geometry(shape))
    for _ in range(10):
        esper.process(1 / 60)
        assert finite(physics)
        assert esper.component_for_entity(ball, ep.Position).x < cx + 5


def test_a_body_spawned_inside_a_wall_comes_out_and_the_step_stays_finite(world):
    physics = ep.Physics()
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(4, 4)))
    inside = [esper.create_entity(ep.Position(x, y), ep.Velocity(0, 0), ep.Collider(kind),
                                  ep.Geometry(ep.Circle(0.5)))
              for (x, y), kind in [((0.0, 0.0), ep.PASSIVE), ((0.0, 0.0), ep.ACTIVE),
                                   ((1.9, 0.3), ep.PASSIVE), ((-0.4, 1.95), ep.ACTIVE)]]
    for _ in range(240):
        esper.process(1 / 60)
        assert finite(physics)
    for e in inside[2:]:  # near a side: pushed out of it
        x, y = esper.component_for_entity(e, ep.Position).xy
        assert max(abs(x), abs(y)) >= 2.0 + 0.5 - 1e-6, (x, y)


def test_slow_crawl_and_exact_touch_stay_exact(world):
    physics = ep.Physics()
    esper.create_entity(ep.Position(1.0, 0), ep.Collider(ep.STATIC), ep.Geometry(ep.Circle(0.5)))
    crawler = esper.create_entity(ep.Position(0.0, 0), ep.Velocity(1e-12, 0),
                                  ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
    for _ in range(60):
        esper.process(1 / 60)
        assert finite(physics)
    x = esper.component_for_entity(crawler, ep.Position).x
    assert x <= 0.0 + 1e-12  # exactly touching: it cannot move into the other
    assert physics.touching(crawler) != []
