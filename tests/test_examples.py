"""Every sample scene runs headless (EGL) in a subprocess, and its screenshot shows the bodies."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

pyglet = pytest.importorskip("pyglet")
pyglet.options["headless"] = True  # decoding PNGs must not need a display

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
STATIC = (110, 120, 140)
BG = (20, 23, 31)  # glClearColor(0.08, 0.09, 0.12)


def over_bg(rgba: tuple[int, int, int, int], dim: float = 1.0) -> tuple[int, int, int]:
    """A debug-draw colour blended over the scenes' background (its opacity times ``dim``:
    ``SLEEP_DIM`` for a sleeping body)."""
    a = round(rgba[3] * dim) / 255
    return tuple(round(c * a + b * (1 - a)) for c, b in zip(rgba[:3], BG, strict=False))


SLEEP_DIM = 0.5  # ecsphys.debug_draw.SLEEP_DIM (checked below)
ACTIVE = over_bg((70, 165, 250, 230))
ACTIVE_ASLEEP = over_bg((70, 165, 250, 230), SLEEP_DIM)  # a sleeping body is drawn dimmed
TILE_FILL = over_bg((*STATIC, 60))  # a TileMap's solid tiles, dimmed under its edges
PASSIVE = over_bg((235, 165, 60, 230))
PASSIVE_ASLEEP = over_bg((235, 165, 60, 230), SLEEP_DIM)
SENSOR = over_bg((90, 220, 110, 120))
SIGHT = over_bg((255, 70, 70, 150))  # invaders: the sight lines of aliens that see the player
SLOPE_FILL = over_bg((240, 200, 70, 60))  # the platformer's slope tiles (kind 3), their polygons
HALF_FILL = over_bg((90, 200, 230, 60))  # ... and its half tiles (kind 4)
CRATE_FRAME = (92, 58, 26)  # crates: the dark frame of a crate's sprite image
Shot = Callable[..., tuple[str, Path]]  # the `shots` fixture: (stdout, screenshot)


def run(scene: str, frames: int, shot: Path, *extra: str) -> str:
    env = dict(os.environ, PYGLET_HEADLESS="1")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{scene}.py"), *extra, "--headless",
         "--frames", str(frames), "--screenshot", str(shot)],
        env=env, capture_output=True, text=True, timeout=80, cwd=ROOT)
    if done.returncode and "EGL" in done.stderr:  # pragma: no cover
        pytest.skip(f"no headless GL: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Shot:
    """``shot(scene, frames, *extra)``: `run`'s stdout and screenshot, each run once for the
    module (the same scene, frames and arguments give the same frames: the tests that look
    at one screenshot share it)."""
    made: dict[tuple[str, ...], tuple[str, Path]] = {}

    def shot(scene: str, frames: int, *extra: str) -> tuple[str, Path]:
        key = (scene, str(frames), *extra)
        if key not in made:
            path = tmp_path_factory.mktemp(scene) / f"{scene}.png"
            made[key] = (run(scene, frames, path, *extra), path)
        return made[key]

    return shot


def pixels(path: Path) -> np.ndarray:
    """The PNG as (H, W, 3), row 0 at the top."""
    img = pyglet.image.load(str(path))
    data = np.frombuffer(img.get_image_data().get_data("RGB", img.width * 3), dtype=np.uint8)
    return data.reshape(img.height, img.width, 3)[::-1]


def close(got: np.ndarray, want: tuple[int, int, int], tol: int = 12) -> bool:
    return bool(np.all(np.abs(got.astype(int) - want) <= tol))


def share(img: np.ndarray, color: tuple[int, int, int], tol: int = 12) -> float:
    return float(np.all(np.abs(img.astype(int) - color) <= tol, axis=2).mean())


def share_awake_or_asleep(img: np.ndarray, awake: tuple[int, int, int],
                          asleep: tuple[int, int, int], tol: int = 12) -> float:
    """The share of a body colour, drawn awake or dimmed asleep (the two never overlap)."""
    return share(img, awake, tol) + share(img, asleep, tol)


def test_sleep_dim_is_the_debug_views():
    from ecsphys.debug_draw import SLEEP_DIM as dim

    assert dim == SLEEP_DIM


# scene, frames, extra args, (pixels (x, y from the top) with a colour), minimum shares (of
# active or passive bodies: awake or asleep)
CASES = {
    # (600 frames: the screenshot `test_rain_ball_colour_where_a_ball_is` looks at too)
    "rain": (600, ("300",), [((480, 628), STATIC), ((22, 300), STATIC)], [(ACTIVE, 0.05)]),
    "pong": (300, (), [((480, 630), STATIC), ((480, 10), STATIC)], [(ACTIVE, 0.005)]),
    # the maze is a TileMap: a wall's tiles dimmed, its edge (x = 32 px) in the static colour
    "crowd": (200, ("--agents", "60"), [((16, 300), TILE_FILL), ((31, 300), STATIC)],
              [(ACTIVE, 0.005)]),
    # the level is a TileMap: the ground's tiles dimmed, its top edge (y = 600 px) static
    # the hill of slope tiles: filled below the slope, the background above it in the same
    # tile; the half-tile platform filled
    "platformer": (300, (), [((200, 630), TILE_FILL), ((200, 600), STATIC),
                             ((675, 595), SLOPE_FILL), ((665, 585), BG), ((120, 515), HALF_FILL)],
                   [(ACTIVE, 0.001)]),
    "bullets": (200, (), [], [(STATIC, 0.002)]),
    "invaders": (200, (), [], [(SENSOR, 0.01), (SIGHT, 0.003)]),
    "shapes": (200, (), [], [(PASSIVE, 0.03)]),
    "sprites": (100, (), [], [(SENSOR, 0.02)]),  # pixel sprites and boxes (sensors)
    # drawn with sprites, the debug view off: crates' frames, no debug colours
    "crates": (300, (), [], [(CRATE_FRAME, 0.003)]),
}


@pytest.mark.parametrize("scene", list(CASES))
def test_scene_runs_headless_and_draws(scene: str, shots: Shot) -> None:
    frames, extra, probes, shares = CASES[scene]
    out, shot = shots(scene, frames, *extra)
    assert f"{frames} frames" in out
    img = pixels(shot)
    assert img.shape == (640, 960, 3)
    assert img.std() > 5, "blank image"
    assert share(img, BG, 4) > 0.2  # the background is there too
    for (x, y), color in probes:
        assert close(img[y, x], color), (scene, x, y, img[y, x])
    for color, least in shares:
        dimmed = {ACTIVE: ACTIVE_ASLEEP, PASSIVE: PASSIVE_ASLEEP}.get(color)
        got = share(img, color) if dimmed is None else share_awake_or_asleep(img, color, dimmed)
        assert got >= least, (scene, color, got)


def test_crates_sprites_lie_under_their_debug_outlines(shots: Shot) -> None:
    """With the debug view over the sprites, no crate sprite shows outside its body's fill:
    the sprites sit on their bodies to the pixel (tilted crates and the turning blade too)."""
    (_, plain), (_, debug) = shots("crates", 300), shots("crates", 300, "--debug")
    sprites, outlines = pixels(plain), pixels(debug)
    assert share(sprites, PASSIVE) == 0.0  # the debug view is off by default
    assert share(sprites, CRATE_FRAME, 6) > 0.003
    assert share(outlines, PASSIVE, 20) > 0.004 and share(outlines, ACTIVE, 20) > 0.001
    assert share(outlines, CRATE_FRAME, 6) == 0.0  # none peeks out from under its fill
    assert share(outlines, (200, 40, 40), 6) == 0.0  # nor the blade's red tip


def test_rain_ball_colour_where_a_ball_is(shots: Shot) -> None:
    """After the balls settle, the bottom row above the floor is mostly balls (active), most
    of them asleep by now: drawn dimmed."""
    _, shot = shots("rain", 600, "300")  # (the pile settles in about 6 s; asleep by 10)
    img = pixels(shot)
    row = img[640 - 20 - 8, 40:920]  # 8 px above the floor's top (world y = 0 at screen 20)
    assert share_awake_or_asleep(row[None], ACTIVE, ACTIVE_ASLEEP, 20) > 0.4
    assert share(row[None], ACTIVE_ASLEEP, 20) > 0.2
