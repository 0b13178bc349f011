"""The benchmark scenes at small N, through the same builders the runner uses: real counts,
never timings (no escapes from the rain box, no bullet through a wall in ecsphys, contacts in
settled rain, crowd agents making progress, both engines built alike, one body made and one
deleted every spawn step, the shooter's bullets fired, hitting the crowd and deleted, the
overlap scene starting overlapping)."""

from __future__ import annotations

import sys
from pathlib import Path

import esper
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo root: benchmarks/

from benchmarks import scenes as S  # noqa: E402


@pytest.mark.parametrize("name", ["rain", "crowd", "bullets", "spawn", "shooter", "overlap"])
def test_both_engines_start_from_the_same_state(built, name):
    ecs = built(name, "ecsphys", 60)
    pym = built(name, "pymunk", 60)
    np.testing.assert_allclose(ecs.positions(), pym.positions())
    assert ecs.n == pym.n == 60


def test_rain_settles_in_the_box_with_contacts(built):
    scene = built("rain", "ecsphys", 200)
    S.run(scene, 90)
    stats = scene.stats()
    assert stats["escaped"] == 0
    assert stats["contacts"] > 100  # a settled pile touches its neighbours and the floor
    assert np.isfinite(scene.positions()).all()


def test_rain_in_pymunk_stays_in_the_box(built):
    scene = built("rain", "pymunk-hash", 200)
    S.run(scene, 60)
    assert scene.stats()["escaped"] == 0
    assert scene.stats()["contacts"] > 0


def test_no_bullet_passes_a_wall_in_ecsphys(built):
    scene = built("bullets", "ecsphys", 100)
    S.run(scene, 20)
    assert scene.stats()["passed"] == 0


def test_bullets_pass_walls_in_pymunk(built):
    # pymunk has no continuous collision: this is what the bullets scene shows
    scene = built("bullets", "pymunk", 100)
    S.run(scene, 5)
    assert scene.stats()["passed"] >= 10  # 30 of 100 at this size with pymunk 7.3; ecsphys: 0


