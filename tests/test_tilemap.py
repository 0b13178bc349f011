"""`ecsphys.TileMap`: a grid of tiles as the shape of one STATIC entity.

What these tests show:

- parsing and conventions: a text map and the equal int array make equal maps with equal
  edges; ``kinds`` numbers characters in order of first appearance; bool arrays; row 0 is the
  top row (``tile_box`` / ``cell_at`` checked against hand-computed numbers with a non-zero
  origin and tile size 2.5); bad input is rejected with an error naming the field;
- the merged outline is right: on random grids every unit boundary side of a solid tile
  (found by brute force) is covered by exactly one merged edge of its facing, every merged
  edge is made of such sides, and no two merged edges could be merged further;
- no snag at seams: circles and rects sliding along a floor, a wall and a ceiling of 300
  tiles keep their speed exactly and never leave the surface, and move exactly as along one
  long `Rect` of the same extent;
- the corners are real: a body slides off a ledge and falls, and stops against a one-tile
  step;
- no tunnelling: bodies at 300 .. 3000 units/s never cross a wall one tile thick;
- crowds in random maps never end a step with a centre inside a solid tile, and every touch
  with the map is followed by its separate (or is still touching at the end);
- events name the map entity: a ball dropped on a tile floor touches the map once and keeps
  touching it.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import esper
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.extra import numpy as hnp

import ecsphys as ep
from ecsphys import geometry
from ecsphys.mask import Mask
from ecsphys.tilemap import merged_edges

DT = 1 / 60
FACINGS = ("up", "down", "left", "right")

_worlds = itertools.count()


# ------------------------------------------------------------------ helpers


def _simulate(static_shape, body_shape, start, velocity, gravity=None, steps=60,
              static_pos=(0.0, 0.0)):
    """Step one ACTIVE body against one STATIC shape in a world of its own; the body's
    position after every step, as an ``(steps, 2)`` array."""
    previous = esper.current_world
    name = f"tilemap-sim-{next(_worlds)}"
    esper.switch_world(name)
    try:
        ep.Physics(fixed_dt=DT)
        esper.create_entity(ep.Position(*static_pos), ep.Collider(ep.STATIC),
                            ep.Geometry(static_shape))
        comps = [ep.Position(*start), ep.Velocity(*velocity), ep.Collider(ep.ACTIVE),
                 ep.Geometry(body_shape)]
        if gravity is not None:
            comps.append(ep.AccelerationMap(gravity=gravity))
        body = esper.create_entity(*comps)
        pos = esper.component_for_entity(body, ep.Position)
        out = np.empty((steps, 2))
        for i in range(steps):
            esper.process(DT)
            out[i] = (pos.x, pos.y)
        return out
    finally:
        esper.switch_world(previous)
        esper.delete_world(name)


def _unit_edges(solid: np.ndarray) -> set[tuple[int, int, int, int, int]]:
    """Brute force: every side of a solid tile whose neighbour is empty or outside, as a unit
    edge ``(x0, y0, x1, y1, facing)`` in grid units, y up from the bottom of the map."""
    rows, cols = solid.shape

    def empty(r: int, c: int) -> bool:
        return not (0 <= r < rows and 0 <= c < cols) or not solid[r, c]

    out = set()
    for r in range(rows):
        for c in range(cols):
            if not solid[r, c]:
                continue
            y = rows - 1 - r  # the tile's bottom, in tiles from the bottom of the map
            if empty(r - 1, c):  # the row above (row 0 is on top)
                out.add((c, y + 1, c + 1, y + 1, 0))
            if empty(r + 1, c):
                out.add((c, y, c + 1, y, 1))
            if empty(r, c - 1):
                out.add((c, y, c, y + 1, 2))
            if empty(r, c + 1):
                out.add((c + 1, y, c + 1, y + 1, 3))
    return out


def _pieces(edge: tuple[int, int, int, int, int]) -> list[tuple[int, int, int, int, int]]:
    """The unit edges a merged edge is made of (checks it is axis-aligned and well formed)."""
    x0, y0, x1, y1, f = edge
    assert all(isinstance(v, int) for v in edge), edge
    if f in (0, 1):
        assert y0 == y1 and x0 < x1, edge
        return [(x, y0, x + 1, y0, f) for x in range(x0, x1)]
    assert f in (2, 3), edge
    assert x0 == x1 and y0 < y1, edge
    return [(x0, y, x0, y + 1, f) for y in range(y0, y1)]


def _check_merged(solid: np.ndarray) -> None:
    """`merged_edges` against the brute-force unit edges (coverage, exactness, maximality)."""
    merged = merged_edges(solid)
    units = _unit_edges(solid)
    covered = Counter(p for e in merged for p in _pieces(e))
    # (b) every merged edge is a union of unit boundary edges of its facing
    assert set(covered) <= units, sorted(set(covered) - units)
    # (a) every unit boundary edge lies on exactly one merged edge of its facing
    missing = units - set(covered)
    assert not missing, sorted(missing)
    twice = [p for p, n in covered.items() if n != 1]
    assert not twice, twice
    # (c) maximal: no two edges of one facing on one line meet end to end (or overlap)
    for a, b in itertools.combinations(merged, 2):
        if a[4] != b[4]:
            continue
        horizontal = a[4] in (0, 1)
        if horizontal and a[1] == b[1]:
            assert a[2] < b[0] or b[2] < a[0], (a, b)
        elif not horizontal and a[0] == b[0]:
            assert a[3] < b[1] or b[3] < a[1], (a, b)


def _random_solid(rng: np.random.Generator, max_side: int = 12) -> np.ndarray:
    rows, cols = (int(v) for v in rng.integers(1, max_side + 1, size=2))
    solid = rng.random((rows, cols)) < rng.uniform(0.15, 0.85)
    if not solid.any():
        solid[rng.integers(rows), rng.integers(cols)] = True
    return solid


# ------------------------------------------------------------------ 1. parsing, conventions


def test_text_map_equals_int_array_and_numbers_kinds_by_first_appearance():
    text = "#.a\n#ab\n ##"
    arr = np.array([[1, 0, 2], [1, 2, 3], [0, 1, 1]])
    m_text = ep.TileMap(text, 1.5)
    m_rows = ep.TileMap(["#.a", "#ab", " ##"], 1.5)
    m_arr = ep.TileMap(arr, 1.5)
    # maps change (digging), so they are objects: equal only to themselves, same_tiles
    # compares their contents
    assert m_text.same_tiles(m_rows) and m_rows.same_tiles(m_arr)
    assert m_text == m_text and m_text != m_rows
    assert len({m_text, m_rows, m_arr}) == 3
    assert m_text.edges == m_rows.edges == m_arr.edges
    assert m_text.kinds == {"#": 1, "a": 2, "b": 3}
    assert m_arr.kinds is None
    assert m_text.shape == (3, 3)
    np.testing.assert_array_equal(m_text.grid, arr)
    assert [[m_text.kind(r, c) for c in range(3)] for r in range(3)] == arr.tolist()
    # "#" is always kind 1, even when another character comes first
    assert ep.TileMap(["x#", "#x"], 1.0).kinds == {"#": 1, "x": 2}
    # a triple-quoted map (leading and trailing newline) is the same map
    assert ep.TileMap("\n#.a\n#ab\n ##\n", 1.5).same_tiles(m_text)
    # equal grids with another tile size or origin are other maps
    assert not ep.TileMap(arr, 1.0).same_tiles(m_arr)
    assert not ep.TileMap(arr, 1.5, origin=(1, 0)).same_tiles(m_arr)
    # other kinds with the same solid tiles: another map, the same outline
    other = ep.TileMap(np.where(arr > 0, 7, 0), 1.5)
    assert not other.same_tiles(m_arr)
    assert other.edges == m_arr.edges


def test_bool_array_is_the_map_of_its_ones():
    solid = np.array([[True, False], [True, True]])
    m = ep.TileMap(solid, 2.0)
    assert m.same_tiles(ep.TileMap(solid.astype(int), 2.0))
    assert m.same_tiles(ep.TileMap(["#.", "##"], 2.0))
    assert m.kind(0, 0) == 1 and m.kind(0, 1) == 0
    assert m.kinds is None


def test_the_map_changes_only_through_its_tiles():
    m = ep.TileMap(["##"], 1.0)
    with pytest.raises(ValueError):
        m.grid[0, 0] = 0  # the grid is a read-only view: tiles change with m[row, col]
    with pytest.raises(AttributeError):
        m.tile_size = 2.0
    # the caller's array is not shared: changing it afterwards does not change the map
    arr = np.array([[1, 1]])
    m2 = ep.TileMap(arr, 1.0)
    arr[0, 0] = 0
    assert m2.kind(0, 0) == 1 and m2.same_tiles(m)


def test_row_zero_is_on_top_tile_box_and_cell_at():
    # 3 rows x 4 columns, tile size 2.5, bottom-left corner at (-3, 4):
    # columns start at x = -3, -0.5, 2, 4.5 (end 7); rows from the top: y in
    # [9, 11.5] (row 0), [6.5, 9] (row 1), [4, 6.5] (row 2)
    m = ep.TileMap(["#...", "....", "...#"], 2.5, origin=(-3, 4))
    assert m.shape == (3, 4)
    assert m.origin == (-3.0, 4.0) and m.tile_size == 2.5
    assert m.tile_box(0, 0) == pytest.approx((-3.0, 9.0, -0.5, 11.5))
    assert m.tile_box(2, 3) == pytest.approx((4.5, 4.0, 7.0, 6.5))
    assert m.tile_box(1, 2) == pytest.approx((2.0, 6.5, 4.5, 9.0))
    # the solid tiles: (0, 0) top-left and (2, 3) bottom-right
    assert m.bounds() == pytest.approx((-3.0, 4.0, 7.0, 11.5))
    edges = {(p0, p1, f) for p0, p1, f in m.edges}
    assert edges == {
        ((-3.0, 9.0), (-0.5, 9.0), "down"), ((-3.0, 11.5), (-0.5, 11.5), "up"),
        ((-3.0, 9.0), (-3.0, 11.5), "left"), ((-0.5, 9.0), (-0.5, 11.5), "right"),
        ((4.5, 4.0), (7.0, 4.0), "down"), ((4.5, 6.5), (7.0, 6.5), "up"),
        ((4.5, 4.0), (4.5, 6.5), "left"), ((7.0, 4.0), (7.0, 6.5), "right"),
    }
    # a tile's centre is in it
    for r in range(3):
        for c in range(4):
            x0, y0, x1, y1 = m.tile_box(r, c)
            assert m.cell_at((x0 + x1) / 2, (y0 + y1) / 2) == (r, c)
    assert m.cell_at(-2.0, 10.0) == (0, 0)
    assert m.cell_at(6.9, 4.1) == (2, 3)
    # shared sides belong to the tile to the right / above
    assert m.cell_at(-0.5, 10.0) == (0, 1)
    assert m.cell_at(0.0, 6.5) == (1, 1)
    assert m.cell_at(-0.5, 9.0) == (0, 1)
    assert m.cell_at(-3.0, 4.0) == (2, 0)  # the bottom-left corner is in the map
    # outside (the top and right sides of the map included)
    for x, y in [(-3.01, 5.0), (7.0, 5.0), (0.0, 11.5), (0.0, 3.99), (100.0, 100.0)]:
        assert m.cell_at(x, y) is None, (x, y)
    assert m.kind(0, 0) == 1 and m.kind(2, 3) == 1 and m.kind(2, 0) == 0
    for r, c in [(-1, 0), (3, 0), (0, 4), (0, -1)]:
        with pytest.raises(IndexError):
            m.kind(r, c)
        with pytest.raises(IndexError):
            m.tile_box(r, c)


def test_row_zero_is_on_top_for_arrays_too():
    grid = np.array([[0, 0, 2], [0, 0, 0]])  # one tile: top row, right column
    m = ep.TileMap(grid, 1.0)
    assert merged_edges(grid != 0) and all(e[1] >= 1 for e in merged_edges(grid != 0))
    assert m.bounds() == pytest.approx((0.0, 0.0, 3.0, 2.0))  # the whole grid
    # the tile sits in the top row: its outline spans y 1 .. 2
    assert min(min(p1[1], p2[1]) for p1, p2, _ in m.edges) == 1.0
    assert m.cell_at(2.5, 1.5) == (0, 2)
    assert m.kind(*m.cell_at(2.5, 1.5)) == 2
    assert m.cell_at(2.5, 0.5) == (1, 2)


def test_a_frame_with_a_hole_has_eight_edges():
    m = ep.TileMap(["###", "#.#", "###"], 2.0)
    got = {(p0, p1, f) for p0, p1, f in m.edges}
    assert len(m.edges) == 8
    assert got == {
        ((0.0, 0.0), (6.0, 0.0), "down"), ((0.0, 6.0), (6.0, 6.0), "up"),
        ((0.0, 0.0), (0.0, 6.0), "left"), ((6.0, 0.0), (6.0, 6.0), "right"),
        # the hole (x, y in [2, 4]): each side faces into it
        ((2.0, 2.0), (4.0, 2.0), "up"), ((2.0, 4.0), (4.0, 4.0), "down"),
        ((2.0, 2.0), (2.0, 4.0), "right"), ((4.0, 2.0), (4.0, 4.0), "left"),
    }


@pytest.mark.parametrize(("grid", "error"), [
    (np.zeros((2, 3), dtype=int), ValueError),  # no solid tile
    (np.zeros((2, 3), dtype=bool), ValueError),
    ("...\n. .", ValueError),
    (["...", "..."], ValueError),
    (np.ones((2, 2, 2), dtype=int), ValueError),  # 3D
    (np.ones(4, dtype=int), ValueError),  # 1D
    (np.array([[1, -1]]), ValueError),  # negative kind
    (np.zeros((0, 3), dtype=int), ValueError),  # empty
    (np.zeros((3, 0), dtype=int), ValueError),
    ("", ValueError),
    ([], ValueError),
    (np.ones((2, 2)), (TypeError, ValueError)),  # floats
    (np.array([[1.5, 0.0]]), (TypeError, ValueError)),
    ([[1, 0], [1]], (TypeError, ValueError)),  # ragged
    (None, (TypeError, ValueError)),
])
def test_bad_grid_is_rejected_naming_the_field(grid, error):
    with pytest.raises(error, match=r"TileMap\.grid"):
        ep.TileMap(grid, 1.0)


@pytest.mark.parametrize("size", [0, -1.0, math.nan, math.inf, "big", None])
def test_bad_tile_size_is_rejected_naming_the_field(size):
    with pytest.raises((ValueError, TypeError), match=r"TileMap\.tile_size"):
        ep.TileMap(["#"], size)


@pytest.mark.parametrize("origin", [(1.0,), (1.0, 2.0, 3.0), (math.nan, 0.0), (0.0, math.inf),
                                    5, ("a", 0)])
def test_bad_origin_is_rejected_naming_the_field(origin):
    with pytest.raises((ValueError, TypeError), match=r"TileMap\.origin"):
        ep.TileMap(["#"], 1.0, origin=origin)


# ------------------------------------------------------------------ 2. merged edges: oracle


def test_oracle_agrees_on_a_hand_example():
    solid = np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)
    # rows from the top: "##." above ".##"
    assert sorted(merged_edges(solid)) == sorted([
        (0, 2, 2, 2, 0), (2, 1, 3, 1, 0),  # tops
        (0, 1, 1, 1, 1), (1, 0, 3, 0, 1),  # bottoms
        (0, 1, 0, 2, 2), (1, 0, 1, 1, 2),  # left sides
        (2, 1, 2, 2, 3), (3, 0, 3, 1, 3),  # right sides
    ])
    _check_merged(solid)


@pytest.mark.parametrize("seed", range(30))
def test_merged_edges_match_brute_force_on_random_grids(seed):
    rng = np.random.default_rng(seed)
    solid = _random_solid(rng)
    _check_merged(solid)
    # the map's edges are the same runs, scaled and moved, with the facing's name
    size = float(rng.choice([0.5, 1.0, 2.5]))
    ox, oy = (float(v) for v in rng.uniform(-10, 10, size=2))
    kinds = np.where(solid, rng.integers(1, 4, size=solid.shape), 0)
    m = ep.TileMap(kinds, size, origin=(ox, oy))
    expect = {((ox + x0 * size, oy + y0 * size), (ox + x1 * size, oy + y1 * size), FACINGS[f])
              for x0, y0, x1, y1, f in merged_edges(solid)}
    assert set(m.edges) == expect
    assert len(m.edges) == len(expect)


@settings(max_examples=150)
@given(hnp.arrays(np.bool_, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=9)))
def test_merged_edges_match_brute_force_property(solid):
    _check_merged(solid)


# ------------------------------------------------------------------ 3. no snag at seams

N_TILES = 300
SPEED = 7.0
BODIES = {"circle": ep.Circle(0.4), "rect": ep.Rect(0.8, 0.8)}
# the tiles of one row (or column) of kinds 1, 2, 3, 1, ...: kinds never split an edge
_LINE = (np.arange(N_TILES) % 3 + 1)[None, :]
# surface: (tile map, the same extent as one Rect, start, velocity, gravity into the surface,
#           the axis moved along)
SURFACES = {
    # floor: tiles x in [0, 300], y in [0, 1]; the body rests on y = 1
    "floor": (ep.TileMap(_LINE, 1.0), ep.Rect(N_TILES, 1, offset=(N_TILES / 2, 0.5)),
              (0.5, 1.4), (SPEED, 0.0), (0.0, -9.8), 0),
    # wall: tiles x in [0, 1], y in [0, 300]; the body presses on x = 1 from the right
    "wall": (ep.TileMap(_LINE.T, 1.0), ep.Rect(1, N_TILES, offset=(0.5, N_TILES / 2)),
             (1.4, 0.5), (-1.0, SPEED), (-9.8, 0.0), 1),
    # ceiling: tiles x in [0, 300], y in [10, 11]; the body presses on y = 10 from below
    "ceiling": (ep.TileMap(_LINE, 1.0, origin=(0, 10)),
                ep.Rect(N_TILES, 1, offset=(N_TILES / 2, 10.5)),
                (0.5, 9.6), (SPEED, 1.0), (0.0, 9.8), 0),
}
# from one end of the surface to the other (the body stays on it: 0.5 .. 299.5)
SEAM_STEPS = int((N_TILES - 1.0) / SPEED / DT)


@pytest.mark.parametrize("gravity_on", [False, True], ids=["no-gravity", "gravity"])
@pytest.mark.parametrize("body", list(BODIES))
@pytest.mark.parametrize("surface", list(SURFACES))
def test_sliding_along_tiles_never_snags(surface, body, gravity_on):
    tiles, rect, start, velocity, gravity, axis = SURFACES[surface]
    shape = BODIES[body]
    g = gravity if gravity_on else None
    path = _simulate(tiles, shape, start, velocity, g, steps=SEAM_STEPS)
    along = np.concatenate(([start[axis]], path[:, axis]))
    across = path[:, 1 - axis]
    assert along[-1] > N_TILES - 2.0  # crossed the whole surface, every seam
    speed = np.diff(along) / DT
    worst = int(np.argmax(np.abs(speed - SPEED)))
    assert np.abs(speed - SPEED).max() <= 1e-9, (
        f"step {worst + 1}: speed {speed[worst]!r} at {path[worst]}")
    worst = int(np.argmax(np.abs(across - start[1 - axis])))
    assert np.abs(across - start[1 - axis]).max() <= 1e-9, (
        f"step {worst + 1}: left the surface, at {path[worst]}")
    # exactly as along one long rect of the same extent
    ref = _simulate(rect, shape, start, velocity, g, steps=SEAM_STEPS)
    assert np.abs(path - ref).max() <= 1e-9


# ------------------------------------------------------------------ 4. corners are real

HALF = {"circle": 0.4, "rect": 0.4}


@pytest.mark.parametrize("body", list(BODIES))
def test_body_slides_off_the_end_of_a_ledge_and_falls(body):
    # a ledge of 10 tiles (x in [0, 10], top y = 1) over nothing
    ledge = ep.TileMap(np.ones((1, 10), dtype=int), 1.0)
    path = _simulate(ledge, BODIES[body], (8.0, 1.4), (SPEED, 0.0), (0.0, -9.8), steps=60)
    x, y = path[:, 0], path[:, 1]
    on = x + HALF[body] < 10.0  # the whole body still over the ledge
    assert on.any() and np.abs(y[on] - 1.4).max() <= 1e-6
    past = np.flatnonzero(x - HALF[body] > 10.05)  # beyond the end: nothing under it
    assert len(past) > 20, x[-1]
    assert np.all(np.diff(y[past[0]:]) < 0.0)  # falling, faster and faster
    assert y[-1] < 1.4 - 2.0


@pytest.mark.parametrize("body", list(BODIES))
def test_body_walks_off_an_upper_ledge_onto_the_floor_below(body):
    ground = ep.TileMap(["..........",
                         "#####.....",
                         "##########"], 1.0)
    # upper ledge: top y = 2 for x in [0, 5]; the floor below: top y = 1 for x in [5, 10]
    path = _simulate(ground, BODIES[body], (1.0, 2.4), (4.0, 0.0), (0.0, -9.8), steps=120)
    x, y = path[:, 0], path[:, 1]
    assert np.abs(y[x + 0.4 < 5.0] - 2.4).max() <= 1e-6
    assert y[-1] == pytest.approx(1.4, abs=2e-2)  # landed on the lower floor
    assert 5.4 < x[-1] < 9.6


@pytest.mark.parametrize("body", list(BODIES))
def test_body_stops_against_a_one_tile_step(body):
    ground = ep.TileMap(["......#...",
                         "##########"], 1.0)
    # the floor's top is y = 1; the step is the tile x in [6, 7], y in [1, 2]
    path = _simulate(ground, BODIES[body], (1.0, 1.4), (SPEED, 0.0), (0.0, -9.8), steps=90)
    x, y = path[:, 0], path[:, 1]
    stop = 6.0 - HALF[body]
    assert x.max() <= stop + 1e-3, f"passed the step: x = {x.max()!r}"
    assert x[-1] == pytest.approx(stop, abs=2e-2)  # it did reach the step
    assert np.abs(y - 1.4).max() <= 1e-3  # and did not climb it


# ------------------------------------------------------------------ 5. no tunnelling

ROOM = 8  # tiles a side, the border solid: walls one tile thick
DIRECTIONS = [(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 2), (3, -1), (-2, -3)]
FAST_BODIES = {"circle": (ep.Circle(0.3), 0.3), "rect": (ep.Rect(0.5, 0.5), 0.25)}


def _room(size: float) -> ep.TileMap:
    grid = np.ones((ROOM, ROOM), dtype=int)
    grid[1:-1, 1:-1] = 0
    return ep.TileMap(grid, size)


@pytest.mark.parametrize("size", [1.0, 0.5])
@pytest.mark.parametrize("speed", [300.0, 900.0, 3000.0])
@pytest.mark.parametrize("body", list(FAST_BODIES))
def test_fast_bodies_never_cross_a_wall_one_tile_thick(body, speed, size):
    shape, half = FAST_BODIES[body]
    room = _room(size)
    lo, hi = size, (ROOM - 1) * size  # the inside of the room (between the walls)
    mid = ROOM * size / 2
    far = ROOM * size * 3
    for dx, dy in DIRECTIONS:
        n = math.hypot(dx, dy)
        v = (speed * dx / n, speed * dy / n)
        # from inside, fired at the walls: still inside after every step
        inside = _simulate(room, shape, (mid + 0.1, mid - 0.2), v, steps=60)
        ok = np.all((inside > lo + half - 1e-6) & (inside < hi - half + 1e-6), axis=1)
        assert ok.all(), (f"{body} at {v} escaped the room of tile size {size} at step "
                          f"{int(np.argmin(ok)) + 1}: {inside[int(np.argmin(ok))]}")
        # from outside, fired at the room: never inside its outer box
        start = (mid - far * dx / n + 0.1, mid - far * dy / n - 0.2)
        outside = _simulate(room, shape, start, v, steps=60)
        into = np.all((outside > -half + 1e-6) & (outside < ROOM * size + half - 1e-6), axis=1)
        assert not into.any(), (f"{body} at {v} from {start} entered the room of tile size "
                                f"{size} at step {int(np.argmax(into)) + 1}: "
                                f"{outside[int(np.argmax(into))]}")


def test_fast_body_stops_on_the_near_side_of_a_thin_wall():
    # the simplest case, spelled out: a wall x in [0, 0.5] of 400 tiles (y in [-100, 100])
    wall = ep.TileMap(np.ones((400, 1), dtype=int), 0.5, origin=(0, -100))
    for speed in (300.0, 900.0, 3000.0):
        left = _simulate(wall, ep.Circle(0.3), (-5.0, 0.0), (speed, 0.0), steps=60)
        assert left[:, 0].max() <= -0.3 + 1e-6
        assert left[-1, 0] == pytest.approx(-0.3, abs=2e-2)
        right = _simulate(wall, ep.Rect(0.5, 0.5), (5.0, 0.0), (-speed, 0.0), steps=60)
        assert right[:, 0].min() >= 0.75 - 1e-6
        assert right[-1, 0] == pytest.approx(0.75, abs=2e-2)


# ------------------------------------------------------------------ 6. random maps, crowds


@pytest.mark.parametrize("seed", [0, 1])
def test_crowd_in_a_random_map_never_ends_a_step_inside_a_tile(world, seed):
    rng = np.random.default_rng(seed)
    grid = (rng.random((20, 20)) < 0.3).astype(int)
    grid[0, :] = grid[-1, :] = grid[:, 0] = grid[:, -1] = 1
    tm = ep.TileMap(grid, 1.0, origin=(-10, -10))
    physics = ep.Physics(fixed_dt=DT)
    map_pos = (3.0, -2.0)
    tiles = esper.create_entity(ep.Position(*map_pos), ep.Collider(ep.STATIC),
                                ep.Geometry(tm))
    free = np.argwhere(grid == 0)
    balls = []
    for r, c in free[rng.choice(len(free), size=30, replace=False)]:
        x0, y0, x1, y1 = tm.tile_box(int(r), int(c))
        vx, vy = rng.uniform(-15, 15, size=2)
        balls.append(esper.create_entity(
            ep.Position(map_pos[0] + (x0 + x1) / 2, map_pos[1] + (y0 + y1) / 2),
            ep.Velocity(float(vx), float(vy)), ep.Collider(ep.ACTIVE),
            ep.Geometry(ep.Circle(0.3))))
    # per (ball, tile): a ball touching several tiles of the map has a contact per tile
    events: dict[tuple[int, tuple[int, int]], list[str]] = {}

    def record(name):
        def handler(c):
            if tiles in c.pair:
                assert c.tile is not None and tm.kind(*c.tile) == c.tile_kind > 0, c
                events.setdefault((c.other(tiles), c.tile), []).append(name)
        return handler

    physics.on_touch(record("touch"))
    physics.on_separate(record("separate"))
    positions = [esper.component_for_entity(b, ep.Position) for b in balls]
    for step in range(1, 301):
        esper.process(DT)
        for b, p in zip(balls, positions, strict=True):
            cell = tm.cell_at(p.x - map_pos[0], p.y - map_pos[1])
            assert cell is not None, f"step {step}: ball {b} left the map at {p.xy}"
            assert tm.kind(*cell) == 0, f"step {step}: ball {b} in solid tile {cell} at {p.xy}"
    assert events, "no ball ever touched the map"
    for b in balls:
        mine = {tile: seq for (ball, tile), seq in events.items() if ball == b}
        for seq in mine.values():
            # touch, separate, touch, separate, ...: never two of one kind in a row
            assert seq == ["touch", "separate"] * (len(seq) // 2) + ["touch"] * (len(seq) % 2)
        open_tiles = {tile for tile, seq in mine.items() if seq[-1] == "touch"}
        now = {c.tile for c in physics.contacts_of(b) if tiles in c.pair}
        assert now == open_tiles, (b, now, open_tiles)
        assert (tiles in physics.touching(b)) == bool(open_tiles)


# ------------------------------------------------------------------ 7. events name the map


def test_ball_dropped_on_a_seam_touches_both_tiles_once_and_keeps_touching(world):
    physics = ep.Physics(fixed_dt=DT)
    floor = esper.create_entity(ep.Position(-5, 0), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.TileMap(np.ones((1, 10), dtype=int), 1.0)))
    # dropped on the seam between two tiles (x = 0 is the side between columns 4 and 5)
    ball = esper.create_entity(ep.Position(0, 3), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(0.5)),
                               ep.AccelerationMap(gravity=(0, -9.8)))
    log: list[tuple[str, int, ep.BodyContact]] = []
    physics.on_touch(lambda c: log.append(("touch", physics.steps, c)))
    physics.on_separate(lambda c: log.append(("separate", physics.steps, c)))
    for _ in range(90):
        esper.process(DT)
    # on the seam it touches both tiles: one touch for each, in tile order, and no more
    assert [name for name, _, _ in log] == ["touch", "touch"]
    assert [c.tile for _, _, c in log] == [(0, 4), (0, 5)]
    assert [c.tile_kind for _, _, c in log] == [1, 1]
    for _, _, c in log:
        assert set(c.pair) == {floor, ball}
        assert c.other(ball) == floor
        assert c.normal_from(floor) == pytest.approx((0.0, 1.0), abs=1e-6)
        assert c.speed > 5.0  # a real impact (about 7 units/s after a fall of 1.5)
    assert physics.touching(ball) == [floor]
    assert physics.touching(floor) == [ball]
    # one contact per tile touched, not one per edge
    assert [c.tile for c in physics.contacts_of(ball)] == [(0, 4), (0, 5)]
    pos = esper.component_for_entity(ball, ep.Position)
    assert pos.x == pytest.approx(0.0, abs=1e-9)
    assert pos.y == pytest.approx(1.5, abs=2e-2)


# ------------------------------------------------------------------ 8. contacts per tile


def _tile_gap(tm: ep.TileMap, map_pos: tuple[float, float], shape: ep.Shape,
              pos: tuple[float, float], row: int, col: int) -> float:
    """Brute force: how far ``shape`` at ``pos`` is from tile (row, col)'s square."""
    x0, y0, x1, y1 = tm.tile_box(row, col)
    square = ep.Rect(x1 - x0, y1 - y0)
    centre = (map_pos[0] + (x0 + x1) / 2, map_pos[1] + (y0 + y1) / 2)
    return geometry.distance(shape, pos, square, centre).distance


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_contacts_name_the_tiles_a_brute_force_scan_finds(world, seed):
    """Every step, the tiles each body has a contact with are exactly the solid tiles with an
    open side whose squares it is within the contact offset of (a new contact) or within the
    separation offset (a contact kept from the step before; hysteresis per tile), scanning
    every tile of a random map."""
    rng = np.random.default_rng(seed)
    grid = rng.integers(1, 4, (14, 14)) * (rng.random((14, 14)) < 0.3)
    grid[0, :] = grid[-1, :] = grid[:, 0] = grid[:, -1] = 1
    tm = ep.TileMap(grid, 1.0)
    physics = ep.Physics(fixed_dt=DT)
    map_pos = (2.0, 1.0)
    tiles = esper.create_entity(ep.Position(*map_pos), ep.Collider(ep.STATIC), ep.Geometry(tm))
    free = np.argwhere(grid == 0)
    bodies = []
    for k, (r, c) in enumerate(free[rng.choice(len(free), size=12, replace=False)]):
        x0, y0, x1, y1 = tm.tile_box(int(r), int(c))
        shape = ep.Circle(0.35) if k % 2 else ep.Rect(0.6, 0.5)
        e = esper.create_entity(
            ep.Position(map_pos[0] + (x0 + x1) / 2, map_pos[1] + (y0 + y1) / 2),
            ep.Velocity(*rng.uniform(-6, 6, size=2).tolist()), ep.Collider(ep.ACTIVE),
            ep.Geometry(shape), ep.AccelerationMap(gravity=(0.0, -9.8)))
        bodies.append((e, shape))
    # the tiles a body can touch: solid with an open side (a buried tile is out of reach;
    # where its corner meets the body, the exposed tiles around that corner are touched)
    pad = np.pad(grid > 0, 1, constant_values=False)
    buried = pad[:-2, 1:-1] & pad[2:, 1:-1] & pad[1:-1, :-2] & pad[1:-1, 2:]
    solid = [tuple(map(int, rc)) for rc in np.argwhere((grid > 0) & ~buried)]
    # the tiles' boxes in the world: a shape is no nearer a square than the boxes' gap, so a
    # tile whose box is farther than the contact offset needs no exact distance unless it
    # has a contact (a filter only: every tile with a contact or in reach is measured)
    boxes = np.array([tm.tile_box(*rc) for rc in solid]) + np.array([*map_pos, *map_pos])
    before: dict[int, set[tuple[int, int]]] = {e: set() for e, _ in bodies}
    checked = 0
    for _ in range(120):
        esper.process(DT)
        for e, shape in bodies:
            pos = esper.component_for_entity(e, ep.Position).xy
            got = {}
            cs = physics.contact_set
            mine = ((cs.a == e) & (cs.b == tiles)) | ((cs.b == e) & (cs.a == tiles))
            for k in np.flatnonzero(mine):
                rc = (int(cs.tile[k]) >> 32, int(cs.tile[k]) & 0xFFFFFFFF)
                assert rc not in got, rc  # one contact per tile
                got[rc] = (int(cs.tile_kind[k]), float(cs.toi[k]))
            lo = np.add(shape.bounds()[:2], pos)
            hi = np.add(shape.bounds()[2:], pos)
            box_gap = np.hypot(*np.maximum(0.0, np.maximum(boxes[:, :2] - hi, lo - boxes[:, 2:])).T)
            for i, rc in enumerate(solid):
                if rc not in got and box_gap[i] > physics.contact_offset:
                    continue  # out of reach: the shape is at least box_gap from the square
                gap = _tile_gap(tm, map_pos, shape, pos, *rc)
                if rc in got:
                    kind, toi = got[rc]
                    assert tm.kind(*rc) == kind
                    limit = physics.separation_offset if rc in before[e] else \
                        physics.contact_offset
                    # a tile met during the step may be left apart at its end
                    assert gap <= limit + 1e-9 or toi < math.inf, (e, rc, gap)
                    checked += 1
                elif gap <= physics.contact_offset - 1e-9:
                    # touching but not reported: only a tile the body grazes from behind an
                    # edge that faces away (one-sided edges), never a tile it stands on
                    pytest.fail(f"body {e} at {pos} is {gap} from tile {rc} but has no contact")
            before[e] = set(got)
    assert checked > 50


