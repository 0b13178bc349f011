"""Infinite lines: a ``Line(base, direction)`` value and its overlap test against shapes.

Guarantees: ``line_overlaps(line, shape, pos)`` is True exactly when the infinite line
through ``base`` along ``direction`` touches the shape (within ``TOUCH_TOLERANCE``): the
shape's projection onto the line's normal contains the line. ``overlaps(line, (0, 0),
shape, pos)`` answers the same (a line has no contact: ``contact`` raises ``TypeError``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment, check_vec
from .contact import TOUCH_TOLERANCE
from .dispatch import register_overlap

Vec = tuple[float, float]


class Line:
    """The infinite line through ``base`` along ``direction`` (not zero). Immutable.

    >>> Line((0, 1), (2, 0)).normal
    (-0.0, 1.0)
    """

    __slots__ = ("base", "direction", "normal")
    base: Vec
    direction: Vec
    normal: Vec

    def __init__(self, base: Iterable[float], direction: Iterable[float]) -> None:
        b = check_vec("Line.base", base)
        d = check_vec("Line.direction", direction)
        length = math.hypot(*d)
        if length == 0.0:
            raise ValueError(f"Line.direction must not be zero, got {d!r}")
        object.__setattr__(self, "base", b)
        object.__setattr__(self, "direction", d)
        object.__setattr__(self, "normal", (-d[1] / length, d[0] / length))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Line is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Line):
            return NotImplemented
        return (self.base, self.direction) == (other.base, other.direction)

    def __hash__(self) -> int:
        return hash(("Line", self.base, self.direction))

    def __repr__(self) -> str:
        return f"Line({self.base!r}, {self.direction!r})"

    def overlaps(self, shape: Any, pos: Vec) -> bool:
        """True if this line touches ``shape`` at ``pos``."""
        return line_overlaps(self, shape, pos)


def line_overlaps(line: Line, shape: Any, pos: Vec, shift: Vec = (0.0, 0.0)) -> bool:
    """True if ``line`` (moved by ``shift``) touches ``shape`` at body position ``pos``.

    Raises ``TypeError`` for an unknown shape kind.
    """
    nx, ny = line.normal
    k = nx * (line.base[0] + shift[0] - pos[0]) + ny * (line.base[1] + shift[1] - pos[1])
    kind = type(shape)
    if kind is Circle:
        return (
            abs(nx * shape.offset[0] + ny * shape.offset[1] - k) <= shape.radius + TOUCH_TOLERANCE
        )
    if kind is Compound:
        return any(
            line_overlaps(line, p, (pos[0] + dx, pos[1] + dy), shift) for p, dx, dy in shape.parts
        )
    verts = getattr(shape, "_verts", None)
    if verts is None:
        raise TypeError(f"line_overlaps does not know {kind.__name__}")
    proj = [nx * x + ny * y for x, y in verts]
    return min(proj) - TOUCH_TOLERANCE <= k <= max(proj) + TOUCH_TOLERANCE


def _line_vs(line: Line, pl: Vec, shape: Any, ps: Vec) -> bool:
    return line_overlaps(line, shape, ps, pl)


for _kind in (Circle, Rect, OrientedRect, Segment, Polygon, Compound):
    register_overlap(Line, _kind)(_line_vs)
register_overlap(Line, Line)(
    lambda a, pa, b, pb: (
        a.normal[0] * b.direction[0] + a.normal[1] * b.direction[1] != 0.0
        or abs(
            a.normal[0] * (b.base[0] + pb[0] - a.base[0] - pa[0])
            + a.normal[1] * (b.base[1] + pb[1] - a.base[1] - pa[1])
        )
        <= TOUCH_TOLERANCE
    )
)