def test_crowd_agents_make_progress_without_overlap(built):
    scene = built("crowd", "ecsphys", 300)
    S.run(scene, 60)
    stats = scene.stats()
    assert stats["progress"] > 0.3  # towards the doors (which are mostly up or down)
    p = scene.positions()
    d = np.hypot(*(p[:, None, :] - p[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    assert d.min() >= 2 * S.CROWD_RADIUS - 1e-3


def test_events_scene_counts_touches_and_separates(built):
    scene = built("events", "ecsphys", 200)
    S.run(scene, 60)
    stats = scene.stats()
    assert stats["touches"] > 0
    assert stats["touches"] >= stats["separates"]


@pytest.mark.parametrize("engine", S.ENGINES)
@pytest.mark.parametrize("n", [10, 100])
def test_small_rains_settle_in_the_box(built, engine, n):
    # the small scenes games have: the runner times them over thousands of steps
    scene = built("rain", engine, n)
    S.run(scene, 300)
    stats = scene.stats()
    assert stats["escaped"] == 0
    assert stats["contacts"] >= n // 2  # resting on the floor and on each other


def _exists(scene: S.Scene, body: object) -> bool:
    """Whether ``body`` (an entity, or a pymunk body) is in the scene's engine now."""
    if isinstance(scene, S.EcsScene):
        previous = esper.current_world
        esper.switch_world(scene.world)
        try:
            return esper.entity_exists(body)
        finally:
            esper.switch_world(previous)
    return body in scene.space.bodies


@pytest.mark.parametrize("engine", S.ENGINES)
def test_spawn_makes_one_body_and_deletes_the_last_every_step(built, engine):
    scene = built("spawn", engine, 50)
    assert scene.body_count() == 50
    made = []
    for k in range(8):
        S.run(scene, 1)
        last = scene._last if isinstance(scene, S.EcsScene) else scene._last[0]
        made.append(last)
        assert _exists(scene, last)
        assert not any(_exists(scene, b) for b in made[:-1])  # the earlier ones are gone
        assert scene.body_count() == 51  # the rain and the one spawned body
        assert (scene.spawned, scene.deleted) == (k + 1, k)
    assert len(set(made)) == 8
    stats = scene.stats()
    assert (stats["spawned"], stats["deleted"], stats["bodies"]) == (8, 7, 51)
    assert stats["escaped"] == 0


def test_spawn_places_the_body_far_from_the_rain():
    lay = S.layout("spawn", 100)
    x0, y0, x1, y1 = lay.box
    sx, sy = lay.extra["spawn_at"]
    assert sx < x0 - S.WALL - 40 and y0 < sy < y1


@pytest.mark.parametrize("engine", S.ENGINES)
def test_shooter_bullets_hit_the_crowd_and_are_deleted(built, engine):
    scene = built("shooter", engine, 200)
    agents = set(scene.entities if isinstance(scene, S.EcsScene) else scene.bodies)
    struck = 0  # agents a bullet touched
    for _ in range(40):
        scene.before_step()
        scene.step()
        struck += len(scene._hit & agents)
        scene.after_step()
        # fired = hit + expired + in flight; the hit and expired are deleted at the next step
        assert scene.fired == scene.hits + scene.expired + len(scene.shots)
        assert scene.deleted + len(scene._doomed) == scene.hits + scene.expired
        assert scene.body_count() == 200 + len(scene.shots) + len(scene._doomed)
    assert scene.fired == 40 * S.SHOTS_PER_STEP
    assert scene.hits > scene.fired // 2  # most of them hit something by now
    assert struck > 50  # and what they hit is the crowd
    assert scene.deleted > 100
    gone = list(scene._doomed)
    S.run(scene, 1)  # the doomed bullets go at the start of the next step
    assert gone and not any(_exists(scene, b) for b in gone)
    assert all(_exists(scene, b) for b in scene.shots)
    assert scene.stats()["escaped"] == 0


def test_shooter_fires_the_same_bullets_in_both_engines(built):
    ecs = built("shooter", "ecsphys", 100)
    pym = built("shooter", "pymunk-hash", 100)
    for scene in (ecs, pym):
        scene.before_step()
    assert ecs._batch == pym._batch and len(ecs._batch) == S.SHOTS_PER_STEP
    speeds = np.hypot(*np.array(ecs._batch)[:, 2:].T)
    np.testing.assert_allclose(speeds, S.SHOT_SPEED)


def test_overlapping_pairs_counts_as_brute_force():
    rng = np.random.default_rng(3)
    pos = rng.uniform(-7.0, 30.0, (400, 2))
    d = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1))
    iu = np.triu_indices(len(pos), 1)
    for deeper in (0.0, 0.1, 0.5):
        count, deepest = S.overlapping_pairs(pos, 1.0, deeper)
        assert count == int((d[iu] < 2.0 - deeper).sum())
        assert deepest == pytest.approx(max(0.0, 2.0 - d[iu].min()))


def test_overlap_scene_starts_with_most_bodies_overlapping():
    lay = S.layout("overlap", 2_000)
    count, deepest = S.overlapping_pairs(lay.dynamic_pos, lay.radius)
    assert count > 1_500  # about one pair per body
    assert deepest > 1.5  # some nearly concentric
    x0, y0, x1, y1 = lay.box
    p = lay.dynamic_pos
    assert (p[:, 0] > x0).all() and (p[:, 0] < x1).all()
    assert (p[:, 1] > y0).all() and (p[:, 1] < y1).all()


@pytest.mark.parametrize("engine", ["ecsphys", "pymunk"])
def test_overlap_run_times_every_step_and_the_bodies_separate(engine):
    from benchmarks import bench_first_step as F

    r = F.overlap_run(300, engine, later=20, warm=False)
    assert len(r["steps"]) == 20 and all(t > 0 for t in r["steps"])
    assert r["deep_start"] > 100
    assert r["deep_end"] < r["deep_start"]  # pushed apart
    assert r["escaped"] == 0
    assert (r["adopt"] > 0) == (engine == "ecsphys")
    text = F.overlap_table([r, r], 20)
    assert f"| 300 | {engine} |" in text


def test_runner_plan_has_the_small_rains_and_writes_what_it_ran(tmp_path):
    from benchmarks import __main__ as runner

    full = {(c.scene, c.n) for c in runner.cases(False, None)}
    assert {("rain", n) for n in (10, 100, 1_000, 5_000, 10_000, 20_000, 50_000)} <= full
    assert {("events", 10_000), ("crowd", 2_000), ("bullets", 500)} <= full
    assert {("spawn", n) for n in (1_000, 10_000, 50_000)} <= full
    assert ("shooter", 5_000) in full
    assert all(c.baseline == "rain" for c in runner.cases(False, ["spawn"]))
    quick = runner.cases(True, None)
    assert ("rain", 100) in {(c.scene, c.n) for c in quick}
    assert {"spawn", "shooter"} <= {c.scene for c in quick}
    # a tiny plan end to end: timings, stats, table, and the JSON read back
    plan = [runner.Case("rain", 10, 2, 5), runner.Case("bullets", 20, 0, 5)]
    results = runner.run_all(plan, 1)
    assert all(len(r.ms[e]) == 1 and r.ms[e][0] > 0 for r in results for e in S.ENGINES)
    assert results[1].stats["ecsphys"]["passed"] == 0
    text = runner.table(results, 1)
    assert "| rain | 10 |" in text and "| bullets | 20 |" in text
    runner.save_json(results, 1, tmp_path / "run.json")
    again = runner.load_json(tmp_path / "run.json")
    assert [r.ms for r in again] == [r.ms for r in results]
    assert [r.stats for r in again] == [r.stats for r in results]


def test_runner_times_spawn_against_plain_rain_in_the_same_rounds(tmp_path):
    from benchmarks import __main__ as runner

    plan = [runner.Case("spawn", 20, 2, 5, baseline="rain"), runner.Case("shooter", 30, 2, 5)]
    results = runner.run_all(plan, 2)
    spawn, shooter = results
    assert len(spawn.ms["ecsphys:rain"]) == 2 and all(len(spawn.ms[e]) == 2 for e in S.ENGINES)
    assert "spawned" not in spawn.stats["ecsphys:rain"]  # the plain rain spawns nothing
    assert spawn.stats["ecsphys"]["spawned"] == 7  # warm-up and timed steps
    assert spawn.stats["pymunk"]["deleted"] == 6
    assert spawn.baseline_ratio() == pytest.approx(
        spawn.median("ecsphys") / spawn.median("ecsphys:rain"))
    assert shooter.baseline_ratio() is None
    assert shooter.stats["pymunk-hash"]["fired"] == 7 * S.SHOTS_PER_STEP
    text = runner.table(results, 2)
    assert "| spawn | 20 |" in text and "| shooter | 30 |" in text
    assert "x plain rain" in text and "spawn N=20:" in text
    runner.save_json(results, 2, tmp_path / "run.json")
    again = runner.load_json(tmp_path / "run.json")
    assert [r.case for r in again] == plan
    assert [r.ms for r in again] == [r.ms for r in results]


def test_settled_pile_windows_start_from_the_settled_state_in_ecsphys():
    pile = S.SettledPile("ecsphys", 50, settle=2.0)
    try:
        first = pile.window()
        start = first.positions()
        S.run(first, 10)
        first.drop_rock()
        S.run(first, 5)
        assert first.stats()["hit_step"] == 1
        again = pile.window()  # the rock deleted, the snapshot restored
        assert again.rock is None and again.steps == 0 and again.body_count() == 50
        np.testing.assert_array_equal(again.positions(), start)
        assert pile.settles == 1 and pile.steps == 120
    finally:
        pile.close()


@pytest.mark.parametrize("engine", ["pymunk", "pymunk-hash"])
def test_settled_pile_in_pymunk_sleeps_and_settles_again_after_a_rock(engine):
    pile = S.SettledPile(engine, 50, settle=12.0)  # 50 balls are all asleep by 9 s
    try:
        first = pile.window()
        start = first.positions()
        assert first.asleep() == 50
        S.run(first, 30)
        second = pile.window()  # nothing moved in a sleeping pile: no settling again
        assert pile.settles == 1
        np.testing.assert_array_equal(second.positions(), start)
        second.drop_rock()
        assert second.asleep_at_drop == 50
        S.run(second, 5)
        stats = second.stats()
        assert stats["hit_step"] == 1 and stats["asleep"] < 50  # the rock woke the pile
        third = pile.window()  # settled again, to the same bits
        assert pile.settles == 2 and third.rock is None and third.asleep() == 50
        np.testing.assert_array_equal(third.positions(), start)
    finally:
        pile.close()


def test_rock_needs_room_and_settle_must_be_a_time():
    pile = S.SettledPile("pymunk", 10, settle=0.5)
    with pytest.raises(ValueError, match="no room for a rock"):
        pile.window().drop_rock()
    with pytest.raises(ValueError, match="settle"):
        S.SettledPile("pymunk", 10, settle=-1.0)
    with pytest.raises(ValueError, match="settle"):
        S.SettledPile("pymunk", 10, settle=float("nan"))


def test_runner_times_the_pile_and_the_rock_after_an_untimed_settle(tmp_path):
    from benchmarks import __main__ as runner

    full = runner.cases(False, ["pile", "rock"])
    assert {(c.scene, c.n) for c in full} == {(s, n) for s in ("pile", "rock")
                                              for n in (1_000, 10_000)}
    assert all(c.settle == S.SETTLE_S for c in full)
    assert {c.steps for c in full if c.scene == "rock"} == {31}  # the impact and 30 after
    n = 50
    plan = [runner.Case("pile", n, 5, 20, settle=2.0), runner.Case("rock", n, 5, 31, settle=2.0)]
    # each engine settles once; pymunk again for the second rock run (rock dropped in it)
    assert runner.settle_steps(plan, 2) == 3 * 120 + 2 * 120
    results = runner.run_all(plan, 2)
    pile, rock = results
    for res in results:
        assert all(len(res.ms[e]) == 2 and min(res.ms[e]) > 0 for e in S.ENGINES)
        for engine in S.ENGINES:
            stats = res.stats[engine]
            assert stats["escaped"] == 0
            assert 0.0 <= stats["vmax"] < 50.0
            assert ("asleep" in stats) == (engine != "ecsphys")
            if engine != "ecsphys":
                assert isinstance(stats["asleep"], int) and 0 <= stats["asleep"] <= n
    for engine in S.ENGINES:
        stats = rock.stats[engine]
        assert stats["hit_step"] == 1  # the first timed step is the impact
        assert stats["rock_out"] == 0
        assert 0.0 < stats["rock_fell"] < 12.0  # fell onto the pile, not through the floor
        if engine != "ecsphys":
            assert 0 <= stats["asleep_before"] <= n
    text = runner.table(results, 2)
    assert f"| pile | {n} |" in text and f"| rock | {n} |" in text
    row = next(line for line in text.splitlines() if line.startswith(f"| rock | {n} |"))
    assert "hit_step 1" in row and "rock_out 0" in row and "asleep_before" in row
    assert "vmax" in next(line for line in text.splitlines()
                          if line.startswith(f"| pile | {n} |"))
    assert "settled 2 simulated s" in text
    runner.save_json(results, 2, tmp_path / "run.json")
    again = runner.load_json(tmp_path / "run.json")
    assert [r.case for r in again] == plan


def test_stray_times_a_sleeping_pile_while_one_ball_falls_beside_it():
    from benchmarks import __main__ as runner

    full = runner.cases(False, ["stray"])
    assert {(c.scene, c.n) for c in full} == {("stray", 1_000), ("stray", 10_000)}
    assert any(c.scene == "stray" for c in runner.cases(True, None))
    (res,) = runner.run_all([runner.Case("stray", 50, 5, 20, settle=12.0)], 2)
    for engine in S.ENGINES:
        stats = res.stats[engine]
        assert stats["stray_awake"] == 1 and stats["escaped"] == 0
        if engine != "ecsphys":
            assert stats["asleep"] == 50  # the pile slept through the stray's fall
    pile = S.SettledPile("ecsphys", 50, settle=12.0)
    try:
        scene = pile.window()
        bodies = scene.physics.stats["bodies"]
        scene.add_stray()
        S.run(scene, 20)
        assert scene.physics.stats["sleeping"] == 50  # the pile, all asleep ...
        assert scene.physics.stats["box_pairs"] == 0  # ... in no pair: the stray falls alone
        assert scene.stray_awake() == 1
        with pytest.raises(ValueError, match="stray"):
            scene.add_stray()
        again = pile.window()  # the stray is gone, the pile as settled
        assert again.stray is None and again.physics.stats["bodies"] == bodies
    finally:
        pile.close()


def test_wake_bench_times_the_rock_on_a_sleeping_and_on_an_awake_pile():
    from benchmarks import bench_wake as W

    pile = S.SettledPile("ecsphys", 50, settle=12.0)
    try:
        asleep = W.impact_step(pile, awake=False)  # raises unless asleep, struck and woken
        scene = pile._scene
        assert scene.physics.stats["sleeping"] < 50
        awake = W.impact_step(pile, awake=True)  # raises if the woken pile slept again
        assert set(asleep) == set(awake) == set(W.STAGES)
        assert all(v > 0 for v in (*asleep.values(), *awake.values()))
        assert scene.rock is not None and scene.physics.touching(scene.rock)
    finally:
        pile.close()
    got = W.measure(50, 1, settle=12.0)
    assert set(got) == {"asleep", "awake"} and all(
        got[k]["step"] >= got[k]["response"] > 0 for k in got)


def test_wake_bench_times_a_rock_waking_one_ball_of_a_sleeping_field():
    from benchmarks import bench_wake as W

    got = W.field_cycles(40, 3)  # raises unless asleep, struck, woken and asleep again
    assert got["woken"] == 1 and got["impact"] > 0 and got["before"] > 0
