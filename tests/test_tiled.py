"""Tiled maps through pytiled-parser: tile layers as TileMaps, object layers as static bodies.

Shows: a level written as a Tiled map (``.tmx`` XML and ``.tmj`` JSON; tilesets embedded and
external ``.tsx`` / ``.tsj``) gives, tile for tile, the TileMap of the same level as a text
map; Tiled's y (down) becomes ecsphys's (up), checked by dropping balls on it in a Physics
loop; object layers become bodies of the right shapes, places, sizes and colliders; every
fault is refused with a ValueError naming the file before anything is made; and without
pytiled-parser the readers say which extra to install, while ``import ecsphys`` never needs it.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import quoteattr

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys import tiled
from ecsphys.geometry import point_in

PX = 16  # Tiled pixels a tile
DT = 1 / 60

#: the level as a text map ("#" rock, "^" spikes, "~" a decoration that does not collide)
LEVEL = """\
#..........#
#..........#
#...~...#..#
#..####.#..#
#.......#..#
####^^######"""
#: the same level's gids: tileset "terrain" from gid 1: tile 0 rock (no class), tile 1
#: spikes, tile 2 decoration; then a second tileset "props" from gid 5
GID = {"#": 1, "^": 2, "~": 3, ".": 0}
KINDS = {"": 1, "spikes": 3, "deco": 0}  # as the text map numbers them: "~" 2, "^" 3


# ------------------------------------------------------------------ writing maps


def terrain(tile_key: str = "type", props: bool = False) -> dict:
    """The tileset "terrain": 4 tiles, tile 1 of class spikes, tile 2 of class deco."""
    tiles: dict[int, dict] = {1: {tile_key: "spikes"}, 2: {tile_key: "deco"}}
    if props:  # rock: kind 1, spikes: kind 2, the decoration: none
        tiles[0] = {"properties": [{"name": "kind", "type": "int", "value": 1}]}
        tiles[1]["properties"] = [{"name": "kind", "type": "int", "value": 2}]
    return {"name": "terrain", "tilewidth": PX, "tileheight": PX, "tilecount": 4, "columns": 4,
            "image": "terrain.png", "imagewidth": 4 * PX, "imageheight": PX, "tiles": tiles}


def props_set() -> dict:
    return {"name": "props", "tilewidth": PX, "tileheight": PX, "tilecount": 2, "columns": 2,
            "image": "props.png", "imagewidth": 2 * PX, "imageheight": PX,
            "tiles": {0: {"type": "coin"}}}


def gids(text: str = LEVEL) -> list[list[int]]:
    return [[GID[c] for c in row] for row in text.split("\n")]


def tile_layer(name: str = "walls", data: list[list[int]] | None = None, **extra) -> dict:
    return {"kind": "tile", "name": name, "data": gids() if data is None else data, **extra}


def object_layer(name: str = "objects", objects: list[dict] | None = None, **extra) -> dict:
    return {"kind": "objects", "name": name, "objects": objects or [], **extra}


def write_map(path: Path, layers: list[dict], tilesets: list[tuple[int, dict, str | None]] | None
              = None, size: tuple[int, int] | None = None, tile: tuple[int, int] = (PX, PX),
              **map_extra) -> Path:
    """A Tiled map at ``path`` (``.tmx``: XML, else JSON) as Tiled writes it. ``tilesets``:
    (firstgid, tileset, None for embedded or the external file's name, .tsx or .tsj)."""
    tilesets = [(1, terrain(), None)] if tilesets is None else tilesets
    if size is None:
        first = next((lay["data"] for lay in _tile_layers(layers)), gids())
        size = (len(first[0]), len(first))
    for _, ts, external in tilesets:
        if external:
            (path.parent / external).write_text(
                _tsx(ts) if external.endswith(".tsx") else json.dumps(_tsj(ts)))
    write = _tmx if path.suffix == ".tmx" else _tmj
    path.write_text(write(layers, tilesets, size, tile, map_extra))
    return path


def _tile_layers(layers: list[dict]):
    for lay in layers:
        if lay["kind"] == "tile":
            yield lay
        elif lay["kind"] == "group":
            yield from _tile_layers(lay["layers"])


def _tsj(ts: dict, firstgid: int | None = None) -> dict:
    out = {k: v for k, v in ts.items() if k != "tiles"}
    out.update(margin=0, spacing=0, type="tileset", version="1.10", tiledversion="1.10.2")
    if firstgid is not None:
        out["firstgid"] = firstgid
    out["tiles"] = [{"id": i, **t} for i, t in ts["tiles"].items()]
    return out


