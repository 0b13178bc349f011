"""Rays and segments against shapes (line of sight, bullets, picking along a line).

Guarantees: ``raycast(shape, pos, origin, direction, max_t)`` returns the smallest
``t`` in ``[0, max_t]`` at which ``origin + direction * t`` is on the shape, with the shape's
outward unit normal there, or ``None``; a ray that starts inside (or on) a shape returns
``t = 0`` with the normal facing back along the ray. ``t`` is in units of ``direction`` (so
``max_t = 1`` with ``direction = p2 - p1`` is the segment ``p1``-``p2``). A ray along a
segment (collinear) hits it where it first reaches it. ``segment_hits`` is the boolean form.
"""

from __future__ import annotations

import math
from typing import Any

from ..shapes import Circle, Compound, Segment
from .point import point_in

Vec = tuple[float, float]
Hit = tuple[float, Vec]


def _back(dx: float, dy: float) -> Vec:
    d = math.hypot(dx, dy)
    return (-dx / d, -dy / d)


def _ray_circle(c: Circle, ox: float, oy: float, dx: float, dy: float, max_t: float) -> Hit | None:
    px, py = ox - c.offset[0], oy - c.offset[1]
    r = c.radius
    cc = px * px + py * py - r * r
    if cc <= 0.0:
        return (0.0, _back(dx, dy))
    a = dx * dx + dy * dy
    b = px * dx + py * dy
    if b >= 0.0:
        return None
    disc = b * b - a * cc
    if disc < 0.0:
        return None
    t = cc / (-b + math.sqrt(disc))
    if t > max_t:
        return None
    return (t, ((px + dx * t) / r, (py + dy * t) / r))


def _ray_segment(
    s: Segment, ox: float, oy: float, dx: float, dy: float, max_t: float
) -> Hit | None:
    (x1, y1), (x2, y2) = s._verts
    ex, ey = x2 - x1, y2 - y1
    wx, wy = x1 - ox, y1 - oy
    den = dx * ey - dy * ex
    if den != 0.0:
        t = (wx * ey - wy * ex) / den
        u = (wx * dy - wy * dx) / den
        if t < 0.0 or t > max_t or u < 0.0 or u > 1.0:
            return None
        nx, ny, _ = s._faces[0]
        return (t, (nx, ny) if nx * dx + ny * dy < 0.0 else (-nx, -ny))
    if wx * dy - wy * dx != 0.0:  # parallel, not on the same line
        return None
    dd = dx * dx + dy * dy
    t1 = (wx * dx + wy * dy) / dd
    t2 = ((x2 - ox) * dx + (y2 - oy) * dy) / dd
    lo, hi = min(t1, t2), max(t1, t2)
    if hi < 0.0 or lo > max_t:
        return None
    return (max(lo, 0.0), _back(dx, dy))


def _ray_convex(shape: Any, ox: float, oy: float, dx: float, dy: float, max_t: float) -> Hit | None:
    t_in, t_out = -math.inf, math.inf
    normal = (0.0, 0.0)
    for nx, ny, sup in shape._faces:
        num = sup - (nx * ox + ny * oy)  # >= 0: origin inside this face's half-plane
        den = nx * dx + ny * dy
        if den == 0.0:
            if num < 0.0:
                return None
            continue
        t = num / den
        if den < 0.0:
            if t > t_in:
                t_in, normal = t, (nx, ny)
        elif t < t_out:
            t_out = t
        if t_in > t_out:
            return None
    if t_out < 0.0 or t_in > max_t:
        return None
    if t_in <= 0.0:
        return (0.0, _back(dx, dy))
    return (t_in, normal)


def raycast(
    shape: Any, pos: Vec, origin: Vec, direction: Vec, max_t: float = math.inf
) -> Hit | None:
    """First hit ``(t, normal)`` of the ray ``origin + direction * t`` (``0 <= t <= max_t``)
    on ``shape`` at body position ``pos``, or ``None``. ``normal`` is the shape's outward
    unit normal at the hit. Raises ``ValueError`` for a zero ``direction``."""
    dx, dy = direction
    if dx == 0.0 and dy == 0.0:
        raise ValueError(f"raycast direction must not be zero, got {direction!r}")
    ox, oy = origin[0] - pos[0], origin[1] - pos[1]
    kind = type(shape)
    if kind is Circle:
        return _ray_circle(shape, ox, oy, dx, dy, max_t)
    if kind is Segment:
        return _ray_segment(shape, ox, oy, dx, dy, max_t)
    if kind is Compound:
        best: Hit | None = None
        for part, px, py in shape.parts:
            hit = raycast(part, (pos[0] + px, pos[1] + py), origin, direction, max_t)
            if hit is not None and (best is None or hit[0] < best[0]):
                best = hit
                max_t = hit[0]
        return best
    if getattr(shape, "_faces", None) is None:
        raise TypeError(f"raycast does not know {kind.__name__}")
    return _ray_convex(shape, ox, oy, dx, dy, max_t)


def segment_hits(shape: Any, pos: Vec, p1: Vec, p2: Vec) -> bool:
    """True if the segment ``p1``-``p2`` (world) touches ``shape`` at ``pos`` (line of sight
    is blocked); a zero-length segment is a point test."""
    dx, dy = p2[0] - p1[0], p2[1] - p1[1]
    if dx == 0.0 and dy == 0.0:
        return point_in(shape, pos, p1)
    return raycast(shape, pos, p1, (dx, dy), 1.0) is not None
