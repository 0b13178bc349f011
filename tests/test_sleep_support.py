"""Rest by support, not by speed (issue 45, item 1: "Asleep in mid-air").

A body may fall asleep only when it touches something that holds it up and has not moved for
``sleep_after``; losing a support (a tile dug, a block deleted) restarts its timer, and it is
never asleep in mid-air or while it slides (DESIGN.md, "Sleeping" and "Contacts").

Shows, with ``sleep_after=0.5`` and ``fixed_dt=1/60`` (a body at rest from its first step
falls asleep in step 31):

- a crate (PASSIVE or ACTIVE, with gravity) resting on a tile of a TileMap whose tile is dug
  just before it would fall asleep falls into the hole and comes to rest on the tile below;
- the same with the block (STATIC or a PASSIVE crate) under it deleted: it falls to the floor;
- a frictionless box sliding at 0.2 units/s (below ``2 * g * dt``) slides off its ledge and
  falls, and is never put to sleep on the way;
- a body held still in mid-air by the game (its Velocity written (0, 0) every frame) is
  never asleep there, and falls when let go;
- seeded random small scenes with digs and deletes of supports at random steps: after every
  step, every sleeping body (all have gravity, all of finite mass) has at least one contact.

The invariant checked throughout: ``physics.is_sleeping(e)`` implies
``physics.contacts_of(e)`` is not empty, and a body is not asleep in a step in which it
moved down.
"""

from __future__ import annotations

import esper
import numpy as np
import pytest
from sleep_scenes import DT, body

import ecsphys as ep

G = 9.8
HALF = 0.375  # half the height of a 0.75 crate
SKIN = 0.02  # how far above a surface a resting body may end (contact offset and slack)


def _physics():
    return ep.Physics(fixed_dt=DT, sleep_after=0.5)


def _xy(e):
    return esper.component_for_entity(e, ep.Position).xy


class _Watch:
    """Steps the world and checks, after every step, each watched body that still exists;
    ``faults`` lists every step in which a body was asleep with no
    contact, or asleep although it moved down in that step (by more than 1e-3: the first step
    of a fall from rest moves g * dt**2 = 2.7e-3)."""

    def __init__(self, physics, bodies):
        self.physics = physics
        self.bodies = list(bodies)
        self.last = {b: _xy(b) for b in self.bodies}
        self.faults: list[tuple] = []
        self.steps = 0

    def step(self):
        esper.process(DT)
        self.steps += 1
        for b in self.bodies:
            if not esper.entity_exists(b):
                continue
            xy = _xy(b)
            asleep = self.physics.is_sleeping(b)
            n = len(self.physics.contacts_of(b))
            if asleep and n == 0:
                self.faults.append((self.steps, b, "asleep touching nothing", xy))
            if asleep and xy[1] < self.last[b][1] - 1e-3:  # (one step of a fall: 2.7e-3)
                self.faults.append((self.steps, b, "asleep in a step it moved down",
                                    (self.last[b][1], xy[1])))
            self.last[b] = xy

    def run(self, steps):
        for _ in range(steps):
            self.step()


# ------------------------------------------------------------------ a tile dug under a crate


@pytest.mark.parametrize("kind", [ep.PASSIVE, ep.ACTIVE], ids=["passive", "active"])
@pytest.mark.parametrize("dig_after", [29, 30])
def test_a_crate_whose_tile_is_dug_before_it_sleeps_falls_into_the_hole(world, kind,
                                                                       dig_after):
    """Two rows of tiles (tops at y = 2 and y = 1); a 0.75 crate at rest on column 4 from its
    first step; tile (row 0, column 4) dug after ``dig_after`` steps (it would sleep in step
    31). It must fall into the hole and rest on the lower tile at y = 1 + 0.375, never asleep
    on the way. (Today, dug after 30 steps, it falls asleep at y 2.372 over the hole.)"""
    physics = _physics()
    tiles = ep.TileMap(["#########", "#########"], 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tiles))
    crate = body(4.5, 2.0 + HALF, ep.Rect(0.75, 0.75), kind, g=G)
    watch = _Watch(physics, [crate])
    watch.run(dig_after)
    assert not physics.is_sleeping(crate) and _xy(crate)[1] == pytest.approx(2.0 + HALF,
                                                                               abs=SKIN)
    tiles[0, 4] = 0
    watch.run(150)
    x, y = _xy(crate)
    assert not watch.faults, watch.faults[:5]
    assert x == pytest.approx(4.5, abs=1e-9)
    assert 1.0 + HALF - 1e-6 <= y <= 1.0 + HALF + SKIN, f"ended at y {y}, not on the lower tile"
    assert physics.is_sleeping(crate)  # and it comes to rest there
    assert physics.contacts_of(crate)


# ------------------------------------------------------------------ a block deleted under a crate


