"""Every way a sleeping pile wakes, one scene per cause: what would move a sleeper wakes it
in the step of the cause, nothing passes through a sleeper, and no two bodies end a step
overlapping deeper than ``TOL``.

Shows, on piles settled asleep (`tests/test_sleep.py`'s ``_pile`` / ``_settle``):

- bodies that reach a sleeper wake its island in the same step, before the response: a
  bullet at 2,000 units/s stops on a sleeping stack; a PASSIVE crate pushed by an ACTIVE
  body into a sleeping row of crates pushes them;
- the game's writes wake at the start of the next step: a sleeper's Collider (layer, mask),
  Geometry (a bigger circle: its neighbours are pushed out) or Position; the floor's
  Collider mask (the pile falls through), Geometry (a thinner floor: the pile falls onto it);
  a component added or replaced (AccelerationMap, Velocity, Position, the floor's Collider);
  a tile dug under a sleeper (a tile dug far away wakes nothing); a resting platform of
  infinite mass set moving carries its sleeping riders from that step;
- what does not wake: a sleeper's Velocity written with the value it has; setting
  ``physics.filter_pair`` wakes every island (a filter that drops the floor's pairs lets
  the pile fall through);
- a body that stops beside a sleeper falls asleep with it, as one island;
- a Position write that puts an awake body that rested in the last step into or beside a
  sleeper wakes it (the written body starts resting afresh: between two sleepers they are
  pushed apart; walked into a sleeping crate it pushes it at once); a filter_pair removed
  while two sleepers overlap lets them be pushed apart.
"""

from __future__ import annotations

import itertools
import math

import esper
import numpy as np
import pytest
from sleep_scenes import DT, body, pile, run
from sleep_scenes import positions as _positions
from sleep_scenes import settle as _settle
from sleep_scenes import world as _world

import ecsphys as ep

TOL = 0.02  # the deepest overlap allowed at the end of a step (a settled pile: ~0.01)


def _pile(name, n=21, seed=3):
    """`sleep_scenes.pile`: (physics, floor, walls, balls)."""
    return pile(name, n, seed=seed)


def _xy(e):
    return np.array(esper.component_for_entity(e, ep.Position).xy)


def _asleep(physics, bodies):
    return [b for b in bodies if physics.is_sleeping(b)]


def _depth(a, b):
    """How deep bodies ``a`` and ``b`` (circles and axis-aligned rects) overlap (<= 0: not)."""
    sa = esper.component_for_entity(a, ep.Geometry).shape
    sb = esper.component_for_entity(b, ep.Geometry).shape
    pa, pb = _xy(a), _xy(b)
    if isinstance(sa, ep.Rect) and isinstance(sb, ep.Circle):
        sa, sb, pa, pb = sb, sa, pb, pa
    if isinstance(sa, ep.Circle) and isinstance(sb, ep.Circle):
        return sa.radius + sb.radius - float(np.hypot(*(pa - pb)))
    if isinstance(sa, ep.Circle):  # against a rect
        half = np.array(sb.half_extents)
        d = pa - pb
        inside = np.abs(d) <= half
        if inside.all():
            return sa.radius + float(np.min(half - np.abs(d)))
        nearest = np.clip(d, -half, half)
        return sa.radius - float(np.hypot(*(d - nearest)))
    d = np.abs(pa - pb)
    ha, hb = np.array(sa.half_extents), np.array(sb.half_extents)
    return float(np.min(ha + hb - d))


def _static(e):
    return esper.component_for_entity(e, ep.Collider).kind == ep.STATIC


def _deepest(bodies):
    """The deepest overlap among ``bodies`` (two STATIC bodies are not a pair) and its pair."""
    worst, pair = 0.0, None
    for a, b in itertools.combinations(bodies, 2):
        if _static(a) and _static(b):
            continue
        d = _depth(a, b)
        if d > worst:
            worst, pair = d, (a, b)
    return worst, pair


