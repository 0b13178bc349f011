"""The side-by-side benchmark runner: ecsphys against pymunk 7 and Box2D v3, scene by scene.

Guarantees:
- every scene is built in each engine from the same layout (`benchmarks.scenes`), and the
  engines' runs alternate within this one process (ecsphys, pymunk tree, pymunk hash, Box2D
  through pyb2d3, and in the rain the C limit, repeat), so load from other processes hits
  them alike; Box2D builds every scene but ``shooter`` (that row is ecsphys and pymunk only);
- a run = a fresh build, the warm-up steps, then the timed steps (only ``Scene.step`` is
  timed: one physics step, and in ``spawn`` and ``shooter`` the game's creates and deletes of
  that step too, see `benchmarks.scenes`), in CPU time (``time.process_time``: what the
  process spent, not what other processes took from the machine meanwhile); ms per step of a
  run is its timed total over its step count; the table shows the median of the runs with
  their min and max, and the ratio ecsphys / the best peer (pymunk with either broadphase or
  Box2D, whichever has the lowest median there);
- ``empty`` times the step of a world with no bodies (the fixed cost of a step); ``load``
  times a level load: building the rain of 10,000 bodies and its first step (CPU ms, one per
  run); ``memory`` measures the memory per body of the rain of 10,000 bodies: the growth of
  resident memory over an empty world, in a fresh subprocess per engine and run
  (`benchmarks.memory`); the rain's rows also time the C limit (`benchmarks.c_limit`: the
  same rain in a tight C loop of integration, grid and circle tests, the floor under any
  engine);
- each row also shows what the engines did (contacts, touches/separates, escapes, bullets
  through walls, crowd progress, bodies spawned and deleted, bullets fired and hits) from the
  last run;
- a case with a baseline (``spawn``: ``rain`` at the same N) also times ecsphys on the baseline
  scene in every round, right after its own ecsphys run (spawn, plain rain, pymunk tree,
  pymunk hash, repeat), and shows the ratio of the medians (``spawn / rain``: what creating and
  deleting a body every step costs ecsphys) in its row and in the notes under the table;
- ``pile`` and ``rock`` start from the rain settled into a pile (40 simulated seconds, or
  ``--settle SECONDS``) in each engine, pymunk with sleeping on: each engine and N is settled
  once in the whole run (`benchmarks.scenes.SettledPile`, shared by ``pile`` and ``rock``;
  the settling steps show in the progress line and are never timed), and every run starts
  from that state (ecsphys restores its snapshot; pymunk, whose space cannot be copied
  asleep, settles again only when a rock was dropped into its pile or the pile was not all
  asleep); ``pile`` times 120 steps of the resting pile; ``rock`` drops a rock on it (untimed)
  and times the step of the impact and the 30 after it; ``stray`` adds one ball falling far
  beside the pile (untimed) and times 120 steps of the pile asleep while that ball is awake;
- the full plan has rain at 10, 100, 1,000 ... 50,000 bodies; the small rains run thousands
  of steps (about 0.5 s of ecsphys steps per run), the big ones 120; spawn at 1,000, 10,000
  and 50,000 (a body created and one deleted every step), shooter with crowds of 1,000,
  5,000 and 10,000 (10 bullets fired a step), pile at 1,000 and 10,000, rock at 1,000 and
  10,000 (at 10,000 against pymunk's spatial hash only: each pymunk rock run after the first
  settles 10,000 bodies again, three minutes each), stray at 1,000 and 10,000; ``--quick``
  has a small spawn and shooter and the pile, rock and stray at 1,000;
- writes ``benchmarks/results/last_run.md`` (the table), ``last_run.json`` (every run's
  numbers; ``--replot last_run.json`` draws the plots again), ``benchmarks/results/rain.png``
  (rain: ms per step against N, log-log, ecsphys and pymunk's better broadphase, and the ratio
  ecsphys / pymunk below) and ``docs/engines.png`` (rain: one line per engine and the C limit,
  log-log; other runs write it as ``NAME_engines.png`` beside their table unless
  ``--plot-docs``); ``--quick``, ``--scenes``, ``--n`` and ``--settle`` runs write
  ``quick_run.md`` / ``partial_run.md`` (and ``.json``, ``*_rain.png``) instead, so a partial
  run never overwrites the full one (``--name`` picks another name).

    python -m benchmarks [--quick] [--scenes rain,crowd] [--n 1000,10000] [--runs 3] [--no-plot]
                         [--name NAME] [--settle SECONDS] [--plot-docs]
    python -m benchmarks --replot benchmarks/results/last_run.json
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import scenes as S

RESULTS = Path(__file__).parent / "results"
DOCS_PLOT = Path(__file__).resolve().parents[1] / "docs" / "engines.png"
PEERS = ("pymunk", "pymunk-hash", "box2d")  # the engines ecsphys is compared with
#: the rows that time something other than a step: a level load (ms to build N bodies and take
#: the first step) and the memory per body (bytes, in a fresh subprocess per engine)
SPECIAL = ("load", "memory")
NO_HASH = ("ecsphys", "pymunk", "box2d")  # one pymunk: its broadphase is not what is measured


@dataclass
class Case:
    """One row of the table: a scene at one N with its step counts."""

    scene: str
    n: int
    warmup: int
    steps: int
    engines: tuple[str, ...] = S.ENGINES
    #: a scene ecsphys also runs at this N in every round (its ms under ``baseline_key``)
    baseline: str | None = None
    #: pile, rock: simulated seconds the rain settles (once per engine and N) before the runs
    settle: float = 0.0

    @property
    def baseline_key(self) -> str:
        """The key of the baseline's timings in `Result.ms` (``"ecsphys:rain"``)."""
        return f"ecsphys:{self.baseline}"

    def runs_per_round(self) -> int:
        return len(self.engines) + (self.baseline is not None and "ecsphys" in self.engines)


