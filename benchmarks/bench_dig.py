"""What one dug or built tile costs a step: ms per step on a random tile map (100 x 100,
300 x 300, 500 x 500 tiles) with a few bodies resting on its top, one tile toggled (dug if
solid, built if empty) before each step, against a plain step of the same scene.

The two kinds of step alternate in one process (a block of plain steps, a block of dig
steps, repeat) on the same world; the table shows the median ms of each kind and their
ratio. "dig step" times the game's ``tilemap[row, col] = kind`` and the step after it (the
physics takes the change at that step); "step only" the step alone. The toggled tiles lie
below the bodies' floor and away from them, so the scene stays the same throughout. They are
drawn before the run: drawing each between two steps (NumPy's generator) made the step after
it some 6 us slower on this scene, whatever the map, which is no part of a dig.

On a 2-core machine shared with other work a dig step is about 1.3 plain steps at every size
(median of repeated runs; one run of 9 rounds varies by +-0.05): some 20 us more, about half
of it the map's update (tile_edges.pyx, cold caches), the rest the refresh's Python glue,
the toggle and a slower step after it.

    python benchmarks/bench_dig.py [--sizes 100,300,500] [--rounds 15] [--block 10]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import esper
import numpy as np

import ecsphys as ep

DT = 1 / 60
#: empty rows on top of the map, where the bodies rest on a solid row
SKY = 6


def build(side: int, seed: int = 0) -> tuple[ep.Physics, ep.TileMap]:
    """A world of its own: a random ``side`` x ``side`` map (half the tiles solid) under
    ``SKY`` empty rows and one solid row, eight bodies resting on that row."""
    esper.switch_world(f"bench-dig-{side}-{seed}")
    rng = np.random.default_rng(seed)
    grid = (rng.random((side, side)) < 0.5).astype(np.int32)
    grid[:SKY] = 0
    grid[SKY] = 1
    tm = ep.TileMap(grid, 1.0)
    physics = ep.Physics(fixed_dt=DT)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    top = side - SKY
    shapes = [ep.Circle(0.4), ep.Rect(0.9, 0.6), ep.Polygon([(-0.4, -0.3), (0.4, -0.3),
                                                             (0, 0.3)])]
    for i in range(8):
        x = (i + 0.5) * side / 8
        esper.create_entity(ep.Position(x, top + 0.7), ep.Velocity(0, 0),
                            ep.Collider(ep.ACTIVE), ep.AccelerationMap(gravity=(0, -20)),
                            ep.Geometry(shapes[i % 3]))
    for _ in range(120):  # settle
        physics.step()
    return physics, tm


def measure(side: int, rounds: int, block: int) -> dict[str, float]:
    """Median ms of a plain step, a dig step (toggle + step) and the step after a toggle."""
    physics, tm = build(side)
    rng = np.random.default_rng(1)
    count = rounds * block
    tiles = list(zip(rng.integers(SKY + 2, side, count).tolist(),
                     rng.integers(0, side, count).tolist(), strict=True))
    plain: list[float] = []
    dig: list[float] = []
    step_only: list[float] = []
    clock = time.perf_counter
    gc.disable()
    try:
        for _ in range(rounds):
            for _ in range(block):
                t0 = clock()
                physics.step()
                plain.append(clock() - t0)
            for row, col in tiles[len(dig) : len(dig) + block]:
                t0 = clock()
                tm[row, col] = 0 if tm[row, col] else 1
                t1 = clock()
                physics.step()
                t2 = clock()
                dig.append(t2 - t0)
                step_only.append(t2 - t1)
    finally:
        gc.enable()
    edges = len(tm.edge_array())
    world = esper.current_world
    esper.switch_world("default")
    esper.delete_world(world)
    med = statistics.median
    return {"edges": edges, "plain": med(plain) * 1e3, "dig": med(dig) * 1e3,
            "step_only": med(step_only) * 1e3}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="100,300,500")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--block", type=int, default=10)
    args = p.parse_args()
    print(f"{args.rounds} rounds of {args.block} plain steps and {args.block} dig steps, "
          f"alternating; medians")
    print("| map | edges | plain step ms | dig step ms (toggle + step) | ratio | step after "
          "a dig ms | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for side in (int(s) for s in args.sizes.split(",")):
        r = measure(side, args.rounds, args.block)
        print(f"| {side} x {side} | {r['edges']} | {r['plain']:.3f} | {r['dig']:.3f} | "
              f"{r['dig'] / r['plain']:.2f} | {r['step_only']:.3f} | "
              f"{r['step_only'] / r['plain']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
