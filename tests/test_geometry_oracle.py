"""Shared test helpers: hypothesis strategies for every shape kind and a shapely oracle.

The oracle measures shapes with shapely, independently of ecsphys.geometry: circles are kept
as (centre point, radius) so no polygon approximation blurs the answers.
"""

from __future__ import annotations

import math

import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, MultiPoint, Point
from shapely.geometry import Polygon as SPolygon

from ecsphys.shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment, Shape

#: Answers within this distance of exact touching may go either way.
BAND = 1e-6

coord = st.floats(-3, 3, allow_nan=False)
size = st.floats(0.2, 3.0, allow_nan=False)
pos = st.tuples(coord, coord)
offset = st.one_of(st.just((0.0, 0.0)), st.tuples(st.floats(-1, 1), st.floats(-1, 1)))


@st.composite
def circles(draw: st.DrawFn) -> Circle:
    return Circle(draw(st.floats(0.1, 2.0)), offset=draw(offset))


@st.composite
def rects(draw: st.DrawFn) -> Rect:
    return Rect(draw(size), draw(size), offset=draw(offset))


@st.composite
def oriented_rects(draw: st.DrawFn) -> OrientedRect:
    return OrientedRect(draw(size), draw(size), draw(st.floats(-360, 360)), offset=draw(offset))


@st.composite
def segments(draw: st.DrawFn) -> Segment:
    p1 = draw(st.tuples(st.floats(-2, 2), st.floats(-2, 2)))
    ang = draw(st.floats(0, 2 * math.pi))
    length = draw(st.floats(0.1, 3.0))
    p2 = (p1[0] + length * math.cos(ang), p1[1] + length * math.sin(ang))
    return Segment(p1, p2, offset=draw(offset))


@st.composite
def polygons(draw: st.DrawFn) -> Polygon:
    n = draw(st.integers(3, 7))
    gaps = draw(st.lists(st.floats(0.3, 1.0), min_size=n, max_size=n))
    total = sum(gaps)
    start = draw(st.floats(0, 2 * math.pi))
    rx, ry = draw(size), draw(size)
    pts = []
    ang = start
    for g in gaps:
        pts.append((rx * math.cos(ang), ry * math.sin(ang)))
        ang += 2 * math.pi * g / total
    return Polygon(pts, offset=draw(offset))


PRIMITIVE_STRATEGIES = {
    Circle: circles(),
    Rect: rects(),
    OrientedRect: oriented_rects(),
    Segment: segments(),
    Polygon: polygons(),
}


@st.composite
def compounds(draw: st.DrawFn) -> Compound:
    parts = draw(st.lists(st.one_of(*PRIMITIVE_STRATEGIES.values()), min_size=1, max_size=3))
    return Compound(parts, offset=draw(offset))


STRATEGIES: dict[type, st.SearchStrategy[Shape]] = {**PRIMITIVE_STRATEGIES, Compound: compounds()}
KINDS = list(STRATEGIES)
any_shape = st.one_of(*STRATEGIES.values())


def cores(shape: Shape, p: tuple[float, float]) -> list[tuple[object, float]]:
    """Shapely geometries of the shape at ``p`` with a radius to grow each by."""
    if isinstance(shape, Compound):
        out: list[tuple[object, float]] = []
        for part, dx, dy in shape.parts:
            out.extend(cores(part, (p[0] + dx, p[1] + dy)))
        return out
    if isinstance(shape, Circle):
        return [(Point(p[0] + shape.offset[0], p[1] + shape.offset[1]), shape.radius)]
    pts = [(x + p[0], y + p[1]) for x, y in world_verts(shape)]
    if isinstance(shape, Segment):
        return [(LineString(pts), 0.0)]
    return [(SPolygon(pts), 0.0)]


