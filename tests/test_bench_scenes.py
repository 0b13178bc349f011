"""The benchmark scenes at small N, through the same builders the runner uses: real counts,
never timings (no escapes from the rain box, no bullet through a wall in ecsphys, contacts in
settled rain, crowd agents making progress, both engines built alike)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo root: benchmarks/

from benchmarks import scenes as S  # noqa: E402


@pytest.fixture
def built():
    made: list[S.Scene] = []

    def make(name: str, engine: str, n: int) -> S.Scene:
        scene = S.build(name, engine, n)
        made.append(scene)
        return scene

    yield make
    for scene in made:
        scene.close()


@pytest.mark.parametrize("name", ["rain", "crowd", "bullets"])
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


def test_runner_plan_has_the_small_rains_and_writes_what_it_ran(tmp_path):
    from benchmarks import __main__ as runner

    full = {(c.scene, c.n) for c in runner.cases(False, None)}
    assert {("rain", n) for n in (10, 100, 1_000, 5_000, 10_000, 20_000, 50_000)} <= full
    assert {("events", 10_000), ("crowd", 2_000), ("bullets", 500)} <= full
    quick = runner.cases(True, None)
    assert ("rain", 100) in {(c.scene, c.n) for c in quick}
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
