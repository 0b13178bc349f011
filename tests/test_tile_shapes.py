"""Tile maps with shaped kinds: slopes and half tiles (``TileMap(..., shapes=...)``).

What these tests show:

- the outline the physics collides with (the shape store's leaves) and ``TileMap.edges``
  cover exactly what the exact reference outline (tests/tile_outline.py) covers, on random
  grids of squares, slopes both ways and upside down, half tiles, a 22.5-degree pair and a
  diamond; a 5-tile 45-degree slope is one edge;
- digging and building shaped tiles one by one leaves the same outline as laying the map out
  afresh, the extra edges bit for bit, and the reference's (six random maps of 60 changes;
  ``-m slow`` six more);
- with default settings a walker climbs a hand-made 5-tile 45-degree slope of tiles without
  snagging and stands on a half tile at half a tile's height; contacts are with the tile's
  polygon and name it; a point in a slope tile's empty half is not in the map; a crate on a
  dug slope tile falls;
- shapes are checked (TypeError / ValueError naming the kind) and survive pickling.
"""

from __future__ import annotations

import math
import pickle
from collections import defaultdict

import esper
import numpy as np
import pytest
from tile_outline import outline

import ecsphys as ep
from ecsphys.geometry.shape_store import ShapeStore

SHAPES = {
    2: [(0, 0), (1, 0), (1, 1)],  # 45-degree slope rising to the right
    3: [(0, 0), (1, 0), (0, 1)],  # ... falling to the right
    4: [(0, 1), (1, 0), (1, 1)],  # upside down
    5: [(0, 0), (1, 1), (0, 1)],
    6: [(0, 0), (1, 0), (1, 0.5), (0, 0.5)],  # half tiles: bottom
    7: [(0, 0.5), (1, 0.5), (1, 1), (0, 1)],  # top
    8: [(0, 0), (0.5, 0), (0.5, 1), (0, 1)],  # left
    9: [(0.5, 0), (1, 0), (1, 1), (0.5, 1)],  # right
    10: [(0, 0), (1, 0), (1, 0.5)],  # a 22.5-degree slope: low tile
    11: [(0, 0), (1, 0), (1, 1), (0, 0.5)],  # ... high tile
    12: [(0.5, 0.25), (0.75, 0.5), (0.5, 0.75), (0.25, 0.5)],  # a diamond
}
KINDS = [0, 1, *SHAPES]
DT = 1 / 60


# ------------------------------------------------------------------ helpers


def _cover(segments) -> dict:
    """Segments ``(x0, y0, x1, y1, nx, ny)`` as what they cover: per line (normal and offset,
    rounded) the merged intervals along it."""
    lines = defaultdict(list)
    for x0, y0, x1, y1, nx, ny in segments:
        dx, dy = -ny, nx  # along the line
        key = (round(nx, 6) + 0.0, round(ny, 6) + 0.0, round(nx * x0 + ny * y0, 6) + 0.0)
        t0, t1 = sorted((dx * x0 + dy * y0, dx * x1 + dy * y1))
        lines[key].append((t0, t1))
    out = {}
    for key, spans in lines.items():
        spans.sort()
        merged = [list(spans[0])]
        for a, b in spans[1:]:
            if a <= merged[-1][1] + 1e-9:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        out[key] = [(round(a, 6), round(b, 6)) for a, b in merged]
    return out


def _store_segments(store: ShapeStore, tm: ep.TileMap) -> set:
    """The distinct one-sided segments among the map's leaves (what the physics meets)."""
    first, count, _ = store.intern(tm)
    out = set()
    for i in range(first, first + count):
        v0, f0 = int(store.leaf_i[i, 3]), int(store.leaf_i[i, 4])
        (ax, ay), (bx, by) = store.verts[v0], store.verts[v0 + 1]
        nx, ny, _ = store.faces[f0]
        out.add((float(ax), float(ay), float(bx), float(by), float(nx), float(ny)))
    return out


def _python_segments(tm: ep.TileMap) -> list:
    """``TileMap.parts`` as segments with their normal (open side) on the right."""
    out = []
    for seg, _, _ in tm.parts:
        (ax, ay), (bx, by) = seg.p1, seg.p2
        k = math.hypot(bx - ax, by - ay)
        out.append((ax, ay, bx, by, (by - ay) / k, -(bx - ax) / k))
    return out


def _check_slots(table) -> None:
    """Each free slot copies the nearest live edge before or after it (none between)."""
    live = [k for k, (_, is_live) in enumerate(table) if is_live]
    for k, (edge, is_live) in enumerate(table):
        if is_live or not live:
            continue
        before = [table[j][0] for j in live if j < k][-1:]
        after = [table[j][0] for j in live if j > k][:1]
        assert edge in before + after, (k, edge, before, after)


