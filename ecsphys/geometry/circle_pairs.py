"""Exact tests of a circle against a circle, a rectangle, a segment and a convex polygon.

Guarantees: each ``*_contact(a, pos_a, b, pos_b, tol)`` returns a Contact with the unit normal
from the circle ``a`` to ``b``, the exact penetration depth (``>= -tol``: shapes at most
``tol`` apart count as touching) and a point halfway through the overlap, or ``None``; each
``*_overlaps`` answers the same question without a square root. Closest-feature method: the
circle touches a convex shape when its centre is within ``radius`` of the shape.
"""

from __future__ import annotations

import math

from ..shapes import Circle, Rect, Segment, Shape
from .contact import TOUCH_TOLERANCE, Contact

Vec = tuple[float, float]


def _unit(x: float, y: float) -> tuple[float, float, float]:
    """``(ux, uy, length)`` of a nonzero vector; exact for tiny ones too (``sqrt(x*x + y*y)``
    loses precision once the squares are denormal: a vector ``3e-161`` long came out 0.1%
    off unit length)."""
    s = abs(x) if abs(x) > abs(y) else abs(y)
    x, y = x / s, y / s
    h = math.hypot(x, y)
    return x / h, y / h, h * s


def _circle_result(cx: float, cy: float, r: float, nx: float, ny: float, depth: float) -> Contact:
    k = r - depth / 2
    return Contact((nx, ny), depth, (cx + nx * k, cy + ny * k))


# --- circle vs circle -----------------------------------------------------------------------


def circle_circle_contact(a: Circle, pa: Vec, b: Circle, pb: Vec, tol: float) -> Contact | None:
    """Contact of two circles; coincident centres get the normal ``(1, 0)``."""
    ax, ay = pa[0] + a.offset[0], pa[1] + a.offset[1]
    dx, dy = pb[0] + b.offset[0] - ax, pb[1] + b.offset[1] - ay
    rs = a.radius + b.radius
    d2 = dx * dx + dy * dy
    lim = rs + tol
    if d2 > lim * lim:
        return None
    if dx != 0.0 or dy != 0.0:
        nx, ny, d = _unit(dx, dy)
    else:
        nx, ny, d = 1.0, 0.0, 0.0
    return _circle_result(ax, ay, a.radius, nx, ny, rs - d)


def circle_circle_overlaps(a: Circle, pa: Vec, b: Circle, pb: Vec) -> bool:
    """True if two circles overlap or touch."""
    dx = pb[0] + b.offset[0] - pa[0] - a.offset[0]
    dy = pb[1] + b.offset[1] - pa[1] - a.offset[1]
    lim = a.radius + b.radius + TOUCH_TOLERANCE
    return dx * dx + dy * dy <= lim * lim


# --- circle vs axis-aligned rectangle -------------------------------------------------------


def circle_rect_contact(a: Circle, pa: Vec, b: Rect, pb: Vec, tol: float) -> Contact | None:
    """Contact of a circle with an axis-aligned rectangle (clamp to the box)."""
    cx, cy = pa[0] + a.offset[0], pa[1] + a.offset[1]
    lx, ly = cx - pb[0] - b.offset[0], cy - pb[1] - b.offset[1]
    hw, hh = b.width / 2, b.height / 2
    r = a.radius
    qx = hw if lx > hw else (-hw if lx < -hw else lx)
    qy = hh if ly > hh else (-hh if ly < -hh else ly)
    dx, dy = qx - lx, qy - ly
    if dx != 0.0 or dy != 0.0:
        d2 = dx * dx + dy * dy
        lim = r + tol
        if d2 > lim * lim:
            return None
        nx, ny, d = _unit(dx, dy)
        return _circle_result(cx, cy, r, nx, ny, r - d)
    # centre inside (or on) the box: leave through the nearest face
    right, left, top, bottom = hw - lx, lx + hw, hh - ly, ly + hh
    m = min(right, left, top, bottom)
    if m == right:
        nx, ny = -1.0, 0.0
    elif m == left:
        nx, ny = 1.0, 0.0
    elif m == top:
        nx, ny = 0.0, -1.0
    else:
        nx, ny = 0.0, 1.0
    return _circle_result(cx, cy, r, nx, ny, r + m)


def circle_rect_overlaps(a: Circle, pa: Vec, b: Rect, pb: Vec) -> bool:
    """True if a circle and an axis-aligned rectangle overlap or touch."""
    lx = abs(pa[0] + a.offset[0] - pb[0] - b.offset[0]) - b.width / 2
    ly = abs(pa[1] + a.offset[1] - pb[1] - b.offset[1]) - b.height / 2
    lx = lx if lx > 0.0 else 0.0
    ly = ly if ly > 0.0 else 0.0
    lim = a.radius + TOUCH_TOLERANCE
    return lx * lx + ly * ly <= lim * lim


# --- circle vs segment ----------------------------------------------------------------------


def closest_on_segment(
    px: float, py: float, x1: float, y1: float, x2: float, y2: float
) -> tuple[float, float]:
    """The point of segment ``(x1, y1)-(x2, y2)`` closest to ``(px, py)``."""
    ex, ey = x2 - x1, y2 - y1
    ee = ex * ex + ey * ey
    t = ((px - x1) * ex + (py - y1) * ey) / ee if ee > 0.0 else 0.0
    t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
    return (x1 + ex * t, y1 + ey * t)


