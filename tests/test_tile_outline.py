"""tests/tile_outline.py, the reference outline for tile maps whose kinds have shapes, proved.

What these tests show:

- with no shapes (every tile a square) it is today's outline: exactly ``merged_edges`` on
  random grids and hypothesis's, and `TileMap.edges` placed with a tile size and origin
  (which checks the row-0-on-top placement against the library's own);
- with shapes it is the boundary of the union of the tile polygons as shapely computes it,
  on random grids of squares, 45-degree slopes (both ways, and upside down), half tiles
  (bottom, top, left, right), a 22.5-degree slope of two kinds and a small diamond: the same
  total length, every segment on the boundary, no two segments overlapping, each normal
  pointing out of the union; and in exact arithmetic it is closed (as many segments start as
  end at every point), maximal (no two segments of one line and normal touch end to end)
  and names tiles that are solid and lie on the segment;
- by hand: a 5-tile 45-degree slope is one segment of length 5 * sqrt(2); a half tile beside
  a square shows the square's side above it only; two mirrored slopes make a peak; a 22.5-
  degree slope of two tiles is one segment; a slope alone in the air is 3 segments, placed
  with a tile size and origin; a shape given as the full square changes nothing;
- ``check_shapes`` refuses what is not a convex polygon in the tile (concave, self-crossing,
  out of [0, 1], NaN, infinite, fewer than 3 points, zero area, repeated or redundant points,
  kinds 0, negative or not ints) naming the kind, and turns clockwise input round.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from shapely.geometry import LineString, Point, Polygon  # shapely is in the test extra
from shapely.ops import unary_union
from tile_outline import (
    SQUARE,
    check_shapes,
    exact_outline,
    outline,
    outline_tiles,
    outline_with_tiles,
    tile_polygon,
)

import ecsphys as ep
from ecsphys.tilemap import merged_edges

R2 = math.sqrt(0.5)
SLOPE_UP = [(0, 0), (1, 0), (1, 1)]  # solid below a 45-degree slope rising to the right
SLOPE_DOWN = [(0, 0), (1, 0), (0, 1)]  # ... falling to the right
SHAPES = {
    2: SLOPE_UP,
    3: SLOPE_DOWN,
    4: [(0, 1), (1, 0), (1, 1)],  # upside down: solid above the slope, top right
    5: [(0, 0), (1, 1), (0, 1)],  # upside down: top left
    6: [(0, 0), (1, 0), (1, 0.5), (0, 0.5)],  # half tiles: bottom
    7: [(0, 0.5), (1, 0.5), (1, 1), (0, 1)],  # top
    8: [(0, 0), (0.5, 0), (0.5, 1), (0, 1)],  # left
    9: [(0.5, 0), (1, 0), (1, 1), (0.5, 1)],  # right
    10: [(0, 0), (1, 0), (1, 0.5)],  # a 22.5-degree slope: its low tile ...
    11: [(0, 0), (1, 0), (1, 1), (0, 0.5)],  # ... and its high tile
    12: [(0.5, 0.25), (0.75, 0.5), (0.5, 0.75), (0.25, 0.5)],  # a diamond clear of the sides
}
KINDS = [0, 1, *SHAPES]  # empty, the square, the shaped kinds
FACING = {(0.0, 1.0): 0, (0.0, -1.0): 1, (-1.0, 0.0): 2, (1.0, 0.0): 3}  # merged_edges' codes


# ------------------------------------------------------------------ helpers


def _random_kinds(rng: np.random.Generator, kinds: list[int], max_side: int = 10) -> np.ndarray:
    """A random grid of the given kinds (0 empty), at least one tile solid."""
    rows, cols = (int(v) for v in rng.integers(1, max_side + 1, size=2))
    empty = rng.uniform(0.15, 0.85)
    grid = np.where(rng.random((rows, cols)) < empty, 0,
                    rng.choice([k for k in kinds if k], size=(rows, cols)))
    if not grid.any():
        grid[rng.integers(rows), rng.integers(cols)] = 1
    return grid


def _as_merged_edges(grid) -> list[tuple[int, int, int, int, int]]:
    """The square-tile outline in `merged_edges`' form: low end first, facing 0 .. 3."""
    out = []
    for seg in exact_outline(grid, None):
        (x0, y0), (x1, y1) = sorted([seg.p0, seg.p1])
        nx, ny = seg.normal
        assert all(v.denominator == 1 for v in (x0, y0, x1, y1)), seg
        out.append((int(x0), int(y0), int(x1), int(y1), FACING[(float(nx), float(ny))]))
    return sorted(out)