def _random_grid(rng: np.random.Generator, max_side: int = 9) -> np.ndarray:
    rows, cols = (int(v) for v in rng.integers(1, max_side + 1, size=2))
    grid = np.where(rng.random((rows, cols)) < rng.uniform(0.2, 0.7), 0,
                    rng.choice(KINDS[1:], size=(rows, cols)))
    if not grid.any():
        grid[0, 0] = 2
    return grid.astype(np.int32)


def body(x, y, shape, kind=ep.ACTIVE, vx=0.0, vy=0.0, gravity=True, **collider):
    comps = [ep.Position(x, y), ep.Velocity(vx, vy), ep.Collider(kind, **collider),
             ep.Geometry(shape)]
    if gravity:
        comps.append(ep.AccelerationMap(gravity=(0.0, -30.0)))
    return esper.create_entity(*comps)


def pos(e):
    return esper.component_for_entity(e, ep.Position)


# ------------------------------------------------------------------ the outline


@pytest.mark.parametrize("seed", range(40))
def test_the_outline_covers_what_the_reference_covers(seed):
    rng = np.random.default_rng(seed)
    grid = _random_grid(rng)
    size, origin = float(rng.choice([1.0, 0.5, 2.0])), (float(rng.uniform(-3, 3)), 1.0)
    tm = ep.TileMap(grid, size, origin, shapes=SHAPES)
    want = _cover(outline(grid, SHAPES, size, origin))
    assert _cover(_store_segments(ShapeStore(), tm)) == want
    assert _cover(_python_segments(tm)) == want


def test_a_five_tile_slope_is_one_edge_and_a_half_tile_shows_the_wall_above_it():
    grid = ["....2",
            "...2#",
            "..2##",
            ".2###",
            "2####"]
    tm = ep.TileMap(grid, 1.0, shapes={2: [(0, 0), (1, 0), (1, 1)]})
    segs = _store_segments(ShapeStore(), tm)
    slopes = [s for s in segs if abs(s[4]) > 0.1 and abs(s[5]) > 0.1]
    assert len(slopes) == 1
    ax, ay, bx, by, nx, ny = slopes[0]
    assert math.hypot(bx - ax, by - ay) == pytest.approx(5 * math.sqrt(2))
    assert (nx, ny) == pytest.approx((-math.sqrt(0.5), math.sqrt(0.5)))
    # a bottom half tile beside a square: the square's side above it only
    half = ep.TileMap([".#", "h#"], 1.0, shapes={2: [(0, 0), (1, 0), (1, 0.5), (0, 0.5)]})
    assert half.kinds == {"#": 1, "h": 2}
    walls = [s for s in _store_segments(ShapeStore(), half) if s[4] == -1.0 and s[0] == 1.0]
    assert _cover(walls) == {(-1.0, 0.0, -1.0): [(-2.0, -0.5)]}  # x = 1, y 0.5 .. 2


@pytest.mark.parametrize("seed", [*range(6), *(pytest.param(s, marks=pytest.mark.slow)
                                                for s in range(6, 12))])
def test_digging_and_building_shaped_tiles_gives_a_fresh_layouts_outline(seed):
    rng = np.random.default_rng(100 + seed)
    grid = _random_grid(rng, 12)
    tm = ep.TileMap(grid, 1.0, shapes=SHAPES)
    store = ShapeStore()
    store.intern(tm)
    rows, cols = grid.shape
    for _ in range(60):
        r, c = int(rng.integers(rows)), int(rng.integers(cols))
        tm[r, c] = int(rng.choice(KINDS))
        if not tm.grid.any():
            tm[r, c] = 1
        got = _store_segments(store, tm)
        fresh_store = ShapeStore()
        assert got == _store_segments(fresh_store, tm)
        assert _cover(got) == _cover(outline(tm.grid, SHAPES))
        # the extra edges' leaves bit for bit, in the same order (a free slot copies a live
        # edge next to it: runs of equal leaves count once)
        leaves = []
        for st in (store, fresh_store):
            edges = st.tile_edges(tm)
            extras = edges.extras
            lo = edges.first + edges.room
            v0 = int(st.leaf_i[lo, 3])
            region = [] if extras.xlive == 0 else [
                (tuple(st.leaf_f[lo + k].tolist()), int(st.leaf_h[lo + k]),
                 tuple(st.verts[v0 + 2 * k: v0 + 2 * k + 2].ravel().tolist()))
                for k in range(extras.xroom)]
            runs = [leaf for k, leaf in enumerate(region) if k == 0 or leaf != region[k - 1]]
            leaves.append((extras.xlive, runs))
        assert leaves[0][0] == len(leaves[0][1])
        _check_slots(store.tile_edges(tm).extras.slot_table())
        assert leaves[0] == leaves[1]


