"""The vectorised kernels agree with the scalar reference functions of ``ecsphys.geometry``.

Same random inputs (fixed seeds, thousands of pairs, with edge cases: coincident centres,
circle centre inside a rect or on a segment, exact touching, zero moves, moves parallel to a
segment, paths grazing a corner). Agreement: same hit mask, normals, depths, points and TOIs
within 1e-9. Documented bands where the two may differ and are not compared:
- hit mask: pairs within 1e-12 of the touching limit (``depth = -TOUCH_TOLERANCE``): the
  scalar tests ``d^2 <= (r + tol)^2``, the kernels ``r - d >= -tol``;
- normals of same-kind pairs with coincident centres (or, for rect-rect, equal centre
  coordinate on the normal's axis): ``contact`` orders such pairs by hash and may flip them;
- normals of a circle centre within 1e-9 of a segment: the scalar normal is the direction to a
  rounded closest point (noise), the kernel's the exact perpendicular;
- TOI: ill-conditioned pairs, whose hit or t changes under a 1e-9 relative change of the
  radius (grazing paths, touching at t = 1), and pairs touching at the start whose move is
  tangential within 1e-12 (``move . normal > 0`` is then rounding noise: a move parallel to
  a segment); at most a few percent of the cases.
"""

from __future__ import annotations

import numpy as np
import pytest

from ecsphys.geometry import TOUCH_TOLERANCE as TOL
from ecsphys.geometry import (
    contact,
    time_of_impact,
    toi_circle_circle,
    toi_circle_rect,
    toi_circle_segment,
)
from ecsphys.geometry import kernels as k
from ecsphys.shapes import Circle, Rect, Segment

N = 3000
NT = 2000


def dyadic(rng: np.random.Generator, lo: float, hi: float, shape) -> np.ndarray:
    """Random multiples of 1/64: sums and differences are exact, so touching is exact."""
    return np.round(rng.uniform(lo, hi, shape) * 64) / 64


def unpack(results, n: int):
    """Scalar Contacts (or None) to arrays: hit, normal, depth, point."""
    hit = np.array([c is not None for c in results])
    normal = np.zeros((n, 2))
    depth = np.zeros(n)
    point = np.zeros((n, 2))
    for i, c in enumerate(results):
        if c is not None:
            normal[i], depth[i], point[i] = c.normal, c.depth, c.point
    return hit, normal, depth, point


def compare_static(kern, ref, compare_normal: np.ndarray, up_to_sign: bool = True) -> None:
    khit, kn, kd, kp = kern
    shit, sn, sd, sp = ref
    band = np.abs(kd + TOL) < 1e-12
    assert np.array_equal(khit[~band], shit[~band])
    both = khit & shit
    assert both.sum() > len(khit) // 5  # the cases hit things
    assert np.abs(kd - sd)[both].max() <= 1e-9
    cmp = both & compare_normal
    assert np.abs(kn - sn)[cmp].max() <= 1e-9
    assert np.abs(kp - sp)[cmp].max() <= 1e-9  # point = centre + normal * (r - depth / 2)
    if up_to_sign:  # the excluded normals still agree up to sign
        assert np.allclose(np.abs(kn[both & ~compare_normal]), np.abs(sn[both & ~compare_normal]))


# ------------------------------------------------------------------------------ static


def test_circle_circle_agrees() -> None:
    rng = np.random.default_rng(11)
    pa, pb = dyadic(rng, -3, 3, (N, 2)), dyadic(rng, -3, 3, (N, 2))
    ra, rb = dyadic(rng, 0.1, 2, N), dyadic(rng, 0.1, 2, N)
    m = N // 10
    pb[:m] = pa[:m]  # coincident centres
    pb[m : 2 * m] = pa[m : 2 * m] + np.c_[ra + rb, np.zeros(N)][m : 2 * m]  # touching exactly
    pb[2 * m : 3 * m] = pa[2 * m : 3 * m] + np.c_[np.zeros(N), -(ra + rb)][2 * m : 3 * m]
    ref = [contact(Circle(ra[i]), tuple(pa[i]), Circle(rb[i]), tuple(pb[i])) for i in range(N)]
    kern = k.circle_circle(pa, ra, pb, rb, tol=TOL)
    assert kern[0][m : 3 * m].all()
    compare_static(kern, unpack(ref, N), np.any(pa != pb, axis=1))


