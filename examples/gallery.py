"""The ecsphys demo: balls rain into a box and settle, headless, and it says what happened.

    python examples/gallery.py [--balls N] [--seconds S]
"""

from __future__ import annotations

import argparse
import time

import esper
import numpy as np

import ecsphys as ep


def build(balls: int, seed: int = 0) -> tuple[ep.Physics, list[int], dict[str, int]]:
    physics = ep.Physics(fixed_dt=1 / 60)
    for x, y, w, h in ((0, -0.5, 42, 1), (0, 40.5, 42, 1), (-20.5, 20, 1, 42), (20.5, 20, 1, 42)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(w, h)))
    rng = np.random.default_rng(seed)
    ents = []
    for i in range(balls):
        x, y = -18 + (i % 15) * 2.5, 5 + (i // 15) * 2.5
        ents.append(esper.create_entity(
            ep.Position(x + rng.uniform(-0.3, 0.3), y), ep.Velocity(*rng.uniform(-3, 3, 2)),
            ep.AccelerationMap(gravity=(0, -9.8)), ep.Collider(ep.ACTIVE),
            ep.Geometry(ep.Circle(0.5))))
    counts = {"steps": 0}
    return physics, ents, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--balls", type=int, default=150)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    physics, ents, _ = build(args.balls)
    t0 = time.perf_counter()
    frames = int(args.seconds * 60)
    for _ in range(frames):
        esper.process(1 / 60)
    elapsed = time.perf_counter() - t0
    ys = np.array([esper.component_for_entity(e, ep.Position).y for e in ents])
    print(f"{args.balls} balls, {physics.steps} steps of 1/60 s in {elapsed * 1000:.0f} ms "
          f"({elapsed / max(physics.steps, 1) * 1000:.2f} ms a step)")
    print(f"lowest ball centre y = {ys.min():.3f} (floor top at 0, radius 0.5); "
          f"highest {ys.max():.2f}; contacts now: {len(physics.contact_set)}")


if __name__ == "__main__":
    main()
