"""The events system on synthetic ContactSets: exact event sequences, filters, costs, errors."""

from __future__ import annotations

import gc
import random

import esper
import numpy as np
import pytest

import ecsphys as ep
import ecsphys.systems.events as events_mod
from ecsphys.events import BodyContact, EventHandlers
from ecsphys.layers import Layers
from ecsphys.state.body_table import BodyTable
from ecsphys.state.contact_set import ContactSet
from ecsphys.systems.events import EventsSystem

DT = 1 / 60


def make_table(layers: dict[int, int]) -> BodyTable:
    """A body table holding ``entity -> layer`` bodies."""
    table = BodyTable()
    for e, layer in layers.items():
        table.add(e, (ep.Position(0, 0), None, None, ep.Collider(ep.ACTIVE, layer=layer),
                      ep.Geometry(ep.Circle(1))))
    return table


def depth_of(a: int, b: int, tag: int = 0) -> float:
    return a * 0.01 + b * 0.0001 + tag


def cs(*pairs: tuple[int, int], tag: int = 0,
       sensor: tuple[tuple[int, int], ...] = ()) -> ContactSet:
    """A ContactSet of ``pairs`` (any order, either orientation); depth encodes pair and tag."""
    ps = sorted({(min(p), max(p)) for p in pairs})
    a = np.array([p[0] for p in ps], dtype=np.int64)
    b = np.array([p[1] for p in ps], dtype=np.int64)
    m = len(ps)
    normal = np.tile([1.0, 0.0], (m, 1)) if m else np.zeros((0, 2))
    depth = np.array([depth_of(x, y, tag) for x, y in ps], dtype=np.float64)
    point = np.column_stack([a.astype(float), b.astype(float)]) if m else np.zeros((0, 2))
    sens = np.array([p in sensor for p in ps], dtype=np.bool_)
    return ContactSet(a, b, normal, depth, point, np.full(m, np.inf), sens)


class Recorder:
    """Registers itself for all three events; records ``(event, a, b, steps, duration)``."""

    def __init__(self, handlers: EventHandlers, **filters) -> None:
        self.log: list[tuple] = []
        self.contacts: list[BodyContact] = []
        handlers.on_separate(self.separate, **filters)
        handlers.on_touch(self.touch, **filters)
        handlers.on_keep_touching(self.keep, **filters)

    def _rec(self, name: str, c: BodyContact) -> None:
        self.log.append((name, c.a, c.b, c.steps, round(c.duration, 9)))
        self.contacts.append(c)

    def touch(self, c: BodyContact) -> None:
        self._rec("touch", c)

    def keep(self, c: BodyContact) -> None:
        self._rec("keep", c)

    def separate(self, c: BodyContact) -> None:
        self._rec("separate", c)

    def take(self) -> list[tuple]:
        out, self.log = self.log, []
        return out


@pytest.fixture
def setup(world):
    table = make_table({e: 1 for e in range(1, 21)})
    handlers = EventHandlers()
    system = EventsSystem(table, handlers)
    return table, handlers, system


def run(system: EventsSystem, contacts: ContactSet, changed: set[int] | None = None,
        dt: float = DT) -> None:
    system.process(contacts, set() if changed is None else changed, dt)


# ------------------------------------------------------------------ sequences


def test_touch_keep_touching_separate_with_growing_duration(setup):
    _, handlers, system = setup
    rec = Recorder(handlers)
    run(system, cs((1, 2), tag=1))
    assert rec.take() == [("touch", 1, 2, 0, 0.0)]
    for i in range(1, 5):
        run(system, cs((2, 1), tag=1 + i))
        assert rec.take() == [("keep", 1, 2, i, round(i * DT, 9))]
    run(system, cs())
    assert rec.take() == [("separate", 1, 2, 4, round(4 * DT, 9))]
    # The separate carries the last known contact.
    last = rec.contacts[-1]
    assert last.depth == pytest.approx(depth_of(1, 2, 5))
    assert last.normal == (1.0, 0.0) and last.point == (1.0, 2.0)
    run(system, cs())
    assert rec.take() == []