def test_a_body_sliding_along_a_floor_touches_each_tile_in_turn(world):
    """Along a floor of five kinds of tiles, a box touches each tile as it reaches it and
    separates from it when it has passed it: per tile, one touch then one separate, in order,
    and the kind of each tile comes with its contact (spikes hurt, coins vanish...)."""
    physics = ep.Physics(fixed_dt=DT)
    level = ep.TileMap(["....................", "##^^o##^##o#########"], 1.0)
    spike, coin = level.kinds["^"], level.kinds["o"]
    floor = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    box = esper.create_entity(ep.Position(0.5, 1.4), ep.Velocity(6, 0), ep.Collider(ep.ACTIVE),
                              ep.Geometry(ep.Rect(0.8, 0.8)),
                              ep.AccelerationMap(gravity=(0, -9.8)))
    log: list[tuple[str, tuple[int, int], int]] = []
    physics.on_touch(lambda c: log.append(("touch", c.tile, c.tile_kind)))
    physics.on_separate(lambda c: log.append(("separate", c.tile, c.tile_kind)))
    for _ in range(150):
        esper.process(DT)
    assert esper.component_for_entity(box, ep.Position).x > 15
    touched = [tile for name, tile, _ in log if name == "touch"]
    assert touched == [(1, c) for c in range(len(touched))]  # each tile once, left to right
    for tile in touched[:-2]:  # passed: separated after its touch
        names = [name for name, t, _ in log if t == tile]
        assert names == ["touch", "separate"], (tile, names)
    kinds = {tile: kind for _, tile, kind in log}
    assert [c for (_, c), k in kinds.items() if k == spike] == [2, 3, 7]
    assert [c for (_, c), k in kinds.items() if k == coin] == [4, 10]
    assert all(c.pair == (floor, box) for c in physics.contacts_of(box))


