"""What one dug or built tile costs a step: ms per step on a random tile map (100 x 100,
300 x 300, 500 x 500 tiles) with a few bodies resting on its top, one tile toggled (dug if
solid, built if empty) before each step, against a plain step of the same scene; and on a
long flat floor (``--floors``: a map that wide, its floor two tiles thick), a tile of the
floor's top row dug and built back in turn, each dig splitting the floor's top edge in two
(half of its units take a new edge) and each build joining them again.

The kinds of step alternate in one process (a block of plain steps, a block of dig steps, a
block of refreshes, repeat) on the same world; the table shows the median ms of each kind and their
ratio. "dig step" times the game's ``tilemap[row, col] = kind`` and the step after it (the
physics takes the change at that step); "step only" the step alone. The toggled tiles lie
below the bodies' floor (the random map) or at least three tiles from the bodies (the long
floor), so the scene stays the same throughout. They are
drawn before the run: drawing each between two steps (NumPy's generator) made the step after
it some 6 us slower on this scene, whatever the map, which is no part of a dig. "refresh
us" times the map's update alone with its glue (``BodyTable.refresh_tilemaps`` right after
the toggle, in blocks of their own: the step after it is not timed).

With ``--shaped`` the random maps have slopes and half tiles (a fifth of the solid tiles,
``TileMap(shapes=...)``) and every other toggled tile is built as one of them: each dig or
build next to a shaped tile also makes the pieces of the tiles around it again and joins the
extra edges through them (tile_extras.pyx). Measured (7 rounds): a dig step 1.38x a plain
step at 100 x 100 (about 1,000 shaped tiles) and 1.65x at 300 x 300 (about 9,000), the
refresh 5.8 and 8.2 us, against 1.22x and 1.19x (3.1 and 6.1 us) for squares only; when
every shaped dig rebuilt all the extra edges it was 21x and 224x (0.9 and 9.7 ms).

On a 2-core machine shared with other work a dig step is about 1.2 plain steps at every size
(median of repeated runs; one run of 9 rounds varies by +-0.05): some 8-10 us more, 5-7 us
of it the refresh (the map's update in tile_edges.pyx with cold caches, and its Python
glue), the rest the toggle and a slower step after it. On the long floor a dig step is about
1.3 plain steps of that much smaller scene: its refresh costs what a random map's does
(about 5 us), though each dig renames half the floor's units (one index entry each).

    python benchmarks/bench_dig.py [--sizes 100,300,500] [--floors 500] [--rounds 15]
                                   [--block 10] [--shaped]
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
#: the shaped kinds of ``--shaped``: slopes both ways and half tiles
SHAPES = {2: [(0, 0), (1, 0), (1, 1)], 3: [(0, 0), (1, 0), (0, 1)],
          4: [(0, 0), (1, 0), (1, 0.5), (0, 0.5)], 5: [(0, 0.5), (1, 0.5), (1, 1), (0, 1)]}


def build(side: int, seed: int = 0, shaped: bool = False) -> tuple[ep.Physics, ep.TileMap]:
    """A world of its own: a random ``side`` x ``side`` map (half the tiles solid, a fifth
    of those shaped with ``shaped``) under ``SKY`` empty rows and one solid row, eight bodies
    resting on that row."""
    esper.switch_world(f"bench-dig-{side}-{seed}-{shaped}")
    rng = np.random.default_rng(seed)
    grid = (rng.random((side, side)) < 0.5).astype(np.int32)
    if shaped:
        grid *= np.where(rng.random((side, side)) < 0.2, rng.integers(2, 6, (side, side)), 1)
    grid[:SKY] = 0
    grid[SKY] = 1
    tm = ep.TileMap(grid, 1.0, shapes=SHAPES if shaped else None)
    physics = ep.Physics(fixed_dt=DT, sleep_after=None)
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


def build_floor(side: int) -> tuple[ep.Physics, ep.TileMap]:
    """A world of its own: a ``side`` tiles wide map, a flat floor two tiles thick under
    ``SKY`` empty rows, eight bodies resting on it."""
    esper.switch_world(f"bench-dig-floor-{side}")
    grid = np.zeros((SKY + 2, side), dtype=np.int32)
    grid[SKY:] = 1
    tm = ep.TileMap(grid, 1.0)
    physics = ep.Physics(fixed_dt=DT, sleep_after=None)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    for i in range(8):
        esper.create_entity(ep.Position((i + 0.5) * side / 8, 2.5), ep.Velocity(0, 0),
                            ep.Collider(ep.ACTIVE), ep.AccelerationMap(gravity=(0, -20)),
                            ep.Geometry(ep.Circle(0.4)))
    for _ in range(120):  # settle
        physics.step()
    return physics, tm


def random_tiles(side: int, count: int) -> list[tuple[int, int]]:
    """Tiles of the random map to toggle: below its solid row, away from the bodies."""
    rng = np.random.default_rng(1)
    return list(zip(rng.integers(SKY + 2, side, count).tolist(),
                    rng.integers(0, side, count).tolist(), strict=True))


def floor_tiles(side: int, count: int) -> list[tuple[int, int]]:
    """Tiles of the floor's top row, each dug and then built back, at least three tiles from
    the bodies, within the floor's middle half (each dig renames some side / 4 units or
    more)."""
    rng = np.random.default_rng(1)
    bodies = [(i + 0.5) * side / 8 for i in range(8)]
    cols = [c for c in range(side // 4, 3 * side // 4)
            if min(abs(c + 0.5 - x) for x in bodies) >= 3]
    picks = rng.choice(cols, (count + 1) // 2).tolist()
    return [(SKY, c) for c in picks for _ in range(2)][:count]


def measure(physics: ep.Physics, tm: ep.TileMap, tiles: list[tuple[int, int]], rounds: int,
            block: int, shaped: bool = False) -> dict[str, float]:
    """Median ms of a plain step, a dig step (toggle + step) and the step after a toggle,
    and median us of the refresh alone, toggling ``tiles`` in turn (``3 * rounds * block``
    of them; with ``shaped`` every other tile built is a slope or a half tile)."""
    kinds = [1, 2, 1, 4, 1, 3, 1, 5] if shaped else [1]
    plain: list[float] = []
    dig: list[float] = []
    step_only: list[float] = []
    refresh: list[float] = []
    table = physics.table
    it = iter(tiles)
    clock = time.perf_counter
    gc.disable()
    try:
        for _ in range(rounds):
            for _ in range(block):
                t0 = clock()
                physics.step()
                plain.append(clock() - t0)
            for _ in range(block):
                row, col = next(it)
                kind = kinds[(row + col) % len(kinds)]
                t0 = clock()
                tm[row, col] = 0 if tm[row, col] else kind
                t1 = clock()
                physics.step()
                t2 = clock()
                dig.append(t2 - t0)
                step_only.append(t2 - t1)
            for _ in range(block):
                row, col = next(it)
                tm[row, col] = 0 if tm[row, col] else kinds[(row + col) % len(kinds)]
                t0 = clock()
                table.refresh_tilemaps()
                refresh.append(clock() - t0)
                physics.step()
    finally:
        gc.enable()
    edges = len(tm.edges)
    world = esper.current_world
    esper.switch_world("default")
    esper.delete_world(world)
    med = statistics.median
    return {"edges": edges, "plain": med(plain) * 1e3, "dig": med(dig) * 1e3,
            "step_only": med(step_only) * 1e3, "refresh": med(refresh) * 1e6}


def row(name: str, r: dict[str, float]) -> str:
    return (f"| {name} | {r['edges']} | {r['plain']:.3f} | {r['dig']:.3f} | "
            f"{r['dig'] / r['plain']:.2f} | {r['step_only']:.3f} | "
            f"{r['step_only'] / r['plain']:.2f} | {r['refresh']:.1f} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="100,300,500")
    p.add_argument("--floors", default="500", help="floor widths ('' for none)")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--block", type=int, default=10)
    p.add_argument("--shaped", action="store_true", help="slopes and half tiles in the maps")
    args = p.parse_args()
    print(f"{args.rounds} rounds of {args.block} plain steps, {args.block} dig steps and "
          f"{args.block} refreshes, alternating; medians")
    print("| map | edges | plain step ms | dig step ms (toggle + step) | ratio | step after "
          "a dig ms | ratio | refresh us |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    count = 3 * args.rounds * args.block
    for side in (int(s) for s in args.sizes.split(",") if s):
        physics, tm = build(side, shaped=args.shaped)
        name = f"{side} x {side}" + (" shaped" if args.shaped else "")
        print(row(name, measure(physics, tm, random_tiles(side, count), args.rounds,
                                args.block, args.shaped)), flush=True)
    for side in (int(s) for s in args.floors.split(",") if s):
        physics, tm = build_floor(side)
        print(row(f"floor {side} wide", measure(physics, tm, floor_tiles(side, count),
                                                args.rounds, args.block)), flush=True)


if __name__ == "__main__":
    main()
