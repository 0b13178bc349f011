"""What the level designer typed: every entity ``tiled.add_objects`` makes carries a
``tiled.TiledObject`` (id, name, class, kind, custom properties), and point and text objects
are markers (a Position, no body) instead of being refused.

Shows: on maps written here (``.tmx`` and ``.tmj``, with object templates and an external
tileset) each object's name, class, kind and properties come through, a template's and a
tile's properties merged under the object's own as Tiled merges them, and a tile object
without a class takes its tile's; markers sit where Tiled shows them in world units (scale,
origin, layer offsets and a text's rotation), on the tile map's grid; a layer mixing markers
and shapes makes bodies of the shapes only; property input Tiled could not have written is
refused naming the file, layer, object and property, and nothing is made. On maps nobody here
made (Arcade's and pytiled-parser's own) the same: their points, texts, tile objects,
templates and properties read as their authors wrote them.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path
from xml.sax.saxutils import quoteattr

import esper
import pytest
from test_tiled import LEVEL, PX, level_map, object_layer, tile_layer

import ecsphys as ep
from ecsphys import tiled
from ecsphys.tiled import TiledObject

W, H = 8, 6  # the maps written here: 8 x 6 tiles of 16 px, so 128 x 96 px
THIRD_PARTY = Path(__file__).resolve().parent / "data" / "tiled_third_party"
DT = 1 / 60


# ------------------------------------------------------------------ writing maps

# A property is written as Tiled writes it: (name, type, value), the value as in the file
# (a color "#AARRGGBB", a file a relative path, a class value a table of its members).

#: The tileset "things" (an external file beside the map): tile 0 a coin, tile 1 a crate.
THINGS_TILES = {
    0: {"class": "coin", "properties": [("value", "int", 1), ("shine", "bool", True),
                                        ("sound", "file", "sfx/coin.wav"),
                                        ("from", "string", "tile")]},
    1: {"class": "crate", "properties": [("solid", "bool", True)]},
}
#: The templates (beside the map): a door (a rectangle) and a coin (a tile object of tile 0).
TEMPLATES = {
    "door": {"class": "door", "w": 16, "h": 32,
             "properties": [("locked", "bool", True), ("to", "string", "level2"),
                            ("key", "string", "red")]},
    "coin": {"gid": 1, "w": 16, "h": 16, "name": "a coin",
             "properties": [("value", "int", 5), ("from", "string", "template"),
                            ("spin", "float", 0.25)]},
}


def _tmx_props(props) -> str:
    if not props:
        return ""
    out = []
    for name, kind, value in props:
        if kind == "bool":
            value = "true" if value else "false"
        typ = "" if kind == "string" else f' type="{kind}"'
        out.append(f"<property name={quoteattr(name)}{typ} value={quoteattr(str(value))}/>")
    return f"<properties>{''.join(out)}</properties>"


def _tmj_props(props) -> list[dict]:
    out = []
    for name, kind, value in props or ():
        prop = {"name": name, "type": kind, "value": value}
        if kind == "class":
            prop["propertytype"] = "Stats"
        out.append(prop)
    return out


def _tmx_object(o: dict) -> str:
    attrs = f'id="{o["id"]}"'
    if "template" in o:
        attrs += f' template="{o["template"]}.tx"'
    if "name" in o:
        attrs += f" name={quoteattr(o['name'])}"
    if o.get("class"):
        attrs += f' type="{o["class"]}"'
    if "gid" in o:
        attrs += f' gid="{o["gid"]}"'
    if "x" in o:
        attrs += f' x="{o["x"]}" y="{o["y"]}"'
    if "w" in o:
        attrs += f' width="{o["w"]}" height="{o["h"]}"'
    if o.get("rotation"):
        attrs += f' rotation="{o["rotation"]}"'
    shape = o.get("shape", "rect")
    inner = {"rect": "", "tile": "", "template": "", "ellipse": "<ellipse/>",
             "point": "<point/>", "text": '<text wrap="1">Press E</text>'}.get(shape)
    if inner is None:
        pts = " ".join(f"{x},{y}" for x, y in o["points"])
        inner = f'<{shape} points="{pts}"/>'
    return f"<object {attrs}>{_tmx_props(o.get('properties'))}{inner}</object>"


def _tmj_object(o: dict) -> dict:
    if "template" in o:  # Tiled writes a template's instance with only what it changes
        out = {"id": o["id"], "template": f'{o["template"]}.tj', "x": o["x"], "y": o["y"]}
        if "name" in o:
            out["name"] = o["name"]
    else:
        out = {"id": o["id"], "name": o.get("name", ""), "type": o.get("class", ""),
               "x": o["x"], "y": o["y"], "width": o.get("w", 0), "height": o.get("h", 0),
               "rotation": o.get("rotation", 0), "visible": True}
    shape = o.get("shape", "rect")
    if shape in ("ellipse", "point"):
        out[shape] = True
    elif shape in ("polygon", "polyline"):
        out[shape] = [{"x": x, "y": y} for x, y in o["points"]]
    elif shape == "text":
        out["text"] = {"text": "Press E", "wrap": True}
    if "gid" in o:
        out["gid"] = o["gid"]
    if "properties" in o:
        props = o["properties"]  # a table (the old form) or a list, as written or as tuples
        out["properties"] = props if isinstance(props, dict) or isinstance(
            props[0], dict) else _tmj_props(props)
    return out


def _tileset_files(folder: Path, tiles: dict) -> None:
    """things.tsx and things.tsj: 4 tiles of 16 px."""
    head = {"name": "things", "tilewidth": PX, "tileheight": PX, "tilecount": 4, "columns": 4}
    xml_tiles = "".join(
        f'<tile id="{i}" type="{t["class"]}">{_tmx_props(t.get("properties"))}</tile>'
        for i, t in tiles.items())
    attrs = " ".join(f'{k}="{v}"' for k, v in head.items())
    (folder / "things.tsx").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<tileset version="1.10" '
        f'tiledversion="1.10.2" {attrs}><image source="things.png" width="64" height="16"/>'
        f"{xml_tiles}</tileset>\n")
    tsj = {**head, "image": "things.png", "imagewidth": 64, "imageheight": PX, "margin": 0,
           "spacing": 0, "type": "tileset", "version": "1.10", "tiledversion": "1.10.2",
           "tiles": [{"id": i, "type": t["class"], "properties": _tmj_props(t["properties"])}
                     for i, t in tiles.items()]}
    (folder / "things.tsj").write_text(json.dumps(tsj))


def _template_files(folder: Path) -> None:
    for name, t in TEMPLATES.items():
        attrs = "".join(f' {k}="{t[v]}"' for k, v in (("name", "name"), ("type", "class"),
                                                      ("gid", "gid"), ("width", "w"),
                                                      ("height", "h")) if v in t)
        tileset = '<tileset firstgid="1" source="things.tsx"/>' if "gid" in t else ""
        (folder / f"{name}.tx").write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<template>{tileset}<object{attrs}>'
            f"{_tmx_props(t['properties'])}</object></template>\n")
        obj = {"name": t.get("name", ""), "type": t.get("class", ""), "width": t["w"],
               "height": t["h"], "rotation": 0, "visible": True,
               "properties": _tmj_props(t["properties"])}
        doc = {"type": "template", "object": obj}
        if "gid" in t:
            obj["gid"] = t["gid"]
            doc["tileset"] = {"firstgid": 1, "source": "things.tsj"}
        (folder / f"{name}.tj").write_text(json.dumps(doc))


def write_map(path: Path, layers: dict[str, list[dict]], offsets: dict | None = None,
              tiles: dict | None = None) -> Path:
    """A map at ``path`` (``.tmx`` or ``.tmj``) of object layers (name -> objects), with
    the tileset "things" from gid 1 in an external file and the templates beside it."""
    offsets = offsets or {}
    _tileset_files(path.parent, THINGS_TILES if tiles is None else tiles)
    _template_files(path.parent)
    if path.suffix == ".tmx":
        body = ""
        for i, (name, objs) in enumerate(layers.items(), 1):
            off = (f' offsetx="{offsets[name][0]}" offsety="{offsets[name][1]}"'
                   if name in offsets else "")
            body += (f'<objectgroup id="{i}" name="{name}"{off}>'
                     f'{"".join(map(_tmx_object, objs))}</objectgroup>')
        path.write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<map version="1.10" tiledversion="1.10.2" '
            f'orientation="orthogonal" renderorder="right-down" width="{W}" height="{H}" '
            f'tilewidth="{PX}" tileheight="{PX}" infinite="0" nextlayerid="9" '
            f'nextobjectid="99"><tileset firstgid="1" source="things.tsx"/>{body}</map>\n')
        return path
    doc = {"type": "map", "version": "1.10", "tiledversion": "1.10.2", "width": W,
           "height": H, "tilewidth": PX, "tileheight": PX, "infinite": False,
           "orientation": "orthogonal", "renderorder": "right-down", "nextlayerid": 9,
           "nextobjectid": 99, "tilesets": [{"firstgid": 1, "source": "things.tsj"}],
           "layers": []}
    for i, (name, objs) in enumerate(layers.items(), 1):
        lay = {"id": i, "name": name, "type": "objectgroup", "draworder": "topdown",
               "opacity": 1, "visible": True, "x": 0, "y": 0,
               "objects": [_tmj_object(o) for o in objs]}
        if name in offsets:
            lay["offsetx"], lay["offsety"] = offsets[name]
        doc["layers"].append(lay)
    path.write_text(json.dumps(doc))  # NaN and Infinity written as JSON's readers take them
    return path


def made() -> int:
    """Entities in the world (every one add_objects makes has a TiledObject and a Position)."""
    return len(esper.get_component(TiledObject)) + len(esper.get_component(ep.Position))


def info(entity: int) -> TiledObject:
    return esper.component_for_entity(entity, TiledObject)


def position(entity: int) -> tuple[float, float]:
    pos = esper.component_for_entity(entity, ep.Position)
    return pos.x, pos.y


def is_marker(entity: int) -> bool:
    """A Position and a TiledObject only: no Collider, no Geometry."""
    return {type(c) for c in esper.components_for_entity(entity)} == {ep.Position, TiledObject}


def is_body(entity: int) -> bool:
    return ({type(c) for c in esper.components_for_entity(entity)}
            == {ep.Position, ep.Collider, ep.Geometry, TiledObject})


# ------------------------------------------------------------------ what comes through

SCALARS = [("hp", "int", -3), ("speed", "float", 1.5), ("label", "string", "Hello, World!"),
           ("on", "bool", True), ("off", "bool", False), ("tint", "color", "#80ff2000"),
           ("sprite", "file", "img/door.png"), ("empty", "string", "")]
SCALARS_READ = {"hp": -3, "speed": 1.5, "label": "Hello, World!", "on": True, "off": False,
                "tint": (255, 32, 0, 128), "sprite": "img/door.png", "empty": ""}

LAYER = [
    {"id": 1, "name": "floor", "class": "ground", "x": 0, "y": 80, "w": 128, "h": 16,
     "properties": SCALARS},
    {"id": 2, "class": "coin", "shape": "ellipse", "x": 32, "y": 48, "w": 8, "h": 8},
    {"id": 3, "name": "ramp", "shape": "polygon", "x": 64, "y": 80,
     "points": [(0, 0), (32, 0), (32, -16)]},
    {"id": 4, "shape": "polyline", "x": 8, "y": 8, "points": [(0, 0), (16, 0)],
     "properties": [("rail", "bool", True)]},
    # a tile object without a class: its tile's class; its own value over its tile's
    {"id": 5, "shape": "tile", "gid": 1, "x": 96, "y": 64, "w": 16, "h": 16,
     "properties": [("value", "int", 9)]},
    # a tile object with a class of its own keeps it; its tile's properties still merged in
    {"id": 6, "shape": "tile", "gid": 2, "class": "barrel", "x": 112, "y": 64, "w": 16, "h": 16},
    {"id": 7, "name": "spawn", "class": "player", "shape": "point", "x": 24, "y": 40,
     "properties": [("facing", "string", "left"), ("lives", "int", 3)]},
    {"id": 8, "name": "sign", "class": "label", "shape": "text", "x": 40, "y": 8, "w": 48,
     "h": 12},
    # from a template: its name, class, size and properties, its own property winning
    {"id": 9, "name": "front door", "template": "door", "shape": "template", "x": 0, "y": 64,
     "properties": [("key", "string", "blue")]},
    # a tile template: its tile's properties under the template's under its own
    {"id": 10, "template": "coin", "shape": "template", "x": 48, "y": 32,
     "properties": [("from", "string", "object")]},
    {"id": 11, "shape": "point", "x": 0, "y": 0},
]

EXPECTED = [
    TiledObject(1, "floor", "ground", "rectangle", SCALARS_READ),
    TiledObject(2, "", "coin", "ellipse", {}),
    TiledObject(3, "ramp", "", "polygon", {}),
    TiledObject(4, "", "", "polyline", {"rail": True}),
    TiledObject(5, "", "coin", "tile", {"value": 9, "shine": True, "sound": "sfx/coin.wav",
                                        "from": "tile"}),
    TiledObject(6, "", "barrel", "tile", {"solid": True}),
    TiledObject(7, "spawn", "player", "point", {"facing": "left", "lives": 3}),
    TiledObject(8, "sign", "label", "text", {}),
    TiledObject(9, "front door", "door", "rectangle",
                {"locked": True, "to": "level2", "key": "blue"}),
    TiledObject(10, "a coin", "coin", "tile",
                {"value": 5, "shine": True, "sound": "sfx/coin.wav", "from": "object",
                 "spin": 0.25}),
    TiledObject(11, "", "", "point", {}),
]


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_every_entity_carries_its_name_class_kind_and_properties(tmp_path, suffix, world):
    path = write_map(tmp_path / f"level{suffix}", {"things": LAYER})
    ids = tiled.add_objects(path, "things")
    assert [info(e) for e in ids] == EXPECTED  # in the layer's order, markers among bodies
    assert [info(e).kind for e in ids] == ["rectangle", "ellipse", "polygon", "polyline",
                                           "tile", "tile", "point", "text", "rectangle",
                                           "tile", "point"]
    markers = [e for e in ids if info(e).kind in ("point", "text")]
    assert [info(e).name for e in markers] == ["spawn", "sign", ""]
    assert all(is_marker(e) for e in markers)
    assert all(is_body(e) for e in ids if e not in markers)
    # the values are plain Python values, not pytiled-parser's
    props = info(ids[0]).properties
    assert type(props) is dict and type(props["tint"]) is tuple and type(props["sprite"]) is str
    assert type(props["hp"]) is int and type(props["speed"]) is float
    # the template's size came through to the body (a 16 x 32 door)
    door = esper.component_for_entity(ids[8], ep.Geometry).shape
    assert door == ep.Rect(16, 32)


def test_tmx_and_tmj_of_the_same_objects_give_the_same_tiled_objects(tmp_path, world):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = tiled.add_objects(write_map(tmp_path / "a" / "level.tmx", {"things": LAYER}), "things")
    b = tiled.add_objects(write_map(tmp_path / "b" / "level.tmj", {"things": LAYER}), "things")
    assert [info(e) for e in a] == [info(e) for e in b]
    assert [c for e in a for c in position(e)] == pytest.approx(
        [c for e in b for c in position(e)])


def test_a_class_value_is_a_dict_of_its_members(tmp_path, world):
    """pytiled-parser hands a .tmj class property's value on as the file's table."""
    stats = {"hp": 5, "name": "orc", "loot": {"gold": 1.5, "tint": "#ff00ff00"}}
    objs = [{"id": 1, "shape": "point", "x": 1, "y": 2,
             "properties": [("stats", "class", stats)]}]
    (e,) = tiled.add_objects(write_map(tmp_path / "level.tmj", {"o": objs}), "o")
    assert info(e).properties == {"stats": stats}


# ------------------------------------------------------------------ where markers are


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_markers_are_placed_in_world_units(tmp_path, suffix, world):
    objs = [{"id": 1, "shape": "point", "x": 24, "y": 40},
            {"id": 2, "shape": "text", "x": 10, "y": 20, "w": 40, "h": 10},
            {"id": 3, "shape": "text", "x": 10, "y": 20, "w": 40, "h": 10, "rotation": 90},
            {"id": 4, "x": 10, "y": 20, "w": 40, "h": 10, "rotation": 90}]  # the same box
    path = write_map(tmp_path / f"level{suffix}", {"marks": objs, "moved": objs[:1]},
                     offsets={"moved": (8, -4)})
    point, text, turned, box = tiled.add_objects(path, "marks", scale=0.5, origin=(100, 200))
    # Tiled's (24, 40) px: 12 right of the origin, (96 - 40) / 2 = 28 above it
    assert position(point) == (112, 228)
    # a text: the centre of its box, (30, 25) px
    assert position(text) == (115, 235.5)
    # turned 90 degrees clockwise about its corner, as a rectangle is: its centre (5, 40) px
    assert position(turned) == pytest.approx((102.5, 228))
    assert position(turned) == pytest.approx(position(box))
    # the layer's offset is added, as for shapes
    (moved,) = tiled.add_objects(path, "moved", scale=0.5, origin=(100, 200))
    assert position(moved) == (112 + 4, 228 + 2)


def test_a_point_lies_on_the_tile_map_where_tiled_shows_it(tmp_path, world):
    """Points at the centres of the rock tiles of a level read as a TileMap with the same
    scale and origin: each lies in its tile's box."""
    rows = LEVEL.split("\n")
    cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"][::7]
    points = [{"id": i + 1, "shape": "point", "x": (c + 0.5) * PX, "y": (r + 0.5) * PX}
              for i, (r, c) in enumerate(cells)]
    path = level_map(tmp_path, ".tmx", layers=[tile_layer(), object_layer("marks", points)])
    level = ep.TileMap.from_tiled(path, kinds={"": 1, "spikes": 3, "deco": 0}, scale=1 / PX,
                                  origin=(3, 4))
    ids = tiled.add_objects(path, "marks", scale=1 / PX, origin=(3, 4))
    for e, (r, c) in zip(ids, cells, strict=True):
        x0, y0, x1, y1 = level.tile_box(r, c)
        assert position(e) == pytest.approx(((x0 + x1) / 2, (y0 + y1) / 2))
        assert level[r, c] == 1


