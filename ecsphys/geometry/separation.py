"""Separation of two shapes: how far apart they are, in which direction, between which points.

Guarantees:
- ``distance(a, pos_a, b, pos_b)`` answers every pair among Circle, Rect, OrientedRect,
  Segment, Polygon and Compound, in both orders, with a ``Separation``;
- shapes apart: ``distance`` is the exact Euclidean distance between them (to rounding),
  ``point_a`` / ``point_b`` are closest points on ``a`` / ``b`` that realise it, and
  ``normal`` is the unit vector from ``point_a`` to ``point_b`` (from ``a`` to ``b``);
- shapes that overlap or touch (``contact`` is not None: within ``TOUCH_TOLERANCE``):
  ``distance`` is ``0.0``; ``normal`` and both points are those of ``contact(a, pos_a, b,
  pos_b)`` (the deepest part pair of a compound);
- swapping the arguments gives the same distance, the normal reversed and the points
  swapped; a compound is as far as its nearest part;
- ``contact_within(a, pos_a, b, pos_b, skin)`` is ``contact`` widened by a skin: shapes
  that overlap give ``contact``'s answer, shapes apart by at most ``skin`` a Contact with
  ``depth = -distance``, the separation's normal and the point halfway between the closest
  points; ``None`` beyond (the skin of the narrowphase: touching within ``contact_offset``).

Method: a circle is its centre grown by its radius, so circle pairs are point-to-shape
distances. Two convex pieces (Rect, OrientedRect, Polygon, Segment) are first checked by their
separating axes: overlapping when no axis separates them, and the largest separation is a
lower bound that rejects pairs further apart than asked. It is the distance when the other
piece's nearest vertex lies across from the separating face's edge (a box resting on a floor:
O(n + m)). Otherwise one of the two closest points is a vertex, and the other lies on an edge
of the other piece that the vertex is in front of; every such vertex-edge pair is measured (a
few dozen point-segment distances for two rectangles), so the answer is exact, not iterated
(unlike GJK). Compounds try their part pairs nearest box first and skip parts whose boxes are
further than the best so far. About 2-5 us a query for circle pairs, 10-20 us for two convex
pieces (CPython 3, one core).
"""

from __future__ import annotations

import math
from typing import Any

from ..shapes import Circle, Compound, Rect, Segment, Shape
from .circle_pairs import _unit, closest_on_segment
from .contact import TOUCH_TOLERANCE, Contact, Separation
from .dispatch import contact_tol

Vec = tuple[float, float]

#: A vertex this far behind an edge's line still counts as in front of it (rounding slack:
#: measuring one pair too many is harmless, missing the closest pair is not).
_FRONT_SLACK = 1e-9
#: Vertices this close (relative) to the nearest one along the normal form a facing edge.
_PARALLEL = 1e-12


def distance(a: Any, pos_a: Vec, b: Any, pos_b: Vec) -> Separation:
    """Separation of shape ``a`` at body position ``pos_a`` from ``b`` at ``pos_b``.

    Exact for shapes apart; ``distance == 0.0`` with ``contact``'s normal and point for shapes
    that overlap or touch. Raises ``TypeError`` for a shape kind it does not know.
    """
    s = _separation(a, pos_a, b, pos_b, math.inf)
    assert s is not None
    return s


def contact_within(a: Any, pos_a: Vec, b: Any, pos_b: Vec, skin: float) -> Contact | None:
    """``contact(a, pos_a, b, pos_b)``, or for shapes apart by at most ``skin`` a Contact with
    ``depth = -distance`` (negative), the unit normal from ``a`` to ``b`` along the closest
    points and the point halfway between them; ``None`` for shapes further apart.
    Raises ``TypeError`` for a pair of kinds without a test."""
    c = contact_tol(a, pos_a, b, pos_b, TOUCH_TOLERANCE)
    if c is not None or skin <= TOUCH_TOLERANCE:
        return c
    s = _separation(a, pos_a, b, pos_b, skin)
    if s is None or s.distance > skin:
        return None
    (ax, ay), (bx, by) = s.point_a, s.point_b
    return Contact(s.normal, -s.distance, ((ax + bx) / 2, (ay + by) / 2))


# --- dispatch -------------------------------------------------------------------------------


def _box_gap(a: Any, pa: Vec, b: Any, pb: Vec) -> float:
    """The larger of the two axis gaps between the shapes' bounding boxes (a lower bound on
    their distance; <= 0 when the boxes meet)."""
    ax0, ay0, ax1, ay1 = a.bounds()
    bx0, by0, bx1, by1 = b.bounds()
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    return max(bx0 + dx - ax1, ax0 - bx1 - dx, by0 + dy - ay1, ay0 - by1 - dy)


