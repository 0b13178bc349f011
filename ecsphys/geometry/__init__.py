"""Pure 2D geometry: shape-pair tests, contacts, bounding shapes, time of impact.

No esper and no pyglet here: functions of shape values and positions, and NumPy kernels over
arrays of pairs. The systems call these; games may call them directly.
"""

from .contact import TOUCH_TOLERANCE, Contact

__all__ = ["Contact", "TOUCH_TOLERANCE"]
