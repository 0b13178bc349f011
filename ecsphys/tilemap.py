"""A tile world as one shape: the merged outline of its solid tiles (seed 002's tile world).

Guarantees:
- ``TileMap(grid, tile_size, origin=(0, 0))`` accepts a 2D array (bool, or small non-negative
  ints: 0 empty, any other value a solid tile of that kind) or a text map (one string with
  one line per row, or a sequence of row strings: ``"."`` or ``" "`` empty, ``"#"`` solid of
  kind 1, any other character a solid tile of its own kind, numbered from 2 in order of first
  appearance; ``kinds`` maps each character to its number), of at most ``MAX_TILEMAP_SIDE``
  rows and columns and ``MAX_TILES`` tiles (``ecsphys/limits.py``), checked on the grid's
  shape before anything of its size is made;
- row 0 is the *top* row, for arrays as for text (as maps are drawn); column 0 the left one.
  ``origin`` is the map's bottom-left corner relative to the body's position, so tile
  ``(row, col)`` covers ``x`` in ``origin.x + [col, col + 1] * tile_size`` and ``y`` in
  ``origin.y + [rows - 1 - row, rows - row] * tile_size`` (y grows upwards);
- only boundary edges collide, the sides of solid tiles that face an empty tile or the
  outside of the map; sides between two solid tiles never do. Collinear boundary edges facing
  the same way are merged into one segment, so a body sliding along a row of tiles moves
  exactly as along one long wall (no seams to snag on). The outline's corners are real
  corners: a body slides off a ledge and stops against a step;
- edges are one-sided, as Box2D's chain shapes: a body whose centre lies behind an edge's line
  (on its closed side) does not meet that edge, so a body sliding along a floor is not caught
  by the top end of the wall below the floor's end (it slides off the ledge), and a body
  standing on a floor has one contact with the map, not a second with a wall it grazes; a
  body overlapping an edge is pushed out to its open side, never through it, and a body in
  the corner of a floor and a wall is pushed up out of the floor, not sideways into the wall
  (only at a ledge, where nothing is beyond the edge's end, is it pushed out sideways);
- contacts and events say which tile: a body has one contact per solid tile it touches
  (``contact.tile == (row, col)``, ``contact.tile_kind`` its kind), each with its own touch,
  keep_touching and separate, so a game can make spike tiles hurt and coin tiles vanish.
  Only tiles with an open side can be touched (a tile buried in solid ones is out of reach);
- tiles change at run time: ``tilemap[row, col] = 0`` digs a tile, ``= kind`` builds one
  (``tilemap[row, col]`` reads it), in constant time with no Python object made (compiled:
  ``state/tile_log.pyx``): the map lists the changed tile (``changes_since``), and its
  own edges (``edges``, ``parts``) merge the four grid lines around it again when they are
  next asked for. The physics takes the change at its next step, writing again only what
  lies along those lines (``geometry/shape_store.py``): bodies touching a removed
  tile get its ``separate`` (and fall if it held them up), a body whose centre is inside a
  newly built tile (inside its shape) is pushed out the short way (to the nearest open side,
  or along a shaped tile's slope or half-tile top, where it fits beside the tiles' shapes);
- so a map is a mutable object, not a value: two maps are equal only if they are the same
  object (``same_tiles`` compares contents). Its bounds are its whole grid, whatever is solid.
  Its ``parts`` are the merged edges as `Segment` s (made when asked for), so every routine
  that handles a `Compound` handles it. A map made without a solid tile is rejected (nothing
  could collide); digging every tile later is allowed;
- tiles may have shapes (``shapes={kind: points}``): a kind's convex polygon in tile units,
  (0, 0) the tile's bottom-left corner and (1, 1) its top-right, y up (a slope, a half
  tile); kinds without one are squares. The outline is still one merged one-sided outline:
  a shaped tile's edges inside its square, and the parts of the sides that no neighbour
  covers, join the collinear ones of neighbouring tiles (a slope over many tiles is one
  edge), contacts are with the tile's polygon and name the tile, a point in a shaped
  tile's square but outside its polygon is not in the map, and digging and building work as
  for squares (tile_shapes.pyx builds the edges around shaped tiles again when one of them
  or a neighbour changes). A part of a side next to a whole-unit edge on the same grid line
  (a wall above a half tile) is an edge of its own, not joined with that one;
- ``TileMap.from_tiled(path, layer)`` reads a tile layer of a map drawn in Tiled
  (``ecsphys/tiled.py``, through pytiled-parser, imported only then).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .limits import (
    MAX_SIZE,
    MAX_TILE_SHAPE_POINTS,
    MAX_TILE_SHAPES,
    MAX_TILEMAP_SIDE,
    MAX_TILES,
    check_grid,
    check_size,
    check_vec,
)
from .shapes import Compound, Polygon, Segment, Shape, _rebuild, check_reach
from .state.tile_log import TileLog, tilemap_getitem, tilemap_setitem

if TYPE_CHECKING:
    from .geometry.tile_shapes import TileShapes

#: Characters of a text map that mean "no tile".
EMPTY_CHARS = frozenset(". ")
_KIND_MAX = 2**31 - 1  # the largest tile kind (int32)


def _parse_text(rows: Sequence[str]) -> tuple[np.ndarray, dict[str, int]]:
    """A text map's kinds (int array, row 0 on top) and its character -> kind table."""
    if not rows:
        raise ValueError("TileMap.grid must have at least one row, got an empty text map")
    width = max(len(r) for r in rows)
    if width == 0:
        raise ValueError("TileMap.grid must have at least one column, got empty rows")
    check_grid("TileMap.grid", (len(rows), width), MAX_TILEMAP_SIDE, MAX_TILES, "tiles")
    kinds: dict[str, int] = {"#": 1}
    grid = np.zeros((len(rows), width), dtype=np.int32)
    for i, row in enumerate(rows):
        for j, ch in enumerate(row):
            if ch in EMPTY_CHARS:
                continue
            if ch not in kinds:
                kinds[ch] = len(kinds) + 1
            grid[i, j] = kinds[ch]
    return grid, kinds


