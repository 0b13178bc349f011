"""ecsphys.rooms: the same bits on every engine and number of workers, rooms moved as their
state, a lost worker replaced, a room's error named and the others finished, arguments checked,
and examples/rooms.py printing the same digests on inline, process and Ray."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys.rooms import RoomError, RoomResult, Rooms

ROOT = Path(__file__).resolve().parent.parent
STEPS = 40


def build(room_id: int, seed: int) -> ep.Physics:
    """A box with a few bouncing balls placed by ``seed``."""
    rng = np.random.default_rng(seed)
    physics = ep.Physics(fixed_dt=1 / 60)
    for x, y, w, h in ((0, -0.5, 12, 1), (0, 8.5, 12, 1), (-6.5, 4, 1, 10), (6.5, 4, 1, 10)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(w, h)))
    for k in range(5):
        esper.create_entity(
            ep.Position(-4 + 2 * k, 2 + rng.uniform(0, 4)), ep.Velocity(*rng.uniform(-5, 5, 2)),
            ep.AccelerationMap(gravity=(0, -9.8)),
            ep.Collider(ep.ACTIVE, restitution=0.8), ep.Geometry(ep.Circle(0.4)))
    return physics


def act(physics: ep.Physics, room_id: int, step: int, action: object) -> None:
    """``("kick", vx, vy)`` sets the first ball's velocity; ``("fail",)`` raises;
    ``("exit", path)`` ends the worker's process once (while ``path`` exists)."""
    if action is None:
        return
    if action[0] == "kick":
        esper.component_for_entity(5, ep.Velocity).xy = action[1:]
    elif action[0] == "fail":
        raise RuntimeError(f"the game failed in room {room_id} at step {step}")
    elif action[0] == "exit" and os.path.exists(action[1]):
        os.remove(action[1])
        os._exit(3)


def kicks(rooms: list[int], steps: int, first: int = 0) -> dict[int, list[object]]:
    return {r: [("kick", r - 1.0, 4.0) if (first + k) % 15 == 7 else None for k in range(steps)]
            for r in rooms}


def same(a: dict[int, RoomResult], b: dict[int, RoomResult]) -> None:
    assert a.keys() == b.keys()
    for rid in a:
        x, y = a[rid], b[rid]
        assert x.error is None and y.error is None, (x.error, y.error)
        assert (x.steps, x.touches, x.separations, x.events) == (
            y.steps, y.touches, y.separations, y.events), rid
        assert x.arrays.keys() == y.arrays.keys()
        for name in x.arrays:
            assert x.arrays[name].tobytes() == y.arrays[name].tobytes(), (rid, name)
        assert x.state == y.state, rid


def two_batches(rooms: Rooms, between=None) -> dict[int, RoomResult]:  # noqa: ANN001
    rooms.run(STEPS, kicks(rooms.ids, STEPS))
    if between is not None:
        between(rooms)
    return rooms.run(STEPS, kicks(rooms.ids, STEPS, STEPS))


@pytest.fixture(scope="module")
def reference() -> dict[int, RoomResult]:
    with Rooms(build, 4, act=act, engine="inline", events="list") as rooms:
        return two_batches(rooms)


def test_results_hold_what_was_asked(reference):
    r = reference[2]
    assert r.steps == 2 * STEPS and r.touches > 0 and r.error is None
    assert r.arrays["position"].shape == (9, 2) and list(r.arrays["entity"]) == list(range(1, 10))
    assert all(name in ("touch", "separate") for _, name, _, _ in r.events)
    assert r.snapshot().entities.tolist() == list(range(1, 10))
    assert reference[0].state != reference[1].state  # seeded by room id


@pytest.mark.parametrize("workers", [1, 3])
def test_inline_workers_give_the_same_bits(reference, workers):
    with Rooms(build, 4, act=act, engine="inline", events="list", workers=workers) as rooms:
        same(two_batches(rooms), reference)


def test_inline_moved_room_gives_the_same_bits(reference):
    with Rooms(build, 4, act=act, engine="inline", events="list", workers=2) as rooms:
        def move(rooms: Rooms) -> None:
            rooms.move(0, 1)
            rooms.move(1, 0)
            assert rooms.placement[0] == 1
        same(two_batches(rooms, move), reference)


