"""Fuzzing the way Tiled maps come in from outside: ``TileMap.from_tiled`` and
``tiled.add_objects`` on valid maps with values swapped for others (JSON: any field of the
map, its layers, tiles and objects set to ints huge or negative, floats, NaN, strings, null,
lists, objects; XML: any attribute set to such text, or the file cut short) either read the
map or raise a ``ValueError`` naming the file (an ``OSError`` for a tileset path turned into
a missing file): nothing else, and a refused object layer creates no entity.
"""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path

import esper
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_tiled import OBJECTS, level_map, object_layer, tile_layer

import ecsphys as ep
from ecsphys import tiled

VALUES = st.one_of(
    st.integers(-(2**40), 2**40), st.sampled_from([0, -1, 1, 2**31, 2**32, 2**64, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6), st.none(),
    st.booleans(), st.lists(st.integers(-3, 3), max_size=3), st.just({}),
    st.just({"x": 1, "y": 2}))


def _paths(node: object, path: tuple = ()) -> list[tuple]:
    """Every place in a JSON document (dict keys and list indices) but the tile data rows."""
    out = [path] if path else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*path, k))
    elif isinstance(node, list) and not (path and path[-1] == "data"):
        for i, v in enumerate(node):
            out += _paths(v, (*path, i))
    return out


def _read_both(path: Path) -> None:
    """Read the map both ways; only what the readers promise may come out."""
    try:
        ep.TileMap.from_tiled(path, "walls", kinds={"": 1, "spikes": 3, "deco": 0})
    except (ValueError, OSError) as exc:
        assert isinstance(exc, OSError) or path.name in str(exc)
    before = len(esper.get_component(ep.Collider))
    try:
        tiled.add_objects(path, collider={"": ep.Collider(ep.STATIC),
                                          "shelf": ep.Collider(ep.STATIC),
                                          "coin": ep.Collider(ep.STATIC, sensor=True)})
    except (ValueError, OSError) as exc:
        assert isinstance(exc, OSError) or path.name in str(exc)
        assert len(esper.get_component(ep.Collider)) == before  # nothing half made


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("seeds")
    layers = [tile_layer(), object_layer(objects=OBJECTS)]
    return {suffix: level_map(base, suffix, layers=layers).read_text()
            for suffix in (".tmj", ".tmx")}


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mutated_json_map_is_read_or_refused_naming_it(seeds, tmp_path, world, data):
    doc = json.loads(seeds[".tmj"])
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(_paths(doc)))
        node = doc
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = copy.deepcopy(data.draw(VALUES))
    path = tmp_path / "fuzz.tmj"
    path.write_text(json.dumps(doc))
    _read_both(path)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mutated_xml_map_is_read_or_refused_naming_it(seeds, tmp_path, world, data):
    text = seeds[".tmx"]
    attrs = list(re.finditer(r'="([^"]*)"', text))
    for _ in range(data.draw(st.integers(1, 3))):
        m = data.draw(st.sampled_from(attrs))
        value = data.draw(VALUES)
        new = (str(value) if not isinstance(value, float) or math.isfinite(value)
               else str(value).lower())
        new = new.replace('"', "").replace("<", "").replace("&", "")
        text = text[:m.start(1)] + new + text[m.end(1):]
        attrs = list(re.finditer(r'="([^"]*)"', text))
    if data.draw(st.booleans()):
        text = text[:data.draw(st.integers(0, len(text)))]  # cut short
    path = tmp_path / "fuzz.tmx"
    path.write_text(text)
    _read_both(path)
