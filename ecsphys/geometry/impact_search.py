"""The binary impact search (seed: "Shapes in Motion"), made exact at its leaves.

Guarantees: ``binary_impact_search`` never misses a touch: a part of the move is skipped only
when the bounding circle of the shape at its start and end (which contains everything the
shape sweeps over) misses the other shape; a leaf (a part of the move shorter than
``max(size / 4, 1/32)``, size being the shape's smaller bounding-box side) is tested with
the exact swept hull (``sat_swept_overlaps``), so a segment crossing a thin wall is found
however thin both are. Halves are searched earliest first, so the leaf returned is the
first one where the shapes touch. ``convex_time_of_impact`` then bisects inside that leaf for
the first time the shapes are within ``REACH`` (7/8 of ``TOUCH_TOLERANCE``) along every
separating axis, to ``PRECISION`` (1/16 of it) in distance, and returns the earlier end:
apart by at most ``REACH + PRECISION`` along every axis, so the contact's depth is
``>= -TOUCH_TOLERANCE``, and never after the exact first touch. A touch that only ever
comes within ``(REACH, TOUCH_TOLERANCE]`` (a graze at the tolerance) is timed at its first
time within ``TOUCH_TOLERANCE``.
"""

from __future__ import annotations

import math
from typing import Any

from ..shapes import Circle
from .contact import TOUCH_TOLERANCE, Contact
from .dispatch import contact_tol, overlaps
from .sat import sat_swept_overlaps

Vec = tuple[float, float]
EPSILON = 1.0 / 32.0
#: The time of impact is the first time the shapes come within REACH of each other (known to
#: PRECISION in distance along the move): inside TOUCH_TOLERANCE by a margin, so the contact
#: then has depth >= -TOUCH_TOLERANCE despite rounding; and not 0, so that shapes that graze
#: (touch exactly, in a direction rounding may make 1e-17 apart) are not passed over.
REACH = 0.875 * TOUCH_TOLERANCE
PRECISION = TOUCH_TOLERANCE / 16


def binary_impact_search(
    a: Any, pos_a: Vec, move: Vec, b: Any, pos_b: Vec, min_step: float | None = None
) -> tuple[float, float] | None:
    """The first interval ``(t0, t1)`` of ``a``'s move (from ``pos_a`` by ``move``, ``b`` at
    rest) in which convex ``a`` touches convex ``b``, or ``None`` if it never does.

    ``min_step`` (world units) is the longest leaf; default ``max(size / 4, 1/32)``.
    """
    length = math.hypot(move[0], move[1])
    if min_step is None:
        x0, y0, x1, y1 = a.bounds()
        min_step = max(min(x1 - x0, y1 - y0) / 4, EPSILON)
    bcx, bcy, br = a.bounding_circle()
    ox, oy = pos_a[0] + bcx, pos_a[1] + bcy
    stack = [(0.0, 1.0)]
    while stack:
        t0, t1 = stack.pop()
        tm = (t0 + t1) / 2
        span = length * (t1 - t0)
        envelope = Circle(br + span / 2 + TOUCH_TOLERANCE)
        if not overlaps(envelope, (ox + move[0] * tm, oy + move[1] * tm), b, pos_b):
            continue
        if span < min_step:
            if sat_swept_overlaps(a, pos_a, move, t0, t1, b, pos_b, TOUCH_TOLERANCE):
                return (t0, t1)
            continue
        stack.append((tm, t1))
        stack.append((t0, tm))
    return None


_UNDECIDED = object()
#: Steps of `conservative_advancement` before it leaves the move to the binary search (a
#: near-tangent approach creeps on; a direct one needs a handful).
MAX_ADVANCES = 24