def test_process_engine_same_bits_moved_rebalanced_and_a_lost_worker(reference, tmp_path):
    marker = tmp_path / "exit-once"
    with Rooms(build, 4, act=act, engine="process", events="list", workers=2) as rooms:
        first = rooms.run(STEPS, kicks(rooms.ids, STEPS))
        assert {first[r].worker for r in rooms.ids} == {0, 1}
        rooms.move(2, 1 - rooms.placement[2])  # room 2 rebuilt on the other worker
        rooms.rebalance()
        inputs = kicks(rooms.ids, STEPS, STEPS)
        marker.write_text("")
        inputs[3] = [("exit", str(marker)) if k == 5 else a for k, a in enumerate(inputs[3])]
        same(rooms.run(STEPS, inputs), reference)  # the lost worker's rooms rerun the batch
        assert not marker.exists()


def test_room_error_names_the_room_and_others_finish(reference):
    for engine in ("inline", "process"):
        with Rooms(build, 4, act=act, engine=engine, events="list", workers=2) as rooms:
            rooms.run(STEPS, kicks(rooms.ids, STEPS))
            before = rooms.state(1)
            inputs = kicks(rooms.ids, STEPS, STEPS)
            inputs[1] = [("fail",) if k == 3 else a for k, a in enumerate(inputs[1])]
            done = rooms.run(STEPS, inputs)
            err = done[1].error
            assert isinstance(err, RoomError) and err.room_id == 1
            assert "room 1" in str(err) and "the game failed in room 1 at step 43" in err.details
            assert done[1].state == before == rooms.state(1) and done[1].steps == STEPS
            same({r: done[r] for r in (0, 2, 3)}, {r: reference[r] for r in (0, 2, 3)})
            # the failed room stays at its state before the batch and can go on from there
            again = rooms.run(STEPS, kicks(rooms.ids, STEPS, STEPS))
            same({1: again[1]}, {1: reference[1]})


def test_build_errors_come_back_as_room_errors():
    with Rooms(_bad_build, 3, engine="inline") as rooms:
        done = rooms.run(2)
    assert done[0].error is None and done[2].error is None
    assert done[1].error.room_id == 1 and "no room 1 here" in done[1].error.details


def _bad_build(room_id: int, seed: int) -> ep.Physics:
    if room_id == 1:
        raise ValueError("no room 1 here")
    return build(room_id, seed)


@pytest.mark.parametrize(("kwargs", "error", "words"), [
    ({"rooms": 0}, ValueError, "rooms"),
    ({"rooms": -3}, ValueError, "rooms"),
    ({"rooms": "4"}, TypeError, "rooms"),
    ({"rooms": [1, 1]}, ValueError, "distinct"),
    ({"rooms": [1, -2]}, ValueError, "room id"),
    ({"engine": "gpu"}, ValueError, "'gpu'"),
    ({"engine": 3}, TypeError, "engine"),
    ({"workers": 0}, ValueError, "workers"),
    ({"workers": 1.5}, TypeError, "workers"),
    ({"arrays": ("mass",)}, ValueError, "'mass'"),
    ({"arrays": "position"}, TypeError, "arrays"),
    ({"events": "all"}, ValueError, "events"),
    ({"address": "ray://x:1"}, ValueError, "address"),
    ({"start_method": "fork", "engine": "process"}, ValueError, "'fork'"),
    ({"act": 3}, TypeError, "act"),
    ({"build": lambda i, s: None, "engine": "process"}, TypeError, "build must pickle"),
])
def test_arguments_are_checked(kwargs, error, words):
    args = {"build": build, "rooms": 2, "engine": "inline", **kwargs}
    with pytest.raises(error, match=words):
        Rooms(args.pop("build"), args.pop("rooms"), **args)


def test_run_arguments_are_checked():
    with Rooms(build, 2, act=act, engine="inline") as rooms:
        for steps, error in ((-1, ValueError), (1.0, TypeError), (True, TypeError)):
            with pytest.raises(error, match="steps"):
                rooms.run(steps)
        with pytest.raises(ValueError, match=r"inputs\[0\] must hold 3"):
            rooms.run(3, {0: [None]})
        with pytest.raises(ValueError, match="no room 7"):
            rooms.run(1, {7: [None]})
        with pytest.raises(ValueError, match="worker"):
            rooms.move(0, 5)
        assert rooms.run(0)[0].steps == 0
    with Rooms(build, 2, engine="inline") as rooms, pytest.raises(ValueError, match="act"):
        rooms.run(1, {0: [None]})


def test_ray_missing_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r'pip install "ecsphys\[ray\]"'):
        Rooms(build, 2, engine="ray")


