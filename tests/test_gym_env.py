"""examples/gym_env.py: the CoinArena gymnasium environment passes gymnasium's checker, is
deterministic under ``reset(seed=...)``, rewards and ends episodes from the agent's touch
events, runs in Sync and Async vector envs, registers, and its script runs; as rooms of
``ecsphys.rooms`` (``build_room``, ``act_room``) its arenas give the env's bits."""

from __future__ import annotations

import functools
import subprocess
import sys
import warnings
from pathlib import Path

import esper
import numpy as np
import pytest

from ecsphys.physics import ESPER_LOCK
from ecsphys.rooms import Rooms

gym = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))  # as the examples import each other
import gym_env  # noqa: E402


def toward(obs: np.ndarray, which: str) -> np.ndarray:
    """A scripted action: full speed toward the nearest coin (or hazard) in the observation."""
    c = 4 + 3 * gym_env.N_COINS
    coins = obs[4:c].reshape(-1, 3)
    targets = coins[coins[:, 2] > 0, :2] if which == "coin" else obs[c:].reshape(-1, 2)
    d = targets[np.argmin((targets**2).sum(axis=1))]
    return (d / np.abs(d).max()).astype(np.float32)


@pytest.mark.parametrize("render_mode", [None, "rgb_array"])
def test_check_env_passes(render_mode: str | None) -> None:
    env = gym_env.CoinArenaEnv(render_mode=render_mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings fail the test...
        # ...but this one, about envs made without gymnasium.make (we check env.unwrapped)
        warnings.filterwarnings("ignore", message=".*alternative render modes")
        check_env(env.unwrapped)
    env.close()


def test_render_draws_the_arena() -> None:
    env = gym_env.make_env(render_mode="rgb_array")
    env.reset(seed=1)
    img = env.render()
    assert img.shape == (100, 100, 3) and img.dtype == np.uint8
    for color in ((110, 120, 140), (240, 200, 40), (220, 60, 60), (70, 165, 250)):
        assert np.all(img == color, axis=2).any(), color
    env.close()
    assert gym_env.make_env().render() is None  # render_mode None draws nothing


def test_same_seed_same_bits_and_worlds_apart() -> None:
    """Two envs in one process, stepped in turn with the same seed and actions: the same
    observations bit for bit (one of them had an episode before); another seed gives
    another arena; the caller's esper world stays current."""
    actions = np.random.default_rng(7).uniform(-1, 1, (150, 2)).astype(np.float32)
    a, b = gym_env.make_env(max_steps=60), gym_env.make_env(max_steps=60)
    assert a.world != b.world
    b.reset(seed=99)
    b.step(actions[0])
    before = esper.current_world
    obs_a, obs_b = a.reset(seed=3)[0], b.reset(seed=3)[0]
    assert obs_a.tobytes() == obs_b.tobytes()
    episodes = 1
    for action in actions:
        got_a, got_b = a.step(action), b.step(action)
        assert got_a[0].tobytes() == got_b[0].tobytes() and got_a[1:] == got_b[1:]
        if got_a[2] or got_a[3]:
            assert a.reset()[0].tobytes() == b.reset()[0].tobytes()
            episodes += 1
    assert episodes >= 2  # (the second episode from the seeded generators, as well)
    assert esper.current_world == before
    assert a.reset(seed=4)[0].tobytes() != b.reset(seed=3)[0].tobytes()
    a.close()
    b.close()


def test_a_coin_touched_rewards_and_goes() -> None:
    env = gym_env.make_env()
    obs, info = env.reset(seed=1)
    assert info["coins_left"] == gym_env.N_COINS and obs[6::3][:gym_env.N_COINS].all()
    rewards = []
    for _ in range(40):
        obs, reward, terminated, truncated, info = env.step(toward(obs, "coin"))
        rewards.append(reward)
        if info["coins_left"] < gym_env.N_COINS:
            break
    assert rewards[-1] == 1.0 and sum(rewards[:-1]) == 0.0 and not terminated
    gone = [c for c, got in zip(env.coins, env.collected, strict=True) if got]
    assert len(gone) == 1
    assert gone[0] not in env.physics.arrays("entity")  # deleted from the world
    slot = env.coins.index(gone[0])
    assert (obs[4 + 3 * slot:7 + 3 * slot] == 0).all()  # its slot masked
    # chase the rest: every coin collected ends the episode (this arena has no pit in the way)
    total = 1.0
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(toward(obs, "coin"))
        total += reward
        assert not truncated
    assert total == gym_env.N_COINS and info["coins_left"] == 0
    env.close()


def test_a_hazard_touched_ends_the_episode() -> None:
    env = gym_env.make_env()
    obs, _ = env.reset(seed=2)
    for _ in range(40):
        obs, reward, terminated, truncated, info = env.step(toward(obs, "hazard"))
        if terminated:
            break
    assert terminated and not truncated and reward == -1.0
    assert info["coins_left"] == gym_env.N_COINS
    env.close()


def test_truncated_after_max_steps_and_close_deletes_the_world() -> None:
    env = gym_env.make_env(max_steps=5)
    env.reset(seed=0)
    ends = [env.step(np.zeros(2, np.float32))[2:4] for _ in range(5)]
    assert ends == [(False, False)] * 4 + [(False, True)]
    assert env.world in esper.list_worlds()
    env.close()
    assert env.world not in esper.list_worlds()
    env.close()  # twice is harmless


def test_sync_and_async_vector_envs_step() -> None:
    fns = [functools.partial(gym_env.make_env, max_steps=20)] * 3
    for vec in (gym.vector.SyncVectorEnv(fns),
                gym.vector.AsyncVectorEnv(fns[:2], context="spawn")):  # pickled to children
        obs, _ = vec.reset(seed=5)
        assert obs.shape == (vec.num_envs, *gym_env.CoinArenaEnv().observation_space.shape)
        assert not np.array_equal(obs[0], obs[1])  # seeds 5, 6: different arenas
        vec.action_space.seed(0)
        for _ in range(25):  # past max_steps: the vector env resets them
            obs, reward, terminated, truncated, _ = vec.step(vec.action_space.sample())
            assert obs.dtype == np.float32 and reward.shape == (vec.num_envs,)
        vec.close()


def test_register_and_make() -> None:
    gym_env.register()
    gym_env.register()  # again: no error, no warning
    env = gym.make(gym_env.ENV_ID, max_steps=3)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    env.close()


def test_script_runs_a_random_agent() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "gym_env.py"), "--episodes",
                           "3"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0 and not done.stderr, done.stderr[-2000:]  # no warnings
    lines = done.stdout.splitlines()
    assert len(lines) == 3 and all(line.startswith(f"episode {i}: return") and " length " in line
                                   for i, line in enumerate(lines))


