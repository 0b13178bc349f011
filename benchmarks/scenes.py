"""Benchmark scenes, each built the same way in ecsphys, in pymunk 7 and in Box2D v3 (pyb2d3).

Guarantees:
- ``build(name, engine, n, seed)`` returns a `Scene` with the same bodies, sizes, gravity, dt
  and initial state in every engine (one random generator per seed, drawn in the same order);
  Box2D (``box2d``, the ``pyb2d3`` package: Box2D v3 in C, one thread, 4 substeps, its
  recommended default) builds every scene but ``shooter`` (`BOX2D_SCENES`), with friction and
  restitution as in pymunk and contact begin/end events on (they count its contacts);
- ``Scene.step()`` runs exactly one physics step and, in the scenes that change the world
  (``spawn``, ``shooter``), the game's calls into the engine that create and delete bodies just
  before it (ecsphys: ``esper.create_entity`` / ``esper.delete_entity``, adopted and released
  inside the step; pymunk: ``space.add`` / ``space.remove``, done at once), so timing it times
  only the engine, and all of what a change costs in each; game-side work that calls no
  engine (steering, drawing the next bullets, finding which bullets to delete) happens in
  ``Scene.before_step()`` / ``Scene.after_step()``, untimed;
- the runner steps a scene inside ``Scene.playing()``: what a game has in place while it
  plays (ecsphys: the scene's esper world is the current world, as a game's is, so a step
  switches no world; pymunk: nothing);
- ``Scene.stats()`` reports what the engine did, so a comparison is honest: contacts now,
  touch and separate callbacks so far (events scene), bodies escaped from the box (rain),
  bullets that passed through a wall (bullets), progress of the agents (crowd), bodies
  spawned and deleted and bodies in the engine (spawn), bullets fired, hits, expired and in
  flight (shooter), the fastest body of the pile and (pymunk) how many of its bodies sleep
  (pile, rock), when the rock first touched the pile, how far it fell and whether it left
  the box (rock);
- `SettledPile` steps the ``pile`` layout for the settling time in one engine once and keeps
  that state: every `SettledPile.window` starts from it (ecsphys: ``physics.restore`` of a
  snapshot; pymunk and Box2D: the settled space or world itself, settled again after a rock
  fell into it, see `SettledPile`).
Scenes:
- ``empty``: a world with no bodies at all (the fixed cost of a step);
- ``rain``: N circles of radius 1 on a jittered grid of spacing 2.5 inside a box of four static
  walls, random velocities up to 5, gravity (0, -9.8), dt 1/60 (ecsphys: ACTIVE, sphere slide);
- ``events``: ``rain`` with begin/separate (touch/separate) callbacks subscribed;
- ``crowd``: N agents (radius 0.4, ACTIVE, ``slide="tangent"``) steered at speed 3 through the
  doors of a maze of about 10,000 unit tiles, no gravity: in ecsphys one `TileMap`, in pymunk
  one static segment per merged edge of the same outline (``tiles_as="rects"``: one static box
  per tile in both);
- ``bullets``: N bullets (radius 0.05, speed 200..2000, bouncing) in a closed box of thin
  walls (0.1 thick); every bullet outside the box passed through a wall;
- ``spawn``: ``rain`` where every step creates one small body (radius 0.25, ACTIVE, no
  gravity, moving at (1, 0)) 50 units left of the box, far from the others, and deletes the
  one it created the step before (the engine holds N + 1 dynamic bodies from the first step);
- ``shooter``: N agents (radius 0.4, ACTIVE, ``slide="tangent"``, mass 1) in a square block on
  a jittered grid of spacing 1 in a walled arena, steered at speed 3 towards the middle of a
  firing line 15 units in front of the block; every step the line fires 10 bullets (radius
  0.1, mass 0.01, speed 120 at up to 0.1 rad from straight at the crowd; they never collide
  with each other: layers / shape filters). A bullet that touched anything (touch handler /
  collision begin) is deleted at the start of the next step, as is one 2 s old or outside
  the arena; the bullets' places and directions come from one generator per seed, drawn in
  the same order in both engines;
- ``pile``: the ``rain`` layout settled into a pile (`SettledPile`, 40 simulated seconds by
  default) in both engines with sleeping on: pymunk ``space.sleep_time_threshold = 0.5``
  (its idle speed the default ``|gravity| * dt``), ecsphys ``sleep_after=0.5`` (its
  default); the steps of the resting pile are timed. Every other scene compares the engines
  awake (ecsphys ``sleep_after=None``, pymunk without sleeping);
- ``rock``: the settled pile hit by a rock (a circle of radius 4 and mass 20) placed 0.1 above
  the highest ball under the middle of the box, falling at 14 units/s (about a 10-unit
  drop), so it strikes the pile in its first step: that step and the 30 after it are timed
  (pymunk's pile is asleep until the rock wakes it);
- ``overlap`` (for ``bench_first_step``, not in the runner's plan): ``rain``'s box, bodies and
  density with the bodies placed uniformly at random instead of on the grid, so most start
  overlapping (86% of them, two overlaps each on average, some nearly concentric).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import esper
import numpy as np
import pymunk

import ecsphys as ep
from ecsphys.events import BodyContact
from ecsphys.tilemap import merged_edges

DT = 1 / 60
GRAVITY = (0.0, -9.8)
RAIN_RADIUS = 1.0
RAIN_SPACING = 2.5
WALL = 2.0  # thickness of the rain box's walls
CROWD_RADIUS = 0.4
CROWD_SPEED = 3.0
MAZE_HEIGHT = 200
MAZE_WALL_GAP = 10  # x distance between the maze's tile walls
MAZE_DOOR = 4  # door width in tiles
BULLET_RADIUS = 0.05
BULLET_BOX = 400.0
SPAWN_RADIUS = 0.25
SPAWN_DISTANCE = 50.0  # how far left of the rain box each spawned body appears
SHOT_RADIUS = 0.1
SHOT_SPEED = 120.0  # 2 units a step: more than an agent's diameter
SHOT_SPREAD = 0.1  # radians either side of straight at the crowd
SHOT_MASS = 0.01
SHOTS_PER_STEP = 10
SHOT_LIFETIME = 120  # steps (2 s)
SHOT_RANGE = 15.0  # from the firing line to the front of the crowd
SHOT_LAYER = 2  # bullets' layer / pymunk category; they collide with layer 1 only
SHOT_TYPE = 1  # pymunk collision_type of a bullet
SETTLE_S = 40.0  # pile, rock: simulated seconds the rain settles before anything is timed
SLEEP_TIME = 0.5  # pile, rock: pymunk's sleep_time_threshold (seconds idle before sleeping)
ROCK_RADIUS = 4.0
ROCK_MASS = 20.0
ROCK_SPEED = 14.0  # downwards, about what a 10-unit fall under gravity gives
ROCK_GAP = 0.1  # between the rock and the highest ball under it when it is dropped
ENGINES = ("ecsphys", "pymunk", "pymunk-hash")
#: with Box2D (the bench extra's pyb2d3): the runner's plan names it where it builds the scene
ALL_ENGINES = (*ENGINES, "box2d")
BOX2D_SUBSTEPS = 4  # Box2D v3's recommended substep count
SCENES = ("empty", "rain", "events", "crowd", "bullets", "spawn", "shooter", "pile", "rock",
          "stray")
SETTLED = ("pile", "rock", "stray")  # the scenes that start from a `SettledPile`
STRAY_GAP = 40.0  # stray: how far beside the pile's box the stray ball falls
LAYOUTS = (*SCENES, "overlap")
#: the scenes built in Box2D (shooter, with its filtered bullets, is pymunk's and ecsphys's only)
BOX2D_SCENES = tuple(name for name in LAYOUTS if name != "shooter")

_worlds = itertools.count()


@dataclass
class Layout:
    """The engine-independent description of a scene: what both engines build."""

    name: str
    dynamic_pos: np.ndarray
    dynamic_vel: np.ndarray
    radius: float
    #: static axis-aligned boxes: centre (x, y) and full size (w, h)
    static_centre: np.ndarray
    static_size: np.ndarray
    gravity: tuple[float, float]
    box: tuple[float, float, float, float] | None = None  # inner (x0, y0, x1, y1)
    doors: np.ndarray | None = None  # crowd: door centre (x, y) per maze wall, left to right
    slide: str = "project"
    restitution: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    #: the statics are unit tiles at integer cells: "tilemap" builds them as one tile map
    #: (pymunk: merged edge segments), "rects" as one box each, None: boxes (not tiles)
    tiles_as: str | None = None

    def tile_grid(self) -> tuple[np.ndarray, tuple[float, float]]:
        """The unit tiles as a bool grid (row 0 on top) and the map's bottom-left corner."""
        assert self.box is not None
        x0, y0, x1, y1 = self.box
        cols, rows = math.ceil(x1 - x0), math.ceil(y1 - y0)
        cell = np.floor(self.static_centre - (x0, y0)).astype(np.int64)
        grid = np.zeros((rows, cols), dtype=np.bool_)
        grid[rows - 1 - cell[:, 1], cell[:, 0]] = True
        return grid, (x0, y0)


