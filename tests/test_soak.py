"""Soak: a walled arena of mixed bodies stepped for a long time, bodies created and deleted.

The issue: "Soak: 2,000 mixed bodies (every shape kind, every collider kind, sensors) in a
walled arena for 100,000 steps, with entities created and deleted as it goes: no body leaves
the arena, no NaN, every touch paired with exactly one separate, memory does not grow
(tracemalloc and the process RSS). Behind a marker, with a short version in the default run."

One scene builder (`Soak`, seeded: the same config gives the same run) serves both versions:

- the arena: an inner box ``[0, W] x [0, H]`` walled by static rects ``WALL`` thick; inside it
  a static `TileMap` block (tiles dug and rebuilt as it goes), static segments, polygons, an
  oriented rect and a circle, and two static sensor zones;
- the bodies: every moving shape kind (Circle, Rect, OrientedRect, Segment, Polygon, Compound,
  pixel Mask), PASSIVE and ACTIVE, some sensors (moving trigger zones that patrol the arena:
  a sensor has no response, so the game turns it round at the walls), gravity on about half,
  random velocities of 2 to 30 units/s, restitution, friction, mass, slide mode and layers
  varied; placed on a lattice clear of the static obstacles;
- as it goes: every ``recycle_every`` steps some random bodies are deleted and as many new
  ones made at free places (clear of statics by their boxes, of bodies by ``query_region``);
  some bodies are kicked (a new velocity), change layer (their pairs end and start again) or
  change shape; tiles of the map are dug and rebuilt.

Checked after every step: no NaN or infinity in the position and velocity columns; no moving
body's box centre outside the inner box by more than ``contact_offset`` (the margin is half
the body's own size: more than half of it inside a wall is out; the slop lets a flat segment
lie on the floor); the touch / separate balance: a dict of open pairs keyed by
``(a, b, tile)``, where a touch of an open key or a separate of a key that is not open fails
at once. Every ``poll_every`` steps and at the end the open pairs must be exactly the pairs of
``physics.contacts()``; after the soak everything is deleted and one more step must separate
every open pair (touches == separates). Memory: ``tracemalloc`` traces from before the scene
is built (bodies made before it started would be replaced by traced ones: growth that is not
there); after the warm-up it is sampled ``samples`` times with the process RSS (from
``/proc/self/statm``), each after ``gc.collect()``: the growth from the first sample to the
end is bounded, and so is the growth of the second half of the samples over the first (no
trend).

Sleeping is on (``Physics``' default): the summary counts the bodies that fell asleep and
woke (from ``physics.stats["sleeping"]`` before and after each step), and the short version
checks some did both. The short version (300 bodies, 750 steps) runs in the default suite;
``-m slow`` runs it for 1,500 steps too, and the long one (2,000 bodies, 100,000 steps). A
failure names the step, the entity, its shape and collider: the run is deterministic, so
``Soak(config).run()`` reproduces it.
"""

from __future__ import annotations

import gc
import math
import os
import time
import tracemalloc
from dataclasses import dataclass

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys.events import BodyContact
from ecsphys.mask import Mask

DT = 1 / 60
WALL = 10.0  # thickness of the arena's walls
CELL = 2.4  # the initial lattice's spacing
MIN_HALF, MAX_HALF = 0.3, 1.0  # half-extents of moving bodies (all within CELL / 2 - 0.2)
CLEARANCE = 0.3  # free space around a new body (statics and other bodies)
GRAVITY = (0.0, -9.8)
MB = 1024 * 1024
MAX_DUG = 12  # tiles of the map dug at a time
SHAPE_KINDS = ("circle", "rect", "orect", "segment", "polygon", "compound", "mask")


@dataclass(frozen=True)
class Config:
    bodies: int
    steps: int
    seed: int = 20240611
    warmup: int = 300  # steps before the memory baseline
    recycle_every: int = 20  # steps between deletions / creations
    recycle_fraction: float = 0.01  # of the bodies, each time
    kick_every: int = 30
    change_every: int = 50  # layer and shape changes
    tile_every: int = 100  # a tile dug or rebuilt
    poll_every: int = 250  # open pairs compared with physics.contacts()
    samples: int = 20  # memory samples after the warm-up
    traced_growth_mb: float = 4.0  # tracemalloc: end - first sample
    trend_mb: float = 2.0  # tracemalloc: max of the 2nd half of samples - max of the 1st
    rss_growth_mb: float = 20.0
    progress: bool = False  # print a line every tenth of the run


@dataclass
class Body:
    """What the soak remembers of a moving body it made."""

    kind: str  # one of SHAPE_KINDS
    half: float  # its shape fits in [-half, half]^2
    sensor: bool


