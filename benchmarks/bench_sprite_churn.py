"""Sprites under churn: what one spawn and one delete per frame add to the sprite sync's frame,
against a quiet frame, for the same sprites in one process.

Guarantees: one world of N moving balls (sensors on a grid, so the step stays cheap and
nothing piles up), each with an 8 x 8 px sprite (one texture) followed by a `SpriteSync`.
Frames alternate, A/B in one process: a *quiet* frame (nothing made or deleted) and a
*churn* frame (one body and its sprite deleted, ``immediate=True``, and one made, before the
physics runs), which of the two comes first swapping from pair to pair so load from other
processes hits them alike. Each frame runs the physics (not timed), then times
``SpriteSync.update()`` alone, in CPU time (``time.process_time``) and wall time; medians
over the frames. ``ratio`` = churn / quiet (CPU medians). Only the CPU work is timed, not
drawing the batch.

    python -m benchmarks.bench_sprite_churn [--n 1000,10000] [--frames 200]
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
from ecsphys.sprite_sync import BodySprite, SpriteSync  # noqa: E402

SCALE = 8.0  # px per world unit
KINDS = ("quiet", "churn")


def _ball(batch: pyglet.graphics.Batch, img: pyglet.image.AbstractImage, x: float,
          y: float) -> int:
    return esper.create_entity(
        ep.Position(x, y), ep.Velocity(3.0, 1.5), ep.Collider(ep.ACTIVE, sensor=True),
        ep.Geometry(ep.Circle(0.5)), BodySprite(pyglet.sprite.Sprite(img, batch=batch)))


def run(n: int, frames: int) -> dict[str, dict[str, list[float]]]:
    """Per kind (``quiet``, ``churn``): the sync's seconds per frame, ``cpu`` and ``wall``,
    over ``frames`` frames of each kind (after a warm-up)."""
    name = f"bench-sprite-churn-{n}"
    esper.switch_world(name)
    physics = ep.Physics(fixed_dt=1 / 60, sleep_after=None)
    batch = pyglet.graphics.Batch()
    rgba = np.full((8, 8, 4), 200, dtype=np.uint8)
    img = pyglet.image.ImageData(8, 8, "RGBA", rgba.tobytes())
    side = int(np.ceil(np.sqrt(n)))
    ents = [_ball(batch, img, 2.0 * (i % side), 2.0 * (i // side)) for i in range(n)]
    sync = SpriteSync(physics, scale=SCALE)
    times: dict[str, dict[str, list[float]]] = {k: {"cpu": [], "wall": []} for k in KINDS}
    counter = itertools.count(n)
    warm = 6
    for pair in range(frames + warm):
        for kind in (KINDS if pair % 2 else KINDS[::-1]):
            if kind == "churn":
                esper.delete_entity(ents.pop(0), immediate=True)
                k = next(counter)
                ents.append(_ball(batch, img, 2.0 * (k % side), 2.0 * side + 2.0))
            physics.advance(1 / 60)
            c0, w0 = time.process_time(), time.perf_counter()
            sync.update()
            c1, w1 = time.process_time(), time.perf_counter()
            if pair >= warm:
                times[kind]["cpu"].append(c1 - c0)
                times[kind]["wall"].append(w1 - w0)
    assert sync.sprite_count == n
    sync.delete()
    for e in ents:
        esper.component_for_entity(e, BodySprite).sprite.delete()
    esper.switch_world("default")
    esper.delete_world(name)
    return times


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="1000,10000", help="sprite counts, comma-separated")
    ap.add_argument("--frames", type=int, default=200, help="timed frames of each kind")
    args = ap.parse_args(argv)
    window = pyglet.window.Window(64, 64, visible=False)  # a GL context for the sprites
    print("SpriteSync.update() per frame, medians (CPU ms | wall ms); ratio = churn / quiet "
          "(CPU)")
    print("| N | quiet | churn (1 spawn + 1 delete) | ratio |\n|---:|---:|---:|---:|")
    gc.disable()
    try:
        for n in (int(v) for v in args.n.split(",")):
            times = run(n, args.frames)
            gc.collect()
            med = {k: {c: statistics.median(v) for c, v in t.items()} for k, t in times.items()}

            def cell(kind: str, med: dict[str, dict[str, float]] = med) -> str:
                return f"{med[kind]['cpu'] * 1e3:.3f} \\| {med[kind]['wall'] * 1e3:.3f}"

            ratio = med["churn"]["cpu"] / med["quiet"]["cpu"]
            print(f"| {n:,} | {cell('quiet')} | {cell('churn')} | {ratio:.2f} |", flush=True)
    finally:
        gc.enable()
        window.close()


if __name__ == "__main__":
    main()