# ------------------------------------------------------------------ markers and bodies


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_collider_mapping_needs_no_entry_for_markers(tmp_path, suffix, world):
    objs = [{"id": 1, "class": "wall", "x": 0, "y": 80, "w": 128, "h": 16},
            {"id": 2, "class": "spawn", "shape": "point", "x": 8, "y": 8},
            {"id": 3, "class": "hint", "shape": "text", "x": 8, "y": 8, "w": 30, "h": 10},
            {"id": 4, "shape": "point", "x": 9, "y": 9}]
    path = write_map(tmp_path / f"level{suffix}", {"o": objs, "bad": [
        *objs, {"id": 5, "class": "lava", "x": 0, "y": 0, "w": 8, "h": 8}]})
    wall, spawn, hint, plain = tiled.add_objects(
        path, "o", {"wall": ep.Collider(ep.STATIC, friction=0.5)})
    assert esper.component_for_entity(wall, ep.Collider) == ep.Collider(ep.STATIC,
                                                                         friction=0.5)
    assert all(is_marker(e) for e in (spawn, hint, plain))
    # a shape whose class the mapping lacks is still refused, and nothing is made
    before = made()
    with pytest.raises(ValueError, match=r"object layer 'bad', object 5: its class 'lava' is "
                                         r"not in collider \(which maps 'wall'\)"):
        tiled.add_objects(path, "bad", {"wall": ep.Collider(ep.STATIC)})
    assert made() == before


