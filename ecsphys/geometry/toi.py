"""Shapes in motion: the first time two moving shapes touch (time of impact).

Guarantees:
- ``time_of_impact(a, pos_a, move_a, b, pos_b, move_b)`` returns the first ``t`` in
  ``[0, 1]`` at which ``a`` moved by ``move_a * t`` touches ``b`` moved by ``move_b * t``,
  with the Contact at that time (normal from ``a`` to ``b``, depth about 0), or ``None``.
  Only the relative motion ``move_a - move_b`` matters (the seed's "subtract the movement
  of one object from both").
- Nothing tunnels: circle pairs are solved exactly; rectangle pairs by the slab method
  (``toi_rect_rect``: the first time within ``REACH``); every other pair uses the binary
  impact search (``impact_search.py``) whose leaves test the exact swept hull, so a thin
  segment crossing a thin wall is never a miss. The time found is never after the true first
  touch and at most about ``TOUCH_TOLERANCE`` (in distance) before it: a tolerance in
  distance, so in ``t`` it is about ``TOUCH_TOLERANCE / |relative move|``.
- Already touching at ``t = 0`` (``contact`` is not None): the answer is ``(0, contact)``
  if the relative motion points into the contact (``dot(move_a - move_b, normal) > 0``),
  else ``None`` - touching shapes that separate or slide along each other do not impact.
  Where the contact normal is a convention, the rule is: circles with coincident centres
  (within ``ON_TOLERANCE``) separate under every move (``None``); a circle centre on a
  segment (within ``ON_TOLERANCE``) approaches under every move that is not parallel to the
  segment, with the segment's perpendicular facing the move as normal. The vectorised
  kernels follow the same rules.

Analytic pieces, also public with plain-number arguments (returning ``(t, normal)``):
``toi_circle_circle`` (one circle shrunk to its centre's path, the other grown by both radii),
``toi_circle_segment`` (the segment grown by the radius: a capsule, two sides and two end
circles), ``toi_circle_rect`` (the box grown by the radius: a rounded rectangle).
"""

from __future__ import annotations

import math
from typing import Any

from ..shapes import Circle, Compound, Rect, Segment
from .contact import ON_TOLERANCE, PARALLEL_TOLERANCE, TOUCH_TOLERANCE, Contact
from .dispatch import contact_tol
from .impact_search import REACH

Vec = tuple[float, float]
Hit = tuple[float, Vec]


def _ray_circle(px: float, py: float, dx: float, dy: float, radius: float) -> float | None:
    """First ``t >= 0`` at which point ``p + d t`` reaches distance ``radius`` from the origin,
    for a point that starts outside; ``None`` if never."""
    a = dx * dx + dy * dy
    b = px * dx + py * dy
    if a == 0.0 or b >= 0.0:
        return None
    c = px * px + py * py - radius * radius
    disc = b * b - a * c
    if disc < 0.0:
        return None
    return c / (-b + math.sqrt(disc))


def _touching(dist: float, r: float) -> bool:
    return dist <= r + TOUCH_TOLERANCE


def toi_circle_circle(
    center_a: Vec,
    radius_a: float,
    move_a: Vec,
    center_b: Vec,
    radius_b: float,
    move_b: Vec = (0.0, 0.0),
) -> Hit | None:
    """First time in ``[0, 1]`` two moving circles touch, and the unit normal from ``a`` to
    ``b`` then; ``None`` if they do not (or touch at the start but are not approaching)."""
    px, py = center_a[0] - center_b[0], center_a[1] - center_b[1]
    dx, dy = move_a[0] - move_b[0], move_a[1] - move_b[1]
    rs = radius_a + radius_b
    dist = math.hypot(px, py)
    if _touching(dist, rs):
        if dist > ON_TOLERANCE and px * dx + py * dy < 0.0:
            return (0.0, (-px / dist, -py / dist))
        return None  # separating, sliding, or coincident centres (every move separates)
    t = _ray_circle(px, py, dx, dy, rs)
    if t is None or t > 1.0:
        return None
    qx, qy = px + dx * t, py + dy * t
    q = math.hypot(qx, qy)
    return (t, (-qx / q, -qy / q))