def _union(grid, shapes, tile_size=1.0, origin=(0.0, 0.0)):
    """The union of the solid tiles' polygons (shapely), in world units."""
    rows, cols = np.shape(grid)
    polys = []
    for row, col in itertools.product(range(rows), range(cols)):
        kind = int(grid[row][col])
        if kind:
            poly = tile_polygon(rows, row, col, shapes.get(kind, SQUARE) if shapes else SQUARE)
            polys.append(Polygon([(origin[0] + float(x) * tile_size,
                                   origin[1] + float(y) * tile_size) for x, y in poly]))
    return unary_union(polys)


def _check_against_shapely(grid, shapes, tile_size=1.0, origin=(0.0, 0.0)) -> None:
    """The outline is the union's boundary, each normal pointing out of the union."""
    union = _union(grid, shapes, tile_size, origin)
    boundary = union.boundary
    segs = outline(grid, shapes, tile_size, origin)
    lines = [LineString([(x0, y0), (x1, y1)]) for x0, y0, x1, y1, _, _ in segs]
    total = sum(line.length for line in lines)
    assert total == pytest.approx(boundary.length, rel=1e-12, abs=1e-12)
    # no two segments overlap (their union is as long as they are together)
    assert unary_union(lines).length == pytest.approx(total, rel=1e-12, abs=1e-12)
    eps = 1e-7 * tile_size
    for (x0, y0, x1, y1, nx, ny), line in zip(segs, lines, strict=True):
        assert math.hypot(nx, ny) == pytest.approx(1.0, abs=1e-15)
        # the normal is on the segment's right, square to it
        dx, dy = x1 - x0, y1 - y0
        assert (dy * nx - dx * ny) == pytest.approx(math.hypot(dx, dy), rel=1e-12)
        for f in (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0):
            assert boundary.distance(line.interpolate(f, normalized=True)) < 1e-9
        # off the segment's ends and the grid's rational points: a step out is outside, a
        # step in inside
        for f in (0.3183098861837907, 0.6180339887498949):
            px, py = x0 + f * dx, y0 + f * dy
            assert not union.contains(Point(px + eps * nx, py + eps * ny)), (segs, f)
            assert union.contains(Point(px - eps * nx, py - eps * ny)), (segs, f)


def _crosses_cell(p0, p1, x0, y0) -> bool:
    """Whether the segment p0 -> p1 runs through the closed cell [x0, x0 + 1] x [y0, y0 + 1]
    for a positive length (exact: the segment clipped to the cell, as parameters 0 .. 1)."""
    lo, hi = Fraction(0), Fraction(1)
    for a, b, low in ((p0[0], p1[0], x0), (p0[1], p1[1], y0)):
        d = b - a
        if d == 0:
            if not low <= a <= low + 1:
                return False
            continue
        t0, t1 = sorted(((low - a) / d, (low + 1 - a) / d))
        lo, hi = max(lo, t0), min(hi, t1)
    return lo < hi


def _check_exact(grid, shapes) -> None:
    """Closed, maximal, and each segment's tiles solid and along it."""
    segs = exact_outline(grid, shapes)
    assert Counter(s.p0 for s in segs) == Counter(s.p1 for s in segs)  # closed chains
    for a, b in itertools.permutations(segs, 2):
        # one normal is one direction, so one point in common is one line: merge them
        assert not (a.normal == b.normal and a.p1 == b.p0), (a, b)
    kinds = np.asarray(grid)
    rows = kinds.shape[0]
    for s in segs:
        assert s.p0 != s.p1 and s.tiles and list(s.tiles) == sorted(set(s.tiles)), s
        for row, col in s.tiles:
            assert kinds[row, col] != 0, s
            assert _crosses_cell(s.p0, s.p1, col, rows - 1 - row), s


def _key(seg) -> tuple[float, ...]:
    """A segment rounded to 12 places, to compare with one written by hand."""
    return tuple(round(float(v), 12) for v in seg)


def _same(got, expect) -> bool:
    """Whether two outlines (lists of segments, or of (segment, tiles)) are the same set."""
    def norm(items):
        return sorted((_key(i[0]), list(i[1])) if len(i) == 2 else (_key(i), [])
                      for i in items)
    return norm(got) == norm(expect)