@dataclass
class Result:
    """Timings (ms per step, one per run) and the last run's stats, per engine."""

    case: Case
    ms: dict[str, list[float]] = field(default_factory=dict)
    stats: dict[str, dict[str, float | int]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def median(self, engine: str) -> float:
        return statistics.median(self.ms[engine]) if self.ms.get(engine) else float("nan")

    def best_pymunk(self) -> str | None:
        names = [e for e in ("pymunk", "pymunk-hash") if self.ms.get(e)]
        return min(names, key=self.median) if names else None

    def best_peer(self) -> str | None:
        """The fastest of pymunk (either broadphase) and Box2D here, by median."""
        names = [e for e in PEERS if self.ms.get(e)]
        return min(names, key=self.median) if names else None

    def ratio(self, peer: str | None = None) -> float | None:
        """ecsphys's median over ``peer``'s (default: the best peer's); None without both."""
        peer = peer or self.best_peer()
        if not peer or not self.ms.get(peer) or not self.ms.get("ecsphys"):
            return None
        return self.median("ecsphys") / self.median(peer)

    def baseline_ratio(self) -> float | None:
        """ecsphys's median on the scene over its median on the baseline (None without)."""
        if self.case.baseline is None or not self.ms.get(self.case.baseline_key) \
                or not self.ms.get("ecsphys"):
            return None
        return self.median("ecsphys") / self.median(self.case.baseline_key)


def cases(quick: bool, only: list[str] | None) -> list[Case]:
    """The benchmark plan; ``--quick`` runs fewer and shorter cases.

    The small rains (10 and 100 bodies, what many games have) take far more steps than the big
    ones: a step is a fraction of a millisecond there, so a run needs thousands of steps to be
    timed well (about 0.5 s of ecsphys steps per run; pymunk's runs are shorter).
    """
    three = S.ALL_ENGINES  # ecsphys, pymunk (tree and hash), Box2D
    rain_engines = (*three, "c-limit")
    no_box2d = ("ecsphys", "pymunk", "pymunk-hash")
    if quick:
        plan = [Case("empty", 0, 100, 2_000, NO_HASH),
                Case("rain", 100, 50, 300, rain_engines),
                Case("rain", 1_000, 10, 30, rain_engines),
                Case("rain", 10_000, 10, 30, rain_engines),
                Case("events", 1_000, 10, 30, three), Case("crowd", 2_000, 10, 30, three),
                Case("bullets", 500, 0, 30, three),
                Case("spawn", 1_000, 10, 100, three, baseline="rain"),
                Case("shooter", 1_000, 10, 30, no_box2d),
                Case("pile", 1_000, 60, 120, three, settle=S.SETTLE_S),
                Case("rock", 1_000, 60, 31, three, settle=S.SETTLE_S),
                Case("stray", 1_000, 60, 120, three, settle=S.SETTLE_S),
                Case("load", 1_000, 0, 1, NO_HASH), Case("memory", 1_000, 0, 0, NO_HASH)]
    else:
        # the empty step: a fraction of a microsecond to a few, so many steps a run
        plan = [Case("empty", 0, 1_000, 20_000, NO_HASH),
                Case("rain", 10, 300, 4_000, rain_engines),
                Case("rain", 100, 200, 1_200, rain_engines)]
        plan += [Case("rain", n, 30, 120, rain_engines) for n in (1_000, 5_000, 10_000, 20_000)]
        plan += [Case("rain", 50_000, 30, 120, ("ecsphys", "pymunk-hash", "box2d", "c-limit")),
                 Case("events", 10_000, 30, 120, three), Case("crowd", 2_000, 30, 120, three),
                 Case("bullets", 500, 0, 120, three),
                 # a spawn step costs the rain step plus one create and one delete: the
                 # small N needs many steps to time that difference
                 Case("spawn", 1_000, 100, 1_000, three, baseline="rain"),
                 Case("spawn", 10_000, 30, 300, three, baseline="rain"),
                 Case("spawn", 50_000, 30, 120, ("ecsphys", "pymunk-hash", "box2d"),
                      baseline="rain")]
        plan += [Case("shooter", n, 30, 120, no_box2d) for n in (1_000, 5_000, 10_000)]
        # the settled pile: 60 untimed steps after each run's start from the settled state,
        # then 120 timed; the rock: the step of its impact and the 30 after it
        plan += [Case("pile", n, 60, 120, three, settle=S.SETTLE_S) for n in (1_000, 10_000)]
        plan += [Case("stray", n, 60, 120, three, settle=S.SETTLE_S) for n in (1_000, 10_000)]
        plan += [Case("rock", 1_000, 60, 31, three, settle=S.SETTLE_S),
                 Case("rock", 10_000, 60, 31, ("ecsphys", "pymunk-hash", "box2d"),
                      settle=S.SETTLE_S)]
        # a level load of 10,000 bodies and the memory they take, per engine
        plan += [Case("load", 10_000, 0, 1, NO_HASH), Case("memory", 10_000, 0, 0, NO_HASH)]
    if only:
        plan = [c for c in plan if c.scene in only]
    return plan


class Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.start = time.perf_counter()

    def update(self, label: str, steps: int = 0) -> None:
        self.done += steps
        frac = min(self.done / self.total, 1.0)
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        elapsed = time.perf_counter() - self.start
        sys.stderr.write(f"\r[{bar}] {frac * 100:5.1f}% {elapsed:6.1f}s  {label:<40}")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")


Piles = dict[tuple[str, int, float, int], S.SettledPile]


def settled(case: Case, engine: str, progress: Progress, seed: int,
            piles: Piles) -> S.SettledPile:
    """The case's settled pile in ``engine`` from ``piles``, settled now if it is not there
    (the settling steps counted in the progress line)."""
    key = (engine, case.n, case.settle, seed)
    if key not in piles:
        piles[key] = S.SettledPile(engine, case.n, seed, case.settle,
                                   report=_settle_report(f"{case.scene} N={case.n:,} {engine}",
                                                         progress))
    pile = piles[key]
    pile.report = _settle_report(f"{case.scene} N={case.n:,} {engine}", progress)
    return pile


def _settle_report(label: str, progress: Progress) -> object:
    last = [0]

    def report(done: int, total: int) -> None:
        if done < last[0]:  # settling again
            last[0] = 0
        progress.update(f"{label} settle {done}/{total} steps", done - last[0])
        last[0] = done

    return report


def one_run(case: Case, engine: str, progress: Progress, seed: int,
            scene_name: str | None = None, piles: Piles | None = None) -> tuple[float, dict]:
    """Build, warm up and time one run (of ``scene_name``, default the case's scene); returns
    (ms per step, stats). A settled case (``pile``, ``rock``) starts from its `SettledPile`
    in ``piles`` (settled there on first use) instead of a new build; ``rock`` drops its rock
    after the warm-up, untimed."""
    name = scene_name or case.scene
    label = f"{name} N={case.n} {engine}"
    progress.update(label)
    if name == "load":
        return _load_run(case, engine, seed)
    if name == "memory":
        return _memory_run(case, engine)
    if case.settle or name in S.SETTLED:
        pile = settled(case, engine, progress, seed, piles if piles is not None else {})
        scene = pile.window()
        progress.update(label)
    else:
        pile = None
        scene = S.build(name, engine, case.n, seed)
    try:
        with scene.playing():  # (ecsphys: its world current, as a game's while it plays)
            S.run(scene, case.warmup)
            progress.update(label, case.warmup)
            if name == "rock":
                scene.drop_rock()
            elif name == "stray":
                scene.add_stray()
            total = 0.0
            gc.collect()
            gc.disable()
            try:
                for i in range(case.steps):
                    scene.before_step()
                    t0 = time.process_time()
                    scene.step()
                    total += time.process_time() - t0
                    scene.after_step()
                    if i % 10 == 9:
                        progress.update(label, 10)
            finally:
                gc.enable()
        progress.update(label, case.steps % 10)
        return total * 1000.0 / case.steps, scene.stats()
    finally:
        if pile is None or piles is None:  # a settled scene belongs to its pile
            scene.close()


def _load_run(case: Case, engine: str, seed: int) -> tuple[float, dict]:
    """A level load: CPU ms to build the rain of ``case.n`` bodies in ``engine`` (statics,
    bodies, shapes; ecsphys: the esper entities and their adoption) and take its first step."""
    gc.collect()
    t0 = time.process_time()
    scene = S.build("rain", engine, case.n, seed)
    with scene.playing():
        scene.step()
    ms = (time.process_time() - t0) * 1000.0
    scene.after_step()
    try:
        return ms, {"contacts": scene.contacts(), "bodies": scene.n}
    finally:
        scene.close()


def _memory_run(case: Case, engine: str) -> tuple[float, dict]:
    """Bytes per body of the rain of ``case.n`` bodies in ``engine``, measured in a fresh
    subprocess (`benchmarks.memory`)."""
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-m", "benchmarks.memory", engine, str(case.n)],
                         cwd=root, capture_output=True, text=True)
    if out.returncode != 0:
        raise NotImplementedError(f"memory run failed: {out.stderr.strip()[-300:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return got["bytes_per_body"], {"rss_empty_mb": round(got["rss_empty"] / 2**20, 1),
                                   "rss_rain_mb": round(got["rss_rain"] / 2**20, 1)}


