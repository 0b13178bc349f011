"""Tile shapes from Tiled: the one convex collision shape a tileset gives each tile (drawn in
Tiled's tile collision editor), turned as a tile layer's flip bits turn the tile, and the
`TileMap` kinds that carry them (``TileMap(..., shapes=...)``).

Guarantees:
- ``tile_outline(tile, ...)`` is a tile's shape in *tile units*: its points ``(x, y)`` from
  0 to 1 across the tile's cell, ``(0, 0)`` its bottom-left corner, y up, counter-clockwise
  from its leftmost (then lowest) point, each coordinate rounded to 12 decimals (so that a
  shape met twice, however it was turned, is the same tuple); ``None`` for a square: a tile
  without collision objects, or whose objects cover its whole cell. Tiled's tile pixels (y
  down from the tile image's top-left corner) are placed as Tiled draws the tile on a tile
  layer: at its own size (a tileset's ``tilerendersize`` "tile", the default), the image
  standing on its cell's bottom-left corner, so ``x = px / cell``,
  ``y = (image_height - py) / cell``; at the grid's size ("grid", Tiled 1.9), the image
  scaled to the cell, by ``cell / image_width`` across and ``cell / image_height`` up
  (``fillmode`` "stretch", the default), or by the smaller of the two both ways and centred
  in the cell ("preserve-aspect-fit"). Any other render size or fill mode is a
  ``ValueError`` naming it;
- a rectangle or a polygon is read (turned by its rotation, clockwise about its position, as
  Tiled turns it); ellipses, points, polylines, texts and tile objects are left out of the
  shape: a tile has one convex polygon in a `TileMap` and none of them is one, so the tile
  collides as it did before tiles had shapes (its square, when they are all it has), and
  maps made for engines that read them (Arcade's coins carry round hit boxes) load as they
  did. Draw a rectangle or a polygon to give a tile its shape;
- one convex shape per tile: a concave polygon (split by
  ``ecsphys.geometry.convex_decompose``) or several objects are taken as their convex hull
  only when the hull *is* their union (the areas agree within ``AREA_TOLERANCE``); otherwise
  ``ValueError``, saying the tile needs one convex collision shape. A coordinate up to
  ``EDGE_TOLERANCE`` outside the cell is moved onto it; further out is a ``ValueError``;
- every number read is checked (an int or a finite float within ``MAX_COORD``), at most
  ``MAX_TILE_OBJECTS`` objects and ``MAX_TILE_POINTS`` points a tile, and a shape of more
  than ``MAX_SHAPE_POINTS`` corners (a `TileMap`'s most) is refused. The errors name the
  object and the value; the caller names the file, the tileset and the tile;
- ``flipped(shape, bits)`` turns a shape as Tiled draws a tile whose gid carries flip bits:
  the diagonal flip first (Tiled's x/y swap, y down: ``(x, y) -> (1 - y, 1 - x)`` in tile
  units, y up), then the horizontal (``x -> 1 - x``), then the vertical (``y -> 1 - y``);
  the hexagonal 120-degree bit means nothing on an orthogonal map and is ignored;
- ``number_kinds(cells, mapped)`` gives each tile of a layer its kind and the map its shapes:
  unmapped (every tile solid), squares are kind 1 and each distinct shape a fresh kind from 2,
  in the order the cells are given; mapped, a tile keeps its kind, and a kind whose tiles
  would need two shapes (a square counts as one) is a ``ValueError`` naming the kind, both
  tiles and where they lie. Kind 0 stays empty, whatever its tiles' shapes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from .limits import MAX_COORD, MAX_TILE_SHAPE_POINTS

#: The most points a tile's shape may have (a `TileMap` holds no more: its compiled table's
#: ``MAX_SHAPE_POINTS``).
MAX_SHAPE_POINTS = MAX_TILE_SHAPE_POINTS

__all__ = ["TileShape", "Cell", "tile_outline", "flipped", "flip_words", "number_kinds",
           "describe"]

#: A tile's shape: its convex outline in tile units, counter-clockwise.
TileShape = tuple[tuple[float, float], ...]

#: Tiled's flip bits on a gid: horizontal, vertical, diagonal (the x/y swap), and the
#: hexagonal maps' 120-degree turn (meaningless on the orthogonal maps read here).
FLIP_H = 0x80000000
FLIP_V = 0x40000000
FLIP_D = 0x20000000
HEX_120 = 0x10000000

#: The most collision objects one tile may carry, and points all of them together.
MAX_TILE_OBJECTS = 64
MAX_TILE_POINTS = 2048
#: How far (in tile units) a point may lie outside its cell and be moved onto it.
EDGE_TOLERANCE = 1e-6
#: How much (in tile areas) the convex hull of a tile's pieces may exceed their union.
AREA_TOLERANCE = 1e-9
#: Digits the points of a shape are rounded to.
_DIGITS = 12
#: A shape this close to the whole cell (in tile areas) is a square.
_FULL = 1.0 - AREA_TOLERANCE
#: The most convex pieces the union check may hold at once (a bound on its work).
_MAX_REMAINS = 4096

Vec = tuple[float, float]


# ------------------------------------------------------------------ plane geometry


def _cross(o: Vec, a: Vec, b: Vec) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _area(pts: Sequence[Vec]) -> float:
    """The signed area (counter-clockwise positive)."""
    n = len(pts)
    return 0.5 * sum(pts[i][0] * pts[(i + 1) % n][1] - pts[(i + 1) % n][0] * pts[i][1]
                     for i in range(n))


def _hull(points: Sequence[Vec]) -> list[Vec]:
    """The convex hull, counter-clockwise from the leftmost (then lowest) point (Andrew's
    monotone chain), without collinear points."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts
    lower: list[Vec] = []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[Vec] = []
    for p in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _is_convex(pts: Sequence[Vec]) -> bool:
    """Whether the outline is a simple convex polygon (either winding; points on a straight
    side allowed): it turns one way only, once around."""
    n = len(pts)
    sign = 0.0
    turning = 0.0
    for i in range(n):
        a, b, c = pts[i - 1], pts[i], pts[(i + 1) % n]
        e1, e2 = (b[0] - a[0], b[1] - a[1]), (c[0] - b[0], c[1] - b[1])
        cross = e1[0] * e2[1] - e1[1] * e2[0]
        turning += math.atan2(cross, e1[0] * e2[0] + e1[1] * e2[1])
        if abs(cross) <= 1e-12 * math.hypot(*e1) * math.hypot(*e2):
            continue
        if sign == 0.0:
            sign = math.copysign(1.0, cross)
        elif cross * sign < 0:
            return False
    return sign != 0.0 and abs(abs(turning) - 2 * math.pi) < 1e-6


