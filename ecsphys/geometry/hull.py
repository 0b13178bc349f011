"""Hulls: one bounding rectangle or circle around a group of rectangles, circles or shapes.

Guarantees: every hull contains every member of its group (the seed's bounded shape groups:
test the hulls of two groups first, and two far-apart groups cost one test). The circle hull
is the seed's cheap one (centred on the rectangle hull), not the smallest enclosing circle.

Rectangles are ``(min_x, min_y, max_x, max_y)``; circles are ``(cx, cy, r)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..shapes import Shape

Box = tuple[float, float, float, float]
CircleT = tuple[float, float, float]


def rects_rect_hull(rects: Iterable[Box]) -> Box:
    """The smallest axis-aligned box containing every box in ``rects``.

    Raises ``ValueError`` for an empty group.
    """
    it = iter(rects)
    try:
        x0, y0, x1, y1 = next(it)
    except StopIteration:
        raise ValueError("rects_rect_hull needs at least one rectangle") from None
    for a0, b0, a1, b1 in it:
        x0, y0 = min(x0, a0), min(y0, b0)
        x1, y1 = max(x1, a1), max(y1, b1)
    return (x0, y0, x1, y1)


def circles_rect_hull(circles: Iterable[CircleT]) -> Box:
    """The smallest axis-aligned box containing every circle ``(cx, cy, r)``."""
    return rects_rect_hull((cx - r, cy - r, cx + r, cy + r) for cx, cy, r in circles)


def circles_circle_hull(circles: Iterable[CircleT]) -> CircleT:
    """A circle containing every circle: centred on their rectangle hull, radius the largest
    ``distance + r`` (the seed's hull: cheap, not always the smallest)."""
    cs = list(circles)
    x0, y0, x1, y1 = circles_rect_hull(cs)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    r = max(math.hypot(x - cx, y - cy) + rr for x, y, rr in cs)
    return (cx, cy, r)


def bounding_rect_of(
    shapes: Iterable[Shape], positions: Iterable[tuple[float, float]] | None = None
) -> Box:
    """The bounding rectangle of a group of shapes, each at its position (default all at the
    origin). Raises ``ValueError`` for an empty group."""
    shapes = list(shapes)
    pos = list(positions) if positions is not None else [(0.0, 0.0)] * len(shapes)
    boxes = []
    for s, (px, py) in zip(shapes, pos, strict=True):
        x0, y0, x1, y1 = s.bounds()
        boxes.append((x0 + px, y0 + py, x1 + px, y1 + py))
    return rects_rect_hull(boxes)


def bounding_circle_of(
    shapes: Iterable[Shape], positions: Iterable[tuple[float, float]] | None = None
) -> CircleT:
    """A circle containing a group of shapes (their bounding circles' circle hull)."""
    shapes = list(shapes)
    pos = list(positions) if positions is not None else [(0.0, 0.0)] * len(shapes)
    if not shapes:
        raise ValueError("bounding_circle_of needs at least one shape")
    circles = []
    for s, (px, py) in zip(shapes, pos, strict=True):
        cx, cy, r = s.bounding_circle()
        circles.append((cx + px, cy + py, r))
    return circles_circle_hull(circles)
