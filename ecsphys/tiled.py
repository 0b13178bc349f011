"""Levels drawn in the Tiled map editor, read through pytiled-parser (the extra
``pip install "ecsphys[tiled]"``): a tile layer as a `TileMap`, an object layer as static
bodies and markers, each carrying what the level designer typed for it (a ``TiledObject``).

Guarantees:
- ``pytiled_parser`` is imported only when a map is read (``import ecsphys`` never imports
  it); without it, reading raises ``ImportError`` naming the extra;
- both readers take ``.tmx`` (XML) and ``.tmj`` / ``.json`` maps, with embedded tilesets or
  external ``.tsx`` / ``.tsj`` ones, and place them the same way: ``scale`` world units per
  Tiled pixel (``Mask``'s meaning of scale), and ``origin`` the world position of the map's
  *bottom-left* corner (for a `TileMap`, its own ``origin``, relative to its body: put that
  body at ``Position(0, 0)`` and the two agree). Tiled's y points down, ecsphys's up:
  the Tiled pixel ``(px, py)`` is the world point ``(origin.x + px * scale, origin.y +
  (map_height_px - py) * scale)``. Layer offsets (a layer's own and its groups') are added;
- everything is read and checked before anything is made: a map that fails any check makes
  no `TileMap` and no entity (never half a level), and the error is a ``ValueError`` naming
  the file and the fault (a layer that is missing names the layers there are; a layer of
  the wrong type says what it is); a missing file is the ``FileNotFoundError`` of ``open``,
  naming the path (a missing external tileset too). Whatever pytiled-parser raises on a
  file it cannot read becomes a ``ValueError`` naming the file, and every field it hands
  back that is read here is checked for its type and range first (pytiled-parser passes the
  file's values on as they are: a firstgid may be a string, a size NaN);
- refused: infinite maps (their tiles come in chunks with no bottom-left corner to place),
  maps that are not orthogonal, and (for tile layers) non-square tiles, which a `TileMap`
  cannot hold;
- a tile layer's tiles collide as the collision shapes their tilesets draw on them (slopes,
  half tiles: one convex polygon a tile, ``ecsphys/tiled_shapes.py`` says how they are read
  and what is refused), turned by the flip bits of their gids (a tile drawn flipped or
  rotated is another shape, so another kind); a tile without collision objects is a square;
- a tile layer larger than ``MAX_TILEMAP_SIDE`` / ``MAX_TILES`` is refused (as `TileMap`
  refuses it), and a polygon or polyline of more than ``MAX_OBJECT_POINTS`` points.
  Before pytiled-parser opens anything, ``tiled_files.check_map_file`` checks the map and
  each tileset and template it names (regular files of at most 64 MiB, no DOCTYPE, tile data
  no larger than its layer declares, decoded in bounded memory) and refuses the rest;
- an object's custom properties (its own, its template's and its tile's, merged as Tiled
  merges them) are checked like the rest before anything is made: names are text, values are
  text, numbers (finite), true/false, colors, files or class values (tables of the same,
  nested at most ``MAX_PROPERTY_DEPTH`` deep), a text at most ``MAX_PROPERTY_TEXT``
  characters, at most ``MAX_PROPERTIES`` of them on one object (class members counted);
  anything else is a ``ValueError`` naming the file, the layer, the object and the property.
  They are handed on as plain Python values (a color an ``(r, g, b, a)`` tuple of ints, a
  file its path as a ``str``, a class value a ``dict``), as pytiled-parser 2.x reads them:
  in a ``.tmx`` map it reads a class-typed property as the text between its tags (only
  whitespace) and an object reference as a ``str`` (an ``int`` in ``.tmj``), and in a
  ``.tmj`` map a template's fields (its class, its size) win over the object's own.
"""

from __future__ import annotations

import math
import os
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import esper
import numpy as np

from .components import STATIC, Collider, Geometry, Position
from .geometry.decompose import convex_decompose
from .limits import (
    MAX_COORD,
    MAX_SIZE,
    MAX_TILEMAP_SIDE,
    MAX_TILES,
    check_grid,
    check_size,
    check_vec,
)
from .shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment, Shape
from .tiled_shapes import (
    HEX_120,
    Cell,
    TileShape,
    flip_words,
    flipped,
    number_kinds,
    tile_outline,
)

if TYPE_CHECKING:
    from .tilemap import TileMap

__all__ = ["TiledObject", "add_objects", "tile_map"]

#: The gid bits Tiled uses for flipped and rotated tiles (horizontal, vertical, diagonal,
#: and the hexagonal 120-degree turn); the rest is the tile's global id.
FLIP_BITS = 0xF0000000
_GID_MAX = 2**32 - 1
_KIND_MAX = 2**31 - 1
_INSTALL = 'pip install "ecsphys[tiled]"'
#: The most points a polygon or polyline object may have (a concave polygon's convex
#: decomposition, `ecsphys.geometry.convex_decompose`, takes about 0.1 s at 2,048 points).
MAX_OBJECT_POINTS = 2048

