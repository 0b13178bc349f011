"""Shapes: one body of every shape kind; drag any of them over the others with the mouse and
watch the contact points and normals live.

    python examples/shapes.py [--headless --frames N --screenshot PATH]

The dragged body is a sensor while held, so it can be put anywhere; the
others are passive (static pairs are never tested).
Headless, the compound shape is dragged along a path over the others.
"""

from __future__ import annotations

import argparse
import math

import _scene
import esper

import ecsphys as ep

SHAPES = (
    ((10, 26), ep.Circle(2.5)),
    ((24, 26), ep.Rect(6, 4)),
    ((38, 26), ep.OrientedRect(7, 3, 30)),
    ((50, 26), ep.Segment((-3, -3), (3, 3))),
    ((14, 10), ep.Polygon([(-3, -2), (3, -2.5), (4, 1.5), (0, 3.5), (-3, 1)])),
    ((32, 10), ep.Compound([ep.Circle(1.5, offset=(-2, 0)), ep.Rect(3, 2, offset=(1.5, 0)),
                            ep.Segment((3, -2), (3, 2))])),
)


class Shapes:
    title = "shapes"
    scale = 16.0
    offset = (0.0, 0.0)

    def __init__(self, app: _scene.App, args: argparse.Namespace) -> None:
        self.app = app
        self.physics = ep.Physics(fixed_dt=1 / 60)
        self.bodies = [esper.create_entity(ep.Position(*xy), ep.Collider(ep.PASSIVE),
                                           ep.Geometry(shape)) for xy, shape in SHAPES]
        self.held: int | None = None
        self.grab = (0.0, 0.0)
        self.clock = 0.0
        self.auto = True

    def _hold(self, entity: int | None) -> None:
        for e in self.bodies:
            esper.component_for_entity(e, ep.Collider).sensor = e == entity
        self.held = entity

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        self.auto = False
        wx, wy = self.app.world_xy(x, y)
        for e in self.bodies:
            pos = esper.component_for_entity(e, ep.Position)
            x0, y0, x1, y1 = esper.component_for_entity(e, ep.Geometry).shape.bounds()
            if pos.x + x0 <= wx <= pos.x + x1 and pos.y + y0 <= wy <= pos.y + y1:
                self.grab = (pos.x - wx, pos.y - wy)
                self._hold(e)
                return

    def on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, mods: int) -> None:
        if self.held is not None:
            wx, wy = self.app.world_xy(x, y)
            esper.component_for_entity(self.held, ep.Position).xy = (wx + self.grab[0],
                                                                      wy + self.grab[1])

    def on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        self._hold(None)

    def update(self, dt: float) -> None:
        self.app.debug.contacts = True
        if self.auto:  # a demo drag: the compound loops over its neighbours
            self.clock += dt
            if self.held is None:
                self._hold(self.bodies[-1])
            t = self.clock * 0.6
            esper.component_for_entity(self.held, ep.Position).xy = (
                30 + 14 * math.cos(t), 18 + 8 * math.sin(2 * t))

    def status(self) -> str:
        return f"{len(self.physics.contact_set)} contacts; drag a shape with the mouse"


SCENE = Shapes

if __name__ == "__main__":
    _scene.main(Shapes, __doc__)
