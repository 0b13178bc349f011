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
  sliding along); ``normal`` is the unit contact normal at ``t``. A circle centre exactly on a
  segment takes the segment normal facing its move (as the scalar ``toi_circle_segment``).

Conventions (the scalar functions in ``ecsphys.geometry`` follow the same ones):
- positions are absolute shape centres (body position + shape offset already added);
- ``point`` is the midpoint of the two deepest points (each shape's point furthest inside the
  other along the normal), so it lies in both shapes when they overlap;
- ties are broken deterministically, as in the scalar functions: coincident centres give the
  normal ``(1, 0)``; a circle centre inside a rect leaves through the nearest face (order right,
  left, top, bottom on ties: normal ``(-1, 0)`` for a centred circle); rect-rect separates
  along the axis of least overlap (``x`` on ties), towards b (``+`` if the centres agree); a
  circle centre on a segment gets the segment's right perpendicular ``(uy, -ux)`` (``u`` the
  unit direction p1 -> p2, ``(1, 0)`` if p1 == p2);
- entries where ``hit`` is False or ``t`` is inf hold finite, otherwise meaningless, values.
Exactly-touching pairs are decided by float arithmetic: within ~1e-12 of touching the hit mask
may differ from another formula's; pass ``tol`` to count near-touching pairs as touching.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .contact import TOUCH_TOLERANCE

__all__ = [
    "circle_circle",
    "circle_rect",
    "circle_segment",
    "rect_rect",
    "toi_circle_circle",
    "toi_circle_rect",
    "toi_circle_segment",
]

F = NDArray[np.float64]
StaticResult = tuple[NDArray[np.bool_], F, F, F]
TOIResult = tuple[F, F]

# Speed notes (100k pairs): np.where and boolean-mask assignment cost ~0.4 ms each on random
# masks (branch mispredictions) and np.hypot ~1.6 ms, against ~0.03 ms for an add. So masks
# become 0/1 floats and choices are exact blends ``a * m + b * (1 - m)`` (a, b finite),
# lengths are ``sqrt(x*x + y*y)``, and "no impact" is added as ``inf`` through a lookup.
_INF_UNLESS = np.array([np.inf, 0.0])  # indexed by a bool mask viewed as uint8
_TINY_MOVE = 1e-150  # slab test: a move component below this is treated as zero


def _f(a: ArrayLike) -> F:
    return np.asarray(a, dtype=np.float64)


def _m(mask: NDArray[np.bool_]) -> F:
    """A bool mask as 0.0 / 1.0."""
    return mask.astype(np.float64)


def _pick(m: F, a: F | float, b: F | float) -> F:
    """Exact ``where(m, a, b)`` for a 0/1 float mask and finite a, b (branch free)."""
    return a * m + b * (1.0 - m)


def _sign_neg(mask: NDArray[np.bool_]) -> F:
    """``-1.0`` where mask, else ``1.0``."""
    out = _m(mask)
    out *= -2.0
    out += 1.0
    return out


def _vec2(x: F, y: F) -> F:
    """Stack two columns into a fresh ``(n, 2)`` array."""
    out = np.empty((x.shape[0], 2))
    out[:, 0] = x
    out[:, 1] = y
    return out


def _norm(x: F, y: F) -> F:
    out = x * x
    out += y * y
    return np.sqrt(out, out=out)


def _unit(x: F, y: F) -> tuple[F, F, NDArray[np.bool_], F]:
    """``(ux, uy, zero, length)``: ``(x, y)`` normalised; ``(1, 0)`` where it is zero."""
    length = _norm(x, y)
    zero = length == 0.0
    zf = _m(zero)
    safe = length + zf
    ux = x / safe
    ux += zf
    uy = y / safe
    return ux, uy, zero, length


def _midpoint(c: F, nx: F, ny: F, r: F, depth: F) -> F:
    """``c + n * (r - depth / 2)``: midpoint of the deepest points of a circle (c, r) and b."""
    s = depth * -0.5
    s += r
    out = np.empty((nx.shape[0], 2))
    np.multiply(nx, s, out=out[:, 0])
    np.multiply(ny, s, out=out[:, 1])
    out += c
    return out