# ------------------------------------------------------------------ bodies on shapes


def test_a_walker_climbs_a_five_tile_slope_with_default_settings(world):
    """45 degrees is ``floor_max_angle``: a floor all the way, one edge, no snag at seams."""
    physics = ep.Physics(fixed_dt=DT)
    grid = ["......",
            "....2#",
            "...2##",
            "..2###",
            ".2####",
            "2#####",
            "######"]
    tm = ep.TileMap(grid, 1.0, origin=(0.0, -2.0), shapes={2: [(0, 0), (1, 0), (1, 1)]})
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    ground = esper.create_entity(ep.Position(-5, -1.5), ep.Collider(ep.STATIC),
                                 ep.Geometry(ep.Rect(10, 1)))
    assert ground
    for shape in (ep.Circle(0.4), ep.Rect(0.6, 0.8)):
        walker = body(-2.0, -1.0 + shape.bounds()[3] + 1e-3, shape, stop_on_slope=True)
        off = []
        for step in range(300):
            esper.component_for_entity(walker, ep.Velocity).x = 2.5
            esper.process(DT)
            if step > 5 and not physics.ground(walker).on_floor:
                off.append(step)
            if pos(walker).x > 5.2:
                break
        assert off == [], type(shape).__name__
        # on top of the hill (y 4 in the world), past the slope's last tile
        assert pos(walker).x > 5.2
        assert pos(walker).y == pytest.approx(4.0 + shape.bounds()[3], abs=0.02)
        esper.delete_entity(walker, immediate=True)


def test_a_ball_rests_on_a_half_tile_and_its_contact_names_the_tile(world):
    physics = ep.Physics(fixed_dt=DT)
    tm = ep.TileMap(["....", "#hh#"], 1.0, shapes={2: [(0, 0), (1, 0), (1, 0.5), (0, 0.5)]})
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    ball = body(1.5, 1.8, ep.Circle(0.3), gravity=True)
    for _ in range(90):
        esper.process(DT)
    assert pos(ball).y == pytest.approx(0.5 + 0.3, abs=0.01)
    assert pos(ball).x == pytest.approx(1.5, abs=1e-6)
    tiles = {(c.tile, c.tile_kind) for c in physics.contacts_of(ball)}
    assert tiles == {((1, 1), 2)}


def test_a_ball_slides_down_a_slope_tile_touching_it(world):
    physics = ep.Physics(fixed_dt=DT)
    tm = ep.TileMap(["........", "s.......", "#s......", "########"], 1.0,
                    shapes={2: [(0, 0), (1, 0), (0, 1)]})
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    ball = body(0.6, 3.3, ep.Circle(0.2), friction=0.0)
    kinds = set()
    for _ in range(40):
        esper.process(DT)
        kinds |= {c.tile_kind for c in physics.contacts_of(ball)}
    assert 2 in kinds
    assert pos(ball).x > 1.5  # it went down the slope to the right, not held on a square
    assert pos(ball).y >= 1.0 + 0.2 - 0.01


def test_a_point_in_a_slope_tiles_empty_half_is_not_in_the_map(world):
    physics = ep.Physics(fixed_dt=DT)
    tm = ep.TileMap(["2"], 2.0, shapes={2: [(0, 0), (1, 0), (1, 1)]})
    m = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    esper.process(DT)
    assert m in physics.query_point(1.5, 0.5)  # below the slope
    assert m not in physics.query_point(0.5, 1.5)  # above it, in the tile's square
    assert ep.geometry.point_in(tm, (0, 0), (1.5, 0.5))
    assert not ep.geometry.point_in(tm, (0, 0), (0.5, 1.5))


def test_a_crate_falls_when_the_slope_under_it_is_dug(world):
    ep.Physics(fixed_dt=DT)
    tm = ep.TileMap(["....", "#h##", "#..#", "####"], 1.0,
                    shapes={2: [(0, 0), (1, 0), (1, 0.5), (0, 0.5)]})
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    crate = body(1.5, 2.5 + 0.3 + 1e-3, ep.Rect(0.6, 0.6), ep.PASSIVE)
    for _ in range(30):
        esper.process(DT)
    assert pos(crate).y == pytest.approx(2.5 + 0.3, abs=0.01)
    tm[1, 1] = 0
    for _ in range(60):
        esper.process(DT)
    assert pos(crate).y == pytest.approx(1.0 + 0.3, abs=0.01)
    tm[1, 1] = 2  # built over it: pushed out, not left inside
    for _ in range(10):
        esper.process(DT)
    assert pos(crate).y <= 1.0 + 0.3 + 0.01 or pos(crate).y >= 2.5 + 0.3 - 0.01


# ------------------------------------------------------------------ checks


