"""The index answers for one changed body, not a scan of every row.

1. Bodies pushed beyond their swept boxes (piles that start overlapping) get their new pairs
   from the broadphase's index: the same pairs, in the same order, as a look at every row
   (the response without the index), so positions are bit-identical; and every broadphase
   steps such a pile exactly like the brute force. A crowd pushed apart (many rows widened
   at once, by one sweep) too, and every overlap a push apart leaves is a contact.
2. The static index takes single changes (statics created, deleted, moved every step, rows
   moved by the table's swap-remove while dynamic bodies come and go): bit-identical
   positions and the same events as a world whose static index is built afresh every step
   (``table.static_all``), and a moving door or a static spawned per step builds nothing.
3. The grid's single-box updates answer exactly what a grid built afresh on the same boxes
   answers.
"""

from __future__ import annotations

import itertools
import warnings

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys.broadphase import BROADPHASES, BruteForce, Grid
from ecsphys.systems.broadphase import FREE_ROW, REBUILD_MIN, StaticSlots

_worlds = itertools.count()


class Sim:
    """A Physics in an esper world of its own; ``do`` runs game code in that world."""

    def __init__(self, broadphase: str = "grid", scan: bool = False, rebuild: bool = False,
                 **options: object) -> None:
        self.world = f"incremental-{next(_worlds)}"
        previous = esper.current_world
        esper.switch_world(self.world)
        self.physics = ep.Physics(fixed_dt=1 / 60, broadphase=broadphase, **options)
        esper.switch_world(previous)
        self.rebuild = rebuild
        self.events: list[tuple] = []
        self.extra: list[tuple[list[int], list[int]]] = []
        self.widened = 0
        self.physics.on_touch(lambda c: self.events.append(("touch", c.a, c.b, c.tile)))
        self.physics.on_separate(lambda c: self.events.append(("separate", c.a, c.b, c.tile)))
        if scan:  # the response without the broadphase: widen looks at every row
            self.physics._response.widen_by_index = False

    def do(self, fn, *args):
        previous = esper.current_world
        esper.switch_world(self.world)
        try:
            return fn(*args)
        finally:
            esper.switch_world(previous)

    def step(self) -> None:
        def run() -> None:
            with warnings.catch_warnings():  # (the colliders `pile` makes without a shape)
                warnings.simplefilter("ignore", ep.MissingGeometryWarning)
                if self.rebuild:
                    self.physics.sync()
                    self.physics.table.static_all = True
                self.physics.step()
        self.do(run)
        response = self.physics._response
        self.extra.append((response.extra[0].tolist(), response.extra[1].tolist()))
        self.widened += response.widened

    def state(self) -> tuple[np.ndarray, np.ndarray, list]:
        t = self.physics.table
        order = np.argsort(t.entity[: t.n], kind="stable")
        return (t.entity[: t.n][order].copy(), t.pos[: t.n][order].copy(),
                self.physics.contact_set.keys.tolist())

    def close(self) -> None:
        self.do(self.physics.remove)
        esper.delete_world(self.world)


def assert_same(a: Sim, b: Sim) -> None:
    ea, pa, ka = a.state()
    eb, pb, kb = b.state()
    np.testing.assert_array_equal(ea, eb)
    assert pa.tobytes() == pb.tobytes(), np.abs(pa - pb).max()  # bit for bit
    assert ka == kb
    assert a.events == b.events


def pile(seed: int, n: int = 220, sensors: bool = True) -> None:
    """Bodies dropped at random into a walled box, most overlapping others (some nearly on
    top of each other), of mixed shapes, kinds and masses; sensors, and colliders without a
    shape (the index holds neither as a partner a pushed body may meet)."""
    rng = np.random.default_rng(seed)
    for x, y, w, h in ((0, -1, 44, 2), (0, 31, 44, 2), (-21, 15, 2, 30), (21, 15, 2, 30),
                       (6, 8, 5, 0.5)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(w, h)))
    for i in range(n):
        x, y = rng.uniform(-15, 15), rng.uniform(1, 14)
        if i % 11 == 0:  # nearly on top of the body before
            x, y = x * 0.01 + 3, 7 + rng.uniform(-0.05, 0.05)
        r = rng.uniform(0.3, 1.1)
        shape = (ep.Circle(r) if i % 3 else ep.Rect(2 * r, rng.uniform(0.4, 2.0)) if i % 2
                 else ep.OrientedRect(2 * r, r, rng.uniform(0, 3)))
        kind = ep.PASSIVE if i % 4 == 0 else ep.ACTIVE
        mass = np.inf if i == 5 else float(rng.uniform(0.5, 3))
        col = ep.Collider(kind if mass < np.inf else ep.ACTIVE, mass=mass,
                          sensor=sensors and i % 17 == 3, slide="tangent" if i % 5 else "project")
        comps = [ep.Position(x, y), ep.Velocity(*rng.uniform(-3, 3, 2)), col, ep.Geometry(shape)]
        if i % 6:
            comps.append(ep.AccelerationMap(gravity=(0, -9.8)))
        esper.create_entity(*comps)
    if sensors:
        for k in range(4):  # a Collider without a Geometry collides with nothing
            esper.create_entity(ep.Position(k, 5), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE))