def toi_circle_segment(
    center: Vec,
    radius: float,
    move: Vec,
    p1: Vec,
    p2: Vec,
    move_b: Vec = (0.0, 0.0),
) -> Hit | None:
    """First time in ``[0, 1]`` a moving circle touches the segment ``p1``-``p2`` (which may
    move by ``move_b``), and the unit normal from the circle to the segment then."""
    cx, cy = center
    dx, dy = move[0] - move_b[0], move[1] - move_b[1]
    x1, y1 = p1
    x2, y2 = p2
    ex, ey = x2 - x1, y2 - y1
    length = math.hypot(ex, ey)
    # initial touch
    ee = length * length
    u = ((cx - x1) * ex + (cy - y1) * ey) / ee if ee > 0.0 else 0.0
    u = 0.0 if u < 0.0 else (1.0 if u > 1.0 else u)
    qx, qy = x1 + ex * u - cx, y1 + ey * u - cy
    dist = math.hypot(qx, qy)
    if _touching(dist, radius):
        if length > 0.0 and dist <= ON_TOLERANCE:
            # centre on the segment: the perpendicular facing the move; every move across the
            # segment approaches it, a move along it (within PARALLEL_TOLERANCE) slides
            cross = ex * dy - ey * dx
            if abs(cross) <= PARALLEL_TOLERANCE * length * math.hypot(dx, dy):
                return None
            nx, ny = ey / length, -ex / length
            return (0.0, (nx, ny) if cross < 0.0 else (-nx, -ny))
        if dist == 0.0:
            return None  # a point segment under the centre: like coincident circles
        nx, ny = qx / dist, qy / dist
        return (0.0, (nx, ny)) if nx * dx + ny * dy > 0.0 else None
    best: Hit | None = None
    if length > 0.0:
        ux, uy = ex / length, ey / length
        nx, ny = uy, -ux
        s0 = (cx - x1) * nx + (cy - y1) * ny
        sd = dx * nx + dy * ny
        if s0 < 0.0:
            s0, sd, nx, ny = -s0, -sd, -nx, -ny
        # now the centre is on the +n side; it must come to distance radius
        if sd < 0.0 and s0 >= radius:
            t = (s0 - radius) / -sd
            if t <= 1.0:
                along = (cx + dx * t - x1) * ux + (cy + dy * t - y1) * uy
                if 0.0 <= along <= length:
                    best = (t, (-nx, -ny))
    for vx, vy in ((x1, y1), (x2, y2)):
        t = _ray_circle(cx - vx, cy - vy, dx, dy, radius)
        if t is not None and t <= 1.0 and (best is None or t < best[0]):
            hx, hy = vx - (cx + dx * t), vy - (cy + dy * t)
            h = math.hypot(hx, hy)
            best = (t, (hx / h, hy / h))
    return best


def toi_circle_rect(
    center: Vec,
    radius: float,
    move: Vec,
    rect_center: Vec,
    half_extents: Vec,
    move_b: Vec = (0.0, 0.0),
) -> Hit | None:
    """First time in ``[0, 1]`` a moving circle touches an axis-aligned rectangle (centre
    ``rect_center``, ``half_extents``, moving by ``move_b``), and the unit normal from the
    circle to the rectangle then. The rectangle grown by the radius is a rounded rectangle:
    the centre's path is clipped against the grown box, and a corner entry is resolved
    against that corner's circle."""
    lx, ly = center[0] - rect_center[0], center[1] - rect_center[1]
    dx, dy = move[0] - move_b[0], move[1] - move_b[1]
    hw, hh = half_extents
    r = radius
    # initial touch: closest point of the box
    qx = hw if lx > hw else (-hw if lx < -hw else lx)
    qy = hh if ly > hh else (-hh if ly < -hh else ly)
    gx, gy = qx - lx, qy - ly
    dist = math.hypot(gx, gy)
    if _touching(dist, r):
        if dist > 0.0:
            nx, ny = gx / dist, gy / dist
        else:
            m = min(hw - lx, lx + hw, hh - ly, ly + hh)
            nx, ny = (
                (-1.0, 0.0)
                if m == hw - lx
                else (1.0, 0.0)
                if m == lx + hw
                else (0.0, -1.0)
                if m == hh - ly
                else (0.0, 1.0)
            )
        return (0.0, (nx, ny)) if nx * dx + ny * dy > 0.0 else None
    # slab clip of the path against the box grown by r
    ex, ey = hw + r, hh + r
    t_in, t_out = -math.inf, math.inf
    normal = (0.0, 0.0)
    for p, d, e, axis in ((lx, dx, ex, 0), (ly, dy, ey, 1)):
        if d == 0.0:
            if abs(p) > e:
                return None
            continue
        ta, tb = (-e - p) / d, (e - p) / d
        if ta > tb:
            ta, tb = tb, ta
        if ta > t_in:
            t_in = ta
            s = 1.0 if d > 0.0 else -1.0
            normal = (s, 0.0) if axis == 0 else (0.0, s)
        t_out = min(t_out, tb)
    if t_in > t_out or t_out < 0.0 or t_in > 1.0:
        return None
    t = max(t_in, 0.0)
    hx, hy = lx + dx * t, ly + dy * t
    if abs(hx) > hw and abs(hy) > hh:  # corner region: only that corner's circle can be hit
        kx, ky = math.copysign(hw, hx), math.copysign(hh, hy)
        tc = _ray_circle(lx - kx, ly - ky, dx, dy, r)
        if tc is None or tc > 1.0:
            return None
        cx, cy = kx - (lx + dx * tc), ky - (ly + dy * tc)
        c = math.hypot(cx, cy)
        return (tc, (cx / c, cy / c))
    return (t, normal)


