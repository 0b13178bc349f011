"""A dug or built tile is taken tile by tile (``ecsphys/geometry/tile_edges.pyx``): the store
writes only what lies along the tile's four grid lines, and every reader sees exactly what a
fresh layout of the same tiles shows it.

What these tests show:

- the store's view of a map after random digs and builds (each tile's list of leaves, read
  as the leaves' numbers; the map's whole range, runs of equal leaves taken as one; the tiles'
  kinds; its header and square) equals a fresh layout's, and a fresh layout's equals what
  the map's own merged edges give (the leaf numbers as the vectorised writer the store had
  before computed them): on random maps from 1 x 1 to 60 x 60, changes one by one and in
  batches, a checkerboard (edges moved to make room, windows spread again), maps dug to
  nothing and built back, edges that outgrow their room or leave it mostly empty (a new
  range), a change list too long to take one by one;
- physics: a world whose map is taken tile by tile steps to the same bits (positions,
  velocities, what each body stands on) with the same contacts and events as a world whose
  map is laid out afresh at every change: bodies resting on random floors with tiles dug
  under them (they fall) and built onto them (pushed out), every tile dug and built back, a
  300 x 300 map; the public geometry functions see a dug map as a fresh one;
- a dig keeps the map's range (the layout is not learnt again) and costs a sliver of a
  fresh layout on a 500 x 500 map.
"""

from __future__ import annotations

import time

import esper
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ecsphys as ep
from ecsphys import geometry
from ecsphys.geometry.shape_store import ShapeStore
from ecsphys.state.body_table import MOTION_COLUMNS

DT = 1 / 60


# ------------------------------------------------------------------ the store's view


def _leaf(store: ShapeStore, i: int) -> tuple:
    """Leaf i's numbers: kind, vertex and face counts; floats; hash; vertices; faces."""
    li = store.leaf_i[i]
    v0, f0 = int(li[3]), int(li[4])
    nv = 2 if li[0] == 3 else 4  # a segment, or the square (its room spans the header's)
    return (tuple(li[:3].tolist()), store.leaf_f[i].tobytes(), int(store.leaf_h[i]),
            store.verts[v0 : v0 + nv].tobytes(), store.faces[f0 : f0 + 4].tobytes())


