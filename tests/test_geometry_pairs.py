"""Every pair of shape kinds, both orders, against the shapely oracle.

Checked for random placements: ``overlaps`` agrees with shapely (answers within ``BAND`` of
exact touching may go either way); ``overlaps`` agrees with ``contact``; the depth is the
minimum translation distance (shapely Minkowski-difference oracle; compounds: the deepest part
pair); moving ``b`` by ``normal * (depth + eps)`` separates the shapes, by
``normal * (depth - eps)`` keeps them overlapping; the swapped pair gives the flipped contact;
the contact point lies on or between both shapes.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_geometry_oracle import BAND, KINDS, STRATEGIES, deepest_depth, gap, point_gap, pos

from ecsphys.geometry import TOUCH_TOLERANCE, Contact, collide, contact, overlaps
from ecsphys.shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment

PAIRS = list(itertools.product(KINDS, KINDS))
EPS = 1e-6


@pytest.mark.parametrize(("ka", "kb"), PAIRS, ids=[f"{a.__name__}-{b.__name__}" for a, b in PAIRS])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_pair_against_shapely(ka: type, kb: type, data: st.DataObject) -> None:
    a = data.draw(STRATEGIES[ka], "a")
    b = data.draw(STRATEGIES[kb], "b")
    pa = data.draw(pos, "pa")
    pb = data.draw(pos, "pb")
    g = gap(a, pa, b, pb)
    hit = overlaps(a, pa, b, pb)
    c = contact(a, pa, b, pb)
    assert hit == (c is not None)
    if g > BAND:
        assert not hit, f"shapely gap {g}"
    elif g < -BAND or (g <= 0 and not isinstance(a, Circle) and not isinstance(b, Circle)):
        # polygons that shapely sees touching or crossing must be reported
        assert hit or g > -BAND, f"shapely gap {g}"
    if c is None:
        return
    nx, ny = c.normal
    assert math.isclose(math.hypot(nx, ny), 1.0, rel_tol=1e-9)
    assert c.depth >= -TOUCH_TOLERANCE
    # swapped order: the same contact seen from b (a shape on itself has no direction)
    if not (a == b and pa == pb):
        assert contact(b, pb, a, pa) == c.flipped()
    # the depth is the minimum translation distance
    assert c.depth == pytest.approx(deepest_depth(a, pa, b, pb), abs=1e-7)
    # the point lies on or between both shapes
    reach = max(c.depth, 0.0) + 1e-7
    assert point_gap(a, pa, c.point) <= reach
    assert point_gap(b, pb, c.point) <= reach
    # moving b along the normal by the depth separates them (for a single pair of parts)
    if not isinstance(a, Compound) and not isinstance(b, Compound):
        far = (pb[0] + nx * (c.depth + EPS), pb[1] + ny * (c.depth + EPS))
        assert gap(a, pa, b, far) > 0
        assert not overlaps(a, pa, b, far) or gap(a, pa, b, far) <= BAND
    if c.depth > 2 * EPS:
        near = (pb[0] + nx * (c.depth - EPS), pb[1] + ny * (c.depth - EPS))
        assert gap(a, pa, b, near) <= 1e-9
        assert overlaps(a, pa, b, near)


SQUARE = Polygon([(-1, -1), (1, -1), (1, 1), (-1, 1)])
TOUCHING = [
    (Circle(1), (0, 0), Circle(1), (2, 0), (1.0, 0.0)),
    (Circle(1), (0, 0), Rect(2, 2), (2, 0.3), (1.0, 0.0)),
    (Circle(1), (0, 0), Segment((0, -1), (0, 1)), (1, 0), (1.0, 0.0)),
    (Circle(1), (0, 0), SQUARE, (0, 2), (0.0, 1.0)),
    (Rect(2, 2), (0, 0), Rect(2, 2), (2, 0.5), (1.0, 0.0)),
    (Rect(2, 2), (0, 0), OrientedRect(2, 2, 0), (0, -2), (0.0, -1.0)),
    (OrientedRect(2, 2, 90), (0, 0), SQUARE, (2, 0), (1.0, 0.0)),
    (Rect(2, 2), (0, 0), Segment((1, -3), (1, 3)), (0, 0), (1.0, 0.0)),
    (Segment((0, 0), (1, 0)), (0, 0), Segment((1, 0), (2, 0)), (0, 0), None),
    (SQUARE, (0, 0), Polygon([(0, 0), (1, 0), (0, 1)]), (1, 1), None),
]


@pytest.mark.parametrize(("a", "pa", "b", "pb", "normal"), TOUCHING)
def test_exactly_touching_shapes_touch(a, pa, b, pb, normal) -> None:
    c = contact(a, pa, b, pb)
    assert c is not None and overlaps(a, pa, b, pb)
    assert abs(c.depth) <= TOUCH_TOLERANCE
    if normal is not None:
        assert c.normal == pytest.approx(normal)
    # a hair apart they do not
    nx, ny = c.normal
    apart = (pb[0] + nx * 1e-6, pb[1] + ny * 1e-6)
    assert contact(a, pa, b, apart) is None
    assert not overlaps(a, pa, b, apart)


def test_known_contacts() -> None:
    assert contact(Circle(1), (0, 0), Circle(1), (1.5, 0)) == Contact((1.0, 0.0), 0.5, (0.75, 0.0))
    c = contact(Rect(2, 2), (0, 0), Rect(2, 2), (1.5, 0.5))
    assert c == Contact((1.0, 0.0), 0.5, (0.75, 0.25))
    c = contact(Circle(1), (0, 0), Rect(4, 4), (0.5, 0))  # centre inside: out via nearest face
    assert c is not None and c.normal == (1.0, 0.0) and c.depth == 2.5
    assert collide is contact


def test_collinear_disjoint_segments_do_not_touch() -> None:
    s = Segment((0, 0), (1, 1))
    assert not overlaps(s, (0, 0), s, (1.5, 1.5))
    assert contact(s, (0, 0), s, (1.5, 1.5)) is None
    assert overlaps(s, (0, 0), s, (0.5, 0.5))


def test_compounds_apart_by_a_hair_do_not_touch() -> None:
    """Groups whose hulls are apart, or whose nearest parts are a hair beyond the touch
    tolerance, do not touch; the nearest parts within it do."""
    group = Compound([Circle(1, offset=(i, 0)) for i in range(10)])
    assert contact(group, (0, 0), group, (100, 0)) is None
    assert not overlaps(group, (0, 0), group, (100, 0))
    assert not overlaps(group, (0, 0), group, (11 + 2e-9, 0))
    c = contact(group, (0, 0), group, (11 + 5e-10, 0))
    assert c is not None and c.normal == (1.0, 0.0) and -1e-9 <= c.depth <= 0.0


def test_compound_contact_is_the_deepest_part() -> None:
    group = Compound([Circle(1), Rect(2, 2, offset=(3, 0))])
    c = contact(group, (0, 0), Circle(1), (4.5, 0))  # touches the rect by 0.5 only
    assert c is not None and c.depth == pytest.approx(0.5)
    c = contact(group, (0, 0), Circle(1), (1.8, 0))  # circle part 0.2 deep, rect part 0.8
    assert c is not None and c.depth == pytest.approx(0.8) and c.normal == (-1.0, 0.0)
    c = contact(group, (0, 0), Circle(1), (1.2, 0))  # circle part 0.8 deep, rect part 0.2
    assert c is not None and c.depth == pytest.approx(0.8) and c.normal == (1.0, 0.0)
    nested = Compound([group, Circle(0.5, offset=(0, 3))], offset=(1, 0))
    assert len(nested.parts) == 3
    assert overlaps(nested, (0, 0), Circle(0.1), (1, 3.5))
    assert not overlaps(nested, (0, 0), Circle(0.1), (1, 3.7))


def test_unknown_pair_raises_type_error() -> None:
    with pytest.raises(TypeError, match="no contact test"):
        contact(object(), (0, 0), Circle(1), (0, 0))
