"""Pair dispatch: one exact test per pair of shape kinds, found by the two shapes' types.

Guarantees: ``contact(a, pa, b, pb)`` works for every registered pair in both orders; a pair
registered as (A, B) answers (B, A) by swapping the arguments and flipping the normal, and a
pair of the same kind is always computed in one canonical order (by position), so
``contact(b, pb, a, pa) == contact(a, pa, b, pb).flipped()`` exactly. ``overlaps`` uses a
cheaper boolean test where one is registered, else ``contact(...) is not None``. Each test
starts with its own cheap rejection (bounding boxes, squared distances).

Touching: shapes up to ``TOUCH_TOLERANCE`` apart count as touching; their contact has a
depth in ``[-TOUCH_TOLERANCE, 0]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .contact import TOUCH_TOLERANCE, Contact

Vec = tuple[float, float]
#: ``fn(a, pos_a, b, pos_b, tol) -> Contact | None``: shapes at most ``tol`` apart touch.
ContactFn = Callable[[Any, Vec, Any, Vec, float], "Contact | None"]
OverlapFn = Callable[[Any, Vec, Any, Vec], bool]

_CONTACT: dict[tuple[type, type], ContactFn] = {}
_OVERLAP: dict[tuple[type, type], OverlapFn] = {}


def _flip_contact(fn: ContactFn) -> ContactFn:
    def flipped(a: Any, pa: Vec, b: Any, pb: Vec, tol: float) -> Contact | None:
        c = fn(b, pb, a, pa, tol)
        return None if c is None else c.flipped()

    return flipped


def _flip_overlap(fn: OverlapFn) -> OverlapFn:
    def flipped(a: Any, pa: Vec, b: Any, pb: Vec) -> bool:
        return fn(b, pb, a, pa)

    return flipped


def register_contact(type_a: type, type_b: type) -> Callable[[ContactFn], ContactFn]:
    """Decorator: ``fn(a, pos_a, b, pos_b, tol) -> Contact | None`` for these types; the
    swapped order is registered too (unless registered explicitly)."""

    def deco(fn: ContactFn) -> ContactFn:
        _CONTACT[(type_a, type_b)] = fn
        if type_a is not type_b:
            _CONTACT[(type_b, type_a)] = _flip_contact(fn)
        return fn

    return deco


def register_overlap(type_a: type, type_b: type) -> Callable[[OverlapFn], OverlapFn]:
    """Decorator: a cheaper ``fn(a, pos_a, b, pos_b) -> bool`` for these types (both orders)."""

    def deco(fn: OverlapFn) -> OverlapFn:
        _OVERLAP[(type_a, type_b)] = fn
        if type_a is not type_b:
            _OVERLAP[(type_b, type_a)] = _flip_overlap(fn)
        return fn

    return deco


def contact_fn(type_a: type, type_b: type) -> ContactFn:
    """The registered contact test for this ordered pair of types; ``TypeError`` if none."""
    try:
        return _CONTACT[(type_a, type_b)]
    except KeyError:
        raise TypeError(
            f"no contact test for {type_a.__name__} against {type_b.__name__}"
        ) from None


def _canonical(a: Any, pa: Vec, b: Any, pb: Vec) -> bool:
    """True if a same-kind pair should be computed swapped (b first)."""
    if (pb[0], pb[1]) != (pa[0], pa[1]):
        return (pb[0], pb[1]) < (pa[0], pa[1])
    return hash(b) < hash(a)


def contact_tol(a: Any, pa: Vec, b: Any, pb: Vec, tol: float) -> Contact | None:
    """``contact`` with a chosen touching tolerance ``tol`` (used by time of impact)."""
    ta, tb = type(a), type(b)
    fn = _CONTACT.get((ta, tb))
    if fn is None:
        fn = contact_fn(ta, tb)
    if ta is tb and _canonical(a, pa, b, pb):
        c = fn(b, pb, a, pa, tol)
        return None if c is None else c.flipped()
    return fn(a, pa, b, pb, tol)


def contact(a: Any, pos_a: Vec, b: Any, pos_b: Vec) -> Contact | None:
    """Exact contact of shape ``a`` at body position ``pos_a`` with ``b`` at ``pos_b``.

    Returns ``None`` if they are apart, else a ``Contact`` whose unit ``normal`` points from
    ``a`` to ``b``, whose ``depth`` separates them when ``b`` moves by ``normal * depth``
    (``>= -TOUCH_TOLERANCE``: touching counts), and whose ``point`` lies in the overlap.
    Raises ``TypeError`` for a pair of kinds without a test.
    """
    return contact_tol(a, pos_a, b, pos_b, TOUCH_TOLERANCE)


def overlaps(a: Any, pos_a: Vec, b: Any, pos_b: Vec) -> bool:
    """True if ``a`` at ``pos_a`` and ``b`` at ``pos_b`` overlap or touch (within
    ``TOUCH_TOLERANCE``); the same answer as ``contact(...) is not None``, often cheaper.
    Raises ``TypeError`` for a pair of kinds without a test."""
    fn = _OVERLAP.get((type(a), type(b)))
    if fn is not None:
        return fn(a, pos_a, b, pos_b)
    return contact_tol(a, pos_a, b, pos_b, TOUCH_TOLERANCE) is not None


#: DESIGN.md's name for the exact pair test.
collide = contact