def _tmj_object(o: dict) -> dict:
    out = {"id": o["id"], "name": o.get("name", ""), "type": o.get("class", ""),
           "x": o["x"], "y": o["y"], "width": o.get("w", 0), "height": o.get("h", 0),
           "rotation": o.get("rotation", 0), "visible": True}
    shape = o.get("shape", "rect")
    if shape in ("ellipse", "point"):
        out[shape] = True
    elif shape in ("polygon", "polyline"):
        out[shape] = [{"x": x, "y": y} for x, y in o["points"]]
    elif shape == "tile":
        out["gid"] = o["gid"]
    elif shape == "text":
        out["text"] = {"text": "hello", "wrap": True}
    return out


def _tmj_layer(lay: dict, ids: list[int]) -> dict:
    ids[0] += 1
    out = {"id": ids[0], "name": lay["name"], "opacity": 1, "visible": True, "x": 0, "y": 0}
    if "offset" in lay:
        out["offsetx"], out["offsety"] = lay["offset"]
    if lay["kind"] == "tile":
        data = lay["data"]
        out.update(type="tilelayer", width=len(data[0]), height=len(data),
                   data=[g for row in data for g in row])
    elif lay["kind"] == "objects":
        out.update(type="objectgroup", draworder="topdown",
                   objects=[_tmj_object(o) for o in lay["objects"]])
    else:
        out.update(type="group", layers=[_tmj_layer(sub, ids) for sub in lay["layers"]])
    return out


def _tmj(layers, tilesets, size, tile, extra) -> str:
    ids = [0]
    doc = {"compressionlevel": -1, "width": size[0], "height": size[1], "infinite": False,
           "orientation": "orthogonal", "renderorder": "right-down", "tiledversion": "1.10.2",
           "tilewidth": tile[0], "tileheight": tile[1], "type": "map", "version": "1.10",
           "nextobjectid": 100,
           "layers": [_tmj_layer(lay, ids) for lay in layers],
           "tilesets": [{"firstgid": f, "source": ext} if ext else _tsj(ts, f)
                        for f, ts, ext in tilesets]}
    doc["nextlayerid"] = ids[0] + 1
    doc.update(extra)
    return json.dumps(doc, indent=1)


def _props_xml(props: list[dict] | None) -> str:
    if not props:
        return ""
    inner = "".join(f'<property name="{p["name"]}" type="{p["type"]}" value="{p["value"]}"/>'
                    for p in props)
    return f"<properties>{inner}</properties>"


def _tsx_body(ts: dict) -> str:
    tiles = "".join(
        f'<tile id="{i}"' + "".join(f' {k}="{v}"' for k, v in t.items() if k != "properties")
        + f'>{_props_xml(t.get("properties"))}</tile>'
        for i, t in ts["tiles"].items())
    return (f'<image source="{ts["image"]}" width="{ts["imagewidth"]}" '
            f'height="{ts["imageheight"]}"/>{tiles}')


def _tsx_attrs(ts: dict) -> str:
    return (f'name="{ts["name"]}" tilewidth="{ts["tilewidth"]}" '
            f'tileheight="{ts["tileheight"]}" tilecount="{ts["tilecount"]}" '
            f'columns="{ts["columns"]}"')


def _tsx(ts: dict) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<tileset version="1.10" '
            f'tiledversion="1.10.2" {_tsx_attrs(ts)}>{_tsx_body(ts)}</tileset>\n')


def _tmx_object(o: dict) -> str:
    attrs = f'id="{o["id"]}" x="{o["x"]}" y="{o["y"]}"'
    if o.get("name"):
        attrs += f" name={quoteattr(o['name'])}"
    if o.get("class"):
        attrs += f' type="{o["class"]}"'
    if "w" in o:
        attrs += f' width="{o["w"]}" height="{o["h"]}"'
    if o.get("rotation"):
        attrs += f' rotation="{o["rotation"]}"'
    shape = o.get("shape", "rect")
    if shape == "tile":
        return f'<object {attrs} gid="{o["gid"]}"/>'
    inner = {"rect": "", "ellipse": "<ellipse/>", "point": "<point/>",
             "text": '<text wrap="1">hello</text>'}.get(shape)
    if inner is None:
        pts = " ".join(f"{x},{y}" for x, y in o["points"])
        inner = f'<{shape} points="{pts}"/>'
    return f"<object {attrs}>{inner}</object>"