#: The most custom properties one object may carry (its own, its template's and its tile's,
#: the members of class values counted); a text value or name may have at most
#: ``MAX_PROPERTY_TEXT`` characters, and class values nest at most ``MAX_PROPERTY_DEPTH`` deep.
MAX_PROPERTIES = 1024
MAX_PROPERTY_TEXT = 65536
MAX_PROPERTY_DEPTH = 8
#: An int property's bounds (a 64-bit int's).
_PROPERTY_INT = 2**63
#: The kinds of Tiled object, as `TiledObject.kind` names them.
OBJECT_KINDS = ("rectangle", "ellipse", "polygon", "polyline", "tile", "point", "text")
#: The kinds that have no shape: they become markers (a Position, no body).
_MARKERS = ("point", "text")

#: Where a tile object's (x, y) lies on its box, as fractions of (width, height) from its
#: top-left corner, by its tileset's object alignment (Tiled's default for orthogonal maps:
#: bottom-left).
_ALIGN = {
    None: (0.0, 1.0), "unspecified": (0.0, 1.0), "bottomleft": (0.0, 1.0),
    "bottom": (0.5, 1.0), "bottomright": (1.0, 1.0), "left": (0.0, 0.5),
    "center": (0.5, 0.5), "right": (1.0, 0.5), "topleft": (0.0, 0.0), "top": (0.5, 0.0),
    "topright": (1.0, 0.0),
}


# ------------------------------------------------------------------ reading the file


def _pytiled() -> Any:
    """The ``pytiled_parser`` module, or an ``ImportError`` that says how to install it."""
    try:
        import pytiled_parser
    except ImportError as exc:
        raise ImportError(f"ecsphys reads Tiled maps with pytiled-parser, which is not "
                          f"installed: {_INSTALL}") from exc
    return pytiled_parser


def _read_map(path: object, who: str) -> tuple[Any, str]:
    """The parsed map and the file's name for messages."""
    ptp = _pytiled()
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{who} path must be a str or os.PathLike, got {type(path).__name__}")
    name = os.fsdecode(os.fspath(path))
    from .tiled_files import check_map_file  # what the files are, before any is opened

    check_map_file(name)
    open(name, "rb").close()  # FileNotFoundError (or another OSError) naming the path
    try:
        tmap = ptp.parse_map(Path(name))
    except OSError:
        raise  # a missing external tileset or template: open's error names it
    except Exception as exc:  # noqa: BLE001 - anything pytiled-parser raises on a bad file
        raise ValueError(f"{name}: not a Tiled map pytiled-parser can read "
                         f"({type(exc).__name__}: {exc})") from exc
    try:
        _check_map(tmap)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    return tmap, name


# What pytiled-parser hands back is as the file says: any field may be of any type. These
# check the fields this module reads (``ValueError`` naming the field; the caller names the
# file) before anything is made of them.


def _int(value: object, what: str, low: int = 0, high: int = _GID_MAX) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} must be an int from {low} to {high}, got {value!r}")
    return value


def _real(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
            value) or abs(value) > MAX_COORD:
        raise ValueError(f"{what} must be a number within {MAX_COORD:g} of 0, got {value!r}")
    return float(value)


def _pair(value: object, what: str) -> tuple[float, float]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"{what} must be an (x, y) pair, got {value!r}")
    return _real(value[0], f"{what}.x"), _real(value[1], f"{what}.y")


def _text(value: object, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text, got {value!r}")
    return value


def _check_map(tmap: Any) -> None:
    """The map's fields this module reads, and what it refuses outright."""
    if not isinstance(tmap.infinite, bool):
        raise ValueError(f"the map's 'infinite' must be true or false, got {tmap.infinite!r}")
    if tmap.infinite:
        raise ValueError("infinite maps are not supported (their tiles come in chunks with "
                         "no fixed corner to place); untick Infinite in Tiled's Map Properties")
    if tmap.orientation != "orthogonal":
        raise ValueError(f"only orthogonal maps are supported, got a {tmap.orientation!r} map")
    for what, pair in (("tile", tmap.tile_size), ("map", tmap.map_size)):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"the {what} size must be (width, height), got {pair!r}")
        for field, value in zip(("width", "height"), pair, strict=True):
            _int(value, f"the {what}'s {field}", 1, 2**31 - 1)
    if not isinstance(tmap.tilesets, dict):
        raise ValueError(f"the tilesets must be a table, got {tmap.tilesets!r}")
    for first, ts in tmap.tilesets.items():
        _int(first, "a tileset's firstgid", 1, _GID_MAX & ~FLIP_BITS)
        label = f"tileset {ts.name!r}" if isinstance(ts.name, str) else "a tileset"
        _int(ts.tile_count, f"{label}'s tile count", 0, _GID_MAX)
        if ts.alignment is not None and ts.alignment not in _ALIGN:
            raise ValueError(f"{label}'s object alignment must be one of Tiled's, got "
                             f"{ts.alignment!r}")
        tiles = ts.tiles or {}
        if not isinstance(tiles, dict):
            raise ValueError(f"{label}'s tiles must be a table, got {tiles!r}")
        for local, tile in tiles.items():
            _int(local, f"{label}'s tile id", 0, _GID_MAX)
            _text(tile.class_, f"{label}'s tile {local} class")
            if tile.properties is not None and not isinstance(tile.properties, dict):
                raise ValueError(f"{label}'s tile {local} properties must be a table")
    _check_layers(tmap.layers)