def _as_grid(grid: object) -> tuple[np.ndarray, dict[str, int] | None]:
    """The grid as a read-only int32 array of tile kinds, and the text map's kind table."""
    if isinstance(grid, str):
        return _parse_text(grid.strip("\n").split("\n"))
    if isinstance(grid, Sequence) and grid and all(isinstance(r, str) for r in grid):
        return _parse_text(list(grid))
    try:
        arr = np.asarray(grid)
    except Exception as exc:  # noqa: BLE001 - any failure means "not a grid"
        raise TypeError(f"TileMap.grid must be a 2D array or a text map, got {grid!r}") from exc
    check_grid("TileMap.grid", arr.shape, MAX_TILEMAP_SIDE, MAX_TILES, "tiles")
    if arr.dtype == np.bool_:
        return arr.astype(np.int32), None
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"TileMap.grid must hold bools or ints (tile kinds), got {arr.dtype}")
    if arr.min() < 0 or arr.max() > np.iinfo(np.int32).max:
        raise ValueError(f"TileMap.grid kinds must be ints from 0 to 2**31 - 1, got "
                         f"{int(arr.min())} .. {int(arr.max())}")
    return arr.astype(np.int32), None


_SQUARE = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))


def _check_shapes(shapes: object) -> dict[int, tuple[tuple[float, float], ...]]:
    """``shapes`` as kind -> its polygon's points (counter-clockwise, tile units), checked:
    TypeError / ValueError naming the kind and the value."""
    if shapes is None:
        return {}
    if not isinstance(shapes, Mapping):
        raise TypeError(f"TileMap.shapes must be a dict of kind -> points, got {shapes!r}")
    if len(shapes) > MAX_TILE_SHAPES:
        raise ValueError(f"TileMap.shapes may hold at most {MAX_TILE_SHAPES} kinds, got "
                         f"{len(shapes)}")
    out: dict[int, tuple[tuple[float, float], ...]] = {}
    for kind, points in shapes.items():
        if isinstance(kind, (bool, np.bool_)) or not isinstance(kind, (int, np.integer)):
            raise TypeError(f"TileMap.shapes keys must be int tile kinds, got {kind!r}")
        if not 1 <= kind <= _KIND_MAX:
            raise ValueError(f"TileMap.shapes kind must be from 1 to 2**31 - 1, got {kind!r}")
        where = f"TileMap.shapes[{int(kind)}]"
        if isinstance(points, (str, bytes)) or not isinstance(points, Iterable):
            raise TypeError(f"{where} must be a sequence of (x, y) points, got {points!r}")
        pts = list(points)
        if not 3 <= len(pts) <= MAX_TILE_SHAPE_POINTS:
            raise ValueError(f"{where} must have 3 to {MAX_TILE_SHAPE_POINTS} points, got "
                             f"{len(pts)}")
        xy = [check_vec(f"{where}[{i}]", p, 2.0) for i, p in enumerate(pts)]
        for i, (x, y) in enumerate(xy):
            if not (0.0 <= x <= 1.0 and 0.0 <= y <= 1.0):
                raise ValueError(f"{where}[{i}] must lie in the tile, x and y from 0 to 1, "
                                 f"got {pts[i]!r}")
        try:
            poly = Polygon(xy)
        except ValueError as exc:
            raise ValueError(f"{where} must be a convex polygon: {exc}") from None
        out[int(kind)] = tuple((float(x), float(y)) for x, y in poly.points)
    return out