# --- any pair -------------------------------------------------------------------------------


def _circle_center(c: Circle, p: Vec) -> Vec:
    return (p[0] + c.offset[0], p[1] + c.offset[1])


def _circle_vs(c: Circle, pc: Vec, m: Vec, b: Any, pb: Vec) -> Hit | None:
    """Analytic time of impact of a circle moving by ``m`` against a resting primitive."""
    center = _circle_center(c, pc)
    if type(b) is Circle:
        return toi_circle_circle(center, c.radius, m, _circle_center(b, pb), b.radius)
    if type(b) is Rect:
        rc = (pb[0] + b.offset[0], pb[1] + b.offset[1])
        return toi_circle_rect(center, c.radius, m, rc, b.half_extents)
    verts = [(x + pb[0], y + pb[1]) for x, y in b._verts]
    if type(b) is Segment:
        return toi_circle_segment(center, c.radius, m, verts[0], verts[1])
    # convex polygon: the grown polygon is the union of its edges' capsules and its inside
    start = contact_tol(c, pc, b, pb, TOUCH_TOLERANCE)
    if start is not None:
        n = start.normal
        return (0.0, n) if n[0] * m[0] + n[1] * m[1] > 0.0 else None
    best: Hit | None = None
    for i in range(len(verts)):
        hit = toi_circle_segment(center, c.radius, m, verts[i - 1], verts[i])
        if hit is not None and (best is None or hit[0] < best[0]):
            best = hit
    return best


def toi_rect_rect(
    center_a: Vec,
    half_a: Vec,
    move_a: Vec,
    center_b: Vec,
    half_b: Vec,
    move_b: Vec = (0.0, 0.0),
) -> float | None:
    """First time in ``[0, 1]`` two moving axis-aligned rectangles (centres, half extents)
    come within ``REACH`` of each other, or ``None``: the slab method on their Minkowski sum,
    the box of half extents ``half_a + half_b + REACH`` that ``a``'s centre path enters. The
    same time the binary impact search approximates, exactly. Rectangles within
    ``TOUCH_TOLERANCE`` already at the start are not handled here (``None`` or ``0.0``
    unchecked): see ``time_of_impact`` for the rule at ``t = 0``."""
    t_in, t_out = 0.0, 1.0
    for i in (0, 1):
        p = center_a[i] - center_b[i]
        d = move_a[i] - move_b[i]
        e = half_a[i] + half_b[i] + REACH
        if d == 0.0:
            if abs(p) > e:
                return None
            continue
        ta, tb = (-e - p) / d, (e - p) / d
        if ta > tb:
            ta, tb = tb, ta
        t_in = ta if ta > t_in else t_in
        t_out = tb if tb < t_out else t_out
        if t_in > t_out:
            return None
    return t_in


def _rect_rect_toi(a: Rect, pa: Vec, m: Vec, b: Rect, pb: Vec) -> tuple[float, Contact] | None:
    start = contact_tol(a, pa, b, pb, TOUCH_TOLERANCE)
    if start is not None:
        n = start.normal
        return (0.0, start) if n[0] * m[0] + n[1] * m[1] > 0.0 else None
    ca = (pa[0] + a.offset[0], pa[1] + a.offset[1])
    cb = (pb[0] + b.offset[0], pb[1] + b.offset[1])
    t = toi_rect_rect(ca, a.half_extents, m, cb, b.half_extents)
    if t is None:
        return None
    c = contact_tol(a, (pa[0] + m[0] * t, pa[1] + m[1] * t), b, pb, 2 * TOUCH_TOLERANCE)
    return None if c is None else (t, c)