def test_circle_rect_agrees() -> None:
    rng = np.random.default_rng(12)
    pc, pr = dyadic(rng, -3, 3, (N, 2)), dyadic(rng, -3, 3, (N, 2))
    r, half = dyadic(rng, 0.1, 2, N), dyadic(rng, 0.1, 2, (N, 2))
    m = N // 10
    pc[:m] = pr[:m] + dyadic(rng, -1, 1, (m, 2)) * half[:m]  # centre inside (or on the edge)
    pc[m : 2 * m] = pr[m : 2 * m]  # centre on the rect's centre
    pc[2 * m : 3 * m, 0] = (pr[:, 0] + half[:, 0] + r)[2 * m : 3 * m]  # touching the right side
    pc[2 * m : 3 * m, 1] = pr[2 * m : 3 * m, 1]
    corner = pr + half + r[:, None] * 0.6  # touching a corner: (0.6, 0.8) * r is exact-ish
    pc[3 * m : 4 * m] = corner[3 * m : 4 * m] + np.c_[np.zeros(N), 0.2 * r][3 * m : 4 * m]
    ref = [
        contact(Circle(r[i]), tuple(pc[i]), Rect(2 * half[i, 0], 2 * half[i, 1]), tuple(pr[i]))
        for i in range(N)
    ]
    kern = k.circle_rect(pc, r, pr, half, tol=TOL)
    assert kern[0][: 3 * m].all()
    compare_static(kern, unpack(ref, N), np.ones(N, bool))


def test_rect_rect_agrees() -> None:
    rng = np.random.default_rng(13)
    pa, pb = dyadic(rng, -3, 3, (N, 2)), dyadic(rng, -3, 3, (N, 2))
    ha, hb = dyadic(rng, 0.1, 2, (N, 2)), dyadic(rng, 0.1, 2, (N, 2))
    m = N // 10
    pb[:m] = pa[:m]  # coincident centres
    pb[m : 2 * m, 0] = (pa[:, 0] + ha[:, 0] + hb[:, 0])[m : 2 * m]  # touching exactly
    pb[m : 2 * m, 1] = pa[m : 2 * m, 1]
    hb[2 * m : 3 * m] = ha[2 * m : 3 * m]  # equal boxes: ties between the axes
    ref = [
        contact(
            Rect(2 * ha[i, 0], 2 * ha[i, 1]),
            tuple(pa[i]),
            Rect(2 * hb[i, 0], 2 * hb[i, 1]),
            tuple(pb[i]),
        )  # fmt: skip
        for i in range(N)
    ]
    kern = k.rect_rect(pa, ha, pb, hb, tol=TOL)
    assert kern[0][: 2 * m].all()
    use_x = kern[1][:, 0] != 0
    same = np.where(use_x, pa[:, 0] == pb[:, 0], pa[:, 1] == pb[:, 1])
    compare_static(kern, unpack(ref, N), ~same)


def test_circle_segment_agrees() -> None:
    rng = np.random.default_rng(14)
    pc, r = dyadic(rng, -3, 3, (N, 2)), dyadic(rng, 0.1, 2, N)
    p1, p2 = dyadic(rng, -3, 3, (N, 2)), dyadic(rng, -3, 3, (N, 2))
    p2[np.all(p1 == p2, axis=1)] += 0.5  # Segment rejects zero length
    m = N // 10
    s = dyadic(rng, 0, 1, (m, 1))
    pc[:m] = p1[:m] + s * (p2[:m] - p1[:m])  # centre (about) on the segment
    pc[m : 2 * m] = p1[m : 2 * m]  # centre on an end point
    pc[2 * m : 3 * m] = p2[2 * m : 3 * m] + np.c_[r, np.zeros(N)][2 * m : 3 * m]  # touching?
    ref = [
        contact(Circle(r[i]), tuple(pc[i]), Segment(tuple(p1[i]), tuple(p2[i])), (0.0, 0.0))
        for i in range(N)
    ]
    kern = k.circle_segment(pc, r, p1, p2, tol=TOL)
    assert kern[0][: 2 * m].all()
    compare_static(kern, unpack(ref, N), kern[2] < r - 1e-9, up_to_sign=False)


