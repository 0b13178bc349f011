"""Sleeping: piles at rest fall asleep, stay exactly put, and wake for what would move them.

Shows: a settled pile falls asleep as one island and keeps its positions bit for bit with
velocities of exactly 0 (nothing sleeps with ``sleep_after=None``, which gives the bits of a
world that never sleeps); keep-touching events and contacts go on for sleeping pairs; a
ball rolling above the rest speed, a rider of a moving platform and a slow body of infinite
mass never sleep; a rock dropped on a sleeping pile wakes it in the step it arrives and
does not pass through; the game's writes (Velocity, AccelerationMap, Position of the floor,
deletes) and ``physics.wake`` wake what they would move; snapshots carry the sleep state.
"""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest
from sleep_scenes import DT, body, pile, run, world
from sleep_scenes import positions as _positions
from sleep_scenes import settle as _settle

import ecsphys as ep


def _pile(name, n=60, sleep_after=0.5, seed=3):
    """`sleep_scenes.pile` without its walls: (physics, floor, balls)."""
    physics, floor, _, balls = pile(name, n, sleep_after, seed)
    return physics, floor, balls


def _velocities(balls):
    return np.array([esper.component_for_entity(b, ep.Velocity).xy for b in balls])


# ------------------------------------------------------------------ falling asleep

def test_a_settled_pile_sleeps_and_stays_exactly_put():
    physics, _, balls = _pile("sleep-pile")
    _settle(physics, balls)
    assert all(physics.is_sleeping(b) for b in balls)
    before = _positions(balls)
    steps = 0
    for _ in range(120):
        esper.process(DT)
        steps += 1
        assert _positions(balls).tobytes() == before.tobytes()
        assert not _velocities(balls).any()  # exactly (0, 0)
    assert physics.stats["sleeping"] == len(balls)


def test_nothing_sleeps_when_off_and_off_gives_the_bits_of_never():
    off, _, off_balls = _pile("sleep-off", sleep_after=None)
    never, _, never_balls = _pile("sleep-never", sleep_after=1e9)
    for _ in range(300):
        esper.switch_world("sleep-off")
        esper.process(DT)
        esper.switch_world("sleep-never")
        esper.process(DT)
    esper.switch_world("sleep-off")
    p_off = _positions(off_balls)
    assert off.stats["sleeping"] == 0 and not any(off.is_sleeping(b) for b in off_balls)
    esper.switch_world("sleep-never")
    assert never.stats["sleeping"] == 0
    assert _positions(never_balls).tobytes() == p_off.tobytes()


def test_sleeping_pairs_keep_touching_with_growing_durations():
    physics, floor, balls = _pile("sleep-events", n=7)
    _settle(physics, balls)
    heard = []
    physics.on_keep_touching(lambda c: heard.append((c.a, c.b, c.duration)), entity=floor)
    touching = physics.touching(floor)
    assert set(balls) <= set(touching)
    run(30)
    per_pair: dict = {}
    for a, b, d in heard:
        per_pair.setdefault((a, b), []).append(d)
    assert len(per_pair) >= len(balls)
    for durations in per_pair.values():
        assert len(durations) == 30
        assert all(d2 > d1 for d1, d2 in zip(durations, durations[1:], strict=False))
    assert physics.touching(floor) == touching
    assert len(physics.contacts()) >= len(balls)


def test_a_ball_rolling_above_the_rest_speed_never_sleeps():
    esper.switch_world("sleep-roll")
    esper.clear_database()
    physics = ep.Physics(fixed_dt=DT, sleep_after=0.5)
    body(0, -0.5, ep.Rect(400, 1), ep.STATIC)
    ball = body(-150, 0.5, ep.Circle(0.5), g=9.8, vx=0.8)  # above 2 * g * dt = 0.33
    run(240)
    assert not physics.is_sleeping(ball)
    assert esper.component_for_entity(ball, ep.Position).x > -150 + 0.8 * 3.5