# ---------------------------------------------------------------- on ecsphys's room pool

ROOM_SEED, ENV_STEPS = 15, 15  # 60 physics steps: walls touched, no coin, no hazard


def room_actions() -> dict[int, np.ndarray]:
    """Full-ish speed along diagonals, env step by env step, for rooms 0, 1, 2."""
    rng = np.random.default_rng(3)
    return {i: rng.choice([-1.0, 1.0], (ENV_STEPS, 2)) * rng.uniform(0.5, 1, (ENV_STEPS, 1))
            for i in range(3)}


def test_build_room_builds_the_arena_reset_builds() -> None:
    env = gym_env.make_env()
    for seed in (0, 7):
        with ESPER_LOCK:
            previous = esper.current_world
            esper.switch_world(f"test-build-room-{seed}")
            try:
                physics = gym_env.build_room(0, seed)
            finally:
                esper.switch_world(previous)
        obs = env.reset(seed=seed)[0]
        assert gym_env.observe(physics).tobytes() == obs.tobytes()
        for name in ("entity", "position", "kind"):
            assert physics.arrays(name).tobytes() == env.physics.arrays(name).tobytes()
        physics.remove()
        esper.delete_world(physics.world)
    env.close()


@pytest.mark.parametrize("engine", ["inline", "process"])
def test_rooms_follow_the_envs_bit_for_bit(engine: str) -> None:
    """Rooms 0, 1, 2 of ``Rooms(build_room, 3, act=act_room, seed=s)`` and envs reset with
    seeds s, s + 1, s + 2, given the same actions (a room's input holds each env action for
    FRAME_SKIP room steps, repeated or followed by None), in batches that are not whole env
    steps: the same entities, positions and velocities, bit for bit."""
    actions = room_actions()
    envs = []
    for i in range(3):
        env = gym_env.make_env()
        env.reset(seed=ROOM_SEED + i)
        for action in actions[i]:
            _, reward, terminated, truncated, _ = env.step(action)
            assert reward == 0 and not terminated and not truncated  # before any coin
        envs.append(env)
    skip = gym_env.FRAME_SKIP
    inputs = {0: [a for a in actions[0] for _ in range(skip)],
              1: [a if k == 0 else None for a in actions[1] for k in range(skip)],
              2: [a for a in actions[2] for _ in range(skip)]}
    with Rooms(gym_env.build_room, 3, act=gym_env.act_room, engine=engine,
                       workers=2 if engine == "process" else 1, seed=ROOM_SEED,
                       events="list") as rooms:
        first = skip * ENV_STEPS // 2 + 1  # (odd: a batch ends amid an env step)
        before = rooms.run(first, {i: steps[:first] for i, steps in inputs.items()})
        done = rooms.run(skip * ENV_STEPS - first, {i: steps[first:]
                                                     for i, steps in inputs.items()})
    walls = 0
    for i, env in enumerate(envs):
        got = done[i]
        assert got.error is None and got.steps == skip * ENV_STEPS
        want = env.physics.arrays("entity", "position", "velocity")
        for name, array in zip(("entity", "position", "velocity"), want, strict=True):
            assert got.arrays[name].tobytes() == array.tobytes(), (i, name)
        walls += sum(1 for _, kind, a, b in before[i].events + got.events
                     if kind == "touch" and min(a, b) <= 4)
        env.close()
    assert walls  # (setting the velocity at every room step would undo the walls' slides)