# ------------------------------------------------------------------------------ time of impact


def moves(rng: np.random.Generator, n: int) -> np.ndarray:
    d = dyadic(rng, -6, 6, (n, 2))
    m = n // 10
    d[:m] = 0.0  # zero motion
    d[m : 2 * m, 1] = 0.0  # axis-parallel motion
    return d


def scalar_toi(results, n: int):
    t = np.full(n, np.inf)
    normal = np.zeros((n, 2))
    for i, h in enumerate(results):
        if h is not None:
            t[i], normal[i] = h[0], h[1]
    return t, normal


def compare_toi(kernel, args, r_index: int, ref, start_touch: np.ndarray) -> None:
    """Kernel TOI vs scalar, on the pairs that are well conditioned (see module notes).

    ``start_touch``: the pairs touching at t = 0 (static depth >= -TOUCH_TOLERANCE).
    """
    kt, kn = kernel(*args)
    st, sn = ref
    lo = list(args)
    hi = list(args)
    lo[r_index] = args[r_index] * (1 - 1e-9)
    hi[r_index] = args[r_index] * (1 + 1e-9)
    t_lo, _ = kernel(*lo)
    t_hi, _ = kernel(*hi)
    fin = np.isfinite(kt)
    stable = (np.isfinite(t_lo) == fin) & (np.isfinite(t_hi) == fin)
    # touching at the start and moving (almost) tangentially: ``move . normal > 0`` decided by
    # rounding noise (e.g. a move parallel to a segment)
    move = args[2] - args[5] if len(args) == 6 else args[2]
    along = np.abs((move * kn).sum(axis=1))  # kn: the start normal for touching starts
    size = np.abs(move).sum(axis=1)
    stable &= ~(start_touch & (size > 0) & (along <= 1e-12 * size))
    assert (~stable).sum() <= 0.03 * len(kt)
    assert np.array_equal(fin[stable], np.isfinite(st)[stable])
    both = stable & fin
    assert both.sum() > len(kt) // 10 and (kt[both] == 0).sum() > 10  # incl. t = 0 starts
    assert np.abs(kt[both] - st[both]).max() <= 1e-9
    assert np.abs(kn[both] - sn[both]).max() <= 1e-9


def test_toi_circle_circle_agrees() -> None:
    rng = np.random.default_rng(21)
    pa, pb = dyadic(rng, -3, 3, (NT, 2)), dyadic(rng, -3, 3, (NT, 2))
    ra, rb = dyadic(rng, 0.1, 2, NT), dyadic(rng, 0.1, 2, NT)
    da, db = moves(rng, NT), moves(rng, NT)
    m = NT // 10
    pb[2 * m : 3 * m] = pa[2 * m : 3 * m]  # coincident centres
    pb[3 * m : 4 * m] = pa[3 * m : 4 * m] + np.c_[ra + rb, np.zeros(NT)][3 * m : 4 * m]  # touch
    ref = [
        toi_circle_circle(tuple(pa[i]), ra[i], tuple(da[i]), tuple(pb[i]), rb[i], tuple(db[i]))
        for i in range(NT)
    ]
    touch = k.circle_circle(pa, ra, pb, rb, tol=TOL)[0]
    compare_toi(k.toi_circle_circle, (pa, ra, da, pb, rb, db), 1, scalar_toi(ref, NT), touch)