def test_a_rider_of_a_moving_platform_and_a_slow_heavy_body_never_sleep():
    esper.switch_world("sleep-ride")
    esper.clear_database()
    physics = ep.Physics(fixed_dt=DT, sleep_after=0.5)
    platform = body(0, 0, ep.Rect(6, 1), vx=0.01, mass=math.inf)
    rider = body(0, 1.0, ep.Circle(0.5), g=9.8)
    door = body(20, 0, ep.Rect(1, 3), vy=0.001, mass=math.inf)
    run(240)
    assert not physics.is_sleeping(platform)
    assert not physics.is_sleeping(rider)
    assert not physics.is_sleeping(door)
    assert esper.component_for_entity(door, ep.Position).y > 0.003


def test_a_body_of_infinite_mass_at_rest_sleeps_alone():
    esper.switch_world("sleep-still")
    esper.clear_database()
    physics = ep.Physics(fixed_dt=DT, sleep_after=0.5)
    still = body(0, 0, ep.Rect(6, 1), mass=math.inf)
    run(40)
    assert physics.is_sleeping(still)
    assert physics.stats["sleeping"] == 1


# ------------------------------------------------------------------ waking

def test_a_rock_dropped_on_a_sleeping_pile_wakes_it_and_does_not_pass():
    physics, _, balls = _pile("sleep-rock")
    _settle(physics, balls)
    settled = _positions(balls)
    top = max(settled[:, 1])
    rock = body(0, top + 1.6, ep.Circle(1.0), vy=-30.0, g=9.8, mass=20.0)
    woke_at = None
    for step in range(60):
        esper.process(DT)
        rock_y = esper.component_for_entity(rock, ep.Position).y
        if woke_at is None and physics.stats["sleeping"] < len(balls):
            woke_at = step
            assert rock_y > top  # woken before the rock is inside the pile's top row
        assert rock_y > 0.5  # never through the pile to the floor
    assert woke_at is not None and woke_at <= 3
    assert np.abs(_positions(balls) - settled).max() > 0.05  # the pile gave way


def test_writing_a_sleepers_velocity_wakes_it_and_it_moves():
    physics, _, balls = _pile("sleep-write-vel", n=7)
    _settle(physics, balls)
    ball = balls[3]
    x0 = esper.component_for_entity(ball, ep.Position).x
    esper.component_for_entity(ball, ep.Velocity).xy = (0.0, 6.0)
    esper.process(DT)
    assert not physics.is_sleeping(ball)
    assert esper.component_for_entity(ball, ep.Position).y > 0.5 + 0.05
    assert esper.component_for_entity(ball, ep.Position).x == x0


def test_a_new_acceleration_wakes_a_sleeper():
    physics, _, balls = _pile("sleep-write-acc", n=7)
    _settle(physics, balls)
    ball = balls[0]
    y0 = esper.component_for_entity(ball, ep.Position).y
    esper.component_for_entity(ball, ep.AccelerationMap)["lift"] = (0.0, 40.0)
    run(10)
    assert not physics.is_sleeping(ball)
    assert esper.component_for_entity(ball, ep.Position).y > y0 + 0.1


def test_deleting_the_floor_wakes_the_pile_and_it_falls():
    physics, floor, balls = _pile("sleep-delete-floor", n=14)
    _settle(physics, balls)
    before = _positions(balls)
    esper.delete_entity(floor)
    run(20)
    assert physics.stats["sleeping"] == 0
    assert (_positions(balls)[:, 1] < before[:, 1] - 0.2).all()


def test_moving_the_floor_wakes_the_pile():
    physics, floor, balls = _pile("sleep-move-floor", n=14)
    _settle(physics, balls)
    before = _positions(balls)
    esper.component_for_entity(floor, ep.Position).y -= 2.0
    run(30)
    assert physics.stats["sleeping"] == 0
    assert (_positions(balls)[:, 1] < before[:, 1] - 1.0).all()


def test_deleting_a_ball_wakes_the_rest_of_its_island():
    physics, _, balls = _pile("sleep-delete-ball", n=21)
    _settle(physics, balls)
    low = balls[3]
    t = physics.table
    island = t.island[t.row_of[low]]
    mates = [b for b in balls if b != low and t.island[t.row_of[b]] == island]
    assert len(mates) >= 10
    others = [b for b in balls if b != low and b not in mates]
    esper.delete_entity(low)
    esper.process(DT)
    assert not any(physics.is_sleeping(b) for b in mates)
    assert all(physics.is_sleeping(b) for b in others)  # other islands sleep on
    run(30)
    assert _velocities(mates).any()


