"""A tile write is compiled (``ecsphys/state/tile_log.pyx``): ``tilemap[row, col] = kind``
writes the kind and logs the tile, and the physics takes the logged tiles at its next step.

What these tests show:

- plain ints take the compiled path, anything else is checked as before (numpy ints and
  bools allowed); every bad index or kind raises naming the tile and the value, and leaves
  the map as it was (its tiles, its version, its log); ints too large for C are refused, not
  wrapped;
- the log lists the changes in order, forgets them past its size (then a reader lays the
  whole map out again), gives the box of the changed tiles; a map pickles with its log and
  goes on logging after it is unpickled; a tampered pickled log is refused;
- physics: many digs and builds between two steps (a few, more than the response looks at
  tile by tile, more than the log keeps), digs at the map's borders and corners, and a tile
  dug and built back before a step give the positions and contacts of a world whose map
  was made afresh from the final grid (or, for the tile put back, of a world where nothing
  changed).
"""

from __future__ import annotations

import pickle

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys.state.tile_log import TileLog, _restored

DT = 1 / 60


# ------------------------------------------------------------------ writes


def test_plain_and_numpy_ints_and_bools_write_a_tile():
    m = ep.TileMap(["###", "#.#"], 1.0)
    v = m.version
    m[1, 1] = 2
    m[np.int64(0), np.int32(1)] = np.int16(3)
    m[0, 0] = False
    m[1, 1] = True
    assert m.grid.tolist() == [[0, 3, 1], [1, 1, 1]]
    assert m.version == v + 4
    assert m.changes_since(v) == [4, 1, 0, 4]
    assert m[np.int64(1), 1] == 1 and m[0, 1] == 3


@pytest.mark.parametrize(("key", "kind", "error", "words"), [
    ((0, 3), 1, IndexError, "(0, 3)"),
    ((-1, 0), 1, IndexError, "(-1, 0)"),
    ((2**70, 0), 1, IndexError, str(2**70)),
    ((True, 0), 1, TypeError, "(True, 0)"),
    ((0.0, 1), 1, TypeError, "(0.0, 1)"),
    ([0, 1], 1, TypeError, "[0, 1]"),
    ((0, 1, 2), 1, TypeError, "(0, 1, 2)"),
    ((0, 1), -1, ValueError, "-1"),
    ((0, 1), 2**31, ValueError, str(2**31)),
    ((0, 1), 2**70, ValueError, str(2**70)),
    ((0, 1), np.int64(-5), ValueError, "-5"),
    ((0, 1), 1.0, TypeError, "1.0"),
    ((0, 1), "#", TypeError, "'#'"),
    ((0, 1), None, TypeError, "None"),
])
def test_a_bad_write_names_the_tile_and_value_and_changes_nothing(key, kind, error, words):
    m = ep.TileMap(["###", "#.#"], 1.0)
    m[1, 1] = 2  # something in the log
    grid, v, log = m.grid.copy(), m.version, m.changes_since(0)
    with pytest.raises(error, match="TileMap") as caught:
        m[key] = kind
    assert words in str(caught.value)
    assert np.array_equal(m.grid, grid) and m.version == v and m.changes_since(0) == log


def test_a_map_of_a_transposed_or_strided_array_digs_as_its_copy():
    base = np.random.default_rng(0).integers(0, 3, (7, 5))
    for grid in (base.T, base[::2, ::-1], np.asfortranarray(base)):
        m = ep.TileMap(grid, 1.0)
        m[0, 0] = 0 if m[0, 0] else 2
        want = np.array(grid)
        want[0, 0] = m[0, 0]
        assert np.array_equal(m.grid, want) and not np.shares_memory(m.grid, grid)
        assert sorted(m.edges) == sorted(ep.TileMap(want, 1.0).edges)


def test_a_bad_read_raises_as_before():
    m = ep.TileMap(["#."], 1.0)
    with pytest.raises(IndexError, match=r"\(0, 2\)"):
        m[0, 2]  # noqa: B018
    with pytest.raises(TypeError, match="two ints"):
        m[0, 0.5]  # noqa: B018
    assert m[0, 0] == 1 and m[0, 1] == 0


