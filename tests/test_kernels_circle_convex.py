"""The narrowphase's vectorised time of impact of a circle against an OrientedRect or a Polygon
(``geometry.kernels_round``, the outline rounded by the radius) agrees with the scalar
``geometry.time_of_impact``, in both orders.

Random pairs (fixed seeds; oriented rects at round and random angles, triangles, pentagons and
random polygons of up to 8 vertices, offsets on both shapes), with edge cases: one or both
bodies still, axis-parallel moves, a circle touching a face (exactly, a hair apart within and
beyond the tolerance) pressing, sliding along or lifting off, overlapping and approaching,
paths aimed at a corner (hitting its circle, grazing past it, missing), head-on hits, misses.

Agreement:
- whether the pair meets at all: the same, every case;
- at the start (touching: 0 if approaching, else no impact): the same t and normal;
- later impacts: the same t to ``2 * TOUCH_TOLERANCE`` in distance along the move (the kernel's
  roots are the scalar's to rounding) and the same normal to rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

import ecsphys as ep
from ecsphys.body_table import BodyTable
from ecsphys.geometry import TOUCH_TOLERANCE, contact, time_of_impact
from ecsphys.shapes import Shape
from ecsphys.systems.narrowphase import times_of_impact

N = 4000


def dyadic(rng: np.random.Generator, lo: float, hi: float, shape=None) -> np.ndarray:
    return np.round(rng.uniform(lo, hi, shape) * 64) / 64


def make_outline(rng: np.random.Generator) -> Shape:
    off = tuple(dyadic(rng, -0.5, 0.5, 2)) if rng.random() < 0.4 else (0.0, 0.0)
    kind = rng.integers(4)
    if kind == 0:
        w, h = (float(dyadic(rng, 0.1, 2) + 1 / 64) for _ in range(2))
        if rng.random() < 0.4:
            angle = float(rng.choice([0, 90, 45, 30, -60, 180]))
        else:
            angle = float(rng.uniform(-180, 180))
        return ep.OrientedRect(w, h, angle, offset=off)
    n = 3 if kind == 1 else (5 if kind == 2 else int(rng.integers(3, 9)))
    while True:
        ang = np.sort(rng.uniform(0, 2 * np.pi, n))
        if kind in (1, 2) and rng.random() < 0.5:  # regular, rotated
            ang = np.linspace(0, 2 * np.pi, n + 1)[:-1] + rng.uniform(0, 2 * np.pi)
        pts = np.c_[np.cos(ang), np.sin(ang)] * rng.uniform(0.2, 1.5, 2)
        try:
            return ep.Polygon([(float(x), float(y)) for x, y in pts], offset=off)
        except ValueError:
            continue


def cases(seed: int):
    """``(circle first?, circle, outline, circle pos, outline pos, circle move, outline move)``."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(N):
        o = make_outline(rng)
        r = float(dyadic(rng, 0.05, 1.0) + 1 / 64)
        coff = tuple(dyadic(rng, -0.5, 0.5, 2)) if rng.random() < 0.3 else (0.0, 0.0)
        circle = ep.Circle(r, offset=coff)
        po = dyadic(rng, -2, 2, 2)
        pc = dyadic(rng, -2, 2, 2)
        mc, mo = dyadic(rng, -5, 5, 2), dyadic(rng, -5, 5, 2)
        verts = np.array(o._verts) + po  # world outline
        faces = o._faces
        f = int(rng.integers(len(faces)))
        nx, ny, sup = faces[f]
        n = np.array([nx, ny])
        tang = np.array([-ny, nx])
        v1, v2 = verts[f], verts[(f + 1) % len(verts)]
        case = i // 2 % 10
        if case == 0:
            mc[:] = 0.0  # circle still
        elif case == 1:
            mo[:], mc[1] = 0.0, 0.0  # outline still, circle along x
        elif case in (2, 3, 4):  # on a face: touching, a hair apart; pressing, sliding, lifting
            gap = rng.choice([0.0, 0.0, 0.5, 0.9, 1.2, 4.0]) * TOUCH_TOLERANCE
            at = v1 + (v2 - v1) * rng.uniform(0.05, 0.95) + n * (r + gap)
            pc = at - np.array(coff)
            mo[:] = 0.0
            speed = rng.uniform(0.1, 3.0)
            if case == 2:
                mc = tang * speed * rng.choice([-1, 1])  # sliding along
            elif case == 3:
                mc = (-n + tang * rng.uniform(-1, 1)) * speed  # pressing
            else:
                mc = (n + tang * rng.uniform(-1, 1)) * speed  # lifting off
        elif case == 5:  # overlapping, approaching or not
            pc = po + np.array(o.offset) + dyadic(rng, -0.5, 0.5, 2) - np.array(coff)
        elif case in (6, 7):  # aimed at a corner: from far, sideways by about the radius
            v = v1
            away = (n + np.array(faces[f - 1][:2])) * rng.uniform(0.5, 1.5)
            side = rng.choice([0.0, 0.5, 0.99, 1.0, 1.01, 1.5]) * r
            dirn = -away / np.hypot(*away)
            start = v + away * 2 + np.array([-dirn[1], dirn[0]]) * side
            pc = start - np.array(coff)
            mc, mo = dirn * rng.uniform(1.0, 6.0), np.zeros(2)
            if case == 7:  # the outline moves instead
                mc, mo = np.zeros(2), -dirn * rng.uniform(1.0, 6.0)
        elif case == 8:  # head-on at a face
            at = v1 + (v2 - v1) * rng.uniform(0, 1) + n * (r + rng.uniform(0.1, 2))
            pc = at - np.array(coff)
            mc, mo = -n * rng.uniform(0.5, 4), np.zeros(2)
        out.append((i % 2 == 0, circle, o, pc, po, mc, mo))
    return out