def _view(store: ShapeStore, tm: ep.TileMap) -> dict:
    """What the compiled readers see of ``tm`` in ``store``."""
    first, count, key = store.intern(tm)
    kind, cols, rows, base, kinds_at = store.leaf_i[first - 1].tolist()
    n = rows * cols
    cells = store.cells
    tiles = []
    w = cols + 1  # the unit index: two slots per grid point (shape_data.pxd)
    for k in range(n):
        p = base + 2 * ((k // cols) * w + k % cols)  # the tile's lower-left point
        sides = (cells[p], cells[p + 2 * w], cells[p + 1], cells[p + 3])  # bottom top left right
        tiles.append(tuple(_leaf(store, first + int(s)) for s in sides if s >= 0))
    whole = [_leaf(store, i) for i in range(first, first + count)]
    runs = [x for j, x in enumerate(whole) if j == 0 or x != whole[j - 1]]
    return {"tiles": tiles, "range": runs, "kinds": cells[kinds_at : kinds_at + n].tolist(),
            "header": (kind, cols, rows, store.leaf_f[first - 1].tobytes(), key),
            "square": _leaf(store, first - 2)}


def _fresh(tm: ep.TileMap) -> ep.TileMap:
    """A new map with the same tiles (made with a solid tile, then set: a map may be empty)."""
    grid = np.array(tm.grid)
    corner = int(grid[0, 0])
    grid[0, 0] = 1
    fresh = ep.TileMap(grid, tm.tile_size, tm.origin)
    fresh[0, 0] = corner
    return fresh


def _fresh_view(tm: ep.TileMap) -> dict:
    return _view(ShapeStore(), _fresh(tm))


def _expected(tm: ep.TileMap) -> dict:
    """The tiles' lists and the live edges as the map's own merged edges give them, with the
    leaf numbers of the vectorised writer the store had before (the oracle)."""
    edges = tm.edge_array()
    rows, cols = tm.shape
    leaves = []
    size, (ox, oy) = tm.tile_size, tm.origin
    for x0, y0, x1, y1, f in edges.tolist():
        p = np.array([x0, y0, x1, y1], dtype=np.float64) * size + (ox, oy, ox, oy)
        if f in (0, 2):
            p = p[[2, 3, 0, 1]]
        d = p[2:] - p[:2]
        d /= np.hypot(d[0], d[1])
        nrm = np.array([d[1], -d[0]])
        s = (nrm * p[:2]).sum()
        faces = np.array([[nrm[0], nrm[1], s], [-nrm[0], -nrm[1], -s],
                          [d[0], d[1], (d * p[2:]).sum()], [-d[0], -d[1], -(d * p[:2]).sum()]])
        lf = np.zeros(9)
        lf[5:7] = np.minimum(p[:2], p[2:])
        lf[7:9] = np.maximum(p[:2], p[2:])
        leaves.append(((3, 2, 4), lf.tobytes(), _hash(x0, y0, x1, y1, f), p.tobytes(),
                       faces.tobytes()))
    side: dict[tuple[str, int, int], int] = {}  # (h or v, line, unit) -> edge
    for i, (x0, y0, x1, y1, f) in enumerate(edges.tolist()):
        for u in range(x0, x1) if f < 2 else range(y0, y1):
            side[("h", y0, u) if f < 2 else ("v", x0, u)] = i
    tiles = []
    for up in range(rows):
        for c in range(cols):
            found = [side.get(k) for k in (("h", up, c), ("h", up + 1, c), ("v", c, up),
                                           ("v", c + 1, up))]
            tiles.append(tuple(leaves[i] for i in found if i is not None))
    return {"tiles": tiles, "range": leaves}


def _hash(x0: int, y0: int, x1: int, y1: int, f: int) -> int:
    e = np.array([x0, y0, x1, y1, f], dtype=np.int64)
    with np.errstate(over="ignore"):
        return int((((e[0] * 1_000_003 + e[1]) * 1_000_003 + e[2]) * 1_000_003 + e[3]) * 4
                   + e[4])


def _same_as_fresh(store: ShapeStore, tm: ep.TileMap, oracle: bool = False) -> None:
    got, want = _view(store, tm), _fresh_view(tm)
    for part in want:
        assert got[part] == want[part], part
    if oracle:
        expected = _expected(tm)
        assert got["tiles"] == expected["tiles"]
        assert got["range"] == expected["range"]


def _random_map(rng: np.random.Generator, rows: int, cols: int, p: float) -> ep.TileMap:
    grid = (rng.random((rows, cols)) < p) * rng.integers(1, 4, (rows, cols))
    grid[0, 0] = 1
    return ep.TileMap(grid, float(rng.choice([1.0, 0.75, 2.5])),
                      origin=(float(rng.integers(-5, 5)), float(rng.integers(-5, 5))))


def _toggle(tm: ep.TileMap, rng: np.random.Generator) -> None:
    rows, cols = tm.shape
    r, c = int(rng.integers(rows)), int(rng.integers(cols))
    tm[r, c] = 0 if tm[r, c] else int(rng.integers(1, 4))


@pytest.mark.parametrize("seed", range(12))
def test_random_digs_and_builds_read_as_a_fresh_layout(seed):
    rng = np.random.default_rng(seed)
    rows, cols = int(rng.integers(1, 25)), int(rng.integers(1, 25))
    tm = _random_map(rng, rows, cols, float(rng.choice([0.15, 0.5, 0.85])))
    store = ShapeStore()
    store.intern(ep.Circle(1.0))  # the map's range does not start at 0
    store.intern(tm)
    for step in range(80):
        for _ in range(1 + seed % 4):  # a batch of changes between two steps
            _toggle(tm, rng)
        _same_as_fresh(store, tm, oracle=step % 20 == 0)


@given(st.integers(1, 8), st.integers(1, 8), st.lists(st.tuples(
    st.integers(0, 63), st.integers(0, 3), st.booleans()), min_size=1, max_size=40))
@settings(max_examples=150)
def test_any_changes_read_as_a_fresh_layout(rows, cols, changes):
    tm = ep.TileMap(np.ones((rows, cols), dtype=int), 1.0)
    store = ShapeStore()
    store.intern(tm)
    for k, kind, step in changes:
        tm[(k // cols) % rows, k % cols] = kind
        if step:
            _same_as_fresh(store, tm)
    _same_as_fresh(store, tm, oracle=True)


def test_a_checkerboard_moves_edges_and_spreads_slots_and_reads_as_fresh():
    rng = np.random.default_rng(5)
    grid = np.zeros((40, 60), dtype=int)
    grid[-1] = 1
    tm = ep.TileMap(grid, 1.0)
    store = ShapeStore()
    store.intern(tm)
    ranges = set()
    for step in range(150):
        for _ in range(20):
            r, c = int(rng.integers(40)), int(rng.integers(60))
            tm[r, c] = 1 if (r + c) % 2 == 0 else 0
        ranges.add(store.intern(tm)[:2])
        if step % 15 == 0:
            _same_as_fresh(store, tm)
    _same_as_fresh(store, tm, oracle=True)
    edges = store._maps[id(tm)].edges
    assert edges.moved > 1000 and edges.spread > 0  # both ways of making room ran
    assert len(ranges) > 1  # and the edges outgrew their room


@pytest.mark.parametrize("shape", [(30, 40), (1, 150), (150, 1)])
def test_digging_every_tile_and_building_back_reads_as_fresh(shape):
    rng = np.random.default_rng(sum(shape))
    rows, cols = shape
    tm = _random_map(rng, rows, cols, 0.5)
    store = ShapeStore()
    store.intern(tm)
    seen = []
    for phase in ("dig", "build"):
        for j, k in enumerate(rng.permutation(rows * cols).tolist()):
            tm[k // cols, k % cols] = 0 if phase == "dig" else 1 + j % 3
            seen.append(store.intern(tm))
            if j % 97 == 0:
                _same_as_fresh(store, tm)
        _same_as_fresh(store, tm, oracle=True)
    assert seen[rows * cols - 1][1] == 0  # all dug: no leaf
    if rows * cols > 1000:
        assert len({first for first, _, _ in seen}) > 2  # the room shrank and grew again


@pytest.mark.parametrize("seed", range(4))
def test_one_tile_at_a_time_at_the_ends_and_corners_of_long_edges_reads_as_fresh(seed):
    # one change per take (each line with one changed unit): tiles beside the map's sides and
    # corners and at the ends and middles of long floors, walls and ceilings, dug and built
    # back, an edge split, shortened, lengthened, joined, turned to face the other way
    rng = np.random.default_rng(seed)
    rows, cols = 12, 30
    grid = np.zeros((rows, cols), dtype=int)
    grid[rows // 2 :] = 1  # a floor the map's width
    grid[:, cols // 3] = 2  # a wall its height
    grid[0, 2:-2] = 3  # a ceiling
    tm = ep.TileMap(grid, 1.0)
    store = ShapeStore()
    store.intern(tm)
    picks = [(r, c) for r in (0, 1, rows // 2 - 1, rows // 2, rows - 1)
             for c in (0, 1, 2, cols // 3 - 1, cols // 3, cols // 2, cols - 2, cols - 1)]
    for step in range(200):
        r, c = picks[int(rng.integers(len(picks)))] if step % 3 else (
            int(rng.integers(rows)), int(rng.integers(cols)))
        tm[r, c] = 0 if tm[r, c] else int(rng.integers(1, 4))
        _same_as_fresh(store, tm, oracle=step % 50 == 0)
    _same_as_fresh(store, tm, oracle=True)


@pytest.mark.parametrize("thick", [1, 2])
def test_holes_dug_into_a_long_flat_floor_and_filled_read_as_a_fresh_layout(thick):
    # a floor 500 tiles long: each hole dug into its top row splits the floor's top edge (and
    # a one-tile-thick floor's bottom one), the units of one part taking a new edge; each
    # hole filled joins two edges again; holes at the floor's ends, beside each other and
    # far apart, filled in another order with other kinds; the map keeps its range
    rows, cols = 5, 500
    grid = np.zeros((rows, cols), dtype=int)
    grid[rows - thick :] = 1
    tm = ep.TileMap(grid, 1.0, origin=(-3.0, 2.0))
    store = ShapeStore()
    before = store.intern(tm)
    rng = np.random.default_rng(thick)
    top = rows - thick
    holes = [250, 0, cols - 1, 251, 1, 120, 380, *rng.integers(2, cols - 2, 5).tolist()]
    for j, c in enumerate(holes):
        tm[top, c] = 0
        _same_as_fresh(store, tm, oracle=j % 4 == 0)
    assert len(tm.edge_array()) > 2 * len(set(holes))  # the floor lies in pieces
    for j, c in enumerate(rng.permutation(holes).tolist()):
        tm[top, c] = 1 + j % 3
        _same_as_fresh(store, tm, oracle=j % 4 == 0)
    assert len(tm.edge_array()) == 4  # one floor again
    _same_as_fresh(store, tm, oracle=True)
    assert store.intern(tm)[:2] == before[:2]


def test_a_long_change_list_lays_the_map_out_again_in_place():
    tm = ep.TileMap(np.ones((20, 20), dtype=int), 1.0)
    store = ShapeStore()
    before = store.intern(tm)
    version = tm.version
    for k in range(0, 400, 2):  # more changes than the map lists one by one
        tm[k // 20, k % 20] = 0
    assert tm.changes_since(version) is None
    assert tm.changes_since(tm.version) == []
    _same_as_fresh(store, tm, oracle=True)
    assert store.intern(tm)[0] == before[0]


def test_the_step_refresh_takes_changes_that_outgrow_the_room_as_a_fresh_layout(world):
    # the body table takes a map's changes through the map's compiled copy directly; a take
    # that answers None (the edges outgrew the room) is laid out again, not taken twice
    grid = np.zeros((30, 40), dtype=int)
    grid[-1] = 1
    tm = ep.TileMap(grid, 1.0)
    physics = ep.Physics(fixed_dt=DT)
    ent = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    physics.step()
    t = physics.table
    rng = np.random.default_rng(11)
    ranges = set()
    for _ in range(30):
        for _ in range(12):
            r, c = int(rng.integers(30)), int(rng.integers(40))
            tm[r, c] = 1 if (r + c) % 2 == 0 else 0
        t.refresh_tilemaps()
        ranges.add((int(t.leaf0[0]), int(t.nleaf[0])))
        assert t.tilemaps[ent].seen == tm.version
        _same_as_fresh(t.store, tm)
    assert len(ranges) > 1  # the edges outgrew their room


def test_a_compacted_store_lets_the_maps_copies_go_and_later_digs_read_as_fresh(world):
    rng = np.random.default_rng(12)
    tm = _random_map(rng, 20, 30, 0.5)
    physics = ep.Physics(fixed_dt=DT)
    ent = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    physics.step()
    t = physics.table
    _toggle(tm, rng)
    t.refresh_tilemaps()
    old = t.store.tile_edges(tm)
    assert t.tilemaps[ent].edges is old
    t._compact_store()  # the store starts afresh: the copy the watch holds is let go
    assert old.take(t.store, tm._tiles) is None
    for _ in range(40):
        _toggle(tm, rng)
        t.refresh_tilemaps()
        _same_as_fresh(t.store, tm)
    assert t.tilemaps[ent].edges is t.store.tile_edges(tm) is not old
    assert (int(t.leaf0[0]), int(t.nleaf[0])) == t.store.intern(tm)[:2]


def test_changes_since_lists_the_changed_tiles_in_order():
    tm = ep.TileMap(["##", "##"], 1.0)
    v = tm.version
    tm[0, 1] = 0
    tm[0, 1] = 0  # no change: not listed
    tm[1, 0] = 2  # a new kind: listed (its edges stay)
    tm[0, 1] = 1
    assert tm.changes_since(v) == [1, 2, 1]
    assert tm.changes_since(v + 2) == [1]
    assert tm.changes_since(tm.version + 1) is None


# ------------------------------------------------------------------ physics


SHAPES = [ep.Circle(0.3), ep.Rect(0.8, 0.3), ep.OrientedRect(0.7, 0.2, 30),
          ep.Segment((-0.4, 0.0), (0.4, 0.0)), ep.Polygon([(-0.3, -0.2), (0.3, -0.2), (0, 0.3)]),
          ep.Rect(5.5, 0.4)]


def _scene(name: str, grid: np.ndarray, bodies: int, fresh: bool, spacing: float = 1.7,
           top: float | None = None) -> tuple[ep.Physics, ep.TileMap, list[int], list[tuple]]:
    """A world of its own: the map, ``bodies`` bodies dropped on it; with ``fresh`` its store
    lays the map out afresh at every change (the oracle)."""
    if name in esper.list_worlds():
        esper.switch_world("default")
        esper.delete_world(name)
    esper.switch_world(name)
    physics = ep.Physics(fixed_dt=DT)
    events: list[tuple] = []
    for kind in ("touch", "keep_touching", "separate"):
        getattr(physics, f"on_{kind}")(lambda c, kind=kind: events.append(
            (kind, c.a, c.b, c.normal, c.depth, c.point, c.tile, c.tile_kind, c.speed)))
    tm = ep.TileMap(grid, 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    rows, cols = grid.shape
    y = rows + 0.6 if top is None else top
    ids = [esper.create_entity(ep.Position(0.7 + (spacing * i) % (cols - 1.4), y + i // 20),
                               ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                               ep.AccelerationMap(gravity=(0, -20)),
                               ep.Geometry(SHAPES[i % len(SHAPES)]))
           for i in range(bodies)]
    if fresh:
        store = physics.table.store
        store.take_tiles = lambda m: ShapeStore._lay_out(store, m, store._maps.get(id(m)))
        store.tile_edges = lambda m: None  # (the refresh asks the store at each change)
    return physics, tm, ids, events


def _state(physics: ep.Physics) -> tuple:
    t = physics.table
    n = t.n
    contacts = [(c.a, c.b, c.normal, c.depth, c.point, c.tile, c.tile_kind, c.speed, c.steps)
                for c in physics.contacts()]
    return (tuple(getattr(t, name)[:n].tobytes() for name in MOTION_COLUMNS), contacts)


def _run_both(world: str, grid: np.ndarray, bodies: int, steps: int, change, **kw) -> list:
    """Step the incremental world and the oracle with the same changes; compare each step.
    ``change(step, tm, positions, rng)`` changes the map before a step."""
    runs = {}
    for fresh in (False, True):
        physics, tm, ids, events = _scene(f"{world}-{fresh}", grid, bodies, fresh, **kw)
        rng = np.random.default_rng(len(grid))
        states = []
        for step in range(steps):
            pos = [esper.component_for_entity(e, ep.Position).xy for e in ids]
            change(step, tm, pos, rng)
            physics.step()
            states.append(_state(physics))
        runs[fresh] = (states, events, physics, tm)
    (inc, inc_events, inc_physics, tm), (ref, ref_events, _, _) = runs[False], runs[True]
    for step, (a, b) in enumerate(zip(inc, ref, strict=True)):
        assert a == b, f"step {step} differs"
    assert inc_events == ref_events
    store = inc_physics.table.store
    _same_as_fresh(store, tm)
    return inc_events


def _floor(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    grid = np.zeros((rows, cols), dtype=int)
    grid[rows // 2 :] = (rng.random((rows - rows // 2, cols)) < 0.7) * rng.integers(1, 4, cols)
    grid[rows // 2] = 1
    grid[-1] = 1
    return grid


def test_bodies_fall_into_dug_holes_and_leave_built_tiles_as_with_a_fresh_layout(world):
    rng = np.random.default_rng(3)
    grid = _floor(rng, 14, 40)

    def change(step, tm, pos, rng):
        if step < 60 or step % 4:
            return
        for x, y in pos:
            cell = tm.cell_at(x, y)
            below = tm.cell_at(x, y - 0.8)
            roll = rng.random()
            if cell is not None and roll < 0.3:
                tm[cell] = int(rng.integers(1, 4))  # built onto the body: pushed out
            elif below is not None and roll < 0.8:
                tm[below] = 0  # dug under it: it falls
            _toggle(tm, rng)

    events = _run_both(world, grid, 24, 300, change)
    assert sum(e[0] == "separate" and e[6] is not None for e in events) > 20
    assert sum(e[0] == "touch" and e[6] is not None for e in events) > 40


def test_every_tile_dug_and_built_back_as_with_a_fresh_layout(world):
    rng = np.random.default_rng(4)
    grid = _floor(rng, 10, 16)
    order = rng.permutation(grid.size).tolist()

    def change(step, tm, pos, rng):
        if step < 30:
            return
        k = (step - 30) * 3
        for j in range(k, k + 3):
            if j < grid.size:
                tm[order[j] // 16, order[j] % 16] = 0
            elif j < 2 * grid.size:
                t = order[j - grid.size]
                tm[t // 16, t % 16] = 1 + j % 3

    _run_both(world, grid, 8, 30 + 2 * grid.size // 3 + 40, change, spacing=1.9)


def test_a_300_by_300_map_dug_near_its_bodies_as_with_a_fresh_layout(world):
    rng = np.random.default_rng(6)
    grid = (rng.random((300, 300)) < 0.5).astype(int)
    grid[:4] = 0
    grid[4] = 1

    def change(step, tm, pos, rng):
        if step < 20:
            return
        x, y = pos[step % len(pos)]
        cell = tm.cell_at(x, y - 0.8)
        if cell is not None:
            tm[cell] = 0
        _toggle(tm, rng)

    _run_both(world, grid, 12, 50, change, spacing=23.0, top=296.8)


def test_the_public_functions_see_a_dug_map_as_a_fresh_one():
    rng = np.random.default_rng(8)
    tm = _random_map(rng, 20, 20, 0.5)
    for _ in range(3):
        for _ in range(15):
            _toggle(tm, rng)
        fresh = _fresh(tm)
        for _ in range(50):
            p = tuple(rng.uniform(-8, 60, 2))
            d = tuple(rng.uniform(-1, 1, 2))
            assert geometry.point_in(tm, (1.0, 2.0), p) == geometry.point_in(fresh, (1.0, 2.0), p)
            assert geometry.raycast(tm, (1.0, 2.0), p, d, 80.0) == \
                geometry.raycast(fresh, (1.0, 2.0), p, d, 80.0)
            c = ep.Circle(float(rng.uniform(0.2, 3.0)))
            assert geometry.contact(tm, (1.0, 2.0), c, p) == geometry.contact(fresh, (1.0, 2.0),
                                                                              c, p)


# ------------------------------------------------------------------ what a dig costs


def test_a_dig_keeps_the_range_and_costs_a_sliver_of_a_fresh_layout(world):
    rng = np.random.default_rng(9)
    grid = (rng.random((500, 500)) < 0.5).astype(int)
    physics = ep.Physics(fixed_dt=DT)
    tm = ep.TileMap(grid, 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    physics.step()
    t = physics.table
    store = t.store
    layout, row_range = t.layout_version, (int(t.leaf0[0]), int(t.nleaf[0]))
    full = []
    for _ in range(3):
        t0 = time.perf_counter()
        ShapeStore._lay_out(store, tm, store._maps[id(tm)])
        full.append(time.perf_counter() - t0)
    dig = []
    for _ in range(60):
        _toggle(tm, rng)
        t0 = time.perf_counter()
        t.refresh_tilemaps()
        dig.append(time.perf_counter() - t0)
    assert (int(t.leaf0[0]), int(t.nleaf[0])) == row_range
    assert t.layout_version == layout  # nothing the systems learnt of the layout changed
    assert np.median(dig) < min(full) / 50
