"""The ecsphys sample gallery: every sample scene, in a window or as screenshots.

    python examples/gallery.py [--headless] [--frames N] [--out DIR]

In a window it opens the crowd scene; keys 1-9 switch scenes (rain, pong, crowd, platformer,
bullets, invaders, shapes, sprites, crates). On a machine with no display (no DISPLAY, or the
window cannot be made) it runs each scene headless through EGL for N frames, saves a screenshot
of each into DIR (default ``screenshots/``) and prints where they are.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys

import _scene
import pyglet

NAMES = ("rain", "pong", "crowd", "platformer", "bullets", "invaders", "shapes", "sprites",
         "crates")
DEFAULT = "crowd"


def scene_args(module: object) -> argparse.Namespace:
    """The scene's own command-line defaults."""
    p = _scene.parser(module.__doc__)
    add = getattr(module, "add_arguments", None)
    if add is not None:
        add(p)
    return p.parse_args([])


def available() -> list[tuple[str, object]]:
    """The scene modules that can be imported, in menu order."""
    found = []
    for name in NAMES:
        try:
            found.append((name, importlib.import_module(name)))
        except ImportError as exc:
            print(f"skipping {name}: {exc}", file=sys.stderr)
    return found


def run_headless(frames: int, out: str) -> None:
    window = pyglet.window.Window(_scene.WIDTH, _scene.HEIGHT, visible=False)
    paths = []
    for name, module in available():
        app = _scene.App(module.SCENE, scene_args(module), window=window)
        path = os.path.join(out, f"{name}.png")
        app.run_headless(frames, path)
        paths.append(os.path.abspath(path))
    print(f"\n{len(paths)} screenshots in {os.path.abspath(out)}:")
    for p in paths:
        print("  " + p)


def run_window(frames: int) -> None:
    try:
        window = pyglet.window.Window(_scene.WIDTH, _scene.HEIGHT, caption="ecsphys gallery")
    except Exception as exc:  # no usable display: start again off-screen
        print(f"no window ({exc}); running headless", file=sys.stderr)
        env = dict(os.environ, PYGLET_HEADLESS="1")
        sys.exit(subprocess.call([sys.executable, __file__, "--headless", *sys.argv[1:]],
                                 env=env))
    scenes = available()
    state: dict[str, _scene.App] = {}

    def show(index: int) -> None:
        if "app" in state:
            window.remove_handlers(state["app"].scene)
        name, module = scenes[index]
        app = _scene.App(module.SCENE, scene_args(module), window=window)
        window.push_handlers(app.scene)
        state["app"] = app

    @window.event
    def on_key_press(symbol: int, modifiers: int) -> None:
        index = symbol - pyglet.window.key._1
        if 0 <= index < len(scenes):
            show(index)

    @window.event
    def on_draw() -> None:
        state["app"].render()

    def frame(dt: float) -> None:
        state["app"].tick(min(dt, 0.1))
        if frames and state["app"].frames >= frames:
            pyglet.app.exit()

    names = [n for n, _ in scenes]
    show(names.index(DEFAULT) if DEFAULT in names else 0)
    print("keys: " + ", ".join(f"{i + 1} {n}" for i, n in enumerate(names)))
    pyglet.clock.schedule_interval(frame, 1 / 120)
    pyglet.app.run()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--headless", action="store_true", help="screenshots only, no window")
    p.add_argument("--frames", type=int, default=0,
                   help="frames per scene (headless default 240; window: stop after N)")
    p.add_argument("--out", default="screenshots", help="where headless screenshots go")
    args = p.parse_args()
    if _scene.HEADLESS:
        run_headless(args.frames or 240, args.out)
    else:
        run_window(args.frames)


if __name__ == "__main__":
    main()
