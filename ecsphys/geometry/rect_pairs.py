"""Exact test of two axis-aligned rectangles: overlap on both axes, least overlap separates.

Guarantees: ``rect_rect_contact`` returns the normal from the first box to the second along
the axis of least overlap (x on a tie), the depth that separates them along it (``>= -tol``),
and the centre of the overlap region; ``rect_rect_overlaps`` is the two-interval test.
"""

from __future__ import annotations

from ..shapes import Rect
from .contact import TOUCH_TOLERANCE, Contact

Vec = tuple[float, float]


def rect_rect_contact(a: Rect, pa: Vec, b: Rect, pb: Vec, tol: float) -> Contact | None:
    """Contact of two axis-aligned rectangles, or ``None`` if they are more than ``tol`` apart."""
    ax, ay = pa[0] + a.offset[0], pa[1] + a.offset[1]
    bx, by = pb[0] + b.offset[0], pb[1] + b.offset[1]
    dx, dy = bx - ax, by - ay
    ahw, ahh, bhw, bhh = a.width / 2, a.height / 2, b.width / 2, b.height / 2
    ox = ahw + bhw - abs(dx)
    if ox < -tol:
        return None
    oy = ahh + bhh - abs(dy)
    if oy < -tol:
        return None
    if ox <= oy:
        sx = 1.0 if dx >= 0.0 else -1.0
        py = (max(ay - ahh, by - bhh) + min(ay + ahh, by + bhh)) / 2
        return Contact((sx, 0.0), ox, (ax + sx * (ahw - ox / 2), py))
    sy = 1.0 if dy >= 0.0 else -1.0
    px = (max(ax - ahw, bx - bhw) + min(ax + ahw, bx + bhw)) / 2
    return Contact((0.0, sy), oy, (px, ay + sy * (ahh - oy / 2)))


def rect_rect_overlaps(a: Rect, pa: Vec, b: Rect, pb: Vec) -> bool:
    """True if two axis-aligned rectangles overlap or touch."""
    return (
        abs(pb[0] + b.offset[0] - pa[0] - a.offset[0]) <= (a.width + b.width) / 2 + TOUCH_TOLERANCE
        and abs(pb[1] + b.offset[1] - pa[1] - a.offset[1])
        <= (a.height + b.height) / 2 + TOUCH_TOLERANCE
    )