def _overlapping(a: Any, pa: Vec, b: Any, pb: Vec) -> Separation:
    """The zero separation of shapes that overlap or touch: ``contact``'s normal and point."""
    c = contact_tol(a, pa, b, pb, TOUCH_TOLERANCE)
    if c is None:  # rounding at exact touching: any direction, a point of a
        c = contact_tol(a, pa, b, pb, 1e-6) or Contact((1.0, 0.0), 0.0, pa)
    return Separation(0.0, c.normal, c.point, c.point)


def _touching(a: Any, pa: Vec, b: Any, pb: Vec, lower: float) -> Separation | None:
    """The zero separation if ``contact`` counts the shapes as touching (asked only when
    ``lower``, a lower bound on their distance, is within twice its tolerance), else None:
    ``distance`` is 0 exactly when ``contact`` finds the shapes touching."""
    if lower > 2 * TOUCH_TOLERANCE:
        return None
    c = contact_tol(a, pa, b, pb, TOUCH_TOLERANCE)
    return None if c is None else Separation(0.0, c.normal, c.point, c.point)


def _separation(a: Any, pa: Vec, b: Any, pb: Vec, limit: float) -> Separation | None:
    """``distance``, or ``None`` if the shapes are certainly more than ``limit`` apart."""
    if not isinstance(a, Shape) or not isinstance(b, Shape):
        raise TypeError(f"no distance for {type(a).__name__} against {type(b).__name__}")
    if _box_gap(a, pa, b, pb) > limit:
        return None
    ta, tb = type(a), type(b)
    if ta is Compound or tb is Compound:
        return _compound(a, pa, b, pb, limit)
    if ta is Circle:
        return _circle_vs(a, pa, b, pb, limit)
    if tb is Circle:
        s = _circle_vs(b, pb, a, pa, limit)
        return None if s is None else s.flipped()
    if getattr(a, "_verts", None) is None or getattr(b, "_verts", None) is None:
        raise TypeError(f"no distance for {ta.__name__} against {tb.__name__}")
    return _convex(a, pa, b, pb, limit)


def _compound(a: Any, pa: Vec, b: Any, pb: Vec, limit: float) -> Separation | None:
    """Nearest part pair; parts whose boxes are further than the best so far are skipped."""
    aparts = a.parts if type(a) is Compound else ((a, 0.0, 0.0),)
    bparts = b.parts if type(b) is Compound else ((b, 0.0, 0.0),)
    pairs = []
    for sa, adx, ady in aparts:
        qa = (pa[0] + adx, pa[1] + ady)
        for sb, bdx, bdy in bparts:
            qb = (pb[0] + bdx, pb[1] + bdy)
            pairs.append((_box_gap(sa, qa, sb, qb), len(pairs), sa, qa, sb, qb))
    pairs.sort(key=lambda p: (p[0], p[1]))
    best: Separation | None = None
    for g, _, sa, qa, sb, qb in pairs:
        if g > limit:
            break
        s = _separation(sa, qa, sb, qb, limit)
        if s is None:
            continue
        if s.distance == 0.0:
            return _overlapping(a, pa, b, pb)  # the deepest part pair's contact
        if best is None or s.distance < best.distance:
            best, limit = s, s.distance
    return best


# --- a circle: its centre's distance, less the radius ----------------------------------------


def _closest_on(shape: Any, pos: Vec, x: float, y: float) -> tuple[Vec, bool]:
    """The point of a primitive (not a circle) at ``pos`` closest to world point ``(x, y)``,
    and whether ``(x, y)`` is inside (or on) it."""
    lx, ly = x - pos[0], y - pos[1]
    kind = type(shape)
    if kind is Rect:
        ox, oy = shape.offset
        hw, hh = shape.width / 2, shape.height / 2
        qx = min(max(lx, ox - hw), ox + hw)
        qy = min(max(ly, oy - hh), oy + hh)
        return (qx + pos[0], qy + pos[1]), (qx == lx and qy == ly)
    verts = shape._verts
    if kind is Segment:
        (x1, y1), (x2, y2) = verts
        qx, qy = closest_on_segment(lx, ly, x1, y1, x2, y2)
        return (qx + pos[0], qy + pos[1]), (qx == lx and qy == ly)
    # convex polygon: outside some face; the closest point is on a face the point sees
    n = len(verts)
    d2min = math.inf
    bqx = bqy = 0.0
    for i, (nx, ny, sup) in enumerate(shape._faces):
        if nx * lx + ny * ly - sup <= 0.0:
            continue
        x1, y1 = verts[i]
        x2, y2 = verts[(i + 1) % n]
        qx, qy = closest_on_segment(lx, ly, x1, y1, x2, y2)
        d2 = (qx - lx) ** 2 + (qy - ly) ** 2
        if d2 < d2min:
            d2min, bqx, bqy = d2, qx, qy
    if d2min == math.inf:
        return (x, y), True
    return (bqx + pos[0], bqy + pos[1]), False


