"""Platformer: an active player with gravity and a jump impulse, passive crates to push, a moving
platform, a level drawn as a text map (one TileMap) whose spike tiles ("^") hurt while touched,
coin sensors taken on touch.

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


def static(x: float, y: float, shape: ep.Shape, sensor: bool = False) -> int:
    return esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC, sensor=sensor),
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
        static(18, 3.5, ep.Polygon([(-3, -1.5), (3, -1.5), (3, 1.5)]))  # a ramp
        self.coins = {static(x, y, ep.Circle(0.4), sensor=True)
                      for x, y in ((8, 5), (12, 5), (30, 11), (36, 11), (40, 11), (44, 4))}
        for x in (6.0, 9.0):
            esper.create_entity(ep.Position(x, 3), ep.Velocity(0, 0),
                                ep.AccelerationMap(gravity=GRAVITY),
                                ep.Collider(ep.PASSIVE, mass=1.0), ep.Geometry(ep.Rect(1.6, 1.6)))
        self.platform = esper.create_entity(ep.Position(24, 8), ep.Velocity(0, 0),
                                            ep.Collider(ep.ACTIVE), ep.Geometry(ep.Rect(5, 0.6)))
        self.player = esper.create_entity(
            ep.Position(3, 4), ep.Velocity(0, 0), ep.AccelerationMap(gravity=GRAVITY),
            ep.Collider(ep.ACTIVE), ep.Geometry(ep.Rect(0.9, 1.8)))
        self.health, self.score, self.clock, self.grounded = 100.0, 0, 0.0, False
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
        cs = self.physics.contact_set
        me = (cs.a == self.player) | (cs.b == self.player)
        up = (cs.normal[:, 1] * (cs.b == self.player) - cs.normal[:, 1] * (cs.a == self.player))
        self.grounded = bool(((up > 0.5) & me & ~cs.sensor).any())
        vel = esper.component_for_entity(self.player, ep.Velocity)
        walk = self.keys[key.RIGHT] - self.keys[key.LEFT]
        jump = self.keys[key.SPACE]
        if not self.manual:  # demo mode until a key is pressed
            walk, jump = 1, math.sin(self.clock * 2.2) > 0.9
        vel.x = 8.0 * walk
        if jump and self.grounded and vel.y <= 0.1:
            vel.y = 16.0  # the jump impulse: a velocity kick
        if self.grounded and vel.y < 0:
            vel.y = 0.0
        esper.component_for_entity(self.platform, ep.Velocity).xy = (
            6 * math.cos(self.clock * 0.8), 3 * math.sin(self.clock * 1.6))

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        self.manual = True

    def status(self) -> str:
        return (f"health {self.health:.0f}  coins {self.score}  "
                f"{'grounded' if self.grounded else 'in the air'}")


SCENE = Platformer

if __name__ == "__main__":
    _scene.main(Platformer, __doc__)
