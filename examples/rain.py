"""Rain: many balls fall into a box and pile up; step time and body count on screen.

    python examples/rain.py [COUNT] [--headless --frames N --screenshot PATH]

Balls (active circles) are dropped in rows from the top, a few rows a second, until COUNT
are in; the box is three static rects. Press A for AABBs, C for contacts, S to show
sleeping balls dimmed or not (on at the start).
"""

from __future__ import annotations

import argparse

import _scene
import esper
import numpy as np
from pyglet.window import key

import ecsphys as ep

BOX_W, BOX_H = 60.0, 40.0  # world units; the screen shows 64 x 42.7


class Rain:
    title = "rain"
    scale = 15.0
    offset = (480.0, 20.0)  # the world origin: the middle of the floor's top

    def __init__(self, app: _scene.App, args: argparse.Namespace) -> None:
        self.app = app
        self.count = args.count
        self.physics = ep.Physics(fixed_dt=1 / 60)
        for x, y, w, h in ((0, -0.5, BOX_W + 2, 1), (-BOX_W / 2 - 0.5, BOX_H / 2, 1, BOX_H),
                           (BOX_W / 2 + 0.5, BOX_H / 2, 1, BOX_H)):
            esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.Rect(w, h)))
        # Radius so that COUNT balls fill about half the box.
        self.radius = float(np.clip(np.sqrt(BOX_W * BOX_H * 0.5 / (np.pi * self.count)),
                                    0.12, 0.6))
        self.per_row = int(BOX_W / (self.radius * 2.6))
        self.rng = np.random.default_rng(1)
        self.dropped = 0
        self.clock = 0.0

    def update(self, dt: float) -> None:
        """Drop a new row every so often until all balls are in."""
        self.clock += dt
        gap = self.radius * 2.6 / 12.0  # seconds for a row to fall clear of the next one
        while self.dropped < self.count and self.clock >= gap:
            self.clock -= gap
            n = min(self.per_row, self.count - self.dropped)
            xs = (np.arange(n) - (n - 1) / 2) * self.radius * 2.6
            xs += self.rng.uniform(-0.2, 0.2, n) * self.radius
            for x in xs.tolist():
                esper.create_entity(
                    ep.Position(x, BOX_H + 1.5), ep.Velocity(0, -12),
                    ep.AccelerationMap(gravity=(0, -20)), ep.Collider(ep.ACTIVE),
                    ep.Geometry(ep.Circle(self.radius)))
            self.dropped += n

    def status(self) -> str:
        return (f"{self.physics.body_count} bodies ({self.dropped}/{self.count} balls), "
                f"step {self.app.step_ms:.2f} ms, "
                f"contacts {len(self.physics.contact_set)}, "
                f"asleep {self.physics.stats['sleeping']}")

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == key.A:
            self.app.debug.aabbs = not self.app.debug.aabbs
        elif symbol == key.C:
            self.app.debug.contacts = not self.app.debug.contacts
        elif symbol == key.S:
            self.app.debug.sleepers = not self.app.debug.sleepers


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("count", type=int, nargs="?", default=800, help="how many balls")


SCENE = Rain

if __name__ == "__main__":
    _scene.main(Rain, __doc__, add_arguments)
