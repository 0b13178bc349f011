"""Infinite lines: a ``Line(base, direction)`` value, and ``overlaps`` for lines and shapes.

Guarantees: ``Line`` is an immutable value with a unit ``normal``; ``overlaps(a, pos_a, b,
pos_b)`` answers shape pairs (the compiled ``manifold.overlaps``) and a line against a shape
or another line, in both orders: a line touches a shape exactly when the shape's projection
onto the line's normal contains the line (within ``TOUCH_TOLERANCE``; the compiled
``query.line_overlaps``). A line has no contact: ``contact`` raises ``TypeError`` for it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..shapes import check_vec
from . import manifold
from .contact import TOUCH_TOLERANCE
from .query import line_overlaps

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


def _lines_meet(a: Line, pa: Vec, b: Line, pb: Vec) -> bool:
    """Two lines meet unless they are parallel and apart."""
    n = a.normal
    if n[0] * b.direction[0] + n[1] * b.direction[1] != 0.0:
        return True
    gap = n[0] * (b.base[0] + pb[0] - a.base[0] - pa[0]) \
        + n[1] * (b.base[1] + pb[1] - a.base[1] - pa[1])
    return abs(gap) <= TOUCH_TOLERANCE


def overlaps(a: Any, pos_a: Vec, b: Any, pos_b: Vec) -> bool:
    """True if ``a`` at ``pos_a`` and ``b`` at ``pos_b`` overlap or touch (within
    ``TOUCH_TOLERANCE``): two shapes (the same answer as ``contact(...) is not None``, often
    cheaper), or a ``Line`` (placed at its position) and a shape or another line. Raises
    ``TypeError`` for anything else."""
    if isinstance(a, Line):
        if isinstance(b, Line):
            return _lines_meet(a, pos_a, b, pos_b)
        return line_overlaps(a, b, pos_b, pos_a)
    if isinstance(b, Line):
        return line_overlaps(b, a, pos_a, pos_b)
    return manifold.overlaps(a, pos_a, b, pos_b)