def _tmx_layer(lay: dict, ids: list[int]) -> str:
    ids[0] += 1
    attrs = f'id="{ids[0]}" name="{lay["name"]}"'
    if "offset" in lay:
        attrs += f' offsetx="{lay["offset"][0]}" offsety="{lay["offset"][1]}"'
    if lay["kind"] == "tile":
        data = lay["data"]
        csv = ",\n".join(",".join(str(g) for g in row) for row in data)
        return (f'<layer {attrs} width="{len(data[0])}" height="{len(data)}">'
                f'<data encoding="csv">\n{csv}\n</data></layer>')
    if lay["kind"] == "objects":
        return f'<objectgroup {attrs}>{"".join(map(_tmx_object, lay["objects"]))}</objectgroup>'
    inner = "".join(_tmx_layer(sub, ids) for sub in lay["layers"])
    return f"<group {attrs}>{inner}</group>"


def _tmx(layers, tilesets, size, tile, extra) -> str:
    ids = [0]
    body = "".join(_tmx_layer(lay, ids) for lay in layers)
    sets = "".join(
        f'<tileset firstgid="{f}" source="{ext}"/>' if ext
        else f'<tileset firstgid="{f}" {_tsx_attrs(ts)}>{_tsx_body(ts)}</tileset>'
        for f, ts, ext in tilesets)
    attrs = {"version": "1.10", "tiledversion": "1.10.2", "orientation": "orthogonal",
             "renderorder": "right-down", "width": size[0], "height": size[1],
             "tilewidth": tile[0], "tileheight": tile[1], "infinite": 0,
             "nextlayerid": ids[0] + 1, "nextobjectid": 100, **extra}
    head = " ".join(f'{k}="{v}"' for k, v in attrs.items())
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<map {head}>{sets}{body}</map>\n'


FORMATS = [  # (map suffix, external tileset file or None, the key tiles' classes are under)
    pytest.param(".tmx", None, "type", id="tmx-embedded"),
    pytest.param(".tmx", "terrain.tsx", "class", id="tmx-external-tsx"),
    pytest.param(".tmj", None, "class", id="tmj-embedded"),
    pytest.param(".tmj", "terrain.tsj", "type", id="tmj-external-tsj"),
]


def level_map(tmp_path: Path, suffix: str, external: str | None = None, key: str = "type",
              layers: list[dict] | None = None, **kw) -> Path:
    tilesets = [(1, terrain(key), external), (5, props_set(), None)]
    layers = [tile_layer(), object_layer()] if layers is None else layers
    return write_map(tmp_path / f"level{suffix}", layers, tilesets, **kw)


def count_bodies() -> int:
    return len(esper.get_component(ep.Collider))


# ------------------------------------------------------------------ tile layers


@pytest.mark.parametrize(("suffix", "external", "key"), FORMATS)
def test_a_tile_layer_is_the_text_maps_tilemap_tile_for_tile(tmp_path, suffix, external, key):
    path = level_map(tmp_path, suffix, external, key)
    got = ep.TileMap.from_tiled(path, "walls", kinds=KINDS, scale=1 / PX)
    want = ep.TileMap(LEVEL, 1.0)
    assert want.kinds == {"#": 1, "~": 2, "^": 3}
    want[2, 4] = 0  # the decoration ("~") is kind 0 in KINDS: empty
    assert got.same_tiles(want)
    assert got.grid[5, 4] == got.grid[5, 5] == 3 and got.grid[2, 4] == 0
    assert got.tile_size == 1.0 and got.origin == (0.0, 0.0)
    # without kinds every tile is solid kind 1 (the decoration too), a tile Tiled's pixels
    plain = ep.TileMap.from_tiled(path, "walls")
    assert plain.same_tiles(ep.TileMap(LEVEL.replace("^", "#").replace("~", "#"), 16.0))


