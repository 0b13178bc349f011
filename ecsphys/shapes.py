"""Shape values: the collision boundaries a `Geometry` holds, and their bounding boxes.

Guarantees:
- every shape is an immutable, hashable value that compares by value;
- every shape is relative to its body's position, moved by an optional ``offset``;
- bad input (NaN, infinite, zero or negative sizes, wrong types) raises ``ValueError`` or
  ``TypeError`` at construction, naming the field and the value, so no NaN appears later;
- ``bounds()`` is the shape's axis-aligned bounding box relative to the body's position
  (offset included) and ``bounding_circle()`` a circle that contains the shape.

Coordinates are y-up world units. Angles are in degrees, counter-clockwise.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import ClassVar

Vec = tuple[float, float]


def check_finite(name: str, value: object) -> float:
    """Return ``value`` as a float; raise if it is not a finite real number.

    Raises ``TypeError`` for non-numbers (and bools) and ``ValueError`` for NaN or infinities,
    naming the field ``name`` and the value.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            import numpy as np

            if isinstance(value, np.generic) and np.issubdtype(type(value), np.number):
                value = float(value)  # type: ignore[arg-type]
            else:
                raise TypeError
        except TypeError:
            raise TypeError(f"{name} must be a number, got {value!r}") from None
    f = float(value)  # type: ignore[arg-type]
    if not math.isfinite(f):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return f


def check_positive(name: str, value: object) -> float:
    """Return ``value`` as a float; raise ``ValueError`` unless it is finite and > 0."""
    f = check_finite(name, value)
    if f <= 0.0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return f


def check_vec(name: str, value: object) -> Vec:
    """Return ``value`` as an ``(x, y)`` tuple of finite floats; raise naming ``name`` if not."""
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{name} must be an (x, y) pair, got {value!r}") from None
    if len(items) != 2:
        raise ValueError(f"{name} must be an (x, y) pair, got {value!r}")
    return (check_finite(f"{name}.x", items[0]), check_finite(f"{name}.y", items[1]))


class Shape:
    """Base class of all shapes. Subclasses are immutable values with ``__slots__``.

    ``type_code`` is a small integer the body table stores per row so the systems can pick
    a vectorised kernel for each pair of shape kinds.
    """

    __slots__ = ("offset",)
    type_code: ClassVar[int] = -1
    offset: Vec

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; make a new shape instead")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _set(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)

    def _key(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def _offset_repr(self) -> str:
        return "" if self.offset == (0.0, 0.0) else f", offset={self.offset!r}"

    def bounds(self) -> tuple[float, float, float, float]:
        """``(min_x, min_y, max_x, max_y)`` of the shape relative to the body's position."""
        raise NotImplementedError

    def bounding_circle(self) -> tuple[float, float, float]:
        """``(cx, cy, radius)`` of a circle containing the shape, relative to the body."""
        x0, y0, x1, y1 = self.bounds()
        return ((x0 + x1) / 2, (y0 + y1) / 2, math.hypot(x1 - x0, y1 - y0) / 2)

    @property
    def bounding_radius(self) -> float:
        """Radius of ``bounding_circle()`` (about its own centre)."""
        return self.bounding_circle()[2]


class Circle(Shape):
    """A circle of ``radius`` centred on the body's position plus ``offset``.

    >>> Circle(0.5)
    Circle(0.5)
    >>> Circle(1, offset=(0, 2)).bounds()
    (-1.0, 1.0, 1.0, 3.0)
    """

    __slots__ = ("radius",)
    type_code: ClassVar[int] = 0
    radius: float

    def __init__(self, radius: float, offset: Iterable[float] = (0.0, 0.0)) -> None:
        self._set("radius", check_positive("Circle.radius", radius))
        self._set("offset", check_vec("Circle.offset", offset))

    def _key(self) -> tuple[object, ...]:
        return (self.radius, self.offset)

    def __repr__(self) -> str:
        return f"Circle({self.radius!r}{self._offset_repr()})"

    def bounds(self) -> tuple[float, float, float, float]:
        ox, oy = self.offset
        r = self.radius
        return (ox - r, oy - r, ox + r, oy + r)

    def bounding_circle(self) -> tuple[float, float, float]:
        return (self.offset[0], self.offset[1], self.radius)


class Rect(Shape):
    """An axis-aligned rectangle ``width`` x ``height`` centred on the body plus ``offset``.

    >>> Rect(4, 2).bounds()
    (-2.0, -1.0, 2.0, 1.0)
    """

    __slots__ = ("width", "height")
    type_code: ClassVar[int] = 1
    width: float
    height: float

    def __init__(
        self, width: float, height: float, offset: Iterable[float] = (0.0, 0.0)
    ) -> None:
        self._set("width", check_positive("Rect.width", width))
        self._set("height", check_positive("Rect.height", height))
        self._set("offset", check_vec("Rect.offset", offset))

    def _key(self) -> tuple[object, ...]:
        return (self.width, self.height, self.offset)

    def __repr__(self) -> str:
        return f"Rect({self.width!r}, {self.height!r}{self._offset_repr()})"

    @property
    def half_extents(self) -> Vec:
        """``(width / 2, height / 2)``."""
        return (self.width / 2, self.height / 2)

    def bounds(self) -> tuple[float, float, float, float]:
        ox, oy = self.offset
        hw, hh = self.width / 2, self.height / 2
        return (ox - hw, oy - hh, ox + hw, oy + hh)

    def bounding_circle(self) -> tuple[float, float, float]:
        return (self.offset[0], self.offset[1], math.hypot(self.width, self.height) / 2)
