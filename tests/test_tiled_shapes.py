"""Tile shapes from Tiled: each tile's collision shape, drawn in Tiled's tile collision editor,
becomes the shape of its kind in the TileMap (slopes, half tiles), turned by the tile's flip
bits.

Shows: on maps written here (``.tmx`` and ``.tmj``, tilesets embedded and external) a slope
polygon, a half-tile rectangle, a turned rectangle, two rectangles making one half tile, a
rectangle covering the tile, a tile with only an ellipse and a tile without objects give
exactly the shapes (or squares) they draw; each of the 8 flip combinations turns an
asymmetric shape as Tiled draws it (diagonal first: Tiled's x/y swap, y down); kinds are
numbered 1 for squares and 2, 3, ... for each distinct shape in order of first appearance,
or kept as ``kinds`` maps them with an error naming both tiles when one kind would need two
shapes; shapes outside the tile, non-convex ones and NaN coordinates are refused naming the
file, tileset and tile. On maps nobody here made (Arcade's map_with_ladders and the rest of
tests/data/tiled_third_party): every tile layer that loaded before tiles had shapes still
loads, the hill's tiles are slopes, and a walker walks over the hill it used to stop at.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
from pathlib import Path

import esper
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz_tiled import VALUES, _paths
from test_tiled import _tmj_object, _tmx_object

import ecsphys as ep
from ecsphys import tiled
from ecsphys.tiled_shapes import FLIP_D, FLIP_H, FLIP_V, flipped

PX = 16
THIRD_PARTY = Path(__file__).resolve().parent / "data" / "tiled_third_party"
H, V, D = FLIP_H, FLIP_V, FLIP_D

SLOPE = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0))  # rising to the right
HALF = ((0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (0.0, 0.5))  # the bottom half
TRI = ((0.0, 0.0), (1.0, 0.0), (0.0, 0.5))  # no symmetry of the square keeps it
RIGHT = ((0.5, 0.0), (1.0, 0.0), (1.0, 1.0), (0.5, 1.0))  # the right half

#: The tileset "slopes": tile id -> its class and its collision objects (Tiled's pixels, y
#: down from the tile's top-left). Tile 0 has no entry (a square without objects).
SLOPES = {
    1: {"class": "slope", "objects": [  # written as Arcade's grassHill_right is
        {"id": 1, "shape": "polygon", "x": 0, "y": 16, "points": [(0, 0), (16, -16), (16, 0)]}]},
    2: {"objects": [{"id": 1, "x": 0, "y": 8, "w": 16, "h": 8}]},
    3: {"objects": [{"id": 4, "x": 0, "y": 0, "w": 16, "h": 16}]},  # the whole tile
    4: {"class": "coin", "objects": [
        {"id": 1, "shape": "ellipse", "x": 4, "y": 4, "w": 8, "h": 8}]},
    5: {"class": "tri", "objects": [
        {"id": 2, "shape": "polygon", "x": 0, "y": 8, "points": [(0, 8), (16, 8), (0, 0)]}]},
    6: {"objects": [  # 16 x 8 turned 90 degrees clockwise about (16, 0): the right half
        {"id": 1, "x": 16, "y": 0, "w": 16, "h": 8, "rotation": 90}]},
    7: {"objects": [  # two quarters making the bottom half, beside a coin's round hit box
        {"id": 1, "x": 0, "y": 8, "w": 8, "h": 8}, {"id": 2, "x": 8, "y": 8, "w": 8, "h": 8},
        {"id": 3, "shape": "ellipse", "x": 2, "y": 2, "w": 4, "h": 4}]},
}
#: The layer drawn with it (gids: tile id + 1)
LAYER = [[1, 2, 3, 4, 5, 0, 0, 0],
         [6, 7, 8, 0, 0, 0, 0, 0],
         [1, 1, 1, 1, 1, 1, 1, 1]]


# ------------------------------------------------------------------ writing maps


def _tsx_tiles(tiles: dict) -> str:
    out = ""
    for i, t in tiles.items():
        cls = f' type="{t["class"]}"' if t.get("class") else ""
        props = (f'<properties><property name="kind" type="int" value="{t["kind"]}"/>'
                 f'</properties>' if "kind" in t else "")
        objs = "".join(_tmx_object(o) for o in t.get("objects", []))
        group = (f'<objectgroup draworder="index" id="2">{objs}</objectgroup>'
                 if "objects" in t else "")
        out += f'<tile id="{i}"{cls}>{props}{group}</tile>'
    return out


def _tsj_tiles(tiles: dict) -> list[dict]:
    out = []
    for i, t in tiles.items():
        tile: dict = {"id": i, "type": t.get("class", "")}
        if "kind" in t:
            tile["properties"] = [{"name": "kind", "type": "int", "value": t["kind"]}]
        if "objects" in t:
            tile["objectgroup"] = {"draworder": "index", "id": 2, "name": "", "opacity": 1,
                                   "type": "objectgroup", "visible": True, "x": 0, "y": 0,
                                   "objects": [_tmj_object(o) for o in t["objects"]]}
        out.append(tile)
    return out


def write_map(path: Path, data: list[list[int]], tiles: dict | None = None,
              external: bool = False, *, tile_w: int = PX, tile_h: int = PX,
              render: str | None = None, fill: str | None = None) -> Path:
    """A map at ``path`` (``.tmx``: XML, else JSON) of one tile layer "walls" on a 16 px grid,
    drawn with the tileset "slopes" (8 tiles of ``tile_w`` x ``tile_h`` px, ``tiles`` its
    tiles' classes, int "kind" properties and collision objects; ``render`` / ``fill``: its
    ``tilerendersize`` / ``fillmode`` when given), embedded or in an external file beside it
    (``slopes.tsx`` / ``slopes.tsj``)."""
    tiles = SLOPES if tiles is None else tiles
    rows, cols = len(data), len(data[0])
    head = {"name": "slopes", "tilewidth": tile_w, "tileheight": tile_h, "tilecount": 8,
            "columns": 8}
    if render is not None:
        head["tilerendersize"] = render
    if fill is not None:
        head["fillmode"] = fill
    if path.suffix == ".tmx":
        attrs = " ".join(f'{k}="{v}"' for k, v in head.items())
        inner = (f'<image source="slopes.png" width="{8 * tile_w}" height="{tile_h}"/>'
                 f'{_tsx_tiles(tiles)}')
        if external:
            (path.parent / "slopes.tsx").write_text(
                f'<?xml version="1.0" encoding="UTF-8"?>\n<tileset version="1.10" '
                f'tiledversion="1.10.2" {attrs}>{inner}</tileset>\n')
            tileset = '<tileset firstgid="1" source="slopes.tsx"/>'
        else:
            tileset = f'<tileset firstgid="1" {attrs}>{inner}</tileset>'
        csv = ",\n".join(",".join(str(g) for g in row) for row in data)
        path.write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<map version="1.10" tiledversion="1.10.2" '
            f'orientation="orthogonal" renderorder="right-down" width="{cols}" '
            f'height="{rows}" tilewidth="{PX}" tileheight="{PX}" infinite="0" '
            f'nextlayerid="2" nextobjectid="9">{tileset}<layer id="1" name="walls" '
            f'width="{cols}" height="{rows}"><data encoding="csv">\n{csv}\n</data></layer>'
            '</map>\n')
        return path
    ts = {**head, "image": "slopes.png", "imagewidth": 8 * tile_w, "imageheight": tile_h,
          "margin": 0,
          "spacing": 0, "tiles": _tsj_tiles(tiles)}
    if external:
        (path.parent / "slopes.tsj").write_text(json.dumps(
            {**ts, "type": "tileset", "version": "1.10", "tiledversion": "1.10.2"}))
        tileset = {"firstgid": 1, "source": "slopes.tsj"}
    else:
        tileset = {"firstgid": 1, **ts}
    doc = {"type": "map", "version": "1.10", "tiledversion": "1.10.2", "width": cols,
           "height": rows, "tilewidth": PX, "tileheight": PX, "infinite": False,
           "orientation": "orthogonal", "renderorder": "right-down", "nextlayerid": 2,
           "nextobjectid": 9, "tilesets": [tileset],
           "layers": [{"id": 1, "name": "walls", "type": "tilelayer", "width": cols,
                       "height": rows, "opacity": 1, "visible": True, "x": 0, "y": 0,
                       "data": [g for row in data for g in row]}]}
    path.write_text(json.dumps(doc))  # NaN written as JSON's readers take it
    return path


FORMATS = [pytest.param(".tmx", False, id="tmx-embedded"),
           pytest.param(".tmx", True, id="tmx-external-tsx"),
           pytest.param(".tmj", False, id="tmj-embedded"),
           pytest.param(".tmj", True, id="tmj-external-tsj")]


def parts(path: Path, **kw) -> tiled.TileLayerParts:
    return tiled.tile_layer_parts(path, "walls", **kw)


# ------------------------------------------------------------------ a tileset's shapes


@pytest.mark.parametrize(("suffix", "external"), FORMATS)
def test_each_tiles_collision_objects_give_its_shape(tmp_path, suffix, external):
    """Squares are kind 1 (no objects, a rectangle over the whole tile, only an ellipse);
    each distinct shape a kind from 2 in order of first appearance: the slope, the half tile
    (drawn as one rectangle and again as two), the triangle, the turned rectangle."""
    got = parts(write_map(tmp_path / f"m{suffix}", LAYER, external=external))
    assert got.shapes == {2: SLOPE, 3: HALF, 4: TRI, 5: RIGHT}
    assert got.grid.tolist() == [[1, 2, 3, 1, 1, 0, 0, 0],
                                 [4, 5, 3, 0, 0, 0, 0, 0],
                                 [1, 1, 1, 1, 1, 1, 1, 1]]
    assert got.tile_size == 16.0 and got.origin == (0.0, 0.0)


def test_shapes_are_tile_units_whatever_the_scale_and_origin(tmp_path):
    path = write_map(tmp_path / "m.tmj", LAYER)
    got = parts(path, scale=1 / 16, origin=(3, -2))
    assert got.tile_size == 1.0 and got.origin == (3.0, -2.0)
    assert got.shapes == parts(path).shapes


def test_a_map_without_shaped_tiles_gives_no_shapes(tmp_path):
    got = parts(write_map(tmp_path / "m.tmx", [[1, 4, 5, 1]]))  # square, whole, ellipse
    assert got.shapes == {} and got.grid.tolist() == [[1, 1, 1, 1]]


def test_a_point_within_a_millionth_of_the_tile_is_moved_onto_it(tmp_path):
    tiles = {1: {"objects": [{"id": 1, "shape": "polygon", "x": 0, "y": 0, "points": [
        (-0.00001, 16.00001), (16.00001, 16), (16, 8)]}]}}
    got = parts(write_map(tmp_path / "m.tmj", [[2]], tiles))
    assert got.shapes == {2: ((0.0, 0.0), (1.0, 0.0), (1.0, 0.5))}


def test_a_concave_polygon_that_is_its_hull_to_a_billionth_is_the_hull(tmp_path):
    """A slope whose long side dips by 1e-8 px at its middle: concave, but its convex pieces
    (``convex_decompose``) leave less than 1e-9 of a tile of the hull uncovered."""
    tiles = {1: {"objects": [{"id": 1, "shape": "polygon", "x": 0, "y": 0, "points": [
        (0, 16), (8, 16 - 1e-8), (16, 16), (16, 0)]}]}}
    assert parts(write_map(tmp_path / "m.tmx", [[2]], tiles)).shapes == {2: SLOPE}


# ------------------------------------------------------------------ tiles drawn at the grid's size


def _scaled(tiles: dict, k: float) -> dict:
    """``tiles`` drawn ``k`` times larger (every position, size and point of its objects)."""
    out = copy.deepcopy(tiles)
    for tile in out.values():
        for o in tile.get("objects", []):
            for key in ("x", "y", "w", "h"):
                if key in o:
                    o[key] *= k
            if "points" in o:
                o["points"] = [(x * k, y * k) for x, y in o["points"]]
    return out


@pytest.mark.parametrize(("suffix", "external"), FORMATS)
@pytest.mark.parametrize("fill", [None, "stretch", "preserve-aspect-fit"])
@pytest.mark.parametrize("px", [32, 8])
def test_tiles_drawn_at_the_grids_size_are_scaled_into_their_cell(tmp_path, suffix, external,
                                                                   fill, px):
    """A tileset of 32 (or 8) px tiles on the map's 16 px grid with Tiled's "Tile render
    size: Grid": Tiled draws each tile, and its collision objects, scaled into its cell, so
    the tiles have the shapes the 16 px tileset gives (square tiles: stretch and fit agree)."""
    path = write_map(tmp_path / f"m{suffix}", LAYER, _scaled(SLOPES, px / PX), external,
                     tile_w=px, tile_h=px, render="grid", fill=fill)
    got, plain = parts(path), parts(write_map(tmp_path / f"plain{suffix}", LAYER))
    assert got.shapes == plain.shapes == {2: SLOPE, 3: HALF, 4: TRI, 5: RIGHT}
    assert got.grid.tolist() == plain.grid.tolist() and got.tile_size == 16.0


def test_tiles_drawn_at_their_own_size_keep_their_pixels(tmp_path):
    """The same tilesets at their own size (Tiled's default, "tile"): 8 px tiles fill the
    bottom-left quarter of their cells as Tiled draws them; 32 px tiles reach beyond their
    cells, which a TileMap's tiles cannot, and are refused naming the point."""
    small = parts(write_map(tmp_path / "s.tmx", [[2, 3]], _scaled(SLOPES, 0.5),
                            tile_w=8, tile_h=8))
    assert small.shapes == {2: ((0.0, 0.0), (0.5, 0.0), (0.5, 0.5)),
                            3: ((0.0, 0.0), (0.5, 0.0), (0.5, 0.25), (0.0, 0.25))}
    with pytest.raises(ValueError, match=r"tileset 'slopes', tile 1 .*outside the tile"):
        parts(write_map(tmp_path / "l.tmx", [[2, 3]], _scaled(SLOPES, 2.0), tile_w=32,
                        tile_h=32, render="tile"))


#: A 32 x 16 px tile: its bottom half, and a slope rising across it to the right
WIDE = {1: {"objects": [{"id": 1, "x": 0, "y": 8, "w": 32, "h": 8}]},
        2: {"objects": [{"id": 1, "shape": "polygon", "x": 0, "y": 0,
                         "points": [(0, 16), (32, 16), (32, 0)]}]}}
#: A 16 x 32 px tile: its left half, and the same slope
TALL = {1: {"objects": [{"id": 1, "x": 0, "y": 0, "w": 8, "h": 32}]},
        2: {"objects": [{"id": 1, "shape": "polygon", "x": 0, "y": 0,
                         "points": [(0, 32), (16, 32), (16, 0)]}]}}


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
@pytest.mark.parametrize(("tiles", "size", "fill", "want"), [
    # stretched: the image fills the cell whatever its proportions
    (WIDE, (32, 16), "stretch", {2: HALF, 3: SLOPE}),
    (TALL, (16, 32), "stretch", {2: ((0.0, 0.0), (0.5, 0.0), (0.5, 1.0), (0.0, 1.0)),
                                 3: SLOPE}),
    # fitted: scaled by the smaller factor (1/2), centred: the wide tile spans v 1/4 .. 3/4
    (WIDE, (32, 16), "preserve-aspect-fit", {
        2: ((0.0, 0.25), (1.0, 0.25), (1.0, 0.5), (0.0, 0.5)),
        3: ((0.0, 0.25), (1.0, 0.25), (1.0, 0.75))}),
    (TALL, (16, 32), "preserve-aspect-fit", {
        2: ((0.25, 0.0), (0.5, 0.0), (0.5, 1.0), (0.25, 1.0)),
        3: ((0.25, 0.0), (0.75, 0.0), (0.75, 1.0))}),
], ids=["wide-stretch", "tall-stretch", "wide-fit", "tall-fit"])
def test_a_tile_not_the_grids_shape_is_stretched_or_fitted_as_tiled_draws_it(
        tmp_path, suffix, tiles, size, fill, want):
    got = parts(write_map(tmp_path / f"m{suffix}", [[2, 3, 1]], tiles, tile_w=size[0],
                          tile_h=size[1], render="grid", fill=fill))
    assert got.shapes == want
    assert got.grid.tolist() == [[2, 3, 1]]


@pytest.mark.parametrize(("render", "fill", "what"), [
    ("huge", None, "tile render size"), ("grid", "tile", "fill mode"),
    (None, "cover", "fill mode")])
def test_a_render_size_or_fill_mode_tiled_has_not_is_refused_naming_it(tmp_path, render, fill,
                                                                      what):
    bad = render if what == "tile render size" else fill
    with pytest.raises(ValueError, match=rf"m\.tmx.*tileset 'slopes', tile 1 .*{what}.*{bad}"):
        parts(write_map(tmp_path / "m.tmx", [[2]], render=render, fill=fill))


def test_a_diamond_turned_45_degrees_is_read_as_tiled_turns_it(tmp_path):
    """A square of side 8 * sqrt(2) at (8, 0), turned 45 degrees clockwise about that corner:
    a diamond touching the middle of each side of the tile."""
    side = 8 * math.sqrt(2)
    tiles = {1: {"objects": [{"id": 1, "x": 8, "y": 0, "w": side, "h": side,
                              "rotation": 45}]}}
    (shape,) = parts(write_map(tmp_path / "m.tmj", [[2]], tiles)).shapes.values()
    assert np.allclose(shape, [(0.0, 0.5), (0.5, 0.0), (1.0, 0.5), (0.5, 1.0)], atol=1e-9)


# ------------------------------------------------------------------ flip bits


def _tiled_draws(shape, bits):
    """The shape as Tiled's docs say a flipped tile is drawn, worked in Tiled's own frame
    (y down): the diagonal flip (an x/y swap) first, then the horizontal, then the
    vertical; as a set of points rounded to 9 digits."""
    out = set()
    for x, y in shape:
        x, y = x, 1 - y  # to y down
        if bits & D:
            x, y = y, x
        if bits & H:
            x = 1 - x
        if bits & V:
            y = 1 - y
        out.add((round(x, 9), round(1 - y, 9)))
    return out


COMBOS = [0, H, V, D, H | V, H | D, V | D, H | V | D]


@pytest.mark.parametrize("bits", COMBOS, ids=lambda b: f"{b >> 29:03b}")
def test_each_flip_combination_turns_the_shape_as_tiled_draws_it(bits):
    got = flipped(TRI, bits)
    assert {(round(x, 9), round(y, 9)) for x, y in got} == _tiled_draws(TRI, bits)
    assert len(got) == 3 and _ccw(got)


def test_flips_are_the_eight_turns_of_the_square():
    """The 8 combinations give 8 different shapes; diagonal + horizontal is a quarter turn
    clockwise (Tiled's Z), diagonal + vertical a quarter turn counter-clockwise."""
    assert len({flipped(TRI, b) for b in COMBOS}) == 8
    assert flipped(TRI, D | H) == ((0.0, 0.0), (0.5, 1.0), (0.0, 1.0))
    assert flipped(TRI, D | V) == ((0.5, 0.0), (1.0, 0.0), (1.0, 1.0))
    assert flipped(TRI, H) == ((0.0, 0.0), (1.0, 0.0), (1.0, 0.5))
    assert flipped(TRI, V) == ((0.0, 0.5), (1.0, 1.0), (0.0, 1.0))
    assert flipped(None, H | V | D) is None


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_flipped_tiles_in_a_layer_are_kinds_of_their_own(tmp_path, suffix):
    """The triangle drawn 8 ways (and the slope, whose mirror is another shape): each turn a
    kind of its own, numbered in the order the layer shows them; the hexagonal bit, which
    means nothing on an orthogonal map, changes nothing."""
    row = [6 | b for b in COMBOS]
    data = [row, [2, 2 | H, 2 | 0x10000000, 1 | H | V | D, 0, 0, 0, 0]]
    got = parts(write_map(tmp_path / f"m{suffix}", data))
    assert got.grid.tolist() == [[2, 3, 4, 5, 6, 7, 8, 9], [10, 11, 10, 1, 0, 0, 0, 0]]
    for kind, bits in enumerate(COMBOS, start=2):
        assert got.shapes[kind] == flipped(TRI, bits)
    assert got.shapes[10] == SLOPE and got.shapes[11] == ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0))