def _box_contact(qx: F, qy: F, hx: F, hy: F) -> tuple[F, F, F]:
    """Point (qx, qy) against the box ``|x| <= hx, |y| <= hy`` (centred at the origin).

    Returns ``(nx, ny, sep)``: unit normal from the point towards the box and the signed
    separation (distance outside, minus the depth of least penetration inside).
    """
    vx = np.minimum(np.maximum(qx, -hx), hx)
    vx -= qx
    vy = np.minimum(np.maximum(qy, -hy), hy)
    vy -= qy
    nx, ny, inside, dist = _unit(vx, vy)
    if inside.any():  # leave through the nearest face: right, left, top, bottom on ties
        px = hx - np.abs(qx)
        py = hy - np.abs(qy)
        ux = _m(px <= py)
        inf = _m(inside)
        nx = _pick(inf, _sign_neg(qx >= 0.0) * ux, nx)
        ny = _pick(inf, _sign_neg(qy >= 0.0) * (1.0 - ux), ny)
        dist = _pick(inf, -np.minimum(px, py), dist)
    return nx, ny, dist


# --------------------------------------------------------------------------- static contacts


def circle_circle(
    pa: ArrayLike, ra: ArrayLike, pb: ArrayLike, rb: ArrayLike, tol: float = 0.0
) -> StaticResult:
    """Contacts of circles (pa, ra) with circles (pb, rb).

    ``depth = ra + rb - |pb - pa|``; normal ``(pb - pa) / |pb - pa|``, ``(1, 0)`` if coincident.
    """
    pa, pb, ra, rb = _f(pa), _f(pb), _f(ra), _f(rb)
    nx, ny, _, dist = _unit(pb[:, 0] - pa[:, 0], pb[:, 1] - pa[:, 1])
    depth = ra + rb - dist
    return depth >= -tol, _vec2(nx, ny), depth, _midpoint(pa, nx, ny, ra, depth)


def circle_rect(
    pc: ArrayLike, r: ArrayLike, pr: ArrayLike, half: ArrayLike, tol: float = 0.0
) -> StaticResult:
    """Contacts of circles (pc, r) with axis-aligned rects centred at pr, half extents half.

    Normal from circle to rect. A circle centre inside (or on) the rect is pushed out along the
    axis of least penetration: ``depth = r + that penetration``.
    """
    pc, pr, r, half = _f(pc), _f(pr), _f(r), _f(half)
    nx, ny, sep = _box_contact(pc[:, 0] - pr[:, 0], pc[:, 1] - pr[:, 1], half[:, 0], half[:, 1])
    depth = r - sep
    return depth >= -tol, _vec2(nx, ny), depth, _midpoint(pc, nx, ny, r, depth)


def rect_rect(
    pa: ArrayLike, ha: ArrayLike, pb: ArrayLike, hb: ArrayLike, tol: float = 0.0
) -> StaticResult:
    """Contacts of AABBs (centre pa, half extents ha) with AABBs (pb, hb).

    Normal along the axis of least overlap (``x`` on ties), towards b (``+`` if the centres
    agree on that axis); ``depth`` is that overlap; ``point``: along the normal, the midpoint
    of the deepest points; across it, the middle of the overlap.
    """
    pa, pb, ha, hb = _f(pa), _f(pb), _f(ha), _f(hb)
    dx = pb[:, 0] - pa[:, 0]
    dy = pb[:, 1] - pa[:, 1]
    ox = ha[:, 0] + hb[:, 0] - np.abs(dx)
    oy = ha[:, 1] + hb[:, 1] - np.abs(dy)
    use_x = _m(ox <= oy)
    sx = _sign_neg(dx < 0.0)
    sy = _sign_neg(dy < 0.0)
    normal = _vec2(sx * use_x, sy * (1.0 - use_x))
    depth = np.minimum(ox, oy)
    point = np.maximum(pa - ha, pb - hb)  # middle of the overlap on both axes ...
    point += np.minimum(pa + ha, pb + hb)
    point *= 0.5
    # ... replaced along the normal by the midpoint of the deepest points
    deep_x = pa[:, 0] + sx * (ha[:, 0] - 0.5 * ox)
    deep_y = pa[:, 1] + sy * (ha[:, 1] - 0.5 * oy)
    point[:, 0] = _pick(use_x, deep_x, point[:, 0])
    point[:, 1] = _pick(use_x, point[:, 1], deep_y)
    return depth >= -tol, normal, depth, point