@pytest.mark.parametrize("support", [ep.STATIC, ep.PASSIVE], ids=["static-block", "crate"])
@pytest.mark.parametrize("kind", [ep.PASSIVE, ep.ACTIVE], ids=["passive", "active"])
@pytest.mark.parametrize("delete_after", [29, 30])
def test_a_crate_whose_support_is_deleted_before_it_sleeps_falls_to_the_floor(
        world, support, kind, delete_after):
    """A 1x1 block (STATIC, or a PASSIVE crate with gravity) on a floor whose top is y = 0,
    a 0.75 crate on the block, both at rest from the first step; the block deleted after
    ``delete_after`` steps. The crate must fall to the floor (y 0.375), never asleep on the
    way. (Today it falls asleep at y 1.367 / 1.372, touching nothing.)"""
    physics = _physics()
    body(0, -0.5, ep.Rect(10, 1), ep.STATIC)
    block = body(0, 0.5, ep.Rect(1, 1), support, g=0.0 if support == ep.STATIC else G)
    crate = body(0, 1.0 + HALF, ep.Rect(0.75, 0.75), kind, g=G)
    watch = _Watch(physics, [crate])
    watch.run(delete_after)
    assert not physics.is_sleeping(crate)
    esper.delete_entity(block)
    watch.run(150)
    x, y = _xy(crate)
    assert not watch.faults, watch.faults[:5]
    assert x == pytest.approx(0.0, abs=1e-9)
    assert HALF - 1e-6 <= y <= HALF + SKIN, f"ended at y {y}, not on the floor"
    assert physics.is_sleeping(crate)
    assert physics.contacts_of(crate)


# ------------------------------------------------------------------ a slow slide off a ledge


@pytest.mark.parametrize("kind", [ep.PASSIVE, ep.ACTIVE], ids=["passive", "active"])
def test_a_frictionless_box_sliding_slowly_slides_off_its_ledge_and_falls(world, kind):
    """A 0.5 box at 0.2 units/s (below 2 * g * dt = 0.33) on a frictionless ledge whose top
    is y = 0 and whose end is x = 0, a floor 5 below. Nothing slows it: it slides at 0.2 the
    whole way, leaves the ledge when its left side passes x = 0 (step ~165) and falls to the
    floor, never asleep. (Today it falls asleep in step 31, at x -0.197, on the ledge.)"""
    physics = _physics()
    body(-5, -0.5, ep.Rect(10, 1), ep.STATIC)  # the ledge: top y = 0, end x = 0
    body(0, -5.5, ep.Rect(30, 1), ep.STATIC)  # the floor: top y = -5
    x0 = -0.3
    box = body(x0, 0.25, ep.Rect(0.5, 0.5), kind, vx=0.2, g=G)
    watch = _Watch(physics, [box])
    for _ in range(300):
        watch.step()
        assert not physics.is_sleeping(box), (
            f"asleep while it slides: step {watch.steps}, position {_xy(box)}")
        x, y = _xy(box)
        if x < 0.25 - 0.01:  # still on the ledge: it slides on at 0.2 units/s
            assert x == pytest.approx(x0 + 0.2 * watch.steps * DT, abs=1e-3), (watch.steps, x)
            assert y == pytest.approx(0.25, abs=SKIN)
    assert not watch.faults, watch.faults[:5]
    x, y = _xy(box)
    assert x > 0.25 + 0.2 * 60 * DT  # off the ledge, still going
    assert y < -4.0  # fell past the ledge to the floor below


# ------------------------------------------------------------------ held in mid-air, then let go


@pytest.mark.parametrize("kind", [ep.PASSIVE, ep.ACTIVE], ids=["passive", "active"])
@pytest.mark.parametrize("hold", [20, 60])
def test_a_body_held_still_in_mid_air_does_not_sleep_and_falls_when_let_go(world, kind, hold):
    """The game writes Velocity (0, 0) every frame for ``hold`` frames to a body in mid-air
    (5 above a floor): each step starts a fall from rest, whose speed (g * dt) is under the
    old rest threshold. It touches nothing, so it must not be asleep; let go, it falls to
    the floor. (Today, held 60 frames, it falls asleep in step 31 at y 4.916 and hangs there
    for good, since a write of (0, 0) to a sleeper wakes nothing.)"""
    physics = _physics()
    body(0, -0.5, ep.Rect(20, 1), ep.STATIC)  # top y = 0
    b = body(0, 5.0, ep.Rect(0.5, 0.5), kind, g=G)
    watch = _Watch(physics, [b])
    for _ in range(hold):
        esper.component_for_entity(b, ep.Velocity).xy = (0.0, 0.0)
        watch.step()
        assert not physics.is_sleeping(b), f"asleep in mid-air at step {watch.steps}, {_xy(b)}"
    y_held = _xy(b)[1]
    assert y_held > 4.5  # it was held up there
    watch.run(30)  # let go: half a second of free fall, 1.2 units
    assert _xy(b)[1] < y_held - 0.9, f"did not fall when let go: y {_xy(b)[1]}"
    watch.run(90)
    assert not watch.faults, watch.faults[:5]
    assert _xy(b)[1] == pytest.approx(0.25, abs=SKIN)