class SoakFailure(AssertionError):
    pass


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# ---------------------------------------------------------------- shapes


def make_shape(rng: np.random.Generator, kind: str, s: float) -> ep.Shape:
    """A random shape of ``kind`` that fits in ``[-s, s]^2`` around the body's position."""
    if kind == "circle":
        return ep.Circle(s)
    if kind == "rect":
        return ep.Rect(2 * s * rng.uniform(0.4, 1.0), 2 * s * rng.uniform(0.4, 1.0))
    if kind == "orect":
        phi = rng.uniform(0.3, 1.27)  # the diagonal is 2s: any angle fits
        return ep.OrientedRect(2 * s * math.cos(phi), 2 * s * math.sin(phi),
                               float(rng.uniform(0.0, 180.0)))
    if kind == "segment":
        a = rng.uniform(0.0, math.pi)
        dx, dy = s * math.cos(a), s * math.sin(a)
        return ep.Segment((-dx, -dy), (dx, dy))
    if kind == "polygon":
        k = int(rng.integers(3, 8))
        step = 2 * math.pi / k
        angles = rng.uniform(0.0, 2 * math.pi) + step * (np.arange(k)
                                                          + rng.uniform(-0.25, 0.25, k))
        return ep.Polygon([(s * math.cos(t), s * math.sin(t)) for t in angles.tolist()])
    if kind == "compound":
        variant = int(rng.integers(0, 3))
        if variant == 0:  # dumbbell
            a = rng.uniform(0.0, math.pi)
            ux, uy = 0.55 * s * math.cos(a), 0.55 * s * math.sin(a)
            return ep.Compound([ep.Circle(0.45 * s, offset=(ux, uy)),
                                ep.Circle(0.45 * s, offset=(-ux, -uy))])
        if variant == 1:  # box with a knob, and a stick
            return ep.Compound([ep.Rect(s, 0.6 * s, offset=(-0.4 * s, 0.0)),
                                ep.Circle(0.4 * s, offset=(0.55 * s, 0.0)),
                                ep.Segment((-0.9 * s, 0.8 * s), (0.9 * s, 0.8 * s))])
        return ep.Compound([make_mask(rng, 0.6 * s, offset=(-0.35 * s, 0.0)),  # pixels + poly
                            ep.Polygon([(0.0, -0.6 * s), (0.95 * s, 0.0), (0.0, 0.6 * s)])])
    if kind == "mask":
        return make_mask(rng, s)
    raise ValueError(kind)


