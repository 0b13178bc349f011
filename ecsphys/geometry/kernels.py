"""Vectorised NumPy kernels over arrays of shape pairs: overlap contacts and time of impact.

Guarantees:
- each kernel handles n pairs per call with no Python loop over pairs; inputs are array-likes
  (positions / moves / half extents ``(n, 2)``, radii ``(n,)`` or scalars), outputs float64;
- no NaN anywhere, also for coincident centres, a circle centre inside a rect or on a segment,
  zero-length segments and zero moves; the only non-finite output is ``t = inf`` (no impact);
- static kernels return ``(hit, normal, depth, point)``: ``normal`` a unit vector from shape a
  to shape b, ``depth`` the penetration (the length of the shortest move of b along ``normal``
  that separates the shapes; negative: the gap), ``hit = depth >= -tol``;
- TOI kernels return ``(t, normal)``: ``t`` in [0, 1] of first touch along the move, ``inf`` if
  none; pairs already touching (apart by at most ``tol``, default ``TOUCH_TOLERANCE``) give
  ``t = 0`` if the move approaches (``move . normal > 0``), else ``inf`` (separating or
  sliding along); ``normal`` is the unit contact normal at ``t``. A circle centre on a
  segment (within ``ON_TOLERANCE``) takes the segment normal facing its move and approaches
  unless the move is parallel to the segment (sine <= ``PARALLEL_TOLERANCE``); coincident
  circle centres (within ``ON_TOLERANCE``) never approach; all as the scalar functions.

Conventions (the scalar functions in ``ecsphys.geometry`` follow the same ones):
- positions are absolute shape centres (body position + shape offset already added);
- ``point`` is the midpoint of the two deepest points (each shape's point furthest inside the
  other along the normal): in both shapes when they overlap, unless one is deep inside;
- ties are broken deterministically, as in the scalar functions: coincident centres give the
  normal ``(1, 0)``; a circle centre inside a rect leaves through the nearest face (order right,
  left, top, bottom on ties: normal ``(-1, 0)`` for a centred circle); rect-rect separates
  along the axis of least overlap (``x`` on ties), towards b (``+`` if the centres agree); a
  circle centre on a segment gets the segment's right perpendicular ``(uy, -ux)`` (``u`` the
  unit direction p1 -> p2, ``(1, 0)`` if p1 == p2);
- entries where ``hit`` is False or ``t`` is inf hold finite, otherwise meaningless, values.
Exactly-touching pairs are decided by float arithmetic: within ~1e-12 of touching the hit mask
may differ from another formula's; pass ``tol`` to count near-touching pairs as touching.

Speed: temporaries live in per-thread scratch buffers reused across calls (up to ~90 float
arrays of the largest n seen: ~70 MB after a call on 100,000 pairs; ``release_scratch()``
frees them), since freshly allocated large temporaries page-fault on every call; only the
returned arrays are new. Masks are blended as 0/1 floats (``np.where`` and
boolean assignment are ~10x slower on random masks), lengths use ``sqrt`` (``np.hypot`` is
~10x slower).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .contact import ON_TOLERANCE, PARALLEL_TOLERANCE, TOUCH_TOLERANCE
from .kernels_ops import (
    _BIG,
    _TINY_MOVE,
    _W,
    B,
    F,
    _add,
    _and,
    _box_contact,
    _cmp,
    _col,
    _cross,
    _dot,
    _f,
    _first_root,
    _m,
    _midpoint,
    _mul,
    _no_impact_to_inf,
    _norm,
    _not,
    _or,
    _pick,
    _sign_neg,
    _sub,
    _unit,
    _vec2,
)

StaticResult = tuple[B, F, F, F]
TOIResult = tuple[F, F]

__all__ = [
    "circle_circle",
    "circle_rect",
    "circle_segment",
    "rect_rect",
    "release_scratch",
    "toi_circle_circle",
    "toi_circle_rect",
    "toi_circle_segment",
]


def release_scratch() -> None:
    """Free this thread's scratch buffers (they are made again on the next call)."""
    _W.cap = 0
    _W.floats, _W.bools = [], []