def pile_quiet(seed: int, **kw: object) -> None:
    """`pile`, without the warnings about the colliders without a shape."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pile(seed, **kw)


# ------------------------------------------------------------------ 1. widen asks the index


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pushed_bodies_get_the_pairs_a_scan_of_every_row_gives(world, seed):
    indexed, scanned = Sim("grid"), Sim("grid", scan=True)
    for sim in (indexed, scanned):
        sim.do(pile_quiet, seed)
    for _ in range(12):
        indexed.step()
        scanned.step()
        assert indexed.extra[-1] == scanned.extra[-1]  # the same pairs, in the same order
        assert_same(indexed, scanned)
    assert indexed.widened > 100  # the pile was pushed beyond its boxes, again and again
    assert sum(len(a) for a, _ in indexed.extra) > 100
    indexed.close()
    scanned.close()


def crowd(seed: int, n: int = 900, size: float = 30.0, radius: float = 0.5) -> list[int]:
    """``n`` equal circles dropped at random into a walled ``size`` x ``size`` box, most of
    them overlapping others (900 in the 30 x 30 box: so many that the response widens them
    all at once); their entities."""
    rng = np.random.default_rng(seed)
    m = size / 2
    for x, y, w, h in ((m, -1, size + 4, 2), (m, size + 1, size + 4, 2), (-1, m, 2, size),
                       (size + 1, m, 2, size)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(w, h)))
    shape = ep.Circle(radius)
    return [esper.create_entity(ep.Position(*rng.uniform(radius, size - radius, 2)),
                                ep.Velocity(*rng.uniform(-3, 3, 2)), ep.Collider(ep.ACTIVE),
                                ep.Geometry(shape), ep.AccelerationMap(gravity=(0, -9.8)))
            for _ in range(n)]


def test_a_crowd_pushed_apart_at_once_gets_the_pairs_a_scan_of_every_row_gives(world):
    """Most of 900 bodies start inside others: the pushes apart widen them all at once (one
    sweep, not a look-up per row), then the slide asks the index; as with a scan."""
    indexed, scanned = Sim("grid"), Sim("grid", scan=True)
    for sim in (indexed, scanned):
        sim.do(crowd, 6)
    for step in range(8):
        indexed.step()
        scanned.step()
        if step == 0:  # most rows widened, more than one in 32: at once
            assert indexed.physics._response.widened > 600
        assert indexed.extra[-1] == scanned.extra[-1]
        assert_same(indexed, scanned)
    assert sum(len(a) for a, _ in indexed.extra) > 100
    indexed.close()
    scanned.close()


@pytest.mark.parametrize(("n", "size"), [(120, 12.0), (900, 30.0)])  # (in turn; at once)
def test_every_overlap_left_after_a_push_apart_is_a_contact(world, n, size):
    """Whatever the pushes apart leave overlapping (they do not part a crowd in one step),
    the step's contacts hold it: the pairs found for the rows pushed beyond their boxes
    are complete (checked against every pair of circles)."""
    sim = Sim("grid")
    ents = sim.do(crowd, 7, n, size)
    left = 0
    for _ in range(4):
        sim.step()
        t = sim.physics.table
        rows = np.array([t.row_of[e] for e in ents])
        pos = t.pos[rows]
        d = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1))
        i, j = np.nonzero(np.triu(d < 1.0 - 1e-6, 1))  # circles of radius 0.5 overlapping
        held = set(map(tuple, np.sort(np.column_stack(
            (sim.physics.contact_set.a, sim.physics.contact_set.b)), axis=1).tolist()))
        ei, ej = np.array(ents)[i], np.array(ents)[j]
        missing = [(a, b) for a, b in zip(np.minimum(ei, ej).tolist(),
                                          np.maximum(ei, ej).tolist(), strict=True)
                   if (a, b) not in held]
        assert missing == []
        left += len(i)
    assert left > 10  # (the check saw overlaps)
    sim.close()


@pytest.mark.parametrize("name", [n for n in BROADPHASES if n != "brute"])
def test_every_broadphase_steps_an_overlapping_pile_like_the_brute_force(world, name):
    sims = {n: Sim(n) for n in (name, "brute")}
    for sim in sims.values():
        sim.do(pile_quiet, 4)
    for _ in range(10):
        for sim in sims.values():
            sim.step()
        assert sims[name].extra[-1] == sims["brute"].extra[-1]
        assert_same(sims[name], sims["brute"])
    assert sims[name].widened > 100
    for sim in sims.values():
        sim.close()


def test_bodies_pushed_far_are_looked_at_on_their_own(world):
    """A platform of infinite mass at 10 units a step shoves a row of crates far beyond
    their swept boxes (further than twice a body's size: the far rows), through a crowd."""
    def make() -> None:
        esper.create_entity(ep.Position(0, -1), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(400, 2)))
        esper.create_entity(ep.Position(-12, 2), ep.Velocity(600, 0),
                            ep.Collider(ep.ACTIVE, mass=np.inf), ep.Geometry(ep.Rect(2, 4)))
        for i in range(12):
            esper.create_entity(ep.Position(-9.5 + 1.05 * i, 0.5), ep.Velocity(0, 0),
                                ep.Collider(ep.PASSIVE), ep.Geometry(ep.Rect(1, 1)),
                                ep.AccelerationMap(gravity=(0, -9.8)))
        rng = np.random.default_rng(5)
        for _ in range(150):
            esper.create_entity(ep.Position(rng.uniform(0, 60), rng.uniform(0.5, 6)),
                                ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                                ep.Geometry(ep.Circle(0.4)))
    indexed, scanned = Sim("grid"), Sim("grid", scan=True)
    for sim in (indexed, scanned):
        sim.do(make)
    fars = 0
    for _ in range(6):
        indexed.step()
        scanned.step()
        fars += indexed.physics._response.far
        assert indexed.extra[-1] == scanned.extra[-1]
        assert_same(indexed, scanned)
    assert fars > 0
    indexed.close()
    scanned.close()