def test_a_crate_whose_support_goes_sleeps_only_after_resting_where_it_lands(world):
    """A crate rests 30 steps on a PASSIVE block 2 high that is then deleted, so its first
    fall steps from rest (speeds g*dt and 2*g*dt, under the old rest threshold) come when it
    has rested almost ``sleep_after``: they must not finish its rest time, and losing its
    support restarts its timer. It lands on the floor 2 below and falls asleep only after
    resting there about ``sleep_after`` (30 steps), never before it lands. (Today: asleep in
    the first step of the fall, at y 2.372, touching nothing.)"""
    physics = _physics()
    body(0, -0.5, ep.Rect(10, 1), ep.STATIC)
    low = body(0, 1.0, ep.Rect(1, 2), ep.PASSIVE, g=G)
    crate = body(0, 2.0 + HALF, ep.Rect(0.75, 0.75), ep.PASSIVE, g=G)
    watch = _Watch(physics, [crate])
    watch.run(30)
    assert not physics.is_sleeping(crate)
    esper.delete_entity(low)
    fell_from = watch.steps
    landed = first_asleep = None
    for _ in range(150):
        watch.step()
        if first_asleep is None and physics.is_sleeping(crate):
            first_asleep = watch.steps
        if landed is None and _xy(crate)[1] < HALF + SKIN and physics.contacts_of(crate):
            landed = watch.steps
    assert not watch.faults, watch.faults[:5]
    assert _xy(crate)[1] == pytest.approx(HALF, abs=SKIN)
    assert landed is not None and first_asleep is not None, (landed, first_asleep)
    assert first_asleep - landed >= 29, (
        f"asleep {first_asleep - fell_from} steps after its support went, "
        f"{first_asleep - landed} steps after it landed (step {landed - fell_from})")


# ------------------------------------------------------------------ random scenes


def _random_scene(rng):
    """A map 12 tiles wide, 3 rows (tops at y = 3, 2, 1; the bottom row is never dug), STATIC
    blocks and crates / balls with gravity on it, some stacked, some dropped a little; returns
    (tiles, statics, bodies)."""
    cols = 12
    tiles = ep.TileMap(np.ones((3, cols), dtype=int), 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tiles))
    statics, bodies = [], []
    for c in rng.choice(np.arange(1, cols - 1), size=int(rng.integers(4, 8)), replace=False):
        x = c + 0.5 + rng.uniform(-0.08, 0.08)
        top = 3.0
        if rng.random() < 0.4:  # a block to stand on
            statics.append(body(c + 0.5, top + 0.5, ep.Rect(1, 1), ep.STATIC))
            top += 1.0
        for _ in range(int(rng.integers(1, 3))):  # one or two bodies stacked
            kind = ep.PASSIVE if rng.random() < 0.6 else ep.ACTIVE
            drop = 0.0 if rng.random() < 0.7 else float(rng.uniform(0.0, 0.6))
            if rng.random() < 0.7:
                h = float(rng.choice([0.6, 0.75, 0.9]))
                shape = ep.Rect(h, h)
            else:
                h = float(rng.choice([0.6, 0.8]))
                shape = ep.Circle(h / 2)
            bodies.append(body(x, top + h / 2 + drop, shape, kind, g=G))
            top += h + drop
    return tiles, statics, bodies


def _random_ops(rng, tiles, statics, bodies):
    """{step: [op, ...]}: digs of the two upper rows and deletes of blocks and bodies, most of
    them in steps 26..34 (around the first sleep, step 31), the rest in 5..120."""
    ops: dict[int, list] = {}
    for _ in range(int(rng.integers(3, 8))):
        step = int(rng.integers(26, 35)) if rng.random() < 0.6 else int(rng.integers(5, 121))
        r = rng.random()
        if r < 0.5:
            op = ("dig", int(rng.integers(0, 2)), int(rng.integers(1, 11)))
        elif r < 0.75 and statics:
            op = ("delete", statics[int(rng.integers(len(statics)))])
        else:
            op = ("delete", bodies[int(rng.integers(len(bodies)))])
        ops.setdefault(step, []).append(op)
    return ops


SEEDS = list(range(24))


def test_no_sleeper_without_a_support_contact_in_random_scenes(world):
    """24 seeded scenes, 200 steps each, digs and deletes of supports at random steps: after
    every step, each sleeping body has at least one contact, and no body is asleep in a step
    in which it moved down. (Every body has gravity and finite mass, so one touching nothing
    is in mid-air.)"""
    bad = []
    for seed in SEEDS:
        esper.switch_world(f"{world}-seed-{seed}")  # a fresh world per scene
        rng = np.random.default_rng(1000 + seed)
        physics = _physics()
        tiles, statics, bodies = _random_scene(rng)
        ops = _random_ops(rng, tiles, statics, bodies)
        watch = _Watch(physics, bodies)
        for step in range(200):
            for op in ops.get(step, []):
                if op[0] == "dig":
                    tiles[op[1], op[2]] = 0
                elif esper.entity_exists(op[1]):
                    esper.delete_entity(op[1])
            watch.step()
        if watch.faults:
            bad.append((seed, len({f[1] for f in watch.faults}), watch.faults[0]))
        esper.switch_world(world)
        esper.delete_world(f"{world}-seed-{seed}")
    assert not bad, (f"{len(bad)} of {len(SEEDS)} seeds had sleepers in mid-air "
                     f"(seed, bodies, first fault): {bad}")