# --------------------------------------------------------------------------- static contacts


def circle_circle(
    pa: ArrayLike, ra: ArrayLike, pb: ArrayLike, rb: ArrayLike, tol: float = 0.0
) -> StaticResult:
    """Contacts of circles (pa, ra) with circles (pb, rb).

    ``depth = ra + rb - |pb - pa|``; normal ``(pb - pa) / |pb - pa|``, ``(1, 0)`` if coincident.
    """
    pa, pb, ra, rb = _f(pa), _f(pb), _f(ra), _f(rb)
    n = pa.shape[0]
    _W.begin(n)
    nx, ny, _, dist = _unit(_sub(pb[:, 0], pa[:, 0]), _sub(pb[:, 1], pa[:, 1]))
    depth = np.add(ra, rb, out=np.empty(n))
    depth -= dist
    hit = depth >= -tol
    return hit, _vec2(nx, ny), depth, _midpoint(pa[:, 0], pa[:, 1], nx, ny, ra, depth)


def circle_rect(
    pc: ArrayLike, r: ArrayLike, pr: ArrayLike, half: ArrayLike, tol: float = 0.0
) -> StaticResult:
    """Contacts of circles (pc, r) with axis-aligned rects centred at pr, half extents half.

    Normal from circle to rect. A circle centre inside (or on) the rect is pushed out along the
    axis of least penetration: ``depth = r + that penetration``.
    """
    pc, pr, r, half = _f(pc), _f(pr), _f(r), _f(half)
    n = pc.shape[0]
    _W.begin(n)
    qx = _sub(pc[:, 0], pr[:, 0])
    qy = _sub(pc[:, 1], pr[:, 1])
    nx, ny, sep = _box_contact(qx, qy, _col(half, 0, n), _col(half, 1, n))
    depth = np.subtract(r, sep, out=np.empty(n))
    return depth >= -tol, _vec2(nx, ny), depth, _midpoint(pc[:, 0], pc[:, 1], nx, ny, r, depth)


def rect_rect(
    pa: ArrayLike, ha: ArrayLike, pb: ArrayLike, hb: ArrayLike, tol: float = 0.0
) -> StaticResult:
    """Contacts of AABBs (centre pa, half extents ha) with AABBs (pb, hb).

    Normal along the axis of least overlap (``x`` on ties), towards b (``+`` if the centres
    agree on that axis); ``depth`` is that overlap; ``point``: along the normal, the midpoint
    of the deepest points; across it, the middle of the overlap.
    """
    pa, pb, ha, hb = _f(pa), _f(pb), _f(ha), _f(hb)
    n = pa.shape[0]
    _W.begin(n)
    point = np.empty((n, 2))
    depth = np.empty(n)
    over = []
    for i in (0, 1):
        a, b, h_a, h_b = pa[:, i], pb[:, i], _col(ha, i, n), _col(hb, i, n)
        d = _sub(b, a)
        o = _add(h_a, h_b)
        o -= np.abs(d, out=_W.f())
        s = _sign_neg(_cmp(np.less, d, 0.0))
        # middle of the overlap, and the midpoint of the deepest points along this axis
        mid = np.maximum(_sub(a, h_a), _sub(b, h_b), out=point[:, i])
        mid += np.minimum(_add(a, h_a), _add(b, h_b), out=_W.f())
        mid *= 0.5
        deep = _mul(o, -0.5)
        deep += h_a
        deep *= s
        deep += a
        over.append((o, s, deep))
    (ox, sx, deep_x), (oy, sy, deep_y) = over
    use_x = _m(_cmp(np.less_equal, ox, oy))
    np.minimum(ox, oy, out=depth)
    normal = _vec2(_mul(sx, use_x), _mul(sy, _sub(1.0, use_x)))
    point[:, 0] = _pick(use_x, deep_x, point[:, 0])
    point[:, 1] = _pick(use_x, point[:, 1], deep_y)
    return depth >= -tol, normal, depth, point