def test_a_layer_mixing_points_and_shapes_steps_with_bodies_for_the_shapes_only(tmp_path,
                                                                                 world):
    objs = [{"id": 1, "name": "spawn", "shape": "point", "x": 64, "y": 16},
            {"id": 2, "name": "floor", "x": 0, "y": 80, "w": 128, "h": 16},
            {"id": 3, "name": "exit", "shape": "point", "x": 120, "y": 72},
            {"id": 4, "name": "sign", "shape": "text", "x": 40, "y": 40, "w": 40, "h": 8},
            {"id": 5, "name": "step", "x": 96, "y": 72, "w": 16, "h": 8}]
    physics = ep.Physics(fixed_dt=DT)
    ids = tiled.add_objects(write_map(tmp_path / "level.tmj", {"o": objs}), "o",
                            scale=1 / PX)
    by_name = {info(e).name: e for e in ids}
    start = position(by_name["spawn"])
    ball = esper.create_entity(ep.Position(*start), ep.Velocity(0, 0),
                               ep.AccelerationMap(gravity=(0, -10)), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(0.25)))
    for _ in range(120):
        esper.process(DT)
    assert physics.body_count == 3  # the floor, the step and the ball
    assert physics.touching(ball) == [by_name["floor"]]
    assert position(ball) == pytest.approx((4, 1 + 0.25), abs=0.02)  # on the floor's top
    for name in ("spawn", "exit", "sign"):  # markers stay where they were put
        assert is_marker(by_name[name])
    assert position(by_name["spawn"]) == start == (4, 5)


