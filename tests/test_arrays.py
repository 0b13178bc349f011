"""State as arrays: ``physics.arrays(...)`` and ``physics.set_arrays(...)``.

Shows: the arrays hold every body in ascending entity order after creates and deletes (adopted
without a step), as copies; the sleep flags and kinds; unknown or missing fields are refused;
batch writes give the bits of the same writes through the components over a 260-step run with
gravity, contacts and sleepers; a bad entity, a NaN, a value beyond the limits, a wrong shape
or an entity given twice changes nothing; a write wakes a sleeper it moves and not one it
writes its own values to.
"""

from __future__ import annotations

import esper
import numpy as np
import pytest
from sleep_scenes import DT, body, pile, run, settle

import ecsphys as ep
from ecsphys.state.body_table import MOTION_COLUMNS

# ------------------------------------------------------------------ reading


def _world(name: str) -> ep.Physics:
    esper.switch_world(name)
    esper.clear_database()
    return ep.Physics(fixed_dt=DT)


def test_contents_and_order_follow_creates_and_deletes_without_a_step():
    physics = _world("arrays-order")
    ents = [body(i, 0.0, ep.Circle(0.25), vx=float(i)) for i in range(6)]
    floor = body(0, -5, ep.Rect(20, 1), ep.STATIC)
    e, p, v, k = physics.arrays("entity", "position", "velocity", "kind")
    assert physics.steps == 0  # adopted, not stepped
    assert e.dtype == np.int64 and e.tolist() == sorted([*ents, floor])
    assert p.shape == (7, 2) and p.dtype == np.float64
    assert p[:6, 0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert v[:6, 0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert k.tolist() == [int(ep.ACTIVE)] * 6 + [int(ep.STATIC)]
    run(3)
    esper.delete_entity(ents[1])
    esper.delete_entity(ents[4])
    late = body(9, 9, ep.Circle(0.25), ep.PASSIVE)
    bare = esper.create_entity(ep.Position(1, 2), ep.Velocity(0, 0))  # no Collider: ACTIVE
    e, p, k = physics.arrays("entity", "position", "kind")
    live = sorted([ents[0], ents[2], ents[3], ents[5], floor, late, bare])
    assert e.tolist() == live
    assert (np.diff(e) > 0).all()
    for i, ent in enumerate(e.tolist()):  # what the components say, row by row
        assert tuple(p[i]) == esper.component_for_entity(ent, ep.Position).xy
    kinds = dict(zip(e.tolist(), k.tolist(), strict=True))
    assert kinds[late] == int(ep.PASSIVE) and kinds[bare] == int(ep.ACTIVE)
    assert kinds[floor] == int(ep.STATIC)
    # one field: an array; copies: writing them changes nothing
    pos = physics.arrays("position")
    assert isinstance(pos, np.ndarray)
    pos[:] = 123.0
    assert not (physics.arrays("position") == 123.0).any()
    # the order asked
    k2, e2 = physics.arrays("kind", "entity")
    assert e2.tolist() == live and k2.tolist() == k.tolist()


def test_sleeping_flags_are_those_of_is_sleeping():
    physics, floor, walls, balls = pile("arrays-sleep", 7)
    e, s = physics.arrays("entity", "sleeping")
    assert s.dtype == np.bool_ and not s.any()
    settle(physics, balls)
    e, s, v = physics.arrays("entity", "sleeping", "velocity")
    flags = dict(zip(e.tolist(), s.tolist(), strict=True))
    for ent in [floor, *walls, *balls]:
        assert flags[ent] == physics.is_sleeping(ent)
    assert all(flags[b] for b in balls) and not flags[floor]
    assert not v[s].any()  # a sleeper's velocity is exactly 0


def test_unknown_fields_and_no_field_are_refused():
    physics = _world("arrays-fields")
    body(0, 0, ep.Circle(1))
    with pytest.raises(ValueError, match="'pos'.*entity.*position.*velocity.*sleeping.*kind"):
        physics.arrays("entity", "pos")
    with pytest.raises(ValueError, match="at least one field"):
        physics.arrays()
    with pytest.raises(TypeError, match="str"):
        physics.arrays(3)  # type: ignore[arg-type]


def test_an_empty_world_gives_empty_arrays():
    physics = _world("arrays-empty")
    e, p, s = physics.arrays("entity", "position", "sleeping")
    assert e.shape == (0,) and p.shape == (0, 2) and s.shape == (0,)
    physics.set_arrays([], position=np.zeros((0, 2)))


# ------------------------------------------------------------------ writing

def _scene(name: str) -> tuple[ep.Physics, list[int]]:
    """Balls with gravity over a floor, bumping into each other: (physics, balls)."""
    physics = _world(name)
    body(0, -0.5, ep.Rect(30, 1), ep.STATIC)
    rng = np.random.default_rng(7)
    balls = []
    for i in range(24):
        kind = ep.ACTIVE if i % 3 else ep.PASSIVE
        balls.append(body(-10 + (i % 8) * 2.5, 1 + (i // 8) * 1.3, ep.Circle(0.5), kind,
                          vx=rng.uniform(-2, 2), g=9.8))
    return physics, balls


def _state(physics):
    """Every motion column (rest times and sleep state too) in entity order, and the notes the
    writes leave for the next step."""
    physics.sync()
    t = physics.table
    n = t.n
    order = np.argsort(t.entity[:n])
    cols = b"".join(getattr(t, name)[:n][order].tobytes() for name in MOTION_COLUMNS
                    if name != "carrier")
    return cols, set(t.touched), set(t.wake_requests), set(t.static_dirty), t.sleepers


def _write_both(a, b, world_a, ents, pos=None, vel=None):
    """The same writes: through the components in ``a``, through set_arrays in ``b``."""
    esper.switch_world(world_a)
    for i, e in enumerate(ents):
        if pos is not None:
            esper.component_for_entity(e, ep.Position).xy = (pos[i, 0], pos[i, 1])
        if vel is not None:
            esper.component_for_entity(e, ep.Velocity).xy = (vel[i, 0], vel[i, 1])
    b.set_arrays(np.array(ents, dtype=np.int64), position=pos, velocity=vel)
    assert _state(a) == _state(b)


def test_set_arrays_gives_the_bits_of_component_writes_over_260_steps():
    a, balls_a = _scene("arrays-twin-a")
    b, balls_b = _scene("arrays-twin-b")
    assert balls_a == balls_b
    balls = balls_a
    rng = np.random.default_rng(11)
    slept = 0
    for step in range(260):
        p, v = a.arrays("position", "velocity")  # (the balls come after the floor)
        p, v = p[1:], v[1:]
        if step < 60 and step % 5 == 0 or step in (150, 200):
            # shove some balls: moved or left in place, new or the same velocity
            k = int(rng.integers(1, 8))
            chosen = rng.choice(len(balls), size=k, replace=False)
            pos = p[chosen] + rng.uniform(-0.3, 0.3, (k, 2)) * (rng.random((k, 1)) < 0.7)
            vel = np.where(rng.random((k, 1)) < 0.5, v[chosen], rng.uniform(-3, 3, (k, 2)))
            _write_both(a, b, "arrays-twin-a", [balls[i] for i in chosen], pos, vel)
        if step in (120, 180, 230):  # every ball its own position and velocity, asleep or not
            _write_both(a, b, "arrays-twin-a", balls, p.copy(), v.copy())
        if step in (125, 240):  # (0, 0) to every ball, then one moved a hair
            _write_both(a, b, "arrays-twin-a", balls, vel=np.zeros((len(balls), 2)))
            _write_both(a, b, "arrays-twin-a", balls[5:6], pos=p[5:6] + [0.0, 1e-9])
        if step == 210:  # a velocity alone, to every ball at once
            _write_both(a, b, "arrays-twin-a", balls, vel=np.tile([0.0, 4.0], (len(balls), 1)))
        a.step()
        b.step()
        assert _state(a) == _state(b), f"differ after step {step}"
        slept = max(slept, a.stats["sleeping"])
    assert slept > 0  # writes met sleepers
    assert len(a.contacts()) == len(b.contacts()) > 0
    # the components read what set_arrays wrote
    esper.switch_world("arrays-twin-b")
    ents = np.array(balls_b[:3], dtype=np.int64)
    b.set_arrays(ents, position=[[1.5, 2.5], [3.0, 4.0], [-5, 6]], velocity=np.ones((3, 2)))
    assert esper.component_for_entity(balls_b[2], ep.Position).xy == (-5.0, 6.0)
    assert esper.component_for_entity(balls_b[0], ep.Velocity).xy == (1.0, 1.0)


def _columns(physics):
    physics.sync()
    t = physics.table
    n = t.n
    cols = {name: getattr(t, name)[:n].copy() for name in MOTION_COLUMNS}
    notes = (set(t.touched), set(t.wake_requests), set(t.static_dirty), t.static_version,
             t.pose_version)
    return cols, notes


def _same(before, after) -> bool:
    (ca, na), (cb, nb) = before, after
    return na == nb and all(ca[k].tobytes() == cb[k].tobytes() for k in ca)


def test_a_bad_write_changes_nothing():
    physics, balls = _scene("arrays-refuse")
    run(5)
    e, k = physics.arrays("entity", "kind")
    floor = int(e[k == int(ep.STATIC)][0])
    physics.step()
    ents = np.array(balls[:3], dtype=np.int64)
    good = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    before = _columns(physics)
    cases = [
        (ValueError, r"entity 999 is not a body", dict(entities=[balls[0], 999, balls[1]],
                                                     position=good)),
        (ValueError, rf"entity {balls[1]} is given more than once",
         dict(entities=[balls[0], balls[1], balls[1]], position=good)),
        (ValueError, rf"position of entity {balls[1]} must be finite.*nan",
         dict(entities=ents, position=np.array([[0.0, 1.0], [np.nan, 3.0], [4.0, 5.0]]))),
        (ValueError, rf"velocity of entity {balls[2]}.*1e\+07",
         dict(entities=ents, position=good, velocity=[[0, 0], [0, 0], [0, 2e7]])),
        (ValueError, rf"position of entity {balls[0]}.*inf",
         dict(entities=ents, position=[[np.inf, 0], [0, 0], [0, 0]])),
        (ValueError, r"position of entity .*1e\+09",
         dict(entities=ents, position=[[0, 0], [0, 0], [2_000_000_000, 0]])),
        (ValueError, r"position must have shape \(3, 2\).*\(2, 2\)",
         dict(entities=ents, position=good[:2])),
        (ValueError, r"velocity must have shape \(3, 2\).*\(3,\)",
         dict(entities=ents, position=good, velocity=[1.0, 2.0, 3.0])),
        (ValueError, r"entities must be 1-D", dict(entities=ents[None, :], position=good)),
        (TypeError, r"entities must be ints", dict(entities=[1.0, 2.0, 3.0], position=good)),
        (TypeError, r"entities must be ints", dict(entities=[True, False, True],
                                                   position=good)),
        (TypeError, r"position must hold real numbers",
         dict(entities=ents, position=np.array([["a", "b"]] * 3))),
        (TypeError, r"velocity must hold real numbers",
         dict(entities=ents, velocity=np.ones((3, 2), dtype=bool))),
        (ValueError, r"position=\.\.\. or velocity=\.\.\.", dict(entities=ents)),
    ]
    for error, message, kwargs in cases:
        entities = kwargs.pop("entities")
        with pytest.raises(error, match=message):
            physics.set_arrays(entities, **kwargs)
        assert _same(before, _columns(physics)), message
    # a velocity to a body without a Velocity component (there is no component to write)
    bare = esper.create_entity(ep.Position(3, 3), ep.Collider(ep.PASSIVE),
                               ep.Geometry(ep.Circle(0.2)))
    before = _columns(physics)
    with pytest.raises(ValueError, match=rf"entity {bare} has no Velocity component"):
        physics.set_arrays([balls[0], bare], position=good[:2], velocity=good[:2])
    assert _same(before, _columns(physics))
    physics.set_arrays([floor, bare], position=[[0.0, -0.5], [3.0, 3.5]])  # positions: fine
    assert esper.component_for_entity(bare, ep.Position).xy == (3.0, 3.5)


def test_a_write_wakes_a_sleeper_it_moves_and_not_one_it_writes_its_own_values():
    physics, floor, walls, balls = pile("arrays-wake", 14)
    settle(physics, balls)
    run(2)
    e, p, v = physics.arrays("entity", "position", "velocity")
    row = {ent: i for i, ent in enumerate(e.tolist())}
    mine = [balls[3], balls[4], floor]
    own_p = p[[row[x] for x in mine]]
    # their own positions, and a velocity of (0, 0) to the sleepers: nothing wakes
    physics.set_arrays(mine, position=own_p)
    physics.set_arrays(mine[:2], velocity=np.zeros((2, 2)))
    before = physics.arrays("position")
    run(4)
    assert physics.stats["sleeping"] == len(balls)
    assert physics.arrays("position").tobytes() == before.tobytes()
    # a velocity other than (0, 0) wakes its sleeper (and its island) in the next step
    physics.set_arrays([balls[4]], velocity=[[0.0, 0.5]])
    assert physics.is_sleeping(balls[4])  # until the next step
    run(1)
    assert not physics.is_sleeping(balls[4])
    settle(physics, balls)
    run(2)
    # a move wakes it too
    x, y = esper.component_for_entity(balls[2], ep.Position).xy
    physics.set_arrays([balls[2]], position=[[x + 0.01, y]])
    run(1)
    assert not physics.is_sleeping(balls[2])
