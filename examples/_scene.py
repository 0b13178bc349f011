"""The frame loop the sample scenes share: window or headless EGL, HUD, screenshot, timing.

Guarantees:
- importing this module before ``pyglet.window`` is first imported chooses the backend:
  ``--headless`` on the command line, ``PYGLET_HEADLESS=1``, or (on Linux) no ``DISPLAY``
  / ``WAYLAND_DISPLAY`` renders off-screen through EGL;
- every scene runs a fixed physics step (``ep.Physics(fixed_dt=1/60)``) and is drawn at
  ``physics.alpha``; headless, each frame is 1/60 s, so runs are repeatable;
- ``--frames N --screenshot PATH`` saves a PNG of the last frame and prints the timing.

A scene is a class with ``title``, ``scale`` (px per world unit), ``offset`` (screen px of
the world origin), a ``physics`` made in ``__init__(app, args)``, and optional
``update(dt)`` (before the physics), ``after_physics()`` (after it, before drawing: to move
sprites), ``status()`` (HUD text), ``aabbs`` (True: start with the debug view's boxes
shown), ``sleepers`` (False: sleeping bodies not dimmed) and pyglet event handlers
(``on_mouse_press``...) that the window calls.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import pyglet


def _want_headless() -> bool:
    if "--headless" in sys.argv or os.environ.get("PYGLET_HEADLESS", "") not in ("", "0"):
        return True
    linux = sys.platform.startswith("linux")
    return linux and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


HEADLESS = _want_headless()
if HEADLESS:
    pyglet.options["headless"] = True

import esper  # noqa: E402
from pyglet import gl  # noqa: E402

from ecsphys.debug_draw import DebugDraw  # noqa: E402

WIDTH, HEIGHT = 960, 640
FIXED_DT = 1 / 60


def parser(doc: str | None) -> argparse.ArgumentParser:
    """The common command line: ``--headless --frames N --screenshot PATH``."""
    p = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    p.add_argument("--headless", action="store_true", help="render off-screen (EGL)")
    p.add_argument("--frames", type=int, default=0, help="stop after N frames (0: run on)")
    p.add_argument("--screenshot", default="", help="save the last frame as this PNG")
    return p


class App:
    """One window (or off-screen buffer), one esper world, one scene, one DebugDraw."""

    def __init__(self, scene_cls: Callable[..., Any], args: argparse.Namespace,
                 window: pyglet.window.Window | None = None) -> None:
        self.args = args
        self.window = window or pyglet.window.Window(
            WIDTH, HEIGHT, caption="ecsphys", visible=not HEADLESS)
        self.batch = pyglet.graphics.Batch()
        self.hud_batch = pyglet.graphics.Batch()
        self.hud = pyglet.text.Label("", x=10, y=HEIGHT - 10, anchor_y="top", multiline=True,
                                     width=WIDTH - 20, font_size=12, color=(235, 235, 235, 255),
                                     batch=self.hud_batch)
        esper.switch_world(f"scene-{scene_cls.__name__}-{id(self)}")
        self.scene = scene_cls(self, args)
        self.window.set_caption(f"ecsphys - {self.scene.title}")
        self.debug = DebugDraw(self.scene.physics, batch=self.batch, scale=self.scene.scale,
                               offset=self.scene.offset)
        self.debug.aabbs = getattr(self.scene, "aabbs", False)  # a scene may show its boxes
        # sleeping bodies drawn dimmed, unless the scene says otherwise
        self.debug.sleepers = getattr(self.scene, "sleepers", True)
        self.frames = 0
        self.physics_s = self.draw_s = self.render_s = 0.0
        self.step_ms = 0.0
        self._handlers_pushed = False

    # ------------------------------------------------------------ one frame

    def tick(self, dt: float) -> None:
        """Advance the scene by one frame of ``dt`` seconds and bring the drawing up to date."""
        esper.switch_world(self._world)
        t0 = time.perf_counter()
        update = getattr(self.scene, "update", None)
        if update is not None:
            update(dt)
        physics = self.scene.physics
        steps = physics.advance(dt)
        t1 = time.perf_counter()
        self.debug.update()
        t2 = time.perf_counter()
        after = getattr(self.scene, "after_physics", None)
        if after is not None:
            after()
        if steps:
            self.step_ms = 0.9 * self.step_ms + 0.1 * (t1 - t0) * 1000 / steps
        self.physics_s += t1 - t0
        self.draw_s += t2 - t1
        self.frames += 1

    @property
    def _world(self) -> str:
        return self.scene.physics.world

    def render(self) -> None:
        """Clear and draw the batch and the HUD."""
        t0 = time.perf_counter()
        self.window.switch_to()
        gl.glClearColor(0.08, 0.09, 0.12, 1.0)
        self.window.clear()
        self.batch.draw()
        status = getattr(self.scene, "status", None)
        text = f"{self.scene.title}\n{status() if status else ''}".rstrip()
        if text != self.hud.text:
            self.hud.text = text
        self.hud_batch.draw()
        gl.glFinish()
        self.render_s += time.perf_counter() - t0

    def world_xy(self, x: float, y: float) -> tuple[float, float]:
        """The world point under the screen pixel ``(x, y)``."""
        return self.debug.screen_to_world(x, y)

    # ------------------------------------------------------------ loops

    def run_headless(self, frames: int, screenshot: str = "") -> None:
        """Run ``frames`` frames of 1/60 s off-screen; save the last one; print the timing."""
        t0 = time.perf_counter()
        for _ in range(frames):
            self.tick(FIXED_DT)
            self.render()
        wall = time.perf_counter() - t0
        if screenshot:
            os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
            pyglet.image.get_buffer_manager().get_color_buffer().save(screenshot)
        n = max(frames, 1)
        print(f"{self.scene.title}: {frames} frames, {frames / max(wall, 1e-9):.1f} fps; "
              f"per frame: physics {self.physics_s / n * 1000:.2f} ms, "
              f"debug update {self.draw_s / n * 1000:.2f} ms, "
              f"render {self.render_s / n * 1000:.2f} ms; "
              f"bodies {self.scene.physics.body_count}"
              + (f"; screenshot {screenshot}" if screenshot else ""))

    def run_window(self) -> None:
        """Run in the window until it is closed (or ``--frames`` are done)."""
        if not self._handlers_pushed:
            self.window.push_handlers(self.scene)
            self.window.push_handlers(on_draw=self.render)
            self._handlers_pushed = True
        limit = self.args.frames

        def frame(dt: float) -> None:
            self.tick(min(dt, 0.1))
            if limit and self.frames >= limit:
                if self.args.screenshot:
                    self.render()
                    pyglet.image.get_buffer_manager().get_color_buffer().save(
                        self.args.screenshot)
                pyglet.app.exit()

        pyglet.clock.schedule_interval(frame, 1 / 120)
        pyglet.app.run()
        pyglet.clock.unschedule(frame)


def main(scene_cls: Callable[..., Any], doc: str | None,
         add_arguments: Callable[[argparse.ArgumentParser], None] | None = None) -> None:
    """Parse the command line and run ``scene_cls`` in a window or headless."""
    p = parser(doc)
    if add_arguments is not None:
        add_arguments(p)
    args = p.parse_args()
    app = App(scene_cls, args)
    if HEADLESS:
        app.run_headless(args.frames or 300, args.screenshot)
    else:
        app.run_window()