def _watch(physics, solid, steps, each=None):
    """Step ``steps`` times; the deepest overlap among ``solid`` at the end of any step must
    stay under TOL. ``each(step)`` runs after every step."""
    for step in range(steps):
        esper.process(DT)
        depth, pair = _deepest(solid)
        assert depth < TOL, f"step {step}: {pair} overlap by {depth:.4f}"
        if each is not None:
            each(step)


# ------------------------------------------------------------------ reached in the step


def test_a_bullet_fired_at_a_sleeping_stack_stops_on_it():
    physics, floor, walls, balls = _pile("wake-bullet", n=21)
    _settle(physics, balls)
    settled = _positions(balls)
    column = [b for b, (x, _) in zip(balls, settled, strict=True) if abs(x + 0.1) < 0.3]
    top_ball = max(column, key=lambda b: _xy(b)[1])
    x, top = _xy(top_ball)
    bullet = body(x, top + 40.0, ep.Circle(0.1), vy=-2000.0, mass=0.05)
    arrival = None

    def check(step):
        nonlocal arrival
        by = _xy(bullet)[1]
        assert by > top, f"step {step}: the bullet passed into the stack (y {by:.3f})"
        if arrival is None and by < top + 1.0:
            arrival = step
            assert not physics.is_sleeping(top_ball), "reached but not woken in that step"
            assert np.abs(_positions(balls) - settled).max() > 0  # and it gives way in it

    _watch(physics, [*balls, bullet, floor, *walls], 30, check)
    assert arrival == 1  # 40 units away at 33.3 units a step: it arrives in the 2nd step


@pytest.mark.parametrize("kind", [ep.ACTIVE, ep.PASSIVE])
def test_a_bullet_through_a_sleeping_tower_of_thin_crates_moves_it_as_if_awake(kind):
    """Fired sideways at 2,000 units/s at a tower of crates 0.2 wide: it never gets past the
    crate it hits, which flies off before it; every position is what a world that never
    sleeps gives (the same steps after the same settling)."""
    runs = {}
    for sleep_after in (0.5, None):
        physics = _world(f"wake-tower-{kind}-{sleep_after}", sleep_after)
        floor = body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
        tower = [body(0, 0.5 + i, ep.Rect(0.2, 1.0), kind, g=9.8) for i in range(4)]
        run(60)
        assert all(physics.is_sleeping(c) for c in tower) == (sleep_after is not None)
        bullet = body(-40, 1.5, ep.Circle(0.1), vx=2000.0, mass=0.05)
        trace = []
        for step in range(20):
            esper.process(DT)
            assert _xy(bullet)[0] < _xy(tower[1])[0] - 0.2, f"step {step}: passed through"
            depth, pair = _deepest([floor, *tower, bullet])
            assert depth < TOL, f"step {step}: {pair} overlap by {depth:.4f}"
            trace.append(_positions([*tower, bullet]))
        assert _xy(tower[1])[0] > 5.0  # knocked out
        runs[sleep_after] = np.array(trace)
    assert np.abs(runs[0.5] - runs[None]).max() < 1e-6


def test_a_passive_crate_pushed_into_a_sleeping_row_pushes_it():
    physics = _world("wake-crate")
    floor = body(0, -0.5, ep.Rect(200, 1), ep.STATIC)
    g = 30.0
    row = [body(4.0 + 1.6 * i, 0.8, ep.Rect(1.6, 1.6), ep.PASSIVE, g=g) for i in range(3)]
    row.append(body(4.8, 2.4, ep.Rect(1.6, 1.6), ep.PASSIVE, g=g))  # one on top
    _settle(physics, row)
    before = _positions(row)
    crate = body(0.0, 0.8, ep.Rect(1.6, 1.6), ep.PASSIVE, g=g)
    player = body(-1.5, 0.9, ep.Rect(0.9, 1.8), g=g)
    woke = None

    def check(step):
        nonlocal woke
        esper.component_for_entity(player, ep.Velocity).x = 4.0
        gap = _xy(row[0])[0] - _xy(crate)[0] - 1.6
        if woke is None and not physics.is_sleeping(row[0]):
            woke = step
            assert gap < 0.1, f"woken at step {step} with the crate {gap:.3f} away"
        if woke is None:
            assert gap > -TOL, f"step {step}: the crate went into a sleeper by {-gap:.4f}"

    esper.component_for_entity(player, ep.Velocity).x = 4.0
    _watch(physics, [floor, *row, crate, player], 120, check)
    assert woke is not None
    assert _xy(row[0])[0] > before[0][0] + 1.0  # the row was pushed
    assert _xy(crate)[0] < _xy(row[0])[0] - 1.6 + TOL  # the crate stayed on its side