# ------------------------------------------------------------------ 9. digging and building


def test_dig_and_build_keep_the_edges_of_a_fresh_map():
    """After any sequence of digs and builds, a map's edges are those of a map made from
    scratch with the same tiles (only the lines around each changed tile were merged again)."""
    rng = np.random.default_rng(5)
    m = ep.TileMap(rng.integers(0, 3, (9, 12)) * (rng.random((9, 12)) < 0.5) + np.eye(9, 12,
                                                                                    dtype=int),
                   1.5, origin=(2, -1))
    for _ in range(300):
        r, c = int(rng.integers(9)), int(rng.integers(12))
        m[r, c] = int(rng.integers(0, 4)) if rng.random() < 0.7 else 0
        if not m.grid.any():
            continue
        fresh = ep.TileMap(m.grid.copy(), 1.5, origin=(2, -1))
        assert sorted(m.edges) == sorted(fresh.edges)
        assert m.same_tiles(fresh)


def test_tile_writes_are_checked():
    m = ep.TileMap(["##", "#."], 1.0)
    version = m.version
    for key, exc in [((2, 0), IndexError), ((0, -1), IndexError), ((0,), TypeError),
                     ((0.5, 1), TypeError), ("a", TypeError)]:
        with pytest.raises(exc, match="TileMap"):
            m[key] = 0
    for kind, exc in [(-1, ValueError), (1.5, TypeError), ("#", TypeError), (None, TypeError)]:
        with pytest.raises(exc, match=r"TileMap\[0, 0\]"):
            m[0, 0] = kind
    assert m.version == version and m[0, 0] == 1  # nothing changed
    m[1, 1] = True  # a bool builds kind 1
    assert m[1, 1] == 1 and m.version == version + 1
    m[1, 1] = 1  # the same kind again: no change
    assert m.version == version + 1


