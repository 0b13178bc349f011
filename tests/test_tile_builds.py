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
29,107, a dumbbell).
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