def _ccw(shape):
    n = len(shape)
    return sum(shape[i][0] * shape[(i + 1) % n][1] - shape[(i + 1) % n][0] * shape[i][1]
               for i in range(n)) > 0


# ------------------------------------------------------------------ kinds


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_mapped_kinds_keep_their_numbers_and_take_their_tiles_shape(tmp_path, suffix):
    data = [[2, 2, 5, 1, 6], [1, 1, 1, 1, 1]]  # slopes, a coin, squares, a triangle
    got = parts(write_map(tmp_path / f"m{suffix}", data),
                kinds={"": 1, "slope": 7, "coin": 0, "tri": 3})
    assert got.grid.tolist() == [[7, 7, 0, 1, 3], [1, 1, 1, 1, 1]]
    assert got.shapes == {7: SLOPE, 3: TRI}


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_one_kind_with_two_shapes_is_refused_naming_both_tiles(tmp_path, suffix):
    path = write_map(tmp_path / f"m{suffix}", [[1, 2, 0], [0, 3, 2 | H]])
    with pytest.raises(ValueError, match=(
            r"m\.tm.: tile layer 'walls': kind 1 would need two collision shapes: tile 0 of "
            r"tileset 'slopes' \(row 0, col 0\) is a square, tile 2 of tileset 'slopes' "
            r"\(row 1, col 1\) is the polygon \(0, 0\), \(1, 0\), \(1, 0\.5\), \(0, 0\.5\); "
            r"a kind has one shape in a TileMap: pass kinds=None \(each shape its own kind\) "
            r"or give these tiles distinct classes")):
        parts(path, kinds={"": 1, "slope": 2})
    with pytest.raises(ValueError, match=(
            r"kind 2 would need two collision shapes: tile 1 of tileset 'slopes' \(row 0, col "
            r"1\) is the polygon \(0, 0\), \(1, 0\), \(1, 1\), tile 1 of tileset 'slopes' "
            r"flipped horizontally \(row 1, col 2\) is the polygon \(0, 0\), \(1, 0\), "
            r"\(0, 1\)")):
        parts(path, kinds={"": 0, "slope": 2})
    with pytest.raises(ValueError, match="kind 1 would need two"):
        ep.TileMap.from_tiled(path, kinds={"": 1, "slope": 2})
    # with kinds=None each shape is a kind of its own
    assert parts(path).grid.tolist() == [[1, 2, 0], [0, 3, 4]]


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_kinds_from_a_kind_property_follow_the_same_rule(tmp_path, suffix):
    tiles = {0: {"kind": 1}, 1: {**SLOPES[1], "kind": 4}, 2: {**SLOPES[2], "kind": 4}}
    path = write_map(tmp_path / f"m{suffix}", [[1, 2, 2], [1, 1, 1]], tiles)
    got = parts(path, kind_property="kind")
    assert got.grid.tolist() == [[1, 4, 4], [1, 1, 1]] and got.shapes == {4: SLOPE}
    path = write_map(tmp_path / f"m{suffix}", [[1, 2, 3], [1, 1, 1]], tiles)
    with pytest.raises(ValueError, match=r"kind 4 would need two collision shapes: tile 1 of "
                                         r"tileset 'slopes' \(row 0, col 1\) is the polygon "
                                         r"\(0, 0\), \(1, 0\), \(1, 1\), tile 2 "):
        parts(path, kind_property="kind")