# ------------------------------------------------------------------ 1. squares: today's outline


def test_no_shapes_is_merged_edges_on_a_hand_example():
    solid = np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)
    assert _as_merged_edges(solid) == sorted(merged_edges(solid))
    assert len(outline(solid, None)) == 8


@pytest.mark.parametrize("seed", range(30))
def test_no_shapes_is_merged_edges_and_the_tile_maps_edges_on_random_grids(seed):
    rng = np.random.default_rng(seed)
    kinds = _random_kinds(rng, [0, 1, 2, 3], max_side=12)
    solid = kinds != 0
    assert _as_merged_edges(kinds) == sorted(merged_edges(solid))
    # kinds not in shapes are squares, whatever shapes holds for others
    assert outline(kinds, {99: SLOPE_UP}) == outline(kinds, None)
    # placed as TileMap places its edges (row 0 on top, origin its bottom-left corner)
    size = float(rng.choice([0.5, 1.0, 2.5]))
    origin = tuple(float(v) for v in rng.uniform(-10, 10, size=2))
    m = ep.TileMap(kinds, size, origin=origin)
    ours = sorted((tuple(sorted([(x0, y0), (x1, y1)])), FACING[(nx, ny)])
                  for x0, y0, x1, y1, nx, ny in outline(kinds, None, size, origin))
    theirs = sorted(((p1, p2), ep.TileMap.FACINGS.index(f)) for p1, p2, f in m.edges)
    assert len(ours) == len(theirs)
    for (ends, f), (their_ends, g) in zip(ours, theirs, strict=True):
        assert f == g
        assert np.allclose(ends, their_ends, rtol=0, atol=1e-12), (ends, their_ends)


@settings(max_examples=100)
@given(hnp.arrays(np.bool_, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=9)))
def test_no_shapes_is_merged_edges_property(solid):
    if not solid.any():
        assert outline(solid, None) == []
        return
    assert _as_merged_edges(solid) == sorted(merged_edges(solid))


def test_a_full_square_shape_changes_nothing():
    rng = np.random.default_rng(7)
    kinds = _random_kinds(rng, [0, 1, 2])
    square = {2: [(0, 0), (1, 0), (1, 1), (0, 1)]}
    assert outline(kinds, square) == outline(kinds, None)
    assert outline_tiles(kinds, square) == outline_tiles(kinds, None)


# ------------------------------------------------------------------ 2. shapes: shapely


@pytest.mark.parametrize("seed", range(40))
def test_shapes_outline_is_the_unions_boundary_on_random_grids(seed):
    rng = np.random.default_rng(1000 + seed)
    kinds = _random_kinds(rng, KINDS)
    _check_against_shapely(kinds, SHAPES)
    _check_exact(kinds, SHAPES)


@pytest.mark.parametrize("seed", range(5))
def test_shapes_outline_placed_with_a_tile_size_and_origin(seed):
    rng = np.random.default_rng(2000 + seed)
    kinds = _random_kinds(rng, KINDS)
    size, origin = 2.5, (-3.25, 7.5)  # dyadic: shapely's union is exact too
    _check_against_shapely(kinds, SHAPES, size, origin)
    moved = outline(kinds, SHAPES, size, origin)
    for a, b in zip(outline(kinds, SHAPES), moved, strict=True):
        assert _key(b) == _key((origin[0] + a[0] * size, origin[1] + a[1] * size,
                                origin[0] + a[2] * size, origin[1] + a[3] * size, a[4], a[5]))


@settings(max_examples=120)
@given(st.integers(1, 7).flatmap(lambda rows: st.integers(1, 7).flatmap(
    lambda cols: hnp.arrays(np.int64, (rows, cols), elements=st.sampled_from(KINDS)))))
def test_shapes_outline_is_the_unions_boundary_property(kinds):
    if not kinds.any():
        assert outline(kinds, SHAPES) == []
        return
    _check_against_shapely(kinds, SHAPES)
    _check_exact(kinds, SHAPES)


def test_slopes_in_a_row_are_one_segment_across_the_map():
    # a 20-tile 45-degree slope, every tile filled under it, in one long diagonal band
    n = 20
    kinds = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        kinds[n - 1 - i, i] = 2
        kinds[n - 1 - i, i + 1:] = 1
    segs = outline_with_tiles(kinds, SHAPES)
    slope = [(s, t) for s, t in segs if s[4] < 0 and s[5] > 0]
    assert len(slope) == 1 and _key(slope[0][0]) == _key((n, n, 0, 0, -R2, R2))
    assert slope[0][1] == sorted((n - 1 - i, i) for i in range(n))
    assert len(segs) == 3