def test_the_log_forgets_changes_past_its_size_and_readers_then_read_the_grid():
    m = ep.TileMap(np.ones((16, 16), dtype=int), 1.0)  # keeps 64 + 256 // 16 = 80 changes
    for k in range(80):
        m[k // 16, k % 16] = 0
    assert m.changes_since(0) == list(range(80))
    m[15, 15] = 0  # the 81st: the log starts again after version 80
    assert m.version == 81
    assert m.changes_since(0) is None and m.changes_since(79) is None
    assert m.changes_since(80) == [255]
    assert m.changes_since(82) is None  # not yet


def test_changed_box_and_region_of_the_logged_tiles():
    tiles = TileLog(np.zeros((6, 8), dtype=np.int32))
    tiles.set((4, 1), 1)
    tiles.set((2, 6), 3)
    tiles.set((2, 6), 0)
    assert tiles.changed_box(0, 10) == (2, 1, 4, 6)
    assert tiles.changed_box(3, 10) == (6, 8, -1, -1)  # none since: an empty box
    assert tiles.changed_box(0, 2) is None  # more than 2 changes
    assert tiles.changed_box(4, 10) is None  # a version to come
    regions: dict[int, list[float]] = {}
    assert tiles.note_region(regions, 7, 2, 10, 0.5, (1.0, -2.0))  # the last change: (2, 6)
    # columns 5 .. 7 and rows up 2 .. 4 (a tile around), in world units from the origin
    assert regions[7] == [1.0 + 5 * 0.5, -2.0 + 2 * 0.5, 1.0 + 8 * 0.5, -2.0 + 5 * 0.5]
    assert tiles.note_region(regions, 7, 0, 10, 0.5, (1.0, -2.0))  # grown by (4, 1) too
    assert regions[7] == [1.0 + 0 * 0.5, -2.0 + 0 * 0.5, 1.0 + 8 * 0.5, -2.0 + 5 * 0.5]
    assert not tiles.note_region(regions, 8, 0, 2, 0.5, (0.0, 0.0)) and 8 not in regions


def test_a_log_takes_only_a_writable_int32_grid():
    with pytest.raises(ValueError):
        TileLog(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ValueError):
        TileLog(np.zeros((2, 4), dtype=np.int32)[:, ::2])  # not contiguous
    frozen = np.zeros((2, 2), dtype=np.int32)
    frozen.setflags(write=False)
    with pytest.raises(ValueError):
        TileLog(frozen)


def test_a_map_pickles_with_its_log_and_goes_on_logging():
    m = ep.TileMap(["#..", "###"], 2.0, origin=(1, 1))
    m[0, 1] = 5
    m[1, 2] = 0
    back = pickle.loads(pickle.dumps(m))
    assert back.same_tiles(m) and back.version == m.version
    assert back.changes_since(0) == m.changes_since(0)
    back[0, 2] = 4  # the unpickled map's grid is the one its log writes
    assert back.grid.tolist() == [[1, 5, 4], [1, 1, 0]] and back[0, 2] == 4
    assert back.changes_since(2) == [2]
    assert m[0, 2] == 0  # the original is untouched
    fresh = ep.TileMap(back.grid.copy(), 2.0, origin=(1, 1))
    assert sorted(back.edges) == sorted(fresh.edges)


@pytest.mark.parametrize(("version", "base", "log", "words"), [
    (3, 1, [0, 1], None),
    (3, 1, [0], "log"),
    (3, 4, [], "base"),
    (-1, -1, [], "base"),
    (2, 0, [0, 6], "tiles from 0 to 5"),
    (2, 0, [0, 1.0], "tiles from 0 to 5"),
    (2.0, 0, [0, 1], "ints"),
])
def test_a_pickled_log_is_checked(version, base, log, words):
    grid = np.zeros((2, 3), dtype=np.int32)
    if words is None:
        tiles = _restored(grid, version, base, log)
        assert tiles.version == 3 and tiles.changes_since(1) == [0, 1]
        return
    with pytest.raises(ValueError, match=words):
        _restored(grid, version, base, log)


# ------------------------------------------------------------------ physics

BODIES = [ep.Circle(0.4), ep.Rect(0.9, 0.6), ep.Polygon([(-0.4, -0.3), (0.4, -0.3), (0, 0.3)])]


def _world(name: str, grid: np.ndarray) -> tuple[ep.Physics, int, ep.TileMap, list[int]]:
    """A world of its own: ``grid`` as one map at the origin, a row of bodies resting on
    its row ``rows - 3`` (its top at y = 3; settled)."""
    if name in esper.list_worlds():
        esper.switch_world("default")
        esper.delete_world(name)
    esper.switch_world(name)
    physics = ep.Physics(fixed_dt=DT)
    tm = ep.TileMap(grid.copy(), 1.0)
    level = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    rows, cols = grid.shape
    ids = [esper.create_entity(ep.Position(1.5 + 2.0 * i, 3.8), ep.Velocity(0, 0),
                               ep.Collider(ep.ACTIVE), ep.AccelerationMap(gravity=(0, -20)),
                               ep.Geometry(BODIES[i % 3]))
           for i in range((cols - 2) // 2)]
    for _ in range(40):
        physics.step()
    return physics, level, tm, ids


def _seen(physics: ep.Physics, ids: list[int]) -> tuple[list, list]:
    """The bodies' positions and velocities, and the contacts (pair, tile), of the last step."""
    motion = [(*esper.component_for_entity(e, ep.Position).xy,
               *esper.component_for_entity(e, ep.Velocity).xy) for e in ids]
    contacts = sorted((c.a, c.b, c.tile) for c in physics.contacts())
    return motion, contacts


def _grid(seed: int, rows: int = 12, cols: int = 20) -> np.ndarray:
    """Empty above row rows - 3, a solid row there, random tiles below (solid borders at the
    bottom and sides, so there is something to dig at the borders and corners)."""
    rng = np.random.default_rng(seed)
    grid = np.zeros((rows, cols), dtype=int)
    grid[rows - 3] = 1
    grid[rows - 2 :] = (rng.random((2, cols)) < 0.6) * rng.integers(1, 4, (2, cols))
    grid[:, 0] = grid[:, -1] = 1
    grid[-1] = 1
    return grid


def _against_fresh(world: str, grid: np.ndarray, writes: list[tuple[int, int, int]],
                   steps: int = 40, logged: bool = True) -> None:
    """Two worlds alike; the first's map gets ``writes`` between two steps (its log keeps
    them all, or not: ``logged``), the second's is replaced by a map made afresh from the
    first's tiles then. Each step after, the bodies move alike and touch the same tiles."""
    physics, _, tm, ids = _world(f"{world}-dug", grid)
    before = _seen(physics, ids)
    version = tm.version
    for row, col, kind in writes:
        tm[row, col] = kind
    assert (tm.changes_since(version) is not None) == logged
    final = tm.grid.copy()
    ref, ref_level, _, ref_ids = _world(f"{world}-fresh", grid)
    esper.component_for_entity(ref_level, ep.Geometry).shape = ep.TileMap(final, 1.0)
    for step in range(steps):
        esper.switch_world(f"{world}-dug")
        physics.step()
        got = _seen(physics, ids)
        esper.switch_world(f"{world}-fresh")
        ref.step()
        want = _seen(ref, ref_ids)
        assert np.allclose(got[0], want[0], rtol=0, atol=1e-9), f"step {step}: bodies differ"
        assert got[1] == want[1], f"step {step}: the contacts differ"  # (ids alike per world)
    moved = [np.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(before[0], got[0], strict=True)]
    assert all(d > 0.3 for i, d in enumerate(moved) if i % 4 != 3), moved  # fell, pushed out
    esper.switch_world("default")
    for name in (f"{world}-dug", f"{world}-fresh"):
        esper.delete_world(name)


def _dig_under_bodies(grid: np.ndarray) -> list[tuple[int, int, int]]:
    """Dig the row the bodies rest on under every other body; build a tile on (around the
    centre of) some others, and beside the rest."""
    rows, cols = grid.shape
    writes = []
    for i in range((cols - 2) // 2):
        col = 1 + 2 * i
        if i % 2 == 0:
            writes += [(rows - 3, col, 0), (rows - 3, col + 1, 0)]
        elif i % 4 == 1:
            writes.append((rows - 4, col, 2))  # on the body: it is pushed out
        else:
            writes.append((rows - 4, col + 1, 3))  # beside it
    return writes


def test_a_few_digs_between_two_steps_act_as_a_fresh_map(world):
    grid = _grid(1)
    _against_fresh(world, grid, _dig_under_bodies(grid))


def test_many_digs_between_two_steps_act_as_a_fresh_map(world):
    # more changes than the response looks at tile by tile (256), fewer than the log keeps
    # (64 + 4800 / 16 = 364)
    grid = _grid(2, rows=40, cols=120)
    rng = np.random.default_rng(2)
    writes = _dig_under_bodies(grid)
    for k in rng.permutation(240)[:150].tolist():  # tiles below the floor, each toggled
        row, col = 38 + k // 120, k % 120
        writes.append((row, col, 0 if grid[row, col] else 1))
    writes += [(0, col, 2) for col in range(30, 90)]  # and a ceiling built high above
    assert 256 < len(writes) < 364
    _against_fresh(world, grid, writes, steps=25)


def test_more_digs_than_the_log_keeps_act_as_a_fresh_map(world):
    grid = _grid(3)  # 240 tiles: the log keeps 64 + 15 changes
    rng = np.random.default_rng(3)
    writes = _dig_under_bodies(grid)
    for _ in range(150):
        writes.append((int(rng.integers(10, 12)), int(rng.integers(0, 20)),
                       int(rng.integers(0, 3))))
    _against_fresh(world, grid, writes, steps=25, logged=False)


def test_digs_at_the_borders_and_corners_act_as_a_fresh_map(world):
    grid = _grid(4)
    rows, cols = grid.shape
    corners = [(0, 0, 0), (0, cols - 1, 0), (rows - 1, 0, 0), (rows - 1, cols - 1, 0)]
    borders = [(rows - 1, c, 0) for c in range(3, cols - 3, 4)]  # the bottom row
    borders += [(r, 0, 0) for r in range(rows - 3, rows)]  # the left column by the floor
    borders += [(r, cols - 1, 0) for r in range(1, 5)]  # the right column up high
    borders += [(0, c, 5) for c in range(2, cols - 2, 3)]  # the top row built
    writes = _dig_under_bodies(grid) + corners + borders
    assert all(grid[r, c] != k for r, c, k in writes)  # each write changes its tile
    _against_fresh(world, grid, writes)


def test_a_tile_dug_and_built_back_before_a_step_changes_nothing(world):
    grid = _grid(5)
    rows, _ = grid.shape
    physics, _, tm, ids = _world(f"{world}-back", grid)
    ref, _, _, ref_ids = _world(f"{world}-same", grid)
    esper.switch_world(f"{world}-back")
    under = (rows - 3, 1)  # under the first body
    tm[under] = 0
    tm[under] = 7  # built back, of another kind: the same edges
    tm[under] = 1
    tm[rows - 1, 5] = 0  # and one dug at the bottom border and put back
    tm[rows - 1, 5] = 1
    assert tm.version == 5 and np.array_equal(tm.grid, grid)
    for _ in range(30):
        esper.switch_world(f"{world}-back")
        physics.step()
        got = _seen(physics, ids)
        esper.switch_world(f"{world}-same")
        ref.step()
        assert got == _seen(ref, ref_ids)  # bit for bit
    esper.switch_world("default")