# ------------------------------------------------------------------ refusals


def _big(n: int) -> list[tuple[str, str, int]]:
    return [(f"p{i}", "int", i) for i in range(n)]


GOOD = [{"id": 1, "x": 0, "y": 80, "w": 128, "h": 16},
        {"id": 2, "shape": "point", "x": 4, "y": 4, "properties": [("ok", "int", 1)]}]

REFUSED_BOTH = [  # (the bad object, what the message says after "object 9 ...: ")
    ({"shape": "point", "properties": [("speed", "float", math.nan)]},
     r"its property 'speed' must be a finite number, got nan"),
    ({"properties": [("speed", "float", math.inf)]},
     r"its property 'speed' must be a finite number, got inf"),
    ({"shape": "text", "properties": [("story", "string", "x" * 65537)]},
     r"its property 'story' is a text of 65,537 characters \(at most 65,536\)"),
    ({"properties": _big(1025)},
     r"its property 'p1024': more than 1,024 properties on one object"),
    ({"name": "n" * 65537, "shape": "point"},
     r"its name is a text of 65,537 characters"),
    ({"shape": "tile", "gid": 1, "properties": _big(1022)},  # 1,022 and its tile's 4
     r"its property \(its tile's merged in\) 'p1020': more than 1,024 properties"),
]
REFUSED_TMJ = [  # JSON can hold what XML cannot
    ({"shape": "point", "properties": {"path": [1, 2]}},
     r"its property 'path' is a list \(\[1, 2\]\); a property must be text, a number"),
    ({"shape": "point", "properties": {"gone": None}}, r"its property 'gone' is a NoneType"),
    ({"properties": [{"name": 5, "type": "string", "value": "x"}]},
     r"its property names must be text, got 5"),
    ({"properties": [("huge", "int", 2**70)]},
     r"its property 'huge' must be an int from -2\*\*63 to 2\*\*63 - 1, got an int of 71 bits"),
    ({"shape": "point", "properties": [("deep", "class", {"a": {"b": {"c": {"d": {"e": {
        "f": {"g": {"h": {"i": 1}}}}}}}}})]},
     r"its property 'deep' member 'a' member 'b' .* member 'h' nests class values more "
     r"than 8 deep"),
    ({"properties": [("stats", "class", {"hp": math.nan})]},
     r"its property 'stats' member 'hp' must be a finite number"),
    ({"properties": [("stats", "class", {"loot": [1]})]},
     r"its property 'stats' member 'loot' is a list"),
]