def _segment_frame(p1: F, p2: F) -> tuple[F, F, F]:
    """``(ux, uy, length)`` of segments p1 -> p2; ``u = (1, 0)`` where p1 == p2."""
    ux, uy, _, length = _unit(_sub(p2[:, 0], p1[:, 0]), _sub(p2[:, 1], p1[:, 1]))
    return ux, uy, length


def circle_segment(
    pc: ArrayLike, r: ArrayLike, p1: ArrayLike, p2: ArrayLike, tol: float = 0.0
) -> StaticResult:
    """Contacts of circles (pc, r) with segments p1-p2; normal from circle to segment.

    ``depth = r - distance(centre, segment)``; a centre on the segment gets the segment's right
    perpendicular ``(uy, -ux)`` as normal.
    """
    pc, r, p1, p2 = _f(pc), _f(r), _f(p1), _f(p2)
    n = pc.shape[0]
    _W.begin(n)
    ux, uy, length = _segment_frame(p1, p2)
    wx = _sub(pc[:, 0], p1[:, 0])
    wy = _sub(pc[:, 1], p1[:, 1])
    along = _dot(wx, wy, ux, uy)
    side = _cross(ux, uy, wx, wy)  # signed distance along the left perpendicular (-uy, ux)
    # beside the segment: exactly perpendicular normal (no rounding noise near the segment)
    flip = _sign_neg(_cmp(np.less, side, 0.0))
    nx = _mul(uy, flip)
    ny = _mul(ux, flip)
    ny *= -1.0
    dist = np.abs(side, out=side)
    before = _cmp(np.less_equal, along, 0.0)
    end = _or(before, _cmp(np.greater_equal, along, length))
    if end.any():  # nearest to an end point: p1 if along <= 0, else p2
        s = _mul(length, _sub(1.0, _m(before)))
        ex, ey, zero, edist = _unit(_sub(_mul(ux, s), wx), _sub(_mul(uy, s), wy))
        zf = _m(zero)
        ef = _m(end)
        nx = _pick(ef, _pick(zf, uy, ex), nx)
        ny = _pick(ef, _pick(zf, _mul(ux, -1.0), ey), ny)
        dist = _pick(ef, edist, dist)
    depth = np.subtract(r, dist, out=np.empty(n))
    return depth >= -tol, _vec2(nx, ny), depth, _midpoint(pc[:, 0], pc[:, 1], nx, ny, r, depth)


# --------------------------------------------------------------------------- time of impact


def toi_circle_circle(
    pa: ArrayLike,
    ra: ArrayLike,
    da: ArrayLike,
    pb: ArrayLike,
    rb: ArrayLike,
    db: ArrayLike,
    tol: float = TOUCH_TOLERANCE,
) -> TOIResult:
    """Time of impact of circles (pa, ra) moving by da with circles (pb, rb) moving by db.

    Exact: the relative move ``da - db`` of a's centre against b's circle grown by ``ra + rb``.
    The normal at impact points from a's centre to b's centre (``(1, 0)`` if coincident).
    Already touching (within ``tol``): ``t = 0`` if the relative move approaches, else inf.
    """
    pa, pb, ra, rb, da, db = _f(pa), _f(pb), _f(ra), _f(rb), _f(da), _f(db)
    _W.begin(pa.shape[0])
    px = _sub(pa[:, 0], pb[:, 0])
    py = _sub(pa[:, 1], pb[:, 1])
    dx = _sub(da[:, 0], db[:, 0])
    dy = _sub(da[:, 1], db[:, 1])
    rr = _add(ra, rb)
    t, found = _first_root(px, py, dx, dy, rr)
    dist = _norm(px, py)
    overlap = _cmp(np.less_equal, dist, _add(rr, tol))
    approach = _cmp(np.less, _dot(px, py, dx, dy), 0.0)
    approach &= _cmp(np.greater, dist, ON_TOLERANCE)  # coincident centres: every move separates
    hit = _and(overlap, approach)
    moving_hit = _and(_and(_not(overlap), found), _cmp(np.less_equal, t, 1.0))
    t *= _m(moving_hit)  # 0 for overlaps and misses
    hit |= moving_hit
    qx = _mul(t, dx)
    qx += px
    qx *= -1.0
    qy = _mul(t, dy)
    qy += py
    qy *= -1.0
    nx, ny, _, _ = _unit(qx, qy)
    return _no_impact_to_inf(t, hit), _vec2(nx, ny)


