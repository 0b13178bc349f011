"""ecsphys: 2D collision and physics for games built on the esper ECS."""

from ._compiled import require_compiled

require_compiled()  # a clear ImportError, before anything needs the compiled core

from .components import (  # noqa: E402
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
from .ground import Ground  # noqa: E402
from .layers import Layers  # noqa: E402
from .mask import Mask  # noqa: E402
from .physics import Physics  # noqa: E402
from .queries.world_queries import Hit, RayHits  # noqa: E402
from .shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment, Shape  # noqa: E402
from .systems.adopt import MissingGeometryWarning  # noqa: E402
from .tilemap import TileMap  # noqa: E402

__all__ = [
    "ACTIVE", "ALL", "PASSIVE", "STATIC", "AccelerationMap", "Circle", "Collider",
    "ColliderKind", "Compound", "Geometry", "Ground", "Hit", "Layers", "Mask",
    "MissingGeometryWarning", "OrientedRect", "Physics", "Polygon", "Position", "RayHits",
    "Rect", "Segment", "Shape", "TileMap", "Velocity",
]