def make_mask(rng: np.random.Generator, s: float, offset: tuple[float, float] = (0.0, 0.0)
              ) -> Mask:
    """A pixel blob (an ellipse with holes bitten out) filling ``[-s, s]^2`` at most."""
    p = int(rng.integers(8, 17))
    c = (p - 1) / 2
    yy, xx = np.mgrid[0:p, 0:p]
    ax, ay = rng.uniform(0.5, 1.0, 2) * (p / 2)
    pixels = ((xx - c) / ax) ** 2 + ((yy - c) / ay) ** 2 <= 1.0
    pixels &= rng.random((p, p)) > 0.12
    pixels[p // 2, p // 2] = True
    return Mask(pixels, scale=2 * s / p, offset=offset)


# ---------------------------------------------------------------- the soak


class Soak:
    """The scene and the run (see the module docstring)."""

    def __init__(self, config: Config) -> None:
        self.cfg = config
        self.rng = np.random.default_rng(config.seed)
        cols = math.ceil(math.sqrt(config.bodies * 1.6 * 4 / 3))
        rows = math.ceil(cols * 3 / 4)
        self.cols, self.rows = cols, rows
        self.W, self.H = cols * CELL, rows * CELL
        self.inner_lo = np.array([0.0, 0.0])
        self.inner_hi = np.array([self.W, self.H])
        self.physics = ep.Physics(fixed_dt=DT)
        self.statics: list[int] = []
        self.blocked: list[tuple[float, float, float, float]] = []  # static boxes, grown
        self.bodies: list[int] = []  # moving bodies, in no order (swap-removed)
        self.index: dict[int, int] = {}  # entity -> place in self.bodies
        self.info: dict[int, Body] = {}
        self.open: dict[tuple[int, int, tuple[int, int] | None], int] = {}
        self.failures: list[str] = []
        self.touches = self.separates = 0
        self.tile_touches = self.sensor_touches = 0
        self.made = self.deleted = self.kicked = self.changed = 0
        self.dug: list[tuple[int, int]] = []
        self.tile_ops = 0
        self.built_on = 0  # tiles built back on bodies
        #: sleeping (on by default): the rises and falls of ``physics.stats["sleeping"]``
        #: across each step (the game's deletes between steps are not counted), summed
        self.fell_asleep = self.woke = self.most_asleep = 0
        self.step = 0
        self.start = time.perf_counter()
        self.wall = 0.0
        #: (step, traced, RSS, tracemalloc's own memory), in bytes
        self.samples: list[tuple[int, int, int, int]] = []
        self.physics.on_touch(self._touch)
        self.physics.on_separate(self._separate)
        self._build_statics()
        self._build_bodies()

    # ------------------------------------------------------------ the scene

    def _static(self, x: float, y: float, shape: ep.Shape, sensor: bool = False) -> int:
        e = esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC, sensor=sensor),
                                ep.Geometry(shape))
        self.statics.append(e)
        if not sensor:
            x0, y0, x1, y1 = shape.bounds()
            g = CLEARANCE
            self.blocked.append((x + x0 - g, y + y0 - g, x + x1 + g, y + y1 + g))
        return e

    def _build_statics(self) -> None:
        W, H = self.W, self.H
        for x, y, w, h in ((W / 2, -WALL / 2, W + 2 * WALL, WALL),
                           (W / 2, H + WALL / 2, W + 2 * WALL, WALL),
                           (-WALL / 2, H / 2, WALL, H + 2 * WALL),
                           (W + WALL / 2, H / 2, WALL, H + 2 * WALL)):
            e = esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC),
                                    ep.Geometry(ep.Rect(w, h)))
            self.statics.append(e)
        self.tilemap = ep.TileMap(["#.......",
                                   "##.....#",
                                   "###.#.##",
                                   "####.###",
                                   "########"], tile_size=1.2)
        self.tile_pos = (0.35 * W, 0.3 * H)
        self.tile_entity = self._static(*self.tile_pos, self.tilemap)
        self._static(0.7 * W, 0.25 * H, ep.Segment((-4, -1.5), (4, 1.5)))
        self._static(0.2 * W, 0.65 * H, ep.Segment((-3, 2), (3, -2)))
        self._static(0.55 * W, 0.6 * H, ep.Polygon([(-2, -1.5), (2, -1.5), (0, 2)]))
        self._static(0.8 * W, 0.7 * H, ep.Polygon(
            [(2 * math.cos(a), 2 * math.sin(a)) for a in np.arange(6) * math.pi / 3]))
        self._static(0.45 * W, 0.8 * H, ep.OrientedRect(6, 1, 20))
        self._static(0.15 * W, 0.3 * H, ep.Circle(2))
        self._static(0.6 * W, 0.15 * H, ep.Rect(6, 4), sensor=True)
        self._static(0.3 * W, 0.85 * H, ep.Circle(3), sensor=True)

    def _clear_of_statics(self, x: float, y: float, s: float) -> bool:
        lo_x, lo_y, hi_x, hi_y = x - s, y - s, x + s, y + s
        if lo_x < CLEARANCE or lo_y < CLEARANCE or hi_x > self.W - CLEARANCE \
                or hi_y > self.H - CLEARANCE:
            return False
        return not any(lo_x < bx1 and hi_x > bx0 and lo_y < by1 and hi_y > by0
                       for bx0, by0, bx1, by1 in self.blocked)

    def _build_bodies(self) -> None:
        cells = [((i + 0.5) * CELL, (j + 0.5) * CELL)
                 for j in range(self.rows) for i in range(self.cols)
                 if self._clear_of_statics((i + 0.5) * CELL, (j + 0.5) * CELL, MAX_HALF + 0.1)]
        assert len(cells) >= self.cfg.bodies, (len(cells), self.cfg.bodies)
        chosen = self.rng.choice(len(cells), size=self.cfg.bodies, replace=False)
        for k in chosen.tolist():
            x, y = cells[k]
            jx, jy = self.rng.uniform(-0.1, 0.1, 2)
            self._make_body(x + jx, y + jy, SHAPE_KINDS[len(self.bodies) % len(SHAPE_KINDS)],
                            float(self.rng.uniform(MIN_HALF, MAX_HALF)))

    def _make_body(self, x: float, y: float, kind: str, s: float) -> int:
        rng = self.rng
        sensor = rng.random() < 0.05
        ckind = ep.ACTIVE if rng.random() < 0.6 else ep.PASSIVE
        layer = 2 if rng.random() < 0.2 else 1  # layer 2 bodies pass through each other
        collider = ep.Collider(
            ckind, layer=layer, mask=1 if layer == 2 else ep.ALL, sensor=sensor,
            mass=float(rng.uniform(0.5, 3.0)), restitution=float(rng.uniform(0.0, 0.9)),
            friction=0.0 if rng.random() < 0.5 else float(rng.uniform(0.0, 0.8)),
            slide="tangent" if rng.random() < 0.3 else "project")
        comps: list[object] = [ep.Position(x, y), ep.Velocity(*self._velocity(sensor)),
                               collider, ep.Geometry(make_shape(rng, kind, s))]
        if not sensor and rng.random() < 0.5:
            comps.append(ep.AccelerationMap(gravity=GRAVITY))
        e = esper.create_entity(*comps)
        self.index[e] = len(self.bodies)
        self.bodies.append(e)
        self.info[e] = Body(kind, s, sensor)
        self.made += 1
        return e

    def _velocity(self, sensor: bool) -> tuple[float, float]:
        speed = self.rng.uniform(2.0, 10.0 if sensor else 30.0)
        a = self.rng.uniform(0.0, 2 * math.pi)
        return (float(speed * math.cos(a)), float(speed * math.sin(a)))

    # ------------------------------------------------------------ events

    def _touch(self, c: BodyContact) -> None:
        key = (c.a, c.b, c.tile)
        if key in self.open:
            self.failures.append(f"touch of a pair already open since step {self.open[key]}: "
                                 f"{c!r}")
        self.open[key] = self.step
        self.touches += 1
        self.tile_touches += c.tile is not None
        self.sensor_touches += c.sensor

    def _separate(self, c: BodyContact) -> None:
        key = (c.a, c.b, c.tile)
        if self.open.pop(key, None) is None:
            self.failures.append(f"separate of a pair that is not open: {c!r}")
        self.separates += 1

    # ------------------------------------------------------------ what happens as it goes

    def _delete_body(self, e: int) -> None:
        i = self.index.pop(e)
        last = self.bodies.pop()
        if last != e:
            self.bodies[i] = last
            self.index[last] = i
        del self.info[e]
        esper.delete_entity(e)
        self.deleted += 1

    def _recycle(self) -> None:
        count = max(1, round(self.cfg.bodies * self.cfg.recycle_fraction))
        chosen = self.rng.choice(len(self.bodies), size=count, replace=False).tolist()
        for e in [self.bodies[k] for k in chosen]:  # entities first: removal swaps places
            self._delete_body(e)
        placed: list[tuple[float, float, float]] = []
        tries = 0
        while len(self.bodies) < self.cfg.bodies and tries < 50 * count:
            tries += 1
            s = float(self.rng.uniform(MIN_HALF, MAX_HALF))
            x = float(self.rng.uniform(0.0, self.W))
            y = float(self.rng.uniform(0.0, self.H))
            if not self._clear_of_statics(x, y, s):
                continue
            g = s + CLEARANCE
            if any(abs(x - px) < g + ps and abs(y - py) < g + ps for px, py, ps in placed):
                continue
            if self.physics.query_region(ep.Rect(2 * g, 2 * g), (x, y), sensors=True):
                continue
            kind = SHAPE_KINDS[int(self.rng.integers(len(SHAPE_KINDS)))]
            self._make_body(x, y, kind, s)
            placed.append((x, y, s))

    def _kick(self) -> None:
        count = max(1, len(self.bodies) // 100)
        for k in self.rng.choice(len(self.bodies), size=count, replace=False).tolist():
            e = self.bodies[k]
            if not self.info[e].sensor:
                esper.component_for_entity(e, ep.Velocity).xy = self._velocity(False)
                self.kicked += 1

    def _change(self) -> None:
        """One body changes layer (its pairs end and start again), one its shape (a new one
        of its kind and size, where the body's box is clear of the statics)."""
        e = self.bodies[int(self.rng.integers(len(self.bodies)))]
        col = esper.component_for_entity(e, ep.Collider)
        if col.layer == 1:
            col.layer, col.mask = 2, 1
        else:
            col.layer, col.mask = 1, ep.ALL
        e = self.bodies[int(self.rng.integers(len(self.bodies)))]
        body = self.info[e]
        x, y = esper.component_for_entity(e, ep.Position).xy
        if self._clear_of_statics(x, y, body.half):
            esper.component_for_entity(e, ep.Geometry).shape = make_shape(
                self.rng, body.kind, body.half)
        self.changed += 1

    def _tiles(self) -> None:
        """Build back a dug tile of the map, one whose cell is empty if there is one, else
        (half the time) one that bodies have fallen into, which the physics must push out; or
        dig a solid one (at most ``MAX_DUG`` dug at a time)."""
        m = self.tilemap
        if self.dug and (len(self.dug) >= MAX_DUG or self.rng.random() < 0.5):
            for k in self.rng.permutation(len(self.dug)).tolist():
                r, c = self.dug[k]
                x0, y0, x1, y1 = m.tile_box(r, c)
                cx, cy = self.tile_pos[0] + (x0 + x1) / 2, self.tile_pos[1] + (y0 + y1) / 2
                size = (x1 - x0) + 2 * CLEARANCE
                if not self.physics.query_region(ep.Rect(size, size), (cx, cy), sensors=True):
                    m[r, c] = 1
                    del self.dug[k]
                    self.tile_ops += 1
                    return
            if self.rng.random() < 0.5:
                r, c = self.dug.pop(0)
                m[r, c] = 1
                self.tile_ops += 1
                self.built_on += 1
                return
        if len(self.dug) < MAX_DUG:
            solid = np.argwhere(m.grid != 0)
            r, c = solid[int(self.rng.integers(len(solid)))].tolist()
            m[r, c] = 0
            self.dug.append((r, c))
            self.tile_ops += 1

    def _patrol(self) -> None:
        """Moving sensors have no response: turn them round before they reach a wall."""
        t = self.physics.table
        n = t.n
        rows = np.flatnonzero(t.sensor[:n] & (t.kind[:n] != ep.STATIC))
        if not len(rows):
            return
        pos, vel = t.pos[rows], t.vel[rows]
        margin = MAX_HALF + 0.5
        turn = (((pos < margin) & (vel < 0)) | ((pos > self.inner_hi - margin) & (vel > 0)))
        for i in np.flatnonzero(turn.any(axis=1)).tolist():
            v = esper.component_for_entity(int(t.entity[rows[i]]), ep.Velocity)
            vx, vy = v.xy
            fx, fy = turn[i].tolist()
            v.xy = (-vx if fx else vx, -vy if fy else vy)

    # ------------------------------------------------------------ checks

    def _describe(self, row: int) -> str:
        t = self.physics.table
        e = int(t.entity[row])
        parts = [f"entity {e}", f"pos {tuple(t.pos[row].tolist())}",
                 f"vel {tuple(t.vel[row].tolist())}"]
        if esper.entity_exists(e):
            for comp in (ep.Collider, ep.Geometry, ep.AccelerationMap):
                if esper.has_component(e, comp):
                    parts.append(repr(esper.component_for_entity(e, comp)))
        return ", ".join(parts)

    def fail(self, what: str) -> None:
        raise SoakFailure(f"step {self.step} of {self.cfg}: {what}\n{self.summary()}")

    def _check_step(self) -> None:
        if self.failures:
            self.fail("unbalanced events:\n  " + "\n  ".join(self.failures[:10]))
        t = self.physics.table
        n = t.n
        pos, vel = t.pos[:n], t.vel[:n]
        bad = ~(np.isfinite(pos).all(axis=1) & np.isfinite(vel).all(axis=1))
        if bad.any():
            rows = np.flatnonzero(bad)[:5].tolist()
            self.fail("NaN or infinity: " + "; ".join(self._describe(r) for r in rows))
        centre = pos + (t.lo[:n] + t.hi[:n]) / 2
        slop = self.physics.contact_offset  # a flat segment lying on the floor: its centre
        out = (t.kind[:n] != ep.STATIC) & ((centre < self.inner_lo - slop).any(axis=1)
                                           | (centre > self.inner_hi + slop).any(axis=1))
        if out.any():
            rows = np.flatnonzero(out)[:5].tolist()
            self.fail(f"{int(out.sum())} bodies left the arena [0, {self.W}] x [0, {self.H}]: "
                      + "; ".join(self._describe(r) for r in rows))
        # no body that collides with the tile map ends a step with its centre in a solid tile
        # (a tile built on it included: the step pushes it out)
        m, row = self.tilemap, t.row_of[self.tile_entity]
        meets = ((t.kind[:n] != ep.STATIC) & ~t.sensor[:n] & t.collides[:n]
                 & ((t.layer[:n] & t.mask[row]) != 0) & ((t.mask[:n] & t.layer[row]) != 0))
        if meets.any():
            rows = np.flatnonzero(meets)
            local = centre[rows] - t.pos[row] - np.asarray(m.origin)
            grid = m.grid
            inside = np.ones(len(rows), dtype=bool)
            for dx, dy in ((-slop, 0), (slop, 0), (0, -slop), (0, slop)):  # more than slop in
                col = np.floor((local[:, 0] + dx) / m.tile_size).astype(np.int64)
                up = np.floor((local[:, 1] + dy) / m.tile_size).astype(np.int64)
                ok = (col >= 0) & (col < grid.shape[1]) & (up >= 0) & (up < grid.shape[0])
                solid = np.zeros(len(rows), dtype=bool)
                solid[ok] = grid[grid.shape[0] - 1 - up[ok], col[ok]] != 0
                inside &= solid
            if inside.any():
                self.fail(f"{int(inside.sum())} bodies inside solid tiles: "
                          + "; ".join(self._describe(r) for r in rows[inside][:5]))

    def _poll(self) -> None:
        """The open pairs are exactly the touching pairs the physics reports."""
        now = {(c.a, c.b, c.tile) for c in self.physics.contacts()}
        opened = set(self.open)
        if now != opened:
            self.fail(f"open pairs differ from physics.contacts(): open only "
                      f"{sorted(opened - now, key=str)[:5]}, touching only "
                      f"{sorted(now - opened, key=str)[:5]}")

    def _sample(self) -> None:
        gc.collect()
        self.samples.append((self.step, tracemalloc.get_traced_memory()[0], rss_bytes(),
                             tracemalloc.get_tracemalloc_memory()))

    # ------------------------------------------------------------ the run

    def composition(self) -> dict[str, int]:
        """How many moving bodies of each shape kind, collider kind and sensor there are."""
        out: dict[str, int] = {k: 0 for k in SHAPE_KINDS}
        out.update(ACTIVE=0, PASSIVE=0, sensor=0, gravity=0)
        for e in self.bodies:
            out[self.info[e].kind] += 1
            out[esper.component_for_entity(e, ep.Collider).kind.name] += 1
            out["sensor"] += self.info[e].sensor
            out["gravity"] += esper.has_component(e, ep.AccelerationMap)
        return out

    def run(self) -> None:
        """Step ``cfg.steps`` times, checking after each step; memory samples from the warm-up
        on (tracemalloc must be tracing: see `soak`)."""
        cfg = self.cfg
        self.start = time.perf_counter()
        sample_every = max(1, (cfg.steps - cfg.warmup) // cfg.samples)
        tenth = max(1, cfg.steps // 10)
        while self.step < cfg.steps:
            asleep = self.physics.stats["sleeping"]
            esper.process(DT)
            self.step = s = self.physics.steps
            change = self.physics.stats["sleeping"] - asleep
            self.fell_asleep += max(change, 0)
            self.woke += max(-change, 0)
            self.most_asleep = max(self.most_asleep, asleep + change)
            self._check_step()
            if s >= cfg.warmup and (s - cfg.warmup) % sample_every == 0:
                self._sample()
            if s % cfg.poll_every == 0:
                self._poll()
            if s % cfg.recycle_every == 0:
                self._recycle()
            if s % cfg.kick_every == 0:
                self._kick()
            if s % cfg.change_every == 0:
                self._change()
            if s % cfg.tile_every == 0:
                self._tiles()
            self._patrol()
            if cfg.progress and s % tenth == 0:
                print(f"  {self.summary()}", flush=True)
        self._poll()
        if self.samples and self.samples[-1][0] != self.step:
            self._sample()
        self.wall = time.perf_counter() - self.start

    def teardown(self) -> None:
        """Delete everything, step once: every open pair must separate."""
        for e in list(self.bodies):
            self._delete_body(e)
        for e in self.statics:
            esper.delete_entity(e)
        esper.process(DT)
        self.step = self.physics.steps
        if self.failures:
            self.fail("unbalanced events at teardown:\n  " + "\n  ".join(self.failures[:10]))

    def summary(self) -> str:
        mem = ""
        if self.samples:
            (_, t0, r0, o0), (_, t1, r1, o1) = self.samples[0], self.samples[-1]
            mem = (f", tracemalloc {t0 / MB:.2f} -> {t1 / MB:.2f} MB, "
                   f"RSS {r0 / MB:.1f} -> {r1 / MB:.1f} MB (tracemalloc's own "
                   f"{o0 / MB:.1f} -> {o1 / MB:.1f})")
        return (f"soak: {self.step} steps, {len(self.bodies)} moving bodies "
                f"({self.physics.body_count} adopted, statics included), "
                f"{self.touches} touches + {self.separates} separates checked "
                f"({len(self.open)} open; {self.tile_touches} with tiles, "
                f"{self.sensor_touches} with sensors), {self.made} made, {self.deleted} deleted, "
                f"{self.kicked} kicked, {self.changed} changed, {self.tile_ops} tile ops "
                f"({self.built_on} on bodies), {self.fell_asleep} fell asleep, "
                f"{self.woke} woke (at most {self.most_asleep} asleep)"
                f"{mem}, {time.perf_counter() - self.start:.1f} s")

    def check_memory(self) -> None:
        cfg = self.cfg
        traced = [t for _, t, _, _ in self.samples]
        rss = [r for _, _, r, _ in self.samples]
        half = len(traced) // 2
        growth = (traced[-1] - traced[0]) / MB
        trend = (max(traced[half:]) - max(traced[:half])) / MB
        rss_growth = (rss[-1] - rss[0]) / MB
        problems = []
        if growth > cfg.traced_growth_mb:
            problems.append(f"tracemalloc grew {growth:.2f} MB > {cfg.traced_growth_mb} MB")
        if trend > cfg.trend_mb:
            problems.append(f"tracemalloc's 2nd half peaks {trend:.2f} MB above its 1st "
                            f"> {cfg.trend_mb} MB")
        if rss_growth > cfg.rss_growth_mb:
            problems.append(f"RSS grew {rss_growth:.1f} MB > {cfg.rss_growth_mb} MB")
        if problems:
            table = ", ".join(f"{s}: {t / MB:.2f}/{r / MB:.1f}" for s, t, r, _ in self.samples)
            self.fail("memory grows: " + "; ".join(problems)
                      + f"\n  (step: traced/RSS MB) {table}")


def soak(config: Config) -> Soak:
    """Build, check the scene's mix, run, check, tear down; returns the soak for its numbers."""
    tracemalloc.start()  # before the scene: objects made before it would not be counted,
    try:  # and the bodies replacing them would look like growth
        s = Soak(config)
        mix = s.composition()
        assert all(mix[k] > 0 for k in (*SHAPE_KINDS, "ACTIVE", "PASSIVE", "sensor",
                                        "gravity")), mix
        s.run()
    finally:
        tracemalloc.stop()
    s.check_memory()
    assert s.tile_touches > 0 and s.sensor_touches > 0, (s.tile_touches, s.sensor_touches)
    assert s.made > config.bodies and s.deleted > 0 and s.tile_ops > 0 and s.kicked > 0
    s.teardown()
    print(s.summary())
    assert s.physics.body_count == 0
    assert not s.open, f"pairs left open after deleting everything: {list(s.open)[:10]}"
    assert s.touches == s.separates, (s.touches, s.separates)
    return s


@pytest.mark.parametrize("steps", [750, pytest.param(1500, marks=pytest.mark.slow)])
def test_soak_short(world, steps):
    """The default run's version: 300 bodies, 750 steps (1,500 with ``-m slow``). Sleeping is
    on (the default): bodies fall asleep and wake in it (about 50 and 45 in 750 steps, 140 and
    125 in 1,500), and the touch / separate balance holds across both (`soak` checks it)."""
    s = soak(Config(bodies=300, steps=steps, warmup=300, rss_growth_mb=30.0, trend_mb=2.0))
    assert s.fell_asleep > 20 and s.woke > 20, (s.fell_asleep, s.woke)


@pytest.mark.slow
def test_soak_long(world):
    """The issue's soak: 2,000 bodies, 100,000 steps."""
    soak(Config(bodies=2000, steps=100_000, warmup=2000, samples=40, rss_growth_mb=20.0,
                traced_growth_mb=4.0, trend_mb=1.0, progress=True))


# ---------------------------------------------------------------- what the long soak found


@pytest.mark.parametrize("trigger", ["layer change, thick floor", "made overlapping, thin floor"])
def test_overlap_push_keeps_a_resting_body_above_the_floor(world, trigger):
    """The long soak's first failure, reduced (step 551: a passive Mask body resting on the
    floor, layer 2, overlapped by an active layer-2 polygon; at step 550 it changed to layer 1,
    so the pair collided while overlapping, and the next step pushed it 0.75 down: its centre
    0.3 below the floor's top). The push that separated two overlapping bodies moved the lower
    one into (and through a thin) static floor: thick floor, the crate's centre went from 0.5
    to -0.25; thin floor (0.4), it ended under the floor, at -0.65. Now the crate stays on the
    floor and the body above takes the whole depth."""
    ep.Physics(fixed_dt=DT)
    thick = trigger.endswith("thick floor")
    floor_h = 10.0 if thick else 0.4
    esper.create_entity(ep.Position(0, -floor_h / 2), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.Rect(20, floor_h)))
    if thick:  # as in the soak: two layer-2 bodies overlap, one becomes layer 1
        r, big = 0.5, 0.5
        crate = esper.create_entity(ep.Position(0, r), ep.Velocity(0, 0),
                                    ep.Collider(ep.PASSIVE, layer=2, mask=1, mass=0.5),
                                    ep.Geometry(ep.Circle(r)))
        ball = esper.create_entity(ep.Position(0, 0.6), ep.Velocity(0, 0),
                                   ep.Collider(ep.ACTIVE, layer=2, mask=1, mass=2.5),
                                   ep.Geometry(ep.Circle(big)))
        esper.process(DT)
        col = esper.component_for_entity(crate, ep.Collider)
        col.layer, col.mask = 1, ep.ALL
    else:  # a light crate on a thin floor, a heavy ball made overlapping it
        r, big = 0.25, 1.0
        crate = esper.create_entity(ep.Position(0, r), ep.Velocity(0, 0),
                                    ep.Collider(ep.PASSIVE, mass=0.1), ep.Geometry(ep.Circle(r)))
        ball = esper.create_entity(ep.Position(0, 0.3), ep.Velocity(0, 0),
                                   ep.Collider(ep.ACTIVE, mass=10.0), ep.Geometry(ep.Circle(big)))
    ys = []
    for _ in range(10):
        esper.process(DT)
        crate_pos = esper.component_for_entity(crate, ep.Position)
        ball_pos = esper.component_for_entity(ball, ep.Position)
        ys.append(crate_pos.y)
        gap = math.dist((crate_pos.x, crate_pos.y), (ball_pos.x, ball_pos.y)) - r - big
        assert gap > -1e-3, f"the ball was not pushed off the crate: gap {gap}"
    assert min(ys) > r - 1e-3, f"the crate (radius {r}) was pushed into the floor: y = {ys}"


@pytest.mark.parametrize("wall", ["static", "infinite mass", "tile map"])
def test_overlap_push_stops_at_a_wall_and_the_other_body_takes_the_rest(world, wall):
    """A box leaning on a wall, made overlapping a ball on its other side: the box stays at
    the wall (it is not pushed into it) and the ball is pushed out by the whole depth."""
    ep.Physics(fixed_dt=DT)
    if wall == "tile map":
        tiles = ep.TileMap([[1]] * 4, 1.0)
        esper.create_entity(ep.Position(-1, -2), ep.Collider(ep.STATIC), ep.Geometry(tiles))
    else:
        # infinite mass is an ACTIVE collider's only (a platform); a static one never moves
        col = ep.Collider(ep.STATIC) if wall == "static" else ep.Collider(ep.ACTIVE, mass=math.inf)
        esper.create_entity(ep.Position(-0.5, 0), ep.Velocity(0, 0), col,
                            ep.Geometry(ep.Rect(1, 4)))
    box = esper.create_entity(ep.Position(0.5 + 1e-4, 0), ep.Velocity(0, 0),
                              ep.Collider(ep.PASSIVE, mass=1.0), ep.Geometry(ep.Rect(1, 1)))
    ball = esper.create_entity(ep.Position(1.2, 0), ep.Velocity(0, 0),
                               ep.Collider(ep.ACTIVE, mass=1.0), ep.Geometry(ep.Circle(0.5)))
    esper.process(DT)
    bx = esper.component_for_entity(box, ep.Position).x
    cx = esper.component_for_entity(ball, ep.Position).x
    assert bx == pytest.approx(0.5, abs=1e-3), f"the box moved into the wall: x = {bx}"
    assert cx == pytest.approx(1.5, abs=1e-3), f"the ball did not take the whole depth: {cx}"


def test_overlap_push_between_two_walls_leaves_both_bodies_out_of_the_walls(world):
    """Two boxes made overlapping in a corridor just wider than one of them: neither can be
    pushed apart (each is stopped by its wall), so neither enters a wall; the overlap stays
    until something gives way, and no position is NaN."""
    ep.Physics(fixed_dt=DT)
    for x in (-1.0, 1.6):
        esper.create_entity(ep.Position(x, 0), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(1, 4)))
    boxes = [esper.create_entity(ep.Position(x, 0), ep.Velocity(0, 0),
                                 ep.Collider(ep.ACTIVE, mass=1.0), ep.Geometry(ep.Rect(0.5, 0.5)))
             for x in (-0.25 + 1e-4, 0.1)]
    for _ in range(5):
        esper.process(DT)
        xs = [esper.component_for_entity(e, ep.Position).x for e in boxes]
        assert all(math.isfinite(x) for x in xs)
        assert xs[0] >= -0.25 - 1e-3 and xs[1] <= 0.85 + 1e-3, xs