# ------------------------------------------------------------------ 2. single static changes


def churn(sims: list[Sim], seed: int, steps: int) -> None:
    """Every step: statics created, deleted, moved, re-shaped, turned dynamic and back;
    dynamic bodies created and deleted (rows move under the statics); the same game code in
    every world, each stepped after it."""
    rng = np.random.default_rng(seed)
    statics: list[list[int]] = [[] for _ in sims]
    movers: list[list[int]] = [[] for _ in sims]

    def setup(k: int) -> None:
        esper.create_entity(ep.Position(0, -1), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(80, 2)))
        for i in range(30):
            statics[k].append(esper.create_entity(
                ep.Position(-35 + 2.4 * i, 3 + (i % 3)), ep.Collider(ep.STATIC),
                ep.Geometry(ep.Rect(1.5, 0.5) if i % 2 else ep.Circle(0.6))))
        for i in range(90):
            movers[k].append(esper.create_entity(
                ep.Position(-35 + 0.8 * i, 8 + (i % 4)), ep.Velocity(0, 0),
                ep.Collider(ep.ACTIVE if i % 3 else ep.PASSIVE), ep.Geometry(ep.Circle(0.35)),
                ep.AccelerationMap(gravity=(0, -9.8))))

    for k, sim in enumerate(sims):
        sim.do(setup, k)
    for step in range(steps):
        ops = []
        for _ in range(14 if step % 10 == 5 else rng.integers(1, 5)):  # (14: more at once)
            what = rng.integers(0, 7)
            ops.append((what, rng.integers(0, 1 << 30), rng.uniform(-35, 35),
                        rng.uniform(0, 6)))

        def game(k: int, ops: list = ops) -> None:
            st, mv = statics[k], movers[k]
            for what, pick, x, y in ops:
                if what == 0:    # a static appears (maybe on bodies)
                    st.append(esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC),
                                                  ep.Geometry(ep.Rect(1.0, 0.4))))
                elif what == 1 and st:  # one goes
                    esper.delete_entity(st.pop(pick % len(st)))
                elif what == 2 and st:  # one moves (a door)
                    esper.component_for_entity(st[pick % len(st)], ep.Position).xy = (x, y)
                elif what == 3 and st:  # one changes shape
                    esper.component_for_entity(st[pick % len(st)], ep.Geometry).shape = \
                        ep.Rect(0.5 + (pick % 5) * 0.3, 0.5)
                elif what == 4 and mv:  # a dynamic body goes: rows move under the statics
                    esper.delete_entity(mv.pop(pick % len(mv)))
                elif what == 5:  # one comes
                    mv.append(esper.create_entity(
                        ep.Position(x, y + 6), ep.Velocity(0, -1), ep.Collider(ep.ACTIVE),
                        ep.Geometry(ep.Circle(0.3)), ep.AccelerationMap(gravity=(0, -9.8))))
                elif what == 6 and st:  # a static turns dynamic, or back
                    col = esper.component_for_entity(st[pick % len(st)], ep.Collider)
                    col.kind = ep.PASSIVE if col.kind == ep.STATIC else ep.STATIC

        for k, sim in enumerate(sims):
            sim.do(game, k)
            sim.step()


