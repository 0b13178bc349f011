"""Integration alone: ms per step at 1,000 / 10,000 / 100,000 bodies, and the cost of reading
``pos.x`` from user code for 10,000 entities. Medians of several runs.

    python benchmarks/bench_integrate.py
"""

from __future__ import annotations

import statistics
import time

import esper

import ecsphys as ep


def build(n: int, name: str) -> tuple[ep.Physics, list[int]]:
    esper.switch_world(f"bench-integrate-{name}-{n}")
    physics = ep.Physics(fixed_dt=1 / 60, sleep_after=None)
    ents = [
        esper.create_entity(ep.Position(i % 100, i // 100), ep.Velocity(1, 0),
                            ep.AccelerationMap(gravity=(0, -9.8)), ep.Collider(ep.ACTIVE))
        for i in range(n)
    ]
    physics.step()  # adopt
    return physics, ents


def median_ms(fn, repeats: int = 7, inner: int = 20) -> float:
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        runs.append((time.perf_counter() - t0) / inner * 1000)
    return statistics.median(runs)


def main() -> None:
    print(f"{'bodies':>8} {'ms/step':>9}")
    for n in (1_000, 10_000, 100_000):
        physics, _ = build(n, "step")
        print(f"{n:>8} {median_ms(physics.step):>9.3f}")
    _, ents = build(10_000, "read")
    positions = [esper.component_for_entity(e, ep.Position) for e in ents]

    def read_all() -> float:
        s = 0.0
        for p in positions:
            s += p.x
        return s

    print(f"reading pos.x of 10,000 adopted entities: {median_ms(read_all, inner=5):.3f} ms")


if __name__ == "__main__":
    main()
