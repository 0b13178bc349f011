"""BroadphaseSystem against a plain reference: swept boxes, kinds, layers, entity order."""

from __future__ import annotations

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys.components import STATIC


def reference(physics: ep.Physics) -> list[tuple[int, int]]:
    """Every pair of collider rows whose (swept) boxes overlap and whose layers and masks
    agree, no static-static; as (row_a, row_b) with entity_a < entity_b, sorted by entities."""
    t, bp = physics.table, physics._broadphase
    n = t.n
    rows = np.flatnonzero(t.collides[:n])
    static = t.kind[:n] == STATIC
    reach = np.where(static, 0.0, np.hypot(t.move[:n, 0], t.move[:n, 1]) + bp.contact_offset)
    lo = t.pos[:n] + t.lo[:n] - reach[:, None]
    hi = t.pos[:n] + t.hi[:n] + reach[:, None]
    ent = t.entity
    out = []
    for ia, a in enumerate(rows):
        for b in rows[ia + 1:]:
            if static[a] and static[b]:
                continue
            if not ((lo[a] <= hi[b]).all() and (lo[b] <= hi[a]).all()):
                continue
            if not (t.layer[a] & t.mask[b] and t.layer[b] & t.mask[a]):
                continue
            out.append((a, b) if ent[a] < ent[b] else (b, a))
    return sorted(out, key=lambda p: (ent[p[0]], ent[p[1]]))


def check(physics: ep.Physics) -> int:
    t, bp = physics.table, physics._broadphase
    rng = np.random.default_rng(t.n)
    t.move[: t.n] = rng.normal(0.0, 0.3, (t.n, 2))  # swept boxes of all lengths
    bp.process()
    got = list(zip(bp.ra.tolist(), bp.rb.tolist(), strict=True))
    assert got == reference(physics)
    assert bp.ra.dtype == np.int64
    return len(got)


def scatter(rng: np.random.Generator, count: int, kind, **collider) -> list[int]:
    ents = []
    for _ in range(count):
        shape = ep.Circle(rng.uniform(0.3, 1.2)) if rng.random() < 0.6 else ep.Rect(
            *rng.uniform(0.5, 3.0, 2))
        ents.append(esper.create_entity(
            ep.Position(*rng.uniform(-15, 15, 2)), ep.Collider(kind, **collider),
            ep.Geometry(shape)))
    return ents


@pytest.mark.parametrize("name", ["grid", "sweep", "brute"])
def test_pairs_match_the_reference_through_layout_changes(world, name):
    rng = np.random.default_rng(11)
    physics = ep.Physics(fixed_dt=1 / 60, broadphase=name)
    walls = scatter(rng, 6, ep.STATIC)
    movers = scatter(rng, 120, ep.ACTIVE) + scatter(rng, 40, ep.PASSIVE)
    esper.create_entity(ep.Position(0, 0), ep.Velocity(1, 0))  # no collider: never pairs
    physics.step()
    assert check(physics) > 50
    # deletions swap-remove rows: rows no longer follow entity order
    for e in movers[3::9] + walls[:2]:
        esper.delete_entity(e)
    physics.step()
    assert check(physics) > 50
    # layers and masks that rule out some pairs; a kind change
    for i, e in enumerate(movers[5::4]):
        if esper.entity_exists(e):
            col = esper.component_for_entity(e, ep.Collider)
            col.layer, col.mask = (2, 2) if i % 2 else (4, 1 | 4)
    esper.component_for_entity(movers[1], ep.Collider).kind = ep.STATIC
    physics.step()
    check(physics)
    # new bodies after the deletions
    scatter(rng, 30, ep.ACTIVE)
    physics.step()
    check(physics)


def test_rows_out_of_entity_order_still_sorted_by_entity(world):
    rng = np.random.default_rng(12)
    physics = ep.Physics(fixed_dt=1 / 60)
    ents = scatter(rng, 80, ep.ACTIVE)
    scatter(rng, 3, ep.STATIC)
    physics.step()
    for e in ents[:40:3]:  # the last rows move into the holes
        esper.delete_entity(e)
    physics.step()
    t = physics.table
    assert not (np.diff(t.entity[: t.n]) > 0).all()
    check(physics)
    bp = physics._broadphase
    keys = t.entity[bp.ra] * 2**32 + t.entity[bp.rb]
    assert (np.diff(keys) > 0).all()
