"""Issue 45, items 4 and 5: events stay paired through sleep, and a sleeper hit is a body hit.

Item 4, "Touch and separate lose their pairing when bodies fall asleep: in two 10-minute
soaks, 150 and 118 touches of a pair that already touches, 1,225 and 716 separates without a
touch. Sleeping off: 0 of 11,082." The promise: touch / separate strictly alternate for every
pair through sleep, wake, delete, dig and restore, and a touching pair lives in exactly one
store (DESIGN.md, "Contacts"), so ``physics.contacts()`` lists it once.

- `Churn` is a game's busy level with sleeping on (the default): piles of balls, boxes,
  polygons and compounds on a floor, a ledge and a tile map; every step, with some chance,
  one of the game's operations: bodies spawned or dropped as rocks onto the piles, deleted
  (sleepers first), kicked, stopped, nudged, changed in layer or shape, tiles dug and built,
  ``physics.wake``, a static ledge moved, moving sensor zones made, and moving platforms
  (ACTIVE, infinite mass) made, started and stopped by writing their velocity. ``on_touch``
  handlers delete bodies (a bomb takes itself and what it touched; for stretches of the run a
  handler also deletes, writes the velocity of or wakes the body touched). The open pairs are
  kept by ``(a, b, tile)``: a touch of an open pair or a separate of a pair that is not open
  fails at once, naming the step; every ``POLL`` steps the open pairs must be exactly those of
  ``physics.contacts()``, none listed twice; after the run everything is deleted and one more
  step must separate every open pair.
- Found by that scene and reduced (every failing seed had bodies asleep on a platform; with
  the platform operation left out, 30 seeds of 2,000 steps gave no failure): crates asleep on
  a platform that is awake and still (its rest began later than theirs), then the game starts
  the platform. Today the crates are carried one step while they read asleep,
  ``physics.contacts()`` lists their pairs twice, the pairs separate while they still touch,
  and one pair separates again without a touch.

Item 5, "A sleeper hit by a body the step did not foresee is hit like a wall: no momentum
exchange (a hitter's speed -1.13 -> -0.04), and it wakes one step later." The promise: the awake
body that reaches a sleeper exchanges momentum with it in that step and wakes its island,
whatever the broadphase foresaw. The scene: a crate asleep on the floor; a second crate made
0.05 to its left (its swept box at the step's start does not reach the sleeper: nothing in
the broadphase pairs them) and a ball thrown into that crate. In one step the ball hits the
crate and the crate, pushed, hits the sleeper. The same scene with ``sleep_after=None`` (the
sleeper is then an awake crate at rest at the very same position) is the reference: after the
impact step the crate, the sleeper (and the crate on it) must move as they do there, and the
sleeper (and its island) must be awake.
"""

from __future__ import annotations

import collections
import math

import esper
import numpy as np
import pytest

import ecsphys as ep
from tests import sleep_scenes
from tests.sleep_scenes import DT, body, run

# ---------------------------------------------------------------- item 4: the churning level

STEPS = 3000
POLL = 10  # steps between comparisons of the open pairs with physics.contacts()
BODIES = 50
OPS = ("sensor", "platform", "hwrite", "hdelete", "hwake", "spawn", "delete", "kick", "zero",
       "teleport", "layer", "shape", "tile", "wake", "static", "rock")


class PairingFailure(AssertionError):
    pass