def _shape_table(shapes: dict[int, tuple[tuple[float, float], ...]]) -> TileShapes | None:
    """The compiled table of the kinds whose shape is not the whole square (None if none)."""
    kinds = sorted(k for k, pts in shapes.items() if sorted(pts) != sorted(_SQUARE))
    if not kinds:
        return None
    # (the geometry package imports this module: its compiled table is imported when used)
    from .geometry.tile_shapes import TileShapes

    points = np.zeros((len(kinds), MAX_TILE_SHAPE_POINTS, 2))
    counts = np.zeros(len(kinds), dtype=np.int32)
    for i, kind in enumerate(kinds):
        counts[i] = len(shapes[kind])
        points[i, : counts[i]] = shapes[kind]
    return TileShapes(np.array(kinds, dtype=np.int32), points, counts)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """``(start, stop)`` of each run of True in a 1D bool array."""
    padded = np.concatenate(([False], mask, [False]))
    change = np.flatnonzero(padded[1:] != padded[:-1])
    return list(zip(change[0::2].tolist(), change[1::2].tolist(), strict=True))


def _padded(masks: np.ndarray) -> np.ndarray:
    """The tiles' side masks (tile_shapes.pxd: 255 a square, 0 empty) with rows counted from
    the bottom (``pad[y + 1]`` is the row whose bottom is at height y) and a ring of empty
    tiles around them."""
    rows, cols = masks.shape
    pad = np.zeros((rows + 2, cols + 2), dtype=np.uint8)
    pad[1:-1, 1:-1] = np.flipud(masks)
    return pad


def _h_line(pad: np.ndarray, y: int) -> list[tuple[int, int, int, int, int]]:
    """The merged whole-unit edges on the horizontal grid line at height y: where one side
    covers the unit fully and the other not at all."""
    below, above = pad[y, 1:-1], pad[y + 1, 1:-1]
    tops = ((below & 2) != 0) & ((above & 16) == 0)  # open above
    bottoms = ((above & 1) != 0) & ((below & 32) == 0)  # open below
    return ([(x0, y, x1, y, 0) for x0, x1 in _runs(tops)]
            + [(x0, y, x1, y, 1) for x0, x1 in _runs(bottoms)])