def test_an_empty_kinds_tiles_shapes_are_never_read(tmp_path):
    tiles = {**SLOPES, 4: {"class": "coin", "objects": [  # an L: no one convex shape
        {"id": 1, "shape": "polygon", "x": 0, "y": 0,
         "points": [(0, 0), (8, 0), (8, 8), (16, 8), (16, 16), (0, 16)]}]}}
    path = write_map(tmp_path / "m.tmj", [[5, 1]], tiles)
    assert parts(path, kinds={"coin": 0, "": 1}).shapes == {}
    with pytest.raises(ValueError, match="tile 4 .* is not convex"):
        parts(path)


# ------------------------------------------------------------------ refusals


REFUSED = [
    ({"id": 1, "x": 0, "y": 8, "w": 16, "h": 10},
     r"collision object 1's point 2 y is -0\.125 tiles, outside the tile"),
    ({"id": 3, "shape": "polygon", "x": 0, "y": 0,  # an L
      "points": [(0, 0), (8, 0), (8, 8), (16, 8), (16, 16), (0, 16)]},
     r"its collision polygon is not convex \(its convex hull is 0\.125 tile areas larger "
     r"than the shape\); a tile needs one convex collision shape"),
    ({"id": 3, "shape": "polygon", "x": 0, "y": 0,  # a bow tie
      "points": [(0, 0), (16, 16), (16, 0), (0, 8)]},
     r"collision object 3 is not a simple polygon \(convex_decompose.points are "
     r"self-intersecting"),
    ({"id": 3, "shape": "polygon", "x": 0, "y": 0, "points": [(0, 0), (8, 8), (16, 16)]},
     r"collision object 3 is a polygon without area \(3 distinct points over 0 tile areas\)"),
    ({"id": 3, "shape": "polygon", "x": 0, "y": 0, "points": [(0, 0), (math.nan, 16), (16, 0)]},
     r"collision object 3's point 1\.x must be a number within .* got nan"),
    ({"id": 3, "x": math.inf, "y": 0, "w": 4, "h": 4},
     r"collision object 3's position\.x must be a number"),
    ({"id": 3, "x": 0, "y": 0, "w": 16, "h": 0},
     r"collision object 3 is a rectangle without area"),
]


