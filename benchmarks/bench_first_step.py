"""The first step: from a cold start, and in a world where many bodies start overlapping.

1. Cold start: a fresh process imports ecsphys, builds a 1,000-body rain and runs its first
   step; what that costs (import, build, first step with adoption).
2. Overlaps: the ``overlap`` scene of `benchmarks.scenes` (``rain``'s box, bodies and density,
   the bodies placed at random: 86% of them start overlapping another, two overlaps each on
   average) at 10,000 and 50,000 bodies, in ecsphys and pymunk; the first step against a later
   one. Each run is a fresh process that first builds and steps a 200-body overlap scene (so
   the first calls of the process, imports and NumPy's first dispatch, are not charged to the
   big scene), then builds the scene (ecsphys adopts it right after the build, timed apart:
   "adopt"), and times steps 1 to 60 one by one (the collector off, as in the runner); the
   later step is the median of steps 51 to 60, and the table counts the steps slower than
   3 times it (how long the first steps' extra work lasts).

Guarantees: each run is a fresh ``python -c`` process (nothing cached in memory), the runs
are sequential, and the tables show each part's median over the runs with its min and max;
a ratio is the median of the runs' ratios. The overlap table also shows the pairs overlapping
by more than 0.1 (a tenth of the radius; pymunk's collision slop) before the first step and
after the last, and the deepest overlap then, so a fast first step that leaves the bodies in
each other shows.
Cold start measured on the development machine (2 cores, 2026-11): 0.14-0.19 s in all when
quiet, 0.20-0.41 s with other work running; the import (mostly NumPy) is 0.11-0.29 s of it,
building the scene 0.01 s and the first step (adopting the 1,004 bodies included)
0.03-0.08 s; since the broadphase stopped calling ``np.median`` (about 17 ms on its first
call in a process) the first step is 0.013 s (2026-11-26: import 0.32 s, build 0.03 s).
(It was a timed unit test; on a loaded machine it failed, so it is measured here.)
Overlaps measured on the same machine (2026-11-26, other work running; six sets of 5 runs):
step 1 / later 2.3-2.9 at 50,000 bodies (step 1 about 150-250 ms, later 60-90 ms) and
2.0-3.0 at 10,000.

    python -m benchmarks.bench_first_step [--runs 7] [--only cold|overlap]
        [--overlap-n 10000,50000] [--overlap-runs 3] [--engines ecsphys,pymunk-hash] [--later 60]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repo root, where ``benchmarks`` imports
#: pairs deeper than this count as overlapping in the overlap table (pymunk's collision slop)
DEEP = 0.1
#: the later step the first is compared with: the median of the last ``LATER_WINDOW`` steps
LATER_WINDOW = 10

_SCRIPT = r'''
import time
t0 = time.perf_counter()
import ecsphys as ep
import esper
t1 = time.perf_counter()
physics = ep.Physics(fixed_dt=1 / 60)
w, h = 80.0, 100.0
for x, y, sw, sh in ((w / 2, -1, w + 4, 2), (w / 2, h + 1, w + 4, 2), (-1, h / 2, 2, h),
                     (w + 1, h / 2, 2, h)):
    esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(sw, sh)))
circle = ep.Circle(1.0)
for i in range(1000):  # a rain of 1,000 circles on a grid of spacing 2.5
    esper.create_entity(ep.Position(1.25 + (i % 32) * 2.5, 1.25 + (i // 32) * 2.5),
                        ep.Velocity((i * 7) % 11 - 5.0, (i * 3) % 7 - 3.0),
                        ep.AccelerationMap(gravity=(0.0, -9.8)),
                        ep.Collider(ep.ACTIVE), ep.Geometry(circle))
t2 = time.perf_counter()
physics.step()
t3 = time.perf_counter()
import json, sys
print(json.dumps({
    "total": t3 - t0, "import": t1 - t0, "build": t2 - t1, "step": t3 - t2,
    "bodies": physics.body_count, "steps": physics.steps,
    "compilers": sorted(m for m in ("Cython", "pyximport", "distutils", "setuptools")
                        if m in sys.modules),
}))
'''


def fresh_run() -> dict:
    """One cold start in a new process: its timings (seconds) and what it saw."""
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         timeout=120)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout)


def overlap_run(n: int, engine: str, later: int = 60, warm: bool = True) -> dict:
    """In this process: the ``overlap`` scene at ``n`` bodies in ``engine``; seconds of its
    build, of the adoption (ecsphys; 0.0 in pymunk, which adds in the build) and of each of
    steps 1 to ``later``, and the pairs deeper than `DEEP` (with the deepest overlap) before
    the first step and after the last. ``warm``: build and step a 200-body scene first."""
    from benchmarks import scenes as S  # imports pymunk too: only when asked for

    if warm:
        small = S.build("overlap", engine, 200)
        S.run(small, 3)
        small.close()
    gc.collect()
    t0 = time.perf_counter()
    scene = S.build("overlap", engine, n)
    build = time.perf_counter() - t0
    try:
        r = scene.layout.radius
        start = S.overlapping_pairs(scene.positions(), r, DEEP)
        steps = []
        gc.collect()
        gc.disable()
        try:
            for _ in range(later):
                scene.before_step()
                t0 = time.perf_counter()
                scene.step()
                steps.append(time.perf_counter() - t0)
                scene.after_step()
        finally:
            gc.enable()
        end = S.overlapping_pairs(scene.positions(), r, DEEP)
        return {"n": n, "engine": engine, "build": build,
                "adopt": getattr(scene, "adopt_s", 0.0), "steps": steps,
                "deep_start": start[0], "deepest_start": start[1], "deep_end": end[0],
                "deepest_end": end[1], "escaped": scene.escaped()}
    finally:
        scene.close()


_OVERLAP_SCRIPT = (
    "import json, sys\n"
    "from benchmarks.bench_first_step import overlap_run\n"
    "print(json.dumps(overlap_run(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]))))\n")


def fresh_overlap_run(n: int, engine: str, later: int = 60) -> dict:
    """`overlap_run` in a new process (run from the repo root)."""
    out = subprocess.run([sys.executable, "-c", _OVERLAP_SCRIPT, str(n), engine, str(later)],
                         capture_output=True, text=True, timeout=1800, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _spread(values: list[float], scale: float = 1.0, fmt: str = "{:.2f}") -> str:
    v = [x * scale for x in values]
    return (f"{fmt.format(statistics.median(v))} "
            f"({fmt.format(min(v))}–{fmt.format(max(v))})")


def overlap_table(runs: list[dict], later: int) -> str:
    """The markdown table of `overlap_run` results: one row per (N, engine), in run order."""
    lines = [
        f"first step of the overlap scene against a later one (the median of steps "
        f"{later - LATER_WINDOW + 1}–{later}); ms: median of the runs (min–max); ratios and "
        "slow steps: median of the runs' (min–max); pairs: the last run's",
        "",
        f"| N | engine | adopt ms | step 1 ms | step 2 ms | later step ms | step 1 / later "
        f"| (adopt + step 1) / later | steps > 3x later "
        f"| pairs deeper than {DEEP}: start → after step {later} "
        f"| deepest after step {later} |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    keys: list[tuple[int, str]] = []
    for r in runs:
        if (r["n"], r["engine"]) not in keys:
            keys.append((r["n"], r["engine"]))
    for n, engine in keys:
        rs = [r for r in runs if (r["n"], r["engine"]) == (n, engine)]
        first = [r["steps"][0] for r in rs]
        second = [r["steps"][1] for r in rs]
        late = [statistics.median(r["steps"][-LATER_WINDOW:]) for r in rs]
        slow = [sum(t > 3 * lt for t in r["steps"]) for r, lt in zip(rs, late, strict=True)]
        adopt = [r["adopt"] for r in rs]
        ratio = [f / lt for f, lt in zip(first, late, strict=True)]
        with_adopt = [(a + f) / lt for a, f, lt in zip(adopt, first, late, strict=True)]
        adopt_cell = _spread(adopt, 1e3) if any(adopt) else "–"
        last = rs[-1]
        lines.append(
            f"| {n:,} | {engine} | {adopt_cell} | {_spread(first, 1e3)} | {_spread(second, 1e3)} "
            f"| {_spread(late, 1e3)} | {_spread(ratio)} "
            f"| {_spread(with_adopt) if any(adopt) else '–'} | {_spread(slow, fmt='{:g}')} "
            f"| {last['deep_start']:,} → {last['deep_end']:,} | {last['deepest_end']:.3f} |")
    return "\n".join(lines)


def cold_start(runs: int) -> None:
    """Print the cold-start section: ``runs`` fresh processes."""
    results = [fresh_run() for _ in range(runs)]
    print(f"first step of a 1,000-body rain from a cold start, {runs} fresh processes")
    for part in ("total", "import", "build", "step"):
        vals = [r[part] for r in results]
        print(f"{part:>7}: median {statistics.median(vals):.3f} s "
              f"({min(vals):.3f}-{max(vals):.3f})")


def overlaps(sizes: list[int], engines: list[str], runs: int, later: int) -> str:
    """Run the overlap section (each (N, engine) ``runs`` times, the engines alternating within
    each round, every run a fresh process) and return its table; a run that fails (its error
    on stderr) is left out and named under the table, the others are kept."""
    results, failed = [], []
    for n in sizes:
        for _ in range(runs):
            for engine in engines:
                sys.stderr.write(f"overlap N={n:,} {engine}\n")
                try:
                    results.append(fresh_overlap_run(n, engine, later))
                except (RuntimeError, subprocess.TimeoutExpired) as exc:
                    sys.stderr.write(f"{exc}\n")
                    failed.append(f"N={n:,} {engine}")
    text = overlap_table(results, later)
    if failed:
        text += "\n\nfailed runs (left out): " + ", ".join(failed)
    return text


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="cold start: fresh processes")
    ap.add_argument("--only", choices=("cold", "overlap"), default=None,
                    help="run one section only")
    ap.add_argument("--overlap-n", default="10000,50000", help="overlap: comma-separated N")
    ap.add_argument("--overlap-runs", type=int, default=3, help="overlap: runs per N, engine")
    ap.add_argument("--engines", default="ecsphys,pymunk-hash",
                    help="overlap: comma-separated engines (ecsphys, pymunk, pymunk-hash)")
    ap.add_argument("--later", type=int, default=60, help="overlap: steps timed per run "
                    f"(the later step is the median of the last {LATER_WINDOW})")
    args = ap.parse_args(argv)
    if args.later < 2 * LATER_WINDOW:
        ap.error(f"--later must be at least {2 * LATER_WINDOW}")
    if args.only != "overlap":
        cold_start(args.runs)
    if args.only != "cold":
        if args.only is None:
            print()
        sizes = [int(v.replace("_", "")) for v in args.overlap_n.split(",") if v]
        engines = [e for e in args.engines.split(",") if e]
        print(overlaps(sizes, engines, args.overlap_runs, args.later))


if __name__ == "__main__":
    main()