def world_verts(shape: Shape) -> list[tuple[float, float]]:
    """Vertices relative to the body, computed from the public fields (not the cache)."""
    ox, oy = shape.offset
    if isinstance(shape, Rect):
        hw, hh = shape.width / 2, shape.height / 2
        return [(ox - hw, oy - hh), (ox + hw, oy - hh), (ox + hw, oy + hh), (ox - hw, oy + hh)]
    if isinstance(shape, OrientedRect):
        c, s = math.cos(math.radians(shape.angle)), math.sin(math.radians(shape.angle))
        hw, hh = shape.width / 2, shape.height / 2
        return [
            (ox + x * c - y * s, oy + x * s + y * c)
            for x, y in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))
        ]
    if isinstance(shape, Segment):
        return [(shape.p1[0] + ox, shape.p1[1] + oy), (shape.p2[0] + ox, shape.p2[1] + oy)]
    if isinstance(shape, Polygon):
        return [(x + ox, y + oy) for x, y in shape.points]
    raise TypeError(shape)


def gap(a: Shape, pa: tuple[float, float], b: Shape, pb: tuple[float, float]) -> float:
    """Distance between the shapes when apart; <= 0 when they overlap."""
    return min(
        shapely.distance(ga, gb) - ra - rb for ga, ra in cores(a, pa) for gb, rb in cores(b, pb)
    )


def point_gap(shape: Shape, p: tuple[float, float], point: tuple[float, float]) -> float:
    """Distance from ``point`` to the shape (0 or less inside)."""
    pt = Point(point)
    return min(shapely.distance(g, pt) - r for g, r in cores(shape, p))


def _signed_distance(geom: object, pt: Point) -> float:
    if isinstance(geom, SPolygon) and geom.covers(pt):
        return -geom.exterior.distance(pt)
    return shapely.distance(geom, pt)


def primitive_depth(a: Shape, pa: tuple[float, float], b: Shape, pb: tuple[float, float]) -> float:
    """Minimum translation distance of two overlapping primitives (negative: their gap)."""
    ((ga, ra),) = cores(a, pa)
    ((gb, rb),) = cores(b, pb)
    if isinstance(ga, Point) or isinstance(gb, Point):
        if isinstance(ga, Point) and isinstance(gb, Point):
            return ra + rb - ga.distance(gb)
        point, other, r = (ga, gb, ra) if isinstance(ga, Point) else (gb, ga, rb)
        return r - _signed_distance(other, point)
    av = list(ga.exterior.coords if isinstance(ga, SPolygon) else ga.coords)
    bv = list(gb.exterior.coords if isinstance(gb, SPolygon) else gb.coords)
    md = MultiPoint([(x2 - x1, y2 - y1) for x1, y1 in av for x2, y2 in bv]).convex_hull
    origin = Point(0, 0)
    return -_signed_distance(md, origin)


def deepest_depth(a: Shape, pa: tuple[float, float], b: Shape, pb: tuple[float, float]) -> float:
    """The largest primitive depth over all part pairs (compounds: the deepest part pair)."""

    def leaves(s: Shape, p: tuple[float, float]) -> list[tuple[Shape, tuple[float, float]]]:
        if isinstance(s, Compound):
            return [(q, (p[0] + dx, p[1] + dy)) for q, dx, dy in s.parts]
        return [(s, p)]

    return max(primitive_depth(x, px, y, py) for x, px in leaves(a, pa) for y, py in leaves(b, pb))


# --- the oracle checks itself ---------------------------------------------------------------


def test_oracle_gap_of_known_pairs() -> None:
    assert gap(Circle(1), (0, 0), Circle(1), (3, 0)) == 1.0
    assert gap(Rect(2, 2), (0, 0), Rect(2, 2), (3, 0)) == 1.0
    assert gap(Rect(2, 2), (0, 0), Rect(2, 2), (1, 0)) <= 0
    assert primitive_depth(Rect(2, 2), (0, 0), Rect(2, 2), (1.5, 0)) == 0.5
    assert math.isclose(primitive_depth(Circle(1), (0, 0), Rect(2, 2), (1.5, 0)), 0.5)
    assert math.isclose(primitive_depth(Circle(1), (0, 0), Rect(2, 2), (0.5, 0)), 1.5)


@settings(max_examples=50, deadline=None)
@given(any_shape)
def test_strategies_build_valid_shapes(shape: Shape) -> None:
    assert all(g.is_valid for g, _ in cores(shape, (0.0, 0.0)))
