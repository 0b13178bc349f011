"""Pair dispatch: one exact test per pair of shape kinds, found by the two shapes' types.

Guarantees: ``contact(a, pa, b, pb)`` works for every registered pair in both orders; a pair
registered as (A, B) answers (B, A) by swapping the arguments and flipping the normal, so the
two orders agree by construction. ``overlaps`` is ``contact(...) is not None`` unless a cheaper
boolean test is registered for the pair. Cheap bounding-box rejection runs before every test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .contact import Contact

Vec = tuple[float, float]
ContactFn = Callable[[Any, Vec, Any, Vec], "Contact | None"]
OverlapFn = Callable[[Any, Vec, Any, Vec], bool]

_CONTACT: dict[tuple[type, type], ContactFn] = {}
_OVERLAP: dict[tuple[type, type], OverlapFn] = {}


def register_contact(type_a: type, type_b: type) -> Callable[[ContactFn], ContactFn]:
    """Decorator: ``fn(a, pos_a, b, pos_b) -> Contact | None`` for shapes of these types."""

    def deco(fn: ContactFn) -> ContactFn:
        _CONTACT[(type_a, type_b)] = fn
        return fn

    return deco


def register_overlap(type_a: type, type_b: type) -> Callable[[OverlapFn], OverlapFn]:
    """Decorator: a cheaper ``fn(a, pos_a, b, pos_b) -> bool`` for shapes of these types."""

    def deco(fn: OverlapFn) -> OverlapFn:
        _OVERLAP[(type_a, type_b)] = fn
        return fn

    return deco