def _v_line(pad: np.ndarray, x: int) -> list[tuple[int, int, int, int, int]]:
    """The merged whole-unit edges on the vertical grid line at x."""
    left, right = pad[1:-1, x], pad[1:-1, x + 1]
    lefts = ((right & 4) != 0) & ((left & 128) == 0)  # open left
    rights = ((left & 8) != 0) & ((right & 64) == 0)  # open right
    return ([(x, y0, x, y1, 2) for y0, y1 in _runs(lefts)]
            + [(x, y0, x, y1, 3) for y0, y1 in _runs(rights)])


def merged_edges(solid: np.ndarray) -> list[tuple[int, int, int, int, int]]:
    """The boundary of the solid cells (row 0 on top) as merged runs, in grid units with y
    up from the bottom of the map: ``(x0, y0, x1, y1, facing)``, facing 0 up, 1 down, 2 left,
    3 right (the side of the tiles the edge bounds that is open)."""
    rows, cols = solid.shape
    pad = _padded(np.asarray(solid, dtype=np.bool_).astype(np.uint8) * 255)
    out: list[tuple[int, int, int, int, int]] = []
    for y in range(rows + 1):
        out += _h_line(pad, y)
    for x in range(cols + 1):
        out += _v_line(pad, x)
    return out


def _unpickled(state: dict[str, object]) -> TileMap:
    """A pickled `TileMap` from its slot values, its grid's read-only view made again."""
    tm = _rebuild(TileMap, state)
    view = tm._grid.view()  # type: ignore[attr-defined]
    view.setflags(write=False)
    tm._set("_view", view)
    tm._set("_shape_table", _shape_table(tm.tile_shapes))  # type: ignore[attr-defined]
    return tm  # type: ignore[return-value]


def _one_sided(p1: tuple[float, float], p2: tuple[float, float], facing: str) -> Segment:
    """The edge as a segment whose first face (the normal on the right of p1 -> p2) points to
    its open side: the compiled routines read it as one-sided (see `TileMap`)."""
    if facing in ("up", "left"):  # up: right to left; left: top to bottom
        p1, p2 = p2, p1
    return Segment(p1, p2)