def _primitive_toi(a: Any, pa: Vec, m: Vec, b: Any, pb: Vec) -> tuple[float, Contact] | None:
    """Time of impact of primitive ``a`` moving by ``m`` against resting primitive ``b``;
    the contact is at ``a``'s position at that time."""
    from .impact_search import convex_time_of_impact

    if type(a) is Circle:
        hit = _circle_vs(a, pa, m, b, pb)
        if hit is None:
            return None
        t, n = hit
        pt = (pa[0] + m[0] * t, pa[1] + m[1] * t)
        cx, cy = _circle_center(a, pt)
        if t == 0.0:
            c0 = contact_tol(a, pt, b, pb, 2 * TOUCH_TOLERANCE)
            if c0 is not None:
                if c0.normal[0] * m[0] + c0.normal[1] * m[1] > 0.0:
                    return (0.0, c0)
                # a centre on a segment: the start convention's normal (facing the move), so
                # that the answer's normal always points into the move
                k = a.radius - c0.depth / 2
                return (0.0, Contact(n, c0.depth, (cx + n[0] * k, cy + n[1] * k)))
        return (t, Contact(n, 0.0, (cx + n[0] * a.radius, cy + n[1] * a.radius)))
    if type(b) is Circle:
        hit2 = _primitive_toi(b, pb, (-m[0], -m[1]), a, pa)
        if hit2 is None:
            return None
        t, c = hit2
        # b moved by -m*t, i.e. the same relative placement as a moved by +m*t
        shift = (m[0] * t, m[1] * t)
        p = (c.point[0] + shift[0], c.point[1] + shift[1])
        return (t, Contact((-c.normal[0], -c.normal[1]), c.depth, p))
    if type(a) is Rect and type(b) is Rect:
        return _rect_rect_toi(a, pa, m, b, pb)
    return convex_time_of_impact(a, pa, m, b, pb)


def _swept_box(s: Any, p: Vec, m: Vec) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = s.bounds()
    return (
        p[0] + x0 + min(m[0], 0.0),
        p[1] + y0 + min(m[1], 0.0),
        p[0] + x1 + max(m[0], 0.0),
        p[1] + y1 + max(m[1], 0.0),
    )


def _boxes_meet(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    tol = TOUCH_TOLERANCE
    return not (b[0] > a[2] + tol or a[0] > b[2] + tol or b[1] > a[3] + tol or a[1] > b[3] + tol)


def _relative_toi(a: Any, pa: Vec, m: Vec, b: Any, pb: Vec) -> tuple[float, Contact] | None:
    """Time of impact with ``b`` at rest; contact placed where ``a`` is at that time."""
    if not _boxes_meet(_swept_box(a, pa, m), _swept_box(b, pb, (0.0, 0.0))):
        return None
    if type(a) is Compound or type(b) is Compound:
        aparts = a.parts if type(a) is Compound else ((a, 0.0, 0.0),)
        bparts = b.parts if type(b) is Compound else ((b, 0.0, 0.0),)
        best: tuple[float, Contact] | None = None
        for pa_, adx, ady in aparts:
            qa = (pa[0] + adx, pa[1] + ady)
            for pb_, bdx, bdy in bparts:
                hit = _relative_toi(pa_, qa, m, pb_, (pb[0] + bdx, pb[1] + bdy))
                if hit is not None and (
                    best is None
                    or hit[0] < best[0]
                    or (hit[0] == best[0] and hit[1].depth > best[1].depth)
                ):
                    best = hit
        return best
    return _primitive_toi(a, pa, m, b, pb)


def time_of_impact(
    a: Any,
    pos_a: Vec,
    move_a: Vec,
    b: Any,
    pos_b: Vec,
    move_b: Vec = (0.0, 0.0),
) -> tuple[float, Contact] | None:
    """First ``t`` in ``[0, 1]`` at which ``a`` (moving from ``pos_a`` by ``move_a``) touches
    ``b`` (moving from ``pos_b`` by ``move_b``), and the Contact at that time (both shapes at
    their positions at ``t``), or ``None`` if they do not touch during the move.

    Shapes touching at the start give ``t = 0`` only if they approach; see the module notes.
    Raises ``TypeError`` for a pair of kinds without a test.
    """
    m = (move_a[0] - move_b[0], move_a[1] - move_b[1])
    hit = _relative_toi(a, pos_a, m, b, pos_b)
    if hit is None:
        return None
    t, c = hit
    # the contact was computed with b at rest; shift it to where b is at time t
    sx, sy = move_b[0] * t, move_b[1] * t
    return (t, Contact(c.normal, c.depth, (c.point[0] + sx, c.point[1] + sy)))