def _toi_round_box(
    qx: F, qy: F, dx: F, dy: F, hx: F, hy: F, r: F, tol: float, segment: bool = False
) -> tuple[F, F, F]:
    """TOI of a circle (centre q, radius r, move d) with the box ``|x| <= hx, |y| <= hy``.

    Slab test against the box grown by r; an entry in a corner region is settled by that
    corner's circle (missing it misses the rounded box). Returns ``(t, nx, ny)``.
    ``segment``: the box is a segment along x (hy = 0); a centre on it gets the normal
    ``(0, -+1)`` facing the move.
    """
    n0x, n0y, sep = _box_contact(qx, qy, hx, hy)
    if segment:
        # centre on the segment (within ON_TOLERANCE, segment not a point): the normal faces
        # the move, and every move not parallel to the segment approaches
        on_b = _and(_cmp(np.less_equal, sep, ON_TOLERANCE), _cmp(np.greater, hx, 0.0))
        on = _m(on_b)
        n0x = _mul(n0x, _sub(1.0, on))
        n0y = _pick(on, _sign_neg(_cmp(np.less_equal, dy, 0.0)), n0y)
    overlap = _cmp(np.less_equal, sep, _add(r, tol))
    approach = _cmp(np.greater, _dot(dx, dy, n0x, n0y), 0.0)
    if segment:
        along = _cmp(np.less_equal, np.abs(dy, out=_W.f()), _mul(_norm(dx, dy), PARALLEL_TOLERANCE))
        approach &= _not(_and(on_b, along))  # sliding along the segment
        # a point segment under the centre: like coincident circles, every move separates
        approach &= _not(_and(_cmp(np.equal, hx, 0.0), _cmp(np.less_equal, sep, 0.0)))
    near = []
    far = []
    for q, d, h in ((qx, dx, hx), (qy, dy, hy)):  # slab entry / exit times per axis
        sf = _m(_cmp(np.less, np.abs(d, out=_W.f()), _TINY_MOVE))  # still: always or never in
        hr = _add(h, r)
        sd = _sub(1.0, sf)
        sd *= d
        sd += sf
        t1 = _add(hr, q)
        t1 /= sd
        t1 *= -1.0
        t2 = _sub(hr, q)
        t2 /= sd
        lo = np.minimum(t1, t2, out=_W.f())
        hi = np.maximum(t1, t2, out=t2)
        out = _sign_neg(_cmp(np.less_equal, np.abs(q, out=t1), hr))  # -big in the slab, +big out
        out *= _BIG
        near.append(_pick(sf, out, lo))
        far.append(_pick(sf, _BIG, hi))
    t_in = np.maximum(near[0], near[1], out=near[0])
    t_out = np.minimum(far[0], far[1], out=far[0])
    slab = _and(_cmp(np.less_equal, t_in, t_out), _cmp(np.greater_equal, t_out, 0.0))
    slab &= _cmp(np.less_equal, t_in, 1.0)
    slab &= _not(overlap)
    te = np.maximum(t_in, 0.0, out=t_in)
    te *= _m(slab)
    ex = _mul(te, dx)
    ex += qx
    ey = _mul(te, dy)
    ey += qy
    face_x = _cmp(np.less_equal, np.abs(ey, out=_W.f()), hy)  # entered through a left / right
    face_y = _and(_not(face_x), _cmp(np.less_equal, np.abs(ex, out=_W.f()), hx))
    face = _or(face_x, face_y)
    corner = _and(slab, _not(face))
    sx = _sign_neg(_cmp(np.greater, ex, 0.0))
    sy = _sign_neg(_cmp(np.greater, ey, 0.0))
    nx = _mul(sx, _m(face_x))
    ny = _mul(sy, _m(face_y))
    t = te
    idx = np.flatnonzero(corner)
    if idx.size:  # entered a corner region: that corner's circle (same formula as _first_root)
        qxi, qyi, dxi, dyi, ri = qx[idx], qy[idx], dx[idx], dy[idx], r[idx]
        cx = np.copysign(hx[idx], ex[idx])
        cy = np.copysign(hy[idx], ey[idx])
        px, py = qxi - cx, qyi - cy
        hb = px * dxi + py * dyi
        c = px * px + py * py - ri * ri
        disc = hb * hb - (dxi * dxi + dyi * dyi) * c
        ok = (hb < 0.0) & (disc >= 0.0)
        tc = np.maximum(c / np.where(ok, np.sqrt(np.maximum(disc, 0.0)) - hb, 1.0), 0.0)
        ok &= tc <= 1.0
        tc *= ok
        vx = cx - (qxi + tc * dxi)
        vy = cy - (qyi + tc * dyi)
        length = np.sqrt(vx * vx + vy * vy)
        length[length == 0.0] = 1.0
        t[idx] = tc
        nx[idx] = vx / length
        ny[idx] = vy / length
        corner[idx] = ok
    hit = _and(slab, face)
    hit |= corner
    hit |= _and(overlap, approach)
    of = _m(overlap)
    nx = _pick(of, n0x, nx)
    ny = _pick(of, n0y, ny)
    t *= _sub(1.0, of)
    return _no_impact_to_inf(t, hit), nx, ny


