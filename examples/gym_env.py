"""CoinArena: a gymnasium environment on an ecsphys world; an agent collects coins, avoids pits.

    python examples/gym_env.py [--episodes N] [--seed S]     # a random agent: return, length

An 8 x 8 arena inside four STATIC walls; the agent is an ACTIVE circle that slides along them,
coins and hazards (pits) are STATIC sensor circles at random cells (``reset(seed=...)``).
Rewards come from the agent's ``on_touch`` events: +1 for a coin (the coin is deleted), -1
for a hazard. ``terminated``: every coin collected or a hazard touched; ``truncated``: after
``max_steps`` steps.

- action: ``Box(-1, 1, (2,))``, the agent's velocity as a share of ``MAX_SPEED`` per axis
  (clipped), held for ``FRAME_SKIP`` physics steps of 1/60 s;
- observation: ``Box(-1, 1, (4 + 3 * N_COINS + 2 * N_HAZARDS,), float32)`` from
  ``physics.arrays``: the agent's position (the arena scaled to [-1, 1]) and velocity
  (/ ``MAX_SPEED``), each coin's position relative to the agent (/ ``SIZE``) and 1, or
  0, 0, 0 once collected, then each hazard's relative position.

Each env owns an esper world (``env.world``, a unique name) made afresh with its Physics at
every reset and deleted by ``close()``; its esper calls run in ``physics.in_world()``, so many
envs share a process (``SyncVectorEnv``) or get one each (``AsyncVectorEnv`` with the
module-level ``make_env``). ``register()`` registers ``"ecsphys/CoinArena-v0"``.
On ecsphys's room pool (``ecsphys.rooms``) the arena runs as a room: ``build_room(room_id,
seed)`` builds the world ``reset(seed=seed)`` builds (the same function makes both) and
``act_room`` applies an action as ``step`` does. ``step`` holds an action for ``FRAME_SKIP``
physics steps and a room step is one physics step, so env step ``k`` is room steps ``4k`` to
``4k + 3``: give each action ``FRAME_SKIP`` times in the room's inputs (or follow it with
None); ``act_room`` sets the velocity at room steps 0, 4, 8... and leaves it alone between.
``Rooms(build_room, n, act=act_room, seed=s)`` then gives room ``i`` the positions of an env
reset with ``seed=s + i`` and stepped with the same actions, bit for bit. A room moves the
agent only: it collects no coin and ends no episode (a touched coin stays, a sensor that
pushes nothing, and the touch is in the room's events), so it follows the env up to the
first coin or hazard touched. ``observe(physics)`` reads a room's observation.
"""

from __future__ import annotations

import argparse
import itertools
import os
from typing import Any

import esper
import gymnasium as gym
import numpy as np

import ecsphys as ep
from ecsphys.physics import ESPER_LOCK

ENV_ID = "ecsphys/CoinArena-v0"
SIZE = 8.0  # the arena's inside, world units; walls of 1 around it
N_COINS, N_HAZARDS = 5, 2
AGENT_R, COIN_R, HAZARD_R = 0.35, 0.25, 0.3
MAX_SPEED = 4.0  # units per second
DT, FRAME_SKIP = 1 / 60, 4
PIXELS = 10  # per world unit in rgb_array frames
# the entities of a fresh arena, in the order they are made (esper numbers a world's from 1)
COINS = list(range(5, 5 + N_COINS))
HAZARDS = list(range(5 + N_COINS, 5 + N_COINS + N_HAZARDS))
AGENT = 5 + N_COINS + N_HAZARDS
_worlds = itertools.count()


