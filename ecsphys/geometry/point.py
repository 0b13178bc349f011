"""Point queries: is a world point inside a shape (mouse picking)?

Guarantees: ``point_in(shape, pos, point)`` is True for points inside the shape or within
``TOUCH_TOLERANCE`` of its boundary (a segment: within that distance of it), for every shape
kind: Circle, Rect, OrientedRect, Segment, Polygon and Compound (any part).
"""

from __future__ import annotations

from typing import Any

from ..shapes import Circle, Compound, Rect, Segment
from .circle_pairs import closest_on_segment
from .contact import TOUCH_TOLERANCE

Vec = tuple[float, float]


def point_in(shape: Any, pos: Vec, point: Vec) -> bool:
    """True if ``point`` (world) lies in ``shape`` placed at body position ``pos``.

    Raises ``TypeError`` for an unknown shape kind.
    """
    tol = TOUCH_TOLERANCE
    lx, ly = point[0] - pos[0], point[1] - pos[1]
    kind = type(shape)
    if kind is Circle:
        dx, dy = lx - shape.offset[0], ly - shape.offset[1]
        r = shape.radius + tol
        return dx * dx + dy * dy <= r * r
    if kind is Rect:
        return (
            abs(lx - shape.offset[0]) <= shape.width / 2 + tol
            and abs(ly - shape.offset[1]) <= shape.height / 2 + tol
        )
    if kind is Segment:
        (x1, y1), (x2, y2) = shape._verts
        qx, qy = closest_on_segment(lx, ly, x1, y1, x2, y2)
        return (qx - lx) ** 2 + (qy - ly) ** 2 <= tol * tol
    if kind is Compound:
        return any(point_in(p, (pos[0] + dx, pos[1] + dy), point) for p, dx, dy in shape.parts)
    faces = getattr(shape, "_faces", None)
    if faces is None:
        raise TypeError(f"point_in does not know {kind.__name__}")
    return all(nx * lx + ny * ly - sup <= tol for nx, ny, sup in faces)
