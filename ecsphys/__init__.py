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
from .layers import Layers
from .physics import Physics
from .shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment, Shape

__all__ = [
    "ACTIVE", "ALL", "PASSIVE", "STATIC", "AccelerationMap", "Circle", "Collider",
    "ColliderKind", "Compound", "Geometry", "Layers", "OrientedRect", "Physics", "Polygon",
    "Position", "Rect", "Segment", "Shape", "Velocity",
]
