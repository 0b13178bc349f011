"""A reference outline for tile maps whose tile kinds have shapes: slow, exact and plain, for
tests to hold the library's own outline against (tests/test_tile_outline.py proves it).

Guarantees:
- ``check_shapes(shapes)`` accepts ``{kind: polygon}`` (kind an int >= 1; a polygon at least
  three points ``(x, y)`` in tile units, each coordinate a finite number in ``[0, 1]``, (0, 0)
  the tile's bottom-left corner, y up) only if the polygon is strictly convex with a positive
  area (no repeated point, no point on the line of its two neighbours); given clockwise it is
  turned counter-clockwise, its first point kept first. Anything else is a ``ValueError``
  naming the kind and the fault;
- placement is `ecsphys.TileMap`'s: grid row 0 is the *top* row, so tile ``(row, col)`` of a
  map of ``rows`` rows covers ``x`` in ``origin.x + [col, col + 1] * tile_size`` and ``y`` in
  ``origin.y + [rows - 1 - row, rows - row] * tile_size``; a kind not in ``shapes`` is the
  full square, kind 0 is empty;
- ``outline`` is the one-sided outline of the union of the solid tiles, by the rule: every
  tile polygon's boundary is cut into its edges; on each supporting line a piece of an edge
  is part of the outline exactly where no edge on the same line with the opposite normal
  covers it (1D interval subtraction: only a 4-neighbour's edge can share a stretch of line
  with a tile's edge, as tiles lie in their own cells); then the pieces left on one line with
  one normal that touch end to end are merged into one maximal segment;
- everything is decided in exact arithmetic (``fractions.Fraction``: a float coordinate,
  tile size or origin is taken at its exact binary value), so collinearity and touching are
  exact; floats are made only at the end (each the correctly rounded exact value, the unit
  normal from a square root);
- a segment ``(x0, y0, x1, y1, nx, ny)`` runs with the solid on its left: its normal, on the
  right of ``(x0, y0) -> (x1, y1)``, points out of the solid (as the edges of a
  counter-clockwise polygon, and as the one-sided segments of `TileMap.parts`);
- ``outline_with_tiles`` pairs each segment with the sorted ``(row, col)`` of the tiles whose
  edges (the parts of them left in the outline) make it; ``exact_outline`` gives the same in
  grid units (x from the map's left side, y up from its bottom) as Fractions;
- the order of the segments is deterministic (by line, then side, then position on the line).
"""

from __future__ import annotations

import math
import numbers
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

import numpy as np

Point = tuple[Fraction, Fraction]
Segment = tuple[float, float, float, float, float, float]
Tile = tuple[int, int]

#: the full square, the shape of every kind not named in ``shapes``
SQUARE: tuple[Point, ...] = tuple((Fraction(x), Fraction(y))
                                  for x, y in ((0, 0), (1, 0), (1, 1), (0, 1)))


class ExactSegment(NamedTuple):
    """One outline segment in grid units: from ``p0`` to ``p1`` with the solid on its left;
    ``normal`` the outward normal's direction, exact but not of unit length (``(0, 1)`` up,
    ``(-1, 1)`` for a 45-degree slope rising to the right); ``tiles`` its tiles, sorted."""

    p0: Point
    p1: Point
    normal: Point
    tiles: tuple[Tile, ...]


# ------------------------------------------------------------------ shapes


def _cross(o: Point, a: Point, b: Point) -> Fraction:
    """``(a - o) x (b - o)``: positive when o -> a -> b turns left."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _coordinate(kind: int, value: object) -> Fraction:
    """One coordinate as an exact Fraction. ``ValueError`` unless a finite number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"shape of kind {kind}: coordinates must be numbers, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"shape of kind {kind}: coordinates must be finite, got {value!r}")
    # a float (NumPy's too) at its exact binary value
    exact = Fraction(value) if isinstance(value, numbers.Rational) else Fraction(float(value))
    if not 0 <= exact <= 1:
        raise ValueError(f"shape of kind {kind}: coordinates must lie in [0, 1], got {value!r}")
    return exact


