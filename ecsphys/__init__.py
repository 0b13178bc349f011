"""ecsphys: 2D collision and physics for games built on the esper ECS."""

from .components import (
    ACTIVE,
    ALL,
    PASSIVE,
    STATIC,
    AccelerationMap,
    Collider,
    ColliderKind,
    Geometry,
    Position,
    Velocity,
)
from .physics import Physics
from .shapes import Circle, Rect, Shape

__all__ = [
    "ACTIVE", "ALL", "PASSIVE", "STATIC", "AccelerationMap", "Circle", "Collider",
    "ColliderKind", "Geometry", "Physics", "Position", "Rect", "Shape", "Velocity",
]