def rain_layout(n: int, seed: int = 0) -> Layout:
    """``n`` circles on a jittered grid in a walled box, random velocities up to 5."""
    rng = np.random.default_rng(seed)
    cols = max(1, math.ceil(math.sqrt(n)))
    rows = math.ceil(n / cols)
    ij = np.arange(n)
    gx, gy = ij % cols, ij // cols
    pos = np.column_stack(((gx + 0.5) * RAIN_SPACING, (gy + 0.5) * RAIN_SPACING))
    pos += rng.uniform(-0.2, 0.2, (n, 2))
    speed = rng.uniform(0.0, 5.0, n)
    ang = rng.uniform(0.0, 2 * math.pi, n)
    vel = np.column_stack((speed * np.cos(ang), speed * np.sin(ang)))
    w, h = cols * RAIN_SPACING, rows * RAIN_SPACING + 2 * RAIN_SPACING
    t = WALL
    centres = np.array([[w / 2, -t / 2], [w / 2, h + t / 2], [-t / 2, h / 2], [w + t / 2, h / 2]])
    sizes = np.array([[w + 2 * t, t], [w + 2 * t, t], [t, h], [t, h]])
    return Layout("rain", pos, vel, RAIN_RADIUS, centres, sizes, GRAVITY, box=(0.0, 0.0, w, h))