def settle_steps(plan: list[Case], runs: int) -> int:
    """About how many settling steps the plan takes: each engine and N of a settled case once,
    and for pymunk once more for each rock run after the first (see `S.SettledPile`)."""
    keys = {(e, c.n, c.settle) for c in plan if c.settle or c.scene in S.SETTLED
            for e in c.engines}
    once = sum(round(settle / S.DT) for _, _, settle in keys)
    again = sum((runs - 1) * round(c.settle / S.DT) for c in plan if c.scene == "rock"
                for e in c.engines if e != "ecsphys")
    return once + again


def run_all(plan: list[Case], runs: int) -> list[Result]:
    """Each case ``runs`` times, the engines alternating within each round (and ecsphys on the
    case's baseline scene right after ecsphys on the case); the settled piles made on the way
    are released at the end."""
    progress = Progress(sum((c.warmup + c.steps) * c.runs_per_round() * runs for c in plan)
                        + settle_steps(plan, runs))
    piles: Piles = {}
    try:
        return _run_cases(plan, runs, progress, piles)
    finally:
        for pile in piles.values():
            pile.close()
        progress.close()


def _run_cases(plan: list[Case], runs: int, progress: Progress, piles: Piles) -> list[Result]:
    results = []
    for case in plan:
        res = Result(case)
        jobs = [(e, case.scene, e) for e in case.engines]
        if case.baseline is not None and "ecsphys" in case.engines:
            at = case.engines.index("ecsphys") + 1
            jobs.insert(at, ("ecsphys", case.baseline, case.baseline_key))
        for r in range(runs):
            for engine, scene_name, key in jobs:
                if key in res.errors:
                    continue
                try:
                    ms, stats = one_run(case, engine, progress, seed=0, scene_name=scene_name,
                                        piles=piles)
                except NotImplementedError as exc:
                    res.errors[key] = str(exc)
                    progress.update(f"{scene_name} {engine}: {exc}",
                                    (case.warmup + case.steps) * (runs - r))
                    continue
                res.ms.setdefault(key, []).append(ms)
                res.stats[key] = stats
        results.append(res)
    return results


