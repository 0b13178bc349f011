"""The narrowphase's vectorised convex time of impact (``geometry.kernels_convex``, SAT slabs)
agrees with the scalar ``geometry.time_of_impact`` on every pair of Rect, OrientedRect,
Polygon and Segment it answers (all but Rect-Rect, which has its own kernel), in both orders.

Random pairs (fixed seeds, positions, offsets, moves and most vertices in multiples of 1/64 so
touching is exact; rotated rects at round and random angles; polygons of 3 to 8 vertices),
with edge cases: one or both bodies still, axis-parallel moves, boxes touching at the start
(pressing, sliding along, lifting off), a hair apart (within and beyond the tolerance),
overlapping, corner-on paths, head-on approaches.

Agreement:
- at the start (touching within ``TOUCH_TOLERANCE``: 0 if approaching, else no impact), the
  same t and normal, bit for bit (the kernel repeats the scalar SAT's float operations);
- whether the pair meets at all: the same, every case;
- later impacts: the same t to about ``TOUCH_TOLERANCE`` in distance along the move (the
  scalar times the first Euclidean distance within ``REACH`` to ``PRECISION`` by conservative
  advancement, the kernel the first time every face separation is within ``REACH``), and the
  same normal except on exact ties: two faces equally far apart then (corner against corner),
  where a rounding difference picks the other face.
"""

from __future__ import annotations

import numpy as np
import pytest

import ecsphys as ep
from ecsphys.body_table import BodyTable
from ecsphys.geometry import TOUCH_TOLERANCE, contact, time_of_impact
from ecsphys.shapes import Shape
from ecsphys.systems.narrowphase import times_of_impact

N = 3000
KINDS = "ROSP"
PAIRS = [(x, y) for x in KINDS for y in KINDS if (x, y) != ("R", "R")]


def dyadic(rng: np.random.Generator, lo: float, hi: float, shape=None) -> np.ndarray:
    return np.round(rng.uniform(lo, hi, shape) * 64) / 64


def hull(points: np.ndarray) -> list[tuple[float, float]]:
    """Convex hull, counter-clockwise, no collinear points (monotone chain)."""
    pts = sorted(set(map(tuple, points.tolist())))

    def cross(o, a, b) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    upper: list = []
    for q in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], q) <= 0:
            lower.pop()
        lower.append(q)
    for q in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], q) <= 0:
            upper.pop()
        upper.append(q)
    return lower[:-1] + upper[:-1]


def make_shape(rng: np.random.Generator, kind: str) -> Shape:
    off = tuple(dyadic(rng, -0.5, 0.5, 2)) if rng.random() < 0.3 else (0.0, 0.0)
    w, h = (float(dyadic(rng, 0.1, 2) + 1 / 64) for _ in range(2))
    if kind == "R":
        return ep.Rect(w, h, offset=off)
    if kind == "O":
        if rng.random() < 0.4:
            angle = float(rng.choice([0, 90, 45, 30, -60, 180]))
        else:
            angle = float(rng.uniform(-180, 180))
        return ep.OrientedRect(w, h, angle, offset=off)
    if kind == "S":
        while True:
            p1, p2 = dyadic(rng, -1, 1, 2), dyadic(rng, -1, 1, 2)
            if rng.random() < 0.3:
                p2[1] = p1[1]  # horizontal
            elif rng.random() < 0.2:
                p2[0] = p1[0]  # vertical
            if not np.array_equal(p1, p2):
                return ep.Segment(tuple(p1), tuple(p2), offset=off)
    while True:
        n = int(rng.integers(3, 9))
        if rng.random() < 0.5:
            ang = np.sort(rng.uniform(0, 2 * np.pi, n))
            pts = np.c_[np.cos(ang), np.sin(ang)] * rng.uniform(0.2, 1.5, 2)
        else:
            pts = np.array(hull(dyadic(rng, -1, 1, (n, 2))))
        try:
            return ep.Polygon([(float(x), float(y)) for x, y in pts], offset=off)
        except ValueError:
            continue