def _segment_frame(p1: F, p2: F) -> tuple[F, F, F]:
    """``(ux, uy, length)`` of segments p1 -> p2; ``u = (1, 0)`` where p1 == p2."""
    ux, uy, _, length = _unit(p2[:, 0] - p1[:, 0], p2[:, 1] - p1[:, 1])
    return ux, uy, length


def circle_segment(
    pc: ArrayLike, r: ArrayLike, p1: ArrayLike, p2: ArrayLike, tol: float = 0.0
) -> StaticResult:
    """Contacts of circles (pc, r) with segments p1-p2; normal from circle to segment.

    ``depth = r - distance(centre, segment)``; a centre on the segment gets the segment's right
    perpendicular ``(uy, -ux)`` as normal.
    """
    pc, r, p1, p2 = _f(pc), _f(r), _f(p1), _f(p2)
    ux, uy, length = _segment_frame(p1, p2)
    wx = pc[:, 0] - p1[:, 0]
    wy = pc[:, 1] - p1[:, 1]
    along = wx * ux + wy * uy
    side = wy * ux - wx * uy  # signed distance along the left perpendicular (-uy, ux)
    # beside the segment: exactly perpendicular normal (no rounding noise near the segment)
    flip = _sign_neg(side < 0.0)
    nx = uy * flip
    ny = ux * flip
    ny *= -1.0
    dist = np.abs(side)
    before = along <= 0.0
    end = before | (along >= length)
    if end.any():  # nearest to an end point: p1 if along <= 0, else p2
        s = length * (1.0 - _m(before))
        ex, ey, zero, edist = _unit(ux * s - wx, uy * s - wy)
        zf = _m(zero)
        ef = _m(end)
        nx = _pick(ef, _pick(zf, uy, ex), nx)
        ny = _pick(ef, _pick(zf, -ux, ey), ny)
        dist = _pick(ef, edist, dist)
    depth = r - dist
    return depth >= -tol, _vec2(nx, ny), depth, _midpoint(pc, nx, ny, r, depth)


# --------------------------------------------------------------------------- time of impact


def _first_root(px: F, py: F, dx: F, dy: F, rr: F) -> tuple[F, NDArray[np.bool_]]:
    """First t >= 0 with ``|p + t d| = rr`` for a point starting outside; ``(t, found)``.

    ``t = c / (-b + sqrt(b^2 - a c))`` (half-b form, no cancellation); clamped to >= 0.
    """
    a = dx * dx + dy * dy
    hb = px * dx + py * dy
    c = px * px + py * py - rr * rr
    disc = hb * hb - a * c
    found = (hb < 0.0) & (disc >= 0.0)
    den = np.sqrt(np.maximum(disc, 0.0))
    den -= hb
    ff = _m(found)
    den *= ff
    den += 1.0 - ff
    c /= den
    return np.maximum(c, 0.0, out=c), found