def _refusal(tmp_path: Path, suffix: str, bad: dict, why: str, tiles=None) -> None:
    objs = [*GOOD, {"id": 9, "name": "bad", "x": 8, "y": 8, "w": 8, "h": 8, **bad}]
    path = write_map(tmp_path / f"level{suffix}", {"o": objs}, tiles=tiles)
    with pytest.raises(ValueError, match=rf"level\.tm.: object layer 'o', object 9 .*: {why}"):
        tiled.add_objects(path, "o")
    assert made() == 0  # not even the good objects before it


@pytest.mark.parametrize(("bad", "why"), REFUSED_BOTH)
@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_property_input_tiled_could_not_have_written_is_refused_and_nothing_made(
        tmp_path, suffix, bad, why, world):
    _refusal(tmp_path, suffix, bad, why)


@pytest.mark.parametrize(("bad", "why"), REFUSED_TMJ)
def test_json_property_input_tiled_could_not_have_written_is_refused(tmp_path, bad, why,
                                                                      world):
    _refusal(tmp_path, ".tmj", bad, why)


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_tiles_bad_property_is_refused_naming_the_tile_object(tmp_path, suffix, world):
    tiles = {0: {"class": "coin", "properties": [("glow", "float", math.inf)]},
             1: {"class": "crate", "properties": []}}
    _refusal(tmp_path, suffix, {"shape": "tile", "gid": 1},
             r"its tile's property 'glow' must be a finite number, got inf", tiles)


