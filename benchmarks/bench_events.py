"""The events stage alone: ms per step for the pair diff and for delivery, at 10,000 bodies and
about 12,000 touching pairs that change a little each step (about 1% of the pairs end and as
many start). Medians over many steps, for several kinds of listeners.

    python benchmarks/bench_events.py [--steps 300] [--bodies 10000] [--pairs 12000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import esper
import numpy as np

import ecsphys as ep
from ecsphys.events import BodyContact, EventHandlers
from ecsphys.state.body_table import BodyTable
from ecsphys.state.contact_set import ContactSet, pair_keys
from ecsphys.systems.events import EventsSystem


class Counter:
    """A handler that only counts its calls, so the timings are the events system's own."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, contact: BodyContact) -> None:
        self.calls += 1


def make_table(n: int) -> BodyTable:
    table = BodyTable(n)
    for e in range(1, n + 1):
        table.add(e, (ep.Position(0, 0), None, None, ep.Collider(ep.ACTIVE, layer=1 << (e % 3)),
                      ep.Geometry(ep.Circle(1))))
    return table


def contact_set(keys: np.ndarray, rng: np.random.Generator) -> ContactSet:
    m = len(keys)
    a = keys >> 32
    b = keys & 0xFFFFFFFF
    ang = rng.uniform(0, 2 * np.pi, m)
    normal = np.column_stack([np.cos(ang), np.sin(ang)])
    return ContactSet(a, b, normal, rng.uniform(0, 0.05, m), rng.uniform(-50, 50, (m, 2)),
                      np.full(m, np.inf), np.zeros(m, dtype=np.bool_))


def random_pairs(rng: np.random.Generator, bodies: int, count: int) -> np.ndarray:
    """``count`` random neighbour-like pairs (entities close in id, like a grid)."""
    a = rng.integers(1, bodies, count)
    b = np.minimum(a + rng.integers(1, 120, count), bodies)
    keep = a < b
    return pair_keys(a[keep], b[keep])


def sequence(bodies: int, pairs: int, steps: int, seed: int = 1) -> list[ContactSet]:
    """Contact sets of ``steps`` steps: ~``pairs`` pairs, ~1% replaced each step."""
    rng = np.random.default_rng(seed)
    keys = np.zeros(0, dtype=np.int64)
    while len(keys) < pairs:
        keys = np.unique(np.concatenate([keys, random_pairs(rng, bodies, pairs)]))
    keys = rng.permutation(keys)[:pairs]
    keys.sort()
    out = []
    churn = max(pairs // 100, 1)
    for _ in range(steps):
        keys = np.delete(keys, rng.choice(len(keys), churn, replace=False))
        fresh = np.zeros(0, dtype=np.int64)
        while len(fresh) < churn:
            fresh = np.setdiff1d(np.concatenate([fresh, random_pairs(rng, bodies, churn)]), keys)
        keys = np.union1d(keys, rng.permutation(fresh)[:churn])
        out.append(contact_set(keys, rng))
    return out


def measure(name: str, table: BodyTable, sets: list[ContactSet],
            listen: Callable[[EventHandlers], None]) -> tuple[float, float, int]:
    esper.switch_world(f"bench-events-{name}")
    handlers = EventHandlers()
    listen(handlers)
    system = EventsSystem(table, handlers)
    delivered = [0]

    def count(c: BodyContact) -> None:
        delivered[0] += 1

    if name == "esper bus, keep_touching":
        esper.set_handler("on_keep_touching", count)
    diff_ms, deliver_ms = [], []
    changed: set[int] = set()
    for i, contacts in enumerate(sets):
        if i % 10 == 0:
            changed.add(1 + (i * 37) % table.n)  # now and then a collider changes
        t0 = time.perf_counter()
        plan = system._commit(contacts, changed, 1 / 60)
        t1 = time.perf_counter()
        if plan is not None:
            system._pending.append(plan)
        system.deliver_pending()
        t2 = time.perf_counter()
        if i >= 5:  # warm-up steps excluded
            diff_ms.append((t1 - t0) * 1000)
            deliver_ms.append((t2 - t1) * 1000)
    esper.switch_world("default")
    esper.delete_world(f"bench-events-{name}")
    return statistics.median(diff_ms), statistics.median(deliver_ms), delivered[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--bodies", type=int, default=10_000)
    parser.add_argument("--pairs", type=int, default=12_000)
    args = parser.parse_args()
    table = make_table(args.bodies)
    sets = sequence(args.bodies, args.pairs, args.steps)
    sink = Counter()

    def nothing(h: EventHandlers) -> None:
        pass

    def touch_separate(h: EventHandlers) -> None:
        h.on_touch(sink)
        h.on_separate(sink)

    def keep_all(h: EventHandlers) -> None:
        touch_separate(h)
        h.on_keep_touching(sink)

    def keep_entity(h: EventHandlers) -> None:
        touch_separate(h)
        h.on_keep_touching(sink, entity=42)

    def keep_layers(h: EventHandlers) -> None:
        h.on_keep_touching(sink, layers=(1, 2))

    cases = [
        ("no listeners", nothing),
        ("touch + separate", touch_separate),
        ("+ keep_touching (all pairs)", keep_all),
        ("+ keep_touching, entity=42", keep_entity),
        ("keep_touching, layers=(1, 2)", keep_layers),
        ("esper bus, keep_touching", nothing),
    ]
    print(f"{args.bodies} bodies, ~{len(sets[-1])} touching pairs, ~1% churn per step, "
          f"{args.steps} steps (medians, ms per step)")
    measure("warm-up", table, sets, nothing)  # first-run effects (allocator, caches)
    print(f"{'listeners':<32} {'diff':>7} {'deliver':>8} {'calls/step':>11}")
    for name, listen in cases:
        sink.calls = 0
        diff, deliver, bus = measure(name, table, sets, listen)
        calls = (sink.calls + bus) / len(sets)
        print(f"{name:<32} {diff:>7.3f} {deliver:>8.3f} {calls:>11.0f}")


if __name__ == "__main__":
    main()
