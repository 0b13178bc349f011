"""The narrowphase's vectorised rect-rect time of impact agrees with the scalar
``geometry.time_of_impact`` (one convention, which ``tests/test_geometry_toi.py`` pins):
touching at the start (within ``TOUCH_TOLERANCE``) gives 0 if the relative move points into the
contact normal, else no impact; otherwise the first time within ``REACH``, with the normal of
the contact then.

Random pairs (fixed seed, body positions, offsets and moves in multiples of 1/64, so touching is
exact), with edge cases: touching at the start (pressing, sliding along, lifting off), a hair
apart (within and beyond the tolerance), overlapping and approaching or separating, one or both
bodies still, axis-parallel moves, corner-on paths. Agreement: the same t and normal, bit for
bit, except where the start contact's normal is a convention of equal centre coordinates on
its axis (``contact`` orders such pairs by position and hash and may flip the sign).
"""

from __future__ import annotations

import numpy as np

import ecsphys as ep
from ecsphys.geometry import TOUCH_TOLERANCE, contact, time_of_impact
from ecsphys.state.body_table import BodyTable
from ecsphys.systems.narrowphase import times_of_impact

N = 3000


def dyadic(rng: np.random.Generator, lo: float, hi: float, shape) -> np.ndarray:
    return np.round(rng.uniform(lo, hi, shape) * 64) / 64


def cases(rng: np.random.Generator):
    pa, pb = dyadic(rng, -3, 3, (N, 2)), dyadic(rng, -3, 3, (N, 2))
    ha, hb = dyadic(rng, 0.1, 1.5, (N, 2)), dyadic(rng, 0.1, 1.5, (N, 2))
    oa = dyadic(rng, -0.5, 0.5, (N, 2)) * (rng.random((N, 1)) < 0.3)
    ob = dyadic(rng, -0.5, 0.5, (N, 2)) * (rng.random((N, 1)) < 0.3)
    ma, mb = dyadic(rng, -6, 6, (N, 2)), dyadic(rng, -6, 6, (N, 2))
    m = N // 12
    ma[:m] = 0.0  # a still
    mb[: 2 * m] = 0.0  # b still
    ma[m : 2 * m, 1] = 0.0  # axis-parallel moves
    # a on top of b, exactly touching (centres set through the offsets), moving any way:
    # pressing, sliding along, lifting off
    sl = slice(2 * m, 4 * m)
    pa[sl, 1] = (pb + ob)[sl, 1] + (hb + ha)[sl, 1] - oa[sl, 1]
    ma[2 * m : 3 * m, 1] = 0.0  # sliding along the top
    # a hair apart: within the tolerance, and beyond it
    sl = slice(4 * m, 5 * m)
    pa[sl, 0] = (pb + ob)[sl, 0] - (hb + ha)[sl, 0] - oa[sl, 0] - 0.5 * TOUCH_TOLERANCE
    sl = slice(5 * m, 6 * m)
    pa[sl, 0] = (pb + ob)[sl, 0] - (hb + ha)[sl, 0] - oa[sl, 0] - 4 * TOUCH_TOLERANCE
    # overlapping (a's centre inside b), approaching or separating
    sl = slice(6 * m, 8 * m)
    pa[sl] = (pb + ob)[sl] + dyadic(rng, -0.9, 0.9, (2 * m, 2)) * hb[sl] - oa[sl]
    # corner-on paths: a aimed at b's corner
    sl = slice(8 * m, 9 * m)
    corner = (pb + ob + hb + ha)[sl]
    pa[sl] = corner - 2.0 - oa[sl]
    ma[sl] = 4.0
    mb[sl] = 0.0
    return pa, oa, ha, ma, pb, ob, hb, mb


def test_kernel_rect_rect_toi_agrees_with_time_of_impact() -> None:
    rng = np.random.default_rng(41)
    pa, oa, ha, ma, pb, ob, hb, mb = cases(rng)
    t = BodyTable()
    shapes = []
    for i in range(N):
        a = ep.Rect(2 * ha[i, 0], 2 * ha[i, 1], offset=tuple(oa[i]))
        b = ep.Rect(2 * hb[i, 0], 2 * hb[i, 1], offset=tuple(ob[i]))
        shapes.append((a, b))
        for e, s, p in ((2 * i + 1, a, pa[i]), (2 * i + 2, b, pb[i])):
            t.add(e, (ep.Position(*p), None, None, ep.Collider(ep.ACTIVE), ep.Geometry(s)))
    ra, rb = np.arange(0, 2 * N, 2), np.arange(1, 2 * N, 2)
    pos = np.empty((2 * N, 2))
    move = np.empty((2 * N, 2))
    pos[ra], pos[rb], move[ra], move[rb] = pa, pb, ma, mb
    kt, kn = times_of_impact(t, ra, rb, pos, move)

    st, sn = np.full(N, np.inf), np.zeros((N, 2))
    start = np.zeros(N, dtype=np.bool_)
    tie = np.zeros(N, dtype=np.bool_)
    for i, (a, b) in enumerate(shapes):
        args = (tuple(pa[i]), tuple(pb[i]))
        c = contact(a, args[0], b, args[1])
        if c is not None:
            start[i] = True
            axis = 0 if c.normal[0] != 0.0 else 1
            tie[i] = (pa + oa)[i, axis] == (pb + ob)[i, axis]
        hit = time_of_impact(a, args[0], tuple(ma[i]), b, args[1], tuple(mb[i]))
        if hit is not None:
            st[i], sn[i] = hit[0], hit[1].normal
    same = ~tie
    assert tie.sum() < N // 100
    assert np.array_equal(kt[same], st[same])
    fin = np.isfinite(st) & same
    assert np.array_equal(kn[fin], sn[fin])
    # the cases cover what they should
    assert (fin & (st == 0.0) & start).sum() > 100  # touching or overlapping, approaching
    assert (~np.isfinite(st) & start).sum() > 100  # touching, separating or sliding along
    assert (fin & (st > 0.0)).sum() > 300  # impacts while moving
    assert (fin & (st > 0.0) & ~start & (np.abs(pa - pb).min(axis=1) < 3)).sum() > 100


def test_touching_then_moving_on_agrees_with_the_scalar_rules() -> None:
    """The rules at t = 0, spelled out on one pair: a box resting on another."""
    t = BodyTable()
    a, b = ep.Rect(1, 1), ep.Rect(4, 1)
    t.add(1, (ep.Position(0, 1), None, None, ep.Collider(ep.ACTIVE), ep.Geometry(a)))
    t.add(2, (ep.Position(0, 0), None, None, ep.Collider(ep.STATIC), ep.Geometry(b)))
    pos = np.array([[0.0, 1.0], [0.0, 0.0]])
    for move, expect in (((0.0, -0.1), 0.0), ((0.3, 0.0), np.inf), ((0.0, 0.1), np.inf),
                         ((0.3, -0.1), 0.0)):
        mv = np.array([move, (0.0, 0.0)])
        kt, kn = times_of_impact(t, np.array([0]), np.array([1]), pos, mv)
        assert kt[0] == expect
        ref = time_of_impact(a, (0.0, 1.0), move, b, (0.0, 0.0))
        assert (ref is None) == (expect == np.inf)
        if ref is not None:
            assert tuple(kn[0]) == ref[1].normal == (0.0, -1.0)
