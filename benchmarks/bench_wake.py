"""The step in which a rock wakes a sleeping pile, against the same step with the pile awake.

Guarantees: one settled ``pile`` (`benchmarks.scenes.SettledPile`, ecsphys, sleeping on) per
size; every window starts from its settled state and alternates between two kinds, so load
from other processes hits both alike:
- ``asleep``: the pile sleeps (two untimed steps after the restore), the rock is dropped on it
  (``drop_rock``: it strikes in the next step), and that step is timed: it wakes the pile;
- ``awake``: the same pile woken outside the timed steps (``physics.wake`` on each ball still
  asleep) and stepped once, untimed (all awake, none resting long enough to sleep again);
  then the same rock, and the same step timed: an awake step of the bodies the rock wakes
  in the other kind, with the same impact.
Reports, per size, the median of each stage (``physics.timings``) in each kind and the
difference: what waking costs in the step of the impact beyond the awake step (the bodies
the rock wakes are the whole pile, so an extra that grew with the pile would show as a
difference that grows with N).

Then one island among many (``--field``): ``N`` balls resting apart on a floor, each its own
island, all asleep; small rocks fall on one of them after another (`field_cycles`). The step
of each impact wakes that one ball: it is timed (CPU) against the step before (the rock
falling alone above the sleeping field), median over the rocks. What the wake costs there
should not grow with the sleepers it leaves asleep.

    python -m benchmarks.bench_wake [--n 1000,10000] [--windows 40] [--field 1000,50000]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import statistics
import time

import esper

import ecsphys as ep

from . import scenes as S

STAGES = ("adopt+integrate", "broadphase", "response", "narrowphase", "events", "step")


def _wake_all(scene: S.EcsScene) -> None:
    physics = scene.physics
    for e in scene.entities:
        if physics.is_sleeping(e):
            physics.wake(e)


def impact_step(pile: S.SettledPile, awake: bool) -> dict[str, float]:
    """One window of ``pile``: the timings of the step in which the rock strikes (see the
    module notes for ``awake``)."""
    scene = pile.window()
    assert isinstance(scene, S.EcsScene)
    physics = scene.physics
    if awake:
        _wake_all(scene)
        scene.step()
        if physics.stats["sleeping"]:
            raise RuntimeError("the woken pile fell asleep again before the rock")
    else:
        scene.step()
        scene.step()
        if physics.stats["sleeping"] < scene.n:
            raise RuntimeError("the settled pile is not asleep")
    scene.drop_rock()
    gc.collect()
    gc.disable()
    try:
        scene.step()
    finally:
        gc.enable()
    if not scene._rock_touching():
        raise RuntimeError("the rock did not strike the pile in the timed step")
    if not awake and physics.stats["sleeping"] == scene.n:
        raise RuntimeError("the rock struck the pile but woke none of it")
    return physics.timings


def measure(n: int, windows: int, settle: float = S.SETTLE_S) -> dict[str, dict[str, float]]:
    """Median ms of each stage over ``windows`` windows of each kind, alternating (the pile
    settled for ``settle`` simulated seconds first)."""
    pile = S.SettledPile("ecsphys", n, settle=settle)
    got: dict[str, dict[str, list[float]]] = {"asleep": {}, "awake": {}}
    for w in range(2 * windows):
        kind = "asleep" if w % 2 == 0 else "awake"
        for stage, ms in impact_step(pile, kind == "awake").items():
            got[kind].setdefault(stage, []).append(ms)
    pile.close()
    return {kind: {s: statistics.median(v[s]) for s in STAGES} for kind, v in got.items()}


_fields = itertools.count()


def field_cycles(n: int, cycles: int) -> dict[str, float]:
    """One field of ``n`` sleeping balls (each its own island on a floor) and ``cycles``
    rocks, each dropped on another ball: CPU ms of the step of its impact (it wakes that
    ball) and of the step before (the rock falling alone above the sleepers); then the rock
    is deleted and the field steps until it all sleeps again (untimed). Medians, and the
    balls each rock woke. What a wake costs should not grow with the sleepers it leaves
    asleep."""
    world = f"bench-field-{next(_fields)}"
    previous = esper.current_world
    esper.switch_world(world)
    try:
        physics = ep.Physics(fixed_dt=S.DT, sleep_after=S.SLEEP_TIME)
        ball, gravity = ep.Circle(0.5), (0.0, -9.8)
        esper.create_entity(ep.Position(1.5 * n + 5.0, -1.0), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(3.0 * n + 20.0, 2.0)))
        for i in range(n):
            esper.create_entity(ep.Position(5.0 + 3.0 * i, 0.5), ep.Velocity(0.0, 0.0),
                                ep.Collider(ep.ACTIVE), ep.Geometry(ball),
                                ep.AccelerationMap(gravity=gravity))
        for _ in range(60):
            physics.step()
        if physics.stats["sleeping"] != n:
            raise RuntimeError(f"the field did not fall asleep: {physics.stats['sleeping']}")
        impact: list[float] = []
        before: list[float] = []
        woken: list[int] = []
        for c in range(cycles):
            i = (7919 * (c + 1)) % n  # (spread over the field)
            rock = esper.create_entity(
                ep.Position(5.0 + 3.0 * i, 1.8), ep.Velocity(0.0, -3.0), ep.Collider(ep.ACTIVE),
                ep.Geometry(ep.Circle(0.4)), ep.AccelerationMap(gravity=gravity))
            physics.step()
            last = None
            gc.collect()
            gc.disable()
            try:
                for _ in range(30):
                    t0 = time.process_time()
                    physics.step()
                    ms = (time.process_time() - t0) * 1e3
                    if physics.stats["sleeping"] < n:
                        if last is None:
                            raise RuntimeError("the rock struck in its first step")
                        impact.append(ms)
                        before.append(last)
                        woken.append(n - physics.stats["sleeping"])
                        break
                    last = ms
                else:
                    raise RuntimeError("the rock woke nothing")
            finally:
                gc.enable()
            esper.delete_entity(rock, immediate=True)
            for _ in range(300):
                physics.step()
                if physics.stats["sleeping"] == n:
                    break
            else:
                raise RuntimeError("the woken ball did not fall asleep again")
        return {"impact": statistics.median(impact), "before": statistics.median(before),
                "woken": statistics.median(woken)}
    finally:
        esper.switch_world(previous)
        esper.delete_world(world)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="1000,10000", help="pile sizes, comma separated")
    ap.add_argument("--windows", type=int, default=40, help="windows of each kind per size")
    ap.add_argument("--field", default="1000,10000,50000",
                    help="sleeping fields of separate balls (one woken), comma separated; "
                    "empty: none")
    ap.add_argument("--cycles", type=int, default=25, help="rocks dropped per field")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.n.split(",")]
    print("ms of the step in which the rock strikes the pile (median of "
          f"{args.windows} windows each, alternating)")
    print("| N | stage | pile asleep (woken by the rock) | pile awake | extra |")
    print("|---:|---|---:|---:|---:|")
    for n in sizes:
        m = measure(n, args.windows)
        for s in STAGES:
            a, b = m["asleep"][s], m["awake"][s]
            print(f"| {n} | {s} | {a:.3f} | {b:.3f} | {a - b:+.3f} |")
    if args.field:
        print()
        print("CPU ms of the step in which a rock wakes one ball of a sleeping field (median "
              f"of {args.cycles} rocks)")
        print("| N asleep | step of the impact | step before | balls woken |")
        print("|---:|---:|---:|---:|")
        for n in (int(x) for x in args.field.split(",")):
            f = field_cycles(n, args.cycles)
            print(f"| {n} | {f['impact']:.3f} | {f['before']:.3f} | {f['woken']:.0f} |")


if __name__ == "__main__":
    main()
