"""The sleeping islands' lists of rows (``island_next`` / ``island_prev``): a wake walks the
island it wakes and nothing else, and the lists follow every change of the table.

Checked with `ecsphys.systems.islands.check_lists` (every sleeper in exactly one circular list,
holding the rows of its ``island`` id; awake rows in none) after islands fall asleep, join,
wake, lose members, move rows and come back from snapshots; and by behaviour: which bodies
wake, and when.
"""

from __future__ import annotations

import random

import esper
import numpy as np
import pytest
from sleep_scenes import DT, body, run, settle
from sleep_scenes import world as new_world

import ecsphys as ep
from ecsphys.systems.islands import check_lists
from ecsphys.systems.sleep import wake_marked, wake_rows


def _lists_ok(physics: ep.Physics) -> None:
    problem = check_lists(physics.table)
    assert problem == "", problem


def _members(physics: ep.Physics, entity: int) -> set[int]:
    """The entities of ``entity``'s island, walked through its list."""
    t = physics.table
    start = t.row_of[entity]
    out, r = set(), start
    while True:
        out.add(int(t.entity[r]))
        r = int(t.island_next[r])
        if r == start:
            return out


def _field(name: str, n: int) -> tuple[ep.Physics, list[int]]:
    """``n`` boxes resting apart on a floor (each its own island), asleep."""
    physics = new_world(name)
    body(1.5 * n, -0.5, ep.Rect(3.0 * n + 6.0, 1.0), ep.STATIC)
    boxes = [body(2.0 + 3.0 * i, 0.5, ep.Rect(1.0, 1.0), g=9.8) for i in range(n)]
    settle(physics, boxes)
    return physics, boxes


def _tower(x: float, n: int) -> list[int]:
    """``n`` unit boxes stacked at ``x`` on the floor."""
    return [body(x, 0.5 + 1.0 * i, ep.Rect(1.0, 1.0), g=9.8) for i in range(n)]


def test_a_field_of_sleepers_is_one_list_each_and_a_rock_wakes_one_of_them(world):
    physics, boxes = _field(world, 12)
    _lists_ok(physics)
    t = physics.table
    for e in boxes:
        r = t.row_of[e]
        assert t.island_next[r] == r and t.island_prev[r] == r  # alone
    target = boxes[5]
    x = esper.component_for_entity(target, ep.Position).x
    body(x, 1.6, ep.Circle(0.3), vy=-3.0, g=9.8)
    woke = []
    for _ in range(30):
        esper.process(DT)
        woke = [e for e in boxes if not physics.is_sleeping(e)]
        if woke:
            break
    assert woke == [target]
    _lists_ok(physics)
    r = t.row_of[target]
    assert t.island_next[r] == -1 and t.island_prev[r] == -1 and t.island[r] == -1


def test_a_tower_sleeps_as_one_list_and_wakes_whole(world):
    physics = _world_with_floor(world)
    tower = _tower(0.0, 4)
    settle(physics, tower)
    _lists_ok(physics)
    assert _members(physics, tower[0]) == set(tower)
    physics.wake(tower[2])
    assert not any(physics.is_sleeping(e) for e in tower)
    _lists_ok(physics)


def _world_with_floor(name: str) -> ep.Physics:
    physics = new_world(name)
    body(0.0, -0.5, ep.Rect(60.0, 1.0), ep.STATIC)
    return physics


@pytest.mark.parametrize("which", ["id", "top", "middle"])
def test_deleting_a_sleeper_wakes_the_rest_of_its_island_at_the_next_step(world, which):
    """Even when the member deleted is the one whose entity names the island."""
    physics = _world_with_floor(world)
    tower = _tower(0.0, 3)
    other = _tower(5.0, 2)  # another island: it sleeps on
    settle(physics, tower + other)
    t = physics.table
    island = int(t.island[t.row_of[tower[0]]])
    gone = {"id": island, "top": tower[2], "middle": tower[1]}[which]
    assert gone in tower
    esper.delete_entity(gone, immediate=True)
    _lists_ok(physics)  # (it left the list at once)
    rest = [e for e in tower if e != gone]
    assert all(physics.is_sleeping(e) for e in rest)
    esper.process(DT)
    assert not any(physics.is_sleeping(e) for e in rest)
    assert all(physics.is_sleeping(e) for e in other)
    _lists_ok(physics)


