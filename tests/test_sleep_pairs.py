"""Sleepers leave the step's pairs: a sleeper is a static box of the broadphase, pairs only
with awake bodies, and its contacts with statics and other sleepers are carried on as they
were while the rest of the world steps (keep-touching, ``contacts()``, ``ground``)."""

from __future__ import annotations

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys.systems.contact_rows import ContactRows, diff, merge, pick
from ecsphys.systems.sleeping_contacts import SleepingContacts
from tests.sleep_scenes import DT, body, pile, positions, run, settle, world


def _awake_elsewhere():
    """A ball bouncing for ever on a floor of its own, far from everything else: the world
    is never all asleep, so no step is a quiet one."""
    floor = body(-500, -0.5, ep.Rect(4, 1), ep.STATIC)
    ball = body(-500, 0.5, ep.Circle(0.5), vx=0.0, vy=3.0, g=9.8, restitution=1.0)
    return floor, ball


def _contact_view(physics, entities):
    """The carried fields of the contacts among ``entities``: pair, normal, depth, point."""
    keep = set(entities)
    return sorted((c.a, c.b, c.normal, c.depth, c.point) for c in physics.contacts()
                  if c.a in keep and c.b in keep)


def test_sleepers_make_no_pairs_and_keep_their_contacts_while_another_body_moves():
    physics, floor, walls, balls = pile("pairs-out", 30)
    settle(physics, balls)
    run(2)  # (the step after falling asleep indexes the sleepers as static boxes)
    before = _contact_view(physics, [floor, *walls, *balls])
    assert len(before) >= 30
    p0 = positions(balls)
    _, bouncer = _awake_elsewhere()
    run(2)
    for _ in range(60):
        y0 = positions([bouncer])[0, 1]
        esper.process(DT)
        assert positions([bouncer])[0, 1] != y0  # the world steps: nothing is quiet
        # the bouncer's own pair with its floor at most: no pair has a sleeper in it
        assert physics.stats["box_pairs"] <= 1
        assert physics.stats["sleeping"] == 30
    assert positions(balls).tobytes() == p0.tobytes()
    assert _contact_view(physics, [floor, *walls, *balls]) == before
    for c in physics.contacts():
        if c.a in balls or c.b in balls:
            assert c.speed == 0.0  # met in no impact: resting
    cs = physics.contact_set
    assert np.all(cs.toi[np.isin(cs.a, balls) | np.isin(cs.b, balls)] == np.inf)


def test_a_sleeper_in_a_static_sensor_keeps_touching_it_every_step():
    physics = world("pairs-lava")
    floor = body(0, -0.5, ep.Rect(6, 1), ep.STATIC)
    lava = body(0, 0.5, ep.Rect(6, 1), ep.STATIC, sensor=True)
    ball = body(0, 0.55, ep.Circle(0.5), g=9.8)
    _awake_elsewhere()
    settle(physics, [ball])
    heard = []
    physics.on_keep_touching(lambda c: heard.append((c.a, c.b, c.duration, c.steps)), entity=lava)
    run(40)
    assert physics.is_sleeping(ball)
    assert [h[:2] for h in heard] == [tuple(sorted((ball, lava)))] * 40
    durations = [h[2] for h in heard]
    steps = [h[3] for h in heard]
    assert all(d2 > d1 for d1, d2 in zip(durations, durations[1:], strict=False))
    assert steps == list(range(steps[0], steps[0] + 40))
    assert physics.touching(ball) == sorted([floor, lava])
    assert physics.ground(ball).on_floor and physics.ground(ball).floor_entity == floor


def test_deleting_a_sleeper_ends_its_carried_contacts():
    physics = world("pairs-delete")
    floor = body(0, -0.5, ep.Rect(6, 1), ep.STATIC)
    ball = body(0, 0.55, ep.Circle(0.5), g=9.8)
    _awake_elsewhere()
    settle(physics, [ball])
    run(3)
    separated = []
    physics.on_separate(lambda c: separated.append((c.a, c.b)), entity=floor)
    assert physics.touching(floor) == [ball]
    esper.delete_entity(ball)
    run(1)
    assert separated == [tuple(sorted((ball, floor)))]
    assert physics.touching(floor) == []
    run(5)  # and it stays gone (not carried on)
    assert physics.touching(floor) == [] and separated == [tuple(sorted((ball, floor)))]


