"""Sprites: two irregular pixel sprites, made in code, drift into each other and apart; they touch
only when their pixels do, while their bounding boxes (drawn around them) overlap much sooner.
Beside them, the same two sprites with seed 001's reduced 80% boxes instead of their pixels.

    python examples/sprites.py [--headless --frames N --screenshot PATH]

The status line counts touches: pixels (left pair) against reduced boxes (right pair).
"""

from __future__ import annotations

import argparse
import math

import _scene
import esper
import numpy as np

import ecsphys as ep
from ecsphys.mask import Mask

PIXEL = 0.25  # world units per sprite pixel


def star(size: int = 40, points: int = 5) -> np.ndarray:
    """A star with ``points`` spikes: lots of empty corners in its box."""
    yy, xx = np.mgrid[0:size, 0:size] - (size - 1) / 2
    angle = np.arctan2(yy, xx)
    radius = np.hypot(xx, yy)
    edge = size / 2 * (0.45 + 0.55 * np.abs(np.cos(points * angle / 2)) ** 3)
    return radius <= edge


def crescent(size: int = 40) -> np.ndarray:
    """A crescent moon: a disc with a bite out of one side."""
    yy, xx = np.mgrid[0:size, 0:size] - (size - 1) / 2
    return (np.hypot(xx, yy) <= size / 2) & (np.hypot(xx - size / 4, yy) > size / 2.6)


class Sprites:
    title = "sprites"
    scale = 12.0
    offset = (0.0, 0.0)
    aabbs = True  # the bounding boxes drawn around the sprites

    def __init__(self, app: _scene.App, args: argparse.Namespace) -> None:
        self.physics = ep.Physics(fixed_dt=1 / 60)
        a, b = star(), crescent()
        masks = Mask(a, scale=PIXEL), Mask(b, scale=PIXEL)
        size = 40 * PIXEL
        boxes = ep.Rect.from_sprite(size, size), ep.Rect.from_sprite(size, size)
        # sensors: they pass through each other and only report touching
        self.pairs = []
        for k, shapes in enumerate((masks, boxes)):
            y = 28.0 - 18.0 * k
            left = esper.create_entity(ep.Position(26, y), ep.Velocity(0, 0),
                                       ep.Collider(ep.ACTIVE, sensor=True), ep.Geometry(shapes[0]))
            right = esper.create_entity(ep.Position(54, y), ep.Velocity(0, 0),
                                        ep.Collider(ep.ACTIVE, sensor=True),
                                        ep.Geometry(shapes[1]))
            self.pairs.append((left, right))
        self.touches = [0, 0]
        self.physics.on_touch(self.touched)
        self.clock = 0.0

    def touched(self, contact) -> None:  # noqa: ANN001
        for k, pair in enumerate(self.pairs):
            if set(contact.pair) == set(pair):
                self.touches[k] += 1

    def update(self, dt: float) -> None:
        """Both pairs drift together and apart, the right sprite bobbing up and down."""
        self.clock += dt
        for left, right in self.pairs:
            esper.component_for_entity(left, ep.Velocity).xy = (
                9 * math.cos(self.clock * 0.9), 0.0)
            esper.component_for_entity(right, ep.Velocity).xy = (
                -9 * math.cos(self.clock * 0.9), 4 * math.cos(self.clock * 2.1))

    def status(self) -> str:
        return (f"touches: pixels {self.touches[0]}, 80% boxes {self.touches[1]} "
                f"(pixel masks above, reduced boxes below)")


SCENE = Sprites

if __name__ == "__main__":
    _scene.main(Sprites, __doc__)