class TileMap(Compound):
    """A grid of solid and empty tiles as the shape of one STATIC entity (see the module
    docstring for the conventions).

    >>> m = TileMap(["###", "#.#", "###"], tile_size=2.0)
    >>> m.shape, m.bounds()
    ((3, 3), (0.0, 0.0, 6.0, 6.0))
    >>> len(m.edges)  # the outer square and the hole's square, each side one segment
    8
    >>> m[1, 1] = 1  # build in the hole: only the outer square is left
    >>> len(m.edges), m[1, 1]
    (4, 1)
    """

    __slots__ = ("_grid", "_view", "_tiles", "tile_size", "origin", "kinds", "_pad", "_h",
                 "_v", "_stale", "_cache", "_drawn", "tile_shapes", "_shape_table")
    type_code: ClassVar[int] = 6  # its edges are a group of segments, indexed by tile
    tile_size: float
    origin: tuple[float, float]
    #: character -> kind of a text map (None for an array)
    kinds: dict[str, int] | None
    #: kind -> its shape's points, counter-clockwise in tile units (kinds not here: squares)
    tile_shapes: dict[int, tuple[tuple[float, float], ...]]

    FACINGS: ClassVar[tuple[str, ...]] = ("up", "down", "left", "right")

    def __init__(self, grid: object, tile_size: float,
                 origin: Iterable[float] = (0.0, 0.0),
                 shapes: Mapping[int, Iterable[Iterable[float]]] | None = None) -> None:
        kinds_grid, kinds = _as_grid(grid)
        kinds_grid = np.ascontiguousarray(kinds_grid)  # (the compiled log writes it row-major)
        size = check_size("TileMap.tile_size", tile_size)
        ox, oy = check_vec("TileMap.origin", origin, MAX_SIZE)
        tile_shapes = _check_shapes(shapes)
        table = _shape_table(tile_shapes)
        solid = kinds_grid != 0
        if not solid.any():
            raise ValueError("TileMap.grid must have at least one solid tile, got none")
        rows, cols = kinds_grid.shape
        view = kinds_grid.view()
        view.setflags(write=False)
        self._set("tile_shapes", tile_shapes)
        self._set("_shape_table", table)
        pad = _padded(self._masks(kinds_grid))
        self._set("_grid", kinds_grid)
        self._set("_view", view)
        # the tiles as they are written, and the log of their changes (compiled)
        self._set("_tiles", TileLog(kinds_grid))
        self._set("tile_size", size)
        self._set("origin", (ox, oy))
        self._set("kinds", kinds)
        self._set("_pad", pad)
        # each grid line's merged edges, merged when asked for (lines listed in _stale are
        # out of date: horizontal line y is y, vertical line x is rows + 1 + x); _pad, the
        # lines and _cache (what is made of them) show the tiles of version _drawn
        self._set("_h", [[] for _ in range(rows + 1)])
        self._set("_v", [[] for _ in range(cols + 1)])
        self._set("_stale", set(range(rows + cols + 2)))
        self._set("_cache", {})
        self._set("_drawn", 0)
        self._set("offset", (0.0, 0.0))
        x1, y1 = ox + cols * size, oy + rows * size
        self._set("_bb", (ox, oy, x1, y1))
        check_reach(self)
        self._set("_bc", ((ox + x1) / 2, (oy + y1) / 2, math.hypot(x1 - ox, y1 - oy) / 2))

    @classmethod
    def from_tiled(cls, path: str | os.PathLike[str], layer: str = "walls",
                   kinds: Mapping[Any, int] | None = None, *, kind_property: str | None = None,
                   scale: float = 1.0, origin: Iterable[float] = (0.0, 0.0)) -> TileMap:
        """The tile layer ``layer`` of a map drawn in Tiled (``.tmx`` or ``.tmj``, tilesets
        embedded or external), read by pytiled-parser (``pip install "ecsphys[tiled]"``).

        - Size and place: a tile is the map's tile width times ``scale`` (world units per
          Tiled pixel) and must be square; ``origin`` is where the map's bottom-left corner
          lies relative to the body's position (as for any `TileMap`), so Tiled's top row is
          row 0 and Tiled's y (down) becomes ecsphys's (up). The layer's offset is added.
        - Shapes (``tile_shapes``): a tile collides as the collision shape drawn on it in
          Tiled's tile collision editor, one convex polygon in tile units: a rectangle or a
          convex polygon (turned by its rotation); a concave polygon or several objects only
          when their convex hull is their union, else the tile is refused. A tile without
          collision objects, or whose objects cover it whole, is a square; ellipses, points,
          polylines and texts are left out (a tile with only those, as Arcade's coins with
          their round hit boxes, is a square). A flipped or rotated tile (the flip bits of its
          gid) collides as Tiled draws it: its shape turned (the diagonal flip first, then the
          horizontal, then the vertical), another shape when the turn changes it
          (``ecsphys/tiled_shapes.py`` has the details and limits).
        - Kinds: an empty cell (gid 0) is empty. With ``kinds=None`` every other tile is
          solid: a square tile is kind 1, and each distinct shape (flips included) is a kind
          of its own, numbered 2, 3, ... in the order the layer first shows them (row 0, the
          top, first, each row left to right). ``kinds`` maps a tile's *class* (its Class in
          Tiled's tileset editor, Type before Tiled 1.9; ``""`` for a tile without one) to
          its kind; with ``kind_property="kind"`` the key is the tile's custom property of
          that name instead (``""`` when it has none), and with ``kind_property`` but no
          ``kinds`` the property's int value is the kind. A kind of 0 leaves the tile empty
          (decoration; its shape is not read); a tile whose key is not in ``kinds`` is
          refused, naming it and where it is. A mapped kind keeps its number and takes its
          tiles' shape, so every tile of one kind in the layer must have the same shape (a
          square is one, a flipped slope another): a kind that would need two is refused,
          naming the kind, the two tiles and where they lie (pass ``kinds=None``, or give
          the tiles distinct classes).

        Raises ``ValueError`` naming the file and the fault (an unreadable, infinite or
        non-orthogonal map, non-square tiles, a missing layer with the layers there are, a
        layer that is not a tile layer, an unmapped tile, a tile's collision shape that is not
        one convex polygon within its tile or has a value that is no finite number, naming
        its tileset and tile, a kind with two shapes, no solid tile), ``FileNotFoundError``
        for a missing file, ``TypeError`` for arguments of the wrong type, ``ImportError``
        without pytiled-parser. ``ecsphys.tiled.add_objects`` makes an object layer's bodies.

        >>> level = TileMap.from_tiled("level.tmj", "walls", kinds={"": 1, "spikes": 2},
        ...                            scale=1 / 16)  # doctest: +SKIP
        """
        from .tiled import tile_map

        return tile_map(path, layer, kinds, kind_property=kind_property, scale=scale,
                        origin=origin)  # type: ignore[arg-type]

    # -------------------------------------------------------------- identity, not value

    def __reduce__(self) -> tuple[object, ...]:
        # the read-only view of the grid is made again from the grid (a pickled view would
        # come back as a copy that digs no longer reach)
        _, (_, state) = super().__reduce__()  # type: ignore[misc]
        del state["_view"]
        del state["_shape_table"]  # (compiled: made again from tile_shapes)
        return (_unpickled, (state,))

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def same_tiles(self, other: TileMap) -> bool:
        """Whether ``other`` has the same tiles, tile size and origin."""
        return (isinstance(other, TileMap) and self.tile_size == other.tile_size
                and self.origin == other.origin and self._grid.shape == other._grid.shape
                and self.tile_shapes == other.tile_shapes
                and bool(np.array_equal(self._grid, other._grid)))

    def _key(self) -> tuple[object, ...]:
        return (id(self),)

    def __repr__(self) -> str:
        rows, cols = self._grid.shape
        return (f"TileMap({rows}x{cols} tiles, tile_size={self.tile_size!r}, "
                f"origin={self.origin!r}, {len(self.edges)} edges)")

    # -------------------------------------------------------------- the tiles

    @property
    def grid(self) -> np.ndarray:
        """The tile kinds, row 0 on top (a read-only view: change tiles with
        ``tilemap[row, col] = kind``)."""
        return self._view

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, columns)`` of the grid."""
        return (int(self._grid.shape[0]), int(self._grid.shape[1]))

    @property
    def version(self) -> int:
        """How many tile changes so far (the physics compares it with what it last saw)."""
        return self._tiles.version  # type: ignore[no-any-return]

    def _index(self, key: object) -> tuple[int, int]:
        if type(key) is tuple and len(key) == 2:  # the common case, quickly
            row, col = key
            if type(row) is int and type(col) is int:
                rows, cols = self._grid.shape
                if 0 <= row < rows and 0 <= col < cols:
                    return row, col
        if not (isinstance(key, tuple) and len(key) == 2):
            raise TypeError(f"TileMap index must be (row, col), got {key!r}")
        row, col = key
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in key):
            raise TypeError(f"TileMap index must be two ints (row, col), got {key!r}")
        rows, cols = self.shape
        if not (0 <= row < rows and 0 <= col < cols):
            raise IndexError(f"TileMap tile (row, col) = ({row}, {col}) is outside the "
                             f"{rows}x{cols} grid")
        return int(row), int(col)

    # ``tilemap[row, col]`` reads a tile, ``tilemap[row, col] = kind`` digs (0) or builds one
    # (see the module docstring): compiled, with no Python frame for plain int keys, falling
    # back to ``_index`` / ``_checked_kind`` for anything else
    __getitem__ = tilemap_getitem
    __setitem__ = tilemap_setitem

    @staticmethod
    def _checked_kind(row: int, col: int, kind: object) -> int:
        """``kind`` as an int tile kind; TypeError / ValueError naming the tile and value."""
        if isinstance(kind, (bool, np.bool_)):
            kind = int(kind)
        if not isinstance(kind, (int, np.integer)):
            raise TypeError(f"TileMap[{row}, {col}] must be set to an int kind, got {kind!r}")
        if not 0 <= kind <= _KIND_MAX:
            raise ValueError(f"TileMap[{row}, {col}] kind must be from 0 to 2**31 - 1, got "
                             f"{kind!r}")
        return int(kind)

    def changes_since(self, version: int) -> list[int] | None:
        """The tiles changed since ``version`` (this map's ``version`` then), as ``row * cols
        + col`` in the order they changed (a tile may repeat; its kind now is what counts), or
        None when that is further back than the map keeps (then read the whole grid)."""
        return self._tiles.changes_since(version)  # type: ignore[no-any-return]

    def _made(self) -> dict[str, Any]:
        """What is made of the edges (``_cache``), emptied if solid tiles changed since it
        was made; the grid lines around them are marked to be merged again."""
        tiles = self._tiles
        if self._drawn != tiles.version:
            rows, cols = self._grid.shape
            changes = tiles.changes_since(self._drawn)
            grid, pad = self._grid, self._pad
            if self._shape_table is not None:  # (the edges around shaped tiles: made again)
                self._cache.clear()
            if changes is None:  # too many to take one by one: every grid line
                fresh = _padded(self._masks(grid))
                if not np.array_equal(fresh, pad):
                    pad[...] = fresh
                    self._stale.update(range(rows + cols + 2))
                    self._cache.clear()
                changes = ()
            for k in set(changes):
                row, col = divmod(k, cols)
                up = rows - 1 - row
                solid = self._mask(grid.item(row, col))
                if pad.item(up + 1, col + 1) != solid:
                    pad[up + 1, col + 1] = solid
                    self._stale.update((up, up + 1, rows + 1 + col, rows + 2 + col))
                    self._cache.clear()
            self._set("_drawn", tiles.version)
        return self._cache

    def _lines(self) -> tuple[list[list[tuple[int, int, int, int, int]]], ...]:
        """The merged edges of every grid line, horizontal then vertical (merged again where
        tiles changed since)."""
        self._made()
        rows = self._grid.shape[0]
        for line in self._stale:
            if line <= rows:
                self._h[line] = _h_line(self._pad, line)
            else:
                self._v[line - rows - 1] = _v_line(self._pad, line - rows - 1)
        self._stale.clear()
        return self._h, self._v

    def _mask(self, kind: int) -> int:
        """A kind's side mask (tile_shapes.pxd): 0 empty, 255 a square."""
        if kind == 0:
            return 0
        table = self._shape_table
        return 255 if table is None else int(table.side_mask(kind))

    def _masks(self, grid: np.ndarray) -> np.ndarray:
        """The side masks of a grid of kinds."""
        if self._shape_table is None:
            return (grid != 0).astype(np.uint8) * 255
        kinds, inverse = np.unique(grid, return_inverse=True)
        masks = np.array([self._mask(int(k)) for k in kinds], dtype=np.uint8)
        return masks[inverse].reshape(grid.shape)

    def extra_edges(self) -> tuple[np.ndarray, list[list[tuple[int, int]]]]:
        """The edges around shaped tiles that are not whole grid units (a slope, the top of a
        half tile, the part of a side a half tile leaves open): an (E, 6) float array ``(x0,
        y0, x1, y1, nx, ny)`` in tiles from the map's bottom-left corner, the open side on the
        right of (x0, y0) -> (x1, y1) and (nx, ny) its unit normal, and per edge the tiles
        ``(row, col)`` it is a side of. Empty without shapes."""
        found = self._made().get("extra")
        if found is None:
            if self._shape_table is None:
                found = (np.zeros((0, 6)), [])
            else:
                found = self._shape_table.outline_pieces(self._grid)
            self._cache["extra"] = found
        return found  # type: ignore[no-any-return]

    def edge_array(self) -> np.ndarray:
        """The merged whole-unit edges on grid lines as an (E, 5) int array ``(x0, y0, x1,
        y1, facing)`` in tiles from the map's bottom-left corner (facing 0 up, 1 down, 2 left,
        3 right); the edges of shaped tiles that are not are in `extra_edges`."""
        found = self._made().get("array")
        if found is None:
            h, v = self._lines()
            lines = [e for line in h for e in line] + [e for line in v for e in line]
            found = np.array(lines, dtype=np.int64).reshape(-1, 5)
            self._cache["array"] = found
        return found

    @property
    def edges(self) -> tuple[tuple[tuple[float, float], tuple[float, float], str], ...]:
        """The merged edges ``((x0, y0), (x1, y1), facing)`` relative to the body, facing one
        of ``"up"``, ``"down"``, ``"left"``, ``"right"`` (the open side; for a slope the
        nearest of them, a floor's up, and its open side is on the right of (x0, y0) ->
        (x1, y1) for down and right, of (x1, y1) -> (x0, y0) for up and left, as for the
        others), the whole-unit ones on grid lines first, then `extra_edges`."""
        found = self._made().get("edges")
        if found is None:
            ox, oy = self.origin
            size = self.tile_size
            found = tuple(
                ((ox + x0 * size, oy + y0 * size), (ox + x1 * size, oy + y1 * size),
                 self.FACINGS[facing])
                for x0, y0, x1, y1, facing in self.edge_array().tolist())
            extra = []
            for x0, y0, x1, y1, nx, ny in self.extra_edges()[0].tolist():
                # the nearest facing; from p1 to p2 as the grid lines' edges of that facing
                # run (`_one_sided` turns up and left edges round)
                if abs(ny) >= abs(nx):
                    facing = "up" if ny > 0 else "down"
                else:
                    facing = "left" if nx < 0 else "right"
                p1, p2 = (ox + x0 * size, oy + y0 * size), (ox + x1 * size, oy + y1 * size)
                extra.append((p2, p1, facing) if facing in ("up", "left") else (p1, p2, facing))
            found += tuple(extra)
            self._cache["edges"] = found
        return found

    @property
    def parts(self) -> tuple[tuple[Shape, float, float], ...]:  # type: ignore[override]
        """The edges as one-sided `Segment` parts (see `Compound.parts`)."""
        found = self._made().get("parts")
        if found is None:
            found = tuple((_one_sided(p1, p2, facing), 0.0, 0.0)
                          for p1, p2, facing in self.edges)
            self._cache["parts"] = found
        return found

    @property
    def shapes(self) -> tuple[Shape, ...]:  # type: ignore[override]
        """The edges as `Segment` s."""
        return tuple(p for p, _, _ in self.parts)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The ``(row, col)`` of the tile under the point ``(x, y)`` (relative to the body's
        position), or None outside the map. A point on a shared side belongs to the tile
        above / to the right of it."""
        rows, cols = self.shape
        ox, oy = self.origin
        col = int(np.floor((x - ox) / self.tile_size))
        up = int(np.floor((y - oy) / self.tile_size))
        if not (0 <= col < cols and 0 <= up < rows):
            return None
        return (rows - 1 - up, col)

    def kind(self, row: int, col: int) -> int:
        """The kind of tile ``(row, col)`` (0: empty). ``IndexError`` outside the grid."""
        return self[row, col]

    def tile_box(self, row: int, col: int) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)`` of tile ``(row, col)`` relative to the body's position."""
        rows, _ = self.shape
        self.kind(row, col)  # checks the indices
        ox, oy = self.origin
        s = self.tile_size
        return (ox + col * s, oy + (rows - 1 - row) * s, ox + (col + 1) * s,
                oy + (rows - row) * s)