def conservative_advancement(
    a: Any, pos_a: Vec, move: Vec, b: Any, pos_b: Vec
) -> tuple[float, Contact] | None | object:
    """Time of impact of convex ``a`` (apart from ``b`` at the start) moving by ``move``
    against convex ``b`` at rest, by conservative advancement: ``_UNDECIDED`` if it does not
    settle within ``MAX_ADVANCES`` steps.

    The distance ``d(t)`` between two convex shapes, one moved by ``t * move``, is a convex
    function of ``t`` (a point moving on a line, measured from their convex Minkowski
    difference). So its tangent at ``t`` lies below it, and the tangent's root, ``t + (d -
    REACH) / c`` with ``c`` the move's part along the normal, is never after the first time
    within ``REACH``: each step lands on or before it, from below, and none overshoots. A
    normal the move does not approach along (``c <= 0``) means the distance never shrinks
    again: no impact; so does a step past ``t = 1``. Settled when within ``REACH +
    PRECISION``, like the bisection: the same result, a few distance queries instead of a
    few dozen swept tests.
    """
    from .separation import distance  # separation builds on this module's neighbours

    t = 0.0
    sep = distance(a, pos_a, b, pos_b)
    for _ in range(MAX_ADVANCES):
        d = sep.distance
        if d <= REACH + PRECISION:
            p = (pos_a[0] + move[0] * t, pos_a[1] + move[1] * t)
            c = contact_tol(a, p, b, pos_b, 2 * TOUCH_TOLERANCE)
            return (t, c) if c is not None else _UNDECIDED
        n = sep.normal
        closing = n[0] * move[0] + n[1] * move[1]
        if closing <= 0.0:
            return None
        t += (d - REACH) / closing
        if t > 1.0:
            return None
        sep = distance(a, (pos_a[0] + move[0] * t, pos_a[1] + move[1] * t), b, pos_b)
    return _UNDECIDED


def convex_time_of_impact(
    a: Any, pos_a: Vec, move: Vec, b: Any, pos_b: Vec
) -> tuple[float, Contact] | None:
    """Time of impact of convex ``a`` moving by ``move`` against convex ``b`` at rest, with
    the contact at ``a``'s position then (see ``toi.py`` for the rules at ``t = 0``)."""
    start = contact_tol(a, pos_a, b, pos_b, TOUCH_TOLERANCE)
    if start is not None:
        n = start.normal
        return (0.0, start) if n[0] * move[0] + n[1] * move[1] > 0.0 else None
    advanced = conservative_advancement(a, pos_a, move, b, pos_b)
    if advanced is not _UNDECIDED:
        return advanced  # type: ignore[return-value]
    leaf = binary_impact_search(a, pos_a, move, b, pos_b)
    if leaf is None:
        return None
    t0, t1 = leaf
    length = math.hypot(move[0], move[1])
    # bisect for the first time within REACH (a graze that comes no closer than that but
    # within TOUCH_TOLERANCE: the first time within TOUCH_TOLERANCE)
    for tol in (REACH, TOUCH_TOLERANCE):
        lo, hi = t0, t1
        for _ in range(100):
            if (hi - lo) * length <= PRECISION:
                break
            mid = (lo + hi) / 2
            if not lo < mid < hi:  # t cannot be split further (a very long move)
                break
            if sat_swept_overlaps(a, pos_a, move, t0, mid, b, pos_b, tol):
                hi = mid
            else:
                lo = mid
        if hi < t1 or sat_swept_overlaps(a, pos_a, move, t0, t1, b, pos_b, tol):
            break
    p = (pos_a[0] + move[0] * lo, pos_a[1] + move[1] * lo)
    c = contact_tol(a, p, b, pos_b, (hi - lo) * length + 2 * TOUCH_TOLERANCE)
    if c is None:  # only if rounding moved the touch: report it at the later end
        p = (pos_a[0] + move[0] * hi, pos_a[1] + move[1] * hi)
        c = contact_tol(a, p, b, pos_b, 4 * TOUCH_TOLERANCE)
        if c is None:
            return None
        return (hi, c)
    return (lo, c)
