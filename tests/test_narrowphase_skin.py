"""The narrowphase skin for the pairs tested per pair (polygons, oriented rects, compounds,
segment-rect, segment-segment): shapes apart by at most ``contact_offset`` touch, with
``depth = -distance``, the normal along the closest points and a point between the shapes;
overlaps keep ``contact``'s answer; bodies resting on polygon floors do not flicker."""

from __future__ import annotations

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys import geometry
from ecsphys.state.body_table import BodyTable
from ecsphys.systems.narrowphase import contacts

DT = 1 / 60
FLOOR = ep.Polygon([(-20, -0.5), (20, -0.5), (20, 0.5), (-20, 0.5)])
HOUSE = ep.Polygon([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.3), (0.0, 0.7), (-0.5, 0.3)])


def table_of(*bodies: tuple[ep.Shape, tuple[float, float]]) -> BodyTable:
    """A body table holding the shapes (static) at their positions."""
    t = BodyTable()
    for e, (shape, (x, y)) in enumerate(bodies, start=1):
        t.add(e, (ep.Position(x, y), None, None, ep.Collider(ep.STATIC), ep.Geometry(shape)))
    return t


def pair_contact(a, pa, b, pb, tol: float = 0.01):
    """``contacts`` of the one pair (a, b)."""
    t = table_of((a, pa), (b, pb))
    hit, normal, depth, point = contacts(t, np.array([0]), np.array([1]), t.pos, tol)
    return bool(hit[0]), tuple(normal[0]), float(depth[0]), tuple(point[0])


SCALAR_PAIRS = [
    (FLOOR, ep.OrientedRect(1, 1, 0)),
    (FLOOR, HOUSE),
    (ep.Polygon([(-1, -1), (1, -1), (0, 1)]), ep.Compound([ep.Rect(1, 1), ep.Circle(0.3)])),
    (ep.Segment((-2, 0.5), (2, 0.5)), ep.Rect(1, 1)),
    (ep.Segment((-2, 0.5), (2, 0.5)), ep.Segment((-1, -0.1), (1, 0.6))),
    (ep.OrientedRect(2, 1, 30), ep.Polygon([(-0.5, -0.5), (0.5, -0.5), (0, 0.5)])),
]


@pytest.mark.parametrize(("a", "b"), SCALAR_PAIRS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("gap", [0.0001, 0.005, 0.0099])
def test_pairs_within_the_skin_touch_with_minus_distance(a, b, gap) -> None:
    # place b straight above a, then lower it to `gap` along the separation's normal
    pb = (0.1, 3.0)
    s = geometry.distance(a, (0, 0), b, pb)
    k = s.distance - gap
    pb = (pb[0] - s.normal[0] * k, pb[1] - s.normal[1] * k)
    s = geometry.distance(a, (0, 0), b, pb)
    assert s.distance == pytest.approx(gap, abs=1e-9)
    for first, second, sign in (((a, (0, 0)), (b, pb), 1), ((b, pb), (a, (0, 0)), -1)):
        hit, normal, depth, point = pair_contact(*first, *second)
        assert hit
        assert depth == pytest.approx(-s.distance, abs=1e-12)
        assert normal == pytest.approx((sign * s.normal[0], sign * s.normal[1]), abs=1e-9)
        mid = ((s.point_a[0] + s.point_b[0]) / 2, (s.point_a[1] + s.point_b[1]) / 2)
        assert point == pytest.approx(mid, abs=1e-9)
        # beyond the skin: apart
        hit, *_ = pair_contact(*first, *second, tol=gap / 2)
        assert not hit


@pytest.mark.parametrize(("a", "b"), SCALAR_PAIRS, ids=lambda s: type(s).__name__)
def test_overlapping_pairs_keep_the_contact(a, b) -> None:
    pb = (0.1, 0.2)
    c = geometry.contact(a, (0, 0), b, pb)
    assert c is not None
    hit, normal, depth, point = pair_contact(a, (0, 0), b, pb)
    assert hit and (normal, depth, point) == (c.normal, c.depth, c.point)
    # a contact_offset of 0 (as the response asks): touching within TOUCH_TOLERANCE only
    assert pair_contact(a, (0, 0), b, pb, tol=0.0)[1:] == (c.normal, c.depth, c.point)


class Log:
    def __init__(self, physics: ep.Physics) -> None:
        self.names: list[str] = []
        physics.on_touch(lambda c: self.names.append("touch"))
        physics.on_separate(lambda c: self.names.append("separate"))


BODIES = [
    ep.OrientedRect(1, 1, 0),
    ep.OrientedRect(1, 1, 45),
    HOUSE,
    ep.Compound([ep.Rect(1, 0.5), ep.Circle(0.25, offset=(0, 0.5))]),
]
FLOORS = [FLOOR, ep.OrientedRect(40, 1, 0), ep.Segment((-20, 0.5), (20, 0.5))]


@pytest.mark.parametrize("body", BODIES, ids=lambda s: repr(s)[:24])
@pytest.mark.parametrize("floor", FLOORS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("kind", [ep.ACTIVE, ep.PASSIVE], ids=["active", "passive"])
def test_a_body_resting_on_a_polygon_floor_touches_once(world, body, floor, kind) -> None:
    physics = ep.Physics(fixed_dt=DT)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(floor))
    box = esper.create_entity(ep.Position(0.3, 2), ep.Velocity(0, 0),
                              ep.AccelerationMap(gravity=(0, -9.8)),
                              ep.Collider(kind), ep.Geometry(body))
    log = Log(physics)
    for _ in range(300):
        esper.process(DT)
    assert log.names == ["touch"]
    assert len(physics.contacts()) == 1
    y = esper.component_for_entity(box, ep.Position).y
    assert 0.5 < y < 2  # resting on the floor, not through it
