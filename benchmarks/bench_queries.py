"""Spatial queries against pymunk 7: rays and point queries per second in a world of 10,000
static tiles and 1,000 moving bodies, built the same way in both engines and queried with the
same random query sets, the engines alternating in one process; medians of the rounds.

Scene (``queries_layout``): a 200 x 200 level of unit tiles (a border, then scattered
platforms, walls and blocks drawn with a seeded generator until there are exactly 10,000
tiles: a quarter of the cells) and 1,000 circles of radius 0.4 at free cells moving at 0.5..3
units/s, no gravity. ecsphys has one STATIC `Rect` entity per tile (``--tiles tilemap``: one
`TileMap`; pymunk then has the merged edge segments of its outline, see `benchmarks.scenes`),
pymunk one static box per tile. Both worlds run ``--warm`` frames first (ecsphys through
``esper.process(1/60)`` with ``Physics(fixed_dt=1/60)``, pymunk ``space.step(1/60)``), so the
queries read the index the step built. Then, each round:

- ``raycast``: ``physics.raycast(a, b)`` against ``space.segment_query_first(a, b, 0,
  ShapeFilter())``, one Python call a ray, for short rays (5 units) and long ones (50 units);
  starts are random points outside the tiles, directions random;
- ``raycast_many``: ``physics.raycast_many(starts, ends)`` with 1,000 rays (half short, half
  long) a call; pymunk has no batch ray query, so its column is the same Python loop of
  ``segment_query_first`` over the same rays;
- ``query_point``: ``physics.query_point(x, y)`` against ``space.point_query((x, y), 0,
  ShapeFilter())`` (max_distance 0: the shapes that contain the point), random points over the
  level;
- ``first ray after a step``: both worlds step once (untimed), then one long raycast is timed,
  then the same ray again: what ecsphys's first query of a frame pays to learn the step's
  index again (pymunk's tree is kept up to date by its step); one ray a round, so noisy.

Rates are rays (or queries) per second, median of the rounds (min-max); ratio = ecsphys rate /
pymunk rate (above 1: ecsphys faster). Each round draws fresh query sets (seeded) and times the
engines one after the other on the same sets, ecsphys first in even rounds and pymunk first in
odd ones. The answers are checked, not asserted: on a sample of rays, the share where both
engines agree on hit / no hit, and on the same first body (tiles by cell, circles by index),
and the largest difference of the hit fraction on the same body; on the points, the share
with the same set of bodies. They need not agree everywhere: a ray that starts inside a
circle hits it at fraction 0 in ecsphys and not at all in pymunk, the circles that met
something have moved differently in the two engines, and with ``--tiles tilemap`` a point in a
tile is in the ecsphys `TileMap` but in none of pymunk's segments (they have no area).

    python -m benchmarks.bench_queries [--rounds 7] [--rays 10000] [--batches 20]
        [--points 20000] [--warm 5] [--tiles rects|tilemap] [--hash]

(``--hash`` adds pymunk with its spatial hash as a third column; the ratio is then to the
faster pymunk of the row.)
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import time
from collections.abc import Callable

import esper
import numpy as np
import pymunk

import ecsphys as ep
from benchmarks import scenes as S

SIZE = 200  # the level is SIZE x SIZE unit cells
TILES = 10_000
BODIES = 1_000
RADIUS = 0.4
SHORT, LONG = 5.0, 50.0  # ray lengths
BATCH = 1_000  # rays per raycast_many call
SAMPLE = 2_000  # rays checked for agreement


def level_cells(seed: int = 0, size: int = SIZE, tiles: int = TILES) -> np.ndarray:
    """``tiles`` solid cells (ix, iy), in the order they were laid: the border first, then
    platforms (horizontal runs of 4..16), walls (vertical runs of 4..12) and blocks (2..5 a
    side) at random places, the last one cut so the count is exact."""
    rng = np.random.default_rng(seed)
    solid = np.zeros((size, size), dtype=np.bool_)
    order: list[tuple[int, int]] = []

    def lay(x0: int, y0: int, w: int, h: int) -> None:
        for x in range(x0, min(x0 + w, size)):
            for y in range(y0, min(y0 + h, size)):
                if not solid[x, y] and len(order) < tiles:
                    solid[x, y] = True
                    order.append((x, y))

    lay(0, 0, size, 1)
    lay(0, size - 1, size, 1)
    lay(0, 1, 1, size - 2)
    lay(size - 1, 1, 1, size - 2)
    while len(order) < tiles:
        kind = rng.random()
        if kind < 0.5:
            w, h = int(rng.integers(4, 17)), 1
        elif kind < 0.8:
            w, h = 1, int(rng.integers(4, 13))
        else:
            w, h = int(rng.integers(2, 6)), int(rng.integers(2, 6))
        x0 = int(rng.integers(2, size - 2 - w))
        y0 = int(rng.integers(2, size - 2 - h))
        lay(x0, y0, w, h)
    return np.array(order, dtype=np.int64)


def queries_layout(seed: int = 0, tiles_as: str = "rects", size: int = SIZE,
                   tiles: int = TILES, bodies: int = BODIES) -> S.Layout:
    """The level of `level_cells` and ``bodies`` circles at random free cells (their centres,
    jittered by up to 0.05), random directions at 0.5..3 units/s, no gravity."""
    cells = level_cells(seed, size, tiles)
    rng = np.random.default_rng(seed + 1)
    solid = np.zeros((size, size), dtype=np.bool_)
    solid[cells[:, 0], cells[:, 1]] = True
    free = np.argwhere(~solid)
    pick = free[rng.choice(len(free), bodies, replace=False)]
    pos = pick + 0.5 + rng.uniform(-0.05, 0.05, (bodies, 2))
    speed = rng.uniform(0.5, 3.0, bodies)
    ang = rng.uniform(0.0, 2 * math.pi, bodies)
    vel = np.column_stack((speed * np.cos(ang), speed * np.sin(ang)))
    centres = cells + 0.5
    return S.Layout("queries", pos, vel, RADIUS, centres.astype(np.float64),
                    np.ones_like(centres, dtype=np.float64), (0.0, 0.0),
                    box=(0.0, 0.0, float(size), float(size)), tiles_as=tiles_as)


# ---------------------------------------------------------------- query sets


def _free_points(rng: np.random.Generator, solid: np.ndarray, n: int) -> np.ndarray:
    """``n`` random points of the level outside the tiles."""
    size = solid.shape[0]
    out = np.empty((0, 2))
    while len(out) < n:
        p = rng.uniform(0.0, size, (2 * n, 2))
        c = np.minimum(p.astype(np.int64), size - 1)
        out = np.concatenate((out, p[~solid[c[:, 0], c[:, 1]]]))
    return out[:n]


def ray_set(rng: np.random.Generator, solid: np.ndarray, n: int,
            length: float | None) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rays (starts, ends), each ``length`` long (None: half SHORT, half LONG, mixed),
    starting outside the tiles, in random directions."""
    starts = _free_points(rng, solid, n)
    ang = rng.uniform(0.0, 2 * math.pi, n)
    if length is None:
        lengths = np.where(np.arange(n) % 2 == 0, SHORT, LONG)
        rng.shuffle(lengths)
    else:
        lengths = np.full(n, length)
    ends = starts + lengths[:, None] * np.column_stack((np.cos(ang), np.sin(ang)))
    return starts, ends