def test_contact_values_are_plain_python(setup):
    _, handlers, system = setup
    rec = Recorder(handlers)
    run(system, cs((3, 4), sensor=((3, 4),)))
    c = rec.contacts[0]
    assert type(c.a) is int and type(c.b) is int and type(c.steps) is int
    assert type(c.depth) is float and type(c.duration) is float
    assert type(c.normal) is tuple and all(type(v) is float for v in c.normal + c.point)
    assert c.sensor is True
    assert (c.other(3), c.other(4)) == (4, 3)
    assert c.normal_from(4) == (-1.0, -0.0)
    with pytest.raises(ValueError, match="5"):
        c.other(5)
    assert repr(c).startswith("BodyContact(a=3, b=4, normal=(1, 0), depth=0.0304")
    assert "sensor=True" in repr(c)


def test_deleted_entity_pairs_separate_even_when_gone_from_the_table(world):
    table = make_table({1: 1, 2: 2, 3: 2})
    handlers = EventHandlers()
    system = EventsSystem(table, handlers)
    rec = Recorder(handlers, layers=(1, 2))
    run(system, cs((1, 2), (1, 3), (2, 3)))
    assert rec.take() == [("touch", 1, 2, 0, 0.0), ("touch", 1, 3, 0, 0.0)]
    table.remove(1)  # entity 1 deleted: its pairs vanish from the contacts
    run(system, cs((2, 3)))
    assert rec.take() == [("separate", 1, 2, 0, 0.0), ("separate", 1, 3, 0, 0.0)]


def test_changed_entity_separates_and_touches_again(setup):
    _, handlers, system = setup
    rec = Recorder(handlers)
    run(system, cs((1, 2), (2, 3), (4, 5)))
    rec.take()
    run(system, cs((1, 2), (2, 3), (4, 5)))
    rec.take()
    changed = {2, 99}
    run(system, cs((1, 2), (4, 5)), changed)
    assert changed == set()
    assert rec.take() == [
        ("separate", 1, 2, 1, round(DT, 9)),
        ("separate", 2, 3, 1, round(DT, 9)),
        ("touch", 1, 2, 0, 0.0),
        ("keep", 4, 5, 2, round(2 * DT, 9)),
    ]
    run(system, cs((1, 2), (4, 5)))
    assert rec.take() == [("keep", 1, 2, 1, round(DT, 9)), ("keep", 4, 5, 3, round(3 * DT, 9))]


def test_changed_layer_is_seen_by_the_new_touch(world):
    table = make_table({1: 1, 2: 2})
    handlers = EventHandlers()
    system = EventsSystem(table, handlers)
    rec12 = Recorder(handlers, layers=(1, 2))
    rec14 = Recorder(handlers, layers=(4, 1))
    run(system, cs((1, 2)))
    table.collider_changed(table.row_of[2], ep.Collider(ep.ACTIVE, layer=4))
    assert table.changed == {2}
    run(system, cs((1, 2)), table.changed)
    assert table.changed == set()
    assert rec12.take() == [("touch", 1, 2, 0, 0.0), ("separate", 1, 2, 0, 0.0)]
    assert rec14.take() == [("touch", 1, 2, 0, 0.0)]


def test_order_within_a_step(setup):
    _, handlers, system = setup
    rec = Recorder(handlers)
    run(system, cs((5, 9), (1, 7), (2, 3), (1, 2)))
    run(system, cs((1, 2), (5, 9), (3, 4), (1, 3), (2, 8)))
    log = rec.take()[4:]
    assert log == [
        ("separate", 1, 7, 0, 0.0), ("separate", 2, 3, 0, 0.0),
        ("touch", 1, 3, 0, 0.0), ("touch", 2, 8, 0, 0.0), ("touch", 3, 4, 0, 0.0),
        ("keep", 1, 2, 1, round(DT, 9)), ("keep", 5, 9, 1, round(DT, 9)),
    ]


