"""Tile maps emptied of every edge, written without a change and built back step like the
tiles say. CI's sanitizer run covers these update paths (the hypothesis test of
test_tile_dig_incremental.py once caught qsort handed a NULL array of no lines there)."""

from __future__ import annotations

import esper

import ecsphys as ep


def test_digging_the_last_tiles_and_building_one_back(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    tiles = ep.TileMap(["#."], 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tiles))
    ball = esper.create_entity(ep.Position(0.5, 1.6), ep.Velocity(0, 0),
                               ep.AccelerationMap(gravity=(0.0, -9.8)),
                               ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
    for _ in range(30):
        physics.step()
    assert abs(esper.component_for_entity(ball, ep.Position).y - 1.5) < 0.02
    tiles[0, 0] = 0  # nothing solid is left
    physics.step()
    tiles[0, 0] = 0  # a write that changes nothing
    physics.step()
    for _ in range(30):
        physics.step()
    assert esper.component_for_entity(ball, ep.Position).y < 0.5  # it fell through
    tiles[0, 1] = 1
    physics.step()
    assert tiles.same_tiles(ep.TileMap([".#"], 1.0))
