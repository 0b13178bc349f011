"""Point picking, rays and segments (line of sight) and infinite lines against every shape,
checked against shapely."""

from __future__ import annotations

import math

import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point
from test_geometry_oracle import BAND, any_shape, cores, point_gap

from ecsphys.geometry import Line, line_overlaps, overlaps, point_in, raycast, segment_hits
from ecsphys.shapes import Circle, Compound, Rect, Segment

pt = st.tuples(st.floats(-5, 5), st.floats(-5, 5))


def seg_gap(shape, pos, p1, p2) -> float:
    dx, dy = p2[0] - p1[0], p2[1] - p1[1]
    if dx * dx + dy * dy < 1e-200:
        # shapely divides by the squared length, which underflows for a (nearly) zero-length
        # segment (e.g. p2 - p1 = 6e-196): it is a point then, to within 1e-100
        line = Point(p1)
    else:
        line = LineString([p1, p2])
    return min(shapely.distance(g, line) - r for g, r in cores(shape, pos))


@settings(max_examples=400, deadline=None)
@given(any_shape, pt, pt)
def test_point_in_agrees_with_shapely(shape, pos, p) -> None:
    g = point_gap(shape, pos, p)
    inside = point_in(shape, pos, p)
    if g > BAND:
        assert not inside
    elif g < -BAND or (g <= 0 and not isinstance(shape, (Circle, Compound))):
        assert inside or g > -BAND


@settings(max_examples=400, deadline=None)
@given(any_shape, pt, pt, pt)
def test_segment_hits_and_raycast_agree_with_shapely(shape, pos, p1, p2) -> None:
    g = seg_gap(shape, pos, p1, p2)
    blocked = segment_hits(shape, pos, p1, p2)
    if g > BAND:
        assert not blocked
    elif g < -BAND:
        assert blocked
    if p1 == p2:
        return
    d = (p2[0] - p1[0], p2[1] - p1[1])
    hit = raycast(shape, pos, p1, d, 1.0)
    assert (hit is not None) == blocked
    if hit is None:
        return
    t, n = hit
    assert 0.0 <= t <= 1.0 and math.isclose(math.hypot(*n), 1.0)
    q = (p1[0] + d[0] * t, p1[1] + d[1] * t)
    assert point_gap(shape, pos, q) <= 1e-7  # on the shape
    if t > 1e-6:  # nothing of the shape before the hit
        early = (p1[0] + d[0] * (t - 1e-6), p1[1] + d[1] * (t - 1e-6))
        assert seg_gap(shape, pos, p1, early) > -1e-9
        assert n[0] * d[0] + n[1] * d[1] <= 1e-9  # the normal faces the ray


@settings(max_examples=400, deadline=None)
@given(any_shape, pt, pt, st.floats(0, 2 * math.pi))
def test_line_overlaps_agrees_with_shapely(shape, pos, base, ang) -> None:
    line = Line(base, (math.cos(ang), math.sin(ang)))
    far = 100.0
    geom = LineString(
        [
            (base[0] - far * math.cos(ang), base[1] - far * math.sin(ang)),
            (base[0] + far * math.cos(ang), base[1] + far * math.sin(ang)),
        ]
    )
    g = min(shapely.distance(c, geom) - r for c, r in cores(shape, pos))
    hit = line_overlaps(line, shape, pos)
    assert hit == overlaps(line, (0, 0), shape, pos) == overlaps(shape, pos, line, (0, 0))
    assert hit == line.overlaps(shape, pos)
    if g > BAND:
        assert not hit
    elif g < -BAND:
        assert hit


def test_known_queries() -> None:
    assert point_in(Rect(2, 2), (0, 0), (1, 1))  # corner counts
    assert not point_in(Rect(2, 2), (0, 0), (1.001, 0))
    assert point_in(Segment((0, 0), (2, 2)), (0, 0), (1, 1))
    assert raycast(Circle(1), (5, 0), (0, 0), (1, 0)) == (4.0, (-1.0, 0.0))
    assert raycast(Rect(2, 2), (5, 0), (0, 0), (2, 0)) == (2.0, (-1.0, 0.0))
    assert raycast(Rect(2, 2), (5, 0), (0, 0), (1, 0), max_t=3.9) is None
    assert raycast(Rect(2, 2), (0, 0), (0, 0), (1, 0)) == (0.0, (-1.0, -0.0))  # from inside
    assert raycast(Segment((2, 0), (4, 0)), (0, 0), (0, 0), (1, 0)) == (2.0, (-1.0, -0.0))
    assert raycast(Segment((0, -1), (0, 1)), (3, 0), (0, 0), (1, 0)) == (3.0, (-1.0, -0.0))
    group = Compound([Circle(1, offset=(10, 0)), Rect(1, 1, offset=(5, 0))])
    assert raycast(group, (0, 0), (0, 0), (1, 0)) == (4.5, (-1.0, 0.0))
    assert Line((0, 0), (1, 1)).overlaps(Circle(0.71), (1, 0))
    assert not Line((0, 0), (1, 1)).overlaps(Circle(0.70), (1, 0))
    assert overlaps(Line((0, 0), (1, 0)), (0, 0), Line((0, 5), (1, 1)), (0, 0))
    assert not overlaps(Line((0, 0), (1, 0)), (0, 0), Line((0, 5), (2, 0)), (0, 0))


def test_bad_queries_raise() -> None:
    with pytest.raises(ValueError, match="Line.direction"):
        Line((0, 0), (0, 0))
    with pytest.raises(ValueError, match="Line.base.x"):
        Line((math.nan, 0), (1, 0))
    with pytest.raises(ValueError, match="direction"):
        raycast(Circle(1), (0, 0), (0, 0), (0, 0))
    with pytest.raises(TypeError, match="no contact test"):
        from ecsphys.geometry import contact

        contact(Line((0, 0), (1, 0)), (0, 0), Circle(1), (0, 0))
    assert not point_in(Circle(1), (0, 0), (2, 0))
