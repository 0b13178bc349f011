"""Sprites that follow bodies against the debug view: the per-frame cost of bringing each up
to date with the physics, per body and per frame, for the same bodies in one process.

Guarantees: one world of N balls (sensors on a grid, so the step stays cheap and nothing
piles up) carries both a `DebugDraw` and a `SpriteSync` (one 8 x 8 px sprite per body, one
texture) with the same transform; each frame runs the physics (not timed), then times
``DebugDraw.update()`` and ``SpriteSync.update()`` one after the other, in an order that
swaps from frame to frame so load from other processes hits them alike; medians over the
frames. A second world of the same case times the sync placing every sprite through the
Sprite API instead (``vectorised=False``), beside the debug view again. Only the CPU work
is timed, not drawing the batches (which the GPU does for both).

Cases: ``moving`` (every body moves more than the debug view's threshold each frame: its
worst case), ``resting`` (nothing moves: the debug view touches no shape, the sync still
writes every sprite) and ``spawn`` (one body created and one deleted every frame: both
take in a changed set of bodies; the Sprite API path is the same sync and is not run).

    python -m benchmarks.bench_sprites [--n 1000,10000] [--frames 60]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import statistics
import time

import esper
import numpy as np
import pyglet

pyglet.options["headless"] = True

import ecsphys as ep  # noqa: E402
from ecsphys.debug_draw import DebugDraw  # noqa: E402
from ecsphys.sprite_sync import BodySprite, SpriteSync  # noqa: E402

SCALE = 8.0  # px per world unit
CASES = ("moving", "resting", "spawn")


def _ball(batch: pyglet.graphics.Batch, img: pyglet.image.AbstractImage, x: float, y: float,
          speed: float) -> int:
    return esper.create_entity(
        ep.Position(x, y), ep.Velocity(speed, speed * 0.5), ep.Collider(ep.ACTIVE, sensor=True),
        ep.Geometry(ep.Circle(0.5)), BodySprite(pyglet.sprite.Sprite(img, batch=batch)))


def run_case(case: str, n: int, frames: int, vectorised: bool = True) -> dict[str, list[float]]:
    """Seconds per frame of the debug view and of the sync over ``frames`` frames (after a
    warm-up), timed in turns."""
    name = f"bench-sprites-{case}-{n}-{vectorised}"
    esper.switch_world(name)
    physics = ep.Physics(fixed_dt=1 / 60, sleep_after=None)
    batch = pyglet.graphics.Batch()
    rgba = np.full((8, 8, 4), 200, dtype=np.uint8)
    img = pyglet.image.ImageData(8, 8, "RGBA", rgba.tobytes())
    side = int(np.ceil(np.sqrt(n)))
    speed = 0.0 if case == "resting" else 3.0  # 3 units/s = 0.4 px a frame at 8 px a unit
    ents = [_ball(batch, img, 2.0 * (i % side), 2.0 * (i // side), speed) for i in range(n)]
    debug = DebugDraw(physics, batch=pyglet.graphics.Batch(), scale=SCALE, flashes=False)
    sync = SpriteSync(physics, scale=SCALE, vectorised=vectorised)
    variants = {"debug view": debug.update,
                "sprites (NumPy)" if vectorised else "sprites (Sprite API)": sync.update}
    times: dict[str, list[float]] = {key: [] for key in variants}
    counter = itertools.count(n)
    for frame in range(frames + 5):  # 5 frames of warm-up
        if case == "spawn":
            esper.delete_entity(ents.pop(0), immediate=True)
            k = next(counter)
            ents.append(_ball(batch, img, 2.0 * (k % side), 2.0 * side + 2.0, speed))
        physics.advance(1 / 60 * (1.5 if frame % 2 else 0.5))  # alpha changes
        for key in (list(variants) if frame % 2 else list(variants)[::-1]):
            t0 = time.perf_counter()
            variants[key]()
            dt = time.perf_counter() - t0
            if frame >= 5:
                times[key].append(dt)
    assert sync.sprite_count == n and debug.body_count == n
    debug.delete()
    sync.delete()
    esper.switch_world("default")
    esper.delete_world(name)
    return times


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="1000,10000", help="body counts, comma-separated")
    ap.add_argument("--frames", type=int, default=60, help="timed frames per case")
    ap.add_argument("--cases", default=",".join(CASES))
    args = ap.parse_args(argv)
    window = pyglet.window.Window(64, 64, visible=False)  # a GL context for the sprites
    print("median per frame over the frames (us per body | ms per frame); ratio = sprites "
          "(NumPy) / debug view")
    print("| case | N | debug view | sprites (NumPy) | sprites (Sprite API) | ratio |\n"
          "|---|---:|---:|---:|---:|---:|")
    gc.disable()
    try:
        for case in args.cases.split(","):
            for n in (int(v) for v in args.n.split(",")):
                times = run_case(case, n, args.frames)
                if case != "spawn":  # the Sprite API path, against the debug view again
                    api = run_case(case, n, args.frames, vectorised=False)
                    times["sprites (Sprite API)"] = api["sprites (Sprite API)"]
                gc.collect()
                med = {k: statistics.median(v) for k, v in times.items()}

                def cell(name: str, med: dict[str, float] = med, n: int = n) -> str:
                    if name not in med:
                        return "–"
                    return f"{med[name] / n * 1e6:.3f} us \\| {med[name] * 1e3:.2f} ms"

                ratio = med["sprites (NumPy)"] / med["debug view"]
                print(f"| {case} | {n:,} | {cell('debug view')} | {cell('sprites (NumPy)')} | "
                      f"{cell('sprites (Sprite API)')} | {ratio:.2f} |", flush=True)
    finally:
        gc.enable()
        window.close()


if __name__ == "__main__":
    main()
