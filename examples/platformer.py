"""Platformer: an active player with gravity and a jump impulse that stands still on a ramp
(``stop_on_slope``) and rides a moving platform (``mass=math.inf``: never pushed, carries
what stands on it), crates with friction that slide to a stop when pushed, a one-way shelf to
jump up through and land on, a level drawn in Tiled (``platformer.tmj``: its tile layer one
TileMap, whose spike tiles hurt while touched and whose slope and half tiles collide as the
shapes drawn on them in Tiled, a 45-degree hill and a floating platform; its ramp, shelf and
coin sensors from object layers), coins taken on touch; the HUD reads
``physics.ground(player)``. Reading the map needs pytiled-parser: ``pip install -e
".[tiled]"``.

    python examples/platformer.py [--headless --frames N --screenshot PATH]

Left/Right walk, Space jumps. Without keys (and headless) the player walks right and jumps.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import _scene
import esper
from pyglet.window import key

import ecsphys as ep
from ecsphys import tiled

GRAVITY = (0.0, -30.0)
#: crates and the level: a pushed crate slides v**2 / (2 * 0.6 * 30) before it stops
FRICTION = 0.6
#: the level, drawn in Tiled (https://www.mapeditor.org): a tile layer "level" (16 px tiles,
#: one world unit each) and the object layers "statics" (the ramp, the one-way shelf) and "coins"
LEVEL = Path(__file__).with_name("platformer.tmj")
SCALE = 1 / 16  # world units per Tiled pixel
#: the tiles' classes (Tiled's tileset editor) as TileMap kinds; the slope and half tiles
#: collide as the shapes drawn on them in Tiled's tile collision editor
KINDS = {"rock": 1, "spikes": 2, "slope": 3, "half": 4}


def static(x: float, y: float, shape: ep.Shape, sensor: bool = False,
           one_way: tuple[float, float] | None = None) -> int:
    return esper.create_entity(
        ep.Position(x, y),
        ep.Collider(ep.STATIC, sensor=sensor, friction=FRICTION, one_way=one_way),
        ep.Geometry(shape))


class Platformer:
    title = "platformer"
    scale = 20.0
    offset = (0.0, 0.0)

    def __init__(self, app: _scene.App, args: argparse.Namespace) -> None:
        self.physics = ep.Physics(fixed_dt=1 / 60)
        self.keys = key.KeyStateHandler()
        app.window.push_handlers(self.keys)
        self.level = ep.TileMap.from_tiled(LEVEL, "level", KINDS, scale=SCALE)
        # ground, walls, a ledge, spikes, a hill and a half-tile platform: one entity
        self.ground = static(0, 0, self.level)
        self.spike_kind = KINDS["spikes"]
        # a ramp of 26.6 deg and a shelf to jump up through and land on
        tiled.add_objects(LEVEL, "statics", {
            "ramp": ep.Collider(ep.STATIC, friction=FRICTION),
            "shelf": ep.Collider(ep.STATIC, friction=FRICTION, one_way=(0.0, 1.0))}, scale=SCALE)
        self.coins = set(tiled.add_objects(LEVEL, "coins", ep.Collider(ep.STATIC, sensor=True),
                                           scale=SCALE))
        for x in (6.0, 9.0):
            esper.create_entity(ep.Position(x, 3), ep.Velocity(0, 0),
                                ep.AccelerationMap(gravity=GRAVITY),
                                ep.Collider(ep.PASSIVE, mass=1.0, friction=FRICTION),
                                ep.Geometry(ep.Rect(1.6, 1.6)))
        self.platform = esper.create_entity(
            ep.Position(24, 8), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE, mass=math.inf),
            ep.Geometry(ep.Rect(5, 0.6)))
        self.player = esper.create_entity(
            ep.Position(3, 4), ep.Velocity(0, 0), ep.AccelerationMap(gravity=GRAVITY),
            ep.Collider(ep.ACTIVE, stop_on_slope=True), ep.Geometry(ep.Rect(0.9, 1.8)))
        self.health, self.score, self.clock = 100.0, 0, 0.0
        self.on = ep.Ground(False, False, False, (0.0, 0.0), (0.0, 0.0), None)
        self.manual = False
        self.physics.on_touch(self.take_coin, entity=self.player)
        self.physics.on_keep_touching(self.spiked, entity=self.player)

    def take_coin(self, contact) -> None:  # noqa: ANN001
        other = contact.other(self.player)
        if other in self.coins:
            self.coins.discard(other)
            esper.delete_entity(other)
            self.score += 1

    def spiked(self, contact) -> None:  # noqa: ANN001
        """Spike tiles hurt more the longer they are touched (each tile's contact has its
        own duration)."""
        if contact.tile_kind == self.spike_kind:
            self.health = max(0.0, self.health - (0.2 + contact.duration))

    def update(self, dt: float) -> None:
        self.clock += dt
        if self.physics.steps:  # adopted: what the last step's contacts say it stands on
            self.on = self.physics.ground(self.player)
        vel = esper.component_for_entity(self.player, ep.Velocity)
        walk = self.keys[key.RIGHT] - self.keys[key.LEFT]
        jump = self.keys[key.SPACE]
        if not self.manual:  # demo mode until a key is pressed
            walk, jump = 1, math.sin(self.clock * 2.2) > 0.9
        vel.x = 8.0 * walk
        if jump and self.on.on_floor and vel.y <= 0.1:
            vel.y = 16.0  # the jump impulse: a velocity kick
        esper.component_for_entity(self.platform, ep.Velocity).xy = (
            6 * math.cos(self.clock * 0.8), 3 * math.sin(self.clock * 1.6))

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        self.manual = True

    def status(self) -> str:
        on = self.on
        where = [name for name, flag in (("on floor", on.on_floor), ("on wall", on.on_wall),
                                         ("on ceiling", on.on_ceiling)) if flag]
        riding = "  riding" if on.floor_entity == self.platform else ""
        return (f"health {self.health:.0f}  coins {self.score}  "
                f"{', '.join(where) or 'in the air'}{riding}")


SCENE = Platformer

if __name__ == "__main__":
    _scene.main(Platformer, __doc__)
