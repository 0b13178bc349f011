"""Separating-axis tests of two convex shapes (Rect, OrientedRect, Polygon, Segment).

Guarantees: two convex shapes are disjoint exactly when some face normal of one of them
separates their projections (a segment is a two-vertex piece whose "faces" are both normals
and both directions, so collinear segments that do not meet are separated too).
``sat_contact`` returns the face normal of least overlap (from the first shape to the
second), that overlap as depth (the minimum translation: moving the second shape by
``normal * depth`` makes the shapes touch, any less leaves them overlapping), and a point in
the middle of the touching features. ``sat_overlaps`` stops at the first separating axis.
``sat_swept_overlaps`` answers whether the first shape, moving by ``move`` during
``[t0, t1]``, touches the resting second one at any time in between: the swept shape is the
convex hull of its start and end, whose extra faces are parallel to ``move``.

Every convex shape carries ``_verts`` (counter-clockwise) and ``_faces`` (unit normal and
support ``(nx, ny, s)``) relative to its body position; ``_bb`` is its bounding box.
"""

from __future__ import annotations

import math

from ..shapes import Shape
from .contact import TOUCH_TOLERANCE, Contact

Vec = tuple[float, float]


def _boxes_apart(a: Shape, pa: Vec, b: Shape, pb: Vec, tol: float) -> bool:
    """The cheap rejection: the shapes' bounding boxes are more than ``tol`` apart."""
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    ab, bb = a._bb, b._bb
    return (
        bb[0] + dx > ab[2] + tol
        or ab[0] > bb[2] + dx + tol
        or bb[1] + dy > ab[3] + tol
        or ab[1] > bb[3] + dy + tol
    )


def sat_contact(a: Shape, pa: Vec, b: Shape, pb: Vec, tol: float) -> Contact | None:
    """Contact of two convex shapes, or ``None`` if they are more than ``tol`` apart."""
    if _boxes_apart(a, pa, b, pb, tol):
        return None
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    va, vb = a._verts, b._verts
    best = math.inf
    bnx = bny = 0.0
    for nx, ny, sup in a._faces:
        sep = min([nx * x + ny * y for x, y in vb]) + nx * dx + ny * dy - sup
        if sep > tol:
            return None
        if -sep < best:
            best, bnx, bny = -sep, nx, ny
    for nx, ny, sup in b._faces:
        sep = min([nx * x + ny * y for x, y in va]) - nx * dx - ny * dy - sup
        if sep > tol:
            return None
        if -sep < best:
            best, bnx, bny = -sep, -nx, -ny
    return Contact((bnx, bny), best, _contact_point(va, vb, dx, dy, bnx, bny, pa))


def _contact_point(
    va: tuple[Vec, ...], vb: tuple[Vec, ...], dx: float, dy: float, nx: float, ny: float, pa: Vec
) -> Vec:
    """Middle of the touching features: A's vertices furthest along n, B's least along n."""
    pa_ = [nx * x + ny * y for x, y in va]
    pb_ = [nx * (x + dx) + ny * (y + dy) for x, y in vb]
    amax, bmin = max(pa_), min(pb_)
    ea = 1e-9 * (1.0 + abs(amax))
    eb = 1e-9 * (1.0 + abs(bmin))
    tx, ty = -ny, nx
    ta = [tx * x + ty * y for (x, y), p in zip(va, pa_, strict=True) if p >= amax - ea]
    tb = [
        tx * (x + dx) + ty * (y + dy) for (x, y), p in zip(vb, pb_, strict=True) if p <= bmin + eb
    ]
    lo, hi = max(min(ta), min(tb)), min(max(ta), max(tb))
    tc = (lo + hi) / 2
    nc = (amax + bmin) / 2
    return (pa[0] + nx * nc + tx * tc, pa[1] + ny * nc + ty * tc)


def sat_overlaps(a: Shape, pa: Vec, b: Shape, pb: Vec) -> bool:
    """True if two convex shapes overlap or touch (within ``TOUCH_TOLERANCE``)."""
    tol = TOUCH_TOLERANCE
    if _boxes_apart(a, pa, b, pb, tol):
        return False
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    va, vb = a._verts, b._verts
    for nx, ny, sup in a._faces:
        if min([nx * x + ny * y for x, y in vb]) + nx * dx + ny * dy - sup > tol:
            return False
    for nx, ny, sup in b._faces:
        if min([nx * x + ny * y for x, y in va]) - nx * dx - ny * dy - sup > tol:
            return False
    return True


def sat_swept_overlaps(
    a: Shape, pa: Vec, move: Vec, t0: float, t1: float, b: Shape, pb: Vec, tol: float
) -> bool:
    """True if convex ``a`` at ``pa + move * t`` touches convex ``b`` (at rest at ``pb``) for
    some ``t`` in ``[t0, t1]``. Exact: the swept hull is tested, so nothing tunnels."""
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    mx, my = move
    va, vb = a._verts, b._verts
    for nx, ny, sup in a._faces:
        mn = nx * mx + ny * my
        ext = mn * t1 if mn > 0.0 else mn * t0
        if min([nx * x + ny * y for x, y in vb]) + nx * dx + ny * dy - sup - ext > tol:
            return False
    for nx, ny, sup in b._faces:
        mn = nx * mx + ny * my
        ext = mn * t0 if mn > 0.0 else mn * t1
        if min([nx * x + ny * y for x, y in va]) + ext - nx * dx - ny * dy - sup > tol:
            return False
    length = math.hypot(mx, my)
    if length > 0.0:
        ux, uy = -my / length, mx / length
        pa_ = [ux * x + uy * y for x, y in va]
        pb_ = [ux * (x + dx) + uy * (y + dy) for x, y in vb]
        if min(pb_) - max(pa_) > tol or min(pa_) - max(pb_) > tol:
            return False
    return True