def _clip(poly: list[Vec], a: Vec, b: Vec, left: bool) -> list[Vec]:
    """The part of the convex ``poly`` on the left (or right) of the line a -> b."""
    out: list[Vec] = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        dp, dq = _cross(a, b, p), _cross(a, b, q)
        if not left:
            dp, dq = -dp, -dq
        if dp >= 0:
            out.append(p)
        if (dp > 0 > dq) or (dq > 0 > dp):
            t = dp / (dp - dq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def _uncovered(hull: list[Vec], pieces: list[list[Vec]]) -> float:
    """The area of ``hull`` that no piece covers (pieces convex, counter-clockwise): the hull
    is cut, piece by piece, into convex remains outside every piece so far."""
    remains = [hull]
    tiny = AREA_TOLERANCE * 1e-6
    for piece in sorted(pieces, key=_area, reverse=True):
        kept: list[list[Vec]] = []
        for rest in remains:
            for i in range(len(piece)):
                a, b = piece[i], piece[(i + 1) % len(piece)]
                outside = _clip(rest, a, b, left=False)
                if len(outside) >= 3 and _area(outside) > tiny:
                    kept.append(outside)
                rest = _clip(rest, a, b, left=True)
                if len(rest) < 3 or _area(rest) <= tiny:
                    break
        remains = kept
        if len(remains) > _MAX_REMAINS:
            raise ValueError(f"its collision objects overlap in more than {_MAX_REMAINS:,} "
                             f"pieces; draw one convex polygon")
        if not remains:
            return 0.0
    return sum(_area(r) for r in remains)


def _canonical(points: Sequence[Vec]) -> TileShape:
    """The convex outline through ``points`` as a `TileShape`: rounded, counter-clockwise from
    its leftmost (then lowest) point, without points on a straight side."""
    hull = _hull([(round(x, _DIGITS) + 0.0, round(y, _DIGITS) + 0.0) for x, y in points])
    n = len(hull)
    out = [hull[i] for i in range(n) if abs(_cross(hull[i - 1], hull[i], hull[(i + 1) % n]))
           > 1e-12 * math.dist(hull[i - 1], hull[i]) * math.dist(hull[i], hull[(i + 1) % n])]
    return tuple(out)


# ------------------------------------------------------------------ reading a tile


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
            value) or abs(value) > MAX_COORD:
        raise ValueError(f"{what} must be a number within {MAX_COORD:g} of 0, got {value!r}")
    return float(value)


