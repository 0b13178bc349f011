"""The side-by-side benchmark runner: ecsphys against pymunk 7, scene by scene.

Guarantees:
- every scene is built in each engine from the same layout (`benchmarks.scenes`), and the
  engines' runs alternate within this one process (ecsphys, pymunk tree, pymunk hash, repeat),
  so load from other processes hits them alike;
- a run = a fresh build, the warm-up steps, then the timed steps (only ``Scene.step`` is
  timed); ms per step of a run is its timed total over its step count; the table shows the
  median of the runs with their min and max, and the ratio ecsphys / pymunk where pymunk is
  its better broadphase (tree or spatial hash, by median);
- each row also shows what the engines did (contacts, touches/separates, escapes, bullets
  through walls, crowd progress) from the last run;
- writes ``benchmarks/results/last_run.md`` (the table) and ``benchmarks/results/rain.png``
  (ms per step against N, log-log).

    python -m benchmarks [--quick] [--scenes rain,crowd] [--runs 3] [--no-plot]
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import scenes as S

RESULTS = Path(__file__).parent / "results"


@dataclass
class Case:
    """One row of the table: a scene at one N with its step counts."""

    scene: str
    n: int
    warmup: int
    steps: int
    engines: tuple[str, ...] = S.ENGINES


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


def cases(quick: bool, only: list[str] | None) -> list[Case]:
    """The benchmark plan; ``--quick`` runs fewer and shorter cases."""
    if quick:
        plan = [Case("rain", 1_000, 10, 30), Case("rain", 10_000, 10, 30),
                Case("events", 1_000, 10, 30), Case("crowd", 2_000, 10, 30),
                Case("bullets", 500, 0, 30)]
    else:
        plan = [Case("rain", n, 30, 120) for n in (1_000, 5_000, 10_000, 20_000)]
        plan += [Case("rain", 50_000, 30, 120, ("ecsphys", "pymunk-hash")),
                 Case("events", 10_000, 30, 120), Case("crowd", 2_000, 30, 120),
                 Case("bullets", 500, 0, 120)]
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


def one_run(case: Case, engine: str, progress: Progress, seed: int) -> tuple[float, dict]:
    """Build, warm up and time one run; returns (ms per step, stats)."""
    label = f"{case.scene} N={case.n} {engine}"
    progress.update(label)
    scene = S.build(case.scene, engine, case.n, seed)
    try:
        S.run(scene, case.warmup)
        progress.update(label, case.warmup)
        total = 0.0
        gc.collect()
        gc.disable()
        try:
            for i in range(case.steps):
                scene.before_step()
                t0 = time.perf_counter()
                scene.step()
                total += time.perf_counter() - t0
                scene.after_step()
                if i % 10 == 9:
                    progress.update(label, 10)
        finally:
            gc.enable()
        progress.update(label, case.steps % 10)
        return total * 1000.0 / case.steps, scene.stats()
    finally:
        scene.close()


def run_all(plan: list[Case], runs: int) -> list[Result]:
    """Each case ``runs`` times, the engines alternating within each round."""
    progress = Progress(sum((c.warmup + c.steps) * len(c.engines) * runs for c in plan))
    results = []
    for case in plan:
        res = Result(case)
        for r in range(runs):
            for engine in case.engines:
                if engine in res.errors:
                    continue
                try:
                    ms, stats = one_run(case, engine, progress, seed=0)
                except NotImplementedError as exc:
                    res.errors[engine] = str(exc)
                    progress.update(f"{case.scene} {engine}: {exc}",
                                    (case.warmup + case.steps) * (runs - r))
                    continue
                res.ms.setdefault(engine, []).append(ms)
                res.stats[engine] = stats
        results.append(res)
    progress.close()
    return results


def _fmt_ms(values: list[float] | None) -> str:
    if not values:
        return "–"
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def _fmt_stats(stats: dict[str, float | int] | None) -> str:
    if not stats:
        return "–"
    parts = []
    for key, value in stats.items():
        parts.append(f"{key} {value:.1f}" if isinstance(value, float) else f"{key} {value}")
    return ", ".join(parts)


def table(results: list[Result], runs: int) -> str:
    """The markdown table of the results."""
    lines = [
        f"ms per step: median of {runs} run(s) (min–max); ratio = ecsphys / best pymunk "
        "broadphase by median. Stats from the last run (contacts after the last step).",
        "",
        "| scene | N | ecsphys ms | pymunk tree ms | pymunk hash ms | ratio | ecsphys did "
        "| pymunk did |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for res in results:
        c = res.case
        best = res.best_pymunk()
        ratio = "–"
        if best and res.ms.get("ecsphys"):
            ratio = f"{res.median('ecsphys') / res.median(best):.2f}"
        ecs = res.errors.get("ecsphys") or _fmt_stats(res.stats.get("ecsphys"))
        pym = _fmt_stats(res.stats.get(best)) if best else "–"
        lines.append(
            f"| {c.scene} | {c.n:,} | {_fmt_ms(res.ms.get('ecsphys'))} "
            f"| {_fmt_ms(res.ms.get('pymunk'))} | {_fmt_ms(res.ms.get('pymunk-hash'))} "
            f"| {ratio} | {ecs} | {pym} |")
    return "\n".join(lines)


def plot(results: list[Result], path: Path) -> bool:
    """ms per step against N of the rain scene, log-log; False if there is nothing to plot."""
    rain = [r for r in results if r.case.scene == "rain"]
    if len(rain) < 2:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for engine, style in (("ecsphys", "o-"), ("pymunk", "s--"), ("pymunk-hash", "^--")):
        pts = [(r.case.n, r.median(engine)) for r in rain if r.ms.get(engine)]
        if pts:
            ax.plot(*zip(*pts, strict=True), style, label=engine)
    ax.axhline(1000 / 60, color="grey", lw=0.8, ls=":", label="60 steps/s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bodies (N)")
    ax.set_ylabel("ms per step (median)")
    ax.set_title("rain: N circles falling in a box")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    """Run the plan, print the table, write the markdown and the plot."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter cases")
    parser.add_argument("--runs", type=int, default=None, help="runs per engine (default 3; "
                        "quick: 1)")
    parser.add_argument("--scenes", default="", help="comma-separated subset of " +
                        ",".join(S.SCENES))
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    runs = args.runs or (1 if args.quick else 3)
    only = [s for s in args.scenes.split(",") if s] or None
    plan = cases(args.quick, only)
    results = run_all(plan, runs)
    text = table(results, runs)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    header = (f"# Last benchmark run\n\n`python -m benchmarks{' --quick' if args.quick else ''}`"
              f" on {platform.machine()} / Python {platform.python_version()}, "
              f"{time.strftime('%Y-%m-%d %H:%M')}.\n\n")
    (args.out / "last_run.md").write_text(header + text + "\n\n![rain](rain.png)\n")
    if not args.no_plot and plot(results, args.out / "rain.png"):
        print(f"plot: {args.out / 'rain.png'}")
    print(f"table: {args.out / 'last_run.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