def test_waking_a_sleeper_finds_its_pairs_again_without_a_touch_event():
    physics, floor, walls, balls = pile("pairs-wake", 14)
    settle(physics, balls)
    _awake_elsewhere()
    run(3)
    events = []
    physics.on_touch(lambda c: events.append(("touch", c.a, c.b)), entity=floor)
    physics.on_separate(lambda c: events.append(("separate", c.a, c.b)), entity=floor)
    on_floor = physics.touching(floor)
    physics.wake(balls[0])
    run(1)
    assert not any(physics.is_sleeping(b) for b in balls)  # one island: all woke
    assert physics.stats["box_pairs"] > 14  # their pairs are found again
    assert events == []  # the resting contacts went on: nothing began or ended
    assert physics.touching(floor) == on_floor


def test_a_body_that_comes_to_rest_against_a_sleeping_stack_sleeps_in_its_island():
    physics = world("pairs-join")
    body(0, -0.5, ep.Rect(10, 1), ep.STATIC)
    low = body(0, 0.5, ep.Rect(1, 1), g=9.8)
    high = body(0, 1.5, ep.Rect(1, 1), g=9.8)
    _awake_elsewhere()
    settle(physics, [low, high])
    t = physics.table
    island = int(t.island[t.row(low)])
    assert int(t.island[t.row(high)]) == island
    # a box without gravity creeping slower than the rest speed into the top box's side
    creeper = body(0.5 + 0.5 + 0.02, 1.6, ep.Rect(1, 1), vx=-0.03)
    for _ in range(int(3 / DT)):
        esper.process(DT)
        if physics.is_sleeping(creeper):
            break
    assert physics.is_sleeping(creeper)
    assert physics.touching(creeper) == [high]
    assert physics.is_sleeping(low) and physics.is_sleeping(high)  # it woke nothing
    assert int(t.island[t.row(creeper)]) == island  # it joined their island
    physics.wake(creeper)
    assert not physics.is_sleeping(low) and not physics.is_sleeping(high)


def test_a_snapshot_of_a_world_part_asleep_replays_bit_for_bit():
    physics, floor, walls, balls = pile("pairs-snap", 14)
    settle(physics, balls)
    _, bouncer = _awake_elsewhere()
    run(5)
    snap = physics.snapshot()
    heard: list = []
    physics.on_keep_touching(lambda c: heard.append((c.a, c.b, c.duration, c.steps)))

    def replay():
        heard.clear()
        rock = None
        for i in range(90):
            if i == 20:
                rock = body(0.0, 20.0, ep.Circle(1.0), g=9.8, mass=20.0)
            esper.process(DT)
        everyone = [*balls, bouncer] + ([rock] if rock is not None else [])
        out = (positions(everyone).tobytes(), list(heard), physics.stats["sleeping"])
        esper.delete_entity(rock)
        esper.process(0.0)  # (the deletion is seen; no step)
        return out

    first = replay()
    physics.restore(snap)
    second = replay()
    assert first[0] == second[0]
    assert first[1] == second[1]
    assert first[2] == second[2]
    assert len(first[1]) > 90  # keep-touching was heard, sleeping pairs included


def _rows(keys, index, rng=None, history=False, toi=None):
    """Contact rows of pair keys ``keys`` (sorted) with pair indices ``index``."""
    keys = np.asarray(keys, dtype=np.int64)
    m = len(keys)
    rng = rng or np.random.default_rng(0)
    cols = {"keys": keys, "a": keys >> 32, "b": keys & 0xFFFFFFFF,
            "layer_a": rng.integers(1, 4, m), "layer_b": rng.integers(1, 4, m),
            "tile": np.full(m, -1, np.int64), "tile_kind": np.zeros(m, np.int64),
            "index": np.asarray(index, dtype=np.int64), "normal": rng.uniform(-1, 1, (m, 2)),
            "point": rng.uniform(-9, 9, (m, 2)), "depth": rng.uniform(0, 0.1, m),
            "toi": np.ones(m) if toi is None else np.asarray(toi, dtype=float),
            "speed": np.ones(m), "sensor": np.zeros(m, bool)}
    if history:
        cols.update(duration=rng.uniform(0, 5, m), steps=rng.integers(0, 99, m),
                    history_layer_a=rng.integers(1, 4, m),
                    history_layer_b=rng.integers(1, 4, m))
    return ContactRows.from_columns(m, cols)


def _table(rows):
    """Every column of ``rows`` as lists, by name (history ones when it has them)."""
    names = ["keys", "a", "b", "layer_a", "layer_b", "tile", "tile_kind", "index", "normal",
             "point", "depth", "toi", "speed", "sensor"]
    if rows.has_history:
        names += ["duration", "steps", "history_layer_a", "history_layer_b", "kept"]
    return {name: rows.array(name).tolist() for name in names}