def cases(seed: int):
    rng = np.random.default_rng(seed)
    pa, pb = dyadic(rng, -2, 2, (N, 2)), dyadic(rng, -2, 2, (N, 2))
    ma, mb = dyadic(rng, -5, 5, (N, 2)), dyadic(rng, -5, 5, (N, 2))
    shapes = []
    for i in range(N):
        ka, kb = PAIRS[i % len(PAIRS)]
        a, b = make_shape(rng, ka), make_shape(rng, kb)
        shapes.append((a, b))
        alo, ahi = np.array(a.bounds()[:2]), np.array(a.bounds()[2:])
        blo, bhi = np.array(b.bounds()[:2]), np.array(b.bounds()[2:])
        case = i // len(PAIRS) % 10
        if case == 0:
            ma[i] = 0.0  # a still
        elif case == 1:
            mb[i], ma[i, 1] = 0.0, 0.0  # b still, a moving along x
        elif case in (2, 3):  # a's box on top of b's: touching (for many), pressing...
            pa[i, 1] = pb[i, 1] + bhi[1] - alo[1]
            mb[i] = 0.0
            if case == 2:
                ma[i, 1] = 0.0  # ... sliding along
        elif case == 4:  # a hair apart, within and beyond the tolerance
            gap = rng.choice([0.5, 0.9, 1.2, 4.0]) * TOUCH_TOLERANCE
            pa[i, 0] = pb[i, 0] + blo[0] - ahi[0] - gap
        elif case == 5:  # overlapping
            pa[i] = pb[i] + dyadic(rng, -0.5, 0.5, 2)
        elif case == 6:  # corner-on
            pa[i], ma[i], mb[i] = pb[i] + blo - ahi - 2.0, 4.0, 0.0
        elif case == 7:  # head-on along x
            pa[i, 0] = pb[i, 0] + blo[0] - ahi[0] - 1.0
            ma[i], mb[i] = (2.0, 0.0), 0.0
    return shapes, pa, pb, ma, mb


def top_two_gap(a: Shape, pa, b: Shape, pb) -> float:
    """How much the largest face separation exceeds the second (0: a tie)."""
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    seps = [min(nx * x + ny * y for x, y in b._verts) + nx * dx + ny * dy - s
            for nx, ny, s in a._faces]
    seps += [min(nx * x + ny * y for x, y in a._verts) - nx * dx - ny * dy - s
             for nx, ny, s in b._faces]
    seps.sort()
    return seps[-1] - seps[-2]


@pytest.mark.parametrize("seed", [7, 8])
def test_kernel_convex_toi_agrees_with_time_of_impact(seed: int) -> None:
    shapes, pa, pb, ma, mb = cases(seed)
    t = BodyTable()
    for i, (a, b) in enumerate(shapes):
        for e, s, p in ((2 * i + 1, a, pa[i]), (2 * i + 2, b, pb[i])):
            t.add(e, (ep.Position(*p), None, None, ep.Collider(ep.ACTIVE), ep.Geometry(s)))
    assert (t.nverts[: 2 * N] > 0).all()
    ra, rb = np.arange(0, 2 * N, 2), np.arange(1, 2 * N, 2)
    pos = np.empty((2 * N, 2))
    move = np.empty((2 * N, 2))
    pos[ra], pos[rb], move[ra], move[rb] = pa, pb, ma, mb
    kt, kn = times_of_impact(t, ra, rb, pos, move)

    st, sn = np.full(N, np.inf), np.zeros((N, 2))
    start = np.zeros(N, dtype=np.bool_)
    for i, (a, b) in enumerate(shapes):
        start[i] = contact(a, tuple(pa[i]), b, tuple(pb[i])) is not None
        hit = time_of_impact(a, tuple(pa[i]), tuple(ma[i]), b, tuple(pb[i]), tuple(mb[i]))
        if hit is not None:
            st[i], sn[i] = hit[0], hit[1].normal

    fin = np.isfinite(st)
    assert np.array_equal(np.isfinite(kt), fin)  # the same pairs meet
    # at the start: bit for bit
    zero = (st == 0.0) | (kt == 0.0)
    assert np.array_equal(kt[zero], st[zero])
    assert np.array_equal(kn[zero], sn[zero])
    # later: the same time to about the tolerance (in distance), the same normal but on ties
    later = fin & ~zero
    length = np.hypot(*(ma - mb)[later].T)
    apart = (st[later] - kt[later]) * length
    assert np.abs(apart).max() <= 2 * TOUCH_TOLERANCE
    assert np.median(np.abs(apart)) <= TOUCH_TOLERANCE / 4
    differ = np.flatnonzero(later & (kn != sn).any(axis=1))
    for i in differ:
        a, b = shapes[i]
        at = tuple(pa[i] + (ma[i] - mb[i]) * st[i])
        assert top_two_gap(a, at, b, tuple(pb[i])) <= 1e-12, i
    assert len(differ) < N // 100
    # the cases cover what they should, for every kind pair in both orders
    assert (fin & (st == 0.0) & start).sum() > 150  # touching or overlapping, approaching
    assert (~fin & start).sum() > 150  # touching, separating or sliding along
    assert later.sum() > 600  # impacts while moving
    kinds = np.array([PAIRS.index((type(a).__name__[0], type(b).__name__[0]))
                      for a, b in shapes])
    assert len(np.unique(kinds[later])) == len(PAIRS)


def _add(t: BodyTable, entity: int, shape: Shape, p) -> None:
    t.add(entity, (ep.Position(*p), None, None, ep.Collider(ep.ACTIVE), ep.Geometry(shape)))