class ReferenceEvents:
    """The seed's algorithm with Python sets: the oracle."""

    def __init__(self) -> None:
        self.prev: dict[tuple[int, int], tuple[int, float]] = {}

    def step(self, pairs: set[tuple[int, int]], changed: set[int], dt: float) -> list[tuple]:
        ended = {p for p in self.prev if p not in pairs or p[0] in changed or p[1] in changed}
        out = [("separate", *p, *self.prev[p]) for p in sorted(ended)]
        now: dict[tuple[int, int], tuple[int, float]] = {}
        for p in sorted(pairs):
            if p in self.prev and p not in ended:
                s, d = self.prev[p]
                now[p] = (s + 1, d + dt)
            else:
                now[p] = (0, 0.0)
        out += [("touch", *p, *now[p]) for p in sorted(pairs) if now[p][0] == 0]
        out += [("keep", *p, *now[p]) for p in sorted(pairs) if now[p][0] > 0]
        self.prev = now
        return [(e, a, b, s, round(d, 9)) for e, a, b, s, d in out]


@pytest.mark.parametrize("seed", range(6))
def test_random_sequences_match_the_reference(world, seed):
    rng = random.Random(seed)
    entities = list(range(1, 40))
    table = make_table({e: 1 for e in entities})
    handlers = EventHandlers()
    system = EventsSystem(table, handlers)
    rec = Recorder(handlers)
    ref = ReferenceEvents()
    pairs: set[tuple[int, int]] = set()
    for _ in range(60):
        for _ in range(rng.randrange(8)):
            a, b = rng.sample(entities, 2)
            pairs.add((min(a, b), max(a, b)))
        pairs = {p for p in pairs if rng.random() > 0.1}
        changed = set(rng.sample(entities, rng.randrange(3)))
        dt = rng.choice([DT, 0.02, 0.1])
        expected = ref.step(pairs, set(changed), dt)
        run(system, cs(*pairs), changed, dt)
        assert rec.take() == expected
    assert {(c.a, c.b) for c in system.contacts()} == pairs


def test_same_input_gives_same_events(world):
    def record() -> list[str]:
        rng = random.Random(7)
        handlers = EventHandlers()
        system = EventsSystem(make_table({e: 1 for e in range(1, 30)}), handlers)
        rec = Recorder(handlers)
        for _ in range(40):
            pairs = {tuple(sorted(rng.sample(range(1, 30), 2))) for _ in range(20)}
            run(system, cs(*pairs, tag=rng.randrange(3)), set(rng.sample(range(1, 30), 1)))
        return [repr(c) for c in rec.contacts]

    first = record()
    assert first == record() and len(first) > 500


# ------------------------------------------------------------------ cost of nobody listening


class Counted(BodyContact):
    __slots__ = ()
    made = 0

    def __init__(self, *args) -> None:
        Counted.made += 1
        super().__init__(*args)


def test_nobody_listening_builds_no_contacts(setup, monkeypatch):
    _, handlers, system = setup
    monkeypatch.setattr(events_mod, "BodyContact", Counted)
    Counted.made = 0
    many = [(a, b) for a in range(1, 21) for b in range(a + 1, 21)]
    for _ in range(5):
        run(system, cs(*many))
    run(system, cs())
    assert Counted.made == 0
    # A touch subscriber does not pay for the keep_touching pairs...
    seen: list[BodyContact] = []
    handlers.on_touch(seen.append)
    run(system, cs(*many))
    run(system, cs(*many))
    assert Counted.made == len(many) == len(seen)
    # ...and a filtered keep subscriber only for its own pairs.
    mine: list[BodyContact] = []
    handlers.on_keep_touching(mine.append, entity=3)
    run(system, cs(*many))
    assert Counted.made == len(many) + 19 and len(mine) == 19
    assert all(3 in c.pair for c in mine)


def test_no_esper_dispatch_when_esper_has_no_handlers(setup, monkeypatch):
    _, handlers, system = setup
    calls: list[tuple] = []
    monkeypatch.setattr(esper, "dispatch_event", lambda *args: calls.append(args))
    run(system, cs((1, 2)))
    run(system, cs())
    assert calls == []


# ------------------------------------------------------------------ esper's bus


class EsperListener:
    def __init__(self) -> None:
        self.log: list[tuple] = []

    def on_touch(self, c: BodyContact) -> None:
        self.log.append(("touch", c.a, c.b))

    def on_keep(self, c: BodyContact) -> None:
        self.log.append(("keep", c.a, c.b))

    def on_separate(self, c: BodyContact) -> None:
        self.log.append(("separate", c.a, c.b))