# ------------------------------------------------------------------ 3. by hand


def test_a_five_tile_slope_with_squares_under_it_is_one_segment():
    grid = [
        "......S##",
        ".....S###",
        "....S####",
        "...S#####",
        "..S######",
        "#########",
    ]
    kinds = np.array([[{"#": 1, "S": 2, ".": 0}[ch] for ch in row] for row in grid])
    segs = outline_with_tiles(kinds, {2: SLOPE_UP})
    # one ledge of floor, its side, the floor's underside, the right wall, the plateau, the
    # slope: the solid on each segment's left, so the whole runs counter-clockwise
    expect = [
        ((2, 1, 0, 1, 0, 1), [(5, 0), (5, 1)]),
        ((0, 1, 0, 0, -1, 0), [(5, 0)]),
        ((0, 0, 9, 0, 0, -1), [(5, c) for c in range(9)]),
        ((9, 0, 9, 6, 1, 0), [(r, 8) for r in range(6)]),
        ((9, 6, 7, 6, 0, 1), [(0, 7), (0, 8)]),
        ((7, 6, 2, 1, -R2, R2), [(0, 6), (1, 5), (2, 4), (3, 3), (4, 2)]),
    ]
    assert _same(segs, expect)
    slope = next(s for s, _ in segs if s[4] < 0 < s[5])
    assert math.hypot(slope[2] - slope[0], slope[3] - slope[1]) == pytest.approx(5 * math.sqrt(2))
    _check_against_shapely(kinds, {2: SLOPE_UP})


def test_a_five_tile_slope_alone_is_a_right_triangle():
    kinds = np.array([[0] * (4 - i) + [2] + [1] * i for i in range(5)])
    segs = outline(kinds, {2: SLOPE_UP})
    assert _same(segs, [(0, 0, 5, 0, 0, -1), (5, 0, 5, 5, 1, 0), (5, 5, 0, 0, -R2, R2)])
    assert len(segs) == 3


def test_a_half_tile_beside_a_square_shows_the_squares_side_above_it_only():
    kinds = [[1, 6]]  # a square, then a bottom half tile to its right
    segs = outline_with_tiles(kinds, SHAPES)
    want = {
        (1, 1, 0, 1, 0, 1): [(0, 0)],  # the square's top
        (0, 1, 0, 0, -1, 0): [(0, 0)],  # its left side
        (0, 0, 2, 0, 0, -1): [(0, 0), (0, 1)],  # one floor underneath both
        (2, 0, 2, 0.5, 1, 0): [(0, 1)],  # the half tile's right side
        (2, 0.5, 1, 0.5, 0, 1): [(0, 1)],  # its top
        (1, 0.5, 1, 1, 1, 0): [(0, 0)],  # the square's side above it: 0.5 long
    }
    assert _same(segs, want.items())
    # mirrored: the half tile's right side is hidden whole, the square's left side shows above
    # it (running down, the solid on its left)
    mirrored = outline_with_tiles([[6, 1]], SHAPES)
    sides = [s for s, _ in mirrored if s[4] != 0]
    assert sorted(sides) == sorted([(0.0, 0.5, 0.0, 0.0, -1.0, 0.0),
                                    (1.0, 1.0, 1.0, 0.5, -1.0, 0.0),
                                    (2.0, 0.0, 2.0, 1.0, 1.0, 0.0)])


def test_a_half_tile_top_does_not_merge_with_a_square_floor_beside_it():
    segs = outline([[1, 1, 6, 6]], SHAPES)
    tops = sorted(s for s in segs if s[5] == 1.0)
    assert tops == [(2.0, 1.0, 0.0, 1.0, 0.0, 1.0), (4.0, 0.5, 2.0, 0.5, 0.0, 1.0)]
    assert len(segs) == 6