def _ms(value: float) -> str:
    """Two decimals from 1 ms up, else three significant digits (0.209, 0.00980)."""
    if value >= 1.0 or value == 0.0 or value != value:
        return f"{value:.2f}"
    return f"{value:#.3g}"


def _fmt_ms(values: list[float] | None) -> str:
    if not values:
        return "–"
    return f"{_ms(statistics.median(values))} ({_ms(min(values))}–{_ms(max(values))})"


def _fmt_stats(stats: dict[str, float | int] | None) -> str:
    if not stats:
        return "–"
    parts = []
    for key, value in stats.items():
        if isinstance(value, float):  # small speeds keep three significant digits
            text = f"{value:.1f}" if abs(value) >= 1.0 or value == 0.0 else f"{value:.3g}"
        else:
            text = f"{value}"
        parts.append(f"{key} {text}")
    return ", ".join(parts)


def _peer_name(engine: str) -> str:
    return {"pymunk": "pymunk tree", "pymunk-hash": "pymunk hash", "box2d": "Box2D"}[engine]


def _fmt_ratio(res: Result) -> str:
    best = res.best_peer()
    q = res.ratio(best)
    return f"{q:.2f} ({_peer_name(best)})" if q is not None and best else "–"


def _b2_version() -> str:
    try:
        from importlib.metadata import version

        return f"pyb2d3 {version('pyb2d3')}"
    except Exception:  # noqa: BLE001 - only the note's wording
        return "pyb2d3"