def test_example_prints_the_same_digests_on_every_engine():
    outputs = {}
    for engine in ("inline", "process", "ray"):
        if engine == "ray":
            pytest.importorskip("ray")
        done = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "rooms.py"), "--rooms", "3", "--steps",
             "90", "--engine", engine, "--workers", "2"],
            capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert done.returncode == 0, done.stderr[-2000:]
        lines = done.stdout.strip().splitlines()
        assert lines[-1].startswith("rooms/s ") and float(lines[-1].split()[1]) > 0
        assert [line.split()[:2] for line in lines[:-1]] == [["room", str(i)] for i in range(3)]
        outputs[engine] = lines[:-1]
    assert outputs["inline"] == outputs["process"] == outputs["ray"]
    assert len({line.split()[2] for line in outputs["inline"]}) == 3


def test_an_input_that_does_not_pickle_fails_its_room_only(reference):
    with Rooms(build, 4, act=act, engine="process", events="list", workers=2) as rooms:
        rooms.run(STEPS, kicks(rooms.ids, STEPS))
        inputs = kicks(rooms.ids, STEPS, STEPS)
        inputs[2] = [lambda: None] * STEPS  # a lambda does not pickle
        done = rooms.run(STEPS, inputs)
        assert done[2].error is not None and done[2].error.room_id == 2
        assert "pickle" in done[2].error.details.lower()
        same({r: done[r] for r in (0, 1, 3)}, {r: reference[r] for r in (0, 1, 3)})
        again = rooms.run(STEPS, kicks(rooms.ids, STEPS, STEPS))
        same({2: again[2]}, {2: reference[2]})


def test_a_worker_killed_between_batches_is_replaced(reference):
    with Rooms(build, 4, act=act, engine="process", events="list", workers=2) as rooms:
        rooms.run(STEPS, kicks(rooms.ids, STEPS))
        pool = rooms._engine.pools[1]  # noqa: SLF001 (the worker's own process)
        for pid in list(pool._processes):  # noqa: SLF001
            os.kill(pid, 9)
        same(rooms.run(STEPS, kicks(rooms.ids, STEPS, STEPS)), reference)



def test_a_failed_build_leaves_no_world_and_closing_drops_the_rooms():
    worlds = set(esper.list_worlds())
    with Rooms(_bad_build, 3, engine="inline") as rooms:
        done = rooms.run(1)
        assert done[1].error is not None and done[1].snapshot() is None
        assert len(set(esper.list_worlds()) - worlds) == 2  # rooms 0 and 2
    assert set(esper.list_worlds()) == worlds
    with Rooms(_no_physics, 1, engine="inline") as rooms:
        error = rooms.run(1)[0].error
    assert "TypeError: build must return the Physics" in error.details
    assert set(esper.list_worlds()) == worlds


def _no_physics(room_id: int, seed: int) -> object:
    return "not a Physics"


def test_rebalance_spreads_the_rooms_and_keeps_the_bits(reference):
    with Rooms(build, 4, act=act, engine="inline", events="list", workers=2) as rooms:
        def crowd_then_rebalance(rooms: Rooms) -> None:
            for rid in rooms.ids:
                rooms.move(rid, 0)
            placement = rooms.rebalance()
            assert set(placement.values()) == {0, 1}  # by the last batch's times
        same(two_batches(rooms, crowd_then_rebalance), reference)


def settling(room_id: int, seed: int) -> ep.Physics:
    """Six balls dropped on a floor: asleep one by one from about the 50th step."""
    physics = ep.Physics(fixed_dt=1 / 60)
    esper.create_entity(ep.Position(0, -0.5), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(20, 1)))
    for k in range(6):
        esper.create_entity(
            ep.Position(-3 + 0.9 * k + 0.01 * seed, 1 + 1.1 * (k % 3)), ep.Velocity(0, 0),
            ep.AccelerationMap(gravity=(0, -9.8)), ep.Collider(ep.PASSIVE),
            ep.Geometry(ep.Circle(0.4)))
    return physics


def test_a_room_moved_while_falling_asleep_gives_the_same_bits():
    fields = ("entity", "position", "velocity", "sleeping")
    runs = []
    for engine, move in (("inline", False), ("process", True)):
        with Rooms(settling, 2, engine=engine, workers=2, events="list", arrays=fields) as rooms:
            first = rooms.run(60)
            if move:  # each room to the other worker's process, half its balls asleep
                for rid in rooms.ids:
                    rooms.move(rid, 1 - rooms.placement[rid])
            runs.append((first, rooms.run(60)))
    assert 0 < runs[0][0][0].arrays["sleeping"].sum() < 6  # moved half asleep
    assert runs[0][1][0].arrays["sleeping"][1:].all()  # (the floor is static: never asleep)
    for a, b in zip(runs[0], runs[1], strict=True):
        same(a, b)
