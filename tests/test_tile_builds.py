"""Building tiles on bodies: a body in a newly built tile leaves it by a side that is open and
where it fits, never down through or into the floor it rests on; contacts with a map name
their tile.

Shows: a wide body resting across a one-tile hole, built over, goes up (before: down into
the hole, 0.4 deep in the floor on both sides); bodies of every shape kind resting on random
floors, with tiles built on them and dug around them for a while, never end a step with
their centre in a solid tile or sunk into their floor; every contact with the map that is
not an impact's names its tile; a compound with one part built over (its centre outside the
tile, the part wholly inside it, touching none of its edges) is pushed out by an open side
(before: nothing saw it, and the part sank through the map; the long soak's failure at step
29,107, a dumbbell). Shaped tiles: a ball buried in a slope built on it leaves along the
slope's normal, one buried in a half tile goes onto its top, and a thin wall (a shaped tile)
above a buried ball leaves it room beside it (before: squares everywhere, so out through
the square's side, off the half tile, and over the wall); random squares, slopes and half
tiles built under bodies of every kind never hold a centre inside a shape two steps running.
"""

from __future__ import annotations

import esper
import numpy as np
import pytest

import ecsphys as ep

DT = 1 / 60


def _body(x, y, shape, g=20.0):
    return esper.create_entity(ep.Position(x, y), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                               ep.AccelerationMap(gravity=(0, -g)), ep.Geometry(shape))


