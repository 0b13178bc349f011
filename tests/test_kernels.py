"""Vectorised kernels against closed forms, shapely (static) and a fine sweep (time of impact)."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from ecsphys.geometry import TOUCH_TOLERANCE, kernels_ops
from ecsphys.geometry import kernels as k
from ecsphys.geometry.contact import ON_TOLERANCE

QUAD = 64  # shapely circles are inscribed 256-gons: radius error r * 7.5e-5
EPS = 0.01  # probe gap for the translation test
APPROX = 4e-4  # allowed polygon-approximation error (sizes up to 2)
N = 3000


# ------------------------------------------------------------------------------ case makers


def circles_circles(rng: np.random.Generator, n: int = N) -> tuple[np.ndarray, ...]:
    pa = rng.uniform(-3, 3, (n, 2))
    pb = rng.uniform(-3, 3, (n, 2))
    ra = rng.uniform(0.1, 2, n)
    rb = rng.uniform(0.1, 2, n)
    m = n // 10
    pb[:m] = pa[:m]  # coincident centres
    ra[m : 2 * m] = 0.5  # exactly touching along axes (dyadic, exact in floats)
    rb[m : 2 * m] = 0.75
    pb[m : 2 * m] = pa[m : 2 * m] + [1.25, 0.0]
    return pa, ra, pb, rb


def circles_rects(rng: np.random.Generator, n: int = N) -> tuple[np.ndarray, ...]:
    pc = rng.uniform(-3, 3, (n, 2))
    r = rng.uniform(0.1, 2, n)
    pr = rng.uniform(-3, 3, (n, 2))
    half = rng.uniform(0.1, 2, (n, 2))
    m = n // 10
    pc[:m] = pr[:m] + rng.uniform(-1, 1, (m, 2)) * half[:m]  # centre inside the rect
    pc[m : 2 * m] = pr[m : 2 * m]  # centre on the rect's centre
    return pc, r, pr, half


def rects_rects(rng: np.random.Generator, n: int = N) -> tuple[np.ndarray, ...]:
    pa = rng.uniform(-3, 3, (n, 2))
    pb = rng.uniform(-3, 3, (n, 2))
    ha = rng.uniform(0.1, 2, (n, 2))
    hb = rng.uniform(0.1, 2, (n, 2))
    m = n // 10
    pb[:m] = pa[:m]
    return pa, ha, pb, hb


def circles_segments(rng: np.random.Generator, n: int = N) -> tuple[np.ndarray, ...]:
    pc = rng.uniform(-3, 3, (n, 2))
    r = rng.uniform(0.1, 2, n)
    p1 = rng.uniform(-3, 3, (n, 2))
    p2 = rng.uniform(-3, 3, (n, 2))
    m = n // 10
    p2[:m] = p1[:m]  # zero-length segments
    s = rng.uniform(0, 1, (m, 1))
    pc[m : 2 * m] = p1[m : 2 * m] + s * (p2[m : 2 * m] - p1[m : 2 * m])  # centre on segment
    return pc, r, p1, p2


# ------------------------------------------------------------------------------ shapely shapes


def disc(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    return shapely.buffer(shapely.points(p), r, quad_segs=QUAD)


def box(p: np.ndarray, h: np.ndarray) -> np.ndarray:
    return shapely.box(p[:, 0] - h[:, 0], p[:, 1] - h[:, 1], p[:, 0] + h[:, 0], p[:, 1] + h[:, 1])


def seg(p1: np.ndarray, p2: np.ndarray) -> np.ndarray:
    lines = shapely.linestrings(np.stack([p1, p2], axis=1))
    pts = shapely.points(p1)
    return np.where(np.all(p1 == p2, axis=1), pts, lines)


def check_against_shapely(result, ga, gb, translate_b, exact_gap: np.ndarray | None = None):
    """hit == intersects; moving b by n * (depth + EPS) leaves a gap of EPS; point between."""
    hit, normal, depth, point = result
    assert np.isfinite(normal).all() and np.isfinite(depth).all() and np.isfinite(point).all()
    assert np.allclose(np.hypot(normal[:, 0], normal[:, 1]), 1.0, atol=1e-12)
    assert np.array_equal(hit, depth >= 0)
    clear = np.abs(depth) > 1e-3
    inter = shapely.intersects(ga, gb)
    assert np.array_equal(hit[clear], inter[clear])
    probe = exact_gap if exact_gap is not None else np.ones(len(depth), bool)
    gb_far = translate_b(normal * (depth + EPS)[:, None])
    gap = shapely.distance(ga, gb_far)
    assert np.abs(gap - EPS)[probe].max() < APPROX
    deep = depth > 2 * EPS
    gb_near = translate_b(normal * (depth - EPS)[:, None])
    assert shapely.intersects(ga, gb_near)[deep].all()
    pts = shapely.points(point)  # between the boundaries: within depth / 2 of both shapes
    assert (shapely.distance(pts, ga) <= depth / 2 + APPROX)[hit].all()
    assert (shapely.distance(pts, gb) <= depth / 2 + APPROX)[hit].all()


# ------------------------------------------------------------------------------ closed forms


def test_closed_forms() -> None:
    hit, n, d, p = k.circle_circle([[0, 0], [0, 0], [0, 0]], [1, 1, 1],
                                   [[1.5, 0], [0, 0], [2, 0]], [1, 1, 1])  # fmt: skip
    assert hit.tolist() == [True, True, True]
    assert n.tolist() == [[1, 0], [1, 0], [1, 0]]  # coincident centres: (1, 0)
    assert d.tolist() == [0.5, 2.0, 0.0]
    assert p.tolist() == [[0.75, 0], [0, 0], [1, 0]]
    # circle inside rect: pushed along the shortest axis; normal circle -> rect
    hit, n, d, p = k.circle_rect([[0.8, 0.1], [0, 0], [0, -0.9]], 0.5,
                                 [[0, 0]] * 3, [[1, 1], [2, 1], [1, 1]])  # fmt: skip
    assert np.allclose(n, [[-1, 0], [0, -1], [0, 1]]) and np.allclose(d, [0.7, 1.5, 0.6])
    n = k.circle_rect([[0, 0], [0, 0]], 0.5, [[0, 0]] * 2, [[1, 1], [1, 2]])[1]
    assert n.tolist() == [[-1, 0], [-1, 0]]  # ties: x first, then the right face
    hit, n, d, p = k.circle_rect([[3, 0], [2, 2]], 1, [[0, 0]] * 2, [[1, 1]] * 2)
    assert np.allclose(n, [[-1, 0], [-(0.5**0.5), -(0.5**0.5)]])
    assert np.allclose(d, [-1, 1 - 2**0.5]) and not hit.any()
    assert k.circle_rect([[3, 0]], 1, [[0, 0]], [[1, 1]], tol=1.0)[0].all()
    hit, n, d, p = k.rect_rect([[0, 0], [0, 0], [0, 0]], [[1, 1]] * 3,
                               [[1.5, 0.2], [0, 0], [-1, -1.8]], [[1, 1]] * 3)  # fmt: skip
    assert n.tolist() == [[1, 0], [1, 0], [0, -1]] and np.allclose(d, [0.5, 2, 0.2])
    assert np.allclose(p, [[0.75, 0.1], [0, 0], [-0.5, -0.9]])
    p = k.rect_rect([[0, 0]], [[2, 1]], [[0.5, 0]], [[0.5, 0.5]])[3]  # b inside a
    assert p.tolist() == [[0.5, 0.25]]  # along the normal (y): midpoint of deepest points
    hit, n, d, p = k.circle_segment([[0, 0.5], [0, 0], [3, 0], [2, 2]], 1,
                                    [[-1, 0]] * 4, [[1, 0]] * 4)  # fmt: skip
    assert np.allclose(n, [[0, -1], [0, -1], [-1, 0], np.array([-1, -2]) / 5**0.5])
    assert np.allclose(d, [0.5, 1, -1, 1 - 5**0.5])


def test_toi_closed_forms() -> None:
    t, n = k.toi_circle_circle([[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], 1,
                               [[4, 0], [0, 3], [-1, 0], [0, 0], [1, 0]],
                               [[3, 0], [0, 2], [1.5, 0], [5, 0], [0, 0]], 1,
                               [[0, 0], [0, 0], [0, 0], [0, 0], [-1, 0]])  # fmt: skip
    assert t.tolist() == [0.25, 0.0, np.inf, np.inf, np.inf]  # last: coincident, separating
    assert np.allclose(n[:3], [[1, 0], [0, 1], [1, 0]])
    t, n = k.toi_circle_circle([[0, 0]], 1, [[2, 0]], [[4, 0]], 1, [[-2, 0]])  # both move
    assert t.tolist() == [0.5] and n.tolist() == [[1, 0]]
    # rect: face, corner, miss, grazing the top side (first touch above the corner)
    t, n = k.toi_circle_rect([[-3, 0], [-3, 3], [-3, 2.5], [-3, 2], [0, 2], [0, 2]], 1,
                             [[4, 0], [6, -6], [6, 0], [6, 0], [3, 0], [0, 0]],
                             [[0, 0]] * 6, [[1, 1]] * 6)  # fmt: skip
    assert np.allclose(t, [0.25, (8**0.5 - 1) / 72**0.5, np.inf, 1 / 3, np.inf, np.inf])
    assert np.allclose(n[[0, 1, 3]], [[1, 0], [0.5**0.5, -(0.5**0.5)], [0, -1]])
    # segment: side, end cap, parallel at distance r (grazes from t = 1/3), along its line
    t, n = k.toi_circle_segment([[0, 3], [-3, 0.5], [-3, 1], [-3, 0], [0, 1]], 1,
                                [[0, -4], [4, 0], [6, 0], [4, 0], [0, 1]],
                                [[-1, 0]] * 5, [[1, 0]] * 5)  # fmt: skip
    assert np.allclose(t, [0.5, (2 - 0.75**0.5) / 4, 1 / 3, 0.25, np.inf])
    assert np.allclose(n[:4], [[0, -1], [0.75**0.5, -0.5], [0, -1], [1, 0]])
    t, n = k.toi_circle_segment([[0, 0.5], [0, 0]], 1, [[0, -1], [1, 0]], [[-1, 0]] * 2,
                                [[1, 0]] * 2)  # fmt: skip
    assert t.tolist() == [0.0, np.inf] and n[0].tolist() == [0, -1]
    # centre exactly on the segment: the segment normal facing the move; sliding along: inf
    t, n = k.toi_circle_segment([[0, 0]] * 3, 1, [[0, 1], [0.5, -1], [1, 0]], [[-1, 0]] * 3,
                                [[1, 0]] * 3)  # fmt: skip
    assert t.tolist() == [0, 0, np.inf] and n[:2].tolist() == [[0, 1], [0, -1]]
    # within TOUCH_TOLERANCE counts as touching: t = 0 when approaching
    t, _ = k.toi_circle_circle([[0, 0], [0, 0]], 1, [[1, 0]] * 2, [[2 + 5e-10, 0], [2 + 1e-8, 0]],
                               1, [[0, 0]] * 2)  # fmt: skip
    assert t[0] == 0 and 0 < t[1] < 1e-7


def test_scalars_broadcast_and_no_nan_on_degenerate_input() -> None:
    z = np.zeros((4, 2))
    one = np.ones((4, 2))
    for res, normal in (
        (k.circle_circle(z, 1.0, z, 1.0), [1, 0]),
        (k.circle_rect(z, 1.0, z, one), [-1, 0]),
        (k.rect_rect(z, one, z, one), [1, 0]),
        (k.circle_segment(z, 1.0, z, z), [0, -1]),
        (k.toi_circle_circle(z, 1.0, z, z, 1.0, z), None),
        (k.toi_circle_rect(z, 1.0, z, z, one), None),
        (k.toi_circle_segment(z, 1.0, z, z, z), None),
        (k.toi_circle_segment(z, 1.0, one, z, z), None),
    ):
        for a in res:
            assert not np.isnan(a).any()
        if normal is not None:
            assert res[1].tolist() == [normal] * 4 and res[0].all()


# ------------------------------------------------------------------------------ shapely oracle


def test_circle_circle_vs_shapely() -> None:
    pa, ra, pb, rb = circles_circles(np.random.default_rng(1))
    res = k.circle_circle(pa, ra, pb, rb)
    check_against_shapely(res, disc(pa, ra), disc(pb, rb), lambda v: disc(pb + v, rb))


def test_circle_rect_vs_shapely() -> None:
    pc, r, pr, half = circles_rects(np.random.default_rng(2))
    res = k.circle_rect(pc, r, pr, half)
    check_against_shapely(res, disc(pc, r), box(pr, half), lambda v: box(pr + v, half))


def test_rect_rect_vs_shapely() -> None:
    pa, ha, pb, hb = rects_rects(np.random.default_rng(3))
    res = k.rect_rect(pa, ha, pb, hb)
    d = np.abs(pb - pa) - ha - hb  # gaps per axis: the probe holds unless both are open
    exact = ~((d[:, 0] > 0) & (d[:, 1] > 0))
    check_against_shapely(res, box(pa, ha), box(pb, hb), lambda v: box(pb + v, hb), exact)


def test_circle_segment_vs_shapely() -> None:
    pc, r, p1, p2 = circles_segments(np.random.default_rng(4))
    res = k.circle_segment(pc, r, p1, p2)
    check_against_shapely(res, disc(pc, r), seg(p1, p2), lambda v: seg(p1 + v, p2 + v))


def test_tol_counts_near_touching() -> None:
    hit, _, depth, _ = k.circle_circle([[0, 0]] * 3, 1, [[2 + 1e-3, 0], [2, 0], [3, 0]], 1,
                                       tol=0.01)  # fmt: skip
    assert hit.tolist() == [True, True, False]


# ------------------------------------------------------------------------------ time of impact


def sweep_check(toi_t, toi_n, static_at, n_steps: int = 2000, sign_free=None) -> None:
    """TOI against the static kernel: touching at t with the same normal, apart before t.

    ``static_at(s)`` gives the static kernel's (hit, normal, depth, point) at fraction s;
    ``sign_free`` masks pairs whose normals may differ in sign (centre on a segment).
    """
    n = len(toi_t)
    assert toi_t.shape == (n,) and toi_n.shape == (n, 2)
    assert not np.isnan(toi_t).any() and np.isfinite(toi_n).all()
    finite = np.isfinite(toi_t)
    assert ((toi_t[finite] >= 0) & (toi_t[finite] <= 1)).all()
    assert np.allclose(np.hypot(toi_n[finite, 0], toi_n[finite, 1]), 1.0, atol=1e-12)
    # exact: at t the shapes touch (t > 0) or overlap (t == 0), with the static normal
    _, n_at, depth_at, _ = static_at(np.where(finite, toi_t, 0.0)[:, None])
    pos = finite & (toi_t > 0)
    assert np.abs(depth_at[pos]).max(initial=0) < 1e-9
    assert (depth_at[finite & (toi_t == 0)] >= -TOUCH_TOLERANCE).all()
    if sign_free is not None:
        n_at[sign_free] *= np.sign((n_at * toi_n).sum(axis=1))[sign_free, None]
    assert np.abs(n_at - toi_n)[finite].max(initial=0) < 1e-7
    # sweep: first sampled touch is not before t, and not long after it
    first = np.full(n, np.inf)
    deepest = np.full(n, -np.inf)
    d0 = static_at(np.zeros((1, 1)))[2]
    for s in np.linspace(0.0, 1.0, n_steps + 1):
        depth = static_at(np.full((1, 1), s))[2]
        first = np.where((depth >= 1e-9) & np.isinf(first), s, first)
        deepest = np.maximum(deepest, depth)
    start_sep = d0 < -1e-9
    assert (first[start_sep & finite] >= toi_t[start_sep & finite] - 1e-12).all()
    clear = start_sep & finite & (deepest > 1e-3)
    assert (first[clear] <= toi_t[clear] + 1.0 / n_steps + 1e-12).all()
    missed = start_sep & ~finite
    assert (deepest[missed] < 1e-9).all()
    assert (start_sep & (deepest > 1e-6)).sum() > len(toi_t) // 10  # the cases hit things


def moves(rng: np.random.Generator, n: int) -> np.ndarray:
    d = rng.uniform(-6, 6, (n, 2))
    m = n // 10
    d[:m] = 0.0  # zero motion
    d[m : 2 * m, 1] = 0.0  # axis-parallel motion
    return d


def test_toi_circle_circle_sweep() -> None:
    rng = np.random.default_rng(5)
    pa, ra, pb, rb = circles_circles(rng, 1000)
    da, db = moves(rng, 1000), moves(rng, 1000)
    t, n = k.toi_circle_circle(pa, ra, da, pb, rb, db)
    sweep_check(t, n, lambda s: k.circle_circle(pa + s * da, ra, pb + s * db, rb))


def test_toi_circle_rect_sweep() -> None:
    rng = np.random.default_rng(6)
    pc, r, pr, half = circles_rects(rng, 1000)
    d = moves(rng, 1000)
    # grazing corners: diagonal paths tangent to the bottom-right corner circle at t = 0.5
    m = 100
    u = np.array([1.0, 1.0]) / 2**0.5
    out = np.array([1.0, -1.0]) / 2**0.5
    corner = pr[-m:] + half[-m:] * [1, -1]
    pc[-m:] = corner + r[-m:, None] * out - 3 * u
    d[-m:] = 6 * u
    t, n = k.toi_circle_rect(pc, r, d, pr, half)
    sweep_check(t, n, lambda s: k.circle_rect(pc + s * d, r, pr, half))


def test_toi_circle_segment_sweep() -> None:
    rng = np.random.default_rng(7)
    pc, r, p1, p2 = circles_segments(rng, 1000)
    d = moves(rng, 1000)
    m = 100  # motion parallel to the segment
    d[-m:] = (p2[-m:] - p1[-m:]) * 2
    t, n = k.toi_circle_segment(pc, r, d, p1, p2)
    # centre on the segment within ON_TOLERANCE (a point rounded 1e-16 off counts as on): its
    # TOI normal faces the move, the static one the side the rounding put it on
    on = k.circle_segment(pc, r, p1, p2)[2] >= r - ON_TOLERANCE
    sweep_check(t, n, lambda s: k.circle_segment(pc + s * d, r, p1, p2), sign_free=on)


@settings(max_examples=200, deadline=None)
@given(
    st.tuples(*[st.floats(-4, 4)] * 2),
    st.floats(0.05, 2),
    st.tuples(*[st.floats(-8, 8)] * 2),
    st.tuples(*[st.floats(0.05, 2)] * 2),
)
def test_toi_rect_touches_at_t(pc, r, d, half) -> None:
    args = (np.array([pc]), np.array([r]), np.array([d]), np.zeros((1, 2)), np.array([half]))
    t, n = k.toi_circle_rect(*args)
    hit0, _, depth0, _ = k.circle_rect(args[0], r, args[3], args[4])
    if np.isfinite(t[0]) and t[0] > 0:
        _, n_at, depth, _ = k.circle_rect(args[0] + t[0] * args[2], r, args[3], args[4])
        assert abs(depth[0]) < 1e-9 and np.allclose(n_at, n, atol=1e-7)
    elif np.isinf(t[0]) and depth0[0] < 0:
        ends = k.circle_rect(args[0] + args[2], r, args[3], args[4])[2]
        assert ends[0] < 1e-9


@pytest.mark.parametrize("kernel", [k.circle_circle, k.circle_rect, k.rect_rect])
def test_empty_input(kernel) -> None:
    e = np.zeros((0, 2))
    second = np.zeros(0) if kernel is not k.rect_rect else e
    hit, n, d, p = kernel(e, second, e, second if kernel is k.circle_circle else e)
    assert hit.shape == (0,) and n.shape == (0, 2)


def test_results_are_fresh_and_inputs_untouched() -> None:
    """Scratch buffers are reused across calls: results must not alias them or the inputs."""
    rng = np.random.default_rng(8)
    calls = {
        "cc": lambda n: (k.circle_circle, *circles_circles(rng, n)),
        "cr": lambda n: (k.circle_rect, *circles_rects(rng, n)),
        "rr": lambda n: (k.rect_rect, *rects_rects(rng, n)),
        "cs": lambda n: (k.circle_segment, *circles_segments(rng, n)),
        "tcc": lambda n: (
            k.toi_circle_circle,
            *circles_circles(rng, n)[:2],
            moves(rng, n),
            *circles_circles(rng, n)[2:],
            moves(rng, n),
        ),  # fmt: skip
        "tcr": lambda n: (
            k.toi_circle_rect,
            *circles_rects(rng, n)[:2],
            moves(rng, n),
            *circles_rects(rng, n)[2:],
        ),  # fmt: skip
        "tcs": lambda n: (
            k.toi_circle_segment,
            *circles_segments(rng, n)[:2],
            moves(rng, n),
            *circles_segments(rng, n)[2:],
        ),  # fmt: skip
    }
    for make in calls.values():
        fn, *args = make(50)
        before = [a.copy() for a in args]
        first = [o.copy() for o in fn(*args)]
        kept = fn(*args)
        for n in (80, 20, 50):  # grow, shrink, same
            fn2, *other = make(n)
            fn2(*other)
        for a, b in zip(args, before, strict=True):
            assert np.array_equal(a, b)
        for o, f in zip(kept, first, strict=True):
            assert np.array_equal(o, f)


def test_release_scratch() -> None:
    z = np.zeros((3, 2))
    before = k.circle_circle(z, 1.0, z + 1, 1.0)
    k.release_scratch()
    assert not kernels_ops._W.floats and not kernels_ops._W.bools
    after = k.circle_circle(z, 1.0, z + 1, 1.0)
    for a, b in zip(before, after, strict=True):
        assert np.array_equal(a, b)
