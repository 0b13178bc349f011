"""The narrowphase's box prefilter changes nothing: in scenes with every shape kind, the
contacts of each step are the same, bit for bit, as those of all candidate pairs tested."""

from __future__ import annotations

import sys
from pathlib import Path

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys.state.body_table import BodyTable
from ecsphys.state.contact_set import pair_keys
from ecsphys.systems.narrowphase import contacts, touching_pairs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo root: benchmarks/

from benchmarks import scenes as S  # noqa: E402

DT = 1 / 60


def unfiltered(physics: ep.Physics) -> tuple[np.ndarray, ...]:
    """This step's contacts recomputed from every candidate pair the narrowphase was given,
    no prefilter.

    Adapted for the events' hysteresis and impacts (DESIGN "Events"): a pair that touched in
    the previous step touches within the separation offset, a new one within the contact
    offset, and a pair that met during the step (finite time of impact) touches even if it
    ends the step apart, with the impact's normal and point and depth 0.0."""
    t = physics.table
    nph = physics._narrowphase
    ra, rb, prev_keys, toi, inormal, ipoint = nph.last_input
    keys = pair_keys(t.entity[ra], t.entity[rb])
    kept = np.zeros(len(ra), dtype=np.bool_) if prev_keys is None else np.isin(keys, prev_keys)
    hn, nn, dn, pn = contacts(t, ra, rb, t.pos, nph.contact_offset)
    hw, nw, dw, pw = contacts(t, ra, rb, t.pos, nph.separation_offset)
    touch = np.where(kept, hw, hn)
    normal = np.where(kept[:, None], nw, nn)
    depth = np.where(kept, dw, dn)
    point = np.where(kept[:, None], pw, pn)
    met = np.isfinite(toi)
    normal = np.where(touch[:, None], normal, inormal)
    depth = np.where(touch, depth, 0.0)
    point = np.where(touch[:, None], point, ipoint)
    hit = touch | met
    return t.entity[ra[hit]], t.entity[rb[hit]], normal[hit], depth[hit], point[hit]


def check_step(physics: ep.Physics) -> int:
    r = physics._narrowphase.result
    a, b, normal, depth, point = unfiltered(physics)
    for got, want in ((r.a, a), (r.b, b), (r.normal, normal), (r.depth, depth), (r.point, point)):
        assert np.array_equal(got, want)
    return physics._narrowphase.last_input[0].size - physics._narrowphase.tests


def test_mixed_scene_contacts_are_unchanged(world) -> None:
    physics = ep.Physics(fixed_dt=DT)
    for x, y, w, h in ((0, -0.5, 22, 1), (-10.5, 8, 1, 16), (10.5, 8, 1, 16)):
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(w, h)))
    esper.create_entity(ep.Position(0, 4), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.Segment((-3, 0), (3, -1))))
    esper.create_entity(ep.Position(-6, 2), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.Polygon([(-2, -1), (2, -1), (0, 1)])))
    shapes = [ep.Circle(0.4), ep.Rect(0.8, 0.6), ep.OrientedRect(0.8, 0.5, 30),
              ep.Polygon([(-0.4, -0.3), (0.4, -0.3), (0, 0.4)]), ep.Circle(0.25),
              ep.Segment((-0.4, 0), (0.4, 0.1)),
              ep.Compound([ep.Rect(0.6, 0.3), ep.Circle(0.2, offset=(0, 0.3))])]
    rng = np.random.default_rng(5)
    skipped = 0
    for step in range(150):
        if step % 12 == 0 and step < 100:
            for x in np.linspace(-8, 8, 6) + rng.uniform(-0.2, 0.2, 6):
                esper.create_entity(
                    ep.Position(float(x), 14.0), ep.Velocity(0, -6),
                    ep.AccelerationMap(gravity=(0, -20)),
                    ep.Collider(ep.ACTIVE if rng.random() < 0.7 else ep.PASSIVE,
                                sensor=bool(rng.random() < 0.1)),
                    ep.Geometry(shapes[int(rng.integers(len(shapes)))]))
        esper.process(DT)
        skipped += check_step(physics)
    assert len(physics.contacts()) > 30
    assert skipped > 0  # the prefilter did drop pairs


@pytest.mark.parametrize("name", ["rain", "crowd", "bullets", "events"])
def test_bench_scene_contacts_are_unchanged(name) -> None:
    scene = S.build(name, "ecsphys", 300)
    try:
        skipped = 0
        for _ in range(60):
            S.run(scene, 1)
            skipped += check_step(scene.physics)
        assert skipped > 0
    finally:
        scene.close()


def test_prefilter_keeps_pairs_at_the_contact_offset() -> None:
    """Boxes at most the contact offset apart get an exact test; further ones do not."""
    t = BodyTable()
    for e, (shape, x) in enumerate([(ep.Rect(2, 2), 0.0), (ep.Rect(2, 2), 2.01),
                                    (ep.Rect(2, 2), 2.0100001), (ep.Circle(1), -2.0)], 1):
        t.add(e, (ep.Position(x, 0), None, None, ep.Collider(ep.STATIC), ep.Geometry(shape)))
    ra, rb = np.array([0, 0, 0]), np.array([1, 2, 3])
    index, _, depth, _, tested = touching_pairs(t, ra, rb, t.pos, 0.01)
    assert tested == 2 and index.tolist() == [0, 2]
    assert depth[0] == pytest.approx(-0.01, abs=1e-12) and depth[1] == pytest.approx(0.0)
    index, _, _, _, tested = touching_pairs(t, ra, rb, t.pos, 0.0)
    assert tested == 1 and index.tolist() == [2]