def circle_segment_contact(a: Circle, pa: Vec, b: Segment, pb: Vec, tol: float) -> Contact | None:
    """Contact of a circle with a segment. Across the segment's middle the normal is the
    segment's normal (a centre on the segment gets its first normal); past an end, the
    direction to that end."""
    cx, cy = pa[0] + a.offset[0], pa[1] + a.offset[1]
    (x1, y1), (x2, y2) = b._verts
    x1, y1, x2, y2 = x1 + pb[0], y1 + pb[1], x2 + pb[0], y2 + pb[1]
    r = a.radius
    lim = r + tol
    ex, ey = x2 - x1, y2 - y1
    u = (cx - x1) * ex + (cy - y1) * ey
    if 0.0 < u < ex * ex + ey * ey:
        nx, ny, _ = b._faces[0]
        side = (cx - x1) * nx + (cy - y1) * ny
        if side > lim or -side > lim:
            return None
        if side > 0.0:
            return _circle_result(cx, cy, r, -nx, -ny, r - side)
        return _circle_result(cx, cy, r, nx, ny, r + side)
    qx, qy = (x1, y1) if u <= 0.0 else (x2, y2)
    dx, dy = qx - cx, qy - cy
    d2 = dx * dx + dy * dy
    if d2 > lim * lim:
        return None
    if dx != 0.0 or dy != 0.0:
        nx, ny, d = _unit(dx, dy)
    else:
        (nx, ny, _), d = b._faces[0], 0.0
    return _circle_result(cx, cy, r, nx, ny, r - d)


def circle_segment_overlaps(a: Circle, pa: Vec, b: Segment, pb: Vec) -> bool:
    """True if a circle and a segment overlap or touch."""
    cx, cy = pa[0] + a.offset[0], pa[1] + a.offset[1]
    (x1, y1), (x2, y2) = b._verts
    qx, qy = closest_on_segment(cx, cy, x1 + pb[0], y1 + pb[1], x2 + pb[0], y2 + pb[1])
    lim = a.radius + TOUCH_TOLERANCE
    return (qx - cx) ** 2 + (qy - cy) ** 2 <= lim * lim


# --- circle vs convex polygon (OrientedRect, Polygon) ---------------------------------------


def circle_convex_contact(a: Circle, pa: Vec, b: Shape, pb: Vec, tol: float) -> Contact | None:
    """Contact of a circle with a convex shape that has ``_verts`` and ``_faces``.

    The face the centre is furthest outside of decides: inside every face, the circle leaves
    through the nearest face; otherwise the closest point of the faces the centre sees.
    """
    cx, cy = pa[0] + a.offset[0], pa[1] + a.offset[1]
    lx, ly = cx - pb[0], cy - pb[1]
    r = a.radius
    faces = b._faces
    best = -math.inf
    bi = 0
    for i, (nx, ny, sup) in enumerate(faces):
        s = nx * lx + ny * ly - sup
        if s > best:
            best, bi = s, i
    if best > r + tol:
        return None
    if best <= 0.0:
        nx, ny, _ = faces[bi]
        return _circle_result(cx, cy, r, -nx, -ny, r - best)
    # outside: the closest point of the faces the centre sees; across a face's middle the
    # face normal (exact), else the direction to the nearest vertex
    verts = b._verts
    n = len(verts)
    d2min = math.inf
    bqx = bqy = 0.0
    for i, (nx, ny, sup) in enumerate(faces):
        s = nx * lx + ny * ly - sup
        if s <= 0.0:
            continue
        x1, y1 = verts[i]
        x2, y2 = verts[(i + 1) % n]
        ex, ey = x2 - x1, y2 - y1
        u = (lx - x1) * ex + (ly - y1) * ey
        if 0.0 < u < ex * ex + ey * ey:
            if s * s < d2min:
                d2min, bqx, bqy = s * s, lx - nx * s, ly - ny * s
            continue
        qx, qy = (x1, y1) if u <= 0.0 else (x2, y2)
        d2 = (qx - lx) ** 2 + (qy - ly) ** 2
        if d2 < d2min:
            d2min, bqx, bqy = d2, qx, qy
    lim = r + tol
    if d2min > lim * lim:
        return None
    nx, ny, d = _unit(bqx - lx, bqy - ly)
    return _circle_result(cx, cy, r, nx, ny, r - d)


def circle_convex_overlaps(a: Circle, pa: Vec, b: Shape, pb: Vec) -> bool:
    """True if a circle and a convex shape overlap or touch."""
    lx, ly = pa[0] + a.offset[0] - pb[0], pa[1] + a.offset[1] - pb[1]
    r = a.radius
    lim = r + TOUCH_TOLERANCE
    faces = b._faces
    verts = b._verts
    n = len(verts)
    inside = True
    d2min = math.inf
    for i, (nx, ny, sup) in enumerate(faces):
        s = nx * lx + ny * ly - sup
        if s <= 0.0:
            continue
        if s > lim:
            return False
        inside = False
        x1, y1 = verts[i]
        x2, y2 = verts[(i + 1) % n]
        qx, qy = closest_on_segment(lx, ly, x1, y1, x2, y2)
        d2 = (qx - lx) ** 2 + (qy - ly) ** 2
        if d2 < d2min:
            d2min = d2
    return inside or d2min <= lim * lim