@pytest.mark.parametrize("seed", [11, 12])
def test_circle_convex_toi_agrees_with_time_of_impact(seed: int) -> None:
    cs = cases(seed)
    t = BodyTable()
    pos = np.empty((2 * N, 2))
    move = np.empty((2 * N, 2))
    pairs = []
    for i, (first, circle, o, pc, po, mc, mo) in enumerate(cs):
        a, b = (circle, o) if first else (o, circle)
        p, q = (pc, po) if first else (po, pc)
        ma, mb = (mc, mo) if first else (mo, mc)
        for e, s, pp, mm in ((2 * i, a, p, ma), (2 * i + 1, b, q, mb)):
            t.add(e + 1, (ep.Position(*pp), None, None, ep.Collider(ep.ACTIVE), ep.Geometry(s)))
            pos[e], move[e] = pp, mm
        pairs.append((a, tuple(p), tuple(ma), b, tuple(q), tuple(mb)))
    assert (t.nverts[1 : 2 * N : 2][np.array([c[0] for c in cs])] > 0).all()
    ra, rb = np.arange(0, 2 * N, 2), np.arange(1, 2 * N, 2)
    kt, kn = times_of_impact(t, ra, rb, pos, move)

    st, sn = np.full(N, np.inf), np.zeros((N, 2))
    start = np.zeros(N, dtype=np.bool_)
    for i, (a, p, ma, b, q, mb) in enumerate(pairs):
        start[i] = contact(a, p, b, q) is not None
        hit = time_of_impact(a, p, ma, b, q, mb)
        if hit is not None:
            st[i], sn[i] = hit[0], hit[1].normal

    fin = np.isfinite(st)
    assert np.array_equal(np.isfinite(kt), fin)  # the same pairs meet
    zero = (st == 0.0) | (kt == 0.0)
    assert np.array_equal(kt[zero], st[zero])
    assert np.abs(kn[zero] - sn[zero]).max(initial=0.0) <= 1e-12
    later = fin & ~zero
    rel = move[ra] - move[rb]
    length = np.hypot(*rel[later].T)
    apart = (st[later] - kt[later]) * length
    assert np.abs(apart).max() <= 2 * TOUCH_TOLERANCE
    assert np.abs(kn[later] - sn[later]).max() <= 1e-9
    # the cases cover what they should, in both orders
    order = np.array([c[0] for c in cs])
    for side in (True, False):
        assert (fin & (st == 0.0) & start & (order == side)).sum() > 100
        assert (~fin & start & (order == side)).sum() > 100
        assert (later & (order == side)).sum() > 400
        assert (~fin & ~start & (order == side)).sum() > 300