def _check_layers(layers: object, depth: int = 0) -> None:
    if not isinstance(layers, list):
        raise ValueError(f"the layers must be a list, got {layers!r}")
    for layer in layers:
        what = f"layer {layer.name!r}"
        _text(layer.name, "a layer's name")
        _pair(layer.offset, f"{what}'s offset")
        if hasattr(layer, "layers"):
            if depth > 50:
                raise ValueError(f"{what} is more than 50 groups deep")
            _check_layers(layer.layers or [], depth + 1)


def _walk(layers: list[Any], dx: float = 0.0, dy: float = 0.0) -> Iterator[tuple[Any, float,
                                                                                  float]]:
    """Every layer, groups' layers included, with its offset (its groups' added), in px."""
    for layer in layers or ():
        ox, oy = dx + layer.offset[0], dy + layer.offset[1]
        yield layer, ox, oy
        if hasattr(layer, "layers"):
            yield from _walk(layer.layers, ox, oy)


def _layer_type(layer: Any) -> str:
    ptp = _pytiled()
    for cls, what in ((ptp.TileLayer, "tile layer"), (ptp.ObjectLayer, "object layer"),
                      (ptp.ImageLayer, "image layer"), (ptp.LayerGroup, "group layer")):
        if isinstance(layer, cls):
            return what
    return type(layer).__name__


def _a(what: str) -> str:
    return f"an {what}" if what[0] in "aeiou" else f"a {what}"


def _find_layer(tmap: Any, name: str, layer: str, cls: Any,
                what: str) -> tuple[Any, float, float]:
    """The one layer named ``layer`` (groups searched too) with its offset, of type ``cls``."""
    found = [(lay, dx, dy) for lay, dx, dy in _walk(tmap.layers) if lay.name == layer]
    if not found:
        names = [f"{lay.name!r} ({_layer_type(lay)})" for lay, _, _ in _walk(tmap.layers)]
        there = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20
                                         else "")
        raise ValueError(f"{name}: no layer named {layer!r}; the map's layers are "
                         f"{there or 'none'}")
    if len(found) > 1:
        raise ValueError(f"{name}: {len(found)} layers are named {layer!r}; rename all but "
                         f"one")
    lay, dx, dy = found[0]
    if not isinstance(lay, cls):
        raise ValueError(f"{name}: layer {layer!r} is {_a(_layer_type(lay))}, not {_a(what)}")
    return lay, dx, dy


def _check_place(who: str, scale: object, origin: object) -> tuple[float, tuple[float, float]]:
    return check_size(f"{who} scale", scale), check_vec(f"{who} origin", origin, MAX_SIZE)


def _tile_of(tmap: Any, gid: int, firsts: list[int] | None = None) -> tuple[Any, int, Any]:
    """The tileset of a global tile id (flip bits dropped), the tile's local id and its tile
    entry (None for a tile the tileset says nothing about); ``LookupError`` if none.
    ``firsts``: the tilesets' firstgids, sorted (worked out when not given)."""
    firsts = sorted(tmap.tilesets) if firsts is None else firsts
    i = bisect_right(firsts, gid) - 1
    if i < 0:
        raise LookupError(f"gid {gid} belongs to no tileset (the map's tilesets start at "
                          f"{firsts or 'none'})")
    ts = tmap.tilesets[firsts[i]]
    local = gid - ts.firstgid
    tile = (ts.tiles or {}).get(local)
    if tile is None and not local < ts.tile_count:
        raise LookupError(f"gid {gid} is tile {local} of tileset {ts.name!r}, which has "
                          f"{ts.tile_count} tiles")
    return ts, local, tile


# ------------------------------------------------------------------ tile layers


def _check_kinds(kinds: object, kind_property: object) -> Mapping[Any, int] | None:
    if kind_property is not None and not isinstance(kind_property, str):
        raise TypeError(f"TileMap.from_tiled kind_property must be a str or None, got "
                        f"{kind_property!r}")
    if kinds is None:
        return None
    if not isinstance(kinds, Mapping):
        raise TypeError(f"TileMap.from_tiled kinds must be a mapping (tile class -> kind) or "
                        f"None, got {kinds!r}")
    for key, kind in kinds.items():
        if isinstance(kind, bool) or not isinstance(kind, (int, np.integer)):
            raise TypeError(f"TileMap.from_tiled kinds[{key!r}] must be an int kind, got "
                            f"{kind!r}")
        if not 0 <= kind <= _KIND_MAX:
            raise ValueError(f"TileMap.from_tiled kinds[{key!r}] must be from 0 to 2**31 - 1,"
                             f" got {kind!r}")
    return kinds


def _tile_kind(ts: Any, local: int, tile: Any, kinds: Mapping[Any, int] | None,
               kind_property: str | None) -> int:
    """The TileMap kind of one tile; ``LookupError`` text naming why there is none."""
    if kinds is None and kind_property is None:
        return 1
    if kind_property is None:
        key: Any = (tile.class_ if tile is not None else None) or ""
        what = f"class {key!r}" if key else "no class"
    else:
        props = (tile.properties if tile is not None else None) or {}
        key = props.get(kind_property, "")
        what = (f"property {kind_property!r} = {key!r}" if kind_property in props
                else f"no property {kind_property!r}")
    name = f"tile {local} of tileset {ts.name!r} ({what})"
    if kinds is None:  # the property is the kind itself
        if isinstance(key, float) and key.is_integer():
            key = int(key)  # an int property written as a float (older Tiled or parser)
        if isinstance(key, bool) or not isinstance(key, int) or not 0 <= key <= _KIND_MAX:
            raise LookupError(f"{name}: its {kind_property!r} property must be an int kind "
                              f"from 0 to 2**31 - 1")
        return key
    try:
        return int(kinds[key])
    except (KeyError, TypeError):
        pass
    known = ", ".join(repr(k) for k in kinds) or "nothing"
    hint = " (tiles without one have the key '')" if not key else ""
    raise LookupError(f"{name}: kinds has no entry for it{hint}; kinds maps {known}. Add it "
                      f"to kinds, or map it to 0 to leave such tiles empty")