def test_merge_and_pick_keep_every_column_of_every_row_in_key_order():
    rng = np.random.default_rng(7)
    for _ in range(200):
        keys = np.unique(rng.integers(1, 90, int(rng.integers(0, 40)))) << 32
        side = rng.integers(0, 2, len(keys)).astype(bool)  # which rows go to b
        both = _rows(keys, rng.integers(-2, 9, len(keys)), rng, history=True)
        a = pick(both, side, False)
        b = pick(both, side, True)
        assert len(a) + len(b) == len(both)
        assert a.array("keys").tolist() == keys[~side].tolist()
        assert _table(merge(a, b)) == _table(both)  # every column, in key order
        assert _table(merge(b, a)) == _table(both)
        assert merge(a, b).ndormant == int((both.array("index") == -1).sum())
    with pytest.raises(ValueError, match="not sorted"):
        merge(_rows([5 << 32, 2 << 32], [0, 1]), _rows([], []))
    with pytest.raises(ValueError, match="one flag per row"):
        pick(_rows([5 << 32], [0]), np.zeros(2, bool))


def test_the_diff_keeps_the_previous_dormant_rows_present_without_a_row_now():
    # a row of the step before whose pair fell asleep goes on in the sleeping contacts: it is
    # present (no separate); every other row is kept only when the pair is found again
    rng = np.random.default_rng(11)
    for _ in range(200):
        pk = np.unique(rng.integers(1, 80, int(rng.integers(0, 40)))) << 32
        pi = rng.choice([-1, -1, -2, 0, 3], len(pk))
        ck = np.unique(np.concatenate((
            rng.integers(1, 80, int(rng.integers(0, 20))) << 32, pk[pi != -1][:3])))
        ck = np.setdiff1d(ck, pk[pi == -1])  # (a sleeping pair is in no step's pairs)
        prev = _rows(pk, pi, rng, history=True)
        cur = _rows(ck, np.arange(len(ck)), rng)
        diff(prev, cur, None, 0.125)
        old = dict(zip(prev.array("keys").tolist(), zip(
            prev.array("duration").tolist(), prev.array("steps").tolist(), strict=True),
            strict=True))
        for q, k in enumerate(cur.array("keys").tolist()):
            if k in old:
                assert cur.array("kept")[q] and cur.array("steps")[q] == old[k][1] + 1
                assert cur.array("duration")[q] == old[k][0] + 0.125
            else:
                assert not cur.array("kept")[q] and cur.array("steps")[q] == 0
        now = set(ck.tolist())
        assert cur.array("present").tolist() == [
            k in now or i == -1 for k, i in zip(pk.tolist(), pi.tolist(), strict=True)]


def test_sleeping_contacts_count_durations_on_and_give_rows_back_when_woken():
    rng = np.random.default_rng(5)
    keys = np.arange(1, 9, dtype=np.int64) << 32
    prev = _rows(keys, [-1, 0, -1, -1, 2, -1, -2, -1], rng, history=True)
    store = SleepingContacts()
    store.tick(0.5)
    assert store.absorb(prev) == 5 and len(store) == 5
    dormant = np.flatnonzero(prev.array("index") == -1)
    d0 = prev.array("duration")[dormant]
    s0 = prev.array("steps")[dormant]
    for _ in range(7):
        store.tick(0.25)
    now = store.now()
    assert now is store.now()  # made once per state
    assert now.array("keys").tolist() == keys[dormant].tolist()
    assert now.array("duration").tolist() == (d0 + (2.25 - 0.5)).tolist()
    assert now.array("steps").tolist() == (s0 + 7).tolist()
    assert set(now.array("index").tolist()) == {-1} and now.ndormant == 5
    assert np.isinf(now.array("toi")).all() and not now.array("speed").any()
    assert now.array("kept").all()
    for name in ("normal", "point", "depth", "layer_a", "history_layer_b"):
        assert now.array(name).tolist() == prev.array(name)[dormant].tolist()
    # two wake; they come back brought up to now, WOKEN; the rest stay and go on counting
    out = store.release(np.array([False, True, False, True, False]))
    assert out.array("keys").tolist() == keys[dormant[[1, 3]]].tolist()
    assert out.array("index").tolist() == [-2, -2] and out.ndormant == 0
    assert out.array("duration").tolist() == (d0[[1, 3]] + 1.75).tolist()
    assert len(store) == 3 and store.release(np.zeros(3, bool)) is None
    store.tick(0.25)
    assert store.now().array("steps").tolist() == (s0[[0, 2, 4]] + 8).tolist()
    rows, clock, count = store.state()
    again = SleepingContacts()
    again.restore(rows, clock, count)
    assert _table(again.now()) == _table(store.now())
    with pytest.raises(ValueError, match="one flag per row"):
        store.release(np.zeros(5, bool))
    # most of them wake: every row leaves without a copy, the one still asleep marked
    # DORMANT, and the next diff's absorb brings it back with its durations counted on
    out = store.release(np.array([True, False, True]))
    assert len(store) == 0
    assert out.array("keys").tolist() == keys[dormant[[0, 2, 4]]].tolist()
    assert out.array("index").tolist() == [-2, -1, -2] and out.ndormant == 1
    assert out.array("steps").tolist() == (s0[[0, 2, 4]] + 8).tolist()
    assert store.absorb(out) == 1
    store.tick(0.25)
    assert store.now().array("keys").tolist() == [int(keys[dormant[2]])]
    assert store.now().array("steps").tolist() == [int(s0[2]) + 9]
    assert store.now().array("duration")[0] == pytest.approx(d0[2] + 2.25, abs=1e-12)


