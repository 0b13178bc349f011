"""The table of exact pair tests: which function answers each pair of shape kinds.

Guarantees: after import, ``contact`` and ``overlaps`` answer every pair among Circle, Rect,
OrientedRect, Segment, Polygon and Compound, in both orders.
"""

from __future__ import annotations

from ..shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment
from . import circle_pairs as cp
from .compound import compound_contact, compound_overlaps
from .dispatch import register_contact, register_overlap
from .rect_pairs import rect_rect_contact, rect_rect_overlaps
from .sat import sat_contact, sat_overlaps

PRIMITIVES = (Circle, Rect, OrientedRect, Segment, Polygon)
CONVEX = (Rect, OrientedRect, Segment, Polygon)
ALL_KINDS = (*PRIMITIVES, Compound)

register_contact(Circle, Circle)(cp.circle_circle_contact)
register_overlap(Circle, Circle)(cp.circle_circle_overlaps)
register_contact(Circle, Rect)(cp.circle_rect_contact)
register_overlap(Circle, Rect)(cp.circle_rect_overlaps)
register_contact(Circle, Segment)(cp.circle_segment_contact)
register_overlap(Circle, Segment)(cp.circle_segment_overlaps)
for _kind in (OrientedRect, Polygon):
    register_contact(Circle, _kind)(cp.circle_convex_contact)
    register_overlap(Circle, _kind)(cp.circle_convex_overlaps)

for _i, _ka in enumerate(CONVEX):
    for _kb in CONVEX[_i:]:
        register_contact(_ka, _kb)(sat_contact)
        register_overlap(_ka, _kb)(sat_overlaps)
register_contact(Rect, Rect)(rect_rect_contact)
register_overlap(Rect, Rect)(rect_rect_overlaps)

for _kind in ALL_KINDS:
    register_contact(Compound, _kind)(compound_contact)
    register_overlap(Compound, _kind)(compound_overlaps)