class TileLayerParts(NamedTuple):
    """What a `TileMap` of a tile layer is made of: ``TileMap(grid, tile_size, origin,
    shapes=shapes)``."""

    grid: np.ndarray
    tile_size: float
    origin: tuple[float, float]
    shapes: dict[int, TileShape]


def tile_layer_parts(path: str | os.PathLike[str], layer: str = "walls",
                     kinds: Mapping[Any, int] | None = None, *,
                     kind_property: str | None = None, scale: float = 1.0,
                     origin: tuple[float, float] = (0.0, 0.0)) -> TileLayerParts:
    """The tile layer ``layer`` of a Tiled map read and checked, as the parts of its
    `TileMap`: the grid of kinds, the tile size and origin in world units, and the shapes of
    the kinds whose tiles are not squares (see `TileMap.from_tiled` for the rules)."""
    who = "TileMap.from_tiled"
    if not isinstance(layer, str):
        raise TypeError(f"{who} layer must be a layer's name (str), got {layer!r}")
    table = _check_kinds(kinds, kind_property)
    s, (ox, oy) = _check_place(who, scale, origin)
    tmap, name = _read_map(path, who)
    tw, th = tmap.tile_size
    if tw != th:
        raise ValueError(f"{name}: tiles must be square for a TileMap, got {tw} x {th} px")
    lay, dx, dy = _find_layer(tmap, name, layer, _pytiled().TileLayer, "tile layer")
    where = f"{name}: tile layer {layer!r}"
    cols, rows = tmap.map_size
    data = lay.data
    if data is None:
        raise ValueError(f"{where} has no tile data (chunks of an infinite map?)")
    check_grid(f"{where}", (rows, cols), MAX_TILEMAP_SIDE, MAX_TILES, "tiles")
    if (not isinstance(data, list) or len(data) != rows
            or any(not isinstance(row, list) or len(row) != cols for row in data)):
        got = (f"{len(data)} rows of " + ", ".join(sorted({str(len(r)) for r in data}))
               if isinstance(data, list) and all(isinstance(r, list) for r in data)
               else repr(data)[:80])
        raise ValueError(f"{where} must hold the map's {rows} rows of {cols} tiles, got {got}")
    try:
        gids = np.asarray(data)
    except (ValueError, TypeError, OverflowError) as exc:
        raise ValueError(f"{where} holds tile ids that are not ints ({exc})") from None
    if gids.shape != (rows, cols) or not np.issubdtype(gids.dtype, np.integer):
        raise ValueError(f"{where} holds tile ids that are not ints ({gids.dtype})")
    if gids.size and (gids.min() < 0 or gids.max() > _GID_MAX):
        raise ValueError(f"{where} holds tile ids outside 0 .. 2**32 - 1 "
                         f"({int(gids.min())} .. {int(gids.max())})")
    # each distinct tile as drawn (its flip bits kept: a turned shape is another shape; the
    # hexagonal bit dropped), in order of first appearance, row 0 on top
    gids = gids.astype(np.int64) & ~HEX_120
    used, first, index = np.unique(gids, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable").tolist()
    firsts = sorted(tmap.tilesets)
    outlines: dict[int, TileShape | None] = {}  # base gid -> its unturned shape
    cells: list[Cell] = []
    drawn: list[int] = []  # the index in ``used`` of each cell
    for i in order:
        gid = int(used[i])
        if gid == 0:
            continue
        base, bits = gid & ~FLIP_BITS, gid & FLIP_BITS
        row, col = divmod(int(first[i]), cols)
        try:
            ts, local, tile = _tile_of(tmap, base, firsts)
            kind = _tile_kind(ts, local, tile, table, kind_property)
        except LookupError as exc:
            raise ValueError(f"{where}, tile (row {row}, col {col}): {exc.args[0]}") from None
        shape = None
        if kind != 0:  # an empty tile's shape is never read
            if base not in outlines:
                try:
                    outlines[base] = tile_outline(
                        tile, ts.tile_height, float(tw), tile_width=ts.tile_width,
                        render=ts.tile_render_size, fill=ts.fill_mode)
                except ValueError as exc:
                    raise ValueError(f"{name}: tileset {ts.name!r}, tile {local} (drawn at row "
                                     f"{row}, col {col} of layer {layer!r}): "
                                     f"{exc.args[0]}") from None
            shape = flipped(outlines[base], bits)
        turned = flip_words(bits)
        cells.append(Cell(kind, shape, f"tile {local} of tileset {ts.name!r}{turned} (row "
                                       f"{row}, col {col})"))
        drawn.append(i)
    try:
        numbered, shapes = number_kinds(cells, table is not None or kind_property is not None)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc.args[0]}") from None
    kind_of = np.zeros(len(used), dtype=np.int32)
    kind_of[drawn] = numbered
    grid = kind_of[index.reshape(rows, cols)]
    if not grid.any():
        raise ValueError(f"{where} has no solid tile (every cell is empty or of kind 0)")
    return TileLayerParts(grid, tw * s, (ox + dx * s, oy - dy * s), shapes)