def test_tmx_and_tmj_of_the_same_level_give_the_same_tiles(tmp_path):
    a = ep.TileMap.from_tiled(level_map(tmp_path, ".tmx"), kinds=KINDS)
    b = ep.TileMap.from_tiled(level_map(tmp_path, ".tmj"), kinds=KINDS)
    assert a.same_tiles(b) and a.tile_size == 16.0


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_kind_property_maps_tiles_by_their_custom_property(tmp_path, suffix):
    ts = terrain(props=True)
    path = write_map(tmp_path / f"p{suffix}", [tile_layer(data=gids(LEVEL.replace("~", ".")))],
                     [(1, ts, None)])
    # kind_property alone: the property's int value is the kind
    got = ep.TileMap.from_tiled(path, kind_property="kind", scale=1 / PX)
    assert got.same_tiles(ep.TileMap(LEVEL.replace("~", "."), 1.0))
    # with kinds: the property's value is the key
    got = ep.TileMap.from_tiled(path, kinds={1: 7, 2: 9}, kind_property="kind")
    assert got.grid[0, 0] == 7 and got.grid[5, 4] == 9


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_flipped_and_rotated_tiles_collide_as_their_square(tmp_path, suffix):
    data = gids()
    flips = [0x80000000, 0x40000000, 0x20000000, 0xA0000000]
    data[5][4] |= flips[0]  # a spike drawn mirrored
    data[5][5] |= flips[3]  # and one turned
    for i, f in enumerate(flips):
        data[5][6 + i] |= f
    path = level_map(tmp_path, suffix, layers=[tile_layer(data=data)])
    got = ep.TileMap.from_tiled(path, kinds=KINDS)
    (tmp_path / "plain").mkdir()
    plain = ep.TileMap.from_tiled(level_map(tmp_path / "plain", suffix), kinds=KINDS)
    assert got.same_tiles(plain)


def test_origin_scale_and_the_y_flip_place_tiles_where_balls_land(tmp_path, world):
    """Balls dropped over three columns land on the tops Tiled shows there: the pillar at
    column 8 (its top at row 2), the ledge at columns 3-6 (row 3) and the floor (row 5)."""
    path = level_map(tmp_path, ".tmj")
    origin, scale = (-40.0, 7.5), 0.5 / PX  # tiles of 0.5, the map's bottom-left at origin
    level = ep.TileMap.from_tiled(path, kinds=KINDS, scale=scale, origin=origin)
    assert level.tile_box(5, 0) == (-40.0, 7.5, -39.5, 8.0)  # bottom row at the origin
    assert level.tile_box(0, 0) == (-40.0, 10.0, -39.5, 10.5)  # top row 6 tiles up
    ep.Physics(fixed_dt=DT)  # registers its processor in the world
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    r = 0.2
    balls = {}
    for col, top_row in ((8, 2), (4, 3), (10, 5)):
        x = origin[0] + (col + 0.5) * 0.5
        balls[esper.create_entity(
            ep.Position(x, 11.5), ep.Velocity(0, 0), ep.AccelerationMap(gravity=(0, -10)),
            ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(r)))] = (x, top_row)
    for _ in range(150):
        esper.process(DT)
    for ball, (x, top_row) in balls.items():
        pos = esper.component_for_entity(ball, ep.Position)
        top = origin[1] + (6 - top_row) * 0.5  # the map has 6 rows
        assert pos.y == pytest.approx(top + r, abs=0.02), (x, top_row)
        assert pos.x == pytest.approx(x, abs=1e-6)
        assert level.cell_at(pos.x, pos.y - r - 0.01) == (top_row, round((x - origin[0]) / 0.5
                                                                         - 0.5))


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_layer_offsets_and_groups_are_found_and_added(tmp_path, suffix, world):
    inner = tile_layer("walls", offset=(16, -32))
    things = object_layer(objects=OBJECTS[:1], offset=(0, 8))
    path = level_map(tmp_path, suffix, layers=[
        {"kind": "group", "name": "level", "layers": [inner, things], "offset": (8, 0)}])
    got = ep.TileMap.from_tiled(path, kinds=KINDS, scale=1 / PX, origin=(1, 1))
    assert got.origin == (1 + 24 / PX, 1 + 32 / PX)  # right 24 px; Tiled's up 32 px is +y
    (floor,) = tiled.add_objects(path, scale=1 / PX, origin=(1, 1))
    # the rectangle's centre (56, 24) px, moved 8 px right and 8 px down by its layers
    assert body(floor)[0] == (1 + 64 / PX, 1 + (6 * PX - 32) / PX)


# ------------------------------------------------------------------ object layers


OBJECTS = [
    {"id": 1, "name": "floor", "x": 32, "y": 16, "w": 48, "h": 16},
    {"id": 2, "class": "shelf", "x": 0, "y": 0, "w": 32, "h": 8, "rotation": 90},
    {"id": 3, "x": 96, "y": 32, "w": 32, "h": 16, "rotation": 30},
    {"id": 4, "class": "coin", "shape": "ellipse", "x": 64, "y": 48, "w": 16, "h": 16},
    {"id": 5, "shape": "polygon", "x": 100, "y": 80, "points": [(0, 0), (48, 0), (48, -24)]},
    {"id": 6, "shape": "polygon", "x": 0, "y": 96,  # an L: concave
     "points": [(0, 0), (48, 0), (48, -16), (16, -16), (16, -48), (0, -48)]},
    {"id": 7, "shape": "polyline", "x": 10, "y": 20, "points": [(0, 0), (20, 0), (20, 30)]},
    {"id": 8, "shape": "tile", "gid": 5, "x": 160, "y": 64, "w": 16, "h": 16},
]