def test_wake_wakes_the_island_now_and_unknown_entities_are_refused():
    physics, _, balls = _pile("sleep-wake", n=14)
    _settle(physics, balls)
    physics.wake(balls[0])
    assert physics.stats["sleeping"] == 0
    assert not any(physics.is_sleeping(b) for b in balls)
    with pytest.raises(KeyError, match="987654"):
        physics.wake(987654)
    with pytest.raises(KeyError, match="987654"):
        physics.is_sleeping(987654)
    run(90)  # and it falls asleep again
    assert physics.stats["sleeping"] == len(balls)


def test_a_ball_dropped_beside_a_sleeping_pile_leaves_it_asleep():
    physics, _, balls = _pile("sleep-beside", n=7)
    _settle(physics, balls)
    far = body(30, 5, ep.Circle(0.5), g=9.8)
    body(30, -0.5, ep.Rect(4, 1), ep.STATIC)
    run(75)
    assert physics.stats["sleeping"] >= len(balls)
    assert esper.component_for_entity(far, ep.Position).y < 1.0


# ------------------------------------------------------------------ snapshots and arguments

def test_a_snapshot_replays_falling_asleep_and_waking_bit_for_bit():
    physics, _, balls = _pile("sleep-snap", n=21)
    run(60)
    snap = physics.snapshot()

    def play():
        trace = []
        for step in range(400):
            if step == 300:
                physics.wake(balls[5])
            esper.process(DT)
            trace.append((_positions(balls).tobytes(), physics.stats["sleeping"]))
        return trace

    first = play()
    assert any(s == len(balls) for _, s in first)  # it fell asleep on the way
    physics.restore(snap)
    assert play() == first


def test_a_snapshot_taken_after_a_static_change_replays_its_wake():
    # the floor made thinner between steps wakes the pile in the next step; a snapshot taken
    # in between carries that wake to come (before: restore dropped it, and the replayed
    # pile slept on above the thinner floor)
    physics, floor, balls = _pile("sleep-snap-static", n=14)
    _settle(physics, balls)
    esper.component_for_entity(floor, ep.Geometry).shape = ep.Rect(12, 0.4)
    snap = physics.snapshot()
    assert snap.wake_statics == frozenset({floor})

    def play():
        trace = []
        for _ in range(60):
            esper.process(DT)
            trace.append((_positions(balls).tobytes(), physics.stats["sleeping"]))
        return trace

    first = play()
    assert first[0][1] == 0  # the first step woke the pile
    physics.restore(snap)
    assert play() == first


def test_a_snapshots_wake_statics_are_checked():
    import dataclasses

    physics, floor, balls = _pile("sleep-snap-static-check", n=7)
    run(5)
    snap = physics.snapshot()
    with pytest.raises(ValueError, match="wake_statics"):  # not a STATIC body
        physics.restore(dataclasses.replace(snap, wake_statics=frozenset({balls[0]})))
    with pytest.raises(ValueError, match="wake_statics"):  # not in the snapshot
        physics.restore(dataclasses.replace(snap, wake_statics=frozenset({10**9})))
    with pytest.raises(TypeError, match="wake_statics"):
        physics.restore(dataclasses.replace(snap, wake_statics={floor}))
    assert not physics.table.wake_requests  # refused before anything changed
    physics.restore(dataclasses.replace(snap, wake_statics=frozenset({floor})))
    assert physics.table.wake_requests == {floor}


def test_sleep_arguments_are_checked():
    esper.switch_world("sleep-args")
    esper.clear_database()
    with pytest.raises(ValueError, match="sleep_after"):
        ep.Physics(sleep_after=-1.0)
    with pytest.raises(ValueError, match="sleep_after"):
        ep.Physics(sleep_after=math.nan)
    with pytest.raises(TypeError, match="sleep_after"):
        ep.Physics(sleep_after="soon")
    with pytest.raises(ValueError, match="sleep_speed"):
        ep.Physics(sleep_speed=-0.1)
    with pytest.raises(ValueError, match="sleep_speed"):
        ep.Physics(sleep_speed=math.inf)
    assert not [p for p in esper._processors if isinstance(p, ep.physics.PhysicsProcessor)]


