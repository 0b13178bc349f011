"""Nothing is compiled at run time: a fresh process imports ecsphys, builds a 1,000-body
scene and steps it without Cython, pyximport or a C compiler (the compiled core is built
ahead of time). How long that first step takes is measured in
``benchmarks/bench_first_step.py`` (a timed assertion fails on a loaded machine).
"""

from __future__ import annotations

from benchmarks.bench_first_step import fresh_run


def test_a_fresh_process_steps_a_1000_body_scene_without_compiling_anything():
    r = fresh_run()
    assert r["bodies"] == 1004 and r["steps"] == 1  # 1,000 circles and 4 walls, stepped
    assert r["compilers"] == [], f"compiled at run time? imported {r['compilers']}"