@pytest.mark.parametrize("name", list(BROADPHASES))
def test_single_static_changes_step_like_an_index_built_afresh(world, name):
    incremental, afresh = Sim(name), Sim(name, rebuild=True)
    churn([incremental, afresh], seed=7, steps=70)
    assert_same(incremental, afresh)
    # the world's queries read the index with its free static ids alike
    for x in range(-36, 37, 6):
        box = (ep.Rect(6, 12), (x, 3))
        assert incremental.physics.query_region(*box) == afresh.physics.query_region(*box)
        ray = ((x, 12), (x + 3, -2))
        assert ([h.entity for h in incremental.physics.raycast_all(*ray)]
                == [h.entity for h in afresh.physics.raycast_all(*ray)])
    assert len(incremental.events) > 50
    bp, ref = incremental.physics._broadphase, afresh.physics._broadphase
    assert ref.static_rebuilds >= 70
    if name in ("grid", "brute"):  # updated box by box
        assert incremental.physics.stats["static_rebuilds"] <= 3
        assert bp.static_updates > 70
    live = np.flatnonzero(bp.static_rows != FREE_ROW)
    t = incremental.physics.table
    rows = bp.static_rows[live]
    assert sorted(rows.tolist()) == np.flatnonzero(
        t.collides[: t.n] & (t.kind[: t.n] == ep.STATIC)).tolist()
    np.testing.assert_array_equal(bp.static_lo[live], t.pos[rows] + t.lo[rows])
    incremental.close()
    afresh.close()


def test_a_moving_door_and_a_static_spawned_each_step_build_nothing(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    esper.create_entity(ep.Position(0, -1), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(60, 2)))
    door = esper.create_entity(ep.Position(0, 3), ep.Collider(ep.STATIC),
                               ep.Geometry(ep.Rect(1, 6)))
    balls = [esper.create_entity(ep.Position(-10 + i, 1), ep.Velocity(3, 0),
                                 ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.4)),
                                 ep.AccelerationMap(gravity=(0, -9.8))) for i in range(8)]
    physics.step()
    assert physics.stats["static_rebuilds"] == 1
    bp = physics._broadphase
    pos = esper.component_for_entity(door, ep.Position)
    spawned = []
    for k in range(120):
        pos.y = 3 + 4 * np.sin(k * 0.1)  # the door opens and closes
        spawned.append(esper.create_entity(ep.Position(-25 + 0.4 * k, 8), ep.Collider(ep.STATIC),
                                           ep.Geometry(ep.Rect(0.3, 0.3))))
        if k % 3 == 0 and len(spawned) > 5:
            esper.delete_entity(spawned.pop(0))  # and some go (their ids are used again)
        physics.step()
    assert physics.stats["static_rebuilds"] == 1
    assert bp.static_updates >= 240
    # removed statics' ids used again (sleeping balls are static boxes too)
    assert bp.static_rows.shape[0] <= len(spawned) + 3 + physics.stats["sleeping"]
    # the door stops the balls that reach it while it is down
    assert max(esper.component_for_entity(b, ep.Position).x for b in balls) < 60


