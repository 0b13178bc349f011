"""The broadphase's dynamic rows follow a few rows falling asleep or waking by a merge
(`ecsphys.broadphase.stage.follow_sleep`): the same rows, in the same entity order, as the
layout learnt afresh (`dynamic_layout`), on random tables and random sleep changes."""

from __future__ import annotations

import random

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys.broadphase.stage import dynamic_layout, follow_sleep


def _table(seed: int) -> ep.Physics:
    rng = random.Random(seed)
    physics = ep.Physics(fixed_dt=1 / 60)
    for _ in range(rng.randrange(5, 80)):
        kind = rng.choice([ep.STATIC, ep.PASSIVE, ep.ACTIVE, ep.ACTIVE])
        comps = [ep.Position(rng.uniform(-50, 50), rng.uniform(-50, 50)), ep.Velocity(0, 0)]
        if rng.random() < 0.9:  # some bodies have no collider: never dynamic rows
            comps += [ep.Collider(kind), ep.Geometry(ep.Circle(0.5))]
        e = esper.create_entity(*comps)
        if rng.random() < 0.2:  # deletions move the last rows: rows out of entity order
            esper.delete_entity(e, immediate=True)
    esper.process(1 / 60)
    return physics


@pytest.mark.parametrize("seed", range(12))
def test_follow_sleep_gives_the_layout_learnt_afresh(world, seed):
    physics = _table(seed)
    t = physics.table
    n = t.n
    rng = random.Random(100 + seed)
    dyn = dynamic_layout(t)[0]
    for _ in range(30):
        moved = np.array(sorted(rng.sample(range(n), rng.randrange(0, min(n, 6) + 1))),
                         dtype=np.int64)
        t.asleep[moved] ^= 1  # (the test flips the flags; the table's rows stay)
        dyn = follow_sleep(t, dyn, moved)
        want = dynamic_layout(t)[0]
        assert dyn.tolist() == want.tolist()
    # a row named twice over a log of changes (asleep, then awake again) is listed once
    row = int(want[0]) if len(want) else None
    if row is not None:
        again = follow_sleep(t, dyn, np.array([row], dtype=np.int64))
        assert again.tolist() == want.tolist()


def test_follow_sleep_refuses_rows_outside_the_table(world):
    physics = _table(1)
    t = physics.table
    dyn = dynamic_layout(t)[0]
    with pytest.raises(ValueError, match=r"moved\[0\] = -1"):
        follow_sleep(t, dyn, np.array([-1], dtype=np.int64))
    with pytest.raises(ValueError, match=r"dyn\[0\] = "):
        follow_sleep(t, np.array([t.n + 5], dtype=np.int64), np.zeros(0, dtype=np.int64))
