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
  none; pairs already overlapping or touching give ``t = 0`` if the move approaches
  (``move . normal > 0``), else ``inf``; ``normal`` is the unit contact normal at ``t``.

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


def _f(a: ArrayLike) -> F:
    return np.asarray(a, dtype=np.float64)


def _vec2(x: F, y: F) -> F:
    """Stack two columns into a fresh ``(n, 2)`` array."""
    out = np.empty((x.shape[0], 2))
    out[:, 0] = x
    out[:, 1] = y
    return out


def _unit(x: F, y: F) -> tuple[F, F, NDArray[np.bool_], F]:
    """``(ux, uy, zero, length)``: ``(x, y)`` normalised; ``(1, 0)`` where it is zero."""
    length = np.hypot(x, y)
    zero = length == 0.0
    safe = np.where(zero, 1.0, length)
    ux = x / safe
    uy = y / safe
    ux[zero] = 1.0
    return ux, uy, zero, length


def _midpoint(c: F, nx: F, ny: F, r: F, depth: F) -> F:
    """``c + n * (r - depth / 2)``: midpoint of the deepest points of a circle (c, r) and b."""
    s = r - 0.5 * depth
    return _vec2(c[:, 0] + nx * s, c[:, 1] + ny * s)


def _box_contact(qx: F, qy: F, hx: F, hy: F) -> tuple[F, F, F]:
    """Point (qx, qy) against the box ``|x| <= hx, |y| <= hy`` (centred at the origin).

    Returns ``(nx, ny, sep)``: unit normal from the point towards the box and the signed
    separation (distance outside, minus the depth of least penetration inside).
    """
    vx = np.clip(qx, -hx, hx) - qx
    vy = np.clip(qy, -hy, hy) - qy
    nx, ny, inside, dist = _unit(vx, vy)
    if inside.any():
        px = hx - np.abs(qx)
        py = hy - np.abs(qy)
        use_x = px <= py
        sx = np.where(qx >= 0.0, -1.0, 1.0)
        sy = np.where(qy >= 0.0, -1.0, 1.0)
        nx = np.where(inside, np.where(use_x, sx, 0.0), nx)
        ny = np.where(inside, np.where(use_x, 0.0, sy), ny)
        dist = np.where(inside, -np.minimum(px, py), dist)
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
    use_x = ox <= oy
    sx = np.where(dx < 0.0, -1.0, 1.0)
    sy = np.where(dy < 0.0, -1.0, 1.0)
    normal = np.zeros((dx.shape[0], 2))
    normal[:, 0] = np.where(use_x, sx, 0.0)
    normal[:, 1] = np.where(use_x, 0.0, sy)
    depth = np.where(use_x, ox, oy)
    point = np.maximum(pa - ha, pb - hb)  # middle of the overlap on both axes ...
    point += np.minimum(pa + ha, pb + hb)
    point *= 0.5
    # ... replaced along the normal by the midpoint of the deepest points
    point[:, 0] = np.where(use_x, pa[:, 0] + sx * (ha[:, 0] - 0.5 * ox), point[:, 0])
    point[:, 1] = np.where(use_x, point[:, 1], pa[:, 1] + sy * (ha[:, 1] - 0.5 * oy))
    return depth >= -tol, normal, depth, point


def _segment_frame(p1: F, p2: F) -> tuple[F, F, F]:
    """``(ux, uy, length)`` of segments p1 -> p2; ``u = (1, 0)`` where p1 == p2."""
    ex = p2[:, 0] - p1[:, 0]
    ey = p2[:, 1] - p1[:, 1]
    length = np.hypot(ex, ey)
    zero = length == 0.0
    safe = np.where(zero, 1.0, length)
    ux = ex / safe
    uy = ey / safe
    ux[zero] = 1.0
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
    flip = np.where(side >= 0.0, 1.0, -1.0)
    nx = uy * flip
    ny = -ux * flip
    dist = np.abs(side)
    end = (along <= 0.0) | (along >= length)
    if end.any():  # nearest to an end point: p1 if along <= 0, else p2
        s = np.where(along <= 0.0, 0.0, length)
        ex, ey, zero, edist = _unit(ux * s - wx, uy * s - wy)
        ex = np.where(zero, uy, ex)
        ey = np.where(zero, -ux, ey)
        nx = np.where(end, ex, nx)
        ny = np.where(end, ey, ny)
        dist = np.where(end, edist, dist)
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
    den[~found] = 1.0
    t = np.maximum(c / den, 0.0)
    return t, found