def _arena(rng: np.random.Generator) -> ep.Physics:
    """Make a Physics and the arena in the current esper world: walls, coins, hazards and the
    agent (entities ``COINS``, ``HAZARDS``, ``AGENT``) at cells drawn from ``rng``."""
    n = int(SIZE)
    me = int(rng.integers(n * n))  # the agent's cell; nothing in the 8 around it
    free = [c for c in range(n * n) if max(abs(c % n - me % n), abs(c // n - me // n)) > 1]
    cells = np.r_[me, rng.choice(free, N_COINS + N_HAZARDS, replace=False)]
    jitter = rng.uniform(-0.15, 0.15, (len(cells), 2))
    spots = np.stack([cells % n, cells // n], axis=1) + 0.5 + jitter
    physics = ep.Physics(fixed_dt=DT, sleep_after=None)
    for x, y, w, h in ((SIZE / 2, -0.5, SIZE + 2, 1), (SIZE / 2, SIZE + 0.5, SIZE + 2, 1),
                       (-0.5, SIZE / 2, 1, SIZE), (SIZE + 0.5, SIZE / 2, 1, SIZE)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(w, h)))
    made = [esper.create_entity(ep.Position(*xy.tolist()), ep.Collider(ep.STATIC, sensor=True),
                                ep.Geometry(ep.Circle(COIN_R if k < N_COINS else HAZARD_R)))
            for k, xy in enumerate(spots[1:])]
    made.append(esper.create_entity(ep.Position(*spots[0].tolist()), ep.Velocity(0, 0),
                                    ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(AGENT_R))))
    if made != [*COINS, *HAZARDS, AGENT]:
        raise RuntimeError(f"the arena must be made in a fresh esper world, got entities {made}")
    return physics


def _velocity(action: Any) -> np.ndarray:
    """The agent's velocity for an action, as a ``(1, 2)`` array for ``set_arrays``."""
    return np.clip(np.asarray(action, np.float64), -1, 1).reshape(1, 2) * MAX_SPEED


def observe(physics: ep.Physics) -> np.ndarray:
    """The observation of an arena (see the module doc); a coin gone from the world reads
    0, 0, 0."""
    entity, pos, vel = physics.arrays("entity", "position", "velocity")
    row = dict(zip(entity.tolist(), range(len(entity)), strict=True))  # collected: none
    me = pos[row[AGENT]]
    obs = [me / SIZE * 2 - 1, vel[row[AGENT]] / MAX_SPEED]
    for coin in COINS:
        obs.append(np.r_[(pos[row[coin]] - me) / SIZE, 1] if coin in row else np.zeros(3))
    obs += [(pos[row[hazard]] - me) / SIZE for hazard in HAZARDS]
    return np.clip(np.concatenate(obs), -1, 1).astype(np.float32)


def build_room(room_id: int, seed: int) -> ep.Physics:
    """A room of ``ecsphys.rooms``: the arena ``reset(seed=seed)`` makes, in the current esper
    world (``room_id`` is not used: the seed says it all)."""
    return _arena(gym.utils.seeding.np_random(seed)[0])


def act_room(physics: ep.Physics, room_id: int, step: int, action: Any) -> None:
    """A room's action: at every ``FRAME_SKIP``-th room step (0, 4, 8...) the agent's velocity
    as ``env.step`` sets it (None: left alone); between, nothing (as ``step`` holds it)."""
    if action is not None and step % FRAME_SKIP == 0:
        physics.set_arrays([AGENT], velocity=_velocity(action))


class CoinArenaEnv(gym.Env):
    """Collect the coins in a walled arena without touching a hazard (see the module doc)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": round(1 / (DT * FRAME_SKIP))}

    def __init__(self, render_mode: str | None = None, max_steps: int = 200) -> None:
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.action_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        n = 4 + 3 * N_COINS + 2 * N_HAZARDS
        self.observation_space = gym.spaces.Box(-1.0, 1.0, (n,), np.float32)
        self.world = f"coin-arena-{os.getpid()}-{next(_worlds)}"
        self.physics: ep.Physics | None = None

    # ------------------------------------------------------------ the world

    def _build(self) -> None:
        """A fresh world: the arena at cells drawn from np_random."""
        self._drop_world()
        with ESPER_LOCK:  # Physics() joins the world that is current
            previous = esper.current_world
            esper.switch_world(self.world)
            try:
                self.physics = _arena(self.np_random)
            finally:
                esper.switch_world(previous)
        self.coins, self.hazards, self.agent = list(COINS), list(HAZARDS), AGENT
        self.collected = np.zeros(N_COINS, bool)
        self._touched: list[int] = []
        self.physics.on_touch(lambda c: self._touched.append(c.other(self.agent)),
                              entity=self.agent)

    def _drop_world(self) -> None:
        if self.physics is not None:
            self.physics.remove()
            self.physics = None
            with ESPER_LOCK:  # (esper deletes no world that is current)
                if esper.current_world == self.world:
                    esper.switch_world("default")
                esper.delete_world(self.world)

    # ------------------------------------------------------------ the gymnasium API

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._build()
        self.steps = 0
        return observe(self.physics), {"coins_left": N_COINS}

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self.physics.set_arrays([self.agent], velocity=_velocity(action))
        reward, terminated = 0.0, False
        for _ in range(FRAME_SKIP):
            self.physics.step()
            for other in self._touched:
                if other in self.coins:  # (touched once: deleted before the next step)
                    self.collected[self.coins.index(other)] = True
                    reward += 1.0
                    with self.physics.in_world():
                        esper.delete_entity(other)
                elif other in self.hazards:
                    reward -= 1.0
                    terminated = True
            self._touched.clear()
            terminated = terminated or bool(self.collected.all())
            if terminated:
                break
        self.steps += 1
        truncated = not terminated and self.steps >= self.max_steps
        info = {"coins_left": int(N_COINS - self.collected.sum())}
        return observe(self.physics), reward, terminated, truncated, info

    def render(self) -> np.ndarray | None:
        """An RGB frame (``rgb_array``): walls grey, coins gold, hazards red, the agent blue."""
        if self.render_mode != "rgb_array":
            return None
        n = int((SIZE + 2) * PIXELS)
        y, x = np.mgrid[n - 1:-1:-1, 0:n] / PIXELS - 1 + 0.5 / PIXELS  # row 0 on top
        img = np.full((n, n, 3), (20, 23, 31), np.uint8)
        img[(x < 0) | (x > SIZE) | (y < 0) | (y > SIZE)] = (110, 120, 140)
        entity, pos = self.physics.arrays("entity", "position")
        colors = {**dict.fromkeys(self.coins, (COIN_R, (240, 200, 40))),
                  **dict.fromkeys(self.hazards, (HAZARD_R, (220, 60, 60))),
                  self.agent: (AGENT_R, (70, 165, 250))}
        for e, (px, py) in zip(entity.tolist(), pos.tolist(), strict=True):
            if e in colors:  # (walls are drawn above; collected coins are gone)
                r, color = colors[e]
                img[(x - px) ** 2 + (y - py) ** 2 <= r * r] = color
        return img

    def close(self) -> None:
        """Delete this env's esper world."""
        self._drop_world()


def make_env(render_mode: str | None = None, max_steps: int = 200) -> CoinArenaEnv:
    """A new env: the picklable factory for ``AsyncVectorEnv`` (``functools.partial`` it)."""
    return CoinArenaEnv(render_mode=render_mode, max_steps=max_steps)


def register() -> None:
    """Register ``ENV_ID`` with gymnasium (again: nothing happens)."""
    if ENV_ID not in gym.registry:
        gym.register(id=ENV_ID, entry_point=make_env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    register()
    env = gym.make(ENV_ID)
    env.action_space.seed(args.seed)
    for episode in range(args.episodes):
        env.reset(seed=args.seed + episode)
        total, length, done = 0.0, 0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(env.action_space.sample())
            total, length, done = total + reward, length + 1, terminated or truncated
        print(f"episode {episode}: return {total:+.1f} length {length} "
              f"coins left {info['coins_left']}")
    env.close()


if __name__ == "__main__":
    main()