@pytest.mark.parametrize(("obj", "why"), REFUSED)
@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_shape_a_tile_cannot_have_is_refused_naming_file_tileset_and_tile(
        tmp_path, suffix, obj, why, world):
    tiles = {**SLOPES, 3: {"objects": [obj]}}
    path = write_map(tmp_path / f"m{suffix}", [[1, 2], [0, 4]], tiles)
    where = (rf"m\{suffix}: tileset 'slopes', tile 3 \(drawn at row 1, col 1 of layer "
             rf"'walls'\): ")
    with pytest.raises(ValueError, match=where + why):
        parts(path)
    with pytest.raises(ValueError, match=where + why):
        ep.TileMap.from_tiled(path)
    assert not esper.get_component(ep.Geometry)  # nothing made


def test_two_objects_that_are_not_one_convex_shape_are_refused(tmp_path):
    tiles = {1: {"objects": [{"id": 1, "x": 0, "y": 8, "w": 16, "h": 8},  # an L again
                             {"id": 2, "x": 0, "y": 0, "w": 8, "h": 8}]}}
    with pytest.raises(ValueError, match=r"tile 1 .*: its collision objects are not one convex "
                                         r"shape \(their convex hull is 0\.125 tile areas"):
        parts(write_map(tmp_path / "m.tmx", [[2]], tiles))