def tile_map(path: str | os.PathLike[str], layer: str = "walls",
             kinds: Mapping[Any, int] | None = None, *, kind_property: str | None = None,
             scale: float = 1.0, origin: tuple[float, float] = (0.0, 0.0)) -> TileMap:
    """The tile layer ``layer`` of a Tiled map as a `TileMap` (see `TileMap.from_tiled`,
    which calls this)."""
    from .tilemap import TileMap

    parts = tile_layer_parts(path, layer, kinds, kind_property=kind_property, scale=scale,
                             origin=origin)
    where = f"{os.fsdecode(os.fspath(path))}: tile layer {layer!r}"
    try:
        return TileMap(parts.grid, parts.tile_size, origin=parts.origin, shapes=parts.shapes)
    except ValueError as exc:  # a tile size or place out of range, the layer's offset added
        raise ValueError(f"{where}: {exc}") from None


# ------------------------------------------------------------------ what the designer typed


def _check_properties(table: object, what: str, count: list[int] | None = None,
                      depth: int = 0) -> dict[str, Any]:
    """A plain copy of custom properties (``what`` names them in messages, e.g. "its
    property"): names text, values text, ints, finite floats, bools, colors (4 ints) turned
    into tuples, file paths into str, class values (tables) into dicts; ``ValueError`` for
    anything else or anything over the limits. ``count``: the properties seen so far."""
    count = [0] if count is None else count
    if table is None:
        return {}
    if not isinstance(table, Mapping):
        raise ValueError(f"{what} must be a table of name -> value, got "
                         f"{type(table).__name__}")
    out: dict[str, Any] = {}
    for key, value in table.items():
        if not isinstance(key, str):
            raise ValueError(f"{what} names must be text, got {key!r:.80}")
        if len(key) > MAX_PROPERTY_TEXT:
            raise ValueError(f"{what} {key[:40]!r}... has a name of {len(key):,} characters "
                             f"(at most {MAX_PROPERTY_TEXT:,})")
        count[0] += 1
        if count[0] > MAX_PROPERTIES:
            raise ValueError(f"{what} {key!r:.80}: more than {MAX_PROPERTIES:,} properties on "
                             f"one object (the members of class values counted)")
        out[key] = _property_value(value, f"{what} {key!r:.80}", count, depth)
    return out


def _property_value(value: object, what: str, count: list[int], depth: int) -> Any:
    """One property's value as a plain Python value (see `_check_properties`)."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        if not -_PROPERTY_INT <= value < _PROPERTY_INT:
            raise ValueError(f"{what} must be an int from -2**63 to 2**63 - 1, got an int of "
                             f"{value.bit_length()} bits")
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{what} must be a finite number, got {value!r}")
        return float(value)
    if isinstance(value, os.PathLike):  # a file property (pytiled-parser's Path)
        value = os.fspath(value)
        if not isinstance(value, str):
            raise ValueError(f"{what} must be a file path as text, got {value!r:.80}")
    if isinstance(value, str):
        if len(value) > MAX_PROPERTY_TEXT:
            raise ValueError(f"{what} is a text of {len(value):,} characters (at most "
                             f"{MAX_PROPERTY_TEXT:,})")
        return str(value)
    if isinstance(value, tuple):  # a color (pytiled-parser's Color: red, green, blue, alpha)
        if len(value) != 4 or any(isinstance(c, bool) or not isinstance(c, int)
                                  or not 0 <= c <= 255 for c in value):
            raise ValueError(f"{what} must be a color (r, g, b, a) of ints from 0 to 255, got "
                             f"{value!r:.80}")
        return tuple(int(c) for c in value)
    if isinstance(value, Mapping):  # a class value: its members, by name
        if depth >= MAX_PROPERTY_DEPTH:
            raise ValueError(f"{what} nests class values more than {MAX_PROPERTY_DEPTH} deep")
        return _check_properties(value, f"{what} member", count, depth + 1)
    raise ValueError(f"{what} is {_a(type(value).__name__)} ({value!r:.80}); a property must "
                     f"be text, a number, true/false, a color, a file or a class value")


def _check_label(value: object, what: str) -> str:
    """An object's name or class: text ('' for none) of at most ``MAX_PROPERTY_TEXT``."""
    text = _text(value, what)
    if len(text) > MAX_PROPERTY_TEXT:
        raise ValueError(f"{what} is a text of {len(text):,} characters (at most "
                         f"{MAX_PROPERTY_TEXT:,})")
    return text