# ------------------------------------------------------------------ the quiet step

def test_a_world_asleep_steps_quietly_and_its_pairs_durations_go_on():
    physics, floor, balls = _pile("sleep-quiet", n=14)
    _settle(physics, balls)
    run(2)
    first = {(c.a, c.b): (c.duration, c.steps) for c in physics.contacts()}
    quiet_before = physics._step.quiet_steps
    run(60)  # nobody listens: the quiet steps count only
    assert physics._step.quiet_steps == quiet_before + 60
    later = {(c.a, c.b): (c.duration, c.steps) for c in physics.contacts()}
    assert later.keys() == first.keys()
    for key, (duration, steps) in later.items():
        assert steps == first[key][1] + 60
        assert duration == pytest.approx(first[key][0] + 60 * DT, abs=1e-9)
    assert all(c.speed == 0.0 and c.toi == math.inf for c in physics.contact_set
               ) if hasattr(physics.contact_set, "__iter__") else True
    assert not physics.contact_set.speed.any()
    heard = []
    physics.on_keep_touching(lambda c: heard.append((c.a, c.b, c.duration, c.steps)))
    esper.process(DT)  # a listener hears the pairs carried on
    assert {(a, b) for a, b, _, _ in heard} == set(later)
    for a, b, duration, steps in heard:
        assert steps == later[(a, b)][1] + 1
        assert duration == pytest.approx(later[(a, b)][0] + DT, abs=1e-9)


def test_a_quiet_world_ends_quiet_for_any_change_and_replays_from_a_snapshot():
    physics, floor, balls = _pile("sleep-quiet-snap", n=14)
    _settle(physics, balls)
    run(5)
    snap = physics.snapshot()

    def play():
        out = []
        for step in range(90):
            if step == 30:
                esper.component_for_entity(balls[-1], ep.Velocity).y = 3.0
            esper.process(DT)
            out.append((_positions(balls).tobytes(), physics.stats["sleeping"],
                        tuple((c.a, c.b, c.duration, c.steps) for c in physics.contacts())))
        return out

    quiet_before = physics._step.quiet_steps
    first = play()
    assert physics._step.quiet_steps - quiet_before >= 29  # quiet until the write
    assert first[30][1] < len(balls)  # the write woke it in the next step
    assert first[30][0] != first[29][0]
    physics.restore(snap)
    assert play() == first


def test_the_step_after_the_last_body_falls_asleep_is_quiet_and_the_sleeper_is_found():
    # the step in which the last awake body falls asleep leaves the broadphase its new static
    # box to index; that waits for the next step that runs, so the step after is quiet, and
    # the queries and a later wake find the sleeper where it is, once
    physics = world("sleep-quiet-after")
    body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    balls = [body(x, 0.5, ep.Circle(0.5), g=9.8) for x in (-10.0, 0.0, 10.0)]
    _settle(physics, balls)
    run(5)
    late = body(5.0, 0.5, ep.Circle(0.5), g=9.8)
    physics.sync()
    steps = 0
    while not physics.is_sleeping(late):
        run(1)
        steps += 1
        assert steps < 200
    quiet = physics._step.quiet_steps
    run(1)
    assert physics._step.quiet_steps == quiet + 1
    assert physics.query_point(5.0, 0.5) == [late]
    assert physics.query_region(ep.Rect(30, 1), (0.0, 1.0)) == sorted([*balls, late])
    assert physics.touching(late) == [1]  # the floor (entity 1), in the sleeping store
    physics.wake(balls[0])  # a step that runs: the static boxes are indexed now
    run(1)
    assert physics.query_point(5.0, 0.5) == [late]
    assert physics.is_sleeping(late)
    rock = body(5.0, 3.0, ep.Circle(0.5), vy=-8.0)
    woke, lowest = False, math.inf
    for _ in range(20):  # the rock finds the sleeper in the static index and wakes it
        run(1)
        woke = woke or not physics.is_sleeping(late)
        lowest = min(lowest, esper.component_for_entity(rock, ep.Position).y)
    assert woke
    assert lowest >= 1.5 - 1e-6  # on the ball's top, not through it