def _circle_vs(a: Circle, pa: Vec, b: Any, pb: Vec, limit: float) -> Separation | None:
    cx, cy = pa[0] + a.offset[0], pa[1] + a.offset[1]
    r = a.radius
    if type(b) is Circle:
        qx, qy = pb[0] + b.offset[0], pb[1] + b.offset[1]
        reach = b.radius
    else:
        (qx, qy), inside = _closest_on(b, pb, cx, cy)
        if inside:
            return _overlapping(a, pa, b, pb)
        reach = 0.0
    dx, dy = qx - cx, qy - cy
    if dx == 0.0 and dy == 0.0:
        return _overlapping(a, pa, b, pb)
    nx, ny, d = _unit(dx, dy)
    gap = d - r - reach
    if gap <= 0.0:
        return _overlapping(a, pa, b, pb)
    if gap > limit:
        return None
    touch = _touching(a, pa, b, pb, gap)
    if touch is not None:
        return touch
    return Separation(gap, (nx, ny), (cx + nx * r, cy + ny * r),
                      (qx - nx * reach, qy - ny * reach))


# --- two convex pieces ----------------------------------------------------------------------


def _edges(shape: Any) -> list[tuple[Vec, Vec, float, float, float]]:
    """``(p, q, nx, ny, support)`` per edge; a segment is one edge every point is in front of
    (support ``-inf``)."""
    verts = shape._verts
    if type(shape) is Segment:
        return [(verts[0], verts[1], 0.0, 0.0, -math.inf)]
    n = len(verts)
    return [(verts[i], verts[(i + 1) % n], *shape._faces[i]) for i in range(n)]


Face = tuple[float, float, float]


def _sat(faces: tuple[Face, ...], verts: list[Vec]) -> tuple[float, int, list[int]]:
    """The face with the largest separation of ``verts`` beyond it: ``(separation, face index,
    indices of the vertices nearest to it)``."""
    best, bi, bw = -math.inf, 0, [0]
    for i, (nx, ny, sup) in enumerate(faces):
        proj = [nx * x + ny * y for x, y in verts]
        m = min(proj)
        if m - sup > best:
            best, bi = m - sup, i
            bw = [j for j, q in enumerate(proj) if q == m]
    return best, bi, bw


def _face_witness(
    shape: Any, face: int, verts: list[Vec], witnesses: list[int]
) -> tuple[Vec, Vec] | None:
    """The distance certificate of the separating face ``face`` of ``shape`` with the other
    piece's ``verts`` (in ``shape``'s frame), nearest to it at ``witnesses``: if the foot of a
    witness on the face's line lies on the face's edge, that foot and the witness are closest
    points (nothing is closer than the face's separation, and they are that far apart):
    ``(point on shape, witness)``, else ``None``."""
    sv = shape._verts
    if type(shape) is Segment:
        if face > 1:  # an end direction of the segment, not an edge
            return None
        (x1, y1), (x2, y2) = sv
    else:
        (x1, y1), (x2, y2) = sv[face], sv[(face + 1) % len(sv)]
    ex, ey = x2 - x1, y2 - y1
    ee = ex * ex + ey * ey
    for j in witnesses:
        wx, wy = verts[j]
        u = ((wx - x1) * ex + (wy - y1) * ey) / ee
        if 0.0 <= u <= 1.0:
            return (x1 + ex * u, y1 + ey * u), (wx, wy)
    return None


def _nearest(
    edges: list[tuple[Vec, Vec, float, float, float]],
    verts: list[Vec],
    best: float,
    slack: float = _FRONT_SLACK,
) -> tuple[float, Vec, Vec] | None:
    """The nearest (edge point, vertex) pair of vertices in front of edges (behind by at most
    ``slack``), if nearer than ``best`` (squared): ``(d2, point on the edge, vertex)``."""
    found = None
    for (x1, y1), (x2, y2), nx, ny, sup in edges:
        ex, ey = x2 - x1, y2 - y1
        ee = ex * ex + ey * ey
        for vx, vy in verts:
            if nx * vx + ny * vy - sup < -slack:
                continue
            wx, wy = vx - x1, vy - y1
            u = (wx * ex + wy * ey) / ee  # closest point of the edge: x1 + e * clamp(u)
            u = 0.0 if u < 0.0 else (1.0 if u > 1.0 else u)
            qx, qy = x1 + ex * u, y1 + ey * u
            d2 = (vx - qx) ** 2 + (vy - qy) ** 2
            if d2 < best:
                best, found = d2, (d2, (qx, qy), (vx, vy))
    return found