def _pair(value: object, what: str) -> Vec:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"{what} must be an (x, y) pair, got {value!r:.80}")
    return _number(value[0], f"{what}.x"), _number(value[1], f"{what}.y")


def _size(value: object, what: str) -> float | None:
    """A tile's size in px when the file gives one (a positive number), else None."""
    if value is None or value == 0:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            0 < value <= MAX_COORD):
        raise ValueError(f"{what} must be a positive number of px, got {value!r:.80}")
    return float(value)


def _into_cell(v: float, what: str) -> float:
    """A coordinate in tile units moved onto the cell when it lies within ``EDGE_TOLERANCE``
    of it; ``ValueError`` when further out."""
    if 0.0 <= v <= 1.0:
        return v
    if -EDGE_TOLERANCE <= v < 0.0:
        return 0.0
    if 1.0 < v <= 1.0 + EDGE_TOLERANCE:
        return 1.0
    raise ValueError(f"{what} is {v:.6g} tiles, outside the tile (a tile's shape must lie "
                     f"within its cell, 0 to 1)")


#: cos and sin of the quarter turns, exactly
_QUARTERS = {0.0: (1.0, 0.0), 90.0: (0.0, 1.0), 180.0: (-1.0, 0.0), 270.0: (0.0, -1.0)}


def _object_points(obj: Any, objs: Any, label: str) -> tuple[str, list[Vec]] | None:
    """What an object is ("rectangle" or "polygon") and its outline in tile pixels (y down,
    turned as Tiled turns it: clockwise on screen about its position), or None for an object
    that gives no shape (an ellipse, point, polyline, text or tile object)."""
    if isinstance(obj, objs.Polygon):
        kind = "polygon"
        raw = obj.points
        if not isinstance(raw, list) or not 0 < len(raw) <= MAX_TILE_POINTS:
            raise ValueError(f"{label}'s points must be a list of 1 to {MAX_TILE_POINTS}, got "
                             f"{len(raw) if isinstance(raw, list) else raw!r:.80}")
        local = [_pair(p, f"{label}'s point {i}") for i, p in enumerate(raw)]
    elif isinstance(obj, objs.Rectangle):
        kind = "rectangle"
        w, h = _pair(obj.size, f"{label}'s size")
        local = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)]
    else:
        return None
    at = _pair(obj.coordinates, f"{label}'s position")
    rotation = _number(obj.rotation, f"{label}'s rotation")
    c, s = _QUARTERS.get(rotation % 360.0, (math.cos(math.radians(rotation)),
                                            math.sin(math.radians(rotation))))
    return kind, [(at[0] + u * c - v * s, at[1] + u * s + v * c) for u, v in local]


def _pieces(kind: str, pts: list[Vec], label: str) -> list[list[Vec]]:
    """The convex pieces of one object's outline (tile units), counter-clockwise."""
    clean = [p for i, p in enumerate(pts) if p != pts[i - 1]] if len(pts) > 1 else pts
    area = _area(clean) if len(clean) >= 3 else 0.0
    flat = ValueError(f"{label} is a {kind} without area ({len(clean)} distinct points over "
                      f"{abs(area):.3g} tile areas)")
    if len(clean) < 3:
        raise flat
    if _is_convex(clean):
        if abs(area) <= AREA_TOLERANCE * 1e-3:
            raise flat
        return [clean if area > 0 else clean[::-1]]
    from .geometry.decompose import convex_decompose

    try:
        return [list(p.points) for p in convex_decompose(clean)]
    except ValueError as exc:
        if abs(area) <= AREA_TOLERANCE * 1e-3:
            raise flat from None
        raise ValueError(f"{label} is not a simple polygon ({exc})") from None


