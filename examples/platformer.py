"""Platformer: an active player with gravity and a jump impulse that stands still on a ramp
(``stop_on_slope``) and rides a moving platform (``mass=math.inf``: never pushed, carries
what stands on it), crates with friction that slide to a stop when pushed, a one-way shelf to
jump up through and land on, a level drawn as a text map (one TileMap) whose spike tiles ("^")
hurt while touched, coin sensors taken on touch; the HUD reads ``physics.ground(player)``.

    python examples/platformer.py [--headless --frames N --screenshot PATH]

Left/Right walk, Space jumps. Without keys (and headless) the player walks right and jumps.
"""

from __future__ import annotations

import argparse
import math

import _scene
import esper
from pyglet.window import key

import ecsphys as ep

GRAVITY = (0.0, -30.0)
#: crates and the level: a pushed crate slides v**2 / (2 * 0.6 * 30) before it stops
FRICTION = 0.6
#: the level, one character a tile of 1 x 1 (row 0 on top): "#" rock, "^" spikes
LEVEL = """\
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#...............................########.......#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#..............................................#
#########################^^^^###################
################################################"""


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
        self.level = ep.TileMap(LEVEL, 1.0)
        self.ground = static(0, 0, self.level)  # ground, walls, a ledge, spikes: one entity
        self.spike_kind = self.level.kinds["^"]
        static(18, 3.5, ep.Polygon([(-3, -1.5), (3, -1.5), (3, 1.5)]))  # a ramp of 26.6 deg
        # a shelf to jump up through and land on
        self.shelf = static(12.0, 7.5, ep.Rect(4, 0.3), one_way=(0.0, 1.0))
        self.coins = {static(x, y, ep.Circle(0.4), sensor=True)
                      for x, y in ((8, 5), (12, 9), (30, 11), (36, 11), (40, 11), (44, 4))}
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