def _pairs(starts: np.ndarray, ends: np.ndarray) -> list[tuple[tuple[float, float],
                                                                 tuple[float, float]]]:
    """The rays as Python tuples, what a game passes one call at a time."""
    return [((a[0], a[1]), (b[0], b[1])) for a, b in zip(starts.tolist(), ends.tolist(),
                                                            strict=True)]


# ---------------------------------------------------------------- the two worlds


class Worlds:
    """The scene in ecsphys and in pymunk (tree, and with ``spatial_hash`` the hash too)."""

    def __init__(self, lay: S.Layout, warm: int, spatial_hash: bool) -> None:
        self.layout = lay
        self.ecs = S.EcsScene(lay)
        self.pymunk: dict[str, S.PymunkScene] = {"pymunk": S.PymunkScene(lay)}
        if spatial_hash:
            self.pymunk["pymunk-hash"] = S.PymunkScene(lay, spatial_hash=True)
        self.frame(warm)
        grid, _ = lay.tile_grid()
        self.solid = grid[::-1].T.copy()  # [ix, iy]
        self._keys()

    @property
    def physics(self) -> ep.Physics:
        return self.ecs.physics

    def frame(self, frames: int = 1) -> None:
        """``frames`` frames in every engine: ``esper.process`` in ecsphys's world."""
        previous = esper.current_world
        esper.switch_world(self.ecs.world)
        try:
            for _ in range(frames):
                esper.process(S.DT)
        finally:
            esper.switch_world(previous)
        for scene in self.pymunk.values():
            S.run(scene, frames)

    def _keys(self) -> None:
        """Names of bodies both engines share: ("ball", i) or ("tile", ix, iy) (``tile`` for
        the whole tile map, or for pymunk's segments, when the tiles are one map)."""
        tilemap = self.layout.tiles_as == "tilemap"
        self.ecs_key: dict[int, tuple] = {e: ("ball", i) for i, e in enumerate(self.ecs.entities)}
        t = self.physics.table
        for e, row in t.row_of.items():
            if e not in self.ecs_key:
                x, y = t.pos[row]
                self.ecs_key[e] = ("tile",) if tilemap else ("tile", int(x), int(y))
        self.pm_key: dict[str, dict[pymunk.Shape, tuple]] = {}
        for name, scene in self.pymunk.items():
            keys: dict[pymunk.Shape, tuple] = {}
            ball = {b: i for i, b in enumerate(scene.bodies)}
            for shape in scene.space.shapes:
                if shape.body in ball:
                    keys[shape] = ("ball", ball[shape.body])
                elif tilemap:
                    keys[shape] = ("tile",)
                else:
                    bb = shape.bb
                    keys[shape] = ("tile", int(math.floor((bb.left + bb.right) / 2)),
                                   int(math.floor((bb.bottom + bb.top) / 2)))
            self.pm_key[name] = keys

    def close(self) -> None:
        self.ecs.close()