def test_dynamic_bodies_coming_and_going_leave_the_static_index_alone(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    walls = [esper.create_entity(ep.Position(3 * i, 0), ep.Collider(ep.STATIC),
                                 ep.Geometry(ep.Rect(2, 2))) for i in range(10)]
    balls = [esper.create_entity(ep.Position(3 * i, 2.5), ep.Velocity(0, -2),
                                 ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
             for i in range(10)]
    physics.step()
    bp = physics._broadphase
    before = bp.static_updates
    ids = bp.static_rows.copy()
    for b in balls[:4]:  # swap-remove moves the last rows (walls among them) to other rows
        esper.delete_entity(b)
        physics.step()
    assert physics.stats["static_rebuilds"] == 1
    assert bp.static_updates == before  # a static on another row: its box is the same
    t = physics.table
    for j, w in enumerate(walls):  # each wall kept its static id; the id follows its row
        assert bp.static_rows[j] == t.row_of[w]
    assert ids.shape == bp.static_rows.shape
    for _ in range(40):
        physics.step()
    assert physics.touching(balls[6]) == [walls[6]]  # and the balls land on the walls


def test_many_changes_at_once_build_the_index_afresh(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    walls = [esper.create_entity(ep.Position(i, 0), ep.Collider(ep.STATIC),
                                 ep.Geometry(ep.Rect(0.5, 0.5))) for i in range(100)]
    physics.step()
    for w in walls[: REBUILD_MIN + 20]:  # more than a quarter and more than REBUILD_MIN
        esper.component_for_entity(w, ep.Position).y = 3.0
    physics.step()
    assert physics.stats["static_rebuilds"] == 2
    for w in walls[:5]:
        esper.component_for_entity(w, ep.Position).y = 4.0
    physics.step()
    assert physics.stats["static_rebuilds"] == 2
    snap = physics.snapshot()
    physics.restore(snap)  # every static indexed again
    physics.step()
    assert physics.stats["static_rebuilds"] == 3


# ------------------------------------------------------------------ 3. the grid, box by box


def test_grid_box_by_box_answers_as_a_grid_built_afresh():
    rng = np.random.default_rng(11)
    c = rng.uniform(0, 80, (600, 2))
    lo, hi = c - rng.uniform(0.2, 1.5, (600, 1)), c + rng.uniform(0.2, 1.5, (600, 1))
    lo[::97] -= 25  # a few giants
    sc = rng.uniform(-10, 90, (150, 2))
    slo, shi = sc - rng.uniform(0.1, 2, (150, 2)), sc + rng.uniform(0.1, 2, (150, 2))
    slo[::31] -= 40  # statics in coarser levels too
    grid = Grid()
    grid.set_static(slo, shi)
    alive = np.ones(150, dtype=bool)
    for _ in range(40):
        ids = np.unique(rng.integers(0, 170, rng.integers(0, 8)))
        if ids.size and ids.max() >= len(slo):
            extra = ids.max() + 1 - len(slo)
            slo = np.vstack([slo, np.zeros((extra, 2))])
            shi = np.vstack([shi, np.zeros((extra, 2))])
            alive = np.concatenate([alive, np.zeros(extra, dtype=bool)])
        at = rng.uniform(-30, 110, (ids.size, 2))
        half = rng.uniform(0.05, 3, (ids.size, 2)) * np.where(rng.random((ids.size, 1)) < 0.1,
                                                              20, 1)
        assert grid.update_static(ids, at - half, at + half)
        slo[ids], shi[ids], alive[ids] = at - half, at + half, True
        gone = rng.integers(0, len(slo), rng.integers(0, 5))
        grid.remove_static(gone)
        alive[gone] = False
        assert grid.static_count == alive.sum()
        afresh = Grid()  # the same ids; removed ones far away, where nothing is
        afresh.set_static(np.where(alive[:, None], slo, 1e6), np.where(alive[:, None], shi, 1e6))
        oracle = BruteForce()
        oracle.set_static(np.where(alive[:, None], slo, np.inf),
                          np.where(alive[:, None], shi, -np.inf))
        got, want, fresh = grid.query(lo, hi), oracle.query(lo, hi), afresh.query(lo, hi)
        for g, w, f in zip(got, want, fresh, strict=True):
            np.testing.assert_array_equal(g, w)
            np.testing.assert_array_equal(g, f)
        q0 = rng.uniform(-30, 100, 2)
        q1 = q0 + rng.uniform(0, 30, 2)
        found, static = grid.find_box(q0, q1)
        inside = alive & (slo[:, 0] <= q1[0]) & (q0[0] <= shi[:, 0]) \
            & (slo[:, 1] <= q1[1]) & (q0[1] <= shi[:, 1])
        assert sorted(found[static].tolist()) == np.flatnonzero(inside).tolist()
    assert grid.rebuilds == 1


def test_grid_refuses_a_box_its_cells_cannot_hold():
    grid = Grid()
    assert not grid.update_static([0], [[0.0, 0.0]], [[1.0, 1.0]])  # no static cells yet
    grid.set_static([[0.0, 0.0]], [[1e-9, 1e-9]])  # a tiny static: a tiny finest cell
    assert not grid.update_static([1], [[1e7, 1e7]], [[1e7 + 1, 1e7 + 1]])  # beyond its range
    assert not grid.update_static([1], [[0.0, 0.0]], [[1e4, 1e4]])  # wider than its top level
    assert grid.update_static([1], [[1e-9, 0.0]], [[2e-9, 1e-9]])
    assert grid.static_count == 2 and grid.rebuilds == 1


def test_grid_cells_follow_boxes_far_away_and_back_many_times():
    """A box moved thousands of times, far beyond the statics' cells (an array there becomes a
    hash table) and back: every answer as the brute force's, the pool packed as it goes."""
    rng = np.random.default_rng(12)
    sc = rng.uniform(0, 40, (200, 2))
    slo, shi = sc - 0.5, sc + 0.5
    grid, oracle = Grid(), BruteForce()
    grid.set_static(slo, shi)
    oracle.set_static(slo, shi)
    c = rng.uniform(-5, 45, (300, 2))
    lo, hi = c - 0.6, c + 0.6
    lo[-1], hi[-1] = (4990.0, 4990.0), (5010.0, 5010.0)  # a dynamic box out there too
    for k in range(3000):
        ids = rng.integers(0, 203, 2)
        at = rng.uniform(0, 40, (2, 2)) if k % 500 != 250 else np.full((2, 2), 5000.0)
        grid.update_static(ids, at - 0.7, at + 0.7)
        oracle.update_static(ids, at - 0.7, at + 0.7)
        if k % 7 == 0:
            gone = rng.integers(0, 203, 1)
            grid.remove_static(gone)
            oracle.remove_static(gone)
        if k % 150 == 0 or k % 500 == 250:
            for g, w in zip(grid.query(lo, hi), oracle.query(lo, hi), strict=True):
                np.testing.assert_array_equal(g, w)
    assert grid.static_count == oracle.static_count
    assert grid.rebuilds == 1


def test_static_slots_answer_like_a_dict_of_every_static():
    """The entity -> static id map (a rebuild's ids searched, the changes since in a dict)
    answers as a plain dict kept alongside, through puts and drops in any order, ids out of
    row order, and entities never indexed."""
    rng = np.random.default_rng(3)
    ents = rng.permutation(np.arange(10, 4010, 3, dtype=np.int64))[:900]
    slots = StaticSlots(ents)
    ref = {int(e): j for j, e in enumerate(ents.tolist())}
    free = []
    for _ in range(3000):
        e = int(rng.integers(0, 4100))
        if e in ref and rng.random() < 0.5:
            free.append(ref.pop(e))
            del slots[e]
        elif e not in ref:
            ref[e] = free.pop() if free else len(ref) + len(free) + 1000
            slots[e] = ref[e]
        if rng.random() < 0.05:
            ask = rng.integers(0, 4100, size=40).tolist()
            assert slots.find(ask) == [ref.get(x) for x in ask]
            assert len(slots) == len(ref)
        if rng.random() < 0.05:  # (a few: searched one by one)
            ask = rng.integers(0, 4100, size=int(rng.integers(1, 5))).tolist()
            ask.append(int(ents[int(rng.integers(0, len(ents)))]))
            assert slots.find(ask) == [ref.get(x) for x in ask]
    ask = list(range(4100))
    assert slots.find(ask) == [ref.get(x) for x in ask]
    assert StaticSlots(np.zeros(0, dtype=np.int64)).find([0, 5]) == [None, None]
    edge = StaticSlots(np.array([7, 3], dtype=np.int64))  # (beyond the last, before the first)
    assert edge.find([9]) == [None] and edge.find([1, 3]) == [None, 1] and edge.find([7]) == [0]