# ------------------------------------------------------------------ the game's writes


def test_a_sleepers_collider_mask_write_wakes_it_and_it_falls_through_the_floor():
    physics, floor, walls, balls = _pile("wake-collider-mask", n=7)
    _settle(physics, balls)
    ball = balls[3]
    y0 = _xy(ball)[1]
    esper.component_for_entity(ball, ep.Collider).mask = 2  # not the floor's layer (1)
    esper.process(DT)
    assert not physics.is_sleeping(ball)
    assert _xy(ball)[1] < y0  # it falls through the floor from this step
    run(30)
    assert _xy(ball)[1] < y0 - 1.0
    others = [b for b in balls if b != ball]
    assert _deepest([*others, floor, *walls])[0] < TOL


def test_a_sleepers_collider_layer_write_wakes_it_and_it_sleeps_again():
    physics, floor, walls, balls = _pile("wake-collider-layer", n=7)
    _settle(physics, balls)
    ball = balls[3]
    y0 = _xy(ball)[1]
    esper.component_for_entity(ball, ep.Collider).layer = 2  # the floor's mask takes it
    esper.process(DT)
    assert not physics.is_sleeping(ball)
    _watch(physics, [*balls, floor, *walls], 60)
    assert physics.is_sleeping(ball)
    assert _xy(ball)[1] == pytest.approx(y0, abs=0.01)  # still on the floor


def test_a_floors_collider_mask_write_drops_the_pile_through_it():
    physics, floor, walls, balls = _pile("wake-floor-mask", n=14)
    _settle(physics, balls)
    before = _positions(balls)
    esper.component_for_entity(floor, ep.Collider).mask = 0
    esper.process(DT)
    assert not _asleep(physics, balls)
    assert (_positions(balls)[:, 1] < before[:, 1]).all()  # every ball falls from this step
    run(60)
    assert (_positions(balls)[:, 1] < -1.0).all()  # through the floor


def test_a_floors_collider_layer_write_wakes_the_pile_and_it_stays_on():
    physics, floor, walls, balls = _pile("wake-floor-layer", n=14)
    _settle(physics, balls)
    esper.component_for_entity(floor, ep.Collider).layer = 1 | 4  # still collides with all
    esper.process(DT)
    assert not _asleep(physics, [b for b in balls if _xy(b)[1] < 1.0])  # those touching it
    _watch(physics, [*balls, floor, *walls], 120)
    assert len(_asleep(physics, balls)) == len(balls)  # and they sleep again


def test_a_sleeper_grown_pushes_its_neighbours_out():
    physics, floor, walls, balls = _pile("wake-grow", n=21)
    _settle(physics, balls)
    before = _positions(balls)
    ball = balls[10]  # in the middle row
    esper.component_for_entity(ball, ep.Geometry).shape = ep.Circle(0.7)
    esper.process(DT)
    assert not physics.is_sleeping(ball)
    near = [b for b in balls if b != ball and _depth(b, ball) > -0.3]
    assert near and not _asleep(physics, near)
    moved = np.abs(_positions(balls) - before).max(axis=1)
    assert moved.max() > 0.01  # the pile reacts in this step
    # a grown body is pushed out over a few steps, as in a world that never sleeps (the
    # deepest overlap there: 0.27, 0.14, 0.08, 0.05, ...): it only shrinks, then stays small
    depths = [_deepest([*balls, floor, *walls])[0]]
    for _ in range(30):
        esper.process(DT)
        depths.append(_deepest([*balls, floor, *walls])[0])
    assert depths[0] < 0.3
    assert all(d2 <= d1 + 1e-9 for d1, d2 in zip(depths[:10], depths[1:10], strict=False))
    assert max(depths[12:]) < TOL, depths
    _watch(physics, [*balls, floor, *walls], 60)