def test_esper_set_handler_receives_events_before_registry_handlers(setup):
    _, handlers, system = setup
    listener = EsperListener()
    esper.set_handler("on_touch", listener.on_touch)
    esper.set_handler("on_keep_touching", listener.on_keep)
    esper.set_handler("on_separate", listener.on_separate)
    handlers.on_touch(lambda c: listener.log.append(("registry-touch", c.a, c.b)))
    run(system, cs((1, 2), (3, 4)))
    run(system, cs((3, 4)))
    assert listener.log == [
        ("touch", 1, 2), ("registry-touch", 1, 2), ("touch", 3, 4), ("registry-touch", 3, 4),
        ("separate", 1, 2), ("keep", 3, 4),
    ]


def test_events_go_to_the_current_worlds_bus_only(setup):
    _, _, system = setup
    here = esper.current_world
    listener = EsperListener()
    esper.switch_world(here + "-other")
    esper.set_handler("on_touch", listener.on_touch)
    esper.switch_world(here)
    run(system, cs((1, 2)))
    assert listener.log == []
    esper.delete_world(here + "-other")


# ------------------------------------------------------------------ the registry


def test_lambdas_are_kept_alive(setup):
    _, handlers, system = setup
    got: list[int] = []
    handlers.on_touch(lambda c: got.append(c.a))
    gc.collect()
    run(system, cs((1, 2)))
    assert got == [1]


def test_decorator_forms_return_the_function(setup):
    _, handlers, system = setup
    got: list[str] = []

    @handlers.on_touch
    def bare(c):
        got.append("bare")

    @handlers.on_touch(entity=5)
    def filtered(c):
        got.append("filtered")

    @handlers.on_touch()
    def empty_call(c):
        got.append("empty")

    assert callable(bare) and callable(filtered) and callable(empty_call)
    assert handlers.on_separate(bare) is bare
    run(system, cs((1, 2)))
    run(system, cs((5, 6)))
    assert got == ["bare", "empty", "bare", "bare", "filtered", "empty"]


def test_bound_methods_are_removable(setup):
    _, handlers, system = setup
    listener = EsperListener()
    handlers.on_touch(listener.on_touch)
    handlers.on_separate(listener.on_separate)
    handlers.on_touch(listener.on_touch)  # equal handler and filters: not registered twice
    assert handlers.count("touch") == 1
    run(system, cs((1, 2)))
    assert handlers.remove_handler(listener.on_touch) == 1
    assert handlers.remove_handler(listener.on_touch) == 0
    run(system, cs())
    run(system, cs((1, 2)))
    assert listener.log == [("touch", 1, 2), ("separate", 1, 2)]
    handlers.on_keep_touching(listener.on_keep)
    assert handlers.remove_handler(listener.on_keep, "on_keep_touching") == 1
    assert handlers.count() == 1


def test_filter_by_entity(setup):
    _, handlers, system = setup
    rec = Recorder(handlers, entity=2)
    run(system, cs((1, 2), (2, 3), (3, 4)))
    run(system, cs((2, 3), (3, 4)))
    assert rec.take() == [("touch", 1, 2, 0, 0.0), ("touch", 2, 3, 0, 0.0),
                          ("separate", 1, 2, 0, 0.0), ("keep", 2, 3, 1, round(DT, 9))]


