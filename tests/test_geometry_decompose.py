"""Convex decomposition: the pieces are convex and tile the outline exactly (shapely)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon as SPolygon
from shapely.ops import unary_union

from ecsphys.geometry import convex_decompose, overlaps
from ecsphys.shapes import Compound, Polygon


@st.composite
def star_outlines(draw: st.DrawFn) -> list[tuple[float, float]]:
    """Simple, usually concave outlines: random radii at increasing angles."""
    n = draw(st.integers(3, 12))
    gaps = draw(st.lists(st.floats(0.3, 1.0), min_size=n, max_size=n))
    radii = draw(st.lists(st.floats(0.3, 3.0), min_size=n, max_size=n))
    total = sum(gaps)
    pts, ang = [], 0.0
    for g, r in zip(gaps, radii, strict=True):
        pts.append((r * math.cos(ang), r * math.sin(ang)))
        ang += 2 * math.pi * g / total
    if draw(st.booleans()):
        pts.reverse()
    return pts


@settings(max_examples=200, deadline=None)
@given(star_outlines())
def test_pieces_are_convex_and_tile_the_outline(pts) -> None:
    outline = SPolygon(pts)
    pieces = convex_decompose(pts)
    assert all(isinstance(p, Polygon) for p in pieces)  # Polygon() validated convexity
    shapes = [SPolygon(p.points) for p in pieces]
    assert sum(s.area for s in shapes) == pytest.approx(outline.area, rel=1e-9)
    assert unary_union(shapes).symmetric_difference(outline).area <= 1e-9 * outline.area
    assert len(pieces) <= len(pts) - 2


def test_known_decompositions() -> None:
    ell = [(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)]
    pieces = convex_decompose(ell)
    assert len(pieces) == 2
    assert len(convex_decompose([(0, 0), (1, 0), (1, 1), (0, 1)])) == 1
    assert len(convex_decompose([(0, 0), (1, 0), (2, 0), (2, 2), (0, 2)])) == 1  # collinear dropped
    body = Compound(pieces)
    assert overlaps(body, (0, 0), Polygon([(0, 0), (0.1, 0), (0, 0.1)]), (2.5, 0.5))
    assert not overlaps(body, (0, 0), Polygon([(0, 0), (0.1, 0), (0, 0.1)]), (2, 2))


@pytest.mark.parametrize(
    ("pts", "message"),
    [
        ([(0, 0), (1, 0)], "at least 3 points"),
        ([(0, 0), (2, 2), (2, 0), (0, 2)], "self-intersecting"),
        ([(0, 0), (1, 1), (2, 2)], "self-intersecting|zero area"),
        ([(0, 0), (1, math.nan), (0, 1)], r"convex_decompose.points\[1\].y must be finite"),
    ],
)
def test_bad_outlines_raise(pts, message) -> None:
    with pytest.raises(ValueError, match=message):
        convex_decompose(pts)


@pytest.mark.parametrize("n", [256, 2048])
def test_a_large_concave_outline_decomposes_exactly(n) -> None:
    """An outline of up to 2,048 points (the most a Tiled polygon may have) decomposes into
    convex pieces that tile it exactly: the triangulation is mapbox-earcut's and the merge
    looks only at each diagonal's ends (the hand-written ear clipping took 351 ms at 256
    points and its cap was 256)."""
    import numpy as np

    from ecsphys.tiled import MAX_OBJECT_POINTS

    assert MAX_OBJECT_POINTS >= n
    rng = np.random.default_rng(n)
    ang = np.sort(rng.uniform(0, 2 * math.pi, n))
    r = rng.uniform(0.3, 3.0, n)
    pts = list(zip((r * np.cos(ang)).tolist(), (r * np.sin(ang)).tolist(), strict=True))
    outline = SPolygon(pts)
    assert outline.is_valid
    pieces = convex_decompose(pts)
    shapes = [SPolygon(p.points) for p in pieces]
    assert sum(s.area for s in shapes) == pytest.approx(outline.area, rel=1e-9)
    assert unary_union(shapes).symmetric_difference(outline).area <= 1e-9 * outline.area
    assert len(pieces) <= n - 2
    # and an outline that crosses itself far from its start is found out: one point moved
    # through the middle to the far side
    bad = list(pts)
    bad[n // 2] = (-4.0 * pts[n // 2][0], -4.0 * pts[n // 2][1])
    assert not SPolygon(bad).is_valid
    with pytest.raises(ValueError, match="self-intersecting"):
        convex_decompose(bad)
