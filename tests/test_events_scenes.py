"""Contact events through the public API, in small scenes stepped by ``esper.process``."""

from __future__ import annotations

import random

import esper
import pytest

import ecsphys as ep
from ecsphys.layers import Layers

DT = 1 / 60



class Log:
    """Records every event of a Physics as ``(event, a, b, steps, duration)``."""

    def __init__(self, physics: ep.Physics, **filters) -> None:
        self.events: list[tuple] = []
        self.contacts: list = []
        physics.on_touch(lambda c: self._add("touch", c), **filters)
        physics.on_keep_touching(lambda c: self._add("keep", c), **filters)
        physics.on_separate(lambda c: self._add("separate", c), **filters)

    def _add(self, name: str, c) -> None:
        self.events.append((name, c.a, c.b, c.steps, c.duration))
        self.contacts.append(c)

    def names(self) -> list[str]:
        return [e[0] for e in self.events]

    def take(self) -> list[tuple]:
        out, self.events = self.events, []
        return out


def steps(n: int) -> None:
    for _ in range(n):
        esper.process(DT)


def circle(x: float, y: float, vx: float = 0.0, vy: float = 0.0, r: float = 0.5,
           kind=ep.ACTIVE, **collider) -> int:
    return esper.create_entity(ep.Position(x, y), ep.Velocity(vx, vy),
                               ep.Collider(kind, **collider), ep.Geometry(ep.Circle(r)))


def test_two_sensors_crossing_touch_keep_separate_in_order(world):
    physics = ep.Physics(fixed_dt=DT)
    a = circle(-3, 0, vx=3, sensor=True)
    b = circle(3, 0.2, vx=-3, sensor=True)
    log = Log(physics)
    steps(120)
    names = log.names()
    n = names.count("keep")
    assert names == ["touch"] + ["keep"] * n + ["separate"]
    assert n > 10
    assert all(e[1:3] == (a, b) for e in log.events)
    keeps = log.events[1:-1]
    assert [e[3] for e in keeps] == list(range(1, n + 1))
    assert [e[4] for e in keeps] == pytest.approx([i * DT for i in range(1, n + 1)])
    assert log.events[0][3:] == (0, 0.0)
    assert log.contacts[0].sensor is True
    # Both kept moving: sensors get events only, no response.
    assert esper.component_for_entity(a, ep.Position).x == pytest.approx(-3 + 3 * 120 * DT)