@pytest.mark.parametrize("name", ["grid", "sweep", "quadtree", "brute"])
def test_every_broadphase_keeps_sleepers_out_of_the_pairs(name):
    esper.switch_world(f"pairs-bp-{name}")
    esper.clear_database()
    physics = ep.Physics(fixed_dt=DT, broadphase=name)
    body(0, -0.5, ep.Rect(12, 1), ep.STATIC)
    balls = [body(-2 + 1.0 * i, 0.55, ep.Circle(0.5), g=9.8) for i in range(5)]
    settle(physics, balls)
    _, bouncer = _awake_elsewhere()
    run(3)
    assert physics.stats["box_pairs"] <= 1
    assert all(physics.is_sleeping(b) for b in balls)
    rock = body(0.0, 3.0, ep.Circle(0.5), g=9.8, vy=-5.0)  # lands on the middle ball
    for _ in range(30):
        esper.process(DT)
    assert not physics.is_sleeping(balls[2])
    ys = positions([rock, balls[2]])[:, 1]
    assert ys[0] > ys[1] + 0.9  # it did not pass through the sleeper it hit


def test_queries_find_sleepers_where_they_are_asleep_indexed_and_woken():
    physics, floor, walls, balls = pile("pairs-query", 14)
    settle(physics, balls)  # the step they fell asleep in: not static boxes yet
    q = physics.queries
    p = positions(balls)
    top = balls[int(np.argmax(p[:, 1]))]
    tx, ty = p[int(np.argmax(p[:, 1]))]

    def found_all():
        for b, (x, y) in zip(balls, p, strict=True):
            assert b in q.query_point(float(x), float(y))
        hit = q.raycast((float(tx), ty + 5.0), (float(tx), ty - 0.2))
        assert hit is not None and hit.entity == top
        assert abs(hit.point[1] - (ty + 0.5)) < 1e-6

    found_all()
    _awake_elsewhere()
    run(3)  # indexed as static boxes now
    assert all(physics.is_sleeping(b) for b in balls)
    found_all()
    physics.wake(balls[0])  # awake again, before any step
    assert not physics.is_sleeping(top)
    found_all()
    run(1)
    p = positions(balls)
    tx, ty = p[int(np.argmax(p[:, 1]))]
    top = balls[int(np.argmax(p[:, 1]))]
    found_all()


