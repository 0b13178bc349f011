"""ecsphys: 2D collision and physics for games built on the esper ECS."""

from .shapes import Circle, Rect, Shape

__all__ = ["Circle", "Rect", "Shape"]