def test_class_values_eight_deep_and_1024_properties_are_accepted(tmp_path, world):
    deep: dict = {"leaf": True}
    for i in range(7):  # the property's own table and 7 more inside it: 8 deep
        deep = {f"level{i}": deep}
    objs = [{"id": 1, "shape": "point", "x": 1, "y": 1,
             "properties": [*_big(1014), ("deep", "class", deep), ("s", "string", "x" * 65536)]}]
    (e,) = tiled.add_objects(write_map(tmp_path / "level.tmj", {"o": objs}), "o")
    props = info(e).properties
    assert len(props) == 1016 and props["deep"] == deep and len(props["s"]) == 65536


# ------------------------------------------------------------------ the component


def test_tiled_object_holds_checked_plain_copies():
    color = type("Color", (tuple,), {})((1, 2, 3, 4))  # a tuple subclass, as pytiled's Color
    given = {"to": "level2", "tint": color, "file": Path("a/b.png"), "n": {"x": 1}}
    obj = TiledObject(7, "door", "exit", "rectangle", given)
    assert (obj.id, obj.name, obj.cls, obj.kind) == (7, "door", "exit", "rectangle")
    assert obj.properties == {"to": "level2", "tint": (1, 2, 3, 4), "file": "a/b.png",
                              "n": {"x": 1}}
    assert type(obj.properties["tint"]) is tuple
    given["n"]["x"] = 2  # a copy: changing what was given changes nothing
    assert obj.properties["n"] == {"x": 1}
    obj.properties["opened"] = True  # the game's to change
    assert obj.properties["opened"] is True
    with pytest.raises(AttributeError):
        obj.name = "window"
    assert TiledObject(3) == TiledObject(3, "", "", "rectangle", {})
    assert TiledObject(3, kind="point") != TiledObject(3)
    assert TiledObject(3, properties={"a": 1}) != TiledObject(3, properties={"a": 2})
    assert TiledObject(3) != "TiledObject(3)"
    with pytest.raises(TypeError):
        hash(obj)