def test_two_mirrored_slopes_make_a_peak():
    segs = outline_with_tiles([[2, 3]], SHAPES)
    assert _same(segs, [
        ((0.0, 0.0, 2.0, 0.0, 0.0, -1.0), [(0, 0), (0, 1)]),
        ((2.0, 0.0, 1.0, 1.0, R2, R2), [(0, 1)]),
        ((1.0, 1.0, 0.0, 0.0, -R2, R2), [(0, 0)]),
    ])
    # a mound two tiles high: each side one segment of two slope tiles
    segs = outline_with_tiles([[0, 2, 3, 0], [2, 1, 1, 3]], SHAPES)
    assert _same(segs, [
        ((0.0, 0.0, 4.0, 0.0, 0.0, -1.0), [(1, 0), (1, 1), (1, 2), (1, 3)]),
        ((4.0, 0.0, 2.0, 2.0, R2, R2), [(0, 2), (1, 3)]),
        ((2.0, 2.0, 0.0, 0.0, -R2, R2), [(0, 1), (1, 0)]),
    ])


def test_a_shallow_slope_of_two_kinds_is_one_segment():
    segs = outline_with_tiles([[10, 11]], SHAPES)
    n = 1 / math.sqrt(5)
    assert _same(segs, [
        ((0.0, 0.0, 2.0, 0.0, 0.0, -1.0), [(0, 0), (0, 1)]),
        ((2.0, 0.0, 2.0, 1.0, 1.0, 0.0), [(0, 1)]),
        ((2.0, 1.0, 0.0, 0.0, -n, 2 * n), [(0, 0), (0, 1)]),
    ])
    (seg,) = [s for s in exact_outline([[10, 11]], SHAPES) if s.normal[0] < 0]
    assert (seg.p0, seg.p1, seg.normal) == ((2, 1), (0, 0), (Fraction(-1, 2), 1))


def test_a_slope_alone_in_the_air_is_three_segments_placed_on_the_map():
    kinds = [[0, 0, 0], [0, 2, 0], [0, 0, 0]]
    segs = outline_with_tiles(kinds, SHAPES, tile_size=2.0, origin=(10.0, -4.0))
    # tile (1, 1) of 3 rows covers x 12 .. 14, y -2 .. 0 (as TileMap.tile_box says)
    assert ep.TileMap(kinds, 2.0, origin=(10.0, -4.0)).tile_box(1, 1) == (12.0, -2.0, 14.0, 0.0)
    assert _same(segs, [
        ((12.0, -2.0, 14.0, -2.0, 0.0, -1.0), [(1, 1)]),
        ((14.0, -2.0, 14.0, 0.0, 1.0, 0.0), [(1, 1)]),
        ((14.0, 0.0, 12.0, -2.0, -R2, R2), [(1, 1)]),
    ])


def test_row_zero_is_the_top_row():
    # a bottom half tile in the top row of two: its top at y = 1.5, not 0.5
    segs = outline([[6], [0]], SHAPES)
    assert (1.0, 1.5, 0.0, 1.5, 0.0, 1.0) in segs
    assert min(min(s[1], s[3]) for s in segs) == 1.0


def test_a_diamond_is_its_own_four_sides_and_touches_nothing():
    segs = outline_with_tiles([[1, 12, 1]], SHAPES)
    diamond = [(s, t) for s, t in segs if t == [(0, 1)]]
    assert len(diamond) == 4 and all(abs(s[4]) == pytest.approx(R2) for s, _ in diamond)
    assert len(segs) == 4 + 4 + 4  # two squares, each four sides, and the diamond


def test_exact_outline_is_in_grid_units_with_fractions():
    (seg,) = [s for s in exact_outline([[6]], SHAPES) if s.normal == (0, 1)]
    assert seg.p0 == (1, Fraction(1, 2)) and seg.p1 == (0, Fraction(1, 2))
    assert all(isinstance(v, Fraction) for v in (*seg.p0, *seg.p1, *seg.normal))
    assert seg.tiles == ((0, 0),)


def test_outline_tiles_follow_outline_whatever_the_placement():
    kinds = [[0, 2, 3, 0], [2, 1, 1, 3]]
    assert outline_tiles(kinds, SHAPES) == [t for _, t in outline_with_tiles(kinds, SHAPES)]
    assert outline_tiles(kinds, SHAPES) == [
        t for _, t in outline_with_tiles(kinds, SHAPES, 3.0, (1.0, 2.0))]


def test_float_coordinates_are_taken_exactly():
    # 0.1 + 0.2 is not 0.3 in floats: these two points are not collinear with (0, 0.3) ...
    shapes = {2: [(0, 0), (1, 0), (1, 0.1 + 0.2), (0, 0.3)]}
    assert check_shapes(shapes)[2] == ((0.0, 0.0), (1.0, 0.0), (1.0, 0.1 + 0.2), (0.0, 0.3))
    # ... so two such tiles side by side have tops on two lines, which do not merge
    tops = [s for s in outline([[2, 2]], shapes) if s[5] > 0]
    assert len(tops) == 2