def test_a_sleeper_moved_up_falls_back():
    physics, floor, walls, balls = _pile("wake-move-up", n=14)
    _settle(physics, balls)
    ball = balls[-1]
    esper.component_for_entity(ball, ep.Position).y += 3.0
    y_written = _xy(ball)[1]
    esper.process(DT)
    assert not physics.is_sleeping(ball)
    assert _xy(ball)[1] < y_written  # it falls from this step
    _watch(physics, [*balls, floor, *walls], 120)
    assert _xy(ball)[1] < y_written - 2.0


def test_writing_a_sleepers_velocity_as_it_is_leaves_it_asleep():
    physics, floor, walls, balls = _pile("wake-equal-write", n=7)
    _settle(physics, balls)
    esper.component_for_entity(balls[3], ep.Velocity).xy = (0.0, 0.0)
    esper.process(DT)
    assert physics.is_sleeping(balls[3])


def test_a_static_floor_made_thinner_drops_the_pile_onto_it():
    physics, floor, walls, balls = _pile("wake-floor-shape", n=14)
    _settle(physics, balls)
    before = _positions(balls)
    esper.component_for_entity(floor, ep.Geometry).shape = ep.Rect(12, 0.4)  # top: y = -0.3
    esper.process(DT)
    assert not _asleep(physics, balls)
    assert (_positions(balls)[:, 1] < before[:, 1]).all()
    _watch(physics, [*balls, floor, *walls], 120)
    assert (_positions(balls)[:, 1] < before[:, 1] - 0.25).all()


@pytest.mark.parametrize("what", ["AccelerationMap added", "Velocity replaced",
                                  "Position replaced", "floor's Collider replaced"])
def test_a_component_added_or_replaced_wakes_like_a_write(what):
    physics = _world("wake-replace-" + what)
    floor = body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    ball = body(0, 0.5, ep.Circle(0.5), g=9.8)
    floater = body(5, 5, ep.Circle(0.5))  # no gravity: it rests in the air
    _settle(physics, [ball, floater])
    if what == "AccelerationMap added":
        esper.add_component(floater, ep.AccelerationMap(gravity=(0.0, -9.8)))
    elif what == "Velocity replaced":
        esper.add_component(floater, ep.Velocity(3.0, 0.0))
    elif what == "Position replaced":
        esper.add_component(ball, ep.Position(0.0, 3.0))
    else:
        esper.add_component(floor, ep.Collider(ep.STATIC, mask=0))
    before = _positions([ball, floater])
    esper.process(DT)
    moved = np.abs(_positions([ball, floater]) - before).max(axis=1)
    e = ball if what in ("Position replaced", "floor's Collider replaced") else floater
    assert not physics.is_sleeping(e)
    assert moved[[ball, floater].index(e)] > 0  # it moves from this step
    assert physics.is_sleeping(ball if e == floater else floater)  # the other sleeps on


# ------------------------------------------------------------------ tiles


def _tile_scene(name):
    """A map 40 tiles wide, 2 thick (top at y = 0), a box asleep on tile column 10."""
    physics = _world(name)
    grid = np.zeros((2, 40), dtype=int)
    grid[:] = 1
    tm = ep.TileMap(grid, 1.0, origin=(0.0, -2.0))
    ground = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    box = body(10.5, 0.4, ep.Rect(0.8, 0.8), g=9.8)
    _settle(physics, [box])
    return physics, tm, ground, box