def toi_circle_rect(
    pc: ArrayLike,
    r: ArrayLike,
    d: ArrayLike,
    pr: ArrayLike,
    half: ArrayLike,
    tol: float = TOUCH_TOLERANCE,
) -> TOIResult:
    """Time of impact of circles (pc, r) moving by d with static AABBs (centre pr, half).

    Exact against the rounded rect (4 sides offset by r, 4 corner circles). For a moving rect
    pass the relative move ``d_circle - d_rect``. Normal from circle to rect at impact.
    """
    pc, r, d, pr, half = _f(pc), _f(r), _f(d), _f(pr), _f(half)
    n = pc.shape[0]
    _W.begin(n)
    qx = _sub(pc[:, 0], pr[:, 0])
    qy = _sub(pc[:, 1], pr[:, 1])
    hx, hy, rr = _col(half, 0, n), _col(half, 1, n), _col(r, 0, n)
    t, nx, ny = _toi_round_box(qx, qy, d[:, 0], d[:, 1], hx, hy, rr, tol)
    return t, _vec2(nx, ny)


def toi_circle_segment(
    pc: ArrayLike,
    r: ArrayLike,
    d: ArrayLike,
    p1: ArrayLike,
    p2: ArrayLike,
    tol: float = TOUCH_TOLERANCE,
) -> TOIResult:
    """Time of impact of circles (pc, r) moving by d with static segments p1-p2.

    Exact against the capsule (two end circles, two sides offset by r), solved as a rounded
    box of half extents ``(length / 2, 0)`` in the segment's frame. Normal circle -> segment.
    """
    pc, r, d, p1, p2 = _f(pc), _f(r), _f(d), _f(p1), _f(p2)
    n = pc.shape[0]
    _W.begin(n)
    ux, uy, length = _segment_frame(p1, p2)
    wx = _sub(pc[:, 0], p1[:, 0])
    wy = _sub(pc[:, 1], p1[:, 1])
    # local frame centred on the segment: x along u, y along the left perpendicular (-uy, ux)
    half = _mul(length, 0.5)
    qx = _dot(wx, wy, ux, uy)
    qx -= half
    qy = _cross(ux, uy, wx, wy)
    dx = _dot(d[:, 0], d[:, 1], ux, uy)
    dy = _cross(ux, uy, d[:, 0], d[:, 1])
    zero = _W.f()
    zero[...] = 0.0
    t, lx, ly = _toi_round_box(qx, qy, dx, dy, half, zero, _col(r, 0, n), tol, True)
    wx = _mul(lx, ux)
    wx -= _mul(ly, uy)
    wy = _mul(lx, uy)
    wy += _mul(ly, ux)
    return t, _vec2(wx, wy)