def test_a_shape_of_more_corners_than_a_tilemap_holds_is_refused(tmp_path):
    """A round platform of 17 corners (a TileMap's shapes have at most 16); 16 are taken."""
    def ring(n):
        return [(8 + 8 * math.cos(2 * math.pi * i / n), 8 + 8 * math.sin(2 * math.pi * i / n))
                for i in range(n)]

    tiles = {1: {"objects": [{"id": 1, "shape": "polygon", "x": 0, "y": 0,
                              "points": ring(17)}]}}
    with pytest.raises(ValueError, match=r"tile 1 .*: its collision shape has 17 corners; a "
                                         r"tile's shape may have at most 16"):
        parts(write_map(tmp_path / "m.tmj", [[2]], tiles))
    tiles[1]["objects"][0]["points"] = ring(16)
    (shape,) = parts(write_map(tmp_path / "m.tmj", [[2]], tiles)).shapes.values()
    assert len(shape) == 16


def test_too_many_objects_on_one_tile_are_refused(tmp_path):
    many = [{"id": i, "x": 0, "y": 8, "w": 16, "h": 8} for i in range(65)]
    with pytest.raises(ValueError, match=r"tile 1 .*: it has 65 collision objects \(at most "
                                         r"64\)"):
        parts(write_map(tmp_path / "m.tmj", [[2]], {1: {"objects": many}}))


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_collision_objects_are_read_or_refused_naming_the_file(tmp_path, data):
    """Any field of the tiles' collision objects (and their object groups and the tiles'
    sizes) set to ints huge or negative, floats, NaN, strings, null, lists or tables: the
    layer is read (each shape convex, counter-clockwise, within the tile) or refused with a
    ``ValueError`` naming the file, nothing else."""
    doc = json.loads(write_map(tmp_path / "seed.tmj", LAYER).read_text())
    tiles = doc["tilesets"][0]["tiles"]
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(_paths(tiles)))
        node = tiles
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = copy.deepcopy(data.draw(VALUES))
    path = tmp_path / "fuzz.tmj"
    path.write_text(json.dumps(doc))
    try:
        got = parts(path)
    except ValueError as exc:
        assert "fuzz.tmj" in str(exc)
        return
    for shape in got.shapes.values():
        assert len(shape) >= 3 and _ccw(shape)
        assert all(0.0 <= v <= 1.0 for p in shape for v in p)


