"""Invaders: layers and masks (`ep.Layers`) decide which pairs are even tested; aliens bomb
only what they can see (line of sight by `physics.raycast_many`).

    python examples/invaders.py [--headless --frames N --screenshot PATH]

Layers: player, alien, laser (the player's missiles), bomb (the aliens'), shield. Lasers hit
aliens and shields, bombs hit the player and shields; aliens never test aliens, lasers never
test bombs or the player. The table of tested pairs is on screen. Every frame one batch of
rays, one from each alien to the player, tells which aliens see the player past the aliens
below them and the shields; only those drop bombs, and their sight lines are drawn in red.
Left/Right move, Space fires (headless: the player patrols and fires by itself).
"""

from __future__ import annotations

import argparse
import math

import _scene
import esper
import numpy as np
from pyglet import shapes
from pyglet.window import key

import ecsphys as ep

L = ep.Layers("player", "alien", "laser", "bomb", "shield")
#: what blocks an alien's view of the player
SIGHT = L.mask("alien", "shield", "player")
MASKS = {"player": L.mask("bomb"), "alien": L.mask("laser"), "laser": L.mask("alien", "shield"),
         "bomb": L.mask("player", "shield"), "shield": L.mask("laser", "bomb")}


def collider(layer: str, kind: ep.ColliderKind = ep.ACTIVE, sensor: bool = True) -> ep.Collider:
    return ep.Collider(kind, layer=L[layer], mask=MASKS[layer], sensor=sensor)


class Invaders:
    title = "invaders"
    scale = 16.0
    offset = (0.0, 0.0)

    def __init__(self, app: _scene.App, args: argparse.Namespace) -> None:
        self.physics = ep.Physics(fixed_dt=1 / 60, layers=L)
        self.keys = key.KeyStateHandler()
        app.window.push_handlers(self.keys)
        self.rng = np.random.default_rng(7)
        self.aliens = {esper.create_entity(ep.Position(10 + 3.2 * c, 24 + 2.6 * r),
                                           ep.Velocity(3, 0), collider("alien"),
                                           ep.Geometry(ep.Rect(2, 1.4)))
                       for r in range(4) for c in range(10)}
        for x in (10, 22, 34, 46):
            for dx in (-1.5, -0.5, 0.5, 1.5):
                esper.create_entity(ep.Position(x + dx, 8), collider("shield", ep.STATIC),
                                    ep.Geometry(ep.Rect(1, 1.4)))
        self.player = esper.create_entity(ep.Position(30, 3), ep.Velocity(0, 0),
                                          collider("player"),
                                          ep.Geometry(ep.Polygon([(-1.2, -0.6), (1.2, -0.6),
                                                                  (0, 0.9)])))
        self.missiles: set[int] = set()
        self.kills = self.hits = 0
        self.batch = app.batch
        self.sight_lines: list[shapes.Line] = []
        self.seeing = 0
        self.clock = self.cooldown = 0.0
        for pair in (("laser", "alien"), ("laser", "shield"), ("bomb", "player"),
                     ("bomb", "shield")):
            self.physics.on_touch(self.boom, layers=pair)

    def boom(self, contact) -> None:  # noqa: ANN001
        for e in (contact.a, contact.b):
            if e in self.missiles or e in self.aliens:
                self.missiles.discard(e)
                if e in self.aliens:
                    self.aliens.discard(e)
                    self.kills += 1
                esper.delete_entity(e)
            elif e == self.player:
                self.hits += 1

    def fire(self, x: float, y: float, layer: str, vy: float) -> None:
        self.missiles.add(esper.create_entity(ep.Position(x, y), ep.Velocity(0, vy),
                                              collider(layer), ep.Geometry(ep.Rect(0.25, 1))))

    def update(self, dt: float) -> None:
        self.clock += dt
        self.cooldown -= dt
        me = esper.component_for_entity(self.player, ep.Position)
        steer = self.keys[key.RIGHT] - self.keys[key.LEFT]
        auto = not steer and not self.keys[key.SPACE]
        esper.component_for_entity(self.player, ep.Velocity).x = (
            12 * math.sin(self.clock * 0.7) if auto else 15 * steer)
        if (auto or self.keys[key.SPACE]) and self.cooldown <= 0:
            self.fire(me.x, me.y + 1.5, "laser", 30)
            self.cooldown = 0.25
        xs = [esper.component_for_entity(a, ep.Position).x for a in self.aliens] or [30]
        turn = max(xs) > 57 or min(xs) < 3
        for a in self.aliens:
            vel = esper.component_for_entity(a, ep.Velocity)
            if turn and (vel.x > 0) == (max(xs) > 57):
                vel.x = -vel.x
        watchers = self.watchers(me.xy)
        for _alien, (x, y) in watchers:
            if self.rng.random() < 0.02:
                self.fire(x, y - 1.2, "bomb", -12)
        self.draw_sight(watchers, me.xy)
        for m in list(self.missiles):
            if not 0 < esper.component_for_entity(m, ep.Position).y < 40:
                self.missiles.discard(m)
                esper.delete_entity(m)

    def watchers(self, target: tuple[float, float]) -> list[tuple[int, tuple[float, float]]]:
        """The aliens that see the point ``target`` (the player), with their positions: one
        compiled batch of rays, each ignoring its own alien."""
        alive = sorted(self.aliens)
        if not alive:
            return []
        eyes = np.array([esper.component_for_entity(a, ep.Position).xy for a in alive])
        rays = self.physics.raycast_many(eyes, np.tile(target, (len(alive), 1)), mask=SIGHT,
                                         ignore=alive, sensors=True)
        return [(a, tuple(eyes[i])) for i, a in enumerate(alive)
                if rays.entity[i] == self.player]

    def draw_sight(self, watchers: list[tuple[int, tuple[float, float]]],
                   target: tuple[float, float]) -> None:
        """Red lines from the aliens that see the player to it (a pool of pyglet lines)."""
        self.seeing = len(watchers)
        while len(self.sight_lines) < len(watchers):
            self.sight_lines.append(shapes.Line(0, 0, 0, 0, thickness=1.5,
                                                color=(255, 70, 70, 150), batch=self.batch))
        s = self.scale
        for i, line in enumerate(self.sight_lines):
            line.visible = i < len(watchers)
            if line.visible:
                (x, y) = watchers[i][1]
                line.position = (x * s, y * s)
                line.x2, line.y2 = target[0] * s, target[1] * s

    def status(self) -> str:
        pairs = [f"{a}-{b}" for i, a in enumerate(L) for b in list(L)[i:]
                 if MASKS[a] & L[b] and MASKS[b] & L[a]]
        return (f"aliens {len(self.aliens)}  kills {self.kills}  player hit {self.hits}  "
                f"aliens that see the player {self.seeing}\n"
                f"tested pairs: {', '.join(pairs)} (all others are never tested)")


SCENE = Invaders

if __name__ == "__main__":
    _scene.main(Invaders, __doc__)