def test_tiled_object_repr_says_what_it_holds():
    obj = TiledObject(7, "door", "exit", "rectangle", {"to": "level2"})
    assert repr(obj) == ("TiledObject(id=7, name='door', cls='exit', kind='rectangle', "
                         "properties={'to': 'level2'})")
    long = repr(TiledObject(1, properties={f"p{i}": i for i in range(500)}))
    assert len(long) < 400 and long.endswith("... (500 properties)})")


@pytest.mark.parametrize(("args", "kwargs", "error", "why"), [
    (("7",), {}, TypeError, "TiledObject.id must be an int"),
    ((True,), {}, TypeError, "TiledObject.id must be an int"),
    ((-1,), {}, ValueError, "TiledObject.id must be an int from 0"),
    ((1, None), {}, TypeError, "TiledObject.name must be a str"),
    ((1,), {"cls": 3}, TypeError, "TiledObject.cls must be a str"),
    ((1,), {"kind": "circle"}, ValueError, "TiledObject.kind must be one of rectangle"),
    ((1,), {"properties": [("a", 1)]}, TypeError, "TiledObject.properties must be a mapping"),
    ((1,), {"properties": {"a": math.nan}}, ValueError,
     "TiledObject property 'a' must be a finite number"),
    ((1,), {"properties": {"c": (1, 2, 300, 4)}}, ValueError,
     r"TiledObject property 'c' must be a color \(r, g, b, a\) of ints from 0 to 255"),
    ((1,), {"properties": {"s": {1}}}, ValueError, "TiledObject property 's' is a set"),
])
def test_tiled_object_refuses_what_a_map_could_not_hold(args, kwargs, error, why):
    with pytest.raises(error, match=why):
        TiledObject(*args, **kwargs)


def test_tiled_object_needs_no_pytiled_parser(monkeypatch):
    monkeypatch.setitem(sys.modules, "pytiled_parser", None)
    assert TiledObject(1, kind="point").kind == "point"
    assert "TiledObject" in tiled.__all__


# ------------------------------------------------------------------ maps nobody here made


def _third_party(tmp_path: Path, folder: str) -> Path:
    """A copy of a folder of tests/data/tiled_third_party (the tests never write there)."""
    dest = tmp_path / folder
    shutil.copytree(THIRD_PARTY / folder, dest)
    return dest


def test_arcade_enemies_are_points_with_their_properties_in_world_units(tmp_path, world):
    """Arcade's map_with_ladders.json: its "Enemies" layer holds three points (the enemies'
    spawn points) whose properties say how far they walk; the map is 20 x 17 tiles of 128."""
    path = _third_party(tmp_path, "arcade") / "map_with_ladders.json"
    ids = tiled.add_objects(path, "Enemies", scale=1 / 128, origin=(-1, 2))
    assert [info(e) for e in ids] == [
        TiledObject(3, "", "", "point", {"boundary_left": 128, "boundary_right": 320,
                                         "change_x": 1, "type": "robot"}),
        TiledObject(5, "", "", "point", {"boundary_left": 640, "boundary_right": 960,
                                         "change_x": 1, "type": "robot"}),
        TiledObject(6, "", "", "point", {"boundary_left": 704, "boundary_right": 896,
                                         "change_x": 1, "type": "zombie"}),
    ]
    assert all(is_marker(e) for e in ids)
    height = 17 * 128
    for e, (x, y) in zip(ids, [(557.833738614351, 1239.43123274121),
                               (1605.34146643037, 1987.39479866463),
                               (1583.81733503689, 1476.19667806949)], strict=True):
        assert position(e) == pytest.approx((-1 + x / 128, 2 + (height - y) / 128))
    # its moving platform: a tile object whose float properties the file wrote as whole
    # numbers (pytiled-parser hands them on as ints)
    (platform,) = tiled.add_objects(path, "Moving Platforms", scale=1 / 128)
    assert info(platform) == TiledObject(2, "", "", "tile", {"boundary_bottom": 150,
                                                            "boundary_top": 580,
                                                            "change_y": 1})
    assert is_body(platform)
    assert esper.component_for_entity(platform, ep.Geometry).shape == ep.Rect(1, 1)


