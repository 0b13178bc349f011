"""Bullets: fast bullets against thin walls, with tunneling protection on (left) and off (right).

    python examples/bullets.py [--speed S] [--headless --frames N --screenshot PATH]

Left: bullets have a Velocity: each step's move is swept (time of impact), so a bullet that
would jump over the 0.2-unit wall in one step stops on it. Right: protection "off", made with
the public API: the bullets have no Velocity and the game teleports them by writing Position
once a frame (what a naive game loop does); the engine then only sees where they end up, so
the wall notices a bullet only if it happens to overlap the wall after a jump. At 300 units/s
a jump is 5 units: almost every teleported bullet passes through. (Sensor bullets with a
Velocity would not show it: ecsphys sweeps their moves for events too.)
"""

from __future__ import annotations

import argparse

import _scene
import esper

import ecsphys as ep

X0, X1 = 2.0, 28.0  # left and right halves start here


class Bullets:
    title = "bullets"
    scale = 16.0
    offset = (0.0, 0.0)

    def __init__(self, app: _scene.App, args: argparse.Namespace) -> None:
        self.physics = ep.Physics(fixed_dt=1 / 60)
        self.speed = args.speed
        self.walls = {}
        for x0, side in ((X0, "on"), (X1, "off")):
            wall = esper.create_entity(ep.Position(x0 + 19.3, 20), ep.Collider(ep.STATIC),
                                       ep.Geometry(ep.Rect(0.2, 36)))
            self.walls[wall] = side
        self.hits = {"on": 0, "off": 0}
        self.through = {"on": 0, "off": 0}
        self.bullets: dict[int, str] = {}
        self.clock = 0.0
        self.row = 0
        self.physics.on_touch(self.hit)

    def hit(self, contact) -> None:  # noqa: ANN001
        for wall, side in self.walls.items():
            if wall in (contact.a, contact.b) and contact.other(wall) in self.bullets:
                self.hits[side] += 1
                bullet = contact.other(wall)
                del self.bullets[bullet]
                esper.delete_entity(bullet)

    def update(self, dt: float) -> None:
        self.clock += dt
        while self.clock > 0.05:  # a volley every 0.05 s, one bullet per side
            self.clock -= 0.05
            self.row = (self.row + 7) % 34
            for x0, side in ((X0, "on"), (X1, "off")):
                b = esper.create_entity(ep.Position(x0, 3 + self.row), ep.Collider(ep.ACTIVE),
                                        ep.Geometry(ep.Circle(0.2)))
                if side == "on":
                    esper.add_component(b, ep.Velocity(self.speed, 0))
                self.bullets[b] = side
        for b, side in list(self.bullets.items()):
            pos = esper.component_for_entity(b, ep.Position)
            if side == "off":
                pos.x += self.speed * dt  # a teleport: no sweep sees the path between
            x = pos.x
            if x > (X0 if side == "on" else X1) + 25:
                self.through[side] += 1
                del self.bullets[b]
                esper.delete_entity(b)

    def status(self) -> str:
        return "   ".join(f"protection {s}: {self.hits[s]} stopped, {self.through[s]} tunneled"
                          for s in ("on", "off"))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--speed", type=float, default=300.0, help="bullet speed, units/s")


SCENE = Bullets

if __name__ == "__main__":
    _scene.main(Bullets, __doc__, add_arguments)