def test_a_body_across_a_hole_goes_up_out_of_a_tile_built_on_it(world):
    ep.Physics(fixed_dt=DT)
    level = ep.TileMap(["......", "......", "......", "##.###", "######"], 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    box = _body(2.5, 2.2 + 1e-4, ep.Rect(1.6, 0.4))  # rests on row 3's top (y = 2)
    for _ in range(10):
        esper.process(DT)
    pos = esper.component_for_entity(box, ep.Position)
    assert pos.y == pytest.approx(2.2, abs=1e-3)
    level[2, 2] = 1  # build the tile its centre is in (x 2..3, y 2..3)
    esper.process(DT)
    assert pos.y - 0.2 >= 3.0 - 1e-3  # out of the top (before: 0.4 down, into the floor)
    for _ in range(30):
        esper.process(DT)
        assert pos.y - 0.2 >= 3.0 - 1e-3


SHAPES = [ep.Circle(0.3), ep.Rect(0.8, 0.3), ep.OrientedRect(0.7, 0.2, 30),
          ep.Segment((-0.4, 0.0), (0.4, 0.0)), ep.Polygon([(-0.3, -0.2), (0.3, -0.2), (0, 0.3)]),
          ep.Mask(np.ones((3, 6), dtype=bool), 0.12)]


@pytest.mark.parametrize("seed", range(4))
def test_tiles_built_on_resting_bodies_never_bury_them(world, seed):
    rng = np.random.default_rng(seed)
    physics = ep.Physics(fixed_dt=DT)
    cols = 24
    grid = np.zeros((6, cols), dtype=int)
    grid[5] = 1  # a floor row, one tile thick, with random holes and bumps
    grid[5, rng.choice(cols, 5, replace=False)] = 0
    grid[4, rng.choice(cols, 4, replace=False)] = 1
    grid[5, 0] = grid[5, -1] = 1
    level = ep.TileMap(grid, 1.0)
    tiles = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    bodies = [_body(0.5 + 1.9 * i, 4.5, SHAPES[i % len(SHAPES)]) for i in range(12)]
    for _ in range(90):
        esper.process(DT)
    pos = {b: esper.component_for_entity(b, ep.Position) for b in bodies}
    for step in range(240):
        if step % 20 == 0:  # build the tile under each body's centre, or dig one near it
            for p in pos.values():
                cell = level.cell_at(p.x, p.y)
                if cell is not None and rng.random() < 0.7:
                    level[cell] = 1
                elif cell is not None and 0 < cell[1] < cols - 1 and cell[0] < 5:
                    level[cell[0] + 1, cell[1]] = 0
        esper.process(DT)
        for b, p in pos.items():
            cell = level.cell_at(p.x, p.y)
            assert cell is None or level[cell] == 0, (step, b, p.xy)  # never inside a tile
        for c in physics.contacts():
            if tiles in (c.a, c.b) and c.tile is None:
                assert c.speed > 0 or c.depth == 0.0  # only an impact's contact may lack one


def test_a_dumbbell_with_one_ball_built_over_leaves_the_tile(world):
    # the dumbbell's centre is in an empty tile, but its right ball lies wholly inside the tile
    # built beside it, touching none of that tile's edges; before, nothing pushed it out and
    # the ball sank through the map
    ep.Physics(fixed_dt=DT)
    level = ep.TileMap(["......", "......", "######"], 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    dumbbell = ep.Compound([ep.Circle(0.15, offset=(-0.2, 0.06)),
                            ep.Circle(0.15, offset=(0.2, -0.06))])
    body = _body(2.98, 1.3, dumbbell)
    for _ in range(60):
        esper.process(DT)
    pos = esper.component_for_entity(body, ep.Position)
    assert pos.xy == pytest.approx((2.98, 1.21), abs=1e-3)  # the right ball on the floor
    level[1, 3] = 1  # the tile x 3..4, y 1..2: the right ball (x 3.03..3.33) is inside it
    for _ in range(30):
        esper.process(DT)
        assert pos.x + 0.2 + 0.15 <= 3.0 + 1e-6  # out by the open side, to the left
        assert pos.y == pytest.approx(1.21, abs=1e-3)  # on the floor, not into it


def _compound(rng, s):
    """A dumbbell or a box with a knob, its parts' centres (relative to the body)."""
    if rng.random() < 0.5:
        a = rng.uniform(0.0, np.pi)
        u = (0.6 * s * np.cos(a), 0.6 * s * np.sin(a))
        parts = [ep.Circle(0.4 * s, offset=u), ep.Circle(0.4 * s, offset=(-u[0], -u[1]))]
    else:
        parts = [ep.Rect(s, 0.6 * s, offset=(-0.4 * s, 0.0)),
                 ep.Circle(0.4 * s, offset=(0.55 * s, 0.0))]
    return ep.Compound(parts), [p.offset for p in parts]


@pytest.mark.parametrize("seed", [0, 1, 15])
def test_tiles_built_over_part_of_a_compound_push_it_out(world, seed):
    # tiles built beside resting compounds, over one of their parts but not their centre: no
    # part's centre ever ends a step inside a solid tile
    rng = np.random.default_rng(seed)
    ep.Physics(fixed_dt=DT)
    cols = 24
    grid = np.zeros((6, cols), dtype=int)
    grid[5] = 1
    grid[4, rng.choice(cols, 4, replace=False)] = 1
    level = ep.TileMap(grid, 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    probes = {}
    for i in range(12):
        shape, centres = _compound(rng, float(rng.uniform(0.3, 0.5)))
        probes[_body(0.9 + 1.9 * i, 4.5, shape)] = [(0.0, 0.0)] + centres
    for _ in range(90):
        esper.process(DT)
    pos = {b: esper.component_for_entity(b, ep.Position) for b in probes}
    built = 0
    for step in range(200):
        if step % 20 == 0:  # build a tile the body reaches into, not the one its centre is in
            for p in pos.values():
                near = {level.cell_at(p.x + dx, p.y + dy) for dx in (-0.3, 0, 0.3)
                        for dy in (-0.3, 0, 0.3)} - {None, level.cell_at(p.x, p.y)}
                near = sorted(c for c in near if 0 < c[1] < cols - 1 and c[0] < 5)
                if near and rng.random() < 0.7:
                    level[near[int(rng.integers(len(near)))]] = 1
                    built += 1
        esper.process(DT)
        for b, p in pos.items():
            for ox, oy in probes[b]:
                cell = level.cell_at(p.x + ox, p.y + oy)
                assert cell is None or level[cell] == 0, (step, b, p.xy, (ox, oy))
    assert built >= 15


SLOPE = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0))  # rising to the right: inside where y <= x
HALF = ((0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (0.0, 0.5))  # the bottom half
WALL = ((0.75, 0.0), (1.0, 0.0), (1.0, 1.0), (0.75, 1.0))  # a thin wall on the right


def _resting_ball(level, x, r):
    """A ball of radius ``r`` at ``x`` rested for 20 steps on the floor (row 4's top, y 1)."""
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    ball = _body(x, 1.0 + r + 1e-4, ep.Circle(r))
    for _ in range(20):
        esper.process(DT)
    pos = esper.component_for_entity(ball, ep.Position)
    assert pos.xy == pytest.approx((x, 1.0 + r + 1e-4), abs=1e-6)
    return ball, pos


def test_a_ball_buried_in_a_slope_built_on_it_leaves_along_the_slopes_normal(world):
    """Its centre 0.3 under the slope: out along the slope's normal (0.5 of a move, the box
    a skin beyond the slope), not through the square's right side (0.7) as when tiles were
    squares here; then it slides down the slope to the floor, never inside a tile."""
    physics = ep.Physics(fixed_dt=DT)
    level = ep.TileMap(["......", "......", "......", "......", "######"], 1.0,
                       shapes={2: SLOPE})
    r = 0.2
    ball, pos = _resting_ball(level, 2.5, r)  # at (0.5, 0.2) in the tile x 2..3, y 1..2
    before = pos.xy
    level[3, 2] = 2
    esper.process(DT)
    moved = np.subtract(pos.xy, before)
    assert moved[0] < 0 < moved[1]  # up the slope's normal (-1, 1), not sideways
    assert np.hypot(*moved) < 0.55  # the short way: the square's nearest open side is 0.7
    lx, ly = pos.x - 2.0, pos.y - 1.0
    assert (ly - lx) / np.sqrt(2) >= r - 1e-9  # the ball clear of the slope
    for _ in range(60):
        esper.process(DT)
        lx, ly = pos.x - 2.0, pos.y - 1.0
        assert pos.y >= 1.0 + r - 1e-3  # never into the floor
        if 0.0 <= lx <= 1.0 and 0.0 <= ly <= 1.0:
            assert (ly - lx) / np.sqrt(2) >= r - 1e-3  # never into the slope
    assert pos.x < 2.0 and pos.y == pytest.approx(1.0 + r, abs=1e-3)  # down on the floor
    assert physics.ground(ball).on_floor


def test_a_ball_buried_in_a_half_tile_built_on_it_goes_onto_its_top(world):
    """The half tile's top (0.5 up) is shorter than its square's open sides (0.65): the ball
    ends on the half tile, where it stays."""
    ep.Physics(fixed_dt=DT)
    level = ep.TileMap(["......", "......", "......", "......", "######"], 1.0,
                       shapes={2: HALF})
    r = 0.15
    _, pos = _resting_ball(level, 2.5, r)
    level[3, 2] = 2
    for _ in range(30):
        esper.process(DT)
        assert pos.x == pytest.approx(2.5, abs=1e-9)
        assert pos.y == pytest.approx(1.5 + r, abs=2e-3)  # on the half tile's top


def test_a_shaped_tile_beside_a_buried_ball_lets_it_out_where_its_shape_leaves_room(world):
    """Buried in a square built on it between two solid squares, with a thin wall (a shaped
    tile) above: the box fits beside the wall, so the ball goes up one tile (when every
    solid tile counted as a square here, it went up two, over the wall)."""
    ep.Physics(fixed_dt=DT)
    level = ep.TileMap(["......", "......", "..W...", ".#.#..", "######"], 1.0,
                       shapes={2: WALL})
    assert level.kinds["W"] == 2
    r = 0.2
    _, pos = _resting_ball(level, 2.3, r)  # the ball in tile x 2..3, y 1..2
    level[3, 2] = 1
    esper.process(DT)
    assert pos.x == pytest.approx(2.3, abs=1e-9)
    assert pos.y - r == pytest.approx(2.0, abs=1e-3)  # in the tile above, beside the wall


#: kinds built in the shaped soak: a square, the slope, its mirror, the half tile
KINDS = {2: SLOPE, 3: ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)), 4: HALF}