def _no_impact_to_inf(t: F, hit: NDArray[np.bool_]) -> F:
    """``t`` where hit, ``inf`` elsewhere (in place; t finite)."""
    t += _INF_UNLESS[hit.view(np.uint8)]
    return t


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
    Already overlapping or touching: ``t = 0`` if the relative move approaches, else inf.
    """
    pa, pb, ra, rb, da, db = _f(pa), _f(pb), _f(ra), _f(rb), _f(da), _f(db)
    px = pa[:, 0] - pb[:, 0]
    py = pa[:, 1] - pb[:, 1]
    dx = da[:, 0] - db[:, 0]
    dy = da[:, 1] - db[:, 1]
    rr = ra + rb
    t, found = _first_root(px, py, dx, dy, rr)
    overlap = _norm(px, py) <= rr + tol
    approach = px * dx + py * dy < 0.0
    hit = (overlap & approach) | (~overlap & found & (t <= 1.0))
    t *= _m(hit & ~overlap)  # 0 for overlaps and misses
    nx, ny, _, _ = _unit(-(px + t * dx), -(py + t * dy))
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
        on = _m(sep <= 0.0)
        n0x = n0x * (1.0 - on)
        n0y = _pick(on, _sign_neg(dy <= 0.0), n0y)
    overlap = sep <= r + tol
    approach = dx * n0x + dy * n0y > 0.0
    big = 1e300
    near = []
    far = []
    for q, d, h in ((qx, dx, hx), (qy, dy, hy)):  # slab entry / exit times per axis
        sf = _m(np.abs(d) < _TINY_MOVE)  # still along this axis: in the slab for all t, or never
        hr = h + r
        sd = d * (1.0 - sf) + sf
        t1 = (-hr - q) / sd
        t2 = hr - q
        t2 /= sd
        lo = np.minimum(t1, t2)
        hi = np.maximum(t1, t2, out=t2)
        out = _sign_neg(np.abs(q) <= hr) * big  # still: -big inside the slab, +big outside
        near.append(_pick(sf, out, lo))
        far.append(_pick(sf, big, hi))
    t_in = np.maximum(near[0], near[1])
    t_out = np.minimum(far[0], far[1])
    slab = (t_in <= t_out) & (t_out >= 0.0) & (t_in <= 1.0) & ~overlap
    te = np.maximum(t_in, 0.0)
    te *= _m(slab)
    ex = qx + te * dx
    ey = qy + te * dy
    face_x = np.abs(ey) <= hy  # entered through a left / right side
    face_y = ~face_x & (np.abs(ex) <= hx)
    corner = slab & ~face_x & ~face_y
    sx = _sign_neg(ex > 0.0)
    sy = _sign_neg(ey > 0.0)
    nx = sx * _m(face_x)
    ny = sy * _m(face_y)
    t = te
    if corner.any():
        cx = hx * sx
        cx *= -1.0
        cy = hy * sy
        cy *= -1.0
        tc, found = _first_root(qx - cx, qy - cy, dx, dy, r)
        corner &= found & (tc <= 1.0)
        cf = _m(corner)
        tc *= cf
        cnx, cny, _, _ = _unit(cx - (qx + tc * dx), cy - (qy + tc * dy))
        t = _pick(cf, tc, t)
        nx = _pick(cf, cnx, nx)
        ny = _pick(cf, cny, ny)
    hit = (slab & (face_x | face_y)) | corner | (overlap & approach)
    of = _m(overlap)
    nx = _pick(of, n0x, nx)
    ny = _pick(of, n0y, ny)
    t *= 1.0 - of
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
    qx = pc[:, 0] - pr[:, 0]
    qy = pc[:, 1] - pr[:, 1]
    r = np.broadcast_to(r, qx.shape)
    t, nx, ny = _toi_round_box(qx, qy, d[:, 0], d[:, 1], half[:, 0], half[:, 1], r, tol)
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
    ux, uy, length = _segment_frame(p1, p2)
    wx = pc[:, 0] - p1[:, 0]
    wy = pc[:, 1] - p1[:, 1]
    # local frame centred on the segment: x along u, y along the left perpendicular (-uy, ux)
    half = 0.5 * length
    qx = wx * ux + wy * uy - half
    qy = wy * ux - wx * uy
    dx = d[:, 0] * ux + d[:, 1] * uy
    dy = d[:, 1] * ux - d[:, 0] * uy
    r = np.broadcast_to(r, qx.shape)
    t, lx, ly = _toi_round_box(qx, qy, dx, dy, half, np.zeros_like(half), r, tol, True)
    return t, _vec2(lx * ux - ly * uy, lx * uy + ly * ux)