@pytest.mark.parametrize(("shapes", "error", "words"), [
    ([(0, 0)], TypeError, "dict"),
    ({0: [(0, 0), (1, 0), (1, 1)]}, ValueError, "from 1"),
    ({True: [(0, 0), (1, 0), (1, 1)]}, TypeError, "int tile kinds"),
    ({2: "abc"}, TypeError, "shapes[2]"),
    ({2: [(0, 0), (1, 0)]}, ValueError, "3 to 16 points"),
    ({2: [(0, 0), (1.5, 0), (1, 1)]}, ValueError, "shapes[2][1]"),
    ({2: [(0, 0), (1, 0), (float("nan"), 1)]}, ValueError, "shapes[2][2]"),
    ({2: [(0, 0), (1, 1), (1, 0), (0, 1)]}, ValueError, "convex"),
    ({2: [(0, 0), (0.5, 0), (1, 0)]}, ValueError, "shapes[2]"),
])
def test_bad_shapes_are_refused_naming_the_kind(shapes, error, words):
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        ep.TileMap(["2#"], 1.0, shapes=shapes)


def test_shapes_are_counter_clockwise_and_survive_pickling():
    tm = ep.TileMap(["2#", "##"], 1.0, shapes={2: [(0, 0), (1, 1), (1, 0)]})
    assert tm.tile_shapes == {2: ((1.0, 0.0), (1.0, 1.0), (0.0, 0.0))}
    back = pickle.loads(pickle.dumps(tm))
    assert back.tile_shapes == tm.tile_shapes and back.same_tiles(tm)
    assert _cover(_store_segments(ShapeStore(), back)) == _cover(
        _store_segments(ShapeStore(), tm))
    assert not tm.same_tiles(ep.TileMap(["2#", "##"], 1.0))


def test_the_platformers_level_has_a_hill_of_slope_tiles_and_a_half_tile_platform(world):
    """examples/platformer.tmj: its tileset's slope and half tiles collide as drawn in Tiled's
    tile collision editor; the player's box walks up the hill onto its top."""
    from pathlib import Path

    level = Path(__file__).resolve().parent.parent / "examples" / "platformer.tmj"
    kinds = {"rock": 1, "spikes": 2, "slope": 3, "half": 4}
    tm = ep.TileMap.from_tiled(level, "level", kinds, scale=1 / 16)
    assert tm.tile_shapes == {3: ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0)),
                              4: ((0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (0.0, 0.5))}
    tiles = ((29, 33), (28, 34), (27, 35), (25, 5), (25, 7))
    assert [tm[r, c] for r, c in tiles] == [3, 3, 3, 4, 4]
    physics = ep.Physics(fixed_dt=DT)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    player = body(30.0, 2.0 + 0.9 + 1e-3, ep.Rect(0.9, 1.8), stop_on_slope=True)
    for _ in range(180):
        esper.component_for_entity(player, ep.Velocity).x = 4.0
        esper.process(DT)
        if pos(player).x > 37.0:
            break
    assert pos(player).x > 37.0
    assert pos(player).y == pytest.approx(5.0 + 0.9, abs=0.02)  # on the hill's top
    assert physics.ground(player).on_floor
    # and on the half-tile platform a box stands half a tile above the tiles' bottom
    box = body(6.5, 8.0, ep.Rect(0.8, 0.8))
    for _ in range(60):
        esper.process(DT)
    assert pos(box).y == pytest.approx(6.5 + 0.4, abs=0.01)


def test_the_python_side_knows_the_compiled_tables_width():
    """A shape's points at most: the compiled table's width (tile_shapes.pxd), the one limit
    `TileMap` and the Tiled reader check against; a shape of that many points is taken and
    one more is refused."""
    from ecsphys import limits, tiled_shapes
    from ecsphys.geometry import tile_shapes

    assert tile_shapes.SHAPE_POINTS == limits.MAX_TILE_SHAPE_POINTS == \
        tiled_shapes.MAX_SHAPE_POINTS
    n = limits.MAX_TILE_SHAPE_POINTS
    ring = [(0.5 + 0.5 * math.cos(2 * math.pi * i / n), 0.5 + 0.5 * math.sin(2 * math.pi * i / n))
            for i in range(n)]
    tm = ep.TileMap([[2]], 1.0, shapes={2: ring})
    assert len(tm.tile_shapes[2]) == n
    more = [(0.5 + 0.5 * math.cos(2 * math.pi * i / (n + 1)),
             0.5 + 0.5 * math.sin(2 * math.pi * i / (n + 1))) for i in range(n + 1)]
    with pytest.raises(ValueError, match=rf"TileMap.shapes\[2\] must have 3 to {n} points"):
        ep.TileMap([[2]], 1.0, shapes={2: more})
