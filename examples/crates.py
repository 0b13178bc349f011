"""Crates: a game drawn with sprites instead of the debug view. Crates, tilted crates and
balls rain onto two planks and a turning blade and pile up in a stone box; every body is a
pyglet sprite (images made in code with NumPy) that `SpriteSync` moves to its body.

    python examples/crates.py [COUNT] [--debug] [--headless --frames N --screenshot PATH]

Press D to lay the debug view over the sprites (``--debug`` starts with it on): each
outline sits on its sprite.
"""

from __future__ import annotations

import argparse
import math
import time

import _scene
import esper
import numpy as np
import pyglet
from pyglet.window import key

import ecsphys as ep
from ecsphys.sprite_sync import BodySprite, SpriteSync

SCALE = 24.0  # px per world unit: the screen shows 40 x 26.7 units
BLADE = (20.0, 15.0, 9.0, 0.5)  # x, y, length, thickness
BLADE_TURN = 40.0  # degrees a second, counter-clockwise


def picture(rgba: np.ndarray) -> pyglet.image.ImageData:
    """A pyglet image of an (h, w, 4) uint8 array whose row 0 is the top."""
    h, w, _ = rgba.shape
    return pyglet.image.ImageData(w, h, "RGBA", np.ascontiguousarray(rgba[::-1]).tobytes())