def body(entity: int) -> tuple[tuple[float, float], ep.Shape, ep.Collider]:
    pos = esper.component_for_entity(entity, ep.Position)
    return ((pos.x, pos.y), esper.component_for_entity(entity, ep.Geometry).shape,
            esper.component_for_entity(entity, ep.Collider))


def world_box(entity: int) -> tuple[float, float, float, float]:
    (x, y), shape, _ = body(entity)
    x0, y0, x1, y1 = shape.bounds()
    return (x + x0, y + y0, x + x1, y + y1)


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_objects_become_static_bodies_of_their_shapes_in_place(tmp_path, suffix, world):
    path = level_map(tmp_path, suffix, layers=[tile_layer(), object_layer(objects=OBJECTS)])
    height = 6 * PX  # the map is 96 px high: Tiled's y = 96 is the world's y = origin.y
    colliders = {"": ep.Collider(ep.STATIC, friction=0.6),
                 "shelf": ep.Collider(ep.STATIC, one_way=(0, 1)),
                 "coin": ep.Collider(ep.STATIC, sensor=True)}
    ids = tiled.add_objects(path, "objects", colliders, origin=(100, 200))
    assert len(ids) == len(OBJECTS) == count_bodies()
    floor, shelf, turned, coin, tri, ell, line, prop = ids
    # a rectangle: its centre, Tiled's y flipped
    (pos, shape, col) = body(floor)
    assert pos == (100 + 56, 200 + height - 24) and shape == ep.Rect(48, 16)
    assert col == ep.Collider(ep.STATIC, friction=0.6)
    # turned 90 degrees clockwise about its top-left corner: it hangs down left of (0, 0)
    (pos, shape, col) = body(shelf)
    assert shape == ep.Rect(8, 32) and world_box(shelf) == (92, 200 + height - 32, 100,
                                                            200 + height)
    assert col.one_way == (0.0, 1.0) and not col.sensor
    # turned 30 degrees: an OrientedRect whose corners are Tiled's corners
    (pos, shape, col) = body(turned)
    assert isinstance(shape, ep.OrientedRect) and shape.angle == -30
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    corners = [(96 + u * c - v * s, 32 + u * s + v * c) for u, v in
               ((0, 0), (32, 0), (32, 16), (0, 16))]
    world = [(100 + x, 200 + height - y) for x, y in corners]
    for p in world:  # every corner on the shape's outline: inside a hair out, not beyond
        assert point_in(shape, pos, (p[0] + 0.01 * (pos[0] - p[0]), p[1] + 0.01 * (pos[1] - p[1])))
        assert not point_in(shape, pos, (p[0] - 0.01 * (pos[0] - p[0]),
                                         p[1] - 0.01 * (pos[1] - p[1])))
    # a circle from an ellipse of equal sides; a sensor by its class
    (pos, shape, col) = body(coin)
    assert pos == (100 + 72, 200 + height - 56) and shape == ep.Circle(8) and col.sensor
    # a convex polygon: a Polygon of the points, flipped
    (pos, shape, _) = body(tri)
    assert isinstance(shape, ep.Polygon)
    got = sorted((round(pos[0] + x, 9), round(pos[1] + y, 9)) for x, y in shape.points)
    assert got == sorted([(200, 216), (248, 216), (248, 240)])
    # a concave polygon: convex pieces covering the L, not its notch
    (pos, shape, _) = body(ell)
    assert isinstance(shape, ep.Compound) and len(shape.shapes) == 2
    assert world_box(ell) == (100, 200, 148, 248)
    assert point_in(shape, pos, (105, 245)) and point_in(shape, pos, (145, 205))
    assert not point_in(shape, pos, (140, 240))  # the notch
    # a polyline: its segments, end to end
    (pos, shape, _) = body(line)
    segs = [((pos[0] + s.p1[0], pos[1] + s.p1[1]), (pos[0] + s.p2[0], pos[1] + s.p2[1]))
            for s in shape.shapes]
    assert segs == [((110, 276), (130, 276)), ((130, 276), (130, 246))]
    # a tile object: a box of its size standing on its (x, y) (bottom-left alignment)
    assert world_box(prop) == (260, 200 + height - 64, 276, 200 + height - 48)
    assert body(prop)[2].sensor  # its tile's class "coin" is inherited


