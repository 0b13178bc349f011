"""The results of exact shape-pair tests: where and how deep two shapes touch (``Contact``),
how far apart they lie (``Separation``), and the tolerances every test shares.

Guarantees: ``normal`` is a unit vector pointing from the first shape to the second;
``depth`` is how far the second shape must move along ``normal`` (or the first along
``-normal``) to separate them; it is >= ``-TOUCH_TOLERANCE`` (shapes within the tolerance
count as touching, with a small negative depth); ``point`` is a world point on or between the
touching boundaries.
"""

from __future__ import annotations

from dataclasses import dataclass

Vec = tuple[float, float]

#: Shapes closer than this (world units) count as touching: ``contact`` returns a Contact
#: with ``depth`` in ``[-TOUCH_TOLERANCE, 0]``.
TOUCH_TOLERANCE = 1e-9

#: Time of impact at the start of a move: a circle centre this close to another circle's
#: centre counts as coincident (every relative move separates them), and this close to a
#: segment counts as on it (the normal is the segment's perpendicular facing the move, and
#: every move not parallel to the segment approaches). A tolerance, not ``== 0``, so that
#: centres a denormal away behave like centres exactly on.
ON_TOLERANCE = TOUCH_TOLERANCE

#: A move whose sine with a segment is at most this is parallel to it (sliding along).
PARALLEL_TOLERANCE = 1e-12


@dataclass(frozen=True, slots=True)
class Contact:
    """Contact of shape A with shape B: unit ``normal`` from A to B, ``depth``, ``point``."""

    normal: Vec
    depth: float
    point: Vec

    def flipped(self) -> Contact:
        """The same contact seen from B: normal reversed, same depth and point."""
        return Contact((-self.normal[0], -self.normal[1]), self.depth, self.point)


@dataclass(frozen=True, slots=True)
class Separation:
    """How two shapes lie apart: ``distance`` (0 when they overlap or touch), unit
    ``normal`` from the first shape to the second, and the closest points ``point_a`` on
    the first and ``point_b`` on the second (world coordinates)."""

    distance: float
    normal: Vec
    point_a: Vec
    point_b: Vec

    def flipped(self) -> Separation:
        """The same separation seen from the second shape."""
        return Separation(
            self.distance, (-self.normal[0], -self.normal[1]), self.point_b, self.point_a
        )