def crowd_layout(n: int, seed: int = 0, tiles: int = 10_000,
                 tiles_as: str = "tilemap") -> Layout:
    """A maze of about ``tiles`` unit tiles in vertical walls with one door each; ``n`` agents
    spread over the corridors between the walls, heading right. ``tiles_as``: "tilemap" or
    "rects" (see the module notes)."""
    rng = np.random.default_rng(seed)
    per_wall = MAZE_HEIGHT - MAZE_DOOR
    walls = max(1, round(tiles / per_wall))
    door_lo = rng.integers(2, MAZE_HEIGHT - MAZE_DOOR - 2, walls)
    xs, ys = [], []
    for w in range(walls):
        y = np.arange(MAZE_HEIGHT)
        y = y[(y < door_lo[w]) | (y >= door_lo[w] + MAZE_DOOR)]
        xs.append(np.full(len(y), (w + 1) * MAZE_WALL_GAP + 0.5))
        ys.append(y + 0.5)
    centres = np.column_stack((np.concatenate(xs), np.concatenate(ys)))
    sizes = np.ones_like(centres)
    doors = np.column_stack(((np.arange(walls) + 1) * MAZE_WALL_GAP + 0.5,
                             door_lo + MAZE_DOOR / 2))
    # agents on a jittered grid in the corridors (x in each corridor's [1.5, 8.5])
    corridors = walls
    per = math.ceil(n / corridors)
    cols = 7
    rows = math.ceil(per / cols)
    dy = (MAZE_HEIGHT - 2) / max(rows, 1)
    k = np.arange(n)
    c, j = k % corridors, k // corridors
    x = c * MAZE_WALL_GAP + 1.5 + (j % cols) * 1.0 + 1.0
    y = 1.0 + (j // cols + 0.5) * dy
    pos = np.column_stack((x, y)) + rng.uniform(-0.05, 0.05, (n, 2))
    vel = np.zeros((n, 2))
    return Layout("crowd", pos, vel, CROWD_RADIUS, centres, sizes, (0.0, 0.0),
                  box=(0.0, 0.0, (walls + 1) * MAZE_WALL_GAP, MAZE_HEIGHT), doors=doors,
                  slide="tangent", tiles_as=tiles_as)


def bullets_layout(n: int, seed: int = 0) -> Layout:
    """``n`` bullets at random places in a closed box (inner 400 x 400) of walls 0.1 thick, flying
    at 200..2000 units/s in random directions, bouncing (restitution 1). A bullet found outside
    the box has passed through a wall."""
    rng = np.random.default_rng(seed)
    size, t = BULLET_BOX, 0.1
    pos = rng.uniform(1.0, size - 1.0, (n, 2))
    speed = rng.uniform(200.0, 2000.0, n)
    ang = rng.uniform(0.0, 2 * math.pi, n)
    vel = np.column_stack((speed * np.cos(ang), speed * np.sin(ang)))
    centres = np.array([[size / 2, -t / 2], [size / 2, size + t / 2],
                        [-t / 2, size / 2], [size + t / 2, size / 2]])
    sizes = np.array([[size + 2 * t, t], [size + 2 * t, t], [t, size], [t, size]])
    return Layout("bullets", pos, vel, BULLET_RADIUS, centres, sizes, (0.0, 0.0),
                  box=(0.0, 0.0, size, size), restitution=1.0)


def spawn_layout(n: int, seed: int = 0) -> Layout:
    """``rain`` with the place and velocity of the body each step creates: 50 units left of
    the box, half way up, moving right at 1 (it lives one step)."""
    out = rain_layout(n, seed)
    out.name = "spawn"
    assert out.box is not None
    out.extra["spawn_at"] = (-WALL - SPAWN_DISTANCE, out.box[3] / 2)
    out.extra["spawn_vel"] = (1.0, 0.0)
    return out


def shooter_layout(n: int, seed: int = 0) -> Layout:
    """``n`` agents in a square block (jittered grid of spacing 1) in a walled arena, a firing
    line 15 units left of the block, 10 units of room above, below and right of it."""
    rng = np.random.default_rng(seed)
    cols = max(1, math.ceil(math.sqrt(n)))
    rows = math.ceil(n / cols)
    margin = 10.0
    gun_x = 2.0
    front = gun_x + SHOT_RANGE
    k = np.arange(n)
    pos = np.column_stack((front + 0.5 + k % cols, margin + 0.5 + k // cols))
    pos += rng.uniform(-0.05, 0.05, (n, 2))
    w, h = front + cols + margin, rows + 2 * margin
    t = WALL
    centres = np.array([[w / 2, -t / 2], [w / 2, h + t / 2], [-t / 2, h / 2], [w + t / 2, h / 2]])
    sizes = np.array([[w + 2 * t, t], [w + 2 * t, t], [t, h], [t, h]])
    return Layout("shooter", pos, np.zeros((n, 2)), CROWD_RADIUS, centres, sizes, (0.0, 0.0),
                  box=(0.0, 0.0, w, h), slide="tangent",
                  extra={"gun_x": gun_x, "gun_y": (margin, margin + rows),
                         "target": (gun_x, h / 2), "seed": seed})


def empty_layout(n: int = 0, seed: int = 0) -> Layout:
    """A world with no bodies and no statics (``n`` is ignored): what a step costs by itself."""
    none = np.zeros((0, 2))
    return Layout("empty", none, none.copy(), RAIN_RADIUS, none.copy(), none.copy(), GRAVITY)


def overlap_layout(n: int, seed: int = 0) -> Layout:
    """``rain``'s box, bodies, velocities and density, the bodies placed uniformly at random in
    the part of the box the grid fills: most start overlapping one or more others."""
    out = rain_layout(n, seed)
    out.name = "overlap"
    rng = np.random.default_rng(seed + 1)
    cols = max(1, math.ceil(math.sqrt(n)))
    rows = math.ceil(n / cols)
    r = out.radius
    out.dynamic_pos = np.column_stack((rng.uniform(r, cols * RAIN_SPACING - r, n),
                                       rng.uniform(r, rows * RAIN_SPACING - r, n)))
    return out


def overlapping_pairs(pos: np.ndarray, radius: float, deeper_than: float = 0.0
                      ) -> tuple[int, float]:
    """How many pairs of circles of ``radius`` at ``pos`` overlap by more than ``deeper_than``
    (centres closer than ``2 * radius - deeper_than``), and the deepest overlap of any pair
    (0.0 if none)."""
    pos = np.asarray(pos, dtype=np.float64)
    if len(pos) < 2:
        return 0, 0.0
    size = 2.0 * radius
    cell = np.floor(pos / size).astype(np.int64)
    cell -= cell.min(axis=0)
    width = int(cell[:, 0].max()) + 3  # room for the x - 1 and x + 1 neighbours in a row
    key = cell[:, 1] * width + cell[:, 0]
    order = np.argsort(key, kind="stable")
    skey = key[order]
    count, deepest = 0, 0.0
    for dx, dy in ((0, 0), (1, 0), (-1, 1), (0, 1), (1, 1)):  # each neighbour cell once
        target = key + dy * width + dx
        lo = np.searchsorted(skey, target, "left")
        per = np.searchsorted(skey, target, "right") - lo
        i = np.repeat(np.arange(len(pos)), per)
        start = np.repeat(np.cumsum(per) - per, per)
        j = order[np.repeat(lo, per) + np.arange(len(i)) - start]
        if dx == dy == 0:
            i, j = i[i < j], j[i < j]
        d = np.hypot(*(pos[i] - pos[j]).T)
        count += int((d < size - deeper_than).sum())
        if len(d):
            deepest = max(deepest, float(size - d.min()))
    return count, deepest


def layout(name: str, n: int, seed: int = 0) -> Layout:
    """The layout of scene ``name`` (``events``, ``pile`` and ``rock`` are ``rain``'s; ``spawn``
    is ``rain``'s with a place to spawn at)."""
    if name in ("rain", "events", *SETTLED):
        out = rain_layout(n, seed)
        out.name = name
        return out
    if name == "spawn":
        return spawn_layout(n, seed)
    if name == "empty":
        return empty_layout(n, seed)
    if name == "crowd":
        return crowd_layout(n, seed)
    if name == "bullets":
        return bullets_layout(n, seed)
    if name == "shooter":
        return shooter_layout(n, seed)
    if name == "overlap":
        return overlap_layout(n, seed)
    raise ValueError(f"unknown scene {name!r}; expected one of {LAYOUTS}")


def _next_door_targets(lay: Layout, pos: np.ndarray) -> np.ndarray:
    """Crowd steering: each agent's velocity towards the door of the next wall on its right
    (straight right once past the last wall)."""
    doors = lay.doors
    assert doors is not None
    k = np.searchsorted(doors[:, 0], pos[:, 0] + CROWD_RADIUS)
    past = k >= len(doors)
    target = doors[np.minimum(k, len(doors) - 1)].copy()
    target[:, 0] += 1.0  # aim through the door
    d = target - pos
    d[past] = (1.0, 0.0)
    length = np.hypot(d[:, 0], d[:, 1])
    return d * (CROWD_SPEED / np.maximum(length, 1e-9))[:, None]


def _towards(target: tuple[float, float], pos: np.ndarray) -> np.ndarray:
    """Shooter steering: each agent's velocity towards ``target`` at the crowd's speed."""
    d = np.asarray(target) - pos
    length = np.hypot(d[:, 0], d[:, 1])
    return d * (CROWD_SPEED / np.maximum(length, 1e-9))[:, None]


class Scene:
    """One scene built in one engine."""

    engine = ""

    def __init__(self, lay: Layout) -> None:
        self.layout = lay
        self.n = len(lay.dynamic_pos)
        self.touches = 0
        self.separates = 0
        self.steps = 0
        self.escaped_ever = np.zeros(self.n, dtype=np.bool_)
        self.start_x = lay.dynamic_pos[:, 0].copy()
        self.statics = len(lay.static_centre) if lay.tiles_as != "tilemap" else 1
        # spawn and shooter: what the game made and deleted through the engine
        self.spawned = 0
        self.deleted = 0
        self.fired = 0
        self.hits = 0
        self.expired = 0
        #: shooter: each bullet in flight (entity / pymunk body) and the step it was fired in
        self.shots: dict[Any, int] = {}
        self._hit: set[Any] = set()  # bodies in a bullet's touch / begin during the step
        self._doomed: list[Any] = []  # bullets to delete at the start of the next step
        self._batch: list[list[float]] = []  # bullets to fire at the start of the next step
        # rock: the rock (entity / pymunk body) once dropped, where it started, the step (1 =
        # the first after the drop) it first touched something, pymunk's sleepers at the drop
        self.rock: Any = None
        self.rock_start_y = 0.0
        self.rock_steps = 0
        self.hit_step = 0
        self.asleep_at_drop: int | None = None
        # stray: a ball falling far beside the pile (entity / pymunk body), awake all along
        self.stray: Any = None
        if lay.name == "shooter":
            self._shot_rng = np.random.default_rng([lay.extra["seed"], 1])

    @contextlib.contextmanager
    def playing(self) -> Iterator[None]:
        """While the runner steps the scene: what a game has in place while it plays (ecsphys:
        the scene's esper world is the current one, so a step switches no world; pymunk:
        nothing)."""
        yield

    def positions(self) -> np.ndarray:  # pragma: no cover - abstract
        """The dynamic bodies' positions now, shape (N, 2)."""
        raise NotImplementedError

    def contacts(self) -> int:  # pragma: no cover - abstract
        """How many pairs touch after the last step."""
        raise NotImplementedError

    def _set_velocities(self, vel: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _step(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def body_count(self) -> int:  # pragma: no cover - abstract
        """How many dynamic bodies the engine holds now."""
        raise NotImplementedError

    def _spawn(self) -> None:  # pragma: no cover - abstract
        """Create one body at the layout's spawn place, delete the one made the step before."""
        raise NotImplementedError

    def _shoot(self) -> None:  # pragma: no cover - abstract
        """Delete the bullets in ``_doomed``, fire those in ``_batch`` (noted in ``shots``)."""
        raise NotImplementedError

    def _shot_positions(self) -> np.ndarray:  # pragma: no cover - abstract
        """The positions of the bullets in flight, in the order of ``shots``."""
        raise NotImplementedError

    def speeds(self) -> np.ndarray:  # pragma: no cover - abstract
        """The dynamic bodies' speeds now (the rock not included), shape (N,)."""
        raise NotImplementedError

    def asleep(self) -> int | None:
        """How many of the dynamic bodies (the rock not included) sleep; None in an engine
        that does not sleep bodies."""
        return None

    def _add_rock(self, x: float, y: float, vy: float) -> Any:  # pragma: no cover - abstract
        """Add the rock at (x, y) moving at (0, vy), ready for the next step; return it."""
        raise NotImplementedError

    def rock_position(self) -> tuple[float, float]:  # pragma: no cover - abstract
        """Where the rock is now."""
        raise NotImplementedError

    def _rock_touching(self) -> bool:  # pragma: no cover - abstract
        """Whether the rock touches anything after the last step."""
        raise NotImplementedError

    def drop_rock(self) -> None:
        """Add the rock over the middle of the box, ``ROCK_GAP`` above the height where it
        would first touch a ball, falling at ``ROCK_SPEED``: it strikes the pile in the next
        step. ``ValueError`` if the box has no room for it (under about 40 balls)."""
        if self.rock is not None:
            raise ValueError("drop_rock: this scene already has its rock")
        assert self.layout.box is not None
        x0, y0, x1, y1 = self.layout.box
        reach = ROCK_RADIUS + self.layout.radius
        mid = (x0 + x1) / 2
        p = self.positions()
        dx = np.abs(p[:, 0] - mid)
        under = dx < reach
        # the rock's centre height at which it would touch each ball under it
        meet = p[under, 1] + np.sqrt(reach * reach - dx[under] ** 2)
        y = float(meet.max()) + ROCK_GAP if under.any() else y0 + ROCK_RADIUS
        if x1 - x0 < 4 * ROCK_RADIUS or y + ROCK_RADIUS > y1:
            raise ValueError(f"drop_rock: the box {self.layout.box} has no room for a rock of "
                             f"radius {ROCK_RADIUS} at height {y:.1f} (N={self.n})")
        self.asleep_at_drop = self.asleep()
        self.rock = self._add_rock(mid, y, -ROCK_SPEED)
        self.rock_start_y = y
        self.rock_steps = 0
        self.hit_step = 0

    def add_stray(self) -> None:
        """Add a rock-sized ball ``STRAY_GAP`` beside the pile's box, at the box's top, at
        rest: it falls freely through every timed step, the one awake body of a world whose
        pile sleeps (what a game's sleeping level is while its player moves)."""
        if self.stray is not None:
            raise ValueError("add_stray: this scene already has its stray ball")
        assert self.layout.box is not None
        x0, y0, x1, y1 = self.layout.box
        self.stray = self._add_rock(x1 + STRAY_GAP, y1, 0.0)

    def stray_awake(self) -> int:  # pragma: no cover - abstract
        """1 if the stray ball is awake, else 0."""
        raise NotImplementedError

    def before_step(self) -> None:
        """Game-side work before a step (untimed): the crowd's steering; the shooter's
        steering and the places and velocities of the bullets the step fires."""
        name = self.layout.name
        if name == "crowd":
            self._set_velocities(_next_door_targets(self.layout, self.positions()))
        elif name == "shooter":
            extra = self.layout.extra
            self._set_velocities(_towards(extra["target"], self.positions()))
            rng = self._shot_rng
            y = rng.uniform(*extra["gun_y"], SHOTS_PER_STEP)
            ang = rng.uniform(-SHOT_SPREAD, SHOT_SPREAD, SHOTS_PER_STEP)
            self._batch = np.column_stack((np.full(SHOTS_PER_STEP, extra["gun_x"]), y,
                                           SHOT_SPEED * np.cos(ang),
                                           SHOT_SPEED * np.sin(ang))).tolist()

    def step(self) -> None:
        """Exactly one physics step, after the game's creates and deletes of the step (spawn:
        one body made and the last one deleted; shooter: the bullets that hit or expired
        deleted and the new ones fired)."""
        name = self.layout.name
        if name == "spawn":
            self._spawn()
        elif name == "shooter":
            self._shoot()
        self._step()
        self.steps += 1

    def after_step(self) -> None:
        """Bookkeeping after a step (untimed): bullets seen outside their box; the shooter's
        bullets that touched something, are 2 s old or left the arena, to be deleted; the
        first step in which the rock touched something."""
        name = self.layout.name
        if self.rock is not None:
            self.rock_steps += 1
            if not self.hit_step and self._rock_touching():
                self.hit_step = self.rock_steps
        if name == "bullets":
            self.escaped_ever |= self._outside()
        elif name == "shooter":
            hit, self._hit = self._hit, set()
            if not self.shots:
                return
            x0, y0, x1, y1 = self.layout.box or (-math.inf, -math.inf, math.inf, math.inf)
            p = self._shot_positions()
            gone = ((p[:, 0] < x0) | (p[:, 0] > x1) | (p[:, 1] < y0) | (p[:, 1] > y1)
                    | ~np.isfinite(p).all(axis=1)).tolist()
            oldest = self.steps - SHOT_LIFETIME
            for (shot, fired), out in zip(self.shots.items(), gone, strict=True):
                if shot in hit:
                    self.hits += 1
                elif out or fired <= oldest:
                    self.expired += 1
                else:
                    continue
                self._doomed.append(shot)
            for shot in self._doomed:
                del self.shots[shot]

    def _outside(self) -> np.ndarray:
        box = self.layout.box
        p = self.positions()
        bad = ~np.isfinite(p).all(axis=1)
        if box is None:
            return bad
        x0, y0, x1, y1 = box
        return bad | (p[:, 0] < x0) | (p[:, 0] > x1) | (p[:, 1] < y0) | (p[:, 1] > y1)

    def escaped(self) -> int:
        """Dynamic bodies outside the box (or not finite) now."""
        return int(self._outside().sum())

    def stats(self) -> dict[str, float | int]:
        """What the engine did: counts for the report."""
        out: dict[str, float | int] = {"contacts": self.contacts(), "escaped": self.escaped()}
        name = self.layout.name
        if name == "events":
            out["touches"] = self.touches
            out["separates"] = self.separates
        if name == "bullets":
            out["passed"] = int(self.escaped_ever.sum())
        if name == "crowd":
            out["progress"] = float(np.mean(self.positions()[:, 0] - self.start_x))
        if name == "spawn":
            out.update(spawned=self.spawned, deleted=self.deleted, bodies=self.body_count())
        if name == "shooter":
            out.update(fired=self.fired, hits=self.hits, expired=self.expired,
                       flying=len(self.shots))
        if name in SETTLED:
            if self.rock is not None and self.asleep_at_drop is not None:
                out["asleep_before"] = self.asleep_at_drop
            if (asleep := self.asleep()) is not None:
                out["asleep"] = asleep
            out["vmax"] = round(float(self.speeds().max()), 4) if self.n else 0.0
        if self.rock is not None:
            x, y = self.rock_position()
            x0, y0, x1, y1 = self.layout.box or (-math.inf, -math.inf, math.inf, math.inf)
            inside = math.isfinite(x) and math.isfinite(y) and x0 < x < x1 and y0 < y < y1
            out.update(hit_step=self.hit_step, rock_fell=round(self.rock_start_y - y, 2),
                       rock_out=int(not inside))
        if self.stray is not None:
            out["stray_awake"] = self.stray_awake()
        return out

    def close(self) -> None:
        """Release the engine's objects."""


class EcsScene(Scene):
    """A scene in ecsphys, in an esper world of its own."""

    engine = "ecsphys"

    def __init__(self, lay: Layout) -> None:
        super().__init__(lay)
        self.world = f"bench-{next(_worlds)}"
        self._previous = esper.current_world
        esper.switch_world(self.world)
        # sleeping where pymunk sleeps (pile, rock); the other scenes compare awake engines
        self.physics = ep.Physics(fixed_dt=DT,
                                  sleep_after=SLEEP_TIME if lay.name in SETTLED else None)
        if lay.tiles_as == "tilemap":
            grid, origin = lay.tile_grid()
            esper.create_entity(ep.Position(*origin), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.TileMap(grid, 1.0)))
        else:
            for (cx, cy), (w, h) in zip(lay.static_centre, lay.static_size, strict=True):
                esper.create_entity(ep.Position(float(cx), float(cy)), ep.Collider(ep.STATIC),
                                    ep.Geometry(ep.Rect(float(w), float(h))))
        gravity = lay.gravity
        circle = ep.Circle(lay.radius)
        self.entities = []
        for (x, y), (vx, vy) in zip(lay.dynamic_pos.tolist(), lay.dynamic_vel.tolist(),
                                    strict=True):
            comps: list[Any] = [ep.Position(x, y), ep.Velocity(vx, vy),
                                ep.Collider(ep.ACTIVE, slide=lay.slide,
                                            restitution=lay.restitution),
                                ep.Geometry(circle)]
            if gravity != (0.0, 0.0):
                comps.append(ep.AccelerationMap(gravity=gravity))
            self.entities.append(esper.create_entity(*comps))
        self._ents = np.array(self.entities, dtype=np.int64)
        if lay.name == "events":
            if not hasattr(self.physics, "on_touch"):
                raise NotImplementedError("Physics has no on_touch / on_separate yet")
            self.physics.on_touch(self._on_touch)
            self.physics.on_separate(self._on_separate)
        self._last: int | None = None  # spawn: the body made the step before
        self._spawn_shape = ep.Circle(SPAWN_RADIUS)
        self._shot_shape = ep.Circle(SHOT_RADIUS)
        if lay.name == "shooter":
            self.physics.on_touch(self._on_shot_touch, layers=(SHOT_LAYER, 1))
        t0 = time.perf_counter()
        self.physics.advance(0.0)  # adopt now, outside the timed steps
        #: seconds the adoption of the built world took (bench_first_step reports it)
        self.adopt_s = time.perf_counter() - t0
        esper.switch_world(self._previous)

    def _on_touch(self, contact: object) -> None:
        self.touches += 1

    def _on_separate(self, contact: object) -> None:
        self.separates += 1

    def _on_shot_touch(self, contact: BodyContact) -> None:
        self._hit.add(contact.a)
        self._hit.add(contact.b)

    def _spawn(self) -> None:
        previous = esper.current_world
        esper.switch_world(self.world)
        new = esper.create_entity(ep.Position(*self.layout.extra["spawn_at"]),
                                  ep.Velocity(*self.layout.extra["spawn_vel"]),
                                  ep.Collider(ep.ACTIVE), ep.Geometry(self._spawn_shape))
        if self._last is not None:
            esper.delete_entity(self._last)
            self.deleted += 1
        esper.switch_world(previous)
        self._last = new
        self.spawned += 1

    def _shoot(self) -> None:
        previous = esper.current_world
        esper.switch_world(self.world)
        for e in self._doomed:
            esper.delete_entity(e)
        shape, step, shots = self._shot_shape, self.steps, self.shots
        for x, y, vx, vy in self._batch:
            e = esper.create_entity(ep.Position(x, y), ep.Velocity(vx, vy),
                                    ep.Collider(ep.ACTIVE, layer=SHOT_LAYER, mask=1,
                                                mass=SHOT_MASS), ep.Geometry(shape))
            shots[e] = step
        esper.switch_world(previous)
        self.deleted += len(self._doomed)
        self.fired += len(self._batch)
        self._doomed, self._batch = [], []

    def _shot_positions(self) -> np.ndarray:
        t = self.physics.table
        rows = np.fromiter((t.row_of[e] for e in self.shots), dtype=np.int64,
                           count=len(self.shots))
        return t.pos[rows]

    def body_count(self) -> int:
        return self.physics.body_count - self.statics

    def _rows(self) -> np.ndarray:
        t = self.physics.table
        return np.fromiter((t.row_of[e] for e in self.entities), dtype=np.int64,
                           count=len(self.entities))

    def positions(self) -> np.ndarray:
        return self.physics.table.pos[self._rows()].copy()

    def _set_velocities(self, vel: np.ndarray) -> None:
        t = self.physics.table
        t.vel[self._rows()] = vel

    def contacts(self) -> int:
        return len(self.physics.contact_set.a)

    def speeds(self) -> np.ndarray:
        v = self.physics.table.vel[self._rows()]
        return np.hypot(v[:, 0], v[:, 1])

    def _add_rock(self, x: float, y: float, vy: float) -> Any:
        previous = esper.current_world
        esper.switch_world(self.world)
        try:
            rock = esper.create_entity(
                ep.Position(x, y), ep.Velocity(0.0, vy),
                ep.Collider(ep.ACTIVE, mass=ROCK_MASS, slide=self.layout.slide),
                ep.Geometry(ep.Circle(ROCK_RADIUS)),
                ep.AccelerationMap(gravity=self.layout.gravity))
        finally:
            esper.switch_world(previous)
        self.physics.sync()  # adopted now, outside the timed steps (pymunk's space.add too)
        return rock

    def rock_position(self) -> tuple[float, float]:
        t = self.physics.table
        x, y = t.pos[t.row_of[self.rock]]
        return float(x), float(y)

    def _rock_touching(self) -> bool:
        return bool(self.physics.touching(self.rock))

    def remove_rock(self) -> None:
        """Delete the rock and the stray ball (if any) and forget them: the world holds the
        pile alone again."""
        if self.rock is None and self.stray is None:
            return
        previous = esper.current_world
        esper.switch_world(self.world)
        try:
            for extra in (self.rock, self.stray):
                if extra is not None:
                    esper.delete_entity(extra, immediate=True)
        finally:
            esper.switch_world(previous)
        self.physics.sync()
        self.rock = self.stray = None

    def stray_awake(self) -> int:
        return int(not self.physics.is_sleeping(self.stray))

    def _step(self) -> None:
        self.physics.step(DT)

    @contextlib.contextmanager
    def playing(self) -> Iterator[None]:
        previous = esper.current_world
        esper.switch_world(self.world)
        try:
            yield
        finally:
            esper.switch_world(previous)

    def close(self) -> None:
        self.physics.remove()
        esper.switch_world("default")
        esper.delete_world(self.world)
        esper.switch_world(self._previous if self._previous != self.world else "default")


class PymunkScene(Scene):
    """A scene in pymunk 7: dynamic circles, static boxes, no friction, no bounce."""

    engine = "pymunk"

    def __init__(self, lay: Layout, spatial_hash: bool = False,
                 space: pymunk.Space | None = None) -> None:
        """The scene of ``lay``, built in a new space, or given its ``space`` (a copy of one
        this class built from ``lay``, stepped: `SettledPile`)."""
        super().__init__(lay)
        if spatial_hash:
            self.engine = "pymunk-hash"
        if space is None:
            space = self._build(lay)
        self.space = space
        self.bodies: list[pymunk.Body] = [b for b in space.bodies
                                          if b.body_type == pymunk.Body.DYNAMIC]
        statics = space.static_body.shapes
        r = lay.radius
        if spatial_hash:
            space.use_spatial_hash(2.0 * r * 2.0 if lay.name != "crowd" else 1.0,
                                   max(10_000, 2 * (len(self.bodies) + len(statics))))
        if lay.name == "events":
            space.on_collision(begin=self._begin, separate=self._separate)
        self._last: tuple[pymunk.Body, pymunk.Shape] | None = None  # spawn: the step before
        self._spawn_moment = pymunk.moment_for_circle(1.0, 0, SPAWN_RADIUS)
        self._shot_moment = pymunk.moment_for_circle(SHOT_MASS, 0, SHOT_RADIUS)
        #: bullets: layer SHOT_LAYER, colliding with layer 1 only (not with each other)
        self._shot_filter = pymunk.ShapeFilter(categories=SHOT_LAYER, mask=1)
        self._shapes: dict[pymunk.Body, pymunk.Shape] = {}  # each bullet's shape
        if lay.name == "shooter":
            space.on_collision(SHOT_TYPE, None, begin=self._shot_begin)

    @staticmethod
    def _build(lay: Layout) -> pymunk.Space:
        """A new space holding ``lay``'s statics and dynamic bodies, in the layout's order."""
        space = pymunk.Space()
        space.gravity = lay.gravity
        if lay.name in SETTLED:
            space.sleep_time_threshold = SLEEP_TIME
        statics: list[pymunk.Shape] = []
        if lay.tiles_as == "tilemap":  # the same outline as the TileMap: its merged edges
            grid, (ox, oy) = lay.tile_grid()
            for x0, y0, x1, y1, _ in merged_edges(grid):
                seg = pymunk.Segment(space.static_body, (ox + x0, oy + y0), (ox + x1, oy + y1),
                                     0.0)
                seg.friction = 0.0
                seg.elasticity = lay.restitution
                statics.append(seg)
        else:
            for (cx, cy), (w, h) in zip(lay.static_centre.tolist(), lay.static_size.tolist(),
                                        strict=True):
                x0, y0, x1, y1 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
                poly = pymunk.Poly(space.static_body, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
                poly.friction = 0.0
                poly.elasticity = lay.restitution
                statics.append(poly)
        space.add(*statics)
        r = lay.radius
        moment = pymunk.moment_for_circle(1.0, 0, r)
        items: list[Any] = []
        for (x, y), (vx, vy) in zip(lay.dynamic_pos.tolist(), lay.dynamic_vel.tolist(),
                                    strict=True):
            body = pymunk.Body(1.0, moment)
            body.position = (x, y)
            body.velocity = (vx, vy)
            shape = pymunk.Circle(body, r)
            shape.friction = 0.0
            shape.elasticity = lay.restitution
            items += (body, shape)
        space.add(*items)
        return space

    def _begin(self, arbiter: pymunk.Arbiter, space: pymunk.Space, data: Any) -> None:
        self.touches += 1

    def _separate(self, arbiter: pymunk.Arbiter, space: pymunk.Space, data: Any) -> None:
        self.separates += 1

    def _shot_begin(self, arbiter: pymunk.Arbiter, space: pymunk.Space, data: Any) -> None:
        a, b = arbiter.shapes
        self._hit.add(a.body)
        self._hit.add(b.body)

    def _spawn(self) -> None:
        body = pymunk.Body(1.0, self._spawn_moment)
        body.position = self.layout.extra["spawn_at"]
        body.velocity = self.layout.extra["spawn_vel"]
        shape = pymunk.Circle(body, SPAWN_RADIUS)
        shape.friction = 0.0
        self.space.add(body, shape)
        if self._last is not None:
            self.space.remove(*self._last)
            self.deleted += 1
        self._last = (body, shape)
        self.spawned += 1

    def _shoot(self) -> None:
        space, shapes = self.space, self._shapes
        if self._doomed:
            space.remove(*[x for body in self._doomed for x in (body, shapes.pop(body))])
        items: list[Any] = []
        step, shots = self.steps, self.shots
        for x, y, vx, vy in self._batch:
            body = pymunk.Body(SHOT_MASS, self._shot_moment)
            body.position = (x, y)
            body.velocity = (vx, vy)
            shape = pymunk.Circle(body, SHOT_RADIUS)
            shape.friction = 0.0
            shape.filter = self._shot_filter
            shape.collision_type = SHOT_TYPE
            shapes[body] = shape
            shots[body] = step
            items += (body, shape)
        if items:
            space.add(*items)
        self.deleted += len(self._doomed)
        self.fired += len(self._batch)
        self._doomed, self._batch = [], []

    def _shot_positions(self) -> np.ndarray:
        return np.array([tuple(b.position) for b in self.shots], dtype=np.float64)

    def body_count(self) -> int:
        return len(self.space.bodies)

    def positions(self) -> np.ndarray:
        return np.array([tuple(b.position) for b in self.bodies],
                        dtype=np.float64).reshape(-1, 2)

    def _set_velocities(self, vel: np.ndarray) -> None:
        for body, v in zip(self.bodies, vel.tolist(), strict=True):
            body.velocity = v

    def contacts(self) -> int:
        return len(self.space._get_arbiters())

    def speeds(self) -> np.ndarray:
        v = np.array([tuple(b.velocity) for b in self.bodies], dtype=np.float64)
        return np.hypot(v[:, 0], v[:, 1]) if len(v) else np.zeros(0)

    def asleep(self) -> int | None:
        return sum(b.is_sleeping for b in self.bodies)

    def _add_rock(self, x: float, y: float, vy: float) -> Any:
        rock = pymunk.Body(ROCK_MASS, pymunk.moment_for_circle(ROCK_MASS, 0, ROCK_RADIUS))
        rock.position = (x, y)
        rock.velocity = (0.0, vy)
        shape = pymunk.Circle(rock, ROCK_RADIUS)
        shape.friction = 0.0
        shape.elasticity = self.layout.restitution
        self.space.add(rock, shape)
        return rock

    def rock_position(self) -> tuple[float, float]:
        x, y = self.rock.position
        return float(x), float(y)

    def stray_awake(self) -> int:
        return int(not self.stray.is_sleeping)

    def remove_stray(self) -> None:
        """Take the stray ball (if any) out of the space."""
        if self.stray is not None:
            self.space.remove(self.stray, *self.stray.shapes)
            self.stray = None

    def _rock_touching(self) -> bool:
        touching: list[pymunk.Arbiter] = []
        self.rock.each_arbiter(touching.append)
        return bool(touching)

    def _step(self) -> None:
        self.space.step(DT)


class _Box2DWorld:
    """A Box2D world built from a layout and what the scenes read of it: its dynamic bodies
    (one `pyb2d3.Bodies` batch for reading positions and velocities at once) and how many
    pairs touch (begin minus end events, tallied after every step)."""

    def __init__(self, lay: Layout) -> None:
        b2 = _pyb2d3()
        # Box2D clamps speeds to 400 units/s by default: the bullets fly at up to 2,000
        fast = {"maximum_linear_speed": 4_000.0} if lay.name == "bullets" else {}
        self.world = b2.World(gravity=lay.gravity, **fast)
        self.world.sleeping_enabled = lay.name in SETTLED
        self.material = b2.surface_material(friction=0.0, restitution=lay.restitution)
        self.touching = 0
        statics = self.world.create_static_body(position=(0.0, 0.0))
        static_def = b2.shape_def(material=self.material, enable_contact_events=True)
        if lay.tiles_as == "tilemap":  # the same outline as the TileMap: its merged edges
            grid, (ox, oy) = lay.tile_grid()
            for x0, y0, x1, y1, _ in merged_edges(grid):
                statics.create_segment_shape(
                    static_def, b2.segment((ox + x0, oy + y0), (ox + x1, oy + y1)))
        else:
            for (cx, cy), (w, h) in zip(lay.static_centre.tolist(), lay.static_size.tolist(),
                                        strict=True):
                statics.create_polygon_shape(static_def,
                                             b2.box(w / 2, h / 2, center=(cx, cy), rotation=0.0))
        self.ball_def = self.shape_def(1.0, lay.radius)
        self.circle = b2.circle(radius=lay.radius)
        self.bodies: list[Any] = []
        self.batch = b2.Bodies()
        create = self.world.create_dynamic_body
        for (x, y), (vx, vy) in zip(lay.dynamic_pos.tolist(), lay.dynamic_vel.tolist(),
                                    strict=True):
            body = create(position=(x, y), linear_velocity=(vx, vy))
            body.create_circle_shape(self.ball_def, self.circle)
            self.bodies.append(body)
            self.batch.append(body.id)

    def shape_def(self, mass: float, radius: float) -> Any:
        """A shape definition giving a circle of ``radius`` the ``mass``, no friction, the
        layout's restitution, contact events on."""
        return _pyb2d3().shape_def(density=mass / (math.pi * radius * radius),
                                   material=self.material, enable_contact_events=True)

    def tally(self) -> Any:
        """Count the last step's begin and end events into ``touching``; the events."""
        events = self.world.get_contact_events()
        self.touching += events.begin_count - events.end_count
        return events


def _pyb2d3() -> Any:
    import pyb2d3  # the bench extra; imported on first use, so ecsphys and pymunk run without

    return pyb2d3


class Box2DScene(Scene):
    """A scene in Box2D v3 (the pyb2d3 package): dynamic circles, static boxes or segments,
    no friction, one thread, `BOX2D_SUBSTEPS` substeps, sleeping on in the settled scenes
    (Box2D's defaults: asleep after 0.5 s under 0.05 units/s)."""

    engine = "box2d"

    def __init__(self, lay: Layout, built: _Box2DWorld | None = None) -> None:
        """The scene of ``lay``, built in a new world, or given one this class built from
        ``lay`` and stepped (`SettledPile`)."""
        super().__init__(lay)
        self.built = built if built is not None else _Box2DWorld(lay)
        self.world = self.built.world
        self._last: Any = None  # spawn: the body made the step before
        self._spawn_def = self.built.shape_def(1.0, SPAWN_RADIUS)
        self._spawn_circle = _pyb2d3().circle(radius=SPAWN_RADIUS)
        self._extras: list[Any] = []  # the rock and the stray ball

    def _spawn(self) -> None:
        body = self.world.create_dynamic_body(position=self.layout.extra["spawn_at"],
                                              linear_velocity=self.layout.extra["spawn_vel"])
        body.create_circle_shape(self._spawn_def, self._spawn_circle)
        if self._last is not None:
            self._last.destroy()
            self.deleted += 1
        self._last = body
        self.spawned += 1

    def _step(self) -> None:
        self.world.step(DT, BOX2D_SUBSTEPS)
        if self.layout.name == "events":  # the game reads the step's events (timed)
            events = self.world.get_contact_events()
            self.touches += events.begin_count
            self.separates += events.end_count

    def after_step(self) -> None:
        events = self.built.tally()
        if self.rock is not None and not self.hit_step:
            rock = self.rock.id
            self._rock_hit = any(e.shape_a.body.id == rock or e.shape_b.body.id == rock
                                 for e in events.begin_events())
        super().after_step()

    def _rock_touching(self) -> bool:
        return bool(getattr(self, "_rock_hit", False))

    def body_count(self) -> int:
        return len(self.built.bodies) + (self._last is not None)

    def positions(self) -> np.ndarray:
        if not self.built.bodies:
            return np.zeros((0, 2))
        return self.built.batch.get_positions().astype(np.float64)

    def _set_velocities(self, vel: np.ndarray) -> None:
        self.built.batch.set_linear_velocities(np.ascontiguousarray(vel, dtype=np.float32))

    def contacts(self) -> int:
        return self.built.touching

    def speeds(self) -> np.ndarray:
        if not self.built.bodies:
            return np.zeros(0)
        return self.built.batch.get_linear_velocities_magnitude().astype(np.float64)

    def asleep(self) -> int | None:
        return sum(not b.awake for b in self.built.bodies)

    def _add_rock(self, x: float, y: float, vy: float) -> Any:
        rock = self.world.create_dynamic_body(position=(x, y), linear_velocity=(0.0, vy))
        rock.create_circle_shape(self.built.shape_def(ROCK_MASS, ROCK_RADIUS),
                                 _pyb2d3().circle(radius=ROCK_RADIUS))
        self._extras.append(rock)
        return rock

    def rock_position(self) -> tuple[float, float]:
        p = self.rock.position
        return float(p.x), float(p.y)

    def stray_awake(self) -> int:
        return int(self.stray.awake)

    def remove_stray(self) -> None:
        """Take the stray ball (if any) out of the world."""
        if self.stray is not None:
            self.stray.destroy()
            self.stray = None

    def close(self) -> None:
        self.world.destroy()


def build(name: str, engine: str, n: int, seed: int = 0) -> Scene:
    """Scene ``name`` with ``n`` dynamic bodies in ``engine`` (one of `ALL_ENGINES`, or
    ``"c-limit"``: the rain in a tight C loop, `benchmarks.c_limit`); `NotImplementedError`
    for a scene the engine does not build (Box2D: see `BOX2D_SCENES`)."""
    return build_layout(layout(name, n, seed), engine)


def build_layout(lay: Layout, engine: str) -> Scene:
    """The scene of ``lay`` in ``engine`` (see `build`)."""
    name = lay.name
    if engine == "ecsphys":
        return EcsScene(lay)
    if engine == "pymunk":
        return PymunkScene(lay)
    if engine == "pymunk-hash":
        return PymunkScene(lay, spatial_hash=True)
    if engine == "box2d":
        if name not in BOX2D_SCENES:
            raise NotImplementedError(f"{name} is not built in Box2D")
        return Box2DScene(lay)
    if engine == "c-limit":  # not an engine: the tight C loop under them (rain, empty)
        from .c_limit import CLimitScene

        return CLimitScene(lay)
    raise ValueError(f"unknown engine {engine!r}; expected one of {ALL_ENGINES}")


class SettledPile:
    """The ``pile`` layout settled for ``settle`` simulated seconds in one engine, kept so that
    every timed window starts from that settled state without settling again where it can.

    ``window()`` returns a scene at the settled state, its counters at zero. ecsphys: the one
    scene, its last rock deleted and the snapshot taken after settling restored (the same
    bits as settling again), then stepped once untimed (the restore's rebuild of the static
    index is paid there; the sleeping pile does not move). pymunk cannot copy a sleeping
    space (``space.copy()`` wakes every body and drops the contacts' warm starts, and the
    copied pile slumps), so the settled space itself is handed out: again as it is while
    nothing in it can have moved (every body was asleep when it was handed out, and no rock
    was dropped into it), else the layout is built and settled again (pymunk is
    deterministic: the same pile). Box2D's world cannot be copied either: it is handed out
    the same way. ``report(done, total)`` is called every 30 settling steps
    (a progress line); ``settles`` counts the settlings.
    """

    def __init__(self, engine: str, n: int, seed: int = 0, settle: float = SETTLE_S,
                 report: Any = None) -> None:
        if isinstance(settle, bool) or not isinstance(settle, (int, float)) \
                or not math.isfinite(settle) or settle < 0:
            raise ValueError(f"settle must be a finite number of seconds >= 0, got {settle!r}")
        if engine not in ALL_ENGINES:
            raise ValueError(f"unknown engine {engine!r}; expected one of {ALL_ENGINES}")
        self.engine = engine
        self.n = n
        self.seed = seed
        self.settle = float(settle)
        #: how many steps of DT one settling takes
        self.steps = round(self.settle / DT)
        self.report = report
        self.settles = 0
        #: wall-clock seconds of the last settling
        self.seconds = 0.0
        self._scene = self._settled()
        self._saved: Any = None
        if isinstance(self._scene, EcsScene):
            self._saved = self._scene.physics.snapshot()
        self._handed: tuple[Scene, bool] | None = None  # pymunk: (scene, all asleep then)

    def _settled(self) -> Scene:
        scene = build("pile", self.engine, self.n, self.seed)
        t0 = time.perf_counter()
        for k in range(self.steps):
            scene.step()
            scene.after_step()  # (Box2D: its contact events tallied)
            if self.report is not None and (k % 30 == 29 or k == self.steps - 1):
                self.report(k + 1, self.steps)
        self.seconds = time.perf_counter() - t0
        self.settles += 1
        return scene

    def window(self) -> Scene:
        """A scene at the settled state, its counters at zero (see the class notes)."""
        scene = self._scene
        if isinstance(scene, EcsScene):
            scene.remove_rock()
            scene.physics.restore(self._saved)
            # one step of the sleeping pile, untimed: a restore re-indexes every static box
            # in the next step, which a game dropping a rock on its pile does not pay
            scene.physics.step()
            Scene.__init__(scene, scene.layout)  # the counters, not the engine
            return scene
        if self._handed is not None:
            last, asleep = self._handed
            last.remove_stray()  # (it fell far from the pile: the pile is as it was)
            if last.rock is not None or not asleep:
                scene = self._scene = self._settled()
        if isinstance(scene, Box2DScene):
            out: Scene = Box2DScene(scene.layout, built=scene.built)
        else:
            out = PymunkScene(scene.layout, spatial_hash=self.engine == "pymunk-hash",
                              space=scene.space)
        self._handed = (out, out.asleep() == out.n)
        return out

    def close(self) -> None:
        """Release the engine's objects."""
        self._scene.close()


def run(scene: Scene, steps: int) -> None:
    """``steps`` steps with the untimed game work around each (for tests and warm-up)."""
    for _ in range(steps):
        scene.before_step()
        scene.step()
        scene.after_step()