def test_a_tile_dug_under_a_sleeper_wakes_it_and_it_falls():
    physics, tm, ground, box = _tile_scene("wake-tile")
    y0 = _xy(box)[1]
    tm[0, 10] = 0
    tm[1, 10] = 0
    esper.process(DT)
    assert not physics.is_sleeping(box)
    assert _xy(box)[1] < y0
    run(60)
    assert _xy(box)[1] < -2.0  # through the hole


def test_a_tile_dug_far_from_a_sleeper_leaves_it_asleep():
    physics, tm, ground, box = _tile_scene("wake-tile-far")
    y0 = _xy(box)[1]
    tm[0, 30] = 0
    run(10)
    assert physics.is_sleeping(box)
    assert _xy(box)[1] == y0


# ------------------------------------------------------------------ platforms, filters, islands


def test_a_resting_platform_set_moving_carries_its_sleeping_riders_from_that_step():
    physics = _world("wake-platform")
    platform = body(0, 0, ep.Rect(6, 1), mass=math.inf)
    riders = [body(-1.5, 0.9, ep.Rect(0.8, 0.8), g=9.8), body(1.5, 1.0, ep.Circle(0.5), g=9.8)]
    _settle(physics, [platform, *riders])
    before = _positions(riders)
    esper.component_for_entity(platform, ep.Velocity).xy = (3.0, 0.0)
    esper.process(DT)
    assert not physics.is_sleeping(platform) and not _asleep(physics, riders)
    dx = _positions(riders)[:, 0] - before[:, 0]
    assert dx == pytest.approx([3.0 * DT] * 2, abs=1e-6)  # carried from this step
    run(60)
    assert (_positions(riders)[:, 0] - before[:, 0]) == pytest.approx([3.0 * 61 * DT] * 2,
                                                                        abs=0.01)
    assert _deepest([platform, *riders])[0] < TOL


def test_setting_filter_pair_while_asleep_wakes_every_island():
    """A new ``filter_pair`` may part or join sleeping pairs: every island wakes at the next
    step. A filter that drops the balls' pairs with the floor lets the pile fall through."""
    physics, floor, walls, balls = _pile("wake-filter", n=7)
    _settle(physics, balls)
    before = _positions(balls)
    physics.filter_pair = lambda a, b: floor not in (a, b)
    esper.process(DT)
    assert not _asleep(physics, balls)
    run(30)
    assert (_positions(balls)[:, 1] < before[:, 1] - 1.0).all()


def test_a_body_stopping_beside_a_sleeper_falls_asleep_with_it_as_one_island():
    physics = _world("wake-beside")
    floor = body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    sleeper = body(0, 0.5, ep.Rect(1, 1), g=9.8)
    _settle(physics, [sleeper])
    t = physics.table
    assert t.island[t.row_of[sleeper]] == sleeper
    # the game drives it at 2 units/s and stops it exactly half the contact offset short
    target = -1.0 - physics.contact_offset / 2
    mover = body(-4.0, 0.5, ep.Rect(1, 1), g=9.8, vx=2.0)
    for _ in range(180):
        vel = esper.component_for_entity(mover, ep.Velocity)
        vel.x = min(2.0, (target - _xy(mover)[0]) / DT)
        esper.process(DT)
        assert _xy(mover)[0] <= target + 1e-9  # never into the sleeper
        if physics.is_sleeping(mover):
            break
    assert _xy(mover)[0] == pytest.approx(target, abs=1e-6)
    assert physics.is_sleeping(mover) and physics.is_sleeping(sleeper)
    assert t.island[t.row_of[mover]] == t.island[t.row_of[sleeper]]  # one island
    assert _deepest([floor, sleeper, mover])[0] < TOL
    physics.wake(mover)  # and they wake as one
    assert not physics.is_sleeping(sleeper)


# ------------------------------------------------------------------ writes to awake bodies

def _two_sleepers_and_a_resting_rock(name):
    physics = _world(name)
    floor = body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    a = body(-0.55, 0.5, ep.Circle(0.5), g=9.8)
    b = body(0.55, 0.5, ep.Circle(0.5), g=9.8)
    _settle(physics, [a, b])
    rock = body(10.0, 0.5, ep.Circle(0.5), g=9.8)
    run(10)  # the rock rests, awake (10 steps < sleep_after)
    assert not physics.is_sleeping(rock) and physics.is_sleeping(a)
    return physics, floor, a, b, rock