class Churn:
    """The churning level (see the module docstring); seeded, so ``Churn(seed).run()``
    reproduces a failure step for step."""

    def __init__(self, seed: int, steps: int = STEPS, rate: float = 0.5,
                 sleep_after: float | None = 0.5) -> None:
        self.seed = seed
        self.steps = steps
        self.rate = rate
        self.rng = rng = np.random.default_rng(seed)
        self.physics = ep.Physics(fixed_dt=DT, sleep_after=sleep_after)  # 0.5: the default
        self.physics.on_touch(self._touch)
        self.physics.on_separate(self._separate)
        self.open: dict[tuple[int, int, tuple[int, int] | None], int] = {}
        self.problems: list[str] = []
        self.touches = self.separates = self.fell = self.woke = 0
        self.bodies: list[int] = []
        self.bombs: set[int] = set()
        self.platforms: list[int] = []
        self.statics: list[int] = []
        self.handler_mode: str | None = None
        self.done: collections.Counter[str] = collections.Counter()
        for x, y, w, h in ((0, -0.5, 32, 1), (-15.5, 8, 1, 18), (15.5, 8, 1, 18)):
            self.statics.append(self._static(x, y, ep.Rect(w, h)))
        self.ledge = self._static(-6, 3, ep.Rect(4, 0.5))
        self.tiles = ep.TileMap(np.ones((4, 10), dtype=np.uint8), 1.0)
        self.tile_entity = self._static(2, 0, self.tiles)
        for i in range(BODIES):  # piles on the floor, the ledge and the tile map
            self._spawn(float(rng.uniform(-13, 12)),
                        0.5 + (i // 10) * 1.1 + (4 if rng.random() < 0.4 else 0))

    # ------------------------------------------------------------ making things

    def _static(self, x: float, y: float, shape: ep.Shape) -> int:
        e = esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(shape))
        self.statics.append(e)
        return e

    def _shape(self) -> ep.Shape:
        r = self.rng
        k = int(r.integers(4))
        s = float(r.uniform(0.3, 0.5))
        if k == 0:
            return ep.Circle(s)
        if k == 1:
            return ep.Rect(2 * s, float(r.uniform(0.5, 1.0)))
        if k == 2:
            return ep.Polygon([(-s, -s), (s, -s), (0.8 * s, s), (-0.8 * s, s)])
        return ep.Compound([ep.Circle(0.5 * s, offset=(-0.5 * s, 0)),
                            ep.Rect(s, s, offset=(0.4 * s, 0))])

    def _spawn(self, x: float, y: float, vy: float = 0.0, bomb: bool = False) -> int:
        r = self.rng
        kind = ep.PASSIVE if r.random() < 0.6 else ep.ACTIVE
        e = esper.create_entity(
            ep.Position(x, y), ep.Velocity(float(r.uniform(-0.5, 0.5)), vy),
            ep.Collider(kind, mass=float(r.uniform(0.5, 2.0)),
                        restitution=float(r.choice([0.0, 0.0, 0.3])),
                        friction=float(r.choice([0.0, 0.5, 1.0]))),
            ep.Geometry(self._shape()), ep.AccelerationMap(gravity=(0, -9.8)))
        self.bodies.append(e)
        if bomb:
            self.bombs.add(e)
        return e

    def _forget(self, e: int) -> None:
        self.bodies.remove(e)
        self.bombs.discard(e)
        esper.delete_entity(e)

    # ------------------------------------------------------------ events

    def _touch(self, c: ep.BodyContact) -> None:
        key = (c.a, c.b, c.tile)
        if key in self.open:
            self.problems.append(f"touch of a pair open since step {self.open[key]}: {c!r}")
        self.open[key] = self.physics.steps
        self.touches += 1
        if self.handler_mode and self.rng.random() < 0.05:
            other = c.b if c.b in self.bodies else c.a
            if other in self.bodies and esper.entity_exists(other):
                if self.handler_mode == "hwrite":
                    esper.component_for_entity(other, ep.Velocity).xy = (0.5, 1.0)
                elif self.handler_mode == "hdelete":
                    self._forget(other)
                elif other in self.physics.table.row_of:
                    self.physics.wake(other)
        for bomb, other in ((c.a, c.b), (c.b, c.a)):
            if bomb in self.bombs and esper.entity_exists(bomb):
                self._forget(bomb)  # a bomb goes off: it and what it touched are deleted
                if other in self.bodies and esper.entity_exists(other):
                    self._forget(other)
                break

    def _separate(self, c: ep.BodyContact) -> None:
        if self.open.pop((c.a, c.b, c.tile), None) is None:
            self.problems.append(f"separate of a pair that is not open: {c!r}")
        self.separates += 1

    # ------------------------------------------------------------ the game's operations

    def _pick(self) -> int | None:
        """A body of the table, a sleeper seven times in ten when there is one."""
        ph = self.physics
        live = [e for e in self.bodies if e in ph.table.row_of]
        if not live:
            return None
        if self.rng.random() < 0.7:
            asleep = [e for e in live if ph.is_sleeping(e)]
            if asleep:
                return asleep[int(self.rng.integers(len(asleep)))]
        return live[int(self.rng.integers(len(live)))]

    def _op(self, name: str) -> None:
        r = self.rng
        self.done[name] += 1
        if name in ("hwrite", "hdelete", "hwake"):  # handlers' extra deed on or off
            self.handler_mode = name if self.handler_mode != name else None
        elif name == "sensor":  # a still trigger zone (a moving sensor body)
            self.bodies.append(esper.create_entity(
                ep.Position(float(r.uniform(-13, 12)), float(r.uniform(0.5, 5))),
                ep.Velocity(0, 0), ep.Collider(ep.PASSIVE, sensor=True),
                ep.Geometry(ep.Rect(1.5, 1.5))))
        elif name == "platform":  # a lift: made still, then started and stopped by the game
            if len(self.platforms) < 2:
                self.platforms.append(esper.create_entity(
                    ep.Position(float(r.uniform(-10, 10)), float(r.uniform(2, 6))),
                    ep.Velocity(0, 0), ep.Collider(ep.ACTIVE, mass=math.inf),
                    ep.Geometry(ep.Rect(3, 0.4))))
            else:
                v = esper.component_for_entity(self.platforms[int(r.integers(2))], ep.Velocity)
                v.xy = (0.0, 0.0) if v.xy != (0.0, 0.0) else (float(r.uniform(-1, 1)), 0.0)
        elif name == "spawn":
            self._spawn(float(r.uniform(-13, 12)), float(r.uniform(6, 12)), bomb=r.random() < 0.2)
        elif name == "rock":
            self._spawn(float(r.uniform(-13, 12)), float(r.uniform(3, 6)),
                        vy=-float(r.uniform(5, 15)))
        elif name == "tile":
            g = self.tiles.grid
            solid, dug = np.argwhere(g != 0), np.argwhere(g == 0)
            if len(dug) and (len(solid) < 25 or r.random() < 0.5):
                row, col = dug[int(r.integers(len(dug)))].tolist()
                self.tiles[row, col] = 1
            elif len(solid):
                row, col = solid[int(r.integers(len(solid)))].tolist()
                self.tiles[row, col] = 0
        elif name == "static":
            p = esper.component_for_entity(self.ledge, ep.Position)
            p.xy = (p.x + float(r.uniform(-0.05, 0.05)), p.y)
        else:
            e = self._pick()
            if e is None:
                return
            if name == "delete":
                self._forget(e)
            elif name == "kick":
                esper.component_for_entity(e, ep.Velocity).xy = (float(r.uniform(-3, 3)),
                                                                 float(r.uniform(-1, 4)))
            elif name == "zero":
                esper.component_for_entity(e, ep.Velocity).xy = (0.0, 0.0)
            elif name == "teleport":
                p = esper.component_for_entity(e, ep.Position)
                p.xy = (p.x + float(r.uniform(-0.05, 0.05)), p.y + float(r.uniform(0, 0.05)))
            elif name == "layer":
                col = esper.component_for_entity(e, ep.Collider)
                col.layer, col.mask = (2, 1) if col.layer == 1 else (1, ep.ALL)
            elif name == "shape":
                esper.component_for_entity(e, ep.Geometry).shape = self._shape()
            elif name == "wake":
                self.physics.wake(e)

    # ------------------------------------------------------------ the run and its checks

    def fail(self, what: str) -> None:
        raise PairingFailure(
            f"seed {self.seed}, step {self.physics.steps}: {what}\n  ({self.touches} touches, "
            f"{self.separates} separates, {len(self.open)} open; {self.fell} fell asleep, "
            f"{self.woke} woke; operations so far {dict(self.done)})")

    def poll(self) -> None:
        keys = [(c.a, c.b, c.tile) for c in self.physics.contacts()]
        twice = sorted((k for k, n in collections.Counter(keys).items() if n > 1), key=str)
        if twice:
            self.fail(f"physics.contacts() lists {len(twice)} pairs twice: {twice[:5]}")
        now, opened = set(keys), set(self.open)
        if now != opened:
            self.fail(f"the open pairs are not those of physics.contacts(): open only "
                      f"{sorted(opened - now, key=str)[:5]}, touching only "
                      f"{sorted(now - opened, key=str)[:5]}")

    def step(self) -> None:
        """One frame: the step and its checks, then maybe one of the game's operations, and
        the level filled up again."""
        ph, r = self.physics, self.rng
        before = ph.stats["sleeping"]
        esper.process(DT)
        change = ph.stats["sleeping"] - before
        self.fell += max(change, 0)
        self.woke += max(-change, 0)
        if self.problems:
            self.fail("; ".join(self.problems[:4]))
        if ph.steps % POLL == 0:
            self.poll()
        self.after_step()
        if r.random() < self.rate:
            self._op(OPS[int(r.integers(len(OPS)))])
        while len(self.bodies) < BODIES:
            self._spawn(float(r.uniform(-13, 12)), float(r.uniform(6, 12)))

    def after_step(self) -> None:
        """More checks right after the step, before the game's operation (none here)."""

    def run(self) -> None:
        for _ in range(self.steps):
            self.step()
        self.poll()

    def teardown(self) -> None:
        """Everything deleted, one more step: every open pair separates."""
        for e in list(self.bodies) + self.platforms + self.statics:
            if esper.entity_exists(e):
                esper.delete_entity(e)
        esper.process(DT)
        if self.problems:
            self.fail("at teardown: " + "; ".join(self.problems[:4]))
        if self.open:
            self.fail(f"{len(self.open)} pairs left open after deleting everything: "
                      f"{sorted(self.open, key=str)[:5]}")


@pytest.mark.parametrize("seed", [4, 13, 24, 29])
def test_touch_and_separate_alternate_for_every_pair_in_a_churning_sleeping_level(world, seed):
    level = Churn(seed)
    level.run()
    level.teardown()
    assert level.touches == level.separates
    # the level did what it is for: bodies fell asleep and woke, the game deleted bodies
    # and worked its platforms
    assert level.fell > 300 and level.woke > 300, (level.fell, level.woke)
    assert level.done["platform"] > 20 and level.done["delete"] > 20, dict(level.done)


def test_the_churning_level_keeps_its_events_paired_with_sleeping_off(world):
    """The control: the first seed's level with ``sleep_after=None`` (the issue: "Sleeping
    off: 0 of 11,082"). It passes today, so the failures above are sleeping's."""
    level = Churn(4, sleep_after=None)
    level.run()
    level.teardown()
    assert level.touches == level.separates and level.fell == 0


# ---------------------------------------------------------------- item 4, reduced: the riders


def _riders_on_a_still_platform(name):
    """Three crates resting on a lift (ACTIVE, infinite mass, still) that is awake: woken
    after the crates began to rest, the lift rests afresh, so today the crates fall asleep
    on it while it is awake. Returns (physics, platform, crates, events, whether the crates
    slept on the awake lift)."""
    physics = sleep_scenes.world(name)
    events = []
    physics.on_touch(lambda c: events.append((physics.steps, "touch", c.a, c.b, c.tile)))
    physics.on_separate(lambda c: events.append((physics.steps, "separate", c.a, c.b, c.tile)))
    body(0, -0.5, ep.Rect(30, 1), ep.STATIC)
    platform = body(0, 3, ep.Rect(4, 0.4), vx=0.0, mass=math.inf)
    crates = [body(-0.5, 3.6, ep.Rect(0.8, 0.8), ep.PASSIVE, g=9.8),  # side by side,
              body(0.3, 3.6, ep.Rect(0.8, 0.8), ep.PASSIVE, g=9.8),  # touching,
              body(-0.5, 4.4, ep.Rect(0.8, 0.8), ep.PASSIVE, g=9.8)]  # and one on top
    run(20)
    physics.wake(platform)  # its rest starts again: the crates rest longer than it
    slept = False
    for _ in range(60):
        esper.process(DT)
        if all(physics.is_sleeping(c) for c in crates) and not physics.is_sleeping(platform):
            slept = True
            break
    return physics, platform, crates, events, slept


def _check_events(physics, events):
    """The first break of touch / separate alternation in ``events``, or of the open pairs
    against ``physics.contacts()`` (a pair listed twice, or open and touching differing);
    None when all is well."""
    open_since = {}
    for step, kind, a, b, tile in events:
        key = (a, b, tile)
        if kind == "touch":
            if key in open_since:
                return f"step {step}: touch of {key}, open since step {open_since[key]}"
            open_since[key] = step
        elif open_since.pop(key, None) is None:
            return f"step {step}: separate of {key}, which is not open"
    keys = [(c.a, c.b, c.tile) for c in physics.contacts()]
    if len(keys) != len(set(keys)):
        return f"step {physics.steps}: physics.contacts() lists a pair twice: {sorted(keys)}"
    if set(keys) != set(open_since):
        return (f"step {physics.steps}: open pairs {sorted(open_since)} but "
                f"physics.contacts() {sorted(keys)}")
    return None


@pytest.mark.parametrize("speed", [0.5, 2.0])
def test_sleepers_on_a_platform_the_game_starts_keep_their_events_paired(speed):
    physics, platform, crates, events, slept = _riders_on_a_still_platform(
        f"pairing-riders-{speed}")
    assert _check_events(physics, events) is None
    start = physics.steps
    esper.component_for_entity(platform, ep.Velocity).xy = (speed, 0.0)
    for _ in range(40):
        esper.process(DT)
        broken = _check_events(physics, events)
        assert broken is None, (
            f"{broken} (the crates slept on the awake platform: {slept}; events since it "
            f"started at step {start}: {[e for e in events if e[0] > start]})")


def test_sleepers_on_a_platform_the_game_starts_wake_in_the_step_it_moves_them():
    """DESIGN.md, "Sleeping": anything that would move a sleeper wakes its island in the
    same step, a moving platform it rides included; sleepers keep their positions bit for
    bit. Today the crates are carried one step while they read asleep."""
    physics, platform, crates, _, slept = _riders_on_a_still_platform("pairing-riders-wake")
    start = [esper.component_for_entity(c, ep.Position).xy for c in crates]
    esper.component_for_entity(platform, ep.Velocity).xy = (0.5, 0.0)
    esper.process(DT)
    now = [esper.component_for_entity(c, ep.Position).xy for c in crates]
    asleep = [physics.is_sleeping(c) for c in crates]
    moved_asleep = [(c, s, n) for c, s, n, a in zip(crates, start, now, asleep, strict=True)
                    if a and s != n]
    assert not moved_asleep, (f"crates moved while asleep (entity, before, after; they slept "
                              f"on the awake platform: {slept}): {moved_asleep}")
    assert not any(asleep), f"the platform moved its riders and they sleep on: {asleep}"


# ---------------------------------------------------------------- item 5: the sleeper hit


def _pushed_into_a_sleeper(name, sleep_after, hitter_kind, stacked):
    """A crate at rest on the floor (asleep when sleeping is on; with a crate on it when
    ``stacked``); a second crate made 0.05 to its left and a ball thrown into that crate at
    12 u/s. Returns (physics, bodies by role, the sleeper's position before the impact step,
    whether it slept then)."""
    physics = sleep_scenes.world(name, sleep_after)
    body(0, -0.5, ep.Rect(30, 1), ep.STATIC)
    roles = {"sleeper": body(0, 0.5, ep.Rect(1, 1), ep.PASSIVE, g=9.8)}
    if stacked:
        roles["on top"] = body(0, 1.5, ep.Rect(1, 1), ep.PASSIVE, g=9.8)
    run(60)
    before = {r: esper.component_for_entity(e, ep.Position).xy for r, e in roles.items()}
    slept = physics.is_sleeping(roles["sleeper"])
    # the pushed crate's swept box at the step's start is 0.05 short of the sleeper: the
    # broadphase does not pair them; only the ball's push brings it there within the step
    roles["crate"] = body(-1.05, 0.5, ep.Rect(1, 1), ep.PASSIVE, g=9.8)
    roles["ball"] = body(-2.06, 0.5, ep.Circle(0.5), hitter_kind, vx=12.0, g=9.8)
    return physics, roles, before, slept


def _motion(roles):
    return {r: (esper.component_for_entity(e, ep.Position).xy,
                esper.component_for_entity(e, ep.Velocity).xy) for r, e in roles.items()}


@pytest.mark.parametrize("stacked", [False, True], ids=["alone", "stacked"])
@pytest.mark.parametrize("hitter", [ep.ACTIVE, ep.PASSIVE], ids=["active-ball", "passive-ball"])
def test_a_sleeper_hit_by_a_body_pushed_into_it_within_the_step_is_hit_like_an_awake_body(
        hitter, stacked):
    tag = f"{hitter.name}-{stacked}"
    physics, roles, before, slept = _pushed_into_a_sleeper(f"hit-asleep-{tag}", 0.5, hitter,
                                                           stacked)
    awake_physics, awake_roles, awake_before, awake_slept = _pushed_into_a_sleeper(
        f"hit-awake-{tag}", None, hitter, stacked)
    assert slept and not awake_slept
    assert before == awake_before  # the same scene bit for bit: only sleep differs
    esper.switch_world(f"hit-awake-{tag}")
    esper.process(DT)  # the impact step, sleeping off
    want = _motion(awake_roles)
    assert want["sleeper"][0][0] > 0.01, f"no impact in the reference step: {want}"
    esper.switch_world(f"hit-asleep-{tag}")
    esper.process(DT)  # the impact step, sleeping on
    got = _motion(roles)
    island = [r for r in ("sleeper", "on top") if r in roles]
    still_asleep = [r for r in island if physics.is_sleeping(roles[r])]
    for role in ("crate", "ball", *island):
        (gp, gv), (wp, wv) = got[role], want[role]
        # (velocities along the push within 1e-3, positions within half the contact offset:
        # the bug is 0.75 to 1.5 u/s and 0.011 to 0.023 off. Across the push, the woken
        # island was not integrated in the impact step: the awake world's bodies keep part
        # of that step's gravity into what holds them (below one step of it, 9.8 * DT),
        # the woken ones none)
        assert gv[0] == pytest.approx(wv[0], abs=1e-3) and gp == pytest.approx(wp, abs=0.005)
        assert abs(gv[1] - wv[1]) <= (9.8 * DT if role in island else 1e-3), (
            f"the {role}'s motion after the impact step: {gp}, velocity {gv}; with sleeping "
            f"off {wp}, velocity {wv} (every body: {got}; sleeping off: {want}; asleep "
            f"after it: {still_asleep})")
    assert not still_asleep, f"hit in this step and still asleep: {still_asleep}"