def _exact_polygon(kind: int, polygon: object) -> tuple[Point, ...]:
    """The polygon of ``kind`` counter-clockwise, exact (see `check_shapes`)."""
    if isinstance(polygon, str | bytes) or not isinstance(polygon, Iterable):
        raise ValueError(f"shape of kind {kind}: must be a sequence of points, got {polygon!r}")
    points: list[Point] = []
    for p in polygon:
        if isinstance(p, str | bytes) or not isinstance(p, Iterable):
            raise ValueError(f"shape of kind {kind}: a point must be (x, y), got {p!r}")
        xy = tuple(p)
        if len(xy) != 2:
            raise ValueError(f"shape of kind {kind}: a point must be (x, y), got {p!r}")
        points.append((_coordinate(kind, xy[0]), _coordinate(kind, xy[1])))
    n = len(points)
    if n < 3:
        raise ValueError(f"shape of kind {kind}: needs at least 3 points, got {n}")
    if len(set(points)) != n:
        raise ValueError(f"shape of kind {kind}: has a repeated point")
    twice_area = sum(points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1]
                     for i in range(n))
    if twice_area == 0:
        raise ValueError(f"shape of kind {kind}: has zero area")
    if twice_area < 0:  # clockwise: the same points the other way round, the first one kept
        points = [points[0], *reversed(points[1:])]
    for i in range(n):
        if _cross(points[i - 1], points[i], points[(i + 1) % n]) == 0:
            raise ValueError(f"shape of kind {kind}: point {i} lies on the line of its "
                             f"neighbours (collinear, redundant)")
    # strictly convex and simple: every other point strictly left of every edge's line
    for i in range(n):
        a, b = points[i], points[(i + 1) % n]
        for j in range(n):
            if j not in (i, (i + 1) % n) and _cross(a, b, points[j]) <= 0:
                raise ValueError(f"shape of kind {kind}: is not convex (point {j} is not "
                                 f"inside the line of edge {i})")
    return tuple(points)


def _exact_shapes(shapes: Mapping[int, object] | None) -> dict[int, tuple[Point, ...]]:
    """Each kind's polygon, exact and counter-clockwise (see `check_shapes`)."""
    if shapes is None:
        return {}
    if not isinstance(shapes, Mapping):
        raise ValueError(f"shapes must map tile kinds to polygons, got {shapes!r}")
    out: dict[int, tuple[Point, ...]] = {}
    for kind, polygon in shapes.items():
        if isinstance(kind, bool) or not isinstance(kind, numbers.Integral) or kind < 1:
            raise ValueError(f"shape of kind {kind!r}: a kind must be an int >= 1")
        out[int(kind)] = _exact_polygon(int(kind), polygon)
    return out


def check_shapes(shapes: Mapping[int, object] | None) -> dict[int, tuple[tuple[float, float], ...]]:
    """Each kind's polygon counter-clockwise, as floats (its first point kept first; exact for
    float input, which is taken at its binary value). ``None`` gives ``{}``.

    ``ValueError`` naming the kind and the fault: a kind that is not an int >= 1; a polygon of
    fewer than 3 points, a point that is not ``(x, y)``, a coordinate that is not a finite
    number in ``[0, 1]``, a repeated point, zero area, a point on the line of its two
    neighbours, or a polygon that is not convex (concave or self-crossing).
    """
    return {kind: tuple((float(x), float(y)) for x, y in poly)
            for kind, poly in _exact_shapes(shapes).items()}


# ------------------------------------------------------------------ the grid


def _kinds(grid: object) -> np.ndarray:
    """The grid as a 2D int64 array of kinds (bools: True is kind 1). ``ValueError`` else."""
    arr = np.asarray(grid)
    if arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(f"grid must be a non-empty 2D array, got shape {arr.shape}")
    if arr.dtype == np.bool_:
        return arr.astype(np.int64)
    if not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0:
        raise ValueError("grid must hold bools or non-negative int kinds")
    return arr.astype(np.int64)