# ---------------------------------------------------------------- timed loops


def _timed(fn: Callable[[], object], collect: bool = True) -> float:
    """Seconds of one call of ``fn``, the garbage collector off (and run before it unless
    ``collect`` is False: a collection would leave the caches cold for a one-ray timing)."""
    if collect:
        gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    finally:
        gc.enable()


def ecs_rays(physics: ep.Physics, rays: list) -> Callable[[], None]:
    cast = physics.raycast

    def go() -> None:
        for a, b in rays:
            cast(a, b)
    return go


def pm_rays(space: pymunk.Space, rays: list) -> Callable[[], None]:
    query = space.segment_query_first
    everything = pymunk.ShapeFilter()

    def go() -> None:
        for a, b in rays:
            query(a, b, 0.0, everything)
    return go


def ecs_batches(physics: ep.Physics, batches: list[tuple[np.ndarray, np.ndarray]]
                ) -> Callable[[], None]:
    many = physics.raycast_many

    def go() -> None:
        for starts, ends in batches:
            many(starts, ends)
    return go


def ecs_points(physics: ep.Physics, points: list) -> Callable[[], None]:
    query = physics.query_point

    def go() -> None:
        for x, y in points:
            query(x, y)
    return go


def pm_points(space: pymunk.Space, points: list) -> Callable[[], None]:
    query = space.point_query
    everything = pymunk.ShapeFilter()

    def go() -> None:
        for p in points:
            query(p, 0.0, everything)
    return go


# ---------------------------------------------------------------- agreement


