"""Tests of a Compound (bounded shape group) against any shape, including another group.

Guarantees: the groups' hulls are tested first, so two far-apart groups cost one box test;
then each part (whose own test rejects on its bounding box) against the other shape.
``compound_contact`` returns the deepest part contact; ``compound_overlaps`` stops at the
first touching part.
"""

from __future__ import annotations

from typing import Any

from ..shapes import Compound
from .contact import TOUCH_TOLERANCE, Contact
from .dispatch import contact_tol, overlaps

Vec = tuple[float, float]


def _boxes_apart(a: Any, pa: Vec, b: Any, pb: Vec, tol: float) -> bool:
    ax0, ay0, ax1, ay1 = a.bounds()
    bx0, by0, bx1, by1 = b.bounds()
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    return (
        bx0 + dx > ax1 + tol or ax0 > bx1 + dx + tol or by0 + dy > ay1 + tol or ay0 > by1 + dy + tol
    )


def compound_contact(a: Compound, pa: Vec, b: Any, pb: Vec, tol: float) -> Contact | None:
    """Deepest contact of any part of ``a`` with ``b`` (normal from ``a`` to ``b``)."""
    if _boxes_apart(a, pa, b, pb, tol):
        return None
    best: Contact | None = None
    for part, dx, dy in a.parts:
        c = contact_tol(part, (pa[0] + dx, pa[1] + dy), b, pb, tol)
        if c is not None and (best is None or c.depth > best.depth):
            best = c
    return best


def compound_overlaps(a: Compound, pa: Vec, b: Any, pb: Vec) -> bool:
    """True if any part of ``a`` overlaps or touches ``b``."""
    if _boxes_apart(a, pa, b, pb, TOUCH_TOLERANCE):
        return False
    return any(overlaps(part, (pa[0] + dx, pa[1] + dy), b, pb) for part, dx, dy in a.parts)
