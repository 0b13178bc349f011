"""Broadphase benchmark: ms per ``query`` for each broadphase on circles of mixed sizes in a box.

Scene: N circles of radius 0.5-2 placed uniformly in a square of side ``2.5 * sqrt(N)`` (mean
spacing 2.5, like a rain scene), plus a floor and two walls as static boxes. Steady state: the
circles move a little between calls (as in a simulation), the statics never change. Reports
the median over the timed calls, the candidate pairs per body the broadphase examined (where it
counts them) and the overlapping pairs per body.

With ``--scene rain`` (or another scene of ``benchmarks.scenes``) it times the whole broadphase
*system* of a running simulation instead: ``BroadphaseSystem.process`` (swept boxes, the grid
query, layer filter, entity order), as ``Physics.timings["broadphase"]``, and the grid query
alone (called again on the step's swept boxes, warm), medians over the timed steps after a
warm-up.

With ``--scene rain --ab OLD`` it compares, in one process and on the same table at every step,
this tree's stage against an older one: ``OLD`` holds an older ``ecsphys`` source tree (for
example ``git archive HEAD ecsphys | tar -x -C /tmp/old``) whose ``ecsphys/broadphase`` package
is pure Python (NumPy); its ``systems/broadphase.py`` is loaded beside it. Each step runs both
stages, in alternating order, checks that they return the same pairs and times each.

Run: ``.venv/bin/python benchmarks/bench_broadphase.py [--sizes 1000 10000 50000] [--calls 30]
[--scene rain [--ab /tmp/old]]``
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import types
from pathlib import Path

import numpy as np

from ecsphys.broadphase import make_broadphase


def scene(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Centres, radii and static boxes for ``n`` circles."""
    rng = np.random.default_rng(seed)
    side = 2.5 * np.sqrt(n)
    c = rng.uniform(0, side, (n, 2))
    r = rng.uniform(0.5, 2.0, (n, 1))
    slo = np.array([[-1.0, -1.0], [-1.0, 0.0], [side, 0.0]])
    shi = np.array([[side + 1, 0.0], [0.0, side], [side + 1, side]])
    return c, r, slo, shi


def bench(name: str, n: int, calls: int, warmup: int = 5) -> tuple[float, float, float]:
    """Median ms per query, candidates per body, pairs per body."""
    c, r, slo, shi = scene(n)
    rng = np.random.default_rng(1)
    bp = make_broadphase(name)
    bp.set_static(slo, shi)
    times = []
    cands = []
    pairs = 0
    for k in range(warmup + calls):
        c += rng.normal(0.0, 0.02, c.shape)
        lo, hi = c - r, c + r
        t0 = time.perf_counter()
        di, _, sk, _ = bp.query(lo, hi)
        t1 = time.perf_counter()
        if k >= warmup:
            times.append(t1 - t0)
            cands.append(getattr(bp, "last_candidates", float("nan")))
            pairs = len(di) + len(sk)
    return float(np.median(times)) * 1e3, float(np.median(cands)) / n, pairs / n


def bench_system(scene: str, n: int, steps: int, warmup: int = 30) -> tuple[float, float, float]:
    """Median ms of the broadphase system and of the grid query alone, candidates per body."""
    if __package__ is None:  # run as a script: the repository root is not on sys.path
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks import scenes  # imports pymunk too: only when asked for

    s = scenes.build(scene, "ecsphys", n)
    system = s.physics._broadphase
    index = system.index
    system_ms, query_ms, cands = [], [], []
    for k in range(warmup + steps):
        s.before_step()
        s.step()
        s.after_step()
        if k >= warmup:
            system_ms.append(s.physics.timings["broadphase"])
            lo, hi = (np.array(b) for b in system._stage.boxes)  # this step's swept boxes
            t0 = time.perf_counter()
            index.query(lo, hi)
            query_ms.append((time.perf_counter() - t0) * 1e3)
            cands.append(getattr(index, "last_candidates", float("nan")))
    s.close()
    return float(np.median(system_ms)), float(np.median(query_ms)), float(np.median(cands)) / n


def _load_old_stage(old: str) -> type:
    """The ``BroadphaseSystem`` class of the older tree ``old`` (see the module docstring), its
    broadphase package imported as ``_old_broadphase``; the rest comes from this tree."""
    root = Path(old) / "ecsphys"
    spec = importlib.util.spec_from_file_location(
        "_old_broadphase", root / "broadphase" / "__init__.py",
        submodule_search_locations=[str(root / "broadphase")])
    assert spec is not None and spec.loader is not None
    pkg = importlib.util.module_from_spec(spec)
    sys.modules["_old_broadphase"] = pkg
    spec.loader.exec_module(pkg)
    src = (root / "systems" / "broadphase.py").read_text()
    src = (src.replace("from .. import broadphase", "import _old_broadphase as broadphase")
           .replace("from ..broadphase.", "from _old_broadphase.")
           .replace("from ..", "from ecsphys."))
    mod = types.ModuleType("_old_broadphase_system")
    exec(compile(src, str(root / "systems" / "broadphase.py"), "exec"), mod.__dict__)
    return mod.BroadphaseSystem