def test_a_resting_body_moved_in_between_two_sleepers_wakes_them():
    physics, floor, a, b, rock = _two_sleepers_and_a_resting_rock("wake-written-between")
    esper.component_for_entity(rock, ep.Position).xy = (0.0, 0.5)  # 0.45 into a and b
    esper.process(DT)
    assert not physics.is_sleeping(a) and not physics.is_sleeping(b)
    run(30)
    assert _depth(rock, a) < TOL and _depth(rock, b) < TOL  # pushed apart


def test_a_resting_player_moved_beside_a_sleeping_crate_pushes_it_at_once():
    physics = _world("wake-written-push")
    body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    crate = body(0.0, 0.5, ep.Rect(1, 1), ep.PASSIVE, g=9.8)
    _settle(physics, [crate])
    player = body(10.0, 0.5, ep.Rect(1, 1), g=9.8)
    run(10)  # it rests, awake
    esper.component_for_entity(player, ep.Position).x = -1.005  # beside the crate
    for _ in range(3):
        esper.component_for_entity(player, ep.Velocity).x = 3.0
        esper.process(DT)
    assert _xy(crate)[0] > 0.01


def test_removing_a_filter_that_kept_two_sleepers_apart_pushes_them_apart():
    physics = _world("wake-filter-removed")
    body(0, -0.5, ep.Rect(40, 1), ep.STATIC)
    a = body(0.0, 0.5, ep.Circle(0.5), g=9.8)
    b = body(0.5, 0.5, ep.Circle(0.5), g=9.8)
    physics.filter_pair = lambda e1, e2: {e1, e2} != {a, b}
    _settle(physics, [a, b])
    physics.filter_pair = None
    run(60)
    assert _depth(a, b) < TOL


def _islands(name, full_path):
    """A floor with 24 small stacks of balls (islands of one to three) far apart, and a
    box; every event, contact and position recorded per step. ``full_path``: the contacts
    follow each wake by looking at every sleeping row (the path a wake of most of the store
    takes), not by the woken bodies' entities."""
    physics = _world(name)
    body(55, -0.5, ep.Rect(130, 1), ep.STATIC)
    stacks = []
    for i in range(24):
        stacks.append([body(-5 + 5.0 * i, 0.5 + 1.0 * k, ep.Circle(0.5),
                            g=9.8) for k in range(1 + i % 3)])
    box = body(12, 0.5, ep.Rect(1, 1), g=9.8)
    heard = []
    physics.on_touch(lambda c: heard.append(("touch", c.a, c.b, c.steps)))
    physics.on_separate(lambda c: heard.append(("separate", c.a, c.b, c.duration)))
    physics.on_keep_touching(lambda c: heard.append(("keep", c.a, c.b, c.duration, c.steps)))
    woke_calls = []
    ev = physics._events
    woke = ev.woke
    if full_path:
        def partners(entities):
            out = [np.zeros(0, dtype=np.int64)]
            for a, b in [(r.array("a"), r.array("b")) for r in (ev.narrowphase.rows,)
                         if len(r)] + ([ev.sleeping.ends()] if len(ev.sleeping) else []):
                out += [b[np.isin(a, entities)], a[np.isin(b, entities)]]
            return np.concatenate(out)

        physics._step.woke = lambda t, rows_woken=None: woke(t)
        ev.woke = lambda t, rows_woken=None, gone=None: woke(t)
        ev.partners = partners
    else:
        def counted(t, rows_woken=None, gone=None):
            woke_calls.append((len(rows_woken) + len(gone or ()), len(ev.sleeping)))
            woke(t, rows_woken, gone)

        physics._step.woke = counted
        ev.woke = counted
    return physics, stacks, box, heard, woke_calls