def test_filter_by_layers_bits_and_names_either_order(world):
    L = Layers("player", "enemy", "wall")
    table = make_table({1: L.player, 2: L.enemy, 3: L.wall, 4: L.enemy | L.wall})
    handlers = EventHandlers(L)
    system = EventsSystem(table, handlers)
    by_name = Recorder(handlers, layers=("enemy", "player"))
    by_bits = Recorder(handlers, layers=(L.player, L.enemy))
    walls = Recorder(handlers, layers=("wall", "wall"))
    both = Recorder(handlers, layers=("player", "wall"), entity=4)
    run(system, cs((1, 2), (1, 3), (2, 3), (1, 4), (3, 4)))
    touched = {name: [(a, b) for _, a, b, _, _ in r.take()]
               for name, r in [("n", by_name), ("b", by_bits), ("w", walls), ("both", both)]}
    assert touched == {"n": [(1, 2), (1, 4)], "b": [(1, 2), (1, 4)],
                       "w": [(3, 4)], "both": [(1, 4)]}


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"fn": 3}, TypeError, "fn must be callable, got 3"),
    ({"fn": print, "entity": "x"}, TypeError, "entity must be an int entity id, got 'x'"),
    ({"fn": print, "entity": True}, TypeError, "entity"),
    ({"fn": print, "entity": -1}, ValueError, "entity must be >= 0, got -1"),
    ({"fn": print, "layers": 3}, TypeError, "layers must be a pair"),
    ({"fn": print, "layers": "player"}, TypeError, "layers must be a pair"),
    ({"fn": print, "layers": (1, 2, 4)}, ValueError, "layers must be a pair"),
    ({"fn": print, "layers": (1, 0)}, ValueError, r"layers bits must be in .*\(1, 0\)"),
    ({"fn": print, "layers": (1, 2.0)}, TypeError, "layer bits"),
    ({"fn": print, "layers": ("player", "ghost")}, ValueError, "ghost"),
    ({"fn": None, "layers": ("player", "ghost")}, ValueError, "ghost"),
])
def test_bad_arguments_register_nothing(kwargs, error, match):
    handlers = EventHandlers(Layers("player", "enemy"))
    fn = kwargs.pop("fn")
    for register in (handlers.on_touch, handlers.on_keep_touching, handlers.on_separate):
        with pytest.raises(error, match=match):
            register(fn, **kwargs)
    assert handlers.count() == 0


def test_more_bad_arguments():
    handlers = EventHandlers()
    with pytest.raises(ValueError, match="no Layers"):
        handlers.on_touch(print, layers=("player", "enemy"))
    with pytest.raises(TypeError, match="fn must be callable, got 'nope'"):
        handlers.on_touch(entity=1)("nope")
    with pytest.raises(ValueError, match="event must be one of"):
        handlers.add("collide", print)
    with pytest.raises(ValueError, match="event must be one of"):
        handlers.remove_handler(print, "collide")
    with pytest.raises(TypeError, match="Layers or None"):
        EventHandlers("player")  # type: ignore[arg-type]
    assert handlers.count() == 0
    assert handlers.add("on_touch", print) is print and handlers.count("touch") == 1


# ------------------------------------------------------------------ handlers doing things


def test_handlers_may_add_and_remove_handlers_while_called(setup):
    _, handlers, system = setup
    got: list[tuple] = []

    def late(c: BodyContact) -> None:
        got.append(("late", c.a, c.b))

    def first(c: BodyContact) -> None:
        got.append(("first", c.a, c.b))
        handlers.remove_handler(second)
        handlers.on_touch(late)

    def second(c: BodyContact) -> None:
        got.append(("second", c.a, c.b))

    handlers.on_touch(first)
    handlers.on_touch(second)
    run(system, cs((1, 2), (3, 4)))
    assert got == [("first", 1, 2), ("first", 3, 4)]  # second removed; late from next step
    got.clear()
    run(system, cs((1, 2), (3, 4), (5, 6)))
    assert got == [("first", 5, 6), ("late", 5, 6)]


def test_exception_propagates_and_the_rest_is_delivered_next_step(setup):
    _, handlers, system = setup
    rec = Recorder(handlers)
    boom = {"on": True}

    def explode(c: BodyContact) -> None:
        if boom["on"] and c.a == 3:
            boom["on"] = False
            raise RuntimeError("handler failed")

    handlers.on_touch(explode)
    with pytest.raises(RuntimeError, match="handler failed"):
        run(system, cs((1, 2), (3, 4), (5, 6)))
    assert rec.take() == [("touch", 1, 2, 0, 0.0), ("touch", 3, 4, 0, 0.0)]
    assert system.has_pending
    assert system.touching(3) == [4]  # state committed before dispatch
    run(system, cs((5, 6)))
    assert rec.take() == [
        ("touch", 5, 6, 0, 0.0),                      # pending from the failed step
        ("separate", 1, 2, 0, 0.0), ("separate", 3, 4, 0, 0.0),
        ("keep", 5, 6, 1, round(DT, 9)),
    ]
    assert not system.has_pending
    run(system, cs())
    assert rec.take() == [("separate", 5, 6, 1, round(DT, 9))]