def agreement(w: Worlds, engine: str, rays: list, points: list) -> dict[str, float]:
    """How often ecsphys and pymunk ``engine`` give the same answers (see the module notes)."""
    physics = w.physics
    space = w.pymunk[engine].space
    everything = pymunk.ShapeFilter()
    ek, pk = w.ecs_key, w.pm_key[engine]
    same_hit = same_body = both = 0
    ecs_hits = pm_hits = 0
    worst = {"tile": 0.0, "ball": 0.0}
    for a, b in rays:
        h = physics.raycast(a, b)
        q = space.segment_query_first(a, b, 0.0, everything)
        ecs_hits += h is not None
        pm_hits += q is not None
        same_hit += (h is None) == (q is None)
        if h is not None and q is not None:
            both += 1
            key = ek[h.entity]
            if key == pk[q.shape]:
                same_body += 1
                worst[key[0]] = max(worst[key[0]], abs(h.fraction - q.alpha))
    same_set = 0
    for x, y in points:
        mine = sorted(ek[e] for e in physics.query_point(x, y))
        theirs = sorted(pk[i.shape] for i in space.point_query((x, y), 0.0, everything))
        same_set += mine == theirs
    return {"rays": len(rays), "ecs_hit": ecs_hits / len(rays), "pm_hit": pm_hits / len(rays),
            "same_hit": same_hit / len(rays), "same_body": same_body / max(both, 1),
            "worst_tile": worst["tile"], "worst_ball": worst["ball"], "points": len(points),
            "same_points": same_set / max(len(points), 1)}


# ---------------------------------------------------------------- the run


ROWS = ("raycast, short (5)", "raycast, long (50)",
        f"raycast_many ({BATCH:,} a call, mixed)", "query_point", "first ray after a step",
        "the same ray again")


def one_round(w: Worlds, rnd: int, seed: int, args: argparse.Namespace,
              rates: dict[tuple[str, str], list[float]]) -> None:
    """Fresh query sets, then every row timed in every engine; ecsphys first in even rounds."""
    rng = np.random.default_rng(1000 + seed * 100 + rnd)
    physics = w.physics
    short = _pairs(*ray_set(rng, w.solid, args.rays, SHORT))
    long_ = _pairs(*ray_set(rng, w.solid, args.rays, LONG))
    batches = [ray_set(rng, w.solid, BATCH, None) for _ in range(args.batches)]
    batch_pairs = [p for s, e in batches for p in _pairs(s, e)]
    points = [tuple(p) for p in rng.uniform(0.0, SIZE, (args.points, 2)).tolist()]
    nbatch = BATCH * args.batches
    physics.raycast(short[0][0], short[0][1])  # learn the index outside the timed loops
    jobs: list[tuple[str, str, Callable[[], object], int]] = []
    for name, scene in w.pymunk.items():
        jobs += [(ROWS[0], name, pm_rays(scene.space, short), len(short)),
                 (ROWS[1], name, pm_rays(scene.space, long_), len(long_)),
                 (ROWS[2], name, pm_rays(scene.space, batch_pairs), nbatch),
                 (ROWS[3], name, pm_points(scene.space, points), len(points))]
    mine = [(ROWS[0], "ecsphys", ecs_rays(physics, short), len(short)),
            (ROWS[1], "ecsphys", ecs_rays(physics, long_), len(long_)),
            (ROWS[2], "ecsphys", ecs_batches(physics, batches), nbatch),
            (ROWS[3], "ecsphys", ecs_points(physics, points), len(points))]
    # one row at a time, the engines back to back on the same set
    for row in ROWS[:4]:
        order = [j for j in mine if j[0] == row] + [j for j in jobs if j[0] == row]
        if rnd % 2:
            order = order[1:] + order[:1]
        for _, engine, fn, n in order:
            rates.setdefault((row, engine), []).append(n / _timed(fn))
    # the first query after a step: step both (untimed), then one ray each, then it again
    w.frame(1)
    a, b = long_[0]
    everything = pymunk.ShapeFilter()
    firsts: list[tuple[str, Callable[[], object]]] = [("ecsphys", lambda: physics.raycast(a, b))]
    firsts += [(name, lambda s=scene.space: s.segment_query_first(a, b, 0.0, everything))
               for name, scene in w.pymunk.items()]
    for engine, fn in firsts:
        rates.setdefault((ROWS[4], engine), []).append(1.0 / _timed(fn, collect=False))
        rates.setdefault((ROWS[5], engine), []).append(1.0 / _timed(fn, collect=False))


def _rate(v: float) -> str:
    if v >= 1e6:
        return f"{v / 1e6:.2f} M"
    if v >= 1e3:
        return f"{v / 1e3:.0f} k"
    return f"{v:.0f}"