def test_a_world_without_bodies_steps_quietly_until_one_comes():
    physics = world("sleep-quiet-empty")
    run(3)
    quiet = physics._step.quiet_steps
    run(10)
    assert physics._step.quiet_steps == quiet + 10 and physics.steps == 13
    ball = body(0, 5, ep.Circle(0.5), g=9.8)  # the next step runs: the ball falls
    run(10)
    assert physics._step.quiet_steps == quiet + 10
    assert esper.component_for_entity(ball, ep.Position).y < 5.0
    esper.delete_entity(ball, immediate=True)
    run(2)  # the step that lets it go, then quiet again
    before = physics._step.quiet_steps
    run(5)
    assert physics._step.quiet_steps == before + 5


def test_writes_of_what_a_sleeper_already_has_do_not_wake_it():
    physics, floor, balls = _pile("sleep-equal-writes", n=14)
    _settle(physics, balls)
    run(2)
    ball = balls[4]
    pos = esper.component_for_entity(ball, ep.Position)
    esper.component_for_entity(ball, ep.Velocity).xy = (0.0, 0.0)
    esper.component_for_entity(ball, ep.AccelerationMap)["gravity"] = (0.0, -9.8)
    pos.xy = pos.xy
    floor_pos = esper.component_for_entity(floor, ep.Position)
    floor_pos.y = floor_pos.y
    before = _positions(balls)
    quiet = physics._step.quiet_steps
    run(5)  # (one full step re-indexes the floor: nothing moves in it)
    assert physics.stats["sleeping"] == len(balls)
    assert _positions(balls).tobytes() == before.tobytes()
    assert physics._step.quiet_steps == quiet + 4
    esper.component_for_entity(ball, ep.AccelerationMap)["wind"] = (0.0, 0.0)  # same total
    pos.x = pos.x
    run(1)
    assert physics.is_sleeping(ball)
    esper.component_for_entity(ball, ep.AccelerationMap)["wind"] = (0.5, 0.0)  # a new total
    run(1)
    assert not physics.is_sleeping(ball)


# ------------------------------------------------------------------ the sleeping contacts

def test_a_sleeping_piles_contacts_leave_the_steps_rows_and_are_read_as_before():
    physics, floor, balls = _pile("sleep-store", n=21)
    _settle(physics, balls)
    awake_pairs = {(c.a, c.b) for c in physics.contacts()}
    run(3)
    # the step's own rows hold none of the sleeping pairs: the sleeping contacts do
    assert len(physics._narrowphase.rows) == 0
    assert len(physics._events.sleeping) == len(awake_pairs)
    assert physics.stats["contacts"] == len(awake_pairs)
    assert {(c.a, c.b) for c in physics.contacts()} == awake_pairs
    cs = physics.contact_set
    assert set(zip(cs.a.tolist(), cs.b.tolist(), strict=True)) == awake_pairs
    assert np.isinf(cs.toi).all() and not cs.speed.any()
    assert physics.touching(floor) == sorted(
        {b if a == floor else a for a, b in awake_pairs if floor in (a, b)})
    # a ball woken: its pairs come back into the step, found again with their history
    before = {(c.a, c.b): c.steps for c in physics.contacts_of(balls[3])}
    physics.wake(balls[3])
    esper.process(DT)
    after = {(c.a, c.b): c.steps for c in physics.contacts_of(balls[3])}
    assert after.keys() == before.keys()
    assert all(after[k] == before[k] + 1 for k in before)  # kept, not started again
    assert len(physics._narrowphase.rows) >= len(before)