def test_a_wake_of_a_few_islands_gives_their_contacts_back_as_a_look_at_every_row_does():
    """Rocks dropped one after the other on sleeping stacks among many, then the game's
    wake, Position and Velocity writes and a sleeper deleted: each wakes its stack's island
    and its contacts come back found by the woken (or deleted) bodies' entities; the events
    (touch, separate, keep-touching with durations), contacts and positions are the same,
    bit for bit, as when every sleeping row is looked at."""
    logs = []
    for full in (False, True):
        physics, stacks, box, heard, calls = _islands(f"islands-{full}", full)
        _settle(physics, [b for s in stacks for b in s] + [box])
        log, polls = [], []
        for k, target in enumerate((3, 8, 4, 13, 8, 0, 5, 10, 17, 20)):
            top = stacks[target][-1]
            x, y = esper.component_for_entity(top, ep.Position).xy
            if k < 6:  # a rock
                body(x + 0.2 * (k % 2), y + 2.0, ep.Circle(0.4), vy=-6.0, g=9.8)
            elif k == 6:  # the game's wakes and writes
                physics.wake(top)
            elif k == 7:
                esper.component_for_entity(top, ep.Position).y = y + 0.3
            elif k == 8:
                esper.component_for_entity(top, ep.Velocity).x = 2.0
            else:  # a sleeper deleted: the ones on it fall
                assert physics.is_sleeping(stacks[target][0])
                esper.delete_entity(stacks[target].pop(0), immediate=True)
            # one body's polls, before anything reads the sleeping contacts whole (after
            # physics.wake, the rows it woke are still marked gone where they lie)
            polls.append(tuple((physics.touching(b), tuple(
                (c.a, c.b, c.duration, c.steps) for c in physics.contacts_of(b)))
                for s in stacks for b in s))
            for _ in range(25):
                heard.clear()
                run(1)
                log.append((tuple(heard), tuple(
                    (c.a, c.b, c.normal, c.depth, c.point, c.duration, c.steps)
                    for c in physics.contacts()),
                    _positions([b for s in stacks for b in s]).tobytes(),
                    physics.stats["sleeping"]))
        logs.append((log, polls))
        if not full:  # the wakes were of a few bodies among many sleeping rows
            assert len(calls) >= 10
            assert all(8 * woken < rows for woken, rows in calls), calls
    assert logs[0] == logs[1]
    log = logs[0][0]
    assert any(entry[3] < max(e[3] for e in log) for entry in log)  # some woke
    assert any(ev[0] == "separate" for entry in log for ev in entry[0])


def test_a_sleeper_woken_then_asleep_again_wakes_again_when_reached():
    """Three times a ball falls on a sleeping stack of crates (each time after the last ball
    was taken away and everything slept again): each impact wakes the stack in its step and
    the ball stops on it, never inside it; a stack far away sleeps on throughout (the wake's
    marks do not outlast their step)."""
    physics = _world("wake-again")
    body(0, -0.5, ep.Rect(60, 1), ep.STATIC)
    stack = [body(0, 0.5 + i, ep.Rect(2.0, 1.0), g=9.8) for i in range(2)]
    far = [body(20, 0.5 + i, ep.Rect(2.0, 1.0), g=9.8) for i in range(2)]
    _settle(physics, stack + far)
    for drop in range(3):
        assert _asleep(physics, stack + far) == stack + far, f"drop {drop}"
        top = _xy(stack[-1])[1] + 0.5  # the top crate's top side
        ball = body(-0.5 + 0.5 * drop, top + 1.4, ep.Circle(0.4), vy=-10.0, g=9.8)
        woke = None
        for step in range(40):
            esper.process(DT)
            if woke is None and not physics.is_sleeping(stack[-1]):
                woke = step
            assert _asleep(physics, far) == far, f"drop {drop}, step {step}"
        assert woke is not None and woke <= 6, f"drop {drop}: the stack woke at {woke}"
        assert _xy(ball)[1] > top + 0.35, f"drop {drop}: the ball sank into the crate"
        esper.delete_entity(ball, immediate=True)
        _settle(physics, stack + far)