def _busy_beside_sleepers(name, live_rows):
    """Five stacks of three balls (five islands) asleep on a long floor, then things that
    meet them while the rest sleeps: a box creeping into the last stack's top ball (which a
    deletion moved to another row), a ball rolling into the first stack, a body made
    overlapping the middle stack's top ball, a crate on a platform that carries it past the
    last stack, a rock dropped on the fourth. Returns per step the positions and velocities
    of every body, and the sleeper counts."""
    physics = world(name)
    victim = body(-300.0, 0.0, ep.Circle(0.5), vx=1.0)  # row 0, awake
    body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    balls = [body(x, 0.5 + 1.0 * k, ep.Circle(0.5), g=9.8)
             for x in (-8.0, -4.0, 0.0, 4.0, 8.0) for k in range(3)]
    settle(physics, balls)
    physics._response.live_rows = live_rows
    esper.delete_entity(victim)  # the last row, the last stack's top ball, takes row 0
    creeper = body(9.02, 2.5, ep.Rect(1.0, 0.6), vx=-0.03)  # into that ball, slowly
    _, bouncer = _awake_elsewhere()
    roller = body(-11.0, 0.5, ep.Circle(0.5), vx=2.0, g=9.8)
    platform = body(6.0, 5.0, ep.Rect(3, 0.5), vx=0.5, mass=float("inf"))
    crate = body(6.0, 5.5, ep.Rect(0.5, 0.5), g=9.8)
    everyone = [*balls, bouncer, roller, platform, crate, creeper]
    out = []
    for i in range(150):
        if i == 30:  # made half inside the middle stack's top ball: pushed out of a sleeper
            everyone.append(body(0.45, 2.8, ep.Circle(0.4), g=9.8))
        if i == 110:
            everyone.append(body(4.0, 12.0, ep.Circle(1.0), g=9.8, mass=20.0))
        esper.process(DT)
        vel = [esper.component_for_entity(b, ep.Velocity).xy for b in everyone]
        out.append((positions(everyone).tobytes(), np.array(vel).tobytes(),
                    physics.stats["sleeping"]))
    return out


def test_the_response_sets_up_the_awake_rows_and_the_sleepers_it_meets_with_the_same_bits():
    # while something sleeps the response sets up only the awake rows and the sleepers the
    # step meets; setting up every row (``live_rows`` off) gives the same bits every step
    live = _busy_beside_sleepers("pairs-live", True)
    every = _busy_beside_sleepers("pairs-every", False)
    assert [s for _, _, s in live] == [s for _, _, s in every]
    assert min(s for _, _, s in live) >= 3  # stacks slept meanwhile
    assert max(s for _, _, s in live) - min(s for _, _, s in live) >= 6  # and woke
    for step, (a, b) in enumerate(zip(live, every, strict=True)):
        assert a[0] == b[0] and a[1] == b[1], step


def test_a_sleeper_moved_to_another_row_is_met_where_it_is_not_where_that_row_was():
    # the response keeps its per-row state between steps and sets up only the rows it works
    # on: a sleeper that a deletion moved into the row of the deleted body must be set up
    # again when a body's pair holds it, or that body meets the deleted one's ghost
    physics = world("pairs-ghost")
    victim = body(3.0, 3.0, ep.Circle(0.5), vy=0.2)  # row 0, awake (it never rests)
    body(0.0, -0.5, ep.Rect(10, 1), ep.STATIC)
    sleeper = body(0.0, 0.5, ep.Circle(0.5), g=9.8)  # the last row
    settle(physics, [sleeper])
    t = physics.table
    esper.component_for_entity(victim, ep.Position).xy = (1.65, 2.15)
    esper.process(DT)  # the victim's row set up there
    assert t.row(victim) == 0 and physics.is_sleeping(sleeper)
    esper.delete_entity(victim)  # the sleeper takes row 0
    # a ball whose box meets the sleeper's (a pair) flying through where the victim was
    ball = body(0.9, 1.4, ep.Circle(0.5), vx=8.5, vy=8.5)
    esper.process(DT)
    assert t.row(sleeper) == 0 and physics.is_sleeping(sleeper)
    assert esper.component_for_entity(ball, ep.Position).xy == pytest.approx(
        (0.9 + 8.5 * DT, 1.4 + 8.5 * DT))  # nothing in its way (before: stopped at 0.94)


def test_still_pairs_by_id_table_and_by_binary_search_agree():
    from types import SimpleNamespace

    from ecsphys.systems.sleep import _still_sparse, still_pairs

    rng = np.random.default_rng(3)
    for _ in range(100):
        n = int(rng.integers(1, 40))
        ent = rng.choice(np.arange(1, 120), n, replace=False).astype(np.int64)
        asleep = rng.integers(0, 2, n).astype(np.uint8)
        kind = rng.integers(0, 3, n).astype(np.int64)
        asleep[kind == 0] = 0  # (STATIC bodies never sleep)
        t = SimpleNamespace(n=n, sleepers=int(asleep.sum()) or 1, entity=ent, asleep=asleep,
                            kind=kind)
        pool = np.concatenate((ent, [-1, 0, 999, 10**6]))  # and ids not in the table
        a, b = rng.choice(pool, 60), rng.choice(pool, 60)
        got = still_pairs(t, a, b)
        assert got.tolist() == _still_sparse(t, a, b).tolist()
        state = {int(e): ("asleep" if s else "static" if k == 0 else "awake")
                 for e, s, k in zip(ent, asleep, kind, strict=True)}
        want = [state.get(int(x)) in ("asleep", "static") and state.get(int(y)) in (
            "asleep", "static") and "asleep" in (state.get(int(x)), state.get(int(y)))
            for x, y in zip(a, b, strict=True)]
        assert got.tolist() == want