def test_objects_meet_the_tiles_where_tiled_shows_them(tmp_path, world):
    """A box drawn in Tiled on the ledge (row 3, columns 3-6): a ball dropped on it rests on
    the box, which rests on the ledge's top."""
    objs = [{"id": 1, "x": 4 * PX, "y": 2 * PX, "w": 2 * PX, "h": PX}]
    path = level_map(tmp_path, ".tmx", layers=[tile_layer(), object_layer(objects=objs)])
    physics = ep.Physics(fixed_dt=DT)
    level = ep.TileMap.from_tiled(path, kinds=KINDS, scale=1 / PX, origin=(3, 4))
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    (box,) = tiled.add_objects(path, scale=1 / PX, origin=(3, 4))
    x0, y0, x1, y1 = world_box(box)
    # over columns 4-5, standing on the ledge's top
    assert (x0, y0, x1) == (level.tile_box(3, 4)[0], level.tile_box(3, 4)[3],
                            level.tile_box(3, 5)[2])
    ball = esper.create_entity(ep.Position(x0 + 1, 12), ep.Velocity(0, 0),
                               ep.AccelerationMap(gravity=(0, -10)), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(0.25)))
    for _ in range(120):
        esper.process(DT)
    assert esper.component_for_entity(ball, ep.Position).y == pytest.approx(y1 + 0.25, abs=0.02)
    assert physics.touching(ball) == [box]


def test_one_collider_is_copied_for_every_object(tmp_path, world):
    path = level_map(tmp_path, ".tmj", layers=[object_layer(objects=OBJECTS[:2])])
    template = ep.Collider(ep.STATIC, friction=0.3, layer=4)
    a, b = tiled.add_objects(path, collider=template)
    ca, cb = body(a)[2], body(b)[2]
    assert ca == cb == template and ca is not cb and ca is not template
    for e in tiled.add_objects(path):  # None: Collider(STATIC) for each
        assert body(e)[2] == ep.Collider(ep.STATIC)
    assert count_bodies() == 4


# ------------------------------------------------------------------ refusals


def test_a_missing_file_is_file_not_found_naming_it(tmp_path):
    missing = tmp_path / "nope.tmx"
    with pytest.raises(FileNotFoundError, match="nope.tmx"):
        ep.TileMap.from_tiled(missing)
    with pytest.raises(FileNotFoundError, match="nope.tmx"):
        tiled.add_objects(missing)


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_missing_external_tileset_is_file_not_found_naming_it(tmp_path, suffix):
    path = level_map(tmp_path, suffix, "terrain.tsj")
    (tmp_path / "terrain.tsj").unlink()
    with pytest.raises(FileNotFoundError, match="terrain.tsj"):
        ep.TileMap.from_tiled(path, kinds=KINDS)


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_missing_layer_names_it_and_the_layers_there_are(tmp_path, suffix, world):
    path = level_map(tmp_path, suffix)
    with pytest.raises(ValueError, match=r"level\.tm.: no layer named 'wall'; the map's layers "
                                         r"are 'walls' \(tile layer\), 'objects' \(object"):
        ep.TileMap.from_tiled(path, "wall", kinds=KINDS)
    with pytest.raises(ValueError, match="no layer named 'things'"):
        tiled.add_objects(path, "things")


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_layer_of_the_wrong_type_says_what_it_is(tmp_path, suffix, world):
    path = level_map(tmp_path, suffix)
    with pytest.raises(ValueError, match="layer 'objects' is an object layer, not a tile layer"):
        ep.TileMap.from_tiled(path, "objects")
    with pytest.raises(ValueError, match="layer 'walls' is a tile layer, not an object layer"):
        tiled.add_objects(path, "walls")


def test_two_layers_of_one_name_are_refused(tmp_path):
    path = level_map(tmp_path, ".tmj", layers=[tile_layer(), tile_layer()])
    with pytest.raises(ValueError, match="2 layers are named 'walls'"):
        ep.TileMap.from_tiled(path)