class TiledObject:
    """What the level designer typed for one object of a Tiled object layer: the component
    `add_objects` puts on every entity it makes (bodies and markers alike).

    - ``id``: Tiled's object id (an int, unique in the map);
    - ``name``: its Name (``""`` for none);
    - ``cls``: its Class (Tiled's Class field, once called Type; a tile object without one
      takes its tile's; ``""`` for none);
    - ``kind``: one of ``"rectangle"``, ``"ellipse"``, ``"polygon"``, ``"polyline"``,
      ``"tile"``, ``"point"``, ``"text"``;
    - ``properties``: its custom properties as a plain ``dict``, its template's and its tile's
      merged in as Tiled merges them (its own value wins over its template's, which wins over
      its tile's): text, ints, floats, bools, colors as ``(r, g, b, a)`` tuples of ints, files
      as ``str`` paths, class values as dicts of their members.

    ``id``, ``name``, ``cls`` and ``kind`` are read-only; ``properties`` is the game's to
    read and change. The constructor checks and copies what it is given (``TypeError`` for a
    field of the wrong type, ``ValueError`` for a value out of range or a property Tiled could
    not have given; see the module docstring for the limits).

    >>> door = TiledObject(7, "door", "exit", "rectangle", {"to": "level2", "locked": True})
    >>> door.cls, door.properties["to"]
    ('exit', 'level2')
    """

    __slots__ = ("_id", "_name", "_cls", "_kind", "_properties")

    def __init__(self, id: int, name: str = "", cls: str = "",  # id: Tiled's word
                 kind: str = "rectangle", properties: Mapping[str, Any] | None = None) -> None:
        if isinstance(id, bool) or not isinstance(id, int):
            raise TypeError(f"TiledObject.id must be an int, got {id!r:.80}")
        for field, value in (("name", name), ("cls", cls), ("kind", kind)):
            if not isinstance(value, str):
                raise TypeError(f"TiledObject.{field} must be a str, got {value!r:.80}")
        if properties is not None and not isinstance(properties, Mapping):
            raise TypeError(f"TiledObject.properties must be a mapping of name -> value or "
                            f"None, got {properties!r:.80}")
        if kind not in OBJECT_KINDS:
            raise ValueError(f"TiledObject.kind must be one of {', '.join(OBJECT_KINDS)}, got "
                             f"{kind!r:.80}")
        self._id = _int(id, "TiledObject.id", 0, _GID_MAX)
        self._name = _check_label(name, "TiledObject.name")
        self._cls = _check_label(cls, "TiledObject.cls")
        self._kind = kind
        self._properties = _check_properties(properties, "TiledObject property")

    @property
    def id(self) -> int:
        """Tiled's object id."""
        return self._id

    @property
    def name(self) -> str:
        """The object's name (``""`` for none)."""
        return self._name

    @property
    def cls(self) -> str:
        """The object's class (a tile object without one: its tile's; ``""`` for none)."""
        return self._cls

    @property
    def kind(self) -> str:
        """What Tiled drew: rectangle, ellipse, polygon, polyline, tile, point or text."""
        return self._kind

    @property
    def properties(self) -> dict[str, Any]:
        """The custom properties, its template's and its tile's merged in (a plain dict)."""
        return self._properties

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TiledObject):
            return NotImplemented
        return (self._id, self._name, self._cls, self._kind, self._properties) == (
            other._id, other._name, other._cls, other._kind, other._properties)

    __hash__ = None  # type: ignore[assignment]  # the properties may change

    def __repr__(self) -> str:
        props = repr(self._properties)
        if len(props) > 200:  # a long table: its start and how many there are
            props = f"{props[:160]}... ({len(self._properties)} properties)}}"
        return (f"TiledObject(id={self._id}, name={self._name!r:.80}, cls={self._cls!r:.80}, "
                f"kind={self._kind!r}, properties={props})")


# ------------------------------------------------------------------ object layers


def _check_collider(collider: object) -> Collider | Mapping[str, Collider] | None:
    who = "add_objects collider"
    items: list[tuple[str, object]]
    if collider is None:
        return None
    if isinstance(collider, Collider):
        items = [(who, collider)]
    elif isinstance(collider, Mapping):
        items = [(f"{who}[{k!r}]", c) for k, c in collider.items()]
    else:
        raise TypeError(f"{who} must be a Collider, a mapping of object class -> Collider, "
                        f"or None, got {collider!r}")
    for field, c in items:
        if not isinstance(c, Collider):
            raise TypeError(f"{field} must be a Collider, got {c!r}")
        if c.kind != STATIC:
            raise ValueError(f"{field} must be a STATIC Collider (objects become static "
                             f"bodies), got {c!r}")
    return collider  # type: ignore[return-value]


def _copy(c: Collider) -> Collider:
    return Collider(c.kind, c.layer, c.mask, c.sensor, c.mass, c.restitution, c.slide,
                    c.friction, c.stop_on_slope, c.one_way)


class _Frame:
    """Tiled pixels (y down, from the map's top-left) to world units (y up)."""

    def __init__(self, tmap: Any, scale: float, origin: tuple[float, float], dx: float,
                 dy: float) -> None:
        self.s = scale
        self.ox, self.oy = origin
        self.dx, self.dy = dx, dy  # the layer's offset, px
        self.height = tmap.map_size[1] * tmap.tile_size[1]

    def point(self, px: float, py: float) -> tuple[float, float]:
        return (self.ox + (px + self.dx) * self.s,
                self.oy + (self.height - py - self.dy) * self.s)


def _turn(u: float, v: float, degrees: float) -> tuple[float, float]:
    """(u, v) turned ``degrees`` clockwise on screen (Tiled's rotation, y down)."""
    if degrees == 0:
        return u, v
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return u * c - v * s, u * s + v * c