def _fmt(values: list[float] | None) -> str:
    if not values:
        return "–"
    return f"{_rate(statistics.median(values))} ({_rate(min(values))}–{_rate(max(values))})"


def _fmt_first(values: list[float] | None) -> str:
    """The first-ray row in ms per ray (median, min-max)."""
    if not values:
        return "–"
    ms = [1e3 / v for v in values]
    return f"{statistics.median(ms):.3f} ms ({min(ms):.3f}–{max(ms):.3f})"


def table(rates: dict[tuple[str, str], list[float]], engines: list[str], rounds: int) -> str:
    pm = engines[1:]
    head = "| query | ecsphys /s | " + " | ".join(f"{e} /s" for e in pm) + " | ratio |"
    lines = [f"rays or queries per second: median of {rounds} round(s) (min–max); ratio = "
             f"ecsphys / {'best ' if len(pm) > 1 else ''}pymunk (above 1: ecsphys faster). "
             "pymunk has no batch ray query: its raycast_many column is a Python loop of "
             "segment_query_first over the same rays. Last two rows: ms for one long ray, the "
             "first after a step (ecsphys then learns the step's index again) and then again.",
             "", head, "|---|" + "---:|" * (len(engines) + 1)]
    for row in ROWS:
        cells, first = [], row in ROWS[4:]
        for e in engines:
            cells.append((_fmt_first if first else _fmt)(rates.get((row, e))))
        mine = statistics.median(rates[(row, "ecsphys")])
        best = max(statistics.median(rates[(row, e)]) for e in pm)
        lines.append(f"| {row} | " + " | ".join(cells) + f" | {mine / best:.2f} |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--rays", type=int, default=10_000, help="rays a round, short and long each")
    p.add_argument("--batches", type=int, default=20, help=f"raycast_many calls a round "
                   f"({BATCH:,} rays each)")
    p.add_argument("--points", type=int, default=20_000, help="point queries a round")
    p.add_argument("--warm", type=int, default=5, help="frames before the queries")
    p.add_argument("--tiles", choices=("rects", "tilemap"), default="rects")
    p.add_argument("--hash", action="store_true", help="also pymunk with its spatial hash")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    t0 = time.perf_counter()
    lay = queries_layout(args.seed, args.tiles)
    w = Worlds(lay, args.warm, args.hash)
    built = time.perf_counter() - t0
    engines = ["ecsphys", *w.pymunk]
    try:
        print(f"level {SIZE} x {SIZE}: {len(lay.static_centre):,} static tiles "
              f"({'one TileMap / merged segments' if args.tiles == 'tilemap' else 'one box each'}"
              f"), {len(lay.dynamic_pos):,} circles r={RADIUS}, {args.warm} frames stepped; "
              f"{args.rounds} rounds of {args.rays:,} short + {args.rays:,} long rays, "
              f"{args.batches} x {BATCH:,} batch rays, {args.points:,} points "
              f"(built in {built:.1f} s)")
        rates: dict[tuple[str, str], list[float]] = {}
        for rnd in range(args.rounds):
            one_round(w, rnd, args.seed, args, rates)
        # the answers, on the world as it is now
        rng = np.random.default_rng(7 + args.seed)
        rays = _pairs(*ray_set(rng, w.solid, SAMPLE, None))
        points = [tuple(q) for q in rng.uniform(0.0, SIZE, (SAMPLE, 2)).tolist()]
        print(table(rates, engines, args.rounds))
        print()
        for engine in engines[1:]:
            a = agreement(w, engine, rays, points)
            print(f"answers vs {engine} ({a['rays']:,} mixed rays, {a['points']:,} points): "
                  f"hit {a['ecs_hit']:.1%} / {a['pm_hit']:.1%} of rays, same hit or miss "
                  f"{a['same_hit']:.2%}, same first body {a['same_body']:.2%} of rays both "
                  f"hit (fraction within {a['worst_tile']:.2g} on tiles, "
                  f"{a['worst_ball']:.2g} on circles), same bodies at "
                  f"{a['same_points']:.2%} of points")
        print(f"ecsphys bodies outside the step's index: {w.physics.queries.escaped}; "
              f"total {time.perf_counter() - t0:.1f} s")
    finally:
        w.close()


if __name__ == "__main__":
    main()
