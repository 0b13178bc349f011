"""The compiled step (``systems/step.pyx``) gives the same bits as calling each stage's own
entry in order (the integrate, broadphase, response and narrowphase systems' ``process``,
``ground_pass``, ``keep_in_limits``): positions, velocities, ground columns, contact rows and
events, step after step, in scenes that take every path through it: plain steps, pairs found
beyond the swept boxes (bodies spawned overlapping in a crowd, a crowd that starts inside
itself), ``filter_pair``, a collider changed between steps, a tile map dug, a moving platform
with a rider."""

from __future__ import annotations

import itertools
import math
import time

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys.state.contact_set import pair_keys
from ecsphys.systems.ground import ground_pass
from ecsphys.systems.integrate import keep_in_limits

_worlds = itertools.count()


def _staged_step(physics: ep.Physics, dt: float) -> None:
    """One step through each stage's def entry (the order `Physics` ran before the compiled
    step), with the same bookkeeping around it."""
    esper.clear_dead_entities()
    t = physics.table
    physics._adopt.process()
    t.refresh_tilemaps()
    bp, response, narrow = physics._broadphase, physics._response, physics._narrowphase
    saved = t.motion() if bp.filter_pair is not None else None
    try:
        physics._integrate.process(dt)
        bp.process()
        response.filter_pair = bp.filter_pair
        if bp.filter_pair is not None:
            response.forget_end()
        response.process(bp.ra, bp.rb, dt, bp)
    except BaseException:
        if saved is not None:
            t.set_motion(saved)
        raise
    ra, rb = bp.ra, bp.rb
    extra = response.extra
    if len(extra[0]):
        toi, speed, normal, point = response.impacts
        k = len(ra)
        cols = [np.concatenate(c) for c in zip(
            (ra, rb, toi[:k], speed[:k], normal[:k], point[:k]),
            (extra[0], extra[1], toi[k:], speed[k:], normal[k:], point[k:]), strict=True)]
        order = np.argsort(pair_keys(t.entity[cols[0]], t.entity[cols[1]]), kind="stable")
        ra, rb, toi, speed, normal, point = (c[order] for c in cols)
        narrow.process(ra, rb, toi, speed, normal, point, t.changed)
    else:
        narrow.process(ra, rb, changed=t.changed, impacts=response.pair_impacts)
    rows = narrow.rows
    response.note_end(rows.deepest)
    ground_pass(t, ra, rb, rows, physics.up, math.cos(math.radians(physics.floor_max_angle)))
    keep_in_limits(t)
    t.pose_version += 1
    physics.steps += 1
    physics.time += dt
    physics.last_dt = dt
    physics._events.process(rows, t.changed, dt)


