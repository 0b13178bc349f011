"""Many rooms: N arenas of bouncing balls and coins, each its own world, run on an engine.

    python examples/rooms.py --rooms N --steps S --engine {inline,process,ray} [--workers W]
                             [--address RAY_CLUSTER]

Each room is a walled arena (a TileMap) with a few pillars, coins (sensors) and balls that
bounce off everything; room i is seeded by its id, and its first ball is kicked every second
by the room's inputs. Prints one line a room, ``room <i> <digest>`` (sha256 of its final
positions, velocities, touch and separate counts and coins picked up), then ``rooms/s``: the
same N and S print the same digests on every engine and any number of workers.
"""

from __future__ import annotations

import argparse
import hashlib
import time

import esper
import numpy as np

import ecsphys as ep
from ecsphys.rooms import Rooms

ARENA = """
####################
#..................#
#..................#
#....##......##....#
#..................#
#........##........#
#........##........#
#..................#
#....##......##....#
#..................#
#..................#
####################
"""
BALLS, COINS, KICK_EVERY = 6, 8, 60
FIRST_COIN = 2  # entity ids: the arena is 1, then the coins, then the balls


def build(room_id: int, seed: int) -> ep.Physics:
    """Make room ``room_id``: the arena, coins and balls placed by ``seed``."""
    rng = np.random.default_rng(seed)
    physics = ep.Physics(fixed_dt=1 / 60)
    walls = ep.TileMap(ARENA, 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(walls))
    free = [(c + 0.5, 11 - r + 0.5) for r, line in enumerate(ARENA.strip().splitlines())
            for c, ch in enumerate(line) if ch == "."]
    spots = rng.choice(len(free), BALLS + COINS, replace=False)
    for k in spots[:COINS]:
        esper.create_entity(ep.Position(*free[k]), ep.Collider(ep.STATIC, sensor=True),
                            ep.Geometry(ep.Circle(0.3)))
    for k in spots[COINS:]:
        vx, vy = rng.uniform(-6, 6, size=2)
        esper.create_entity(ep.Position(*free[k]), ep.Velocity(vx, vy),
                            ep.Collider(ep.ACTIVE, restitution=1.0), ep.Geometry(ep.Circle(0.35)))
    return physics


def act(physics: ep.Physics, room_id: int, step: int, action: tuple[float, float] | None) -> None:
    """Kick the room's first ball when its input says so (runs in the room's world)."""
    if action is not None:
        esper.component_for_entity(FIRST_COIN + COINS, ep.Velocity).xy = action


def kicks(room_id: int, first: int, steps: int) -> list[tuple[float, float] | None]:
    """The room's inputs for steps ``first .. first + steps``: a kick every second."""
    return [((room_id % 5) - 2.0, 3.0) if (first + k) % KICK_EVERY == KICK_EVERY - 1 else None
            for k in range(steps)]


def digest(result: object) -> str:
    """sha256 of a room's final positions, velocities, event counts and coins picked up."""
    coins = sum(1 for _, name, a, b in result.events
                if name == "touch" and (FIRST_COIN <= a < FIRST_COIN + COINS
                                        or FIRST_COIN <= b < FIRST_COIN + COINS))
    h = hashlib.sha256()
    for name in ("entity", "position", "velocity"):
        h.update(np.ascontiguousarray(result.arrays[name]).tobytes())
    h.update(f"{result.touches} {result.separations} {coins}".encode())
    return h.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=8)
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--engine", choices=("inline", "process", "ray"), default="process")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--address", default=None, help="a Ray cluster to join (--engine ray)")
    args = parser.parse_args()
    if args.engine == "ray":
        import ray

        if args.address:
            ray.init(address=args.address, log_to_driver=False)
        else:
            ray.init(num_cpus=args.workers or 2, include_dashboard=False, log_to_driver=False)
    t0 = time.perf_counter()
    with Rooms(build, args.rooms, act=act, engine=args.engine, workers=args.workers,
               events="list") as rooms:
        inputs = {i: kicks(i, 0, args.steps) for i in rooms.ids}
        done = rooms.run(args.steps, inputs)
    elapsed = time.perf_counter() - t0
    for i, result in done.items():
        if result.error is not None:
            raise SystemExit(str(result.error))
        print(f"room {i} {digest(result)}")
    print(f"rooms/s {args.rooms / elapsed:.2f}")


if __name__ == "__main__":
    main()