def test_a_body_falling_asleep_between_two_islands_joins_them_into_one_list(world):
    """A plank without gravity creeping down onto two sleeping boxes slower than the rest
    speed wakes neither; when it falls asleep the three are one island (the smaller id) and
    one list."""
    physics = _world_with_floor(world)
    left, right = _tower(-0.55, 1), _tower(0.55, 1)  # 0.1 apart: two islands on the floor
    settle(physics, left + right)
    t = physics.table
    ids = {int(t.island[t.row_of[e]]) for e in left + right}
    assert len(ids) == 2
    plank = body(0.01, 1.0 + 0.012 + 0.25, ep.Rect(2.0, 0.5), vy=-0.03)
    for _ in range(int(3 / DT)):
        esper.process(DT)
        assert physics.is_sleeping(left[0]) and physics.is_sleeping(right[0])  # no wake
        if physics.is_sleeping(plank):
            break
    assert physics.is_sleeping(plank)
    assert sorted(physics.touching(plank)) == sorted(left + right)
    _lists_ok(physics)
    assert {int(t.island[t.row_of[e]]) for e in left + right + [plank]} == {min(ids)}
    assert _members(physics, plank) == set(left + right + [plank])
    physics.wake(right[0])
    assert not any(physics.is_sleeping(e) for e in left + right + [plank])
    _lists_ok(physics)


def test_the_lists_follow_rows_moved_by_spawns_and_deletes_around_a_sleeping_pile(world):
    """Bullets made and deleted every frame move the last rows into the holes (sleepers
    among them) and the canonical order moves rows again; the pile's list stays its own."""
    physics = _world_with_floor(world)
    towers = [_tower(-6.0 + 3.0 * k, 3) for k in range(5)]
    sleepers = [e for tw in towers for e in tw]
    settle(physics, sleepers)
    rng = random.Random(7)
    bullets: list[int] = []
    for _frame in range(120):
        for _ in range(rng.randrange(3)):
            bullets.append(body(rng.uniform(-20, 20), 40.0 + rng.uniform(0, 5),
                                ep.Circle(0.1), vx=rng.uniform(-1, 1)))
        if bullets and rng.random() < 0.7:
            esper.delete_entity(bullets.pop(rng.randrange(len(bullets))), immediate=True)
        _lists_ok(physics)
        esper.process(DT)
        _lists_ok(physics)
    assert all(physics.is_sleeping(e) for e in sleepers)
    for tw in towers:
        assert _members(physics, tw[1]) == set(tw)


def test_a_snapshot_restore_relinks_the_islands(world):
    physics = _world_with_floor(world)
    towers = [_tower(-3.0, 3), _tower(3.0, 2)]
    settle(physics, towers[0] + towers[1])
    snap = physics.snapshot()
    physics.wake(towers[0][0])
    physics.wake(towers[1][0])
    run(3)
    physics.restore(snap)
    _lists_ok(physics)
    assert _members(physics, towers[0][2]) == set(towers[0])
    assert _members(physics, towers[1][0]) == set(towers[1])
    physics.wake(towers[1][1])
    assert all(physics.is_sleeping(e) for e in towers[0])
    assert not any(physics.is_sleeping(e) for e in towers[1])
    _lists_ok(physics)


def test_random_islands_wake_by_their_lists_exactly_as_by_their_ids(world):
    """Random fields of towers of random heights, woken by random marks: the rows woken are
    exactly the sleepers whose island id a marked row has (what a pass over every row
    would wake), ascending, and the lists stay exact."""
    rng = random.Random(11)
    for round_ in range(4):
        name = f"{world}-{round_}"
        physics = world_of(name)
        towers = [_tower(-30.0 + 4.0 * k, rng.randrange(1, 4)) for k in range(12)]
        settle(physics, [e for tw in towers for e in tw])
        t = physics.table
        n = t.n
        mark = np.zeros(n + 3, dtype=np.uint8)
        picked = rng.sample(range(n), 5)
        mark[picked] = 1
        ids = set(t.island[picked].tolist()) - {-1}
        want = np.flatnonzero(np.isin(t.island[:n], list(ids)))
        asleep_before = int(t.sleepers)
        woken = wake_marked(t, mark)
        assert woken.tolist() == want.tolist()
        assert not mark.any()  # (the marks cleared)
        assert t.sleepers == asleep_before - len(want)
        assert not t.asleep[woken].any() and (t.island[woken] == -1).all()
        assert (t.rest_time[woken] == 0.0).all()
        _lists_ok(physics)
        esper.switch_world(world)
        esper.delete_world(name)


def world_of(name: str) -> ep.Physics:
    physics = new_world(name)
    body(0.0, -0.5, ep.Rect(80.0, 1.0), ep.STATIC)
    return physics


def test_wake_rows_and_wake_marked_refuse_bad_input_and_change_nothing(world):
    physics, boxes = _field(world, 3)
    t = physics.table
    with pytest.raises(ValueError, match=r"rows\[1\] = 99"):
        wake_rows(t, np.array([0, 99], dtype=np.int64))
    with pytest.raises(TypeError, match="mark must be a contiguous uint8 array"):
        wake_marked(t, np.zeros(t.n, dtype=np.int64))
    with pytest.raises(ValueError, match="mark holds 1 rows"):
        wake_marked(t, np.zeros(1, dtype=np.uint8))
    assert all(physics.is_sleeping(e) for e in boxes)
    _lists_ok(physics)
    assert wake_rows(t, np.array([t.row_of[boxes[0]]])).tolist() == [t.row_of[boxes[0]]]
    assert [physics.is_sleeping(e) for e in boxes] == [False, True, True]