def crate(size: int) -> pyglet.image.ImageData:
    """A wooden crate: planks, a dark frame and a cross brace."""
    yy, xx = np.mgrid[0:size, 0:size]
    rgba = np.empty((size, size, 4), dtype=np.uint8)
    rgba[:] = (176, 118, 58, 255)
    rgba[(yy // max(size // 4, 1)) % 2 == 1, :3] = (160, 104, 48)  # planks
    edge = max(size // 8, 2)
    brace = (np.abs(xx - yy) < edge) | (np.abs(xx + yy - size + 1) < edge)
    rgba[brace, :3] = (120, 76, 34)
    frame = (xx < edge) | (yy < edge) | (xx >= size - edge) | (yy >= size - edge)
    rgba[frame, :3] = (92, 58, 26)
    return picture(rgba)


def ball(size: int) -> pyglet.image.ImageData:
    """A shaded ball: red, lit from the top left, clear outside its disc."""
    yy, xx = (np.mgrid[0:size, 0:size] + 0.5) / size - 0.5
    r = np.hypot(xx, yy)
    light = np.clip(1.0 - 1.6 * np.hypot(xx + 0.18, yy + 0.18), 0.25, 1.0)
    rgba = np.zeros((size, size, 4), dtype=np.uint8)
    rgba[..., 0] = 60 + 195 * light
    rgba[..., 1] = rgba[..., 2] = 40 + 60 * light**3
    rgba[..., 3] = np.where(r <= 0.5, 255, 0)
    return picture(rgba)


def stone(w: int, h: int) -> pyglet.image.ImageData:
    """Grey bricks in rows, mortar between them."""
    yy, xx = np.mgrid[0:h, 0:w]
    brick = 12
    shift = (yy // brick) % 2 * brick
    mortar = (yy % brick == 0) | ((xx + shift) % (2 * brick) == 0)
    noise = np.random.default_rng(7).integers(-10, 10, (h, w))
    rgba = np.empty((h, w, 4), dtype=np.uint8)
    rgba[..., :3] = np.where(mortar, 70, 128 + noise)[..., None] + np.array([0, 2, 8])
    rgba[..., 3] = 255
    return picture(rgba)


def plank(w: int, h: int, tip: tuple[int, int, int] | None = None) -> pyglet.image.ImageData:
    """A board with its grain along its length; ``tip``: its right end painted."""
    yy, xx = np.mgrid[0:h, 0:w]
    grain = 18 * np.sin(yy * 1.7 + np.sin(xx * 0.05) * 3)
    rgba = np.empty((h, w, 4), dtype=np.uint8)
    rgba[..., 0] = 190 + grain
    rgba[..., 1] = 150 + grain
    rgba[..., 2] = 96 + grain / 2
    rgba[..., 3] = 255
    if tip is not None:
        rgba[:, w - h * 2:, :3] = tip
    return picture(rgba)


class Crates:
    title = "crates (sprites)"
    scale = SCALE
    sleepers = False  # its debug view covers the sprites: no fill dimmed to see-through
    offset = (0.0, 0.0)

    def __init__(self, app: _scene.App, args: argparse.Namespace) -> None:
        self.app = app
        self.count = args.count
        self.debug_on = args.debug
        self.physics = ep.Physics(fixed_dt=1 / 60)
        self.sync = SpriteSync(self.physics, scale=self.scale, offset=self.offset)
        self.group = pyglet.graphics.Group(order=-1)  # under the debug view's layers
        # every image in one texture: the sprites share one vertex domain (one draw call,
        # one NumPy write for the sync)
        self.atlas = pyglet.image.atlas.TextureBin()
        px = int(SCALE)
        self.images = {"crate": self.pack(crate(px)), "ball": self.pack(ball(px))}
        for x, y, w, h in ((20, 0.5, 40, 1), (0.5, 14, 1, 26), (39.5, 14, 1, 26)):
            self.body(ep.Rect(w, h), x, y, self.pack(stone(round(w * SCALE), round(h * SCALE))))
        for x, y, angle in ((11.0, 10.0, -14.0), (30.0, 7.5, 16.0)):
            self.body(ep.OrientedRect(12, 0.6, angle), x, y,
                      self.pack(plank(12 * px, round(0.6 * SCALE))), friction=0.4)
        x, y, length, thick = BLADE
        blade = plank(round(length * SCALE), round(thick * SCALE), (200, 40, 40))
        self.blade = self.body(ep.OrientedRect(length, thick, 0.0), x, y, self.pack(blade),
                               kind=ep.ACTIVE, mass=math.inf)
        self.rng = np.random.default_rng(3)
        self.dropped = 0
        self.clock = 0.0
        self.sync_ms = 0.0

    def pack(self, image: pyglet.image.ImageData) -> pyglet.image.AbstractImage:
        """The image as a region of the shared texture (a clear pixel around it)."""
        return self.atlas.add(image, border=1)

    def body(self, shape: ep.Shape, x: float, y: float, image: pyglet.image.AbstractImage,
             kind: ep.ColliderKind = ep.STATIC, **collider: float) -> int:
        """An entity with a collider, a shape and a sprite of ``image`` on it."""
        sprite = pyglet.sprite.Sprite(image, batch=self.app.batch, group=self.group)
        parts = [ep.Position(x, y), ep.Collider(kind, **collider), ep.Geometry(shape),
                 BodySprite(sprite)]
        if kind != ep.STATIC:
            parts.append(ep.Velocity(0, 0))
        if kind == ep.PASSIVE:
            parts.append(ep.AccelerationMap(gravity=(0, -20)))
        return esper.create_entity(*parts)

    def update(self, dt: float) -> None:
        """Turn the blade, drop a crate or a ball now and then; show the debug view or not."""
        self.app.debug.colliders = self.app.debug.flashes = self.debug_on
        self.clock += dt
        angle = BLADE_TURN * self.clock
        esper.component_for_entity(self.blade, ep.Geometry).shape = ep.OrientedRect(
            BLADE[2], BLADE[3], angle)
        while self.dropped < self.count and self.clock >= 0.2 * self.dropped:
            x = float(self.rng.uniform(3, 37))
            pick = self.dropped % 3
            if pick == 2:
                shape, image = ep.Circle(0.5), self.images["ball"]
            else:  # a crate, every other one tilted (its angle is the game's: it keeps it)
                tilt = float(self.rng.uniform(-40, 40)) if pick else 0.0
                shape, image = ep.OrientedRect(1, 1, tilt), self.images["crate"]
            self.body(shape, x, 25.0, image, kind=ep.PASSIVE, friction=0.5,
                      restitution=0.3 if pick == 2 else 0.0)
            self.dropped += 1

    def after_physics(self) -> None:
        """Put every sprite on its body (after the step, before drawing)."""
        t0 = time.perf_counter()
        self.sync.update()
        self.sync_ms = 0.9 * self.sync_ms + 0.1 * (time.perf_counter() - t0) * 1e3

    def status(self) -> str:
        return (f"{self.sync.sprite_count} sprites on {self.physics.body_count} bodies, sprite "
                f"sync {self.sync_ms:.2f} ms, step {self.app.step_ms:.2f} ms; "
                f"D: debug view {'on' if self.debug_on else 'off'}")

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == key.D:
            self.debug_on = not self.debug_on


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("count", type=int, nargs="?", default=90, help="how many crates and balls")
    p.add_argument("--debug", action="store_true", help="start with the debug view on top")


SCENE = Crates

if __name__ == "__main__":
    _scene.main(Crates, __doc__, add_arguments)
