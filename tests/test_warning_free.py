"""Normal scenes run without NumPy RuntimeWarnings and stay finite, and nearly equal moves
give no impact and no NaN (two resting circles carried by the same tiny velocity: the time of
impact's denominator once rounded to 0, giving inf * 0 = NaN times and normals)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import esper
import numpy as np

import ecsphys as ep
from ecsphys.geometry import time_of_impact

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo root: benchmarks/

from benchmarks import scenes as S  # noqa: E402

DT = 1 / 60


def test_toi_circle_circle_nearly_equal_moves_give_no_nan() -> None:
    # seen in the rain scene: neighbours on the floor, carried by the same tiny velocity
    cases = [
        ((26.53270577356902, 1.0000999999999998), (1.7741992183522894e-05, 0.0),
         (28.532978898868386, 1.0000999999999998), (1.774199218352278e-05, 0.0)),
        ((1.0000999472025427, 1.0001), (-0.00011138925983436901, 0.0),
         (3.0001993900822987, 1.0001), (-0.00011138925983436903, 0.0)),
        # and the extreme: a relative move of a denormal, head on
        ((0.0, 0.0), (5e-324, 0.0), (2.5, 0.0), (0.0, 0.0)),
    ]
    ball = ep.Circle(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for pa, ma, pb, mb in cases:
            assert time_of_impact(ball, pa, ma, ball, pb, mb) is None
    # the same balls a hair closer than the move: the impact is finite
    hit = time_of_impact(ball, (0.0, 0.0), (1e-3, 0.0), ball, (2.0005, 0.0))
    assert hit is not None and 0.0 < hit[0] < 1.0 and np.isfinite(hit[1].normal).all()


def test_rain_runs_warning_free() -> None:
    scene = S.build("rain", "ecsphys", 300)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            S.run(scene, 120)
        assert np.isfinite(scene.positions()).all()
    finally:
        scene.close()


def test_mixed_shapes_rain_runs_warning_free(world) -> None:
    """Circles, rects, oriented rects, polygons and segments piling up in a box."""
    physics = ep.Physics(fixed_dt=DT)
    for x, y, w, h in ((0, -0.5, 22, 1), (-10.5, 8, 1, 16), (10.5, 8, 1, 16)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(w, h)))
    esper.create_entity(ep.Position(0, 4), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.Segment((-3, 0), (3, -1))))
    shapes = [ep.Circle(0.4), ep.Rect(0.8, 0.6), ep.OrientedRect(0.8, 0.5, 30),
              ep.Polygon([(-0.4, -0.3), (0.4, -0.3), (0, 0.4)]), ep.Circle(0.25)]
    rng = np.random.default_rng(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for step in range(180):
            if step % 10 == 0 and step < 120:
                for x in np.linspace(-8, 8, 6) + rng.uniform(-0.2, 0.2, 6):
                    kind = ep.ACTIVE if rng.random() < 0.7 else ep.PASSIVE
                    esper.create_entity(
                        ep.Position(float(x), 14.0), ep.Velocity(0, -6),
                        ep.AccelerationMap(gravity=(0, -20)), ep.Collider(kind),
                        ep.Geometry(shapes[int(rng.integers(len(shapes)))]))
            esper.process(DT)
    assert physics.body_count > 70 and len(physics.contacts()) > 50