def test_arcade_test_objects_names_classes_texts_and_a_layer_refused_whole(tmp_path, world):
    """Arcade's test_objects.json (20 x 20 tiles of 128 px): named tile objects with classes,
    a text, and a "Shapes" layer mixing points with an ellipse that is not a circle."""
    path = _third_party(tmp_path, "arcade") / "test_objects.json"
    crate, coin = tiled.add_objects(path, "Tiles", {"crate": ep.Collider(ep.STATIC),
                                                    "coin": ep.Collider(ep.STATIC, sensor=True)})
    assert info(crate) == TiledObject(7, "crate1", "crate", "tile", {})
    assert info(coin) == TiledObject(8, "coin1", "coin", "tile", {})
    assert esper.component_for_entity(coin, ep.Collider).sensor
    assert not esper.component_for_entity(crate, ep.Collider).sensor
    (text,) = tiled.add_objects(path, "Text", scale=0.5)
    assert info(text) == TiledObject(10, "", "", "text", {}) and is_marker(text)
    # the centre of its 426.979 x 120.576 px box at (836.621, 89.0878), y flipped
    assert position(text) == pytest.approx(((836.621 + 426.979 / 2) / 2,
                                            (2560 - 89.0878 - 120.576 / 2) / 2))
    before = made()
    with pytest.raises(ValueError, match=r"test_objects\.json: object layer 'Shapes', object 5:"
                                         r" it is an ellipse of 558\.665 x 510\.865 px"):
        tiled.add_objects(path, "Shapes")
    assert made() == before  # its points and rectangle were not made either


@pytest.mark.parametrize("name", ["map.tmx", "map.json"])
def test_pytiled_parsers_template_map(tmp_path, name, world):
    """pytiled-parser's own template test map: a rectangle from a template with a property
    of its own, and two tile objects from tile templates (their tilesets loaded from the
    templates)."""
    path = _third_party(tmp_path, "pytiled_parser") / "template" / name
    rect, sheet, image = tiled.add_objects(path, "Object Layer 1")
    assert [info(e) for e in (rect, sheet, image)] == [
        TiledObject(2, "", "", "rectangle", {"test": "hello"}),
        TiledObject(6, "", "", "tile", {}),
        TiledObject(7, "", "", "tile", {}),
    ]
    assert all(is_body(e) for e in (rect, sheet, image))
    shape = esper.component_for_entity(rect, ep.Geometry).shape  # the template's size
    assert (shape.width, shape.height) == pytest.approx((63.6586, 38.2812), abs=1e-4)


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_a_tileset_nobody_here_made_gives_tile_objects_its_classes_and_properties(
        tmp_path, suffix, world):
    """pytiled-parser's test tileset (tiles of class "tile" with a float, a string and a bool
    property) as the external tileset of a map written here."""
    shutil.copy(THIRD_PARTY / "pytiled_parser" / "tileset" / "tileset.tsx", tmp_path)
    shutil.copy(THIRD_PARTY / "pytiled_parser" / "tileset" / "tileset.json", tmp_path)
    objs = [{"id": 1, "shape": "tile", "gid": 1, "x": 0, "y": 32, "w": 32, "h": 32},
            {"id": 2, "shape": "tile", "gid": 2, "x": 32, "y": 32, "w": 32, "h": 32,
             "properties": [("string property", "string", "mine"), ("own", "int", 4)]},
            {"id": 3, "shape": "tile", "gid": 3, "class": "lamp", "x": 64, "y": 32, "w": 32,
             "h": 32},
            {"id": 4, "shape": "tile", "gid": 4, "x": 96, "y": 32, "w": 32, "h": 32}]
    path = write_map(tmp_path / f"level{suffix}", {"o": objs})
    text = path.read_text().replace("things.tsx", "tileset.tsx").replace("things.tsj",
                                                                         "tileset.json")
    path.write_text(text)
    ids = tiled.add_objects(path, "o")
    assert [info(e) for e in ids] == [
        TiledObject(1, "", "tile", "tile", {"float property": 2.2}),
        TiledObject(2, "", "tile", "tile", {"string property": "mine", "own": 4}),
        TiledObject(3, "", "lamp", "tile", {"bool property": True}),
        TiledObject(4, "", "tile", "tile", {}),
    ]