def _special_table(results: list[Result], scene: str, unit: str, fmt: object) -> list[str]:
    rows = [r for r in results if r.case.scene == scene]
    if not rows:
        return []
    out = [f"| N | ecsphys {unit} | pymunk {unit} | Box2D {unit} | ecsphys / best peer |",
           "|---:|---:|---:|---:|---:|"]
    for r in rows:
        cells = [fmt(r.ms.get(e)) if r.ms.get(e) else (r.errors.get(e) or "–")
                 for e in ("ecsphys", "pymunk", "box2d")]
        out.append(f"| {r.case.n:,} | " + " | ".join(cells) + f" | {_fmt_ratio(r)} |")
    return out


def _fmt_bytes(values: list[float]) -> str:
    return (f"{statistics.median(values):,.0f} ({min(values):,.0f}–{max(values):,.0f})")


def table(results: list[Result], runs: int) -> str:
    """The markdown table of the results (a step's scenes), then the level load and the
    memory per body, then the notes."""
    steps = [r for r in results if r.case.scene not in SPECIAL]
    lines = [
        f"CPU ms per step (time.process_time): median of {runs} run(s) (min–max); the engines "
        "alternate within each round. ratio = ecsphys / the best peer by median (pymunk with "
        "either broadphase, or Box2D). C limit: the rain in a tight C loop (not an engine: "
        "see below). Stats from the last run (contacts after the last step).",
        "",
        "| scene | N | ecsphys ms | pymunk tree ms | pymunk hash ms | Box2D ms | C limit ms "
        "| ecsphys / best peer | ecsphys did | pymunk did | Box2D did |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for res in steps:
        c = res.case
        ecs = res.errors.get("ecsphys") or _fmt_stats(res.stats.get("ecsphys"))
        if (q := res.baseline_ratio()) is not None:
            ecs = (f"{q:.2f}x plain {c.baseline} "
                   f"({_ms(res.median(c.baseline_key))} ms); {ecs}")
        best = res.best_pymunk()
        pym = _fmt_stats(res.stats.get(best)) if best else "–"
        b2d = res.errors.get("box2d") or _fmt_stats(res.stats.get("box2d"))
        if "box2d" not in c.engines:
            b2d = "not built in Box2D"
        lines.append(
            f"| {c.scene} | {c.n:,} | {_fmt_ms(res.ms.get('ecsphys'))} "
            f"| {_fmt_ms(res.ms.get('pymunk'))} | {_fmt_ms(res.ms.get('pymunk-hash'))} "
            f"| {_fmt_ms(res.ms.get('box2d'))} | {_fmt_ms(res.ms.get('c-limit'))} "
            f"| {_fmt_ratio(res)} | {ecs} | {pym} | {b2d} |")
    if load := _special_table(results, "load", "ms", _fmt_ms):
        lines += ["", "Level load: CPU ms to build the rain of N bodies (statics, bodies, "
                  "shapes; ecsphys: the esper entities and their adoption) and take the first "
                  "step, median (min–max) of the runs, alternating:", "", *load]
    if mem := _special_table(results, "memory", "bytes/body", _fmt_bytes):
        lines += ["", "Memory per body: growth of the process's resident memory (/proc/self/"
                  "statm, C allocations included) when the rain of N bodies is built and "
                  "stepped twice, over an empty world of the same engine, divided by N; a "
                  "fresh subprocess per engine and run, median (min–max):", "", *mem]
    lines += ["", f"Box2D: Box2D v3 through {_b2_version()}, one thread, "
              f"{S.BOX2D_SUBSTEPS} substeps a step, no friction, contact begin/end events on "
              "(its contacts = begin minus end events so far), sleeping only in pile, rock "
              "and stray (its defaults: asleep after 0.5 s under 0.05 units/s); the shooter "
              "scene is not built in Box2D (pymunk and ecsphys only). C limit "
              "(`benchmarks/c_limit.py`): the rain's integration, a uniform grid insert and "
              "circle-circle tests with a one-pass push-apart, in C compiled with gcc -O2 "
              "and called through ctypes: a floor, not an engine (no solver iterations, no "
              "contacts kept, no events)."]
    notes = [f"- {r.case.scene} N={r.case.n:,}: ecsphys {_fmt_ms(r.ms.get('ecsphys'))} ms, "
             f"plain {r.case.baseline} {_fmt_ms(r.ms.get(r.case.baseline_key))} ms in the same "
             f"rounds: {q:.2f}x" for r in results if (q := r.baseline_ratio()) is not None]
    if notes:
        lines += ["", "ecsphys on a scene against its plain baseline at the same N (builds "
                  "alternating in each round; the ratio of the medians):", "", *notes]
    settles = sorted({r.case.settle for r in results if r.case.scene in S.SETTLED})
    if settles:
        times = " / ".join(f"{t:g}" for t in settles)
        lines += ["", f"pile, rock, stray: the rain settled {times} "
                  "simulated s in each engine first (untimed; pymunk with sleep_time_threshold "
                  f"{S.SLEEP_TIME}, Box2D with its defaults, ecsphys with its defaults). did: "
                  "asleep = pymunk or Box2D bodies asleep after the run (asleep_before: when "
                  "the rock was dropped; pymunk counts no contacts of sleeping bodies, Box2D "
                  "keeps them), vmax = the "
                  "fastest ball of the pile (units/s), hit_step = the timed step in which the "
                  "rock first touched the pile, rock_fell = how far it fell (units), rock_out = "
                  "1 if it left the box, stray_awake = 1 if the ball falling beside the pile was "
                  "awake (it is the world's one awake body)."]
    return "\n".join(lines)


def _best_pymunk_points(rain: list[Result]) -> list[tuple[int, str, list[float]]]:
    """Per rain case: (N, pymunk's better broadphase there, its ms per run)."""
    out = []
    for r in rain:
        best = r.best_pymunk()
        if best:
            out.append((r.case.n, best, r.ms[best]))
    return out


def plot(results: list[Result], path: Path) -> bool:
    """The rain scene against N, log-log: ms per step of ecsphys and of pymunk's better
    broadphase at each N (median, bars from min to max of the runs), and below it the ratio
    ecsphys / pymunk (log y, a line at 1.0). False if there are fewer than two rain cases."""
    rain = sorted((r for r in results if r.case.scene == "rain"), key=lambda r: r.case.n)
    if len(rain) < 2:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    fig, (ax, axr) = plt.subplots(2, 1, figsize=(7.0, 7.5), sharex=True,
                                  gridspec_kw={"height_ratios": (2, 1)})

    def series(points: list[tuple[int, list[float]]], style: str, color: str,
               label: str) -> None:
        _errorbars(ax, points, style, color, label, 6)

    series([(r.case.n, r.ms["ecsphys"]) for r in rain if r.ms.get("ecsphys")], "o-",
           "tab:blue", "ecsphys")
    best = _best_pymunk_points(rain)
    if best:
        series([(n, v) for n, _, v in best], "s--", "tab:orange",
               "pymunk, better broadphase at each N")
        for n, engine, v in best:  # which broadphase won, under each point
            ax.annotate("tree" if engine == "pymunk" else "hash", (n, statistics.median(v)),
                        textcoords="offset points", xytext=(0, -14), ha="center",
                        fontsize=7, color="tab:orange")
    ax.axhline(1000 / 60, color="grey", lw=0.8, ls=":", label="16.7 ms (60 steps/s)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.margins(y=0.08)
    ax.set_ylabel("ms per step (median, min–max)")
    ax.set_title("rain: N circles falling in a box")
    ax.legend(loc="upper left", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)

    ratios = [(r.case.n, r.median("ecsphys") / r.median(b)) for r in rain
              if r.ms.get("ecsphys") and (b := r.best_pymunk())]
    if ratios:
        axr.plot(*zip(*ratios, strict=True), "o-", color="tab:purple")
        for n, q in ratios:
            axr.annotate(f"{q:.2f}", (n, q), textcoords="offset points", xytext=(0, 6),
                         ha="center", fontsize=8)
        lo, hi = min(q for _, q in ratios), max(q for _, q in ratios)
        axr.set_ylim(min(lo, 1.0) / 2, max(hi, 1.0) * 2.5)
    axr.axhline(1.0, color="black", lw=1.0)
    axr.text(0.99, 0.03, "below 1: ecsphys faster", transform=axr.transAxes, ha="right",
             fontsize=8, color="grey")
    axr.set_yscale("log")
    axr.yaxis.set_major_locator(ticker.LogLocator(base=10.0, subs=(1.0, 2.0, 5.0)))
    axr.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axr.yaxis.set_minor_formatter(ticker.NullFormatter())
    axr.set_xscale("log")
    axr.set_xlabel("bodies (N)")
    axr.set_ylabel("ecsphys / pymunk")
    axr.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _errorbars(ax: Any, points: list[tuple[int, list[float]]], style: str, color: str,
               label: str, size: int) -> None:
    """One line of a plot: the median of each N's runs, bars from their min to their max
    (nothing when there are no points)."""
    if not points:
        return
    ns = [n for n, _ in points]
    med = [statistics.median(v) for _, v in points]
    lo = [m - min(v) for m, (_, v) in zip(med, points, strict=True)]
    hi = [max(v) - m for m, (_, v) in zip(med, points, strict=True)]
    ax.errorbar(ns, med, yerr=(lo, hi), fmt=style, color=color, label=label, capsize=3,
                lw=1.5, ms=size)


def plot_engines(results: list[Result], path: Path) -> bool:
    """The rain against N, log-log, one line per engine: ecsphys, pymunk (its better
    broadphase at each N), Box2D, and the C limit dashed (median, bars from min to max of the
    runs). False if there are fewer than two rain cases."""
    rain = sorted((r for r in results if r.case.scene == "rain"), key=lambda r: r.case.n)
    if len(rain) < 2:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 5.0))

    def series(points: list[tuple[int, list[float]]], style: str, color: str,
               label: str) -> None:
        _errorbars(ax, points, style, color, label, 5)

    series([(r.case.n, r.ms["ecsphys"]) for r in rain if r.ms.get("ecsphys")], "o-",
           "tab:blue", "ecsphys")
    series([(n, v) for n, _, v in _best_pymunk_points(rain)], "s-", "tab:orange",
           "pymunk 7 (better broadphase at each N)")
    series([(r.case.n, r.ms["box2d"]) for r in rain if r.ms.get("box2d")], "^-", "tab:green",
           "Box2D v3 (pyb2d3, 1 thread)")
    series([(r.case.n, r.ms["c-limit"]) for r in rain if r.ms.get("c-limit")], "--", "black",
           "C limit (tight C loop, no solver)")
    ax.axhline(1000 / 60, color="grey", lw=0.8, ls=":", label="16.7 ms (60 steps/s)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bodies (N)")
    ax.set_ylabel("CPU ms per step (median, min–max)")
    ax.set_title("rain: N circles falling in a box")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def save_json(results: list[Result], runs: int, path: Path) -> None:
    """Every run's ms per step and the last run's stats, per case and engine (for re-plotting
    and for comparing runs)."""
    rows = [{"scene": r.case.scene, "n": r.case.n, "warmup": r.case.warmup,
             "steps": r.case.steps, "engines": list(r.case.engines),
             "baseline": r.case.baseline, "settle": r.case.settle, "ms": r.ms,
             "stats": r.stats, "errors": r.errors}
            for r in results]
    lines = ",\n  ".join(json.dumps(row) for row in rows)  # one case a line
    path.write_text(f'{{"runs": {runs}, "results": [\n  {lines}\n]}}\n')


