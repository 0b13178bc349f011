"""Benchmark scenes, each built the same way in ecsphys and in pymunk 7.

Guarantees:
- ``build(name, engine, n, seed)`` returns a `Scene` with the same bodies, sizes, gravity, dt
  and initial state in both engines (one random generator per seed, drawn in the same order);
- ``Scene.step()`` runs exactly one physics step and nothing else, so timing it times only the
  engine; game-side work (the crowd's steering) happens in ``Scene.before_step()``, untimed;
- ``Scene.stats()`` reports what the engine did, so a comparison is honest: contacts now,
  touch and separate callbacks so far (events scene), bodies escaped from the box (rain),
  bullets that passed through a wall (bullets), progress of the agents (crowd).
Scenes:
- ``rain``: N circles of radius 1 on a jittered grid of spacing 2.5 inside a box of four static
  walls, random velocities up to 5, gravity (0, -9.8), dt 1/60 (ecsphys: ACTIVE, sphere slide);
- ``events``: ``rain`` with begin/separate (touch/separate) callbacks subscribed;
- ``crowd``: N agents (radius 0.4, ACTIVE, ``slide="tangent"``) steered at speed 3 through the
  doors of a maze of about 10,000 unit tiles, no gravity: in ecsphys one `TileMap`, in pymunk
  one static segment per merged edge of the same outline (``tiles_as="rects"``: one static box
  per tile in both);
- ``bullets``: N bullets (radius 0.05, speed 200..2000, bouncing) in a closed box of thin
  walls (0.1 thick); every bullet outside the box passed through a wall.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import esper
import numpy as np
import pymunk

import ecsphys as ep
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
ENGINES = ("ecsphys", "pymunk", "pymunk-hash")
SCENES = ("rain", "events", "crowd", "bullets")

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


def layout(name: str, n: int, seed: int = 0) -> Layout:
    """The layout of scene ``name`` (``events`` is ``rain``'s)."""
    if name in ("rain", "events"):
        out = rain_layout(n, seed)
        out.name = name
        return out
    if name == "crowd":
        return crowd_layout(n, seed)
    if name == "bullets":
        return bullets_layout(n, seed)
    raise ValueError(f"unknown scene {name!r}; expected one of {SCENES}")


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

    def before_step(self) -> None:
        """Game-side work before a step (untimed): the crowd's steering."""
        if self.layout.name == "crowd":
            self._set_velocities(_next_door_targets(self.layout, self.positions()))

    def step(self) -> None:
        """Exactly one physics step."""
        self._step()
        self.steps += 1

    def after_step(self) -> None:
        """Bookkeeping after a step (untimed): bullets seen outside their box."""
        if self.layout.name == "bullets":
            self.escaped_ever |= self._outside()

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
        self.physics = ep.Physics(fixed_dt=DT)
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
        self.physics.advance(0.0)  # adopt now, outside the timed steps
        esper.switch_world(self._previous)

    def _on_touch(self, contact: object) -> None:
        self.touches += 1

    def _on_separate(self, contact: object) -> None:
        self.separates += 1

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

    def _step(self) -> None:
        self.physics.step(DT)

    def close(self) -> None:
        self.physics.remove()
        esper.switch_world("default")
        esper.delete_world(self.world)
        esper.switch_world(self._previous if self._previous != self.world else "default")


class PymunkScene(Scene):
    """A scene in pymunk 7: dynamic circles, static boxes, no friction, no bounce."""

    engine = "pymunk"

    def __init__(self, lay: Layout, spatial_hash: bool = False) -> None:
        super().__init__(lay)
        if spatial_hash:
            self.engine = "pymunk-hash"
        space = pymunk.Space()
        space.gravity = lay.gravity
        self.space = space
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
        self.bodies: list[pymunk.Body] = []
        items: list[Any] = []
        for (x, y), (vx, vy) in zip(lay.dynamic_pos.tolist(), lay.dynamic_vel.tolist(),
                                    strict=True):
            body = pymunk.Body(1.0, moment)
            body.position = (x, y)
            body.velocity = (vx, vy)
            shape = pymunk.Circle(body, r)
            shape.friction = 0.0
            shape.elasticity = lay.restitution
            self.bodies.append(body)
            items += (body, shape)
        space.add(*items)
        if spatial_hash:
            space.use_spatial_hash(2.0 * r * 2.0 if lay.name != "crowd" else 1.0,
                                   max(10_000, 2 * (len(self.bodies) + len(statics))))
        if lay.name == "events":
            space.on_collision(begin=self._begin, separate=self._separate)

    def _begin(self, arbiter: pymunk.Arbiter, space: pymunk.Space, data: Any) -> None:
        self.touches += 1

    def _separate(self, arbiter: pymunk.Arbiter, space: pymunk.Space, data: Any) -> None:
        self.separates += 1

    def positions(self) -> np.ndarray:
        return np.array([tuple(b.position) for b in self.bodies], dtype=np.float64)

    def _set_velocities(self, vel: np.ndarray) -> None:
        for body, v in zip(self.bodies, vel.tolist(), strict=True):
            body.velocity = v

    def contacts(self) -> int:
        return len(self.space._get_arbiters())

    def _step(self) -> None:
        self.space.step(DT)


def build(name: str, engine: str, n: int, seed: int = 0) -> Scene:
    """Scene ``name`` with ``n`` dynamic bodies in ``engine`` (one of `ENGINES`)."""
    lay = layout(name, n, seed)
    if engine == "ecsphys":
        return EcsScene(lay)
    if engine == "pymunk":
        return PymunkScene(lay)
    if engine == "pymunk-hash":
        return PymunkScene(lay, spatial_hash=True)
    raise ValueError(f"unknown engine {engine!r}; expected one of {ENGINES}")


def run(scene: Scene, steps: int) -> None:
    """``steps`` steps with the untimed game work around each (for tests and warm-up)."""
    for _ in range(steps):
        scene.before_step()
        scene.step()
        scene.after_step()
