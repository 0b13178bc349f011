"""Bodies pushed beyond their swept boxes, and a static that changes every step.

1. First step of a pile that starts overlapping: the ``overlap`` scene of `benchmarks.scenes`
   (``rain``'s box and bodies placed at random: most start overlapping) at 10,000, 20,000 and
   50,000 bodies. Pushing the overlaps apart takes bodies beyond the boxes the broadphase
   swept for them, and each such body's pairs are looked up again (the response's ``widen``).
   Reported: step 1, the median of steps ``--later`` - 9 to ``--later`` (the later step),
   their ratio, how many rows were widened in step 1, and a checksum of the positions after
   step 5 (the same before and after a change that must keep the bits).
2. A moving door: the ``rain`` scene at 10,000 bodies twice in one process, one with a static
   door (a 1 x 12 box inside the walls) moved every step, one without; stepped alternately,
   step by step, so load from other processes hits both alike. Reported: the median step of
   each after ``--warm`` steps and their ratio, the median of each one's broadphase stage
   (where the static index is kept: the rest of the difference is the door pushing bodies,
   real work), and the static index's full rebuilds.

    python -m benchmarks.bench_widen [--n 10000,20000,50000] [--runs 3] [--later 30]
        [--door-n 10000] [--door-steps 200] [--warm 20] [--only first|door]
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import math
import statistics
import time

import esper

import ecsphys as ep

from . import scenes as S


def _checksum(scene: S.EcsScene) -> str:
    return hashlib.sha1(scene.positions().tobytes()).hexdigest()[:12]


def first_step(n: int, later: int) -> dict[str, float | int | str]:
    """Step 1 and the later step of one ``overlap`` scene of ``n`` bodies (milliseconds)."""
    warm = S.EcsScene(S.overlap_layout(200, seed=1))  # first calls of the process
    for _ in range(3):
        warm.step()
    warm.close()
    scene = S.EcsScene(S.overlap_layout(n))
    ms: list[float] = []
    widened = 0
    check = ""
    gc.collect()
    gc.disable()
    try:
        for k in range(later):
            t0 = time.perf_counter()
            scene.step()
            ms.append((time.perf_counter() - t0) * 1e3)
            if k == 0:
                widened = scene.physics._response.widened
            if k == 4:
                check = _checksum(scene)
    finally:
        gc.enable()
    scene.close()
    tail = statistics.median(ms[-10:])
    return {"first": ms[0], "later": tail, "ratio": ms[0] / tail, "widened": widened,
            "check": check}


def _door_scene(n: int, door: bool) -> tuple[S.EcsScene, int | None]:
    scene = S.EcsScene(S.rain_layout(n))
    if not door:
        return scene, None
    x0, y0, x1, y1 = scene.layout.box or (0.0, 0.0, 100.0, 100.0)
    previous = esper.current_world
    esper.switch_world(scene.world)
    e = esper.create_entity(ep.Position((x0 + x1) / 2, y0 + 6.0), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(1.0, 12.0)))
    esper.switch_world(previous)
    scene.physics.advance(0.0)
    return scene, e


def door(n: int, steps: int, warm: int) -> dict[str, float | int]:
    """Median step (ms) of a ``rain`` of ``n`` with a door moved every step and of one with no
    door, alternating."""
    with_door, e = _door_scene(n, True)
    plain, _ = _door_scene(n, False)
    assert e is not None
    x0, _, x1, _ = with_door.layout.box or (0.0, 0.0, 100.0, 100.0)
    mid, amp = (x0 + x1) / 2, (x1 - x0) / 4
    esper.switch_world(with_door.world)
    pos = esper.component_for_entity(e, ep.Position)
    esper.switch_world("default")
    ms_door: list[float] = []
    ms_plain: list[float] = []
    bp_door: list[float] = []
    bp_plain: list[float] = []
    gc.collect()
    gc.disable()
    try:
        for k in range(warm + steps):
            pos.x = mid + amp * math.sin(k * 0.05)  # the game moves the door (untimed)
            t0 = time.perf_counter()
            with_door.step()
            t1 = time.perf_counter()
            plain.step()
            t2 = time.perf_counter()
            if k >= warm:
                ms_door.append((t1 - t0) * 1e3)
                ms_plain.append((t2 - t1) * 1e3)
                bp_door.append(with_door.physics.timings["broadphase"])
                bp_plain.append(plain.physics.timings["broadphase"])
    finally:
        gc.enable()
    rebuilds = with_door.physics.stats["static_rebuilds"]
    with_door.close()
    plain.close()
    md, mp = statistics.median(ms_door), statistics.median(ms_plain)
    return {"door": md, "plain": mp, "ratio": md / mp, "rebuilds": rebuilds,
            "bp_door": statistics.median(bp_door), "bp_plain": statistics.median(bp_plain)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="10000,20000,50000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--later", type=int, default=30)
    ap.add_argument("--door-n", type=int, default=10_000)
    ap.add_argument("--door-steps", type=int, default=200)
    ap.add_argument("--warm", type=int, default=20)
    ap.add_argument("--only", choices=("first", "door"), default=None)
    args = ap.parse_args(argv)
    if args.only in (None, "first"):
        print(f"first step of the overlap scene vs the median of steps {args.later - 9}-"
              f"{args.later} (ms; median of {args.runs} runs, min-max)")
        print(f"{'N':>7} | {'step 1':>22} | {'later':>20} | {'ratio':>6} | widened | check")
        for n in (int(v) for v in args.n.split(",")):
            runs = [first_step(n, args.later) for _ in range(args.runs)]
            f = [r["first"] for r in runs]
            la = [r["later"] for r in runs]
            ra = statistics.median(r["ratio"] for r in runs)
            print(f"{n:>7} | {statistics.median(f):8.1f} ({min(f):6.1f}-{max(f):6.1f}) | "
                  f"{statistics.median(la):7.1f} ({min(la):5.1f}-{max(la):5.1f}) | "
                  f"{ra:6.2f} | {runs[0]['widened']:>7} | {runs[0]['check']}")
    if args.only in (None, "door"):
        r = door(args.door_n, args.door_steps, args.warm)
        print(f"rain of {args.door_n}: a static door moved every step {r['door']:.2f} ms vs "
              f"no door {r['plain']:.2f} ms a step (medians of {args.door_steps} alternating "
              f"steps): ratio {r['ratio']:.3f}; broadphase stage {r['bp_door']:.2f} vs "
              f"{r['bp_plain']:.2f} ms; static index full rebuilds {r['rebuilds']}")


if __name__ == "__main__":
    main()
