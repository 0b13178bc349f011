"""Rooms per second: many rooms on the inline engine, a process pool and Ray, 1 and 2 workers.

    python -m benchmarks.bench_rooms [--rooms 8] [--steps 240] [--balls 40] [--repeats 5]
                                     [--engines inline,process,ray] [--plot rooms.png]

Each room is a walled box of bouncing balls (no gravity, restitution 1: the work stays the same
from batch to batch). A configuration's rooms are built and its workers started before the
clock runs (one untimed batch); then each timed batch runs every room ``--steps`` steps, and
the table gives the median of ``--repeats`` batches as rooms per second (rooms done per second
of wall time, each a batch of ``--steps`` steps) and as room-steps per second. A batch costs
each room its state bytes (its snapshot pickled, about 0.5 ms at 44 bodies) and each worker a
round trip, whatever its steps: it must hold enough steps for the second worker to pay
(docs/rooms.md has the numbers; 240 steps, the default, is plenty).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import statistics
import time

import esper
import numpy as np

import ecsphys as ep
from ecsphys.rooms import Rooms


def build(room_id: int, seed: int, balls: int = 40) -> ep.Physics:
    """A 30 x 20 box of ``balls`` bouncing balls placed by ``seed``."""
    rng = np.random.default_rng(seed)
    physics = ep.Physics(fixed_dt=1 / 60)
    for x, y, w, h in ((15, -0.5, 32, 1), (15, 20.5, 32, 1), (-0.5, 10, 1, 22), (30.5, 10, 1, 22)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(w, h)))
    cols = 8
    for k in range(balls):
        esper.create_entity(
            ep.Position(2 + 3.5 * (k % cols), 2 + 3.0 * (k // cols) % 18),
            ep.Velocity(*rng.uniform(-6, 6, 2)),
            ep.Collider(ep.ACTIVE, restitution=1.0), ep.Geometry(ep.Circle(0.5)))
    return physics


def measure(configs: list[tuple[str, int]], rooms: int, steps: int, repeats: int,
            balls: int) -> list[list[float]]:
    """Seconds of each timed batch, a list per configuration. Every configuration's rooms
    are made first; then each round times one batch of each in turn, so a change in the
    machine's load reaches all of them alike."""
    times: list[list[float]] = [[] for _ in configs]
    with contextlib.ExitStack() as stack:
        pools = [stack.enter_context(Rooms(functools.partial(build, balls=balls), rooms,
                                           engine=engine, workers=workers, arrays=()))
                 for engine, workers in configs]
        for pool in pools:
            pool.run(1)  # builds the rooms and starts the workers
        for _ in range(repeats):
            for pool, got in zip(pools, times, strict=True):
                t0 = time.perf_counter()
                done = pool.run(steps)
                got.append(time.perf_counter() - t0)
                assert all(r.error is None for r in done.values())
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=8)
    parser.add_argument("--steps", type=int, default=240)
    parser.add_argument("--balls", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--engines", default="inline,process,ray")
    parser.add_argument("--plot", default=None, help="save a bar chart here (matplotlib)")
    args = parser.parse_args()
    engines = args.engines.split(",")
    configs = [(e, w) for e in ("inline", "process", "ray") if e in engines
               for w in ((1,) if e == "inline" else (1, 2))]
    if "ray" in engines:
        import ray

        # room for the 1-worker and the 2-worker actors at once (each takes one logical CPU;
        # they run one configuration at a time)
        ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    rows = []
    got = measure(configs, args.rooms, args.steps, args.repeats, args.balls)
    for (engine, workers), times in zip(configs, got, strict=True):
        med = statistics.median(times)
        rows.append((engine, workers, args.rooms / med, args.rooms * args.steps / med, med))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"{args.rooms} rooms of {args.balls} balls, batches of {args.steps} steps, "
          f"median of {args.repeats}; {os.cpu_count()} cores, load average {load} "
          f"(other work on the machine takes cores from the workers)\n")
    print("| engine | workers | rooms/s | room-steps/s | s a batch |")
    print("|---|---:|---:|---:|---:|")
    for engine, workers, rps, sps, med in rows:
        print(f"| {engine} | {workers} | {rps:.2f} | {sps:,.0f} | {med:.3f} |")
    if args.plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: no plot")
            return
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.bar([f"{e}\n{w} worker{'s' if w > 1 else ''}" for e, w, *_ in rows],
               [r[2] for r in rows], color="#4a90d9")
        ax.set_ylabel("rooms per second")
        ax.set_title(f"{args.rooms} rooms x {args.steps} steps, {args.balls} balls a room")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"saved {args.plot}")


if __name__ == "__main__":
    main()