def load_json(path: Path) -> list[Result]:
    """The results `save_json` wrote."""
    out = []
    for row in json.loads(path.read_text())["results"]:
        case = Case(row["scene"], row["n"], row["warmup"], row["steps"], tuple(row["engines"]),
                    row.get("baseline"), row.get("settle", 0.0))
        out.append(Result(case, row["ms"], row["stats"], row["errors"]))
    return out


def _png_for(md_or_json: Path) -> Path:
    name = md_or_json.stem
    return md_or_json.with_name("rain.png" if name == "last_run" else f"{name}_rain.png")


def _engines_png_for(md_or_json: Path, docs: bool) -> Path:
    name = md_or_json.stem
    return DOCS_PLOT if docs else md_or_json.with_name(f"{name}_engines.png")


def _plot_or_say(results: list[Result], png_path: Path, json_path: Path,
                 engines_path: Path | None = None) -> bool:
    try:
        plotted = plot(results, png_path)
        if engines_path is not None and plot_engines(results, engines_path):
            print(f"plot: {engines_path}")
    except ImportError as exc:  # matplotlib is in the ``bench`` extra
        print(f"no plot ({exc}): pip install matplotlib (or -e '.[bench]'), then "
              f"python -m benchmarks --replot {json_path}", file=sys.stderr)
        return False
    if plotted:
        print(f"plot: {png_path}")
    return plotted