def test_circle_convex_pairs_skip_the_scalar(monkeypatch: pytest.MonkeyPatch) -> None:
    """Circle-outline pairs away from the edge cases (still, moving, overlapping, head-on,
    random) are answered by the kernel: the scalar function is called for almost none."""
    import ecsphys.systems.narrowphase as nph

    calls = []
    real = nph.geometry.time_of_impact

    def counting(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(nph.geometry, "time_of_impact", counting)
    cs = [c for i, c in enumerate(cases(13)) if i // 2 % 10 in (0, 1, 5, 8, 9)]
    t = BodyTable()
    pos = np.empty((2 * len(cs), 2))
    move = np.empty((2 * len(cs), 2))
    for i, (_, circle, o, pc, po, mc, mo) in enumerate(cs):
        for e, s, pp, mm in ((2 * i, circle, pc, mc), (2 * i + 1, o, po, mo)):
            t.add(e + 1, (ep.Position(*pp), None, None, ep.Collider(ep.ACTIVE), ep.Geometry(s)))
            pos[e], move[e] = pp, mm
    ra, rb = np.arange(0, 2 * len(cs), 2), np.arange(1, 2 * len(cs), 2)
    times_of_impact(t, ra, rb, pos, move)
    assert len(calls) <= len(cs) // 200


def test_circle_convex_edge_cases_agree() -> None:
    """Hand-made edge cases, both orders, the scalar's answers: a centre on a face and on a
    vertex, a centre deep inside, a circle touching a vertex, a move ending exactly in touch,
    a path grazing a vertex circle, a move along a face a hair beyond the tolerance, a still
    circle, a polygon of more than ``MAX_VERTS`` vertices (always the scalar)."""
    tri = ep.Polygon([(0, 0), (2, 0), (0, 2)])
    box = ep.OrientedRect(2, 1, 90, offset=(0.25, 0))
    ring = ep.Polygon([(np.cos(a), np.sin(a)) for a in np.linspace(0, 2 * np.pi, 13)[:-1]])
    c = ep.Circle(0.5)
    g = 1.5 * TOUCH_TOLERANCE
    cases_ = [
        (tri, (1.0, 0.0), (0.0, 1.0)), (tri, (1.0, 0.0), (0.0, -1.0)), (tri, (1.0, 0.0), (1, 0)),
        (tri, (0.0, 0.0), (1.0, 1.0)), (tri, (0.0, 0.0), (-1.0, -1.0)),
        (tri, (0.5, 0.5), (0.3, 0.1)),
        (tri, (-0.5, 0.0), (1.0, 0.0)), (tri, (-0.5, 0.0), (0.0, 1.0)),
        (tri, (1.0, -1.5), (0.0, 1.0)), (tri, (1.0, -1.5), (0.0, 0.5)),
        (tri, (-1.0, -0.5), (1.0, 0.0)), (tri, (-1.0, -0.5 - g), (3.0, 0.0)),
        (tri, (1.0, -0.5 - g), (1.0, 0.0)), (tri, (1.0, -0.5 - g), (0.0, 0.0)),
        (box, (0.25, -1.5), (0.0, 1.0)), (box, (1.5, 1.5), (-1.0, -1.0)),
        (box, (1.75, 0.0), (-1.0, 0.0)), (ring, (3.0, 0.0), (-3.0, 0.0)),
        (ring, (0.0, 1.5), (0.0, -1.0)),
    ]
    t = BodyTable()
    rows = []
    for i, (o, pc, m) in enumerate(cases_):
        for j, pair in enumerate(((c, pc, m, o, (0.0, 0.0), (0.0, 0.0)),
                                  (o, (0.0, 0.0), (0.0, 0.0), c, pc, m))):
            a, pa, ma, b, pb, mb = pair
            base = 4 * i + 2 * j
            _add_body(t, base + 1, a, pa)
            _add_body(t, base + 2, b, pb)
            rows.append((base, base + 1, pair))
    pos = t.pos[: t.n].copy()
    move = np.zeros_like(pos)
    for ra_, rb_, (_, _, ma, _, _, mb) in rows:
        move[ra_], move[rb_] = ma, mb
    ra = np.array([r[0] for r in rows])
    rb = np.array([r[1] for r in rows])
    kt, kn = times_of_impact(t, ra, rb, pos, move)
    for i, (_, _, (a, pa, ma, b, pb, mb)) in enumerate(rows):
        ref = time_of_impact(a, pa, ma, b, pb, mb)
        if ref is None:
            assert kt[i] == np.inf, i
            continue
        assert abs(kt[i] - ref[0]) * np.hypot(ma[0] - mb[0], ma[1] - mb[1]) <= 1e-12, i
        assert np.abs(kn[i] - ref[1].normal).max() <= 1e-12, i


def _add_body(t: BodyTable, entity: int, shape: Shape, p) -> None:
    t.add(entity, (ep.Position(*p), None, None, ep.Collider(ep.ACTIVE), ep.Geometry(shape)))
