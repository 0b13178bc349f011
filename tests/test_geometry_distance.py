"""``distance`` and ``contact_within``: every pair of shape kinds, both orders, against shapely.

Checked for random placements, and for placements moved to a small gap (the narrowphase's
skin): the distance of shapes apart is shapely's; overlapping shapes are 0 apart with
``contact``'s normal; the closest points lie on the shapes, are ``distance`` apart along the
unit normal; the swapped pair gives the same distance, the normal reversed and the points
swapped; ``contact_within`` is ``contact`` for overlaps and ``depth = -distance`` within the
skin.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_geometry_oracle import BAND, KINDS, STRATEGIES, gap, point_gap

from ecsphys.geometry import Separation, contact, contact_within, distance
from ecsphys.shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment

PAIRS = list(itertools.product(KINDS, KINDS))
ACC = 1e-9  # distances agree with shapely's to this (both exact up to rounding)
SKIN = 0.01
shift = st.tuples(st.floats(-9, 9), st.floats(-9, 9))


def check_separation(a, pa, b, pb, s: Separation) -> None:
    """``s`` is the separation of the placed shapes, checked against shapely."""
    g = gap(a, pa, b, pb)
    nx, ny = s.normal
    assert math.isclose(math.hypot(nx, ny), 1.0, rel_tol=1e-12)
    if g < -BAND:
        assert s.distance == 0.0
    c = contact(a, pa, b, pb)
    assert (s.distance == 0.0) == (c is not None)  # touching as contact counts it
    if c is not None:
        assert g <= BAND, f"shapely gap {g}"
        assert s.normal == c.normal and s.point_a == s.point_b == c.point
        return
    assert s.distance == pytest.approx(g, abs=ACC)
    # the closest points: on the shapes, apart by the distance along the normal
    assert abs(point_gap(a, pa, s.point_a)) <= ACC
    assert abs(point_gap(b, pb, s.point_b)) <= ACC
    (ax, ay), (bx, by) = s.point_a, s.point_b
    assert math.hypot(bx - ax, by - ay) == pytest.approx(s.distance, abs=ACC)
    assert (bx - ax, by - ay) == pytest.approx((nx * s.distance, ny * s.distance), abs=ACC)


def check_swapped(s: Separation, t: Separation) -> None:
    """``t``, the separation of the swapped pair, mirrors ``s``."""
    if s.distance == 0.0:
        assert t.distance == 0.0
        return
    assert t.distance == pytest.approx(s.distance, abs=ACC)
    assert t.normal == pytest.approx((-s.normal[0], -s.normal[1]), abs=1e-6)
    # (the closest points need not be unique: nearly parallel edges; each is checked alone)


@pytest.mark.parametrize(("ka", "kb"), PAIRS, ids=[f"{a.__name__}-{b.__name__}" for a, b in PAIRS])
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_distance_against_shapely(ka: type, kb: type, data: st.DataObject) -> None:
    a = data.draw(STRATEGIES[ka], "a")
    b = data.draw(STRATEGIES[kb], "b")
    pa = data.draw(st.tuples(st.floats(-3, 3), st.floats(-3, 3)), "pa")
    d = data.draw(shift, "shift")
    pb = (pa[0] + d[0], pa[1] + d[1])
    s = distance(a, pa, b, pb)
    check_separation(a, pa, b, pb, s)
    t = distance(b, pb, a, pa)
    check_separation(b, pb, a, pa, t)
    check_swapped(s, t)
    # move b towards a to a small gap (within the narrowphase's skin), along the normal
    if s.distance > 0.0:
        g = data.draw(st.sampled_from([0.001, 0.005, 0.0099, 0.02]), "gap")
        k = s.distance - g
        near = (pb[0] - s.normal[0] * k, pb[1] - s.normal[1] * k)
        sn = distance(a, pa, b, near)
        check_separation(a, pa, b, near, sn)
        assert sn.distance <= g + ACC  # closer than that is possible (another part), not further
        c = contact_within(a, pa, b, near, SKIN)
        if g < SKIN:
            assert c is not None
        if c is not None and contact(a, pa, b, near) is None:
            assert c.depth == -sn.distance and c.normal == sn.normal
            (ax, ay), (bx, by) = sn.point_a, sn.point_b
            assert c.point == ((ax + bx) / 2, (ay + by) / 2)
        elif c is None:
            assert sn.distance > SKIN
        cs = contact_within(b, near, a, pa, SKIN)
        assert (cs is None) == (c is None)


@pytest.mark.parametrize(("ka", "kb"), PAIRS[:: 5], ids=[f"{a.__name__}-{b.__name__}"
                                                          for a, b in PAIRS[:: 5]])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_contact_within_is_contact_for_overlaps(ka: type, kb: type, data: st.DataObject) -> None:
    a = data.draw(STRATEGIES[ka], "a")
    b = data.draw(STRATEGIES[kb], "b")
    pa = data.draw(st.tuples(st.floats(-1, 1), st.floats(-1, 1)), "pa")
    pb = data.draw(st.tuples(st.floats(-1, 1), st.floats(-1, 1)), "pb")
    c = contact(a, pa, b, pb)
    if c is not None:
        assert contact_within(a, pa, b, pb, SKIN) == c
        assert contact_within(a, pa, b, pb, 0.0) == c


SQUARE = Polygon([(-1, -1), (1, -1), (1, 1), (-1, 1)])
KNOWN = [
    # a, pa, b, pb, distance, normal, point_a, point_b
    (Circle(1), (0, 0), Circle(0.5), (3, 0), 1.5, (1, 0), (1, 0), (2.5, 0)),
    (Rect(2, 2), (0, 0), Rect(2, 2), (3, 3), math.sqrt(2), (math.sqrt(0.5),) * 2, (1, 1),
     (2, 2)),
    # parallel faces: the middle of the overlap, not a corner
    (Rect(2, 2), (0, 0), Rect(2, 2), (0.5, 2.005), 0.005, (0, 1), (0.25, 1), (0.25, 1.005)),
    (SQUARE, (0, 0), OrientedRect(2, 2, 45), (1 + math.sqrt(2) + 0.5, 0), 0.5, (1, 0), (1, 0),
     (1.5, 0)),
    (Segment((0, 0), (1, 0)), (0, 0), Segment((0, 0), (1, 0)), (2, 0), 1.0, (1, 0), (1, 0),
     (2, 0)),
    (Segment((-1, 0), (1, 0)), (0, 0), Circle(0.5), (0, 2), 1.5, (0, 1), (0, 0), (0, 1.5)),
    (Compound([Circle(1), Rect(1, 1, offset=(3, 0))]), (0, 0), Rect(2, 2), (5, 0), 0.5, (1, 0),
     (3.5, 0), (4, 0)),
]


@pytest.mark.parametrize(("a", "pa", "b", "pb", "dist", "normal", "qa", "qb"), KNOWN)
def test_known_distances(a, pa, b, pb, dist, normal, qa, qb) -> None:
    s = distance(a, pa, b, pb)
    assert s.distance == pytest.approx(dist, abs=1e-12)
    assert s.normal == pytest.approx(normal, abs=1e-12)
    assert s.point_a == pytest.approx(qa, abs=1e-12)
    assert s.point_b == pytest.approx(qb, abs=1e-12)
    assert distance(b, pb, a, pa).normal == pytest.approx((-normal[0], -normal[1]), abs=1e-12)


def test_overlapping_shapes_are_zero_apart_with_the_contact_normal() -> None:
    s = distance(Rect(2, 2), (0, 0), Rect(2, 2), (1.5, 0.2))
    c = contact(Rect(2, 2), (0, 0), Rect(2, 2), (1.5, 0.2))
    assert s == Separation(0.0, c.normal, c.point, c.point)


def test_contact_within_the_skin_and_beyond() -> None:
    floor = Polygon([(-5, -0.5), (5, -0.5), (5, 0.5), (-5, 0.5)])
    box = OrientedRect(1, 1, 0)
    c = contact_within(floor, (0, 0), box, (0, 1.005), SKIN)
    assert c is not None
    assert c.depth == pytest.approx(-0.005) and c.normal == pytest.approx((0, 1))
    assert c.point == pytest.approx((0, 0.5025))
    assert contact_within(floor, (0, 0), box, (0, 1.02), SKIN) is None
    assert contact_within(floor, (0, 0), box, (0, 1.005), 0.0) is None


def test_unknown_kind_raises_type_error() -> None:
    with pytest.raises(TypeError):
        distance(Rect(1, 1), (0, 0), object(), (0, 0))


def _same(x, y) -> bool:
    return x is None and y is None or (x is not None and y is not None and (
        x.normal, x.depth, x.point) == (y.normal, y.depth, y.point))


@settings(max_examples=600, deadline=None)
@given(
    st.tuples(st.floats(-5, 5), st.floats(-5, 5)),
    st.floats(0.05, 2),
    st.floats(0.05, 2),
    st.floats(0, 2 * math.pi),
    st.sampled_from([-0.5, -1e-3, -2e-9, -1e-9, 0.0, 5e-10, 1e-9, 2e-9, 3e-9, 1e-4, 0.01,
                     0.02, 0.05, 1.0]),
    st.floats(-1e-6, 1e-6),
    st.sampled_from([1e-9, 1e-3, 0.02, 0.1]),
)
def test_circles_inline_contact_within_is_the_general_one(pa, ra, rb, angle, gap_, wiggle,
                                                            skin) -> None:
    # the narrowphase asks two circles through an inline copy of the path (distance.pxd):
    # the same answer to the bit, at every gap (overlapping, touching at the rounding's edge,
    # within the skin, beyond it), both orders, and for concentric circles
    from ecsphys.geometry.distance import _circles_contact_within

    d = ra + rb + gap_ + wiggle * (gap_ != 0.0)
    pb = (pa[0] + d * math.cos(angle), pa[1] + d * math.sin(angle))
    a, b = Circle(ra), Circle(rb)
    for (x, px), (y, py) in (((a, pa), (b, pb)), ((b, pb), (a, pa)), ((a, pa), (b, pa))):
        assert _same(_circles_contact_within(x, px, y, py, skin),
                     contact_within(x, px, y, py, skin))
