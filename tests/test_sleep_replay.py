"""Sleep state is world state (issue 45, items 2, 3 and 7): a snapshot holds it and a restore
puts it back, so replays, rollback netcode and a snapshot pickled into another process give
the bits and events of the run they came from, with sleeping on as with it off;
``restore(physics.snapshot())`` always succeeds and no contact is held twice; restore refuses
a snapshot whose sleep state cannot be (unknown entities, a sleeper with a velocity, a pair
twice) and leaves the world as it was.

One scene serves them all (`Scene`): a floor of tiles, crates resting on it (they fall
asleep), balls rolling and bouncing among them, and a pool of balls parked on a shelf far away
that the game's inputs (`Scene.inputs`, by frame number) teleport in as "spawns"
(rollback games keep a pool: an entity made after a snapshot could not be restored); the
inputs also kick crates (a Velocity write wakes a sleeper), dig a tile under a crate and build
it back. Every test that checks sleeping is run with ``sleep_after=None`` too: the same
harness passes with sleeping off, so a failure with it on is sleeping's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

import esper
import numpy as np
import pytest
from sleep_scenes import DT, body, body_state

import ecsphys as ep

SLEEP = [pytest.param(None, id="sleep_off"), pytest.param(0.5, id="sleep_on")]
TILES = ["#..............#", "################"]


class Scene:
    """The shared scene in the current esper world (see the module docstring)."""

    def __init__(self, sleep_after: float | None) -> None:
        self.physics = physics = ep.Physics(fixed_dt=DT, sleep_after=sleep_after)
        self.events: list[tuple] = []
        for kind in ("touch", "separate"):
            def record(c, kind=kind):  # noqa: ANN001
                self.events.append((physics.steps, kind, c.a, c.b, c.tile, c.steps,
                                    c.duration, c.normal, c.point, c.depth))
            getattr(physics, f"on_{kind}")(record)
        self.level = ep.TileMap(TILES, 1.0, origin=(-8, -2))
        self.floor = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC),
                                         ep.Geometry(self.level))
        self.crates = [body(-6.0 + 2 * i, -0.5 + 0.1 * (i % 3), ep.Rect(0.9, 0.9), ep.PASSIVE,
                            g=9.8, friction=0.6) for i in range(7)]
        self.balls = [body(-5.0 + 2 * i, 1.0 + 0.5 * i, ep.Circle(0.4), g=9.8,
                           vx=0.3 * (-1) ** i, friction=0.5) for i in range(6)]
        self.shelf = body(105, -0.5, ep.Rect(14, 1), ep.STATIC)  # where the pool waits
        self.pool = [body(100 + 2 * i, 0.3, ep.Circle(0.3), ep.PASSIVE, g=9.8)
                     for i in range(6)]
        self.bodies = [*self.crates, *self.balls, *self.pool]

    def inputs(self, f: int) -> None:
        """The game's input of frame ``f`` (before its step)."""
        if f % 25 == 10:  # a pooled ball spawns: out of the pool, dropped into the level
            ball = self.pool[(f // 25) % len(self.pool)]
            esper.component_for_entity(ball, ep.Position).xy = (-5.0 + (f % 7) * 1.5, 4.0)
            esper.component_for_entity(ball, ep.Velocity).xy = (0.0, -1.0)
        if f % 40 == 30:  # a crate kicked (a sleeper woken by the game's write)
            crate = self.crates[(f // 40) % len(self.crates)]
            esper.component_for_entity(crate, ep.Velocity).xy = (1.5, 2.0)
        if f == 150:
            self.level[1, 4] = 0  # the tile under a crate dug...
        if f == 220:
            self.level[1, 4] = 1  # ...and built back

    def frame(self, f: int) -> None:
        self.inputs(f)
        esper.process(DT)

    def state(self) -> tuple[np.ndarray, ...]:
        """Entities, positions, velocities and sleep flags of every body, in entity order."""
        return body_state(self.physics)

    def digest(self) -> str:
        """A hash of the raw bytes of `state`."""
        h = hashlib.sha256()
        for a in self.state():
            h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()

    def sleeping(self) -> tuple[bool, ...]:
        """Whether each of `bodies` sleeps."""
        return tuple(self.physics.is_sleeping(e) for e in self.bodies)

    def asleep_in_level(self) -> int:
        """How many crates and balls in the level (not the pool) sleep."""
        return sum(self.physics.is_sleeping(e) for e in (*self.crates, *self.balls))


def _first_difference(first: list, second: list) -> str:
    for i, (x, y) in enumerate(zip(first, second, strict=True)):
        if x != y:
            return f"step {i} of {len(first)}"
    return "none"


# ------------------------------------------------------------------ item 2: replay

REPLAY = 120


def _settle(scene: Scene, sleeping: bool = True) -> int:
    """Frames from 0 until at least 40 have run and (``sleeping``) 3 crates or balls of the
    level sleep; the next frame's number."""
    for f in range(600):
        scene.frame(f)
        if f >= 40 and (not sleeping or scene.asleep_in_level() >= 3):
            return f + 1
    raise AssertionError(f"{scene.asleep_in_level()} crates or balls asleep after 600 frames")


def _play(scene: Scene, start: int, steps: int, wake_at_end: int) -> list[tuple]:
    """``steps`` frames from frame ``start``; per step the bodies' state (`Scene.state`), who
    sleeps and the step's events. Three frames before the end the game kicks
    ``wake_at_end`` (a body asleep in the snapshot), so the world a restore meets has it
    awake and moving."""
    trace = []
    for k in range(steps):
        if k == steps - 3:
            esper.component_for_entity(wake_at_end, ep.Velocity).xy = (0.5, 1.0)
        scene.events.clear()
        scene.frame(start + k)
        trace.append((scene.state(), scene.sleeping(), list(scene.events)))
    return trace


def _state_difference(first: list, second: list) -> str:
    """The first step whose states (`Scene.state`) differ, and the bodies that differ in it
    (entity: position, velocity, asleep in each run); "none"."""
    for i, (x, y) in enumerate(zip(first, second, strict=True)):
        if not all(np.array_equal(a, b) for a, b in zip(x, y, strict=True)):
            ent, pos, vel, asleep = x
            rows = np.flatnonzero((pos != y[1]).any(axis=1) | (vel != y[2]).any(axis=1)
                                  | (asleep != y[3]))
            bodies = "; ".join(
                f"entity {ent[r]}: pos {pos[r].tolist()} vs {y[1][r].tolist()}, vel "
                f"{vel[r].tolist()} vs {y[2][r].tolist()}, asleep {asleep[r]} vs {y[3][r]}"
                for r in rows[:3])
            return f"step {i} of {len(first)} ({len(rows)} bodies; {bodies})"
    return "none"


@pytest.mark.parametrize("sleep_after", SLEEP)
def test_replay_from_a_snapshot_taken_while_bodies_sleep_is_bit_exact(world, sleep_after):
    """A snapshot taken while bodies sleep, restored: the sleepers are asleep right after the
    restore (restore does not wake them), and every replayed step has the bits, the sleep
    state and the events of the first run."""
    scene = Scene(sleep_after)
    start = _settle(scene, sleep_after is not None)  # the snapshot is taken while bodies sleep
    snap = scene.physics.snapshot()
    asleep = scene.sleeping()
    positions = scene.state()[1]
    sleeper = next((e for e in (*scene.crates, *scene.balls) if scene.physics.is_sleeping(e)),
                   scene.crates[0])
    first = _play(scene, start, REPLAY, sleeper)
    assert any(ev for _, _, ev in first)  # things happened
    scene.physics.restore(snap)
    assert scene.sleeping() == asleep, "restore woke (or put to sleep) bodies"
    assert np.array_equal(scene.state()[1], positions)
    second = _play(scene, start, REPLAY, sleeper)
    bits = _state_difference([x for x, _, _ in first], [x for x, _, _ in second])
    sleep = [s for _, s, _ in first], [s for _, s, _ in second]
    events = [e for _, _, e in first], [e for _, _, e in second]
    assert (bits, _first_difference(*sleep), _first_difference(*events)) == (
        "none", "none", "none"), (f"bits differ from {bits}; sleep flags from "
                                  f"{_first_difference(*sleep)}; events from "
                                  f"{_first_difference(*events)}")


# ------------------------------------------------------------------ item 2: rollback

FRAMES = 300
EVERY = 10  # a rollback every EVERY frames...
BACK = 8  # ...to the snapshot of BACK frames before, then resimulated to the present


def _rollback_run(sleep_after: float | None,
                  every: int) -> tuple[list[str], int, list[tuple[int, str]]]:
    """The scene for `FRAMES` frames with a snapshot taken before every frame (as rollback
    netcode does); ``every`` > 0: every ``every`` frames restore the snapshot of `BACK`
    frames before and resimulate (taking the snapshots again). The digest of each frame's
    state as last simulated, the most bodies asleep after a frame, and the rollbacks
    refused (frame, error; the game then goes on without that rollback)."""
    scene = Scene(sleep_after)
    most = 0
    refused: list[tuple[int, str]] = []
    snaps: dict[int, object] = {}
    digests: dict[int, str] = {}
    f = 0
    while f < FRAMES:
        snaps[f] = scene.physics.snapshot()
        scene.frame(f)
        digests[f] = scene.digest()
        most = max(most, scene.asleep_in_level())
        f += 1
        if every and f % every == 0 and f >= BACK:
            try:
                scene.physics.restore(snaps[f - BACK])
            except ValueError as exc:
                refused.append((f, str(exc)))
                continue
            for g in range(f - BACK, f):
                snaps[g] = scene.physics.snapshot()
                scene.frame(g)
                digests[g] = scene.digest()
    return [digests[g] for g in range(FRAMES)], most, refused


@pytest.mark.parametrize("sleep_after", SLEEP)
def test_rollback_netcode_with_sleepers_and_a_dig_is_bit_identical_to_no_rollback(
        world, sleep_after):
    """Snapshot every frame, every 10 frames restore the one of 8 frames before and
    resimulate: every frame ends bit-identical to the run that took the same snapshots and
    never rolled back (sleepers fall asleep, are kicked awake, a tile under a crate is dug
    and built back, pooled balls spawn)."""
    truth, most, _ = _rollback_run(sleep_after, 0)
    assert most >= (3 if sleep_after is not None else 0)  # bodies slept in it
    esper.switch_world(world + "-rollback")
    try:
        rolled, _, refused = _rollback_run(sleep_after, EVERY)
    finally:
        esper.switch_world(world)
        esper.delete_world(world + "-rollback")
    same = sum(a == b for a, b in zip(truth, rolled, strict=True))
    assert (refused, rolled) == ([], truth), (
        f"{len(refused)} of {FRAMES // EVERY} rollbacks refused (first: "
        f"{refused[0] if refused else None}); {same} of {FRAMES} frames identical; first "
        f"difference: {_first_difference(truth, rolled)} (frames)")


# ------------------------------------------------------------------ item 2: another process

CONTINUE = 150

_CHILD = r"""
import pickle, sys
sys.path.insert(0, sys.argv[1])
import esper
import test_sleep_replay as m
esper.switch_world("child")
sleep_after = None if sys.argv[3] == "None" else float(sys.argv[3])
scene = m.Scene(sleep_after)
with open(sys.argv[2], "rb") as fh:
    snap = pickle.load(fh)
for f in range(int(sys.argv[4])):  # the new process's own frames before the snapshot came
    scene.frame(f)
scene.physics.restore(snap)
print(repr(m._continue(scene, int(sys.argv[5]))))
"""


def _continue(scene: Scene,
              start: int) -> tuple[tuple[bool, ...], list[str], list[tuple[bool, ...]], str]:
    """Who sleeps now, then `CONTINUE` frames from frame ``start``: each step's digest and
    sleep flags, and a hash of the events."""
    asleep = scene.sleeping()
    scene.events.clear()
    digests, sleeping = [], []
    for k in range(CONTINUE):
        scene.frame(start + k)
        digests.append(scene.digest())
        sleeping.append(scene.sleeping())
    events = hashlib.sha256(repr(scene.events).encode()).hexdigest()
    return asleep, digests, sleeping, events


@pytest.mark.parametrize("sleep_after", SLEEP)
@pytest.mark.parametrize("ran", [
    pytest.param(0, id="restored_right_after_building"),
    pytest.param(5, id="restored_after_5_frames_of_its_own"),
    pytest.param("ahead", id="restored_after_running_100_frames_past_the_snapshot")])
def test_a_snapshot_pickled_mid_sleep_replays_in_a_new_process(world, sleep_after, ran,
                                                               tmp_path):
    """A snapshot pickled while bodies sleep, restored in a new process that built the same
    scene and (``ran``) stepped it for a few frames of its own, or for 100 frames past the
    snapshot's (a client sent the host's state, a rollback across processes): it steps the
    bits, sleep flags and events of this process going on."""
    scene = Scene(sleep_after)
    start = _settle(scene, sleep_after is not None)  # pickled while bodies sleep
    path = tmp_path / "snap.pickle"
    path.write_bytes(pickle.dumps(scene.physics.snapshot()))
    here = _continue(scene, start)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(Path(__file__).parent), str(path), str(sleep_after),
         str(start + 100 if ran == "ahead" else ran), str(start)],
        capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONHASHSEED="7"))
    assert out.returncode == 0, out.stderr
    there = eval(out.stdout)  # noqa: S307 (our own child's repr of strings and bools)
    assert there[0] == here[0], "the restore in the new process changed who sleeps"
    same = sum(a == b for a, b in zip(here[1], there[1], strict=True))
    assert here[1] == there[1], (f"{same} of {CONTINUE} steps identical; first difference "
                                 f"at {_first_difference(here[1], there[1])}")
    assert here[2] == there[2], f"sleep flags differ from {_first_difference(here[2], there[2])}"
    assert here[3] == there[3], "events differ"


# ------------------------------------------------------------------ item 3: own snapshot

def _pairs_twice(physics: ep.Physics, entities: list[int]) -> list[tuple]:
    """Contacts listed more than once, by ``(a, b, tile)`` (a body touches a tile map once
    per tile), in ``contacts_of`` of each entity and in ``contacts()``."""
    twice = []
    lists = [(e, physics.contacts_of(e)) for e in entities] + [("all", physics.contacts())]
    for who, contacts in lists:
        keys = [(c.a, c.b, c.tile) for c in contacts]
        twice += [(who, k) for k in sorted(set(keys)) if keys.count(k) > 1]
    return twice


@pytest.mark.parametrize("rollback", [pytest.param(False, id="forward"),
                                      pytest.param(True, id="with_rollbacks")])
@pytest.mark.parametrize("sleep_after", SLEEP)
def test_restore_of_its_own_snapshot_always_succeeds_and_no_pair_is_held_twice(
        world, sleep_after, rollback):
    """The churning scene (spawns, kicks, a dig, sleepers; ``with_rollbacks``: a rollback
    game restoring the snapshot of 8 frames before every 10 frames): after every frame
    ``restore(physics.snapshot())`` succeeds, and ``contacts_of`` / ``contacts`` never list
    one contact twice."""
    scene = Scene(sleep_after)
    snaps: dict[int, object] = {}
    refused: list[tuple[int, str]] = []
    twice: list[tuple[int, list]] = []
    frames = most = 0

    def check(f: int) -> None:
        nonlocal frames, most
        frames += 1
        most = max(most, scene.asleep_in_level())
        try:
            scene.physics.restore(scene.physics.snapshot())
        except ValueError as exc:
            refused.append((f, str(exc)))
        found = _pairs_twice(scene.physics, [scene.floor, *scene.bodies])
        if found:
            twice.append((f, found[:3]))

    f = 0
    while f < FRAMES:
        snaps[f] = scene.physics.snapshot()
        scene.frame(f)
        check(f)
        f += 1
        if rollback and f % EVERY == 0 and f >= BACK:
            try:
                scene.physics.restore(snaps[f - BACK])
            except ValueError as exc:
                refused.append((f, f"rollback: {exc}"))
                continue
            for g in range(f - BACK, f):
                snaps[g] = scene.physics.snapshot()
                scene.frame(g)
                check(g)
    assert most >= (3 if sleep_after is not None else 0)  # bodies slept in it
    assert (refused, twice) == ([], []), (
        f"restore(snapshot()) refused after {len(refused)} of {frames} frames (first: "
        f"{refused[0] if refused else None}); a contact listed twice after {len(twice)} "
        f"(first: {twice[0] if twice else None})")


# ------------------------------------------------------------------ item 7: refusals

def _with_pairs(p, change):  # noqa: ANN001, ANN202
    """A copy of the events' pairs ``p`` (``_Pairs``) with every column copied and then
    given to ``change(columns)`` (a dict, edited in place)."""
    cols = {name: np.array(getattr(p, name), copy=True) for name in type(p).__slots__}
    change(cols)
    return type(p)(**cols)


def _with_sleeping(snap, change_pairs, change_stamps=None):  # noqa: ANN001, ANN202
    """``snap`` with its sleeping contacts' pairs changed by ``change_pairs`` (see
    `_with_pairs`) and their ``entered`` / ``entered_steps`` by ``change_stamps``."""
    s = snap.sleeping
    entered, steps = s.entered.copy(), s.entered_steps.copy()
    if change_stamps is not None:
        entered, steps = change_stamps(entered, steps)
    sleeping = type(s)(_with_pairs(s.pairs, change_pairs), entered, steps, s.clock, s.count)
    return dataclasses.replace(snap, sleeping=sleeping)


def _unknown_entity_asleep(snap):  # noqa: ANN001, ANN202
    """The last sleeping row names two entities that are not in the world (keys stay
    sorted: the new key is the largest)."""
    ghost = 10**6

    def change(c):  # noqa: ANN001, ANN202
        c["a"][-1], c["b"][-1] = ghost, ghost + 1
        c["keys"][-1] = (ghost << 32) | (ghost + 1)
    return _with_sleeping(snap, change)


def _sleeper_with_velocity(snap):  # noqa: ANN001, ANN202
    """The first sleeper given a velocity (asleep, island and position as they were)."""
    cols = {k: v.copy() for k, v in snap.columns.items()}
    i = int(np.flatnonzero(cols["asleep"] == 1)[0])
    cols["vel"][i] = (0.75, 0.0)
    return dataclasses.replace(snap, columns=cols)


def _pair_twice_asleep(snap):  # noqa: ANN001, ANN202
    """The first sleeping row twice (the copy right after it: keys stay sorted)."""
    def twice(a):  # noqa: ANN001, ANN202
        return np.insert(a, 1, a[0], axis=0)

    def change(c):  # noqa: ANN001, ANN202
        for name in list(c):
            c[name] = twice(c[name])
    return _with_sleeping(snap, change, lambda e, s: (twice(e), twice(s)))


def _pair_twice_awake(snap):  # noqa: ANN001, ANN202
    """The first of the last step's pairs twice."""
    def change(c):  # noqa: ANN001, ANN202
        for name in list(c):
            c[name] = np.insert(c[name], 1, c[name][0], axis=0)
    return dataclasses.replace(snap, pairs=_with_pairs(snap.pairs, change))


@pytest.mark.parametrize("make_bad", [
    pytest.param(_unknown_entity_asleep, id="sleeping_row_names_unknown_entities"),
    pytest.param(_sleeper_with_velocity, id="sleeper_with_velocity"),
    pytest.param(_pair_twice_asleep, id="same_sleeping_pair_twice"),
    pytest.param(_pair_twice_awake, id="same_step_pair_twice"),
])
def test_restore_refuses_an_impossible_sleep_state_and_changes_nothing(world, make_bad):
    """A snapshot of the scene with bodies asleep, edited (copies of its arrays) so that
    its sleep state cannot be: restore raises ValueError, and the world, 20 frames on from
    the snapshot, is as it was (positions, velocities, sleep flags, contacts)."""
    scene = Scene(0.5)
    start = _settle(scene)
    snap = scene.physics.snapshot()
    assert len(snap.sleeping.pairs) >= 2 and len(snap.pairs) >= 2
    bad = make_bad(snap)
    for f in range(start, start + 20):  # the world moves on from the snapshot
        scene.frame(f)
    before = scene.state(), scene.sleeping(), [
        (c.a, c.b, c.tile, c.steps) for c in scene.physics.contacts()]
    with pytest.raises(ValueError):
        scene.physics.restore(bad)
    after = scene.state(), scene.sleeping(), [
        (c.a, c.b, c.tile, c.steps) for c in scene.physics.contacts()]
    assert all(np.array_equal(x, y) for x, y in zip(before[0], after[0], strict=True))
    assert before[1:] == after[1:]