def test_rows_made_in_a_reused_block_hold_nothing_of_the_rows_before():
    # freed blocks of rows are kept for the next rows (no page faults each step): what the
    # new rows do not write themselves must still read as documented (index 0, kept 0)
    rng = np.random.default_rng(9)
    for m, n in ((2000, 1500), (3000, 3000), (1100, 2000)):
        old = _rows(np.arange(1, m + 1) << 32, np.full(m, 7), rng, history=True)
        cols = {name: old.array(name) for name in ("duration", "steps", "history_layer_a",
                                                    "history_layer_b")}
        old = ContactRows.from_columns(m, {
            **{k: old.array(k) for k in ("keys", "a", "b", "layer_a", "layer_b", "tile",
                                         "tile_kind", "index", "normal", "point", "depth",
                                         "toi", "speed", "sensor")},
            **cols, "kept": np.ones(m, bool)})
        assert old.array("kept").all()
        del old  # its block is kept for the next rows
        keys = np.arange(1, n + 1) << 32
        fresh = ContactRows.from_columns(n, {
            "keys": keys, "a": keys >> 32, "b": keys & 0xFFFFFFFF,
            "layer_a": np.ones(n, np.int64), "layer_b": np.ones(n, np.int64),
            "tile": np.full(n, -1, np.int64), "tile_kind": np.zeros(n, np.int64),
            "normal": np.zeros((n, 2)), "point": np.zeros((n, 2)), "depth": np.zeros(n),
            "toi": np.ones(n), "speed": np.zeros(n), "sensor": np.zeros(n, bool),
            "duration": np.zeros(n), "steps": np.zeros(n, np.int64),
            "history_layer_a": np.ones(n, np.int64), "history_layer_b": np.ones(n, np.int64)})
        assert len(fresh) == n and fresh.ndormant == 0
        assert not fresh.array("index").any() and not fresh.array("kept").any()
        assert fresh.array("keys").tolist() == keys.tolist()
        prev = fresh
        cur = _rows(keys[::2], np.arange(len(keys[::2])), rng)  # a diff writes every row's history
        diff(prev, cur, None, 0.5)
        assert cur.array("kept").all() and (cur.array("duration") == 0.5).all()


def test_advance_is_the_diff_the_absorb_and_the_tick_in_one_call():
    # the events' step when nobody listens: one compiled call, the same rows and clock as the
    # three calls it stands for
    rng = np.random.default_rng(13)
    for _ in range(60):
        pk = np.unique(rng.integers(1, 60, int(rng.integers(0, 30)))) << 32
        pi = rng.choice([-1, -1, 0, 3], len(pk))
        ck = np.setdiff1d(np.unique(rng.integers(1, 60, int(rng.integers(0, 20))) << 32),
                          pk[pi == -1])
        seed = int(rng.integers(1 << 30))
        one, three = SleepingContacts(), SleepingContacts()
        for store in (one, three):
            store.tick(0.5)
        prev_a = _rows(pk, pi, np.random.default_rng(seed), history=True)
        prev_b = _rows(pk, pi, np.random.default_rng(seed), history=True)
        cur_a = _rows(ck, np.arange(len(ck)), np.random.default_rng(seed + 1))
        cur_b = _rows(ck, np.arange(len(ck)), np.random.default_rng(seed + 1))
        one.advance(prev_a, cur_a, 0.125)
        diff(prev_b, cur_b, None, 0.125)
        three.absorb(prev_b)
        three.tick(0.125)
        assert _table(cur_a) == _table(cur_b)
        assert cur_a.array("present").tolist() == cur_b.array("present").tolist()
        assert (one.clock, one.count, len(one)) == (three.clock, three.count, len(three))
        assert _table(one.now()) == _table(three.now())