def test_digging_under_a_resting_body_drops_it_and_separates(world):
    physics = ep.Physics(fixed_dt=DT)
    level = ep.TileMap(["......", "......", "######", "......", "######"], 1.0)
    floor = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    box = esper.create_entity(ep.Position(2.5, 3.41), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                              ep.Geometry(ep.Rect(0.8, 0.8)),
                              ep.AccelerationMap(gravity=(0, -9.8)))
    log: list[tuple[str, int, tuple[int, int] | None]] = []
    physics.on_touch(lambda c: log.append(("touch", physics.steps, c.tile)))
    physics.on_separate(lambda c: log.append(("separate", physics.steps, c.tile)))
    pos = esper.component_for_entity(box, ep.Position)
    for _ in range(30):
        esper.process(DT)
    assert pos.y == pytest.approx(3.4, abs=1e-3)  # resting on tile (2, 2)
    assert [t for name, _, t in log] == [(2, 2)]
    log.clear()
    level[2, 2] = 0  # dig the tile it stands on
    steps = physics.steps
    for _ in range(60):
        esper.process(DT)
    assert ("separate", steps + 1, (2, 2)) in log  # at the next step
    assert pos.y == pytest.approx(1.4, abs=1e-3)  # fell into the hole, onto the lower floor
    assert ("touch", (4, 2)) in [(name, t) for name, _, t in log]
    assert physics.touching(box) == [floor]
    # building the tile back where the box now lies one row below does not touch it
    level[2, 2] = 1
    esper.process(DT)
    assert pos.y == pytest.approx(1.4, abs=1e-3)


