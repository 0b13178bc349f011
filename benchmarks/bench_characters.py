"""What characters and platforms cost: ms per step of the rain scene (10,000 balls) and of a
platformer-like scene of about 200 bodies (characters that walk and jump on ramps, one-way
shelves and moving platforms among crates), with the character features on (friction,
``stop_on_slope``, one-way shelves, never-pushed platforms) and off (the same bodies without
them). Medians of the runs; the physics step alone is timed (not the game's velocity writes).

    python benchmarks/bench_characters.py [--runs 5] [--steps 120] [--features on|off|both]

It also runs against an ecsphys without these features (it then builds the scenes without
them), so two checkouts can be compared run by run from a driver that alternates them.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import esper
import numpy as np

import ecsphys as ep
from benchmarks import scenes as S

G = (0.0, -30.0)


def _has_features() -> bool:
    try:
        ep.Collider(ep.ACTIVE, friction=0.5, stop_on_slope=True)
    except TypeError:
        return False
    return True


def _collider(kind, features: bool, **extra) -> ep.Collider:
    """A collider with the character keywords only when the features are on."""
    if not features:
        extra = {k: v for k, v in extra.items()
                 if k not in ("friction", "stop_on_slope", "one_way")}
        if extra.get("mass") == math.inf:
            extra["mass"] = 1e9
    return ep.Collider(kind, **extra)


def platformer(world: str, features: bool, seed: int = 0):
    """About 200 bodies: 100 characters, 60 crates, 8 moving platforms, statics."""
    esper.switch_world(world)
    physics = ep.Physics(fixed_dt=1 / 60, sleep_after=None)
    rng = np.random.default_rng(seed)
    def static(x, y, shape, **kw):
        esper.create_entity(ep.Position(x, y), _collider(ep.STATIC, features, **kw),
                            ep.Geometry(shape))
    static(0, -0.5, ep.Rect(400, 1), friction=0.6)
    static(-200.5, 20, ep.Rect(1, 40))
    static(200.5, 20, ep.Rect(1, 40))
    for k in range(16):  # ramps of 26.6 degrees
        static(-180 + 24 * k, 1.0, ep.Polygon([(-2, -1), (2, -1), (2, 1)]), friction=0.6)
    for k in range(12):  # one-way shelves
        static(-170 + 30 * k, 5.0, ep.Rect(6, 0.3), one_way=(0.0, 1.0))
    platforms = []
    for k in range(8):
        platforms.append(esper.create_entity(
            ep.Position(-160 + 40 * k, 9.0), ep.Velocity(0, 0),
            _collider(ep.ACTIVE, features, mass=math.inf), ep.Geometry(ep.Rect(5, 0.5))))
    chars = []
    for k in range(100):
        chars.append(esper.create_entity(
            ep.Position(-190 + 3.8 * k, 2.5 + rng.uniform(0, 2)), ep.Velocity(0, 0),
            ep.AccelerationMap(gravity=G),
            _collider(ep.ACTIVE, features, stop_on_slope=True), ep.Geometry(ep.Rect(0.8, 1.6))))
    for k in range(60):
        esper.create_entity(
            ep.Position(-188 + 6.3 * k, 12 + rng.uniform(0, 4)), ep.Velocity(0, 0),
            ep.AccelerationMap(gravity=G), _collider(ep.PASSIVE, features, friction=0.6),
            ep.Geometry(ep.Rect(1.2, 1.2)))
    vel_c = [esper.component_for_entity(e, ep.Velocity) for e in chars]
    vel_p = [esper.component_for_entity(e, ep.Velocity) for e in platforms]
    walk = rng.choice([-4.0, 4.0], size=len(chars))
    clock = [0.0]

    def game() -> None:
        """The game's writes of a frame: walking, jumps now and then, platforms swinging."""
        clock[0] += 1 / 60
        t = clock[0]
        for i, v in enumerate(vel_c):
            if int(t * 0.5 + i) % 7 == 0:
                walk[i] = -walk[i]
            v.x = walk[i]
            if (int(t * 60) + 13 * i) % 150 == 0 and abs(v.y) < 0.5:
                v.y = 14.0
        for k, v in enumerate(vel_p):
            v.xy = (5 * math.cos(t * 0.7 + k), 2 * math.sin(t * 1.3 + k))

    return physics, game


def rain(world: str, features: bool, n: int = 10_000):
    esper.switch_world(world)
    scene = S.EcsScene(S.rain_layout(n))
    return scene.physics, lambda: None


def measure(build, features: bool, warm: int, steps: int, world: str) -> float:
    """ms per physics step after ``warm`` steps, the game's writes untimed."""
    physics, game = build(world, features)
    try:
        for _ in range(warm):
            game()
            physics.step()
        total = 0.0
        for _ in range(steps):
            game()
            t0 = time.perf_counter()
            physics.step()
            total += time.perf_counter() - t0
        return total / steps * 1e3
    finally:
        physics.remove()
        esper.switch_world("default")
        esper.delete_world(world)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--features", choices=("on", "off", "both"), default="both")
    args = ap.parse_args()
    have = _has_features()
    modes = {"on": [True], "off": [False], "both": [True, False]}[args.features]
    modes = [m for m in modes if have or not m] or [False]
    results: dict[tuple[str, bool], list[float]] = {}
    for run in range(args.runs):
        for name, build, warm in (("platformer 200", platformer, 120), ("rain 10000", rain, 150)):
            for features in modes:
                ms = measure(build, features, warm, args.steps, f"bench-{name}-{run}")
                results.setdefault((name, features), []).append(ms)
    for (name, features), values in results.items():
        print(f"{name:16s} features {'on ' if features else 'off'} "
              f"{statistics.median(values):8.3f} ms/step (median of {len(values)})")


if __name__ == "__main__":
    main()