def _inside(level, x, y, margin=1e-6):
    """(x, y) lies inside a solid tile's shape (its square, or its polygon) by more than
    ``margin`` (a hair on an edge is not inside)."""
    cell = level.cell_at(x, y)
    if cell is None or level[cell] == 0:
        return False
    x0, y0, _, _ = level.tile_box(*cell)
    u, v = x - x0, y - y0  # tile units (tile size 1)
    pts = level.tile_shapes.get(int(level[cell]), ((0, 0), (1, 0), (1, 1), (0, 1)))
    for (ax, ay), (bx, by) in zip(pts, pts[1:] + pts[:1], strict=True):
        if (bx - ax) * (v - ay) - (by - ay) * (u - ax) < margin * np.hypot(bx - ax, by - ay):
            return False  # on or outside this side (counter-clockwise: inside is left)
    return True


@pytest.mark.parametrize("seed", range(3))
def test_shaped_tiles_built_on_resting_bodies_never_bury_them(world, seed):
    """Random squares, slopes and half tiles built under bodies of every shape kind resting
    on a floor (with room above them), and dug near them: a body whose centre a step ends
    inside a tile's shape is out of it at the end of the next one. (A build can end a step
    with a centre inside: a body not buried by the build, its centre outside the new
    shape, squeezed between it and a neighbour; the next step's burial takes it out.)"""
    rng = np.random.default_rng(100 + seed)
    ep.Physics(fixed_dt=DT)
    cols = 24
    grid = np.zeros((6, cols), dtype=int)
    grid[5] = 1
    grid[4, rng.choice(cols, 4, replace=False)] = rng.choice([1, 2, 3, 4], 4)
    level = ep.TileMap(grid, 1.0, shapes=KINDS)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(level))
    bodies = [_body(0.5 + 1.9 * i, 4.5, SHAPES[i % len(SHAPES)]) for i in range(12)]
    for _ in range(90):
        esper.process(DT)
    pos = {b: esper.component_for_entity(b, ep.Position) for b in bodies}
    inside = dict.fromkeys(bodies, False)
    built = buried = 0
    for step in range(200):
        if step % 10 == 0:
            for p in pos.values():
                cell = level.cell_at(p.x, p.y)
                if (cell is not None and 0 < cell[0] < 5 and level[cell[0] - 1, cell[1]] == 0
                        and rng.random() < 0.7):  # (room above: never a squeeze)
                    level[cell] = int(rng.choice([1, 2, 3, 4]))
                    built += 1
                    buried += _inside(level, p.x, p.y)
                elif cell is not None and 0 < cell[1] < cols - 1 and cell[0] < 4:
                    level[cell[0] + 1, cell[1]] = 0
        esper.process(DT)
        for b, p in pos.items():
            now = _inside(level, p.x, p.y)
            assert not (now and inside[b]), (step, b, p.xy, level.cell_at(p.x, p.y))
            inside[b] = now
    assert built > 50 and buried > 10  # (the builds buried bodies: the rule was used)
