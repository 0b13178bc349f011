"""Bodies that overlap where walls stop the push apart both ways rise out of each other.

Shows: two crates (or balls) overlapping side by side in a pit one tile wide, each against a
wall (as a digger's build pushes an item into a neighbour's pit), no longer stay overlapping
for good: the one on top along "up" (of two level ones, the pair's second) rises out by
the least lift that clears the other and falls back onto it: a crate ends stacked on the
other, a ball wedged between the other and the wall, both still in the pit, whatever their
kinds. Under a ceiling the rise stops at the ceiling (nothing passes through it). A random
digger (items in pits, tiles built on them) leaves no two items overlapping.
"""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

import ecsphys as ep
from ecsphys import geometry

DT = 1 / 60
PIT = [".....", "#.#.#", "#####"]  # pits 1 wide at x 1..2 and 3..4, their floor at y = 1


def _world(name, rows=PIT):
    esper.switch_world(name)
    esper.clear_database()
    physics = ep.Physics(fixed_dt=DT)
    tm = ep.TileMap(rows, 1.0)
    esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC), ep.Geometry(tm))
    return physics, tm


def _item(x, y, shape, kind=ep.PASSIVE, g=9.8):
    comps = [ep.Position(x, y), ep.Velocity(0, 0), ep.Collider(kind), ep.Geometry(shape)]
    if g:
        comps.append(ep.AccelerationMap(gravity=(0.0, -g)))
    return esper.create_entity(*comps)


def _at(e):
    return esper.component_for_entity(e, ep.Position).xy


def _depth(a, b):
    sa = esper.component_for_entity(a, ep.Geometry).shape
    sb = esper.component_for_entity(b, ep.Geometry).shape
    c = geometry.contact(sa, _at(a), sb, _at(b))
    return 0.0 if c is None else c.depth


@pytest.mark.parametrize("kind", [ep.PASSIVE, ep.ACTIVE])
@pytest.mark.parametrize("shape", ["rect", "circle"])
@pytest.mark.parametrize("higher", [0.0, 0.1])  # the right one level, or 0.1 higher
def test_two_items_overlapping_in_a_one_tile_pit_end_stacked(kind, shape, higher):
    _world(f"pit-stack-{kind}-{shape}-{higher}")
    make = (lambda: ep.Rect(0.6, 0.6)) if shape == "rect" else (lambda: ep.Circle(0.3))
    left = _item(1.3, 1.3, make(), kind)  # against the pit's left wall, on its floor
    right = _item(1.7, 1.3 + higher, make(), kind)  # against the right wall: 0.2 into left
    assert _depth(left, right) > 0.15
    for _ in range(90):
        esper.process(DT)
    assert _depth(left, right) <= 1e-6
    (lx, ly), (rx, ry) = _at(left), _at(right)
    assert (lx, ly) == pytest.approx((1.3, 1.3), abs=1e-3)  # the lower one stayed
    assert 1.3 - 1e-6 <= rx <= 1.7 + 1e-6  # the upper one is in the pit, over it
    if shape == "rect":  # stacked: on the lower crate's top (y 1.6)
        assert ry == pytest.approx(1.9, abs=2e-3)
    else:  # wedged between the lower ball and the right wall
        assert rx == pytest.approx(1.7, abs=1e-3)
        assert ry == pytest.approx(1.3 + math.sqrt(0.6**2 - 0.4**2), abs=2e-3)


def test_under_a_ceiling_the_rise_stops_at_the_ceiling():
    # a tunnel 1 tall: no room to stack; the upper crate may not pass the ceiling at y = 2
    physics, _ = _world("pit-ceiling", ["#####", "#...#", "#####"])
    left = _item(1.3, 1.3, ep.Rect(0.6, 0.6))
    right = _item(1.7, 1.3, ep.Rect(0.6, 0.6))
    physics.sync()
    for _ in range(60):
        esper.process(DT)
        for e in (left, right):
            x, y = _at(e)
            assert y + 0.3 <= 2.0 + 1e-6, (e, x, y)
            assert y - 0.3 >= 1.0 - 1e-6, (e, x, y)


def test_a_random_digger_leaves_no_two_items_overlapping():
    # pits two tiles wide with an item in each tile; a tile built on an item pushes it out the
    # short way, often sideways into the other tile of its pit, onto the item there
    rng = np.random.default_rng(11)
    cols = 25
    rows = ["." * cols, "".join("#" if c % 3 == 0 else "." for c in range(cols)), "#" * cols]
    physics, tm = _world("pit-digger", rows)
    items = []
    for c in range(cols):
        if c % 3:
            shape = ep.Rect(0.6, 0.6) if rng.random() < 0.5 else ep.Circle(0.3)
            items.append(_item(c + rng.uniform(0.3, 0.7), 1.3, shape))
    for _ in range(60):
        esper.process(DT)
    for _ in range(10):  # build a tile on a random item in a pit
        in_pits = [e for e in items if 1.0 < _at(e)[1] < 2.0 and tm[1, int(_at(e)[0])] == 0]
        if not in_pits:
            break
        e = in_pits[int(rng.integers(len(in_pits)))]
        tm[1, int(_at(e)[0])] = 1
        for _ in range(90):
            esper.process(DT)
        worst = max(_depth(a, b) for i, a in enumerate(items) for b in items[i + 1:])
        assert worst <= 1e-6, worst