class _Scene:
    """A scene in its own esper world, with an event log."""

    def __init__(self, kind: str, staged: bool) -> None:
        self.world = f"step-core-{next(_worlds)}"
        self.staged = staged
        self.kind = kind
        self.log: list[tuple] = []
        self.extra_steps = 0
        esper.switch_world(self.world)
        # (sleeping off: the stages' own entries have no sleep pass; tests/test_sleep.py)
        self.physics = ep.Physics(fixed_dt=1 / 60, sleep_after=None)
        for event in ("touch", "keep_touching", "separate"):
            getattr(self.physics, f"on_{event}")(self._record(event))
        self.build()

    def _record(self, event: str):
        def handler(c) -> None:
            self.log.append((event, self.physics.steps, c.a, c.b, c.tile,
                             *np.asarray(c.normal).tolist(), c.depth, c.duration))
        return handler

    def build(self) -> None:
        rng = np.random.default_rng(7)
        gravity = ep.AccelerationMap(gravity=(0.0, -9.8))
        for x, y, w, h in ((10.0, -0.5, 22.0, 1.0), (-0.5, 10.0, 1.0, 20.0),
                           (20.5, 10.0, 1.0, 20.0)):
            esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(
                ep.Rect(w, h)))
        shapes = [ep.Circle(0.4), ep.Rect(0.7, 0.5), ep.OrientedRect(0.8, 0.4, 25.0)]
        self.bodies = []
        for i in range(60):
            x, y = rng.uniform(1.0, 19.0), rng.uniform(1.0, 15.0)
            self.bodies.append(esper.create_entity(
                ep.Position(x, y), ep.Velocity(*rng.uniform(-2.0, 2.0, 2)),
                ep.Collider(ep.ACTIVE if i % 3 else ep.PASSIVE, restitution=0.3 * (i % 2)),
                ep.Geometry(shapes[i % 3]), ep.AccelerationMap(gravity=gravity.total)))
        if self.kind == "crowd":  # 400 more, most inside others: all pushed apart at once
            for x, y in rng.uniform((1.0, 1.0), (19.0, 9.0), (400, 2)).tolist():
                esper.create_entity(ep.Position(x, y), ep.Velocity(0.0, 0.0),
                                    ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.4)),
                                    ep.AccelerationMap(gravity=gravity.total))
        if self.kind == "tiles":
            self.map = ep.TileMap(["#....#", "#.##.#", "######"], tile_size=1.0)
            esper.create_entity(ep.Position(5.0, 2.0), ep.Collider(ep.STATIC),
                                ep.Geometry(self.map))
        if self.kind == "platform":
            self.platform = esper.create_entity(
                ep.Position(10.0, 4.0), ep.Velocity(1.5, 0.0), ep.Collider(
                    ep.ACTIVE, mass=math.inf), ep.Geometry(ep.Rect(4.0, 0.5)))
            esper.create_entity(ep.Position(10.0, 4.8), ep.Velocity(0.0, 0.0),
                                ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.3)),
                                ep.AccelerationMap(gravity=(0.0, -9.8)))
        if self.kind == "filter":
            banned = set(self.bodies[::4])
            self.physics.filter_pair = lambda a, b: a not in banned and b not in banned

    def before(self, step: int) -> None:
        """What the game does before step ``step``."""
        if self.kind == "spawn" and step % 10 == 5:  # into the crowd, overlapping
            x, y = esper.component_for_entity(self.bodies[step % 60], ep.Position).xy
            esper.create_entity(ep.Position(x + 0.05, y), ep.Velocity(0.0, 0.0),
                                ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.6)),
                                ep.AccelerationMap(gravity=(0.0, -9.8)))
        if self.kind == "changed" and step % 15 == 7:
            e = self.bodies[step % 60]
            esper.component_for_entity(e, ep.Geometry).shape = ep.Circle(0.45)
            esper.add_component(self.bodies[(step + 1) % 60], ep.Collider(ep.ACTIVE,
                                                                          restitution=0.5))
        if self.kind == "tiles" and step % 20 == 10:
            self.map[1, 2 + (step // 20) % 2] = 0 if (step // 40) % 2 == 0 else 1
        if self.kind == "platform" and step % 40 == 0:
            v = esper.component_for_entity(self.platform, ep.Velocity)
            v.xy = (-v.xy[0], 0.0)

    def step(self, step: int) -> None:
        esper.switch_world(self.world)
        self.before(step)
        if self.staged:
            _staged_step(self.physics, 1 / 60)
        else:
            self.physics.step()
        if len(self.physics._response.extra[0]):
            self.extra_steps += 1
        if step == 0:
            self.first_extra = len(self.physics._response.extra[0])

    def state(self) -> tuple:
        t = self.physics.table
        n = t.n
        rows = self.physics._narrowphase.rows
        cols = tuple(rows.array(c).tobytes() for c in (
            "keys", "tile", "index", "normal", "point", "depth", "toi", "speed"))
        return (t.entity[:n].tobytes(), t.pos[:n].tobytes(), t.vel[:n].tobytes(),
                t.ground[:n].tobytes(), t.floor_n[:n].tobytes(), t.carrier[:n].tobytes(),
                cols)


def _drop(*scenes: _Scene) -> None:
    esper.switch_world("default")
    for scene in scenes:
        esper.delete_world(scene.world)


@pytest.mark.parametrize("kind", ["plain", "spawn", "crowd", "filter", "changed", "tiles",
                                  "platform"])
def test_the_compiled_step_gives_the_bits_of_the_stages_own_entries(kind: str) -> None:
    compiled, staged = _Scene(kind, staged=False), _Scene(kind, staged=True)
    try:
        for step in range(120):
            compiled.step(step)
            staged.step(step)
            assert compiled.state() == staged.state(), f"{kind}: step {step} differs"
        assert compiled.log == staged.log
        assert len(compiled.log) > 100  # the scene did something
        if kind in ("spawn", "crowd"):  # the path of pairs found beyond the swept boxes
            assert compiled.extra_steps > 0 and compiled.extra_steps == staged.extra_steps
        if kind == "crowd":  # hundreds of them in the first step, merged in entity order
            assert compiled.first_extra > 200
    finally:
        _drop(compiled, staged)


def test_filter_pair_raising_inside_the_compiled_step_leaves_the_bodies_as_they_were() -> None:
    scene = _Scene("plain", staged=False)
    try:
        for step in range(5):
            scene.step(step)
        t = scene.physics.table
        before = (t.pos[: t.n].copy(), t.vel[: t.n].copy())

        def veto(a: int, b: int) -> bool:
            raise RuntimeError("game rule failed")

        scene.physics.filter_pair = veto
        with pytest.raises(RuntimeError, match="game rule failed"):
            scene.physics.step()
        assert np.array_equal(t.pos[: t.n], before[0]) and np.array_equal(
            t.vel[: t.n], before[1])
        scene.physics.filter_pair = None
        scene.physics.step()  # and the world steps on
        assert not np.array_equal(t.pos[: t.n], before[0])
    finally:
        _drop(scene)


def test_timings_are_measured_inside_the_call() -> None:
    scene = _Scene("plain", staged=False)
    try:
        assert scene.physics.timings == {}
        scene.step(0)
        timings = scene.physics.timings
        assert set(timings) == {"adopt+integrate", "broadphase", "response", "narrowphase",
                                "events", "step"}
        assert all(v >= 0.0 for v in timings.values())
        parts = sum(v for k, v in timings.items() if k != "step")
        assert parts == pytest.approx(timings["step"], rel=1e-6, abs=1e-9)
        # the compiled stages read the clock Python's time.perf_counter reads
        before = time.perf_counter()
        scene.step(1)
        after = time.perf_counter()
        stamps = scene.physics._step.times
        assert before <= stamps[0] <= stamps[1] <= stamps[4] <= after
    finally:
        _drop(scene)


def test_response_reserve_refuses_a_negative_count_and_keeps_the_bits() -> None:
    compiled, staged = _Scene("crowd", staged=False), _Scene("crowd", staged=True)
    try:
        with pytest.raises(ValueError, match="n must be >= 0, got -1"):
            compiled.physics._response.reserve(-1)
        compiled.physics._response.reserve(10_000)  # far more room than the scene needs
        for step in range(30):
            compiled.step(step)
            staged.step(step)
            assert compiled.state() == staged.state(), f"step {step} differs"
    finally:
        _drop(compiled, staged)


def test_ground_pass_refuses_a_contact_of_no_pair_before_it_changes_anything() -> None:
    from ecsphys.systems.contact_rows import ContactRows

    esper.switch_world("step-core-ground-index")
    esper.clear_database()
    physics = ep.Physics(fixed_dt=1 / 60)
    esper.create_entity(ep.Position(0, -0.5), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(9, 1)))
    ball = esper.create_entity(ep.Position(0, 0.5), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                               ep.AccelerationMap(gravity=(0, -9.8)), ep.Geometry(ep.Circle(0.5)))
    for _ in range(10):
        esper.process(1 / 60)
    t = physics.table
    assert t.ground[t.row(ball)] != 0  # it stands on the floor
    before = t.ground.copy()

    def rows(index):
        return ContactRows.from_columns(1, {
            "keys": np.array([(1 << 32) | 2]), "a": np.array([1]), "b": np.array([2]),
            "layer_a": np.ones(1, np.int64), "layer_b": np.ones(1, np.int64),
            "tile": np.full(1, -1), "tile_kind": np.zeros(1, np.int64),
            "index": np.array([index]), "normal": np.zeros((1, 2)),
            "point": np.zeros((1, 2)), "depth": np.zeros(1), "toi": np.ones(1),
            "speed": np.zeros(1), "sensor": np.zeros(1, bool)})

    ra = np.array([0], dtype=np.int64)
    rb = np.array([1], dtype=np.int64)
    for bad in (1, 7, -2, -5):  # beyond the one pair; WOKEN; nothing
        with pytest.raises(IndexError, match=f"pair index {bad}"):
            ground_pass(t, ra, rb, rows(bad), (0.0, 1.0), 0.7)
        assert (t.ground == before).all()
    ground_pass(t, ra, rb, rows(-1), (0.0, 1.0), 0.7)  # a sleeping pair's row: passes


@pytest.mark.parametrize("kind", ["plain", "spawn", "tiles", "platform", "filter"])
def test_a_step_whose_grid_tests_every_pair_gives_the_bits_of_its_cells(kind: str) -> None:
    # (a room of a few bodies tests every pair; here 60 bodies are made to, against the same
    # scene through the grid's cells)
    from ecsphys.broadphase import grid

    before = grid.small_tests()
    few, cells = _Scene(kind, staged=False), _Scene(kind, staged=False)
    try:
        for step in range(90):
            grid.small_tests(1e9)
            few.step(step)
            grid.small_tests(0)
            cells.step(step)
            assert few.state() == cells.state(), f"{kind}: step {step} differs"
            few_q = few.physics.query_region(ep.Rect(6.0, 6.0), (10.0, 8.0))
            cells_q = cells.physics.query_region(ep.Rect(6.0, 6.0), (10.0, 8.0))
            assert few_q == cells_q  # world queries ask the index of the last run
        assert few.log == cells.log and len(few.log) > 100
        assert few.physics._broadphase.index.last_levels == 0
    finally:
        grid.small_tests(before)
        _drop(few, cells)
