"""Building tiles on bodies: a body in a newly built tile leaves it by a side that is open and
where it fits, never down through or into the floor it rests on; contacts with a map name
their tile.

Shows: a wide body resting across a one-tile hole, built over, goes up (before: down into
the hole, 0.4 deep in the floor on both sides); bodies of every shape kind resting on random
floors, with tiles built on them and dug around them for a while, never end a step with
their centre in a solid tile or sunk into their floor; every contact with the map that is
not an impact's names its tile.
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