def _box(at: tuple[float, float], size: tuple[float, float], rotation: float,
         frame: _Frame, fx: float, fy: float) -> tuple[tuple[float, float], float, float]:
    """The world centre, width and height of a box whose corner or side ``at`` lies at
    fractions (fx, fy) of it from its top-left corner, turned about ``at``."""
    (x, y), (w, h) = at, size
    u, v = _turn((0.5 - fx) * w, (0.5 - fy) * h, rotation)
    return frame.point(x + u, y + v), w * frame.s, h * frame.s


def _rect(w: float, h: float, rotation: float) -> Shape:
    """A box turned ``rotation`` degrees clockwise (Tiled's), axis-aligned when it can be."""
    turn = rotation % 360.0
    if turn in (0.0, 180.0):
        return Rect(w, h)
    if turn in (90.0, 270.0):
        return Rect(h, w)
    return OrientedRect(w, h, -rotation)  # counter-clockwise with y up


def _outline(obj: Any, at: tuple[float, float], rotation: float,
             frame: _Frame) -> tuple[tuple[float, float], list[tuple[float, float]]]:
    """A polygon's or polyline's points in the world, relative to the centre of their box."""
    points = obj.points
    if not isinstance(points, list) or not 0 < len(points) <= MAX_OBJECT_POINTS:
        raise ValueError(f"its points must be a list of 1 to {MAX_OBJECT_POINTS}, got "
                         f"{len(points) if isinstance(points, list) else points!r}")
    pts = []
    for i, p in enumerate(points):
        u, v = _turn(*_pair(p, f"its point {i}"), rotation)
        pts.append(frame.point(at[0] + u, at[1] + v))
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    return (cx, cy), [(px - cx, py - cy) for px, py in pts]


def _object_shape(obj: Any, tmap: Any, frame: _Frame) -> tuple[tuple[float, float], Shape]:
    """The world position (the shape's centre) and shape of one object; ``ValueError`` for
    an object that has none."""
    objs = _pytiled().tiled_object
    at = _pair(obj.coordinates, "its position")
    size = _pair(obj.size, "its size")
    rotation = _real(obj.rotation, "its rotation")
    if isinstance(obj, objs.Tile):
        ts, _, _ = _tile_of(tmap, _int(obj.gid, "its gid") & ~FLIP_BITS)
        fx, fy = _ALIGN[ts.alignment]
        centre, w, h = _box(at, size, rotation, frame, fx, fy)
        return centre, _rect(w, h, rotation)
    if isinstance(obj, objs.Rectangle):
        centre, w, h = _box(at, size, rotation, frame, 0.0, 0.0)
        return centre, _rect(w, h, rotation)
    if isinstance(obj, objs.Ellipse):
        centre, w, h = _box(at, size, rotation, frame, 0.0, 0.0)
        if not math.isclose(w, h, rel_tol=1e-9):
            raise ValueError(f"it is an ellipse of {size[0]:g} x {size[1]:g} px; only "
                             f"circles are supported (draw a polygon for an ellipse)")
        return centre, Circle(w / 2)
    if isinstance(obj, objs.Polygon):
        centre, pts = _outline(obj, at, rotation, frame)
        try:
            return centre, Polygon(pts)
        except ValueError:  # concave (or with collinear points): convex pieces
            pieces = convex_decompose(pts)
            return centre, pieces[0] if len(pieces) == 1 else Compound(pieces)
    if isinstance(obj, objs.Polyline):
        centre, pts = _outline(obj, at, rotation, frame)
        pts = [p for i, p in enumerate(pts) if i == 0 or p != pts[i - 1]]
        if len(pts) < 2:
            raise ValueError("it is a polyline of fewer than two distinct points")
        segs = [Segment(a, b) for a, b in zip(pts, pts[1:], strict=False)]
        return centre, segs[0] if len(segs) == 1 else Compound(segs)
    raise ValueError(f"it is {_a(type(obj).__name__)}, which has no shape to collide with")


def _object_kind(obj: Any) -> str:
    """The `TiledObject.kind` of a pytiled-parser object; ``ValueError`` for another type."""
    objs = _pytiled().tiled_object
    for cls, kind in ((objs.Rectangle, "rectangle"), (objs.Ellipse, "ellipse"),
                      (objs.Polygon, "polygon"), (objs.Polyline, "polyline"),
                      (objs.Tile, "tile"), (objs.Point, "point"), (objs.Text, "text")):
        if isinstance(obj, cls):
            return kind
    raise ValueError(f"it is {_a(type(obj).__name__)}, not an object Tiled draws")


def _marker_place(obj: Any, kind: str, frame: _Frame) -> tuple[float, float]:
    """The world position of a point (its point) or a text (the centre of its box, placed
    and turned as a rectangle's)."""
    at = _pair(obj.coordinates, "its position")
    if kind == "point":
        return frame.point(*at)
    size = _pair(obj.size, "its size")
    centre, _, _ = _box(at, size, _real(obj.rotation, "its rotation"), frame, 0.0, 0.0)
    return centre


