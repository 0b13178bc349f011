"""Handlers that misbehave: raise, delete the pair's entities or a third one, remove a Collider
or Geometry, add bodies, register or remove handlers during a dispatch, or run the step again
from inside a handler. In every case the next step works, positions stay finite, and a
well-behaved observer sees every touch paired with exactly one separate."""

from __future__ import annotations

import esper
import numpy as np
import pytest

import ecsphys as ep


class Observer:
    """Checks the event invariant as events come: no touch for an open pair, no separate for
    a closed one."""

    def __init__(self, physics: ep.Physics) -> None:
        self.open: set[tuple] = set()
        self.touches = self.separates = 0
        physics.on_touch(self.touch)
        physics.on_separate(self.separate)

    def touch(self, c) -> None:  # noqa: ANN001
        key = (c.pair, c.tile)
        assert key not in self.open, f"a second touch for {key}"
        self.open.add(key)
        self.touches += 1

    def separate(self, c) -> None:  # noqa: ANN001
        key = (c.pair, c.tile)
        assert key in self.open, f"a separate without a touch for {key}"
        self.open.remove(key)
        self.separates += 1


def scene(seed: int = 0) -> tuple[ep.Physics, Observer, list[int]]:
    rng = np.random.default_rng(seed)
    physics = ep.Physics(fixed_dt=1 / 60)
    observer = Observer(physics)  # registered first: it sees every event
    for x0, y0, x1, y1 in [(-10, -11, 10, -10), (-11, -11, -10, 10), (10, -11, 11, 10),
                           (-10, 10, 10, 11)]:
        esper.create_entity(ep.Position((x0 + x1) / 2, (y0 + y1) / 2), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(x1 - x0, y1 - y0)))
    bodies = [esper.create_entity(
        ep.Position(*rng.uniform(-9, 9, 2)), ep.Velocity(*rng.uniform(-8, 8, 2)),
        ep.AccelerationMap(gravity=(0, -9.8)),
        ep.Collider(ep.PASSIVE if i % 2 else ep.ACTIVE, sensor=i % 7 == 0),
        ep.Geometry(ep.Circle(0.5) if i % 3 else ep.Rect(0.8, 0.8))) for i in range(40)]
    return physics, observer, bodies


def run(physics: ep.Physics, frames: int) -> int:
    """Step ``frames`` frames; returns how many raised (the step still completes)."""
    raised = 0
    for _ in range(frames):
        try:
            esper.process(1 / 60)
        except (RuntimeError, KeyError) as e:
            assert "handler bug" in str(e) or "step is running" in str(e), e
            raised += 1
    return raised


def finish(physics: ep.Physics, observer: Observer) -> None:
    """Positions finite; deleting every entity separates every open pair."""
    t = physics.table
    assert np.isfinite(t.pos[: t.n]).all() and np.isfinite(t.vel[: t.n]).all()
    for e in list(physics.table.row_of):
        esper.delete_entity(e)
    run(physics, 2)
    assert observer.open == set()
    assert observer.touches == observer.separates > 0


def test_a_handler_that_raises(world):
    physics, observer, _ = scene()
    calls = []

    @physics.on_touch
    def flaky(c):  # noqa: ANN001
        calls.append(c.pair)
        if len(calls) % 3 == 0:
            raise RuntimeError("handler bug")

    assert run(physics, 120) > 0
    finish(physics, observer)


def test_a_handler_that_deletes_the_pair_and_a_third_entity(world):
    physics, observer, bodies = scene(1)
    victims = list(bodies[20:])

    @physics.on_touch
    def delete(c):  # noqa: ANN001
        for e in c.pair:
            if e in bodies[:20] and esper.entity_exists(e):
                esper.delete_entity(e)
        if victims:
            esper.delete_entity(victims.pop())

    run(physics, 120)
    assert not victims  # third entities went as it ran
    finish(physics, observer)


@pytest.mark.parametrize("component", [ep.Collider, ep.Geometry])
@pytest.mark.filterwarnings("ignore::ecsphys.MissingGeometryWarning")  # Geometry stripped
def test_a_handler_that_removes_a_collider_or_geometry(world, component):
    physics, observer, bodies = scene(2)

    @physics.on_touch
    def strip(c):  # noqa: ANN001
        for e in c.pair:
            if e in bodies and esper.has_component(e, component):
                esper.remove_component(e, component)
                return

    run(physics, 120)
    finish(physics, observer)


def test_a_handler_that_adds_bodies_and_handlers_and_removes_itself(world):
    physics, observer, _ = scene(3)
    added: list[int] = []
    late: list[tuple] = []

    def late_touch(c):  # noqa: ANN001
        late.append(c.pair)

    @physics.on_touch
    def grow(c):  # noqa: ANN001
        if len(added) < 30:
            added.append(esper.create_entity(
                ep.Position(0, 5), ep.Velocity(1, 0), ep.Collider(ep.PASSIVE),
                ep.Geometry(ep.Circle(0.3))))
        if len(added) == 10:
            physics.on_touch(late_touch)
        if len(added) == 30:
            physics.remove_handler(grow)

    run(physics, 180)
    assert len(added) == 30 and late
    finish(physics, observer)


def test_a_handler_that_runs_the_step_again_gets_a_clear_error(world):
    physics, observer, _ = scene(4)
    errors: list[str] = []

    @physics.on_touch
    def reenter(c):  # noqa: ANN001
        try:
            esper.process(1 / 60)
        except RuntimeError as e:
            errors.append(str(e))
            raise

    steps = 60
    raised = run(physics, steps)
    assert raised > 0 and errors and "step is running" in errors[0]
    assert physics.steps == steps  # every frame ran its one step, no nested ones
    physics.remove_handler(reenter)
    run(physics, 30)
    finish(physics, observer)


def test_esper_bus_handlers_that_raise_and_delete(world):
    physics, observer, bodies = scene(5)

    class Bus:
        def __init__(self) -> None:
            self.n = 0

        def on_touch(self, c) -> None:  # noqa: ANN001
            self.n += 1
            if self.n % 4 == 0:
                raise RuntimeError("handler bug")
            if self.n % 5 == 0 and esper.entity_exists(c.b) and c.b in bodies:
                esper.delete_entity(c.b)

    bus = Bus()
    esper.set_handler("on_touch", bus.on_touch)
    assert run(physics, 120) > 0
    finish(physics, observer)