def _tile_px(tile: Any, side: str, tileset_px: object) -> float:
    """A tile's ``side`` ("width" or "height") in px: its own, its image's, else its
    tileset's tiles'; ``ValueError`` naming the value when none is a positive number."""
    got = (_size(getattr(tile, side, None), f"its {side}")
           or _size(getattr(tile, f"image_{side}", None), f"its image {side}")
           or _size(tileset_px, f"its tileset's tile {side}"))
    if got is None:
        raise ValueError(f"its tileset's tile {side} must be a positive number of px, got "
                         f"{tileset_px!r:.80}")
    return got


#: A tileset's ``tilerendersize`` values, and its ``fillmode`` values (Tiled 1.9).
RENDER_SIZES = ("tile", "grid")
FILL_MODES = ("stretch", "preserve-aspect-fit")


def tile_outline(tile: Any, tile_height: object, cell: float, *, tile_width: object = None,
                 render: object = "tile", fill: object = "stretch") -> TileShape | None:
    """The collision shape of one tileset tile (see the module docstring), or None for a
    square. ``tile_height`` / ``tile_width``: its tileset's tile size in px (the tile's
    image's size when the tile gives none of its own; the width is read only at the grid's
    size); ``cell``: the map's tile side in px; ``render`` and ``fill``: the tileset's
    ``tilerendersize`` and ``fillmode`` (`RENDER_SIZES`, `FILL_MODES`).
    ``ValueError`` naming the object and the fault (the caller adds file, tileset, tile).
    """
    if render not in RENDER_SIZES:
        raise ValueError(f"its tileset's tile render size must be one of {RENDER_SIZES}, got "
                         f"{render!r:.80}")
    if fill not in FILL_MODES:
        raise ValueError(f"its tileset's fill mode must be one of {FILL_MODES}, got "
                         f"{fill!r:.80}")
    layer = getattr(tile, "objects", None) if tile is not None else None
    if layer is None:
        return None
    found = getattr(layer, "tiled_objects", None)
    if not isinstance(found, list):
        raise ValueError(f"its collision objects must be an object layer, got "
                         f"{type(layer).__name__}")
    if len(found) > MAX_TILE_OBJECTS:
        raise ValueError(f"it has {len(found):,} collision objects (at most "
                         f"{MAX_TILE_OBJECTS})")
    import pytiled_parser.tiled_object as objs  # (only a map being read gets here)

    dx, dy = _pair(getattr(layer, "offset", (0, 0)), "its collision layer's offset")
    height = _tile_px(tile, "height", tile_height)
    if render == "grid":  # the image scaled into the cell, as Tiled's CellRenderer draws it
        width = _tile_px(tile, "width", tile_width)
        sx, sy = cell / width, cell / height
        if fill == "preserve-aspect-fit":
            sx = sy = min(sx, sy)

        def place(x: float, y: float) -> Vec:  # the image's centre on the cell's centre
            return (0.5 + sx * (x + dx - width / 2.0) / cell,
                    0.5 - sy * (y + dy - height / 2.0) / cell)
    else:
        def place(x: float, y: float) -> Vec:  # the image on the cell's bottom-left corner
            return (x + dx) / cell, (height - y - dy) / cell
    pieces: list[list[Vec]] = []
    total = shaped = 0
    for obj in found:
        label = f"collision object {getattr(obj, 'id', '?')!r:.20}"
        read = _object_points(obj, objs, label)
        if read is None:
            continue
        kind, px = read
        shaped += 1
        total += len(px)
        if total > MAX_TILE_POINTS:
            raise ValueError(f"its collision objects have more than {MAX_TILE_POINTS} points")
        pts = []
        for i, (x, y) in enumerate(px):
            u, v = place(x, y)
            pts.append((_into_cell(u, f"{label}'s point {i} x"),
                        _into_cell(v, f"{label}'s point {i} y")))
        pieces += _pieces(kind, pts, label)
    if not pieces:
        return None
    hull = _hull([p for piece in pieces for p in piece])
    gap = _uncovered(hull, pieces)
    if gap > AREA_TOLERANCE:
        what = ("its collision objects are not one convex shape (their convex hull is "
                if shaped > 1 else "its collision polygon is not convex (its convex hull "
                "is ")
        raise ValueError(f"{what}{gap:.4g} tile areas larger than the shape); a tile needs one "
                         f"convex collision shape: draw one convex polygon or rectangle")
    if _area(hull) >= _FULL:
        return None
    shape = _canonical(hull)
    if len(shape) < 3:
        raise ValueError("its collision shape has no area")
    if len(shape) > MAX_SHAPE_POINTS:
        raise ValueError(f"its collision shape has {len(shape)} corners; a tile's shape may "
                         f"have at most {MAX_SHAPE_POINTS}: draw it with fewer")
    return shape