@pytest.mark.parametrize(("shape", "start", "out"), [
    (ep.Circle(0.3), (2.5, 1.8), (2.5, 2.3)),    # near the top of the tile: out the top
    (ep.Rect(0.4, 0.4), (2.5, 1.75), (2.5, 2.2)),  # a box too
    (ep.Circle(0.3), (2.9, 1.5), (3.3, 1.5)),    # nearer the right side: out to the right
    (ep.Circle(0.3), (2.5, 1.45), (1.7, 1.45)),  # in the middle: sideways is shortest (0.8
])                                               # against 0.85 up), left on a tie
def test_building_a_tile_on_a_body_pushes_it_out_the_short_way(world, shape, start, out):
    ep.Physics(fixed_dt=DT)
    level = ep.TileMap(["......", "......", "......", "######"], 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    body = esper.create_entity(ep.Position(*start), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                               ep.Geometry(shape))
    esper.process(DT)
    level[2, 2] = 1  # build the tile the body is in (x 2..3, y 1..2)
    esper.process(DT)
    pos = esper.component_for_entity(body, ep.Position)
    assert pos.xy == pytest.approx(out, abs=2e-3)
    for _ in range(20):  # and it stays out, not inside any tile
        esper.process(DT)
        cell = level.cell_at(pos.x, pos.y)
        assert cell is None or level[cell] == 0


def test_digging_does_not_grow_the_store(world):
    physics = ep.Physics(fixed_dt=DT)
    level = ep.TileMap(np.ones((30, 30), dtype=int), 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    esper.create_entity(ep.Position(-5, 5), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                        ep.Geometry(ep.Circle(0.4)))
    esper.process(DT)
    store = physics.table.store
    rng = np.random.default_rng(1)
    sizes = []
    for _ in range(200):
        level[int(rng.integers(1, 29)), int(rng.integers(1, 29))] = int(rng.integers(0, 2))
        esper.process(DT)
        sizes.append((store.leaves, store.ncells))
    # a chequered map needs more room once, then the region is rewritten in place
    assert len(set(sizes[len(sizes) // 2:])) <= 2


# ------------------------------------------------------------------ 10. queries


def test_point_queries_see_the_solid_tiles():
    m = ep.TileMap(["#..#", "#..#", "####"], 1.0)
    at = (10.0, 0.0)
    assert geometry.point_in(m, at, (10.5, 0.5))  # inside a floor tile
    assert geometry.point_in(m, at, (10.5, 2.5))  # inside a wall tile
    assert not geometry.point_in(m, at, (11.5, 1.5))  # an empty tile
    assert geometry.point_in(m, at, (11.5, 1.0))  # on the floor's top edge
    assert not geometry.point_in(m, at, (9.5, 0.5))  # left of the map
    assert not geometry.point_in(m, at, (12.0, 3.5))  # above it


@pytest.mark.parametrize("seed", range(4))
def test_rays_hit_what_a_scan_of_the_tile_squares_hits(seed):
    """The first hit of a ray from an empty tile is the nearest hit among all the solid
    tiles' squares (brute force), with the same normal."""
    rng = np.random.default_rng(seed)
    grid = (rng.random((10, 12)) < 0.35).astype(int)
    m = ep.TileMap(grid, 1.0)
    at = (-3.0, 2.0)
    free = np.argwhere(grid == 0)
    solid = np.argwhere(grid > 0)
    for _ in range(40):
        r, c = free[rng.integers(len(free))]
        x0, y0, x1, y1 = m.tile_box(int(r), int(c))
        origin = (at[0] + rng.uniform(x0 + 0.1, x1 - 0.1), at[1] + rng.uniform(y0 + 0.1, y1 - 0.1))
        ang = rng.uniform(0, 2 * math.pi)
        direction = (math.cos(ang), math.sin(ang))
        got = geometry.raycast(m, at, origin, direction, 30.0)
        best = None
        for rr, cc in solid:
            bx0, by0, bx1, by1 = m.tile_box(int(rr), int(cc))
            hit = geometry.raycast(ep.Rect(1.0, 1.0), (at[0] + (bx0 + bx1) / 2,
                                                      at[1] + (by0 + by1) / 2),
                                   origin, direction, 30.0)
            if hit is not None and (best is None or hit[0] < best[0]):
                best = hit
        if best is None:
            assert got is None
        else:
            assert got is not None, (origin, direction, best)
            assert got[0] == pytest.approx(best[0], abs=1e-9)
            hx = origin[0] + direction[0] * got[0] - at[0]
            hy = origin[1] + direction[1] * got[0] - at[1]
            at_corner = abs(hx - round(hx)) < 1e-6 and abs(hy - round(hy)) < 1e-6
            if not at_corner:  # a side's normal (at a corner either side's is right)
                assert got[1] == pytest.approx(best[1], abs=1e-9)


def test_bullets_bouncing_in_a_tile_room_never_leave_it(world):
    """The bullet benchmark's speeds (200 .. 2,000 units/s, radius 0.05, restitution 1) in a
    room whose walls are one tile thick: after every step every bullet is inside."""
    rng = np.random.default_rng(0)
    physics = ep.Physics(fixed_dt=DT)
    room = np.ones((12, 12), dtype=int)
    room[1:-1, 1:-1] = 0
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.TileMap(room, 1.0, origin=(-6, -6))))
    bullets = []
    for _ in range(150):
        speed, ang = rng.uniform(200, 2000), rng.uniform(0, 2 * math.pi)
        bullets.append(esper.create_entity(
            ep.Position(*rng.uniform(-4.5, 4.5, 2).tolist()),
            ep.Velocity(speed * math.cos(ang), speed * math.sin(ang)),
            ep.Collider(ep.ACTIVE, restitution=1.0), ep.Geometry(ep.Circle(0.05))))
    esper.process(DT)
    rows = np.array([physics.table.row_of[b] for b in bullets])
    for step in range(200):
        esper.process(DT)
        pos = physics.table.pos[rows]
        assert np.abs(pos).max() < 5.0, (step, np.abs(pos).max())


# ------------------------------------------------------------ one-sided edges push to the open side

PIT = ["#.#", "###"]  # a pit 1 wide between x 1 and 2, its floor at y = 1, its walls to y = 2


def _solid_at(tm: ep.TileMap, x: float, y: float) -> bool:
    cell = tm.cell_at(x, y)
    return cell is not None and tm[cell] != 0


@pytest.mark.parametrize("kind", ["mask", "segment", "circle", "rect", "polygon"])
@pytest.mark.parametrize("y", [1.05, 1.3, 1.6, 1.9, 2.25])
def test_a_contact_with_a_tile_map_never_points_into_the_solid(kind, y):
    """A body whose centre is in the pit and that overlaps its floor or walls is pushed out to
    the open side of an edge it overlaps: moved by the contact's depth along the contact's
    normal (reversed: the normal points from the body to the map), it no longer overlaps the
    edge it was pushed from, and its centre is not in a solid tile. (A mask's overlap
    gradient and a segment's least overlap pointed down into the floor: a mask 0.05 above
    the floor was sent 0.85 down, wholly inside the tiles, where nothing touches it.)"""
    tm = ep.TileMap(PIT, 1.0)
    shape = {"mask": Mask(np.ones((16, 16), bool), 0.1),
             "segment": ep.Segment((-0.8, -0.3), (0.8, 0.3)),
             "circle": ep.Circle(0.8), "rect": ep.Rect(1.6, 1.6),
             "polygon": ep.Polygon([(-0.8, -0.8), (0.8, -0.8), (0, 0.8)])}[kind]
    c = geometry.contact(shape, (1.5, y), tm, (0, 0))
    assert c is not None and c.depth > 0.0
    nx, ny = c.normal
    out = (1.5 - nx * c.depth, y - ny * c.depth)
    assert not _solid_at(tm, *out), f"pushed into the solid: {c} -> {out}"
    # the edge it was pushed from faces the way it was pushed
    assert (nx, ny) in ((0.0, -1.0), (-1.0, 0.0), (1.0, 0.0)) or ny < 0.0, c


def test_a_mask_in_a_pit_is_pushed_up_out_of_the_floor():
    """The long soak's case: a mask 0.05 above a pit's floor overlapping it by 0.75 leaves it
    upwards, by the overlap (to a millionth)."""
    tm = ep.TileMap(["...", "###"], 1.0)
    mask = Mask(np.ones((16, 16), bool), 0.1)  # 1.6 square, its bottom at y - 0.8
    for y in (1.05, 1.3, 1.6):
        c = geometry.contact(mask, (1.5, y), tm, (0, 0))
        assert c.normal == pytest.approx((0.0, -1.0))
        assert c.depth == pytest.approx(1.0 - (y - 0.8), abs=1e-6)


def test_a_mask_wider_than_a_pit_never_sinks_into_its_floor(world):
    """A passive mask wider than the pit it is dropped into (a tile built beside it) is pushed
    between the walls, but never into the floor's tiles, step after step."""
    ep.Physics(fixed_dt=1 / 60)
    tm = ep.TileMap(["#.#", "#.#", "###"], 1.2)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    mask = Mask(np.ones((14, 14), bool), 0.127)  # 1.78 wide, the pit 1.2
    e = esper.create_entity(ep.Position(1.8, 1.2 + 0.89 + 0.2), ep.Velocity(0, -0.2),
                            ep.AccelerationMap(gravity=(0, -9.8)),
                            ep.Collider(ep.PASSIVE, mass=2.0), ep.Geometry(mask))
    for _ in range(120):
        esper.process(1 / 60)
        p = esper.component_for_entity(e, ep.Position)
        assert math.isfinite(p.x) and math.isfinite(p.y)
        assert p.y > 1.2, f"the mask's centre went into the pit's floor: {p.x, p.y}"
        assert not _solid_at(tm, p.x, p.y), (p.x, p.y)


def test_a_thin_body_in_a_corner_of_floor_and_wall_is_pushed_up_not_through_the_wall():
    """The soak's case: a thin upright segment 0.001 from a wall, its lower end 0.8 into the
    floor. Sideways by 0.001 clears the floor edge's end, but the wall is there (a concave
    corner), so the only way out is up, by the 0.8."""
    tm = ep.TileMap(["#..", "###"], 1.0)  # the wall's side at x = 1, the floor's top at y = 1
    stick = ep.Segment((0.0, -1.0), (0.0, 1.0))
    c = geometry.contact(stick, (1.001, 1.2), tm, (0, 0))  # from y 0.2 to 2.2
    assert c.normal == pytest.approx((0.0, -1.0))
    assert c.depth == pytest.approx(0.8, abs=1e-6)


def test_a_ball_at_a_ledge_keeps_the_corner_normal():
    """At a convex corner (a ledge: nothing beyond the floor's end) a ball beside the end is
    pushed out sideways from the corner, the short way, not lifted onto the floor."""
    tm = ep.TileMap(["##.", "###"], 1.0)  # the step's top at y = 2 ends at x = 2
    ball = ep.Circle(0.5)
    c = geometry.contact(ball, (2.45, 2.1), tm, (0, 0))  # 0.45 right of the corner, 0.1 up
    nx, ny = c.normal  # from the ball to the map: towards the corner
    assert nx < -0.9 and -0.3 < ny < 0.0, c
    assert c.depth == pytest.approx(0.5 - math.hypot(0.45, 0.1), abs=1e-9)