def test_toi_circle_rect_agrees() -> None:
    rng = np.random.default_rng(22)
    pc, pr = dyadic(rng, -3, 3, (NT, 2)), dyadic(rng, -3, 3, (NT, 2))
    r, half = dyadic(rng, 0.1, 2, NT), dyadic(rng, 0.1, 2, (NT, 2))
    d = moves(rng, NT)
    m = NT // 10
    pc[2 * m : 3 * m] = pr[2 * m : 3 * m] + dyadic(rng, -1, 1, (m, 2)) * half[2 * m : 3 * m]
    # resting on the top side, sliding or lifting or pressing
    pc[3 * m : 4 * m, 1] = (pr[:, 1] + half[:, 1] + r)[3 * m : 4 * m]
    pc[3 * m : 4 * m, 0] = pr[3 * m : 4 * m, 0]
    # diagonal paths passing the top-right corner circle at various offsets (some grazing)
    u = np.array([1.0, -1.0]) / 2**0.5
    off = dyadic(rng, -1.5, 1.5, m)
    corner = pr + half
    sl = slice(4 * m, 5 * m)
    pc[sl] = corner[sl] - 3 * u + np.c_[off, off] / 2**0.5 * r[sl, None]
    d[sl] = 6 * u
    ref = [
        toi_circle_rect(tuple(pc[i]), r[i], tuple(d[i]), tuple(pr[i]), tuple(half[i]))
        for i in range(NT)
    ]
    touch = k.circle_rect(pc, r, pr, half, tol=TOL)[0]
    compare_toi(k.toi_circle_rect, (pc, r, d, pr, half), 1, scalar_toi(ref, NT), touch)


def test_toi_circle_segment_agrees() -> None:
    rng = np.random.default_rng(23)
    pc, r = dyadic(rng, -3, 3, (NT, 2)), dyadic(rng, 0.1, 2, NT)
    p1, p2 = dyadic(rng, -3, 3, (NT, 2)), dyadic(rng, -3, 3, (NT, 2))
    p2[np.all(p1 == p2, axis=1)] += 0.5
    d = moves(rng, NT)
    m = NT // 10
    d[2 * m : 3 * m] = (p2 - p1)[2 * m : 3 * m] * 1.5  # parallel to the segment
    horizontal = slice(3 * m, 4 * m)  # horizontal segments, circles resting on / sliding along
    p2[horizontal, 1] = p1[horizontal, 1]
    p2[horizontal, 0] = p1[horizontal, 0] + 2
    pc[horizontal] = p1[horizontal] + np.c_[np.ones(NT), r][horizontal]
    pc[4 * m : 5 * m] = p1[4 * m : 5 * m]  # centre on an end point
    ref = [
        toi_circle_segment(tuple(pc[i]), r[i], tuple(d[i]), tuple(p1[i]), tuple(p2[i]))
        for i in range(NT)
    ]
    touch = k.circle_segment(pc, r, p1, p2, tol=TOL)[0]
    compare_toi(k.toi_circle_segment, (pc, r, d, p1, p2), 1, scalar_toi(ref, NT), touch)


@pytest.mark.parametrize("kind", ["circle", "rect", "segment"])
def test_time_of_impact_agrees(kind: str) -> None:
    """The shape-level ``time_of_impact`` (both bodies moving) gives the kernels' t and normal."""
    rng = np.random.default_rng(31)
    n = 500
    pa, pb = dyadic(rng, -3, 3, (n, 2)), dyadic(rng, -3, 3, (n, 2))
    ra, size = dyadic(rng, 0.1, 2, n), dyadic(rng, 0.1, 2, (n, 2))
    da, db = moves(rng, n), moves(rng, n)
    if kind == "circle":
        shapes = [Circle(s) for s in size[:, 0]]
        kt, kn = k.toi_circle_circle(pa, ra, da, pb, size[:, 0], db)
    elif kind == "rect":
        shapes = [Rect(2 * w, 2 * h) for w, h in size]
        kt, kn = k.toi_circle_rect(pa, ra, da - db, pb, size)
    else:
        shapes = [Segment((-w, -h), (w, h)) for w, h in size]
        kt, kn = k.toi_circle_segment(pa, ra, da - db, pb - size, pb + size)
    st = np.full(n, np.inf)
    sn = np.zeros((n, 2))
    for i in range(n):
        h = time_of_impact(
            Circle(ra[i]), tuple(pa[i]), tuple(da[i]), shapes[i], tuple(pb[i]), tuple(db[i])
        )
        if h is not None:
            st[i], sn[i] = h[0], h[1].normal
    assert np.array_equal(np.isfinite(kt), np.isfinite(st))
    fin = np.isfinite(kt)
    assert fin.sum() > n // 10
    assert np.abs(kt[fin] - st[fin]).max() <= 1e-9
    moving = fin & (kt > 0)  # at t = 0 time_of_impact reports the static contact normal
    assert np.abs(kn[moving] - sn[moving]).max() <= 1e-9