# ------------------------------------------------------------------ turning and numbering


def flipped(shape: TileShape | None, bits: int) -> TileShape | None:
    """``shape`` as a tile drawn with the flip ``bits`` of its gid shows it (see the module
    docstring): diagonal, then horizontal, then vertical. A square stays a square."""
    if shape is None or not bits & (FLIP_H | FLIP_V | FLIP_D):
        return shape
    pts = list(shape)
    if bits & FLIP_D:
        pts = [(1.0 - y, 1.0 - x) for x, y in pts]
    if bits & FLIP_H:
        pts = [(1.0 - x, y) for x, y in pts]
    if bits & FLIP_V:
        pts = [(x, 1.0 - y) for x, y in pts]
    return _canonical(pts)


def flip_words(bits: int) -> str:
    """How a gid's flip bits turn its tile, for messages (``""`` for none)."""
    words = [w for flag, w in ((FLIP_D, "diagonally"), (FLIP_H, "horizontally"),
                               (FLIP_V, "vertically")) if bits & flag]
    return f" flipped {' and '.join(words)}" if words else ""


def describe(shape: TileShape | None) -> str:
    """A shape in words, for messages: "a square" or "the polygon (x, y), ..."."""
    if shape is None:
        return "a square"
    return "the polygon " + ", ".join(f"({x:.4g}, {y:.4g})" for x, y in shape)


class Cell(NamedTuple):
    """One distinct tile of a layer (a gid with its flip bits): its kind, its shape (None:
    square) and how to name it and where it first lies, for messages."""

    kind: int
    shape: TileShape | None
    name: str


def number_kinds(cells: Sequence[Cell], mapped: bool) -> tuple[list[int], dict[int,
                                                                                TileShape]]:
    """The kind of each cell and the shapes of the kinds (see the module docstring).
    ``cells`` in order of first appearance in the layer; ``mapped``: whether the kinds came
    from ``kinds`` / ``kind_property`` (else every cell is solid, kind 1)."""
    out: list[int] = []
    shapes: dict[int, TileShape] = {}
    if not mapped:
        fresh: dict[TileShape, int] = {}
        for cell in cells:
            if cell.shape is None:
                out.append(1)
            else:
                out.append(fresh.setdefault(cell.shape, len(fresh) + 2))
        return out, {kind: shape for shape, kind in fresh.items()}
    first: dict[int, Cell] = {}
    for cell in cells:
        out.append(cell.kind)
        if cell.kind == 0:
            continue
        seen = first.setdefault(cell.kind, cell)
        if seen.shape != cell.shape:
            raise ValueError(
                f"kind {cell.kind} would need two collision shapes: {seen.name} is "
                f"{describe(seen.shape)}, {cell.name} is {describe(cell.shape)}; a kind has "
                f"one shape in a TileMap: pass kinds=None (each shape its own kind) or give "
                f"these tiles distinct classes")
        if cell.shape is not None:
            shapes[cell.kind] = cell.shape
    return out, shapes