def test_a_snapshots_sleeping_contacts_are_checked_and_an_older_snapshot_restores():
    import dataclasses

    from ecsphys.systems.events import SleepingState

    physics, floor, balls = _pile("sleep-store-snap", n=14)
    _settle(physics, balls)
    run(3)
    snap = physics.snapshot()
    s = snap.sleeping
    assert isinstance(s, SleepingState) and len(s.pairs) == len(physics.contacts())
    run(4)
    now = [(c.a, c.b, c.duration, c.steps) for c in physics.contacts()]

    def bad(**change):
        return dataclasses.replace(snap, sleeping=SleepingState(**{
            "pairs": s.pairs, "entered": s.entered, "entered_steps": s.entered_steps,
            "clock": s.clock, "count": s.count, **change}))

    with pytest.raises(TypeError, match="sleeping"):
        physics.restore(dataclasses.replace(snap, sleeping=(1, 2)))
    with pytest.raises(ValueError, match="sleeping.entered"):
        physics.restore(bad(entered=s.entered + s.clock + 1.0))
    with pytest.raises(ValueError, match="sleeping.entered_steps"):
        physics.restore(bad(entered_steps=s.entered_steps - s.count - 1))
    with pytest.raises(ValueError, match="sleeping.clock"):
        physics.restore(bad(clock=math.nan))
    with pytest.raises(ValueError, match="sleeping.pairs.keys"):
        physics.restore(dataclasses.replace(snap, pairs=s.pairs))  # in both
    with pytest.raises(TypeError, match="sleeping.entered"):
        physics.restore(bad(entered=s.entered.astype(np.float32)))
    # refused before anything changed
    assert [(c.a, c.b, c.duration, c.steps) for c in physics.contacts()] == now
    # a snapshot from before the sleeping contacts were kept apart: its pairs hold them all
    physics.restore(snap)
    run(4)
    want = [(c.a, c.b, c.steps) for c in physics.contacts()]
    durations = [c.duration for c in physics.contacts()]
    physics.restore(snap)
    every = physics._events._pairs
    physics.restore(dataclasses.replace(snap, pairs=every, sleeping=None))
    run(4)
    assert [(c.a, c.b, c.steps) for c in physics.contacts()] == want
    assert [c.duration for c in physics.contacts()] == pytest.approx(durations, abs=1e-9)
    assert len(physics._narrowphase.rows) == 0  # they went to the sleeping contacts


def test_the_polls_of_one_body_read_the_sleeping_pairs_like_contacts_does():
    # touching / contacts_of / is_touching read the sleeping pairs from their sides (no
    # duration worked out for the others): the same answers as contacts(), asleep, partly
    # woken and awake
    physics, floor, balls = _pile("sleep-store-polls", n=21)
    _settle(physics, balls)
    run(3)

    def check():
        # the polls first: after a wake, before anything reads the sleeping store whole
        # (its woken rows are still marked gone where they lie)
        polls = {e: (physics.touching(e), [(c.a, c.b, c.duration, c.steps, c.normal, c.point)
                                           for c in physics.contacts_of(e)])
                 for e in [floor, *balls]}
        every = physics.contacts()
        pairs = {(c.a, c.b) for c in every}
        for e in [floor, *balls]:
            mine = [c for c in every if e in (c.a, c.b)]
            assert polls[e][0] == sorted({c.b if c.a == e else c.a for c in mine})
            assert polls[e][1] == [
                (c.a, c.b, c.duration, c.steps, c.normal, c.point) for c in mine]
        for a, b in pairs:
            assert physics._events.is_touching(a, b) and physics._events.is_touching(b, a)
        assert not physics._events.is_touching(balls[0], 10**6)
        return len(pairs)

    assert len(physics._events.sleeping) and check() > 20
    physics.wake(balls[4])  # between steps: its pairs are back in the last step's rows
    assert check() > 20
    run(1)
    assert check() > 20


def test_keep_touching_for_one_entity_reads_only_its_sleeping_pairs_and_misses_none():
    physics, floor, balls = _pile("sleep-store-lava", n=21)
    _settle(physics, balls)
    run(3)
    lava = balls[7]
    heard = []
    physics.on_keep_touching(lambda c: heard.append((c.a, c.b, c.duration, c.steps)),
                             entity=lava)
    for _ in range(5):
        heard.clear()
        esper.process(DT)
        want = [(c.a, c.b, c.duration, c.steps) for c in physics.contacts_of(lava)]
        assert heard == want and len(want) >= 2  # every one of its pairs, as contacts read
    assert physics.is_sleeping(lava)