def tile_polygon(rows: int, row: int, col: int, shape: Sequence[Point]) -> tuple[Point, ...]:
    """A tile's polygon in grid units: its cell's bottom-left corner is ``(col, rows - 1 - row)``
    (row 0 is the top row), and a point of the shape is in tile units from there."""
    x0, y0 = Fraction(col), Fraction(rows - 1 - row)
    return tuple((x0 + x, y0 + y) for x, y in shape)


# ------------------------------------------------------------------ the outline


class _Piece(NamedTuple):
    lo: Fraction  # position on the line (x, or y on a vertical line), lo < hi
    hi: Fraction
    forward: bool  # the edge runs from lo to hi (else from hi to lo)
    tile: Tile


def _line_of(p: Point, q: Point) -> tuple[tuple[int, Fraction, Fraction], int, Fraction, Fraction]:
    """The line through the edge p -> q of a counter-clockwise polygon, the side its outward
    normal is on, and p's and q's positions on the line.

    The line is ``a x + b y = c`` with the normal ``(a, b) = (dy, -dx)`` (to the right of the
    edge, so out of the polygon). It is keyed so both sides of it share the key: ``(0, a/b,
    c/b)`` (``y = c/b - (a/b) x``, position x) if it is not vertical, else ``(1, c/a, 0)``
    (``x = c/a``, position y); the side is +1 if the normal is ``(a/b, 1)`` or ``(1, 0)``
    times a positive number, -1 if a negative one."""
    a, b = q[1] - p[1], p[0] - q[0]
    c = a * p[0] + b * p[1]
    if b != 0:
        return (0, a / b, c / b), (1 if b > 0 else -1), p[0], q[0]
    return (1, c / a, Fraction(0)), (1 if a > 0 else -1), p[1], q[1]


def _point_on(key: tuple[int, Fraction, Fraction], t: Fraction) -> Point:
    """The point at position t on the keyed line."""
    vertical, m, c = key
    if vertical:
        return (m, t)
    return (t, c - m * t)


def _pieces_by_line(kinds: np.ndarray, shapes: Mapping[int, tuple[Point, ...]]
                    ) -> dict[tuple[int, Fraction, Fraction], dict[int, list[_Piece]]]:
    """Every edge of every solid tile, grouped by supporting line and then by side."""
    rows, cols = kinds.shape
    lines: dict[tuple[int, Fraction, Fraction], dict[int, list[_Piece]]] = \
        defaultdict(lambda: {1: [], -1: []})
    for row in range(rows):
        for col in range(cols):
            kind = int(kinds[row, col])
            if kind == 0:
                continue
            poly = tile_polygon(rows, row, col, shapes.get(kind, SQUARE))
            for i, p in enumerate(poly):
                q = poly[(i + 1) % len(poly)]
                key, side, tp, tq = _line_of(p, q)
                lines[key][side].append(_Piece(min(tp, tq), max(tp, tq), tq > tp, (row, col)))
    return lines


def _uncovered(pieces: list[_Piece], covers: list[_Piece], cuts: list[Fraction]) -> list[_Piece]:
    """The parts of ``pieces`` no piece of ``covers`` covers, cut at every point of ``cuts``
    (all the ends on the line) into elementary pieces: each lies wholly inside or outside any
    piece on the line, so covered means inside one cover."""
    out = []
    for piece in pieces:
        ends = [t for t in cuts if piece.lo <= t <= piece.hi]
        for lo, hi in zip(ends, ends[1:], strict=False):
            if not any(c.lo <= lo and hi <= c.hi for c in covers):
                out.append(piece._replace(lo=lo, hi=hi))
    return out


def _merged(pieces: list[_Piece]) -> list[tuple[Fraction, Fraction, bool, set[Tile]]]:
    """Pieces of one side of one line that touch end to end, merged: ``(lo, hi, forward,
    tiles)`` per maximal run, in order along the line."""
    runs: list[tuple[Fraction, Fraction, bool, set[Tile]]] = []
    for piece in sorted(pieces):
        if runs:
            lo, hi, forward, tiles = runs[-1]
            assert piece.forward == forward, "one side of a line runs one way"
            assert piece.lo >= hi, f"two tiles' edges overlap on one side: {runs[-1]}, {piece}"
            if piece.lo == hi:
                runs[-1] = (lo, piece.hi, forward, tiles | {piece.tile})
                continue
        runs.append((piece.lo, piece.hi, piece.forward, {piece.tile}))
    return runs