def test_outline_columns_follow_the_rows() -> None:
    """The padded outline of each row is its shape's, through swap-removes and new shapes;
    circles and polygons of more than ``MAX_VERTS`` vertices have none."""
    from ecsphys.body_table import MAX_VERTS

    ring = [(np.cos(a), np.sin(a)) for a in np.linspace(0, 2 * np.pi, MAX_VERTS + 2)[:-1]]
    shapes = [ep.OrientedRect(1, 2, 30), ep.Circle(1), ep.Segment((0, 0), (1, 2)),
              ep.Polygon(ring), ep.Rect(1, 1, offset=(0.5, 0))]
    t = BodyTable(2)
    for e, s in enumerate(shapes, 1):
        _add(t, e, s, (float(e), 0.0))
    t.remove(1)  # the last row (the Rect) moves into row 0
    t.geometry_changed(t.row(3), ep.Polygon([(0, 0), (1, 0), (0, 1)]))
    for e in (2, 3, 4, 5):
        row = t.row(e)
        shape = t.shapes[row]
        verts = getattr(shape, "_verts", ())
        if not verts or len(verts) > MAX_VERTS:
            assert t.nverts[row] == 0
            continue
        assert t.nverts[row] == len(verts)
        assert t.shape_hash[row] == hash(shape)
        assert np.array_equal(t.verts[row, : len(verts)], verts)
        assert (t.verts[row, len(verts):] == verts[-1]).all()
        assert np.array_equal(t.face_n[row, : len(shape._faces)], [f[:2] for f in shape._faces])
        assert np.array_equal(t.face_s[row, : len(shape._faces)], [f[2] for f in shape._faces])


def test_large_polygons_and_grazes_take_the_scalar_path() -> None:
    """A polygon of more than ``MAX_VERTS`` vertices is answered by the scalar function, the
    same values; so is a pair whose face separations all start within ``REACH`` though the
    shapes do not touch (two diamonds corner to corner, boxes apart)."""
    from ecsphys.body_table import MAX_VERTS

    n = MAX_VERTS + 3
    ring = ep.Polygon([(np.cos(a), np.sin(a)) for a in np.linspace(0, 2 * np.pi, n + 1)[:-1]])
    tri = ep.Polygon([(0, 0), (1, 0), (0, 1)])
    d = ep.OrientedRect(1, 1, 45)
    corner = d._verts[1][0] - d._verts[3][0]  # right corner to left corner
    gap = 1.1 * TOUCH_TOLERANCE  # boxes apart by more than the tolerance, faces within REACH
    cases = [(ring, (0.0, 0.0), (3.0, 0.0), tri, (2.5, -0.25)),
             (tri, (2.5, -0.25), (-3.0, 0.5), ring, (0.0, 0.0)),
             (d, (0.0, 0.0), (0.0, 0.0), d, (corner + gap, 0.0)),
             (d, (0.0, 0.0), (1.0, 0.0), d, (corner + gap, 0.0))]
    t = BodyTable()
    for i, (a, pa, _, b, pb) in enumerate(cases):
        _add(t, 2 * i + 1, a, pa)
        _add(t, 2 * i + 2, b, pb)
    ra, rb = np.arange(0, 2 * len(cases), 2), np.arange(1, 2 * len(cases), 2)
    pos = t.pos[: t.n].copy()
    move = np.zeros_like(pos)
    move[ra] = [c[2] for c in cases]
    kt, kn = times_of_impact(t, ra, rb, pos, move)
    for i, (a, pa, m, b, pb) in enumerate(cases):
        ref = time_of_impact(a, pa, m, b, pb)
        if ref is None:
            assert kt[i] == np.inf
        else:
            assert (kt[i], tuple(kn[i])) == (ref[0], ref[1].normal)
    assert np.isfinite(kt[[0, 1, 3]]).all()


@pytest.mark.parametrize("tol", [0.0, TOUCH_TOLERANCE, 0.01, 0.3])
def test_kernel_convex_contacts_agree_with_contact_within(tol: float) -> None:
    """``contacts`` of convex outline pairs: those touching within ``TOUCH_TOLERANCE`` from the
    kernel, the same hit, normal, depth and point as the scalar ``contact_within``, bit for
    bit; those further apart but maybe within ``tol`` still from the scalar."""
    from ecsphys.geometry import contact_within
    from ecsphys.systems.narrowphase import contacts

    shapes, pa, pb, _, _ = cases(9)
    t = BodyTable()
    for i, (a, b) in enumerate(shapes):
        _add(t, 2 * i + 1, a, pa[i])
        _add(t, 2 * i + 2, b, pb[i])
    ra, rb = np.arange(0, 2 * N, 2), np.arange(1, 2 * N, 2)
    hit, normal, depth, point = contacts(t, ra, rb, t.pos[: t.n], tol)
    ref = [contact_within(a, tuple(pa[i]), b, tuple(pb[i]), tol) for i, (a, b) in enumerate(shapes)]
    found = np.array([c is not None for c in ref])
    assert np.array_equal(hit, found)
    assert found.sum() > 400
    for i in np.flatnonzero(found):
        c = ref[i]
        assert (tuple(normal[i]), depth[i], tuple(point[i])) == (c.normal, c.depth, c.point), i
