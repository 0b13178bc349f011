"""Worlds in threads: each thread steps its own world with ``physics.step()`` / ``advance()``.

Shows: two threads, each stepping its own world 300 steps (contacts, events with handlers that
read esper, sleeping on), give the bits and the event logs of the same two worlds stepped one
after the other, run after run, with threads switching every few microseconds; a step runs in
its own world whatever world is current; ``esper.process`` while another thread steps or is in
``esper.process`` is refused with a ``RuntimeError`` that says to use ``physics.step()``, and
``physics.in_world()`` gives game code in a thread its world.
"""

from __future__ import annotations

import sys
import threading

import esper
import numpy as np
import pytest
from sleep_scenes import DT, body

import ecsphys as ep

STEPS = 300


def _build(name: str, seed: int) -> tuple[ep.Physics, list]:
    """A world ``name`` of balls falling into a box (they touch, bounce, rest and sleep) whose
    handlers log every event with what esper says of the pair: (physics, log)."""
    previous = esper.current_world
    esper.switch_world(name)
    esper.clear_database()
    physics = ep.Physics(fixed_dt=DT, sleep_after=0.3)
    body(0, -0.5, ep.Rect(10, 1), ep.STATIC)
    body(-4.5, 5, ep.Rect(1, 12), ep.STATIC)
    body(4.5, 5, ep.Rect(1, 12), ep.STATIC)
    rng = np.random.default_rng(seed)
    for i in range(18):
        kind = ep.PASSIVE if i % 4 == 0 else ep.ACTIVE
        body(-3.3 + (i % 6) * 1.3 + rng.uniform(-0.1, 0.1), 1 + (i // 6) * 1.4, ep.Circle(0.5),
             kind, vx=rng.uniform(-2, 2), g=9.8, restitution=0.3)
    log: list = []

    def note(event):
        def handler(c):
            # esper's module functions read the world current in the handler: this world
            y = esper.component_for_entity(c.b, ep.Position).y
            log.append((physics.steps, event, c.a, c.b, y))
        return handler

    physics.on_touch(note("touch"))
    physics.on_separate(note("separate"))
    esper.switch_world(previous)
    return physics, log


def _state(physics: ep.Physics) -> bytes:
    e, p, v, s = physics.arrays("entity", "position", "velocity", "sleeping")
    return e.tobytes() + p.tobytes() + v.tobytes() + s.tobytes()


def _run(physics: ep.Physics, trace: list) -> None:
    for i in range(STEPS):
        if i % 3 == 2:
            physics.advance(DT)  # a frame: its own world too
        else:
            physics.step()
        if i % 50 == 0:
            trace.append(_state(physics))


def _work(start: threading.Barrier, physics: ep.Physics, trace: list, errors: list) -> None:
    """A thread's part: wait for the other thread, then step its own world."""
    try:
        start.wait()
        _run(physics, trace)
    except BaseException as exc:  # (reported by the main thread)
        errors.append(exc)


@pytest.fixture
def fast_switches():
    """Threads switch every 5 microseconds (not 5 ms): races show up within a run."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(5e-6)
    yield
    sys.setswitchinterval(old)


def test_two_threads_stepping_their_own_worlds_give_the_bits_of_one_thread(fast_switches):
    reference = []
    for name, seed in (("threads-ref-a", 1), ("threads-ref-b", 2)):
        physics, log = _build(name, seed)
        trace: list = []
        _run(physics, trace)
        reference.append((_state(physics), trace, log))
    assert all(len(log) > 20 for _, _, log in reference)  # touches and separations
    assert all(t[0] != t[-1] for _, t, _ in reference)
    esper.switch_world("default")
    for attempt in range(4):
        worlds = [_build(f"threads-{attempt}-{x}", seed) for x, seed in (("a", 1), ("b", 2))]
        traces: list[list] = [[], []]
        errors: list = []
        start = threading.Barrier(2)

        threads = [threading.Thread(target=_work, args=(start, physics, traces[i], errors))
                   for i, (physics, _) in enumerate(worlds)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not errors, errors
        assert esper.current_world == "default"  # every switch was switched back
        for (physics, log), trace, (state, ref_trace, ref_log) in zip(
                worlds, traces, reference, strict=True):
            assert physics.steps == STEPS
            assert trace == ref_trace, f"attempt {attempt}: positions differ"
            assert _state(physics) == state
            assert log == ref_log, f"attempt {attempt}: events differ"
        for physics, _ in worlds:
            physics.remove()
            esper.delete_world(physics.world)


def _stepping_world(name: str):
    """A world whose touch handler, in its first event, tells ``inside`` and waits for
    ``go``: (physics, inside, go)."""
    previous = esper.current_world
    esper.switch_world(name)
    esper.clear_database()
    physics = ep.Physics(fixed_dt=DT)
    body(0, -0.5, ep.Rect(10, 1), ep.STATIC)
    body(0, 0.505, ep.Circle(0.5), g=9.8)  # touching from the first step
    inside, go = threading.Event(), threading.Event()

    @physics.on_touch
    def wait(contact):
        inside.set()
        assert go.wait(10)

    esper.switch_world(previous)
    return physics, inside, go


def test_esper_process_while_another_thread_steps_is_refused(world):
    busy, inside, go = _stepping_world("threads-busy")
    other = ep.Physics(fixed_dt=DT)  # in the test's world
    body(0, 0, ep.Circle(0.5))
    stepper = threading.Thread(target=busy.step)
    stepper.start()
    try:
        assert inside.wait(10)  # the other thread is in its step (in a handler)
        with pytest.raises(RuntimeError, match=r"physics\.step\(\)"):
            esper.process(DT)
        assert other.steps == 0
    finally:
        go.set()
        stepper.join(10)
    esper.process(DT)  # alone again: fine
    assert other.steps == 1 and busy.steps == 1


def test_a_step_while_another_thread_is_in_esper_process_is_refused(world):
    busy, inside, go = _stepping_world("threads-processing")
    other = ep.Physics(fixed_dt=DT)
    body(0, 0, ep.Circle(0.5))

    def frame():
        with busy.in_world():  # its world current, for esper.process
            esper.process(DT)

    processing = threading.Thread(target=frame)
    processing.start()
    try:
        assert inside.wait(10)
        with pytest.raises(RuntimeError, match="esper.process is running in another thread"):
            other.step()
        with pytest.raises(RuntimeError, match="esper.process"):
            other.arrays("position")  # (its sync switches worlds)
    finally:
        go.set()
        processing.join(10)
    other.step()
    assert other.steps == 1 and busy.steps == 1


def test_in_world_and_step_use_their_own_world_whatever_world_is_current(world):
    physics, log = _build("threads-own", 3)
    assert esper.current_world == world
    with physics.in_world():
        assert esper.current_world == "threads-own"
        ball = esper.create_entity(ep.Position(0, 8), ep.Velocity(0, 0),
                                   ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.4)))
    assert esper.current_world == world
    for _ in range(30):
        physics.step()
    assert esper.current_world == world
    e = physics.arrays("entity")
    assert ball in e.tolist() and physics.steps == 30


def test_esper_process_from_two_threads_at_once_is_refused(world, fast_switches):
    physics, log = _build("threads-both", 4)
    refused: list = []
    other: list = []
    start = threading.Barrier(2)

    def frames():
        start.wait()
        try:
            for _ in range(2000):
                esper.process(DT)  # (the world current: whichever the other thread left)
        except RuntimeError as exc:
            refused.append(str(exc))
        except BaseException as exc:
            other.append(exc)

    esper.switch_world("threads-both")
    try:
        threads = [threading.Thread(target=frames) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        esper.switch_world(world)
    assert not other, other
    assert refused and all("physics.step()" in m for m in refused)