# ------------------------------------------------------------------ the TileMap


@pytest.mark.parametrize(("suffix", "external"), FORMATS)
def test_from_tiled_gives_the_tilemap_its_shapes(tmp_path, suffix, external):
    tm = ep.TileMap.from_tiled(write_map(tmp_path / f"m{suffix}", LAYER, external=external),
                               scale=1 / 16)
    assert tm.tile_shapes == {2: SLOPE, 3: HALF, 4: TRI, 5: RIGHT}
    assert tm.grid.tolist()[1] == [4, 5, 3, 0, 0, 0, 0, 0] and tm.tile_size == 1.0


# ------------------------------------------------------------------ maps nobody here made

#: Every tile layer of the maps in tests/data/tiled_third_party, each of which loaded as a
#: TileMap before tiles had shapes (kinds=None)
THIRD_PARTY_TILE_LAYERS = [("arcade/map_with_ladders.json", "Platforms"),
                           ("arcade/map_with_ladders.json", "Ladders"),
                           ("arcade/map_with_ladders.json", "Coins"),
                           ("arcade/map_with_ladders.json", "Background")]
HILL_UP = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0))  # grass tile 15, grassHill_right.png
HILL_DOWN = ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0))  # grass tile 14, grassHill_left.png


def _third_party(tmp_path: Path) -> Path:
    """A copy of tests/data/tiled_third_party (the tests never write there)."""
    dest = tmp_path / "third_party"
    shutil.copytree(THIRD_PARTY, dest)
    return dest