def _designer(obj: Any, kind: str, tile: Any) -> TiledObject:
    """The `TiledObject` of one object: its own class, or its tile's for a tile object without
    one; its properties (pytiled-parser has merged its template's) over its tile's."""
    key = _check_label(obj.class_, "its class")
    if not key and tile is not None:
        key = _check_label(tile.class_, "its tile's class")
    props = _check_properties(tile.properties if tile is not None else None,
                              "its tile's property")
    props.update(_check_properties(obj.properties, "its property"))
    _check_properties(props, "its property (its tile's merged in)")  # the limit, merged
    return TiledObject(_int(obj.id, "its id"), _check_label(obj.name, "its name"), key, kind,
                       props)


def add_objects(path: str | os.PathLike[str], layer: str = "objects",
                collider: Collider | Mapping[str, Collider] | None = None, *,
                scale: float = 1.0, origin: tuple[float, float] = (0.0, 0.0)) -> list[int]:
    """Create an entity in the current esper world for each object of the object layer
    ``layer`` of a Tiled map: a static body for each object with a shape, a marker for each
    point and text; return their entity ids, in the layer's order (bodies and markers mixed).

    Every entity carries a ``TiledObject``: the object's id, name, class, kind and custom
    properties (its template's and its tile's merged in), for the game to find its spawn
    points, doors and coins by. A point or a text (spawn points, labels) is a marker: a
    ``Position`` (the point; the centre of the text's box, turned as a rectangle is) and its
    ``TiledObject``, no ``Collider`` or ``Geometry``, so it is no body.

    Each body is ``Position`` (the centre of the object's box, in world units: see the
    module docstring for ``scale`` and ``origin``, which should be the ones given to
    `TileMap.from_tiled` for the same map), a ``Collider``, a ``Geometry`` and its
    ``TiledObject``:

    - a rectangle is a ``Rect``, or an ``OrientedRect`` when Tiled turned it by other than a
      multiple of 90 degrees (Tiled turns clockwise about the object's top-left corner; the
      body's position is the turned box's centre);
    - an ellipse of equal width and height is a ``Circle``; another ellipse is refused (draw
      a polygon instead);
    - a polygon is a ``Polygon``, or a concave one a ``Compound`` of the convex pieces
      ``ecsphys.geometry.convex_decompose`` gives;
    - a polyline is a ``Segment``, or a ``Compound`` of segments for more than two points
      (polygons and polylines of at most ``MAX_OBJECT_POINTS``, 2,048, points);
    - a tile object is a ``Rect`` of the object's size, placed by its tileset's object
      alignment (bottom-left by default), not the tile's own collision shapes.

    ``collider`` chooses each body's ``Collider`` (a fresh copy for each; it must be
    ``STATIC``): ``None`` gives ``Collider(STATIC)``; a ``Collider`` is copied for every
    object; a mapping from an object's class (Tiled's Class field; a tile object without one
    takes its tile's; ``""`` for none) to a ``Collider`` gives each class its own, and an
    object with a shape whose class it lacks is refused (markers take no ``Collider``, so
    their classes need no entry). Objects hidden in Tiled are added too.

    Raises ``ValueError`` naming the file, the layer and the object for anything refused
    (a property also named; see the module docstring for what is checked), before any
    entity is created;
    ``FileNotFoundError`` for a missing file; ``TypeError`` for arguments of the wrong type;
    ``ImportError`` without pytiled-parser (``pip install "ecsphys[tiled]"``).

    >>> coins = add_objects("level.tmj", "coins", ep.Collider(ep.STATIC, sensor=True),
    ...                     scale=1 / 16)  # doctest: +SKIP
    >>> for e in add_objects("level.tmj", "markers", scale=1 / 16):  # doctest: +SKIP
    ...     if esper.component_for_entity(e, TiledObject).name == "spawn":
    ...         spawn = esper.component_for_entity(e, ep.Position)
    """
    who = "add_objects"
    if not isinstance(layer, str):
        raise TypeError(f"{who} layer must be a layer's name (str), got {layer!r}")
    template = _check_collider(collider)
    s, place = _check_place(who, scale, origin)
    tmap, name = _read_map(path, who)
    ptp = _pytiled()
    lay, dx, dy = _find_layer(tmap, name, layer, ptp.ObjectLayer, "object layer")
    frame = _Frame(tmap, s, place, dx, dy)
    entities: list[tuple[Any, ...]] = []
    for obj in lay.tiled_objects:
        where = f"{name}: object layer {layer!r}, object {obj.id!r:.40}" + (
            f" {obj.name!r:.80}" if obj.name else "")
        try:
            kind = _object_kind(obj)
            tile = None
            if kind == "tile":
                _, _, tile = _tile_of(tmap, _int(obj.gid, "its gid") & ~FLIP_BITS)
            info = _designer(obj, kind, tile)
            if kind in _MARKERS:
                entities.append((Position(*_marker_place(obj, kind, frame)), info))
                continue
            if template is None:
                body_collider = Collider(STATIC)
            elif isinstance(template, Collider):
                body_collider = _copy(template)
            elif info.cls in template:
                body_collider = _copy(template[info.cls])
            else:
                known = ", ".join(repr(k) for k in template) or "nothing"
                raise ValueError(f"its class {info.cls!r} is not in collider (which maps "
                                 f"{known})")
            (x, y), shape = _object_shape(obj, tmap, frame)
            entities.append((Position(x, y), body_collider, Geometry(shape), info))
        except (ValueError, TypeError, LookupError) as exc:
            raise ValueError(f"{where}: {exc.args[0] if exc.args else exc}") from exc
    return [esper.create_entity(*parts) for parts in entities]