def test_an_infinite_map_is_refused(tmp_path):
    path = tmp_path / "inf.tmj"
    chunk = {"x": 0, "y": 0, "width": 16, "height": 16, "data": [1] * 256}
    doc = json.loads(_tmj([tile_layer()], [(1, terrain(), None)], (12, 6), (PX, PX), {}))
    doc["infinite"] = True
    layer = doc["layers"][0]
    del layer["data"]
    layer.update(chunks=[chunk], startx=0, starty=0)
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"inf\.tmj: infinite maps are not supported"):
        ep.TileMap.from_tiled(path)
    with pytest.raises(ValueError, match="infinite maps are not supported"):
        tiled.add_objects(path, "walls")


def test_non_square_tiles_and_non_orthogonal_maps_are_refused(tmp_path):
    path = level_map(tmp_path, ".tmx", tile=(16, 8))
    with pytest.raises(ValueError, match=r"level\.tmx: tiles must be square .* 16 x 8 px"):
        ep.TileMap.from_tiled(path)
    path = level_map(tmp_path, ".tmj", orientation="isometric")
    with pytest.raises(ValueError, match="only orthogonal maps .* 'isometric'"):
        ep.TileMap.from_tiled(path)


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_tile_without_a_kind_is_refused_naming_it_and_where(tmp_path, suffix):
    path = level_map(tmp_path, suffix)
    with pytest.raises(ValueError, match=r"tile layer 'walls', tile \(row 5, col 4\): tile 1 "
                                         r"of tileset 'terrain' \(class 'spikes'\): kinds has "
                                         r"no entry"):
        ep.TileMap.from_tiled(path, kinds={"": 1, "deco": 0})
    with pytest.raises(ValueError, match=r"\(row 0, col 0\): tile 0 .*\(no class\).*tiles "
                                         r"without one have the key ''"):
        ep.TileMap.from_tiled(path, kinds={"spikes": 2, "deco": 0})
    with pytest.raises(ValueError, match=r"\(no property 'kind'\): its 'kind' property must "
                                         r"be an int"):
        ep.TileMap.from_tiled(path, kind_property="kind")


def test_gids_beyond_the_tilesets_and_layers_of_the_wrong_size_are_refused(tmp_path):
    data = gids()
    data[1][1] = 9  # tilesets: terrain 1-4, props 5-6
    path = level_map(tmp_path, ".tmj", layers=[tile_layer(data=data)])
    with pytest.raises(ValueError, match=r"\(row 1, col 1\): gid 9 is tile 4 of tileset "
                                         r"'props', which has 2 tiles"):
        ep.TileMap.from_tiled(path)
    path = level_map(tmp_path, ".tmj", layers=[tile_layer()], size=(12, 7))
    with pytest.raises(ValueError, match="must hold the map's 7 rows of 12 tiles, got 6 rows"):
        ep.TileMap.from_tiled(path)


def test_a_layer_with_no_solid_tile_is_refused(tmp_path):
    path = level_map(tmp_path, ".tmx", layers=[tile_layer(data=gids(LEVEL.replace("#", ".")
                                                                     .replace("^", ".")))])
    with pytest.raises(ValueError, match="'walls' has no solid tile"):
        ep.TileMap.from_tiled(path, kinds=KINDS)  # only the decoration, which is kind 0


@pytest.mark.parametrize("text", ["", "hello", "<map>", '{"width": 3}', "[1, 2]"])
def test_a_file_that_is_no_map_is_a_value_error_naming_it(tmp_path, text, world):
    path = tmp_path / "junk.tmj"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"junk\.tmj: not a Tiled map pytiled-parser can read"):
        ep.TileMap.from_tiled(path)
    with pytest.raises(ValueError, match=r"junk\.tmj: not a Tiled map"):
        tiled.add_objects(path)


@pytest.mark.parametrize(("obj", "why"), [
    ({"id": 9, "shape": "ellipse", "x": 5, "y": 5, "w": 40, "h": 10},
     "object 9: it is an ellipse of 40 x 10 px; only circles"),
    ({"id": 9, "x": 5, "y": 5, "w": 0, "h": 0}, "object 9: Rect.width"),
    ({"id": 9, "class": "lava", "x": 5, "y": 5, "w": 4, "h": 4},
     r"object 9: its class 'lava' is not in collider \(which maps '', 'coin', 'shelf'\)"),
    ({"id": 9, "shape": "polygon", "x": 0, "y": 0,
      "points": [(0, 0), (10, 10), (10, 0), (0, 10)]}, "object 9: .*self-intersecting"),
    ({"id": 9, "shape": "polyline", "x": 0, "y": 0, "points": [(i, i % 2) for i in range(2100)]},
     "object 9: its points must be a list of 1 to 2048, got 2100"),
])
@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_an_object_without_a_body_is_refused_before_any_is_made(tmp_path, suffix, obj, why,
                                                                 world):
    objs = [*OBJECTS[:4], obj]  # good objects first: none of them may be created
    path = level_map(tmp_path, suffix, layers=[object_layer(objects=objs)])
    colliders = {"": ep.Collider(ep.STATIC), "coin": ep.Collider(ep.STATIC, sensor=True),
                 "shelf": ep.Collider(ep.STATIC)}
    with pytest.raises(ValueError, match=rf"level\.tm.: object layer 'objects', {why}"):
        tiled.add_objects(path, collider=colliders)
    assert count_bodies() == 0


