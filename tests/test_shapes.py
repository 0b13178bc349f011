"""Shape values: validation with clear messages, bounds and bounding circles that contain the
shape, compound hulls, the seed's hull functions, immutability and value semantics."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from shapely.geometry import Point
from test_geometry_oracle import any_shape, cores

from ecsphys.geometry import (
    bounding_circle_of,
    bounding_rect_of,
    circles_circle_hull,
    circles_rect_hull,
    rects_rect_hull,
)
from ecsphys.shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment

BAD = [
    (lambda: Segment((1, 1), (1, 1)), ValueError, r"Segment.p2 .*zero length.*\(1.0, 1.0\)"),
    (lambda: Segment((math.nan, 0), (1, 1)), ValueError, r"Segment.p1.x must be finite, got nan"),
    (lambda: Rect(0, 1), ValueError, r"Rect.width must be positive, got 0"),
    (lambda: OrientedRect(1, 0, 30), ValueError, r"OrientedRect.height must be positive, got 0"),
    (lambda: OrientedRect(1, 1, math.inf), ValueError, r"OrientedRect.angle must be finite"),
    (lambda: Circle(math.nan), ValueError, r"Circle.radius must be finite, got nan"),
    (
        lambda: Polygon([(0, 0), (1, 0)]),
        ValueError,
        r"Polygon.points needs at least 3 points, got 2",
    ),
    (
        lambda: Polygon([(0, 0), (1, math.nan), (0, 1)]),
        ValueError,
        r"Polygon.points\[1\].y must be finite",
    ),
    (lambda: Polygon([(0, 0), (2, 2), (2, 0), (0, 2)]), ValueError, r"self-intersecting: edge 0"),
    (
        lambda: Polygon([(0, 0), (2, 0), (1, 0.5), (2, 2), (0, 2)]),
        ValueError,
        r"concave at points\[2\] = \(1.0, 0.5\)",
    ),
    (
        lambda: Polygon([(0, 0), (1, 0), (2, 0), (1, 1)]),
        ValueError,
        r"points\[1\] = \(1.0, 0.0\) is collinear",
    ),
    (lambda: Polygon([(0, 0), (1, 0), (2, 0)]), ValueError, r"Polygon.points"),
    (lambda: Polygon([(0, 0), (1, 0), (1, 0), (0, 1)]), ValueError, r"points\[2\] repeats"),
    (lambda: Polygon(5), TypeError, r"Polygon.points must be a sequence"),
    (lambda: Compound([]), ValueError, r"Compound.shapes must not be empty"),
    (lambda: Compound([Circle(1), "x"]), TypeError, r"Compound.shapes\[1\] must be a shape"),
    (lambda: Segment((0, 0), (1, 1), offset=(0, math.inf)), ValueError, r"Segment.offset.y"),
]


@pytest.mark.parametrize(("make", "error", "message"), BAD)
def test_bad_input_raises_naming_field_and_value(make, error, message) -> None:
    with pytest.raises(error, match=message):
        make()


def test_pentagram_is_rejected() -> None:
    star = [
        (math.cos(math.radians(90 + 144 * k)), math.sin(math.radians(90 + 144 * k)))
        for k in range(5)
    ]
    with pytest.raises(ValueError, match="self-intersecting"):
        Polygon(star)


def test_polygon_is_stored_counter_clockwise() -> None:
    p = Polygon([(0, 0), (0, 1), (1, 1), (1, 0)])
    assert p.points == ((1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.0, 0.0))
    assert p == Polygon([(1, 0), (1, 1), (0, 1), (0, 0)])


@settings(max_examples=300, deadline=None)
@given(any_shape)
def test_bounds_and_bounding_circle_contain_the_shape(shape) -> None:
    x0, y0, x1, y1 = shape.bounds()
    cx, cy, r = shape.bounding_circle()
    assert shape.bounding_radius == r
    for geom, grow in cores(shape, (0.0, 0.0)):
        gx0, gy0, gx1, gy1 = geom.bounds
        eps = 1e-9
        assert x0 - eps <= gx0 - grow and gx1 + grow <= x1 + eps
        assert y0 - eps <= gy0 - grow and gy1 + grow <= y1 + eps
        # farthest point of the geometry from the circle's centre, plus its growth
        far = max(Point(cx, cy).distance(Point(p)) for p in _points(geom))
        assert far + grow <= r + 1e-9


def _points(geom) -> list[tuple[float, float]]:
    if isinstance(geom, Point):
        return [(geom.x, geom.y)]
    coords = geom.exterior.coords if hasattr(geom, "exterior") else geom.coords
    return list(coords)


def test_compound_hull_and_flattening() -> None:
    inner = Compound([Circle(1), Rect(2, 2, offset=(3, 0))], offset=(0, 1))
    outer = Compound([inner, Segment((0, 0), (0, 5))], offset=(10, 0))
    assert outer.bounds() == (9.0, 0.0, 14.0, 5.0)
    assert outer.hull == outer.bounds()
    assert [(type(p).__name__, dx, dy) for p, dx, dy in outer.parts] == [
        ("Circle", 10.0, 1.0),
        ("Rect", 10.0, 1.0),
        ("Segment", 10.0, 0.0),
    ]
    cx, cy, r = outer.hull_circle
    assert math.dist((cx, cy), (10, 1)) + 1 <= r + 1e-12  # the circle part
    for corner in [(12, 0), (14, 0), (14, 2), (12, 2), (10, 0), (10, 5)]:  # rect, segment
        assert math.dist((cx, cy), corner) <= r + 1e-12
    assert r < math.hypot(5, 5)  # and it is not absurdly large


def test_seed_hull_functions() -> None:
    assert rects_rect_hull([(0, 0, 1, 1), (2, -1, 3, 0.5)]) == (0, -1, 3, 1)
    assert circles_rect_hull([(0, 0, 1), (5, 0, 2)]) == (-1, -2, 7, 2)
    cx, cy, r = circles_circle_hull([(0, 0, 1), (5, 0, 2)])
    assert (cx, cy) == (3.0, 0.0) and r == 4.0
    assert bounding_rect_of([Circle(1), Rect(2, 2)], [(0, 0), (5, 5)]) == (-1, -1, 6, 6)
    cx, cy, r = bounding_circle_of([Circle(1), Circle(1)], [(0, 0), (4, 0)])
    assert (cx, cy, r) == (2.0, 0.0, 3.0)
    with pytest.raises(ValueError):
        rects_rect_hull([])


@pytest.mark.parametrize(
    "shape",
    [
        Circle(1, offset=(1, 2)),
        Rect(1, 2),
        OrientedRect(1, 2, 30, offset=(0.5, 0)),
        Segment((0, 0), (1, 2)),
        Polygon([(0, 0), (1, 0), (0, 1)], offset=(1, 1)),
        Compound([Circle(1), Segment((0, 0), (1, 2))], offset=(3, 0)),
    ],
)
def test_value_semantics(shape) -> None:
    from ecsphys.shapes import Compound, OrientedRect, Polygon, Rect, Segment  # noqa: F401

    again = eval(repr(shape))
    assert again == shape and hash(again) == hash(shape)
    with pytest.raises(AttributeError):
        shape.offset = (0, 0)
    assert shape.type_code == [Circle, Rect, OrientedRect, Segment, Polygon, Compound].index(
        type(shape)
    )