def exact_outline(grid: object, shapes: Mapping[int, object] | None) -> list[ExactSegment]:
    """The outline in grid units, exact (see the module docstring for the rule): x from the
    map's left side, y up from its bottom, in tiles. ``ValueError`` for a bad grid or shape
    (see `check_shapes`)."""
    kinds = _kinds(grid)
    exact = _exact_shapes(shapes)
    out = []
    for key, sides in sorted(_pieces_by_line(kinds, exact).items()):
        cuts = sorted({t for pieces in sides.values() for p in pieces for t in (p.lo, p.hi)})
        for side in (1, -1):
            kept = _uncovered(sides[side], sides[-side], cuts)
            normal = (Fraction(side), Fraction(0)) if key[0] else (side * key[1], Fraction(side))
            for lo, hi, forward, tiles in _merged(kept):
                p0, p1 = _point_on(key, lo), _point_on(key, hi)
                if not forward:
                    p0, p1 = p1, p0
                out.append(ExactSegment(p0, p1, normal, tuple(sorted(tiles))))
    return out


def _world(tile_size: float, origin: Iterable[float]) -> tuple[Fraction, Fraction, Fraction]:
    """The tile size and origin as exact Fractions. ``ValueError`` unless finite (size > 0)."""
    ox, oy = tuple(origin)
    for name, v in (("tile_size", tile_size), ("origin.x", ox), ("origin.y", oy)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
            raise ValueError(f"{name} must be a finite number, got {v!r}")
    if tile_size <= 0:
        raise ValueError(f"tile_size must be positive, got {tile_size!r}")
    return Fraction(tile_size), Fraction(ox), Fraction(oy)


def outline_with_tiles(grid: object, shapes: Mapping[int, object] | None,
                       tile_size: float = 1.0, origin: Iterable[float] = (0.0, 0.0)
                       ) -> list[tuple[Segment, list[Tile]]]:
    """Each outline segment ``(x0, y0, x1, y1, nx, ny)`` in world units (see `outline`) with
    the sorted ``(row, col)`` of the tiles whose edges make it. ``ValueError`` as `outline`."""
    size, ox, oy = _world(tile_size, origin)
    out = []
    for seg in exact_outline(grid, shapes):
        (x0, y0), (x1, y1) = seg.p0, seg.p1
        nx, ny = seg.normal
        length = math.hypot(float(nx), float(ny))
        out.append(((float(ox + x0 * size), float(oy + y0 * size), float(ox + x1 * size),
                     float(oy + y1 * size), float(nx) / length, float(ny) / length),
                    list(seg.tiles)))
    return out


def outline(grid: object, shapes: Mapping[int, object] | None, tile_size: float = 1.0,
            origin: Iterable[float] = (0.0, 0.0)) -> list[Segment]:
    """The one-sided outline of the solid tiles of ``grid`` (a 2D array of kinds, row 0 on
    top; bools as kind 1) with the shapes ``shapes`` (None: all squares), as segments
    ``(x0, y0, x1, y1, nx, ny)`` in world units: the solid on the segment's left, ``(nx, ny)``
    the unit normal on its right, out of the solid. ``ValueError`` for a grid that is not a
    non-empty 2D array of bools or non-negative ints, a bad shape (see `check_shapes`), a
    tile size that is not finite and positive or an origin that is not two finite numbers."""
    return [seg for seg, _ in outline_with_tiles(grid, shapes, tile_size, origin)]


def outline_tiles(grid: object, shapes: Mapping[int, object] | None) -> list[list[Tile]]:
    """For each segment of ``outline(grid, shapes, ...)`` (in its order, whatever the tile size
    and origin), the sorted ``(row, col)`` of the tiles whose edges make it."""
    return [list(seg.tiles) for seg in exact_outline(grid, shapes)]