def _tile_layers(folder: Path) -> list[tuple[str, str]]:
    """Every tile layer (groups searched) of every map in ``folder``."""
    ptp = pytest.importorskip("pytiled_parser")
    found = []
    for path in sorted(folder.rglob("*")):
        if path.suffix not in (".json", ".tmx", ".tmj"):
            continue
        try:
            tmap = ptp.parse_map(path)
        except Exception:  # noqa: BLE001 - a tileset or template, not a map
            continue
        found += [(path.relative_to(folder).as_posix(), lay.name)
                  for lay, _, _ in tiled._walk(tmap.layers) if isinstance(lay, ptp.TileLayer)]
    return found


def test_every_third_party_tile_layer_still_loads(tmp_path):
    folder = _third_party(tmp_path)
    assert _tile_layers(folder) == THIRD_PARTY_TILE_LAYERS
    for name, layer in THIRD_PARTY_TILE_LAYERS:
        got = tiled.tile_layer_parts(folder / name, layer, scale=1 / 128)
        assert got.grid.any()
        # only the platforms' hill has shapes: the coins' round hit boxes are left out
        assert got.shapes == ({2: HILL_UP, 3: HILL_DOWN} if layer == "Platforms" else {})


def test_every_third_party_tiles_collision_objects_are_read(tmp_path):
    """Every tile with collision objects in the tilesets nobody here made gives a shape or a
    square, none a refusal: Arcade's coins (ellipses) are squares, its flag a quarter-wide
    strip, its gem and stone half tiles their convex outlines."""
    ptp = pytest.importorskip("pytiled_parser")
    from ecsphys.tiled_shapes import tile_outline

    folder = _third_party(tmp_path)
    seen = {}
    for name in ("arcade/map_with_ladders.json", "arcade/test_objects.json"):
        tmap = ptp.parse_map(folder / name)
        for ts in tmap.tilesets.values():
            for local, tile in (ts.tiles or {}).items():
                if tile.objects is not None:
                    seen[ts.name, local] = tile_outline(tile, ts.tile_height, 128.0)
    assert sorted(seen) == [("dirt", 9), ("dirt", 10), ("dirt", 11), ("dirt", 12),
                            ("grass", 14), ("grass", 15), ("grass", 16), ("items", 0),
                            ("items", 1), ("items", 2), ("items", 3), ("items", 12),
                            ("standard_tileset", 10)]
    assert seen["grass", 14] == HILL_DOWN and seen["grass", 15] == HILL_UP
    assert seen["grass", 16] is None  # a rectangle over the whole tile
    assert seen["items", 0] is seen["items", 1] is seen["items", 2] is None
    assert seen["items", 3] == ((0.0, 0.0), (0.25, 0.0), (0.25, 1.0), (0.0, 1.0))
    top = ((0.0, 0.421875), (1.0, 0.421875), (1.0, 1.0), (0.0, 1.0))  # 74 px from the top
    assert seen["dirt", 10] == seen["dirt", 11] == seen["dirt", 12] == top
    for key in (("dirt", 9), ("items", 12), ("standard_tileset", 10)):
        assert len(seen[key]) in (7, 8) and _ccw(seen[key])