def test_ball_resting_on_a_floor_touches_once_and_never_separates(world):
    physics = ep.Physics(fixed_dt=DT)
    floor = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.Rect(40, 1)))
    ball = esper.create_entity(ep.Position(0, 2), ep.Velocity(0, 0),
                               ep.AccelerationMap(gravity=(0, -9.8)),
                               ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
    log = Log(physics)
    steps(600)
    names = log.names()
    assert names.count("touch") == 1 and names.count("separate") == 0
    assert names[0] == "touch" and set(names[1:]) == {"keep"}
    assert physics.touching(ball) == [floor]
    last = log.events[-1]
    assert last[3] == len(names) - 1 and last[4] == pytest.approx(last[3] * DT)


def test_steps_nobody_listens_to_keep_each_pairs_history(world):
    """Steps with no handler only carry the pairs' history on: a handler subscribed later
    hears a resting pair's keep-touching with every step counted, and a changed collider in
    those quiet steps still starts its pair again."""
    physics = ep.Physics(fixed_dt=DT)
    floor = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.Rect(40, 1)))
    ball = esper.create_entity(ep.Position(0, 1.0), ep.Velocity(0, 0),
                               ep.AccelerationMap(gravity=(0, -9.8)),
                               ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
    crate = esper.create_entity(ep.Position(5, 1.0), ep.Velocity(0, 0),
                                ep.AccelerationMap(gravity=(0, -9.8)),
                                ep.Collider(ep.ACTIVE), ep.Geometry(ep.Rect(1, 1)))
    steps(40)  # nobody listens: the diff alone runs
    assert sorted(physics.touching(floor)) == sorted([ball, crate])
    esper.component_for_entity(crate, ep.Collider).restitution = 0.0  # changed, unheard
    steps(1)
    log = Log(physics)
    steps(1)
    got = sorted(log.take(), key=lambda e: e[2])
    assert [e[:3] for e in got] == [("keep", floor, ball), ("keep", floor, crate)]
    ball_steps, crate_steps = got[0][3], got[1][3]
    assert ball_steps >= 40 and got[0][4] == pytest.approx(ball_steps * DT)
    assert crate_steps == 1 and got[1][4] == pytest.approx(DT)  # started again at step 41


def test_deleting_an_entity_in_its_own_touch_handler(world):
    physics = ep.Physics(fixed_dt=DT)
    coin = circle(0, 0, r=1.0, sensor=True)
    w1 = esper.create_entity(ep.Position(0.9, 0), ep.Collider(ep.STATIC),
                             ep.Geometry(ep.Rect(1, 1)))
    w2 = esper.create_entity(ep.Position(-0.9, 0), ep.Collider(ep.STATIC),
                             ep.Geometry(ep.Rect(1, 1)))
    log = Log(physics)

    @physics.on_touch(entity=coin)
    def collected(contact) -> None:
        esper.delete_entity(coin)

    steps(1)
    assert log.take() == [("touch", coin, w1, 0, 0.0), ("touch", coin, w2, 0, 0.0)]
    steps(1)
    assert log.take() == [("separate", coin, w1, 0, 0.0), ("separate", coin, w2, 0, 0.0)]
    steps(30)
    assert log.take() == []
    assert not esper.entity_exists(coin)


def test_teleporting_away_separates_next_step(world):
    physics = ep.Physics(fixed_dt=DT)
    zone = circle(0, 0, r=2.0, kind=ep.STATIC, sensor=True)
    walker = circle(1, 0)
    log = Log(physics)
    steps(3)
    assert log.names() == ["touch", "keep", "keep"]
    log.take()
    esper.component_for_entity(walker, ep.Position).xy = (100, 0)
    steps(1)
    assert log.take() == [("separate", zone, walker, 2, pytest.approx(2 * DT))]
    steps(5)
    assert log.take() == []


def test_layer_change_separates_and_touches_again_only_if_still_colliding(world):
    L = Layers("ground", "ghost", "other")
    physics = ep.Physics(fixed_dt=DT, layers=L)
    ground = esper.create_entity(ep.Position(0, 0),
                                 ep.Collider(ep.STATIC, layer=L.ground,
                                             mask=L.mask("ground", "other")),
                                 ep.Geometry(ep.Rect(4, 1)))
    thing = circle(0, 0.5, sensor=True, layer=L.other)
    log = Log(physics)
    ghosts = Log(physics, layers=("ground", "ghost"))
    steps(2)
    assert log.names() == ["touch", "keep"]
    log.take()
    col = esper.component_for_entity(thing, ep.Collider)
    col.mask = ep.ALL  # a change of the collider: the pair ends and starts again
    steps(1)
    assert log.take() == [("separate", ground, thing, 1, pytest.approx(DT)),
                          ("touch", ground, thing, 0, 0.0)]
    col.layer = L.ghost  # now the ground's mask excludes it
    steps(1)
    assert log.take() == [("separate", ground, thing, 0, 0.0)]
    steps(10)
    assert log.take() == [] and ghosts.take() == []
    assert physics.touching(thing) == []


def test_removing_the_collider_separates(world):
    physics = ep.Physics(fixed_dt=DT)
    a = circle(0, 0, sensor=True)
    b = circle(0.5, 0, sensor=True)
    log = Log(physics)
    steps(1)
    esper.remove_component(b, ep.Collider)
    steps(2)
    assert log.take() == [("touch", a, b, 0, 0.0), ("separate", a, b, 0, 0.0)]


def test_esper_bus_and_bound_method_handlers_end_to_end(world):
    physics = ep.Physics(fixed_dt=DT)

    class Game:
        def __init__(self) -> None:
            self.seen: list[tuple] = []

        def on_touch(self, c) -> None:
            self.seen.append(("bus", c.a, c.b))

        def hit(self, c) -> None:
            self.seen.append(("physics", c.a, c.b))

    game = Game()
    esper.set_handler("on_touch", game.on_touch)
    physics.on_touch(game.hit)
    a = circle(0, 0, sensor=True)
    b = circle(0.5, 0, sensor=True)
    steps(2)
    assert game.seen == [("bus", a, b), ("physics", a, b)]
    assert physics.remove_handler(game.hit) == 1
    esper.component_for_entity(b, ep.Position).x = 50
    steps(1)
    esper.component_for_entity(b, ep.Position).x = 0.5
    steps(1)
    assert game.seen[2:] == [("bus", a, b)]


def _crowd_events(seed: int) -> list[str]:
    rng = random.Random(seed)
    physics = ep.Physics(fixed_dt=DT)
    for x, y, w, h in ((0, -21, 44, 2), (0, 21, 44, 2), (-21, 0, 2, 44), (21, 0, 2, 44)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(w, h)))
    for i in range(1000):
        circle((i % 32) * 1.2 - 18.6, (i // 32) * 1.2 - 18.6,
               rng.uniform(-4, 4), rng.uniform(-4, 4), r=0.4, sensor=(i % 7 == 0))
    out: list[str] = []
    physics.on_touch(lambda c: out.append(f"touch {c!r}"))
    physics.on_keep_touching(lambda c: out.append(f"keep {c!r}"))
    physics.on_separate(lambda c: out.append(f"separate {c!r}"))
    steps(60)
    return out


def test_a_thousand_body_scene_gives_the_same_events_twice():
    runs = []
    for i in range(2):
        name = f"events-crowd-{i}"
        previous = esper.current_world
        esper.switch_world(name)
        try:
            runs.append(_crowd_events(seed=3))
        finally:
            esper.switch_world(previous)
            esper.delete_world(name)
    assert len(runs[0]) > 1000
    assert runs[0] == runs[1]


def test_a_raising_handler_propagates_out_of_esper_process_and_loses_nothing(world):
    physics = ep.Physics(fixed_dt=DT)
    a = circle(0, 0, sensor=True)
    b = circle(0.5, 0, sensor=True)
    c = circle(0.5, 0.6, sensor=True)
    log = Log(physics)
    fail = {"once": True}

    @physics.on_touch
    def explode(contact) -> None:
        if fail["once"]:
            fail["once"] = False
            raise RuntimeError("game bug")

    with pytest.raises(RuntimeError, match="game bug"):
        esper.process(DT)
    assert log.take() == [("touch", a, b, 0, 0.0)]  # the Log's handler was registered first
    esper.process(DT)
    events = log.take()
    # The pending touches of the failed step first, then this step's events.
    assert events[:2] == [("touch", a, c, 0, 0.0), ("touch", b, c, 0, 0.0)]
    assert [e[0] for e in events[2:5]] == ["keep"] * 3
    assert all(e[3] >= 1 for e in events[2:])
