"""Pure 2D geometry: shape-pair tests, contacts, bounding shapes, time of impact.

No esper and no pyglet here: functions of shape values and positions, and NumPy kernels over
arrays of pairs. The systems call these; games may call them directly.

Guarantees: ``contact``/``overlaps`` answer every pair of Circle, Rect, OrientedRect,
Segment, Polygon and Compound in both orders; ``time_of_impact`` finds the first touch of
two moving shapes without tunnelling; ``distance`` measures how far apart two shapes are
(exact, with the closest points) and ``contact_within`` widens ``contact`` by a skin.
"""

from . import pairs as _pairs  # noqa: F401  (registers every pair test)
from .contact import TOUCH_TOLERANCE, Contact
from .decompose import convex_decompose
from .dispatch import collide, contact, overlaps
from .hull import (
    bounding_circle_of,
    bounding_rect_of,
    circles_circle_hull,
    circles_rect_hull,
    rects_rect_hull,
)
from .impact_search import binary_impact_search
from .line import Line, line_overlaps
from .point import point_in
from .raycast import raycast, segment_hits
from .separation import Separation, contact_within, distance
from .toi import (
    time_of_impact,
    toi_circle_circle,
    toi_circle_rect,
    toi_circle_segment,
    toi_rect_rect,
)

__all__ = [
    "Contact",
    "Line",
    "Separation",
    "TOUCH_TOLERANCE",
    "binary_impact_search",
    "bounding_circle_of",
    "bounding_rect_of",
    "circles_circle_hull",
    "circles_rect_hull",
    "collide",
    "contact",
    "contact_within",
    "convex_decompose",
    "distance",
    "line_overlaps",
    "overlaps",
    "point_in",
    "raycast",
    "rects_rect_hull",
    "segment_hits",
    "time_of_impact",
    "toi_circle_circle",
    "toi_circle_rect",
    "toi_circle_segment",
    "toi_rect_rect",
]