def toi_circle_circle(
    pa: ArrayLike, ra: ArrayLike, da: ArrayLike, pb: ArrayLike, rb: ArrayLike, db: ArrayLike
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
    overlap = np.hypot(px, py) <= rr
    approach = px * dx + py * dy < 0.0
    t = np.where(overlap, 0.0, t)
    hit = np.where(overlap, approach, found & (t <= 1.0))
    t[~hit] = 0.0
    nx, ny, _, _ = _unit(-(px + t * dx), -(py + t * dy))
    t[~hit] = np.inf
    return t, _vec2(nx, ny)


def _toi_round_box(qx: F, qy: F, dx: F, dy: F, hx: F, hy: F, r: F) -> tuple[F, F, F]:
    """TOI of a circle (centre q, radius r, move d) with the box ``|x| <= hx, |y| <= hy``.

    Slab test against the box grown by r; an entry in a corner region is settled by that
    corner's circle (missing it misses the rounded box). Returns ``(t, nx, ny)``.
    """
    n0x, n0y, sep = _box_contact(qx, qy, hx, hy)
    overlap = sep <= r
    approach = dx * n0x + dy * n0y > 0.0
    near = []
    far = []
    for q, d, h in ((qx, dx, hx), (qy, dy, hy)):  # slab entry / exit times per axis
        still = d == 0.0
        sd = np.where(still, 1.0, d)
        with np.errstate(over="ignore"):  # tiny moves: +-inf, which is right
            t1 = (-(h + r) - q) / sd
            t2 = (h + r - q) / sd
        inslab = np.abs(q) <= h + r
        near.append(np.where(still, np.where(inslab, -np.inf, np.inf), np.minimum(t1, t2)))
        far.append(np.where(still, np.inf, np.maximum(t1, t2)))
    t_in = np.maximum(near[0], near[1])
    t_out = np.minimum(far[0], far[1])
    slab = (t_in <= t_out) & (t_out >= 0.0) & (t_in <= 1.0) & ~overlap
    te = np.where(slab, np.maximum(t_in, 0.0), 0.0)
    ex = qx + te * dx
    ey = qy + te * dy
    face_x = np.abs(ey) <= hy  # entered through a left / right side
    face_y = ~face_x & (np.abs(ex) <= hx)
    corner = slab & ~face_x & ~face_y
    # faces
    nx = np.where(face_x, np.where(ex > 0.0, -1.0, 1.0), 0.0)
    ny = np.where(face_y, np.where(ey > 0.0, -1.0, 1.0), 0.0)
    t = te
    if corner.any():
        cx = np.where(ex > 0.0, hx, -hx)
        cy = np.where(ey > 0.0, hy, -hy)
        tc, found = _first_root(qx - cx, qy - cy, dx, dy, r)
        corner &= found & (tc <= 1.0)
        tc = np.where(corner, tc, 0.0)
        cnx, cny, _, _ = _unit(cx - (qx + tc * dx), cy - (qy + tc * dy))
        t = np.where(corner, tc, t)
        nx = np.where(corner, cnx, nx)
        ny = np.where(corner, cny, ny)
    hit = (slab & (face_x | face_y)) | corner | (overlap & approach)
    nx = np.where(overlap, n0x, nx)
    ny = np.where(overlap, n0y, ny)
    t = np.where(overlap, 0.0, t)
    t[~hit] = np.inf
    return t, nx, ny


def toi_circle_rect(
    pc: ArrayLike, r: ArrayLike, d: ArrayLike, pr: ArrayLike, half: ArrayLike
) -> TOIResult:
    """Time of impact of circles (pc, r) moving by d with static AABBs (centre pr, half).

    Exact against the rounded rect (4 sides offset by r, 4 corner circles). For a moving rect
    pass the relative move ``d_circle - d_rect``. Normal from circle to rect at impact.
    """
    pc, r, d, pr, half = _f(pc), _f(r), _f(d), _f(pr), _f(half)
    t, nx, ny = _toi_round_box(
        pc[:, 0] - pr[:, 0],
        pc[:, 1] - pr[:, 1],
        d[:, 0],
        d[:, 1],
        half[:, 0],
        half[:, 1],
        np.broadcast_to(r, (pc.shape[0],)),
    )
    return t, _vec2(nx, ny)


def toi_circle_segment(
    pc: ArrayLike, r: ArrayLike, d: ArrayLike, p1: ArrayLike, p2: ArrayLike
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
    t, lx, ly = _toi_round_box(
        qx, qy, dx, dy, half, np.zeros_like(length), np.broadcast_to(r, length.shape)
    )
    return t, _vec2(lx * ux - ly * uy, lx * uy + ly * ux)