def bench_ab(scene: str, n: int, steps: int, old: str, warmup: int = 30) -> tuple[float, float]:
    """Median ms per step of the old and the new broadphase stage on the same table."""
    if __package__ is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks import scenes

    s = scenes.build(scene, "ecsphys", n)
    new = s.physics._broadphase
    old_stage = _load_old_stage(old)(new.table, new.name, contact_offset=new.contact_offset)
    new_process = new.process
    times: dict[str, list[float]] = {"old": [], "new": []}
    flip = [False]

    def both(dt: float = 0.0) -> None:
        order = ((old_stage, "old"), (new, "new"))
        flip[0] = not flip[0]
        for stage, name in order if flip[0] else order[::-1]:
            t0 = time.perf_counter()
            stage.process() if stage is old_stage else new_process()
            times[name].append((time.perf_counter() - t0) * 1e3)
        if not (np.array_equal(old_stage.ra, new.ra) and np.array_equal(old_stage.rb, new.rb)):
            raise AssertionError(f"old and new stages disagree at N={n}")

    new.process = both
    for _ in range(warmup + steps):
        s.before_step()
        s.step()
        s.after_step()
    s.close()
    return (float(np.median(times["old"][warmup:])), float(np.median(times["new"][warmup:])))


def bench_physics(name: str, n: int, steps: int, warmup: int = 20) -> tuple[float, float]:
    """Median ms of the broadphase stage and of the whole step in a `Physics` with broadphase
    ``name``: the circles of `scene` at half their radius (0.25-1: the full radii fill 88% of
    the box, more than circles can pack, so they could never stop overlapping), ACTIVE, with
    gravity and random velocities up to 5, in a box of four static walls."""
    import esper

    import ecsphys as ep

    esper.switch_world(f"bench-{name}-{n}")
    physics = ep.Physics(fixed_dt=1 / 60, broadphase=name, sleep_after=None)
    c, r, _, _ = scene(n)
    side = 2.5 * np.sqrt(n)
    for x, y, w, h in ((side / 2, -1, side + 4, 2), (side / 2, side + 1, side + 4, 2),
                       (-1, side / 2, 2, side + 4), (side + 1, side / 2, 2, side + 4)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(w, h)))
    rng = np.random.default_rng(1)
    for (x, y), (rad,), (vx, vy) in zip(c, 0.5 * r, rng.uniform(-3.5, 3.5, (n, 2)),
                                        strict=True):
        esper.create_entity(ep.Position(x, y), ep.Velocity(vx, vy),
                            ep.AccelerationMap(gravity=(0.0, -9.8)), ep.Collider(ep.ACTIVE),
                            ep.Geometry(ep.Circle(rad)))
    bp_ms, step_ms = [], []
    for k in range(warmup + steps):
        physics.step()
        if k >= warmup:
            bp_ms.append(physics.timings["broadphase"])
            step_ms.append(physics.timings["step"])
    physics.remove()
    esper.switch_world("default")
    esper.delete_world(f"bench-{name}-{n}")
    return float(np.median(bp_ms)), float(np.median(step_ms))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--scene", help="time the broadphase system in this benchmark scene")
    ap.add_argument("--ab", metavar="OLD",
                    help="with --scene: compare against the stage of the older tree OLD")
    ap.add_argument("--physics", action="store_true",
                    help="time the broadphase stage in a whole Physics step, per broadphase")
    args = ap.parse_args()
    if args.physics:
        print(f"{'broadphase':<10} {'N':>7} {'stage ms':>9} {'step ms':>9} {'share':>6}")
        for n in args.sizes:
            for name in ("grid", "sweep", "quadtree"):
                bp, step = bench_physics(name, n, 10 if n > 10000 else 30)
                print(f"{name:<10} {n:>7} {bp:>9.2f} {step:>9.2f} {bp / step:>6.0%}", flush=True)
        return
    if args.scene and args.ab:
        print(f"{'scene':<8} {'N':>7} {'old ms':>9} {'new ms':>9} {'speed-up':>9}")
        for n in args.sizes:
            old_ms, new_ms = bench_ab(args.scene, n, max(args.calls, 30), args.ab)
            print(f"{args.scene:<8} {n:>7} {old_ms:>9.4f} {new_ms:>9.4f} "
                  f"{old_ms / new_ms:>8.1f}x", flush=True)
        return
    if args.scene:
        print(f"{'scene':<8} {'N':>7} {'system ms':>9} {'query ms':>9} {'cand/body':>9}")
        for n in args.sizes:
            sys_ms, q_ms, cand = bench_system(args.scene, n, max(args.calls, 30))
            print(f"{args.scene:<8} {n:>7} {sys_ms:>9.2f} {q_ms:>9.2f} {cand:>9.1f}", flush=True)
        return
    print(f"{'broadphase':<10} {'N':>7} {'ms/query':>9} {'cand/body':>9} {'pairs/body':>10}")
    for n in args.sizes:
        for name in ("grid", "sweep", "quadtree", "brute"):
            if name == "brute" and n > 1000:
                continue
            calls = args.calls if n <= 10000 or name == "grid" else max(5, args.calls // 3)
            ms, cand, pairs = bench(name, n, calls)
            cand_s = "-" if np.isnan(cand) else f"{cand:.1f}"
            print(f"{name:<10} {n:>7} {ms:>9.2f} {cand_s:>9} {pairs:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