def test_bad_arguments_are_refused_naming_them(tmp_path):
    path = level_map(tmp_path, ".tmj")
    with pytest.raises(TypeError, match="kinds must be a mapping"):
        ep.TileMap.from_tiled(path, kinds=["spikes"])
    with pytest.raises(TypeError, match=r"kinds\['spikes'\] must be an int kind"):
        ep.TileMap.from_tiled(path, kinds={"spikes": True})
    with pytest.raises(ValueError, match=r"kinds\['spikes'\] must be from 0"):
        ep.TileMap.from_tiled(path, kinds={"spikes": -1})
    with pytest.raises(ValueError, match="scale must be positive"):
        ep.TileMap.from_tiled(path, scale=0)
    with pytest.raises(TypeError, match="layer must be a layer's name"):
        ep.TileMap.from_tiled(path, 3)
    with pytest.raises(TypeError, match="path must be a str or os.PathLike"):
        ep.TileMap.from_tiled(42)
    with pytest.raises(ValueError, match=r"collider\['x'\] must be a STATIC Collider"):
        tiled.add_objects(path, collider={"x": ep.Collider(ep.PASSIVE)})
    with pytest.raises(TypeError, match="collider must be a Collider, a mapping"):
        tiled.add_objects(path, collider="static")
    with pytest.raises(ValueError, match="origin"):
        tiled.add_objects(path, origin=(math.nan, 0))


# ------------------------------------------------------------------ the extra


def test_without_pytiled_parser_the_readers_name_the_extra(tmp_path, monkeypatch):
    path = level_map(tmp_path, ".tmj")
    monkeypatch.setitem(sys.modules, "pytiled_parser", None)
    with pytest.raises(ImportError, match=r'pip install "ecsphys\[tiled\]"'):
        ep.TileMap.from_tiled(path)
    with pytest.raises(ImportError, match=r'pip install "ecsphys\[tiled\]"'):
        tiled.add_objects(path)


def test_importing_ecsphys_does_not_import_pytiled_parser():
    code = ("import sys, ecsphys, ecsphys.tiled; "
            "assert 'pytiled_parser' not in sys.modules, 'imported'; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "ok", done.stderr[-1000:]


def test_the_grid_is_an_int_array_like_any_tilemaps(tmp_path):
    got = ep.TileMap.from_tiled(level_map(tmp_path, ".tmx"), kinds=KINDS)
    assert got.grid.dtype == np.int32 and got.shape == (6, 12)


def test_the_readme_example_runs_on_a_map_of_that_shape(tmp_path, monkeypatch, world):
    """The README's Tiled example, run as written beside a level.tmj with its layers."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = re.search(r"\*\*Tiled maps\*\*.*?```python\n(.*?)```", text, re.S).group(1)
    code = "\n".join(line.removeprefix("  ") for line in block.splitlines())
    ts = {**terrain(), "tiles": {0: {"type": "rock"}, 1: {"type": "spikes"}}}
    coins = [{"id": i, "shape": "ellipse", "x": 16 * i, "y": 16, "w": 8, "h": 8}
             for i in (1, 2, 3)]
    write_map(tmp_path / "level.tmj", [tile_layer(data=gids(LEVEL.replace("~", "."))),
                                       object_layer("coins", coins)], [(1, ts, None)])
    monkeypatch.chdir(tmp_path)
    scope: dict[str, object] = {"ep": ep, "esper": esper}
    exec(compile(code, "README Tiled example", "exec"), scope)
    assert scope["level"].same_tiles(ep.TileMap(LEVEL.replace("~", "."), 1.0))
    assert len(scope["coins"]) == 3 and count_bodies() == 4
    assert esper.component_for_entity(scope["coins"][0], ep.Position).y == pytest.approx(
        6 - 20 / 16)  # Tiled's y = 20 px (the circle's centre) is 1.25 below the map's top
