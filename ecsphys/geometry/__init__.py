"""Pure 2D geometry: shape-pair tests, contacts, distances, time of impact, queries.

No esper and no pyglet here: compiled routines on shape values and positions (one
implementation of each, the same the step uses), and bounding shapes. The systems call the
compiled routines directly; games may call these functions.

Guarantees: ``contact``/``overlaps`` answer every pair of Circle, Rect, OrientedRect,
Segment, Polygon and Compound in both orders; ``time_of_impact`` finds the first touch of
two moving shapes without tunnelling; ``distance`` measures how far apart two shapes are
(exact, with the closest points) and ``contact_within`` widens ``contact`` by a skin;
``point_in``, ``raycast``, ``segment_hits`` and ``line_overlaps`` answer point, ray and line
queries against every shape kind.
"""

from .contact import ON_TOLERANCE, PARALLEL_TOLERANCE, TOUCH_TOLERANCE, Contact, Separation
from .decompose import convex_decompose
from .distance import contact_within, distance
from .hull import (
    bounding_circle_of,
    bounding_rect_of,
    circles_circle_hull,
    circles_rect_hull,
    rects_rect_hull,
)
from .impact import (
    REACH,
    binary_impact_search,
    time_of_impact,
    toi_circle_circle,
    toi_circle_rect,
    toi_circle_segment,
    toi_rect_rect,
)
from .line import Line, overlaps
from .manifold import contact, contact_tol
from .query import line_overlaps, point_in, raycast, segment_hits

#: DESIGN.md's name for the exact pair test.
collide = contact

__all__ = [
    "Contact",
    "Line",
    "ON_TOLERANCE",
    "PARALLEL_TOLERANCE",
    "REACH",
    "Separation",
    "TOUCH_TOLERANCE",
    "binary_impact_search",
    "bounding_circle_of",
    "bounding_rect_of",
    "circles_circle_hull",
    "circles_rect_hull",
    "collide",
    "contact",
    "contact_tol",
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
