"""A dug or built tile makes the response look again only at the bodies near it: the body
table notes the box of the changed tiles (grown by a tile) for the map, instead of marking
the whole map as touched; many changes at once still touch the whole map."""

from __future__ import annotations

import esper
import numpy as np

import ecsphys as ep


def _world() -> tuple[ep.Physics, ep.TileMap, int]:
    grid = np.zeros((10, 20), dtype=np.int32)
    grid[7:] = 1
    tm = ep.TileMap(grid, 2.0, origin=(1.0, -3.0))
    physics = ep.Physics(fixed_dt=1 / 60)
    ent = esper.create_entity(ep.Position(5.0, 4.0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    physics.step()
    return physics, tm, ent


def test_the_changed_tiles_box_grown_by_a_tile_relative_to_the_map(world):
    physics, tm, ent = _world()
    # a body whose box (y 6.5 .. 9.5) reaches down into the boxes below (up to y = 7)
    esper.create_entity(ep.Position(15.0, 8.0), ep.Collider(ep.ACTIVE),
                        ep.Geometry(ep.Circle(1.5)))
    physics.step()
    t = physics.table
    tm[8, 3] = 0
    tm[9, 5] = 0
    t.refresh_tilemaps()
    assert ent not in t.touched
    # columns 3..5 grown to 2..6 -> x from 1 + 2 * 2 to 1 + 7 * 2; rows 8..9 (y from the
    # bottom: rows 0..1) grown to -1..2 -> y from -3 - 2 to -3 + 3 * 2
    assert t.tile_regions[ent] == [5.0, -5.0, 15.0, 3.0]
    tm[7, 10] = 0  # a later change before the next step widens the same box
    t.refresh_tilemaps()
    assert t.tile_regions[ent] == [5.0, -5.0, 25.0, 5.0]  # col 10 grown to 11
    physics.step()  # the response takes it
    assert t.tile_regions == {}


def test_a_change_no_body_reaches_notes_no_box(world):
    physics, tm, ent = _world()  # the map's world bottom-left is (6, 1)
    ball = esper.create_entity(ep.Position(9.0, 8.0), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(1.0)))  # x 8 .. 10, y 7 .. 9
    physics.step()
    t = physics.table
    tm[8, 12] = 0  # columns 11 .. 13 -> world x 28 .. 34: no body's box reaches it
    t.refresh_tilemaps()
    assert t.tile_regions == {} and ent not in t.touched
    tm[7, 2] = 0  # columns 1 .. 3, rows up 1 .. 3 -> world x 8 .. 14, y 3 .. 9: the
    t.refresh_tilemaps()  # ball's box touches it (edges included)
    assert t.tile_regions[ent] == [3.0, -1.0, 9.0, 5.0]
    tm[8, 15] = 0  # a later change far away still widens the box noted for the step
    t.refresh_tilemaps()
    assert t.tile_regions[ent] == [3.0, -3.0, 35.0, 5.0]
    physics.step()
    assert t.tile_regions == {}
    assert esper.component_for_entity(ball, ep.Position).xy == (9.0, 8.0)


def test_many_changes_at_once_touch_the_whole_map(world):
    physics, tm, ent = _world()
    t = physics.table
    for col in range(10):
        tm[7, col] = 0
    t.refresh_tilemaps()  # a few changes: listed one by one (no body near them: no box)
    assert ent not in t.touched and t.tile_regions == {}
    physics.step()
    for k in range(300):  # more than the map lists one by one
        tm[7 + k % 3, k % 20] = (k // 60) % 2
    t.refresh_tilemaps()
    assert ent in t.touched and ent not in t.tile_regions


def test_a_body_under_a_built_tile_is_pushed_out_and_one_far_away_stays_put(world):
    physics, tm, ent = _world()  # the map's world bottom-left is (6, 1); its top is y = 7
    near = esper.create_entity(ep.Position(13.0, 8.5), ep.Velocity(0, 0),
                               ep.AccelerationMap(gravity=(0, -20)), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(0.8)))
    far = esper.create_entity(ep.Position(41.0, 8.5), ep.Velocity(0, 0),
                              ep.AccelerationMap(gravity=(0, -20)), ep.Collider(ep.ACTIVE),
                              ep.Geometry(ep.Circle(0.8)))
    for _ in range(60):
        physics.step()
    pos = esper.component_for_entity(near, ep.Position)
    assert abs(pos.y - 7.8) < 0.05  # resting on the map
    before = esper.component_for_entity(far, ep.Position)
    far_at = (before.x, before.y)
    # the tile over the near ball's centre: x 12..14, y 7..9
    assert tm.cell_at(13.0 - 5.0, 8.0 - 4.0) == (6, 3)
    tm[6, 3] = 1
    physics.step()
    assert ent in physics.table.row_of and physics.table.tile_regions == {}
    pos = esper.component_for_entity(near, ep.Position)
    out_up = pos.y >= 9.0 + 0.8 - 0.05
    out_side = pos.x <= 12.0 - 0.8 + 0.05 or pos.x >= 14.0 + 0.8 - 0.05
    assert out_up or out_side, (pos.x, pos.y)
    after = esper.component_for_entity(far, ep.Position)
    assert (after.x, after.y) == far_at