# ------------------------------------------------------------------ 4. check_shapes


def test_check_shapes_keeps_counter_clockwise_and_turns_clockwise_round():
    assert check_shapes(None) == {}
    got = check_shapes({2: [(0, 0), (1, 1), (1, 0)], 3: SLOPE_DOWN,
                        4: [(0, 0), (0, 1), (1, 1), (1, 0)]})
    assert got == {2: ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0)),
                   3: ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)),
                   4: ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))}
    assert all(isinstance(v, float) for poly in got.values() for p in poly for v in p)
    # a clockwise slope tile makes the same outline as the counter-clockwise one
    assert outline([[2]], {2: [(0, 0), (1, 1), (1, 0)]}) == outline([[2]], {2: SLOPE_UP})
    # numpy input, Fractions and ints
    assert check_shapes({np.int64(5): np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]])}) == \
        {5: ((0.0, 0.0), (1.0, 0.0), (0.5, 1.0))}
    assert check_shapes({2: [(Fraction(1, 3), 0), (1, 0), (1, 1)]})[2][0] == (1 / 3, 0.0)


_STAR = [(0.5 + 0.5 * math.cos(math.radians(90 + 144 * i)),
          0.5 + 0.5 * math.sin(math.radians(90 + 144 * i))) for i in range(5)]


@pytest.mark.parametrize(("shapes", "fault"), [
    ({2: [(0, 0), (1, 0), (1, 1), (0.5, 0.25), (0, 1)]}, "not convex"),
    ({2: _STAR}, "not convex"),
    ({2: [(0, 0), (1.5, 0), (1, 1)]}, r"\[0, 1\]"),
    ({2: [(0, 0), (1, -0.25), (1, 1)]}, r"\[0, 1\]"),
    ({2: [(0, 0), (1, math.nan), (1, 1)]}, "finite"),
    ({2: [(0, 0), (math.inf, 0), (1, 1)]}, "finite"),
    ({2: [(0, 0), (1, 1)]}, "at least 3 points"),
    ({2: []}, "at least 3 points"),
    ({2: [(0, 0), (0.5, 0.5), (1, 1)]}, "zero area"),
    ({2: [(0, 0), (1, 1), (1, 0), (0, 1)]}, "zero area"),  # a bow tie
    ({2: [(0, 0), (1, 0), (1, 0), (1, 1)]}, "repeated"),
    ({2: [(0, 0), (0.5, 0), (1, 0), (1, 1)]}, "collinear"),
    ({2: [(0, 0), (1, 0, 0), (1, 1)]}, r"\(x, y\)"),
    ({2: [(0, 0), "ab", (1, 1)]}, r"\(x, y\)"),
    ({2: [(0, 0), (1, "0"), (1, 1)]}, "numbers"),
    ({2: [(0, 0), (1, None), (1, 1)]}, "numbers"),
    ({2: [(0, 0), (True, 0), (1, 1)]}, "numbers"),
    ({2: 5}, "sequence of points"),
])
def test_check_shapes_refuses_naming_the_kind_and_the_fault(shapes, fault):
    with pytest.raises(ValueError, match=f"kind 2: .*{fault}"):
        check_shapes(shapes)
    with pytest.raises(ValueError, match=fault):
        outline([[2]], shapes)


@pytest.mark.parametrize("kind", [0, -1, 1.5, "2", True, None])
def test_check_shapes_refuses_kinds_that_are_not_ints_from_one(kind):
    with pytest.raises(ValueError, match=rf"kind {kind!r}.*int >= 1"):
        check_shapes({kind: SLOPE_UP})


@pytest.mark.parametrize(("grid", "size", "origin"), [
    ([[1, -1]], 1.0, (0.0, 0.0)), ([1, 1], 1.0, (0.0, 0.0)), ([[0.5]], 1.0, (0.0, 0.0)),
    ([[1]], 0.0, (0.0, 0.0)), ([[1]], math.nan, (0.0, 0.0)), ([[1]], 1.0, (math.inf, 0.0)),
])
def test_outline_refuses_bad_grids_and_placements(grid, size, origin):
    with pytest.raises(ValueError):
        outline(grid, None, size, origin)
