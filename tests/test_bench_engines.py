"""The benchmark's three engines (ecsphys, pymunk, Box2D through pyb2d3) and the C limit build
each scene from the same layout and really simulate it at a tiny N: the bodies fall, the pile
has contacts, the settled Box2D pile sleeps, the runner's special rows (level load, memory per
body) produce numbers. Counts only, never timings."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo root: benchmarks/

from benchmarks import scenes as S  # noqa: E402

ENGINES = ("ecsphys", "pymunk", "box2d")


@pytest.mark.parametrize("name", ["rain", "events", "spawn", "overlap"])
@pytest.mark.parametrize("engine", ENGINES)
def test_falling_scenes_fall_and_touch(built, name, engine):
    scene = built(name, engine, 40)
    start = scene.positions()
    S.run(scene, 60)
    end = scene.positions()
    assert end.shape == start.shape == (40, 2) and np.isfinite(end).all()
    assert end[:, 1].mean() < start[:, 1].mean() - 1.0  # they fell
    stats = scene.stats()
    assert stats["escaped"] == 0
    assert stats["contacts"] > 10  # on the floor and on each other


def test_box2d_starts_from_the_same_state_as_the_others(built):
    for name in ("rain", "crowd", "bullets"):
        box2d = built(name, "box2d", 30).positions()
        np.testing.assert_allclose(box2d, built(name, "ecsphys", 30).positions(), atol=1e-5)


def test_box2d_counts_touches_spawns_and_stops_bullets(built):
    events = built("events", "box2d", 40)
    S.run(events, 60)
    assert events.touches >= events.separates > 0
    spawn = built("spawn", "box2d", 20)
    S.run(spawn, 5)
    assert (spawn.spawned, spawn.deleted, spawn.body_count()) == (5, 4, 21)
    bullets = built("bullets", "box2d", 50)
    S.run(bullets, 10)
    assert bullets.stats()["passed"] == 0  # Box2D's continuous collision against statics
    crowd = built("crowd", "box2d", 100)
    S.run(crowd, 30)
    assert crowd.stats()["progress"] > 0.1


def test_shooter_is_not_built_in_box2d():
    with pytest.raises(NotImplementedError):
        S.build("shooter", "box2d", 10)


@pytest.mark.parametrize("engine", (*ENGINES, "c-limit"))
def test_the_empty_world_steps(built, engine):
    scene = built("empty", engine, 0)
    S.run(scene, 3)
    assert scene.n == 0 and scene.stats() == {"contacts": 0, "escaped": 0}


def test_c_limit_rain_falls_stays_in_the_box_and_finds_pairs(built):
    scene = built("rain", "c-limit", 100)
    start = scene.positions()
    np.testing.assert_array_equal(start, S.rain_layout(100).dynamic_pos)
    S.run(scene, 120)
    assert scene.positions()[:, 1].mean() < start[:, 1].mean() - 1.0
    assert scene.stats()["escaped"] == 0
    assert scene.contacts() > 50  # overlapping pairs found by its grid in the last step


@pytest.mark.parametrize("engine", ENGINES)
def test_settled_pile_has_contacts_and_a_rock_wakes_it(engine):
    pile = S.SettledPile(engine, 60, settle=12.0)
    try:
        scene = pile.window()
        S.run(scene, 10)
        stats = scene.stats()
        assert stats["escaped"] == 0
        if engine != "pymunk":  # (pymunk counts no contacts of sleeping bodies)
            assert stats["contacts"] > 30
        if engine != "ecsphys":
            assert stats["asleep"] == 60  # the pile sleeps
        scene.drop_rock()
        S.run(scene, 10)
        stats = scene.stats()
        assert stats["contacts"] > 30  # the woken pile touches in every engine
        assert 1 <= stats["hit_step"] <= 2 and stats["rock_out"] == 0
        assert 0.0 < stats["rock_fell"] < 12.0
        if engine != "ecsphys":
            assert stats["asleep"] < 60  # the rock woke it
        again = pile.window()  # settled again after the rock, asleep as before
        assert again.rock is None
        if engine != "ecsphys":
            assert again.asleep() == 60
    finally:
        pile.close()


def test_runner_rows_for_all_engines_load_and_memory(tmp_path):
    from benchmarks import __main__ as runner

    full = runner.cases(False, None)
    rain = [c for c in full if c.scene == "rain"]
    assert {c.n for c in rain} >= {10, 100, 1_000, 10_000, 50_000}
    assert all({"ecsphys", "box2d", "c-limit"} <= set(c.engines) for c in rain)
    pile = [c for c in full if c.scene == "pile"]
    assert pile and all({"pymunk", "box2d"} <= set(c.engines) for c in pile)
    assert {("empty", 0), ("load", 10_000), ("memory", 10_000)} <= {(c.scene, c.n) for c in full}
    plan = [runner.Case("empty", 0, 2, 5, runner.NO_HASH),
            runner.Case("rain", 20, 2, 5, (*S.ALL_ENGINES, "c-limit")),
            runner.Case("load", 50, 0, 1, runner.NO_HASH),
            runner.Case("memory", 200, 0, 0, runner.NO_HASH)]
    results = runner.run_all(plan, 1)
    for res in results:
        assert set(res.ms) == set(res.case.engines), res.errors
    rain = results[1]
    assert rain.best_peer() in runner.PEERS
    assert rain.stats["box2d"]["contacts"] > 0
    assert results[2].stats["box2d"]["bodies"] == 50
    text = runner.table(results, 1)
    assert "| rain | 20 |" in text and "Level load" in text and "Memory per body" in text
    runner.save_json(results, 1, tmp_path / "run.json")
    assert [r.ms for r in runner.load_json(tmp_path / "run.json")] == [r.ms for r in results]
    assert runner.plot_engines([rain, rain.__class__(runner.Case("rain", 40, 0, 1), rain.ms)],
                               tmp_path / "engines.png")
    assert (tmp_path / "engines.png").stat().st_size > 10_000