def _random_dormant(rng, m, top=60):
    """``m`` rows or so of random pairs ``a < b`` below ``top`` (some with several tiles), all
    DORMANT, sorted by (key, tile), with their history."""
    a = rng.integers(1, top - 1, m)
    b = a + rng.integers(1, top // 2, m)
    tile = np.where(rng.random(m) < 0.2, rng.integers(0, 3, m), -1)
    keys = (a << 32) | b
    order = np.lexsort((tile, keys))
    keys, tile = keys[order], tile[order]
    keep = np.ones(m, bool)
    keep[1:] = (keys[1:] != keys[:-1]) | (tile[1:] != tile[:-1])
    keys, tile = keys[keep], tile[keep]
    rows = _rows(keys, np.full(len(keys), -1), rng, history=True)
    cols = {name: rows.array(name) for name in _table(rows)}
    cols["tile"] = tile
    del cols["kept"]
    return ContactRows.from_columns(len(keys), cols)


def test_the_rows_of_woken_bodies_leave_as_a_mask_over_every_row_gives_them():
    """`release_of` (binary searches by side a and side b, rows marked gone where they lie)
    gives the rows and leaves the store exactly as `release` with the mask of the pairs of
    those bodies, through ticks, new rows coming in, snapshots and most of the store
    leaving at once; `partners_of` finds the other sides and `now_for` reads their rows as
    the mask does."""
    rng = np.random.default_rng(17)
    for trial in range(40):
        fast, slow = SleepingContacts(), SleepingContacts()
        first = _random_dormant(rng, int(rng.integers(0, 120)))
        fast.absorb(first)
        slow.absorb(first)
        for _ in range(12):
            fast.tick(0.125)
            slow.tick(0.125)
            what = rng.random()
            if what < 0.15:  # more pairs fall asleep
                more = _random_dormant(rng, int(rng.integers(0, 30)))
                have = set(slow.keys().tolist())
                fresh = pick(more, np.isin(more.array("keys"), list(have)), False)
                assert fast.absorb(fresh) == slow.absorb(fresh)
            elif what < 0.25:  # a snapshot taken and restored
                rows, clock, count = fast.state()
                assert _table(rows) == _table(slow.state()[0])
                fast = SleepingContacts()
                fast.restore(rows, clock, count)
            else:  # bodies wake (sometimes twice before the store is read whole)
                if rng.random() < 0.5:
                    woken = np.unique(rng.integers(0, 62, 3))
                    out_fast = fast.release_of(woken)
                    a, b = slow.ends()
                    out_slow = slow.release(np.isin(a, woken) | np.isin(b, woken))
                    assert len(fast) == len(slow) or out_slow.ndormant
                    if out_slow is not None and out_slow.ndormant:
                        slow.absorb(pick(out_slow, out_slow.array("index") == -1))
                        slow.restore(*fast.state())
                woken = np.unique(rng.integers(0, 62, int(rng.integers(0, 9 if trial % 4
                                                                       else 40))))
                a, b = slow.ends()
                want = np.concatenate((b[np.isin(a, woken)], a[np.isin(b, woken)]))
                assert sorted(fast.partners_of(woken).tolist()) == sorted(want.tolist())
                assert _table(fast.now_for(woken)) == _table(
                    slow.now_of(np.isin(a, woken) | np.isin(b, woken)))
                out_slow = slow.release(np.isin(a, woken) | np.isin(b, woken))
                out_fast = fast.release_of(woken)
                assert (out_fast is None) == (out_slow is None)
                if out_fast is not None:
                    if out_slow.ndormant:  # (most left: the rest came along DORMANT, and
                        # the next absorb would bring them back; the fast store kept them)
                        index = out_slow.array("index")
                        assert _table(fast.now()) == _table(pick(out_slow, index == -1))
                        out_slow = pick(out_slow, index == -2)
                        slow.restore(*fast.state())
                    assert _table(out_fast) == _table(out_slow)
                    assert out_fast.ndormant == 0
            assert len(fast) == len(slow)
            assert _table(fast.now()) == _table(slow.now())
            assert fast.keys().tolist() == slow.keys().tolist()
    store = SleepingContacts()
    store.absorb(_random_dormant(rng, 20))
    for bad in ([3, 2], [4, 4], [-1], [2**31]):
        with pytest.raises(ValueError, match="release_of: entities"):
            store.release_of(np.array(bad, dtype=np.int64))
        with pytest.raises(ValueError, match="partners_of: entities"):
            store.partners_of(np.array(bad, dtype=np.int64))
        with pytest.raises(ValueError, match="now_for: entities"):
            store.now_for(np.array(bad, dtype=np.int64))
    assert store.release_of(np.zeros(0, dtype=np.int64)) is None
    assert store.partners_of(np.zeros(0, dtype=np.int64)).tolist() == []
    # nothing sleeps any more: every row, as the mask of every row gives them (some gone)
    store.tick(0.5)
    store.release_of(np.unique(store.ends()[0])[:2])
    # a mask over the rows still there (those marked gone leave first, then it is read)
    assert store.release(np.zeros(len(store), bool)) is None
    store.release_of(np.unique(store.ends()[0])[:1])
    twin = SleepingContacts()
    twin.restore(*store.state())
    every = store.release_all()
    assert _table(every) == _table(twin.release(np.ones(len(twin), bool)))
    assert len(store) == 0 and store.release_all() is None


def test_rows_that_came_in_lately_are_found_by_entity_before_they_join_the_others():
    """Rows that fall asleep join a small second run first (a few rows among many copy only
    themselves); `release_of`, `partners_of` and `now_for` find them there as they find the
    older ones, through many islands coming in one by one with nobody reading every row,
    and the two runs join when the recent one outgrows an eighth of the other: the same
    rows, partners and durations as a store read whole after every change."""
    rng = np.random.default_rng(29)
    for _ in range(6):
        fast, slow = SleepingContacts(), SleepingContacts()
        base = _random_dormant(rng, 400, top=400)
        fast.absorb(base)
        slow.absorb(base)
        for _ in range(150):
            fast.tick(0.25)
            slow.tick(0.25)
            if rng.random() < 0.6:  # an island falls asleep: a few new pairs
                more = _random_dormant(rng, int(rng.integers(1, 12)), top=400)
                have = set(slow.keys().tolist())
                fresh = pick(more, np.isin(more.array("keys"), list(have)), False)
                assert fast.absorb(fresh) == slow.absorb(fresh)
            woken = np.unique(rng.integers(1, 400, int(rng.integers(1, 4))))
            a, b = slow.ends()
            near = np.isin(a, woken) | np.isin(b, woken)
            want = np.concatenate((b[np.isin(a, woken)], a[np.isin(b, woken)]))
            assert sorted(fast.partners_of(woken).tolist()) == sorted(want.tolist())
            assert _table(fast.now_for(woken)) == _table(slow.now_of(near))
            if rng.random() < 0.3:  # they wake
                out_fast = fast.release_of(woken)
                out_slow = slow.release(near)
                assert (out_fast is None) == (out_slow is None)
                if out_fast is not None:
                    assert not out_slow.ndormant
                    assert _table(out_fast) == _table(out_slow)
            assert len(fast) == len(slow)
        assert _table(fast.now()) == _table(slow.now())
        assert _table(fast.state()[0]) == _table(slow.state()[0])


def test_the_dynamic_rows_follow_bodies_falling_asleep_and_waking_as_a_fresh_look_finds_them():
    """The broadphase's dynamic rows (and the step's awake rows) follow a few bodies falling
    asleep or waking from the table's log of those changes, not a look at every row: after
    every step of a field of balls falling asleep one by one, woken by writes, deletes and a
    rock, they are the rows a fresh look at the table gives, in entity order."""
    from ecsphys.broadphase.stage import dynamic_layout

    physics = world("sleep-dyn-follow")
    rng = np.random.default_rng(3)
    body(0, -0.5, ep.Rect(80, 1), ep.STATIC)
    balls = [body(-38 + 1.5 * i, 0.5, ep.Circle(0.5), g=9.8) for i in range(50)]
    followed = 0
    bp = physics._broadphase
    follow, follows = bp._follow_sleep, []
    bp._follow_sleep = lambda moved: (follows.append(len(moved)), follow(moved))
    for step in range(400):
        if step % 7 == 0:  # rest begins at different times: they fall asleep one by one
            e = balls[int(rng.integers(len(balls)))]
            if esper.entity_exists(e):
                esper.component_for_entity(e, ep.Velocity).xy = (0.0, 0.5)
        if step == 150:
            physics.wake(balls[3])
        if step == 200:
            esper.delete_entity(balls[10])
        if step == 250:
            body(-20, 4, ep.Circle(1.0), g=9.8, vy=-5)
        version = physics.table.sleep_version
        run(1)
        t = physics.table
        want, _ = dynamic_layout(t)
        physics._broadphase.prepare()  # (what the next step's broadphase starts with)
        assert physics._broadphase._dyn.tolist() == want.tolist(), step
        followed += t.sleep_version != version
    assert followed > 20 and physics.stats["sleeping"] > 20
    assert len(follows) > 10  # (followed from the log, not looked for in every row)