def _convex(a: Any, pa: Vec, b: Any, pb: Vec, limit: float) -> Separation | None:
    """Two convex pieces; the vertex-edge pairs in each piece's own body frame."""
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    va, vb = a._verts, b._verts
    vb_a = [(x + dx, y + dy) for x, y in vb]  # b's vertices in a's frame
    va_b = [(x - dx, y - dy) for x, y in va]  # a's vertices in b's frame
    gap_a, face_a, wit_a = _sat(a._faces, vb_a)
    gap_b, face_b, wit_b = _sat(b._faces, va_b)
    lower = max(gap_a, gap_b)
    if lower <= 0.0:
        return _overlapping(a, pa, b, pb)
    if lower > limit:
        return None
    touch = _touching(a, pa, b, pb, lower)
    if touch is not None:
        return touch
    # a face and a vertex facing each other (a box resting on a floor): the face's separation
    if gap_a >= gap_b:
        cert = _face_witness(a, face_a, vb_a, wit_a)
        if cert is not None:
            p, qb = cert
    else:
        cert = _face_witness(b, face_b, va_b, wit_b)
        if cert is not None:
            (qx, qy), (px, py) = cert
            p, qb = (px + dx, py + dy), (qx + dx, qy + dy)
    if cert is None:  # else a vertex and a vertex: every vertex against the edges it faces
        p, qb = _nearest_pair(a, b, va_b, vb_a, dx, dy)
    ux, uy = qb[0] - p[0], qb[1] - p[1]
    if ux == 0.0 and uy == 0.0:
        return _overlapping(a, pa, b, pb)
    nx, ny, d = _unit(ux, uy)
    p, qb = _middle_of_parallel(va, vb_a, nx, ny, p, qb)
    return Separation(d, (nx, ny), (p[0] + pa[0], p[1] + pa[1]), (qb[0] + pa[0], qb[1] + pa[1]))


def _nearest_pair(
    a: Any, b: Any, va_b: list[Vec], vb_a: list[Vec], dx: float, dy: float
) -> tuple[Vec, Vec]:
    """Closest points (on a, on b; in a's frame) of convex pieces apart: the nearest of every
    vertex against every edge of the other piece that it is in front of."""
    ea, eb = _edges(a), _edges(b)
    slack = _FRONT_SLACK
    while True:
        best_ab = _nearest(ea, vb_a, math.inf, slack)  # a vertex of b, a point on an edge of a
        best_ba = _nearest(eb, va_b, best_ab[0] if best_ab else math.inf, slack)  # a's on b
        if best_ab is not None or best_ba is not None:
            break
        slack = math.inf  # not reached for pieces apart; measure every pair rather than fail
    if best_ba is not None:
        _, (qx, qy), (px, py) = best_ba
        return (px + dx, py + dy), (qx + dx, qy + dy)
    assert best_ab is not None
    return best_ab[1], best_ab[2]


def _middle_of_parallel(
    va: tuple[Vec, ...], vb: list[Vec], nx: float, ny: float, p: Vec, q: Vec
) -> tuple[Vec, Vec]:
    """Closest points ``p`` (on a) and ``q`` (on b) along the normal ``n``; where an edge of
    each faces the other, parallel (a box resting on a floor), every point of the overlap of
    the two edges is closest: the middle of that overlap, instead of a corner."""
    tx, ty = -ny, nx
    amax = nx * p[0] + ny * p[1]
    bmin = nx * q[0] + ny * q[1]
    ea = _PARALLEL * (1.0 + abs(amax))  # tight: the points chosen stay on the shapes
    eb = _PARALLEL * (1.0 + abs(bmin))
    ta = [tx * x + ty * y for x, y in va if nx * x + ny * y >= amax - ea]
    tb = [tx * x + ty * y for x, y in vb if nx * x + ny * y <= bmin + eb]
    if len(ta) < 2 or len(tb) < 2:
        return p, q
    lo, hi = max(min(ta), min(tb)), min(max(ta), max(tb))
    if lo > hi:
        return p, q
    tc = (lo + hi) / 2
    return (nx * amax + tx * tc, ny * amax + ty * tc), (nx * bmin + tx * tc, ny * bmin + ty * tc)