def test_arcades_hill_tiles_are_slopes(tmp_path):
    """map_with_ladders.json, "Platforms": the hill climbs from the floor at column 7 to the
    top at row 12 (grassHill_right, rising) and comes down at column 14 (grassHill_left)."""
    got = tiled.tile_layer_parts(_third_party(tmp_path) / "arcade" / "map_with_ladders.json",
                                 "Platforms", scale=1 / 128)
    assert got.shapes == {2: HILL_UP, 3: HILL_DOWN}
    assert [tuple(c) for c in np.argwhere(got.grid == 2).tolist()] == [(12, 10), (13, 9),
                                                                         (14, 8), (15, 7)]
    assert [tuple(c) for c in np.argwhere(got.grid == 3).tolist()] == [(12, 14)]
    assert set(np.unique(got.grid).tolist()) == {0, 1, 2, 3}


def test_a_walker_walks_over_arcades_hill(tmp_path, world):
    """A ball walking right along the floor (default settings: ``floor_max_angle`` 45) up the
    hill's 45-degree slopes, over its top and down the far side. When the hill's tiles were
    squares it stopped against the first one at x = 6.700."""
    path = _third_party(tmp_path) / "arcade" / "map_with_ladders.json"
    level = ep.TileMap.from_tiled(path, "Platforms", scale=1 / 128)
    assert level.tile_shapes == {2: HILL_UP, 3: HILL_DOWN}
    ep.Physics(fixed_dt=1 / 60)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    walker = esper.create_entity(ep.Position(2.0, 1.3), ep.Velocity(0, 0),
                                 ep.AccelerationMap(gravity=(0, -9.8)), ep.Collider(ep.ACTIVE),
                                 ep.Geometry(ep.Circle(0.3)))
    top = 0.0
    for _ in range(600):
        p = esper.component_for_entity(walker, ep.Position)
        esper.component_for_entity(walker, ep.Velocity).x = 3.0 if p.x < 17.0 else 0.0
        esper.process(1 / 60)
        top = max(top, esper.component_for_entity(walker, ep.Position).y)
    p = esper.component_for_entity(walker, ep.Position)
    assert top > 5.3 - 0.05  # on the hill's top (row 12's top is at y = 5)
    assert 15.3 < p.x < 19.7 and p.y == pytest.approx(1.3, abs=0.02)  # beyond, on the floor
