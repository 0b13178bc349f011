"""A tile maze three ways: ms per step for N agents crossing a 200 x 200 tile maze (40,000
cells; walls of unit tiles with one door each) built as one ecsphys `TileMap`, as one ecsphys
`Rect` entity per solid tile, and in pymunk 7 as one static segment per merged edge of the
same outline. The three run alternately in one process (run by run), from the same layout and
the same steering (the benchmark's crowd scene); medians of the runs.

    python benchmarks/bench_tilemap.py [--agents 2000] [--runs 5] [--steps 120]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from benchmarks import scenes as S

#: tiles of a 200-wide maze: 19 walls of MAZE_HEIGHT - MAZE_DOOR tiles
MAZE_TILES = 19 * (S.MAZE_HEIGHT - S.MAZE_DOOR)
VARIANTS = (("ecsphys TileMap", "ecsphys", "tilemap"), ("ecsphys Rect tiles", "ecsphys", "rects"),
            ("pymunk segments", "pymunk", "tilemap"))


def one_run(engine: str, tiles_as: str, agents: int, warm: int, steps: int) -> tuple[float, dict]:
    """ms per step of one fresh build, and what the engine did."""
    lay = dataclasses.replace(S.crowd_layout(agents, tiles=MAZE_TILES), tiles_as=tiles_as)
    scene = S.EcsScene(lay) if engine == "ecsphys" else S.PymunkScene(lay)
    try:
        S.run(scene, warm)
        total = 0.0
        for _ in range(steps):
            scene.before_step()
            t0 = time.perf_counter()
            scene.step()
            total += time.perf_counter() - t0
            scene.after_step()
        return total / steps * 1e3, scene.stats()
    finally:
        scene.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agents", type=int, default=2000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--warm", type=int, default=30)
    p.add_argument("--steps", type=int, default=120)
    args = p.parse_args()
    grid, _ = S.crowd_layout(10, tiles=MAZE_TILES).tile_grid()
    print(f"maze {grid.shape[0]} x {grid.shape[1]} tiles ({grid.size} cells, "
          f"{int(grid.sum())} solid), {args.agents} agents, {args.runs} runs of {args.steps} "
          f"steps")
    times: dict[str, list[float]] = {name: [] for name, _, _ in VARIANTS}
    did: dict[str, dict] = {}
    for _ in range(args.runs):
        for name, engine, tiles_as in VARIANTS:
            ms, stats = one_run(engine, tiles_as, args.agents, args.warm, args.steps)
            times[name].append(ms)
            did[name] = stats
    base = statistics.median(times["pymunk segments"])
    print("| maze as | ms per step (median, min-max) | ratio to pymunk | did |")
    print("|---|---:|---:|---|")
    for name, _, _ in VARIANTS:
        t = times[name]
        med = statistics.median(t)
        stats = ", ".join(f"{k} {v:.3g}" for k, v in did[name].items())
        print(f"| {name} | {med:.3f} ({min(t):.3f}-{max(t):.3f}) | {med / base:.2f} | {stats} |")


if __name__ == "__main__":
    main()