def test_exception_in_esper_handler_propagates(setup):
    _, handlers, system = setup
    rec = Recorder(handlers)

    def bad(c: BodyContact) -> None:
        raise KeyError("esper handler")

    esper.set_handler("on_separate", bad)
    run(system, cs((1, 2)))
    with pytest.raises(KeyError):
        run(system, cs())
    assert rec.take() == [("touch", 1, 2, 0, 0.0)]
    esper.remove_handler("on_separate", bad)
    run(system, cs())
    assert rec.take() == [("separate", 1, 2, 0, 0.0)]


# ------------------------------------------------------------------ polling


def test_polling_helpers(setup):
    _, _, system = setup
    run(system, cs((1, 2), (2, 5), (0, 2), (3, 4)))
    run(system, cs((1, 2), (2, 5), (3, 4), (2, 9)))
    assert system.touching(2) == [1, 5, 9]
    assert system.touching(7) == []
    assert [c.pair for c in system.contacts()] == [(1, 2), (2, 5), (2, 9), (3, 4)]
    of2 = system.contacts_of(2)
    assert [(c.pair, c.steps) for c in of2] == [((1, 2), 1), ((2, 5), 1), ((2, 9), 0)]
    assert of2[0].duration == pytest.approx(DT)
    assert system.is_touching(5, 2) and not system.is_touching(0, 2)
    assert len(system) == 4
    system.reset()
    assert system.contacts() == [] and system.touching(2) == []


def test_after_a_raise_the_other_handlers_of_that_contact_still_get_it(setup):
    _, handlers, system = setup
    got: list[tuple] = []
    fails = {"left": 1}

    def flaky(c: BodyContact) -> None:
        got.append(("flaky", c.a))
        if c.a == 3 and fails["left"]:
            fails["left"] -= 1
            raise ValueError("flaky")

    handlers.on_touch(lambda c: got.append(("first", c.a)))
    handlers.on_touch(flaky)
    handlers.on_touch(lambda c: got.append(("last", c.a)))
    with pytest.raises(ValueError):
        run(system, cs((1, 2), (3, 4), (5, 6)))
    assert got == [("first", 1), ("flaky", 1), ("last", 1), ("first", 3), ("flaky", 3)]
    got.clear()
    run(system, cs((1, 2), (3, 4), (5, 6)))
    assert got == [("last", 3), ("first", 5), ("flaky", 5), ("last", 5)]


def test_raising_again_while_resuming_resumes_again(setup):
    _, handlers, system = setup
    got: list[int] = []
    fails = {"left": 3}

    def bad(c: BodyContact) -> None:
        got.append(c.a)
        if fails["left"]:
            fails["left"] -= 1
            raise RuntimeError

    handlers.on_touch(bad)
    handlers.on_separate(bad)
    with pytest.raises(RuntimeError):
        run(system, cs((1, 2), (3, 4)))
    with pytest.raises(RuntimeError):
        run(system, cs())
    with pytest.raises(RuntimeError):
        run(system, cs())
    run(system, cs())
    # Each delivery happened exactly once, in order: touches, then the separates.
    assert got == [1, 3, 1, 3]
    assert not system.has_pending


def test_a_handler_running_a_step_defers_it_until_the_current_one_is_delivered(setup):
    _, handlers, system = setup
    got: list[tuple] = []

    def touch(c: BodyContact) -> None:
        got.append(("touch", c.a))
        if c.a == 1:
            run(system, cs((3, 4)))  # a nested step: its events come after this step's

    handlers.on_touch(touch)
    handlers.on_separate(lambda c: got.append(("separate", c.a)))
    run(system, cs((1, 2), (5, 6)))
    assert got == [("touch", 1), ("touch", 5), ("separate", 1), ("separate", 5), ("touch", 3)]