def main(argv: list[str] | None = None) -> int:
    """Run the plan, print the table, write the markdown, the JSON and the plot."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter cases")
    parser.add_argument("--runs", type=int, default=None, help="runs per engine (default 3; "
                        "quick: 1)")
    parser.add_argument("--scenes", default="", help="comma-separated subset of " +
                        ",".join((*S.SCENES, "load", "memory")))
    parser.add_argument("--n", default="", help="comma-separated N: only the plan's cases "
                        "at these N (with --scenes: spawn,shooter --n 1000,10000)")
    parser.add_argument("--settle", type=float, default=None, metavar="SECONDS",
                        help=f"pile, rock: simulated seconds the rain settles before the runs "
                        f"(default {S.SETTLE_S:g}; shorter for a smoke test)")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--plot-docs", action="store_true", help="write the engines' rain plot "
                        "to docs/engines.png (the full plan always does; other runs write "
                        "NAME_engines.png beside their table)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of the results")
    parser.add_argument("--name", default=None, help="results file names: NAME.md, NAME.json "
                        "and NAME_rain.png (default: last_run.md, last_run.json and rain.png "
                        "for the full plan, quick_run for --quick, partial_run for a --scenes "
                        "or --n subset or a --settle)")
    parser.add_argument("--replot", type=Path, default=None, metavar="JSON",
                        help="only draw the plot of a saved run (NAME.json) and exit")
    args = parser.parse_args(argv)
    if args.replot:
        docs = args.plot_docs or args.replot.stem == "last_run"
        plotted = _plot_or_say(load_json(args.replot), _png_for(args.replot), args.replot,
                               _engines_png_for(args.replot, docs))
        return 0 if plotted else 1
    runs = args.runs or (1 if args.quick else 3)
    only = [s for s in args.scenes.split(",") if s] or None
    sizes = {int(v.replace("_", "")) for v in args.n.split(",") if v}
    if args.settle is not None and not (math.isfinite(args.settle) and args.settle >= 0):
        parser.error(f"--settle must be a finite number of seconds >= 0, got {args.settle}")
    partial = only or sizes or args.settle is not None
    name = args.name or ("quick_run" if args.quick else "partial_run" if partial else "last_run")
    md_path = args.out / f"{name}.md"
    png_path = _png_for(md_path)
    plan = [c for c in cases(args.quick, only) if not sizes or c.n in sizes]
    if args.settle is not None:
        plan = [replace(c, settle=args.settle) if c.settle else c for c in plan]
    results = run_all(plan, runs)
    text = table(results, runs)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    command = "python -m benchmarks" + "".join(
        f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    title = "Last benchmark run" if name == "last_run" else f"Benchmark run: {name}"
    header = (f"# {title}\n\n`{command}` on {platform.machine()} / Python "
              f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M')}.\n\n")
    has_plot = sum(r.case.scene == "rain" for r in results) >= 2
    # the table and the numbers first: a failing plot never loses a run
    md_path.write_text(header + text + "\n" +
                       (f"\n![rain]({png_path.name})\n" if has_plot else ""))
    json_path = md_path.with_suffix(".json")
    save_json(results, runs, json_path)
    print(f"table: {md_path}")
    if has_plot and not args.no_plot:
        _plot_or_say(results, png_path, json_path,
                     _engines_png_for(md_path, args.plot_docs or name == "last_run"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
