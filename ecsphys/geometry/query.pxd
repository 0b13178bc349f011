# Point and ray queries against shapes (compiled): see query.pyx for the guarantees.
from .shape_data cimport Body, Store

# True if world point (x, y) is inside body b or within TOUCH_TOLERANCE of its boundary.
cdef bint point_in(const Store* s, const Body* b, double x, double y) noexcept nogil

# First hit of the ray origin + direction * t, 0 <= t <= max_t, on body b: True with *t and
# the shape's outward unit normal there; a ray starting inside gets t = 0 and the normal
# facing back along the ray. direction must not be zero.
cdef bint raycast(const Store* s, const Body* b, double ox, double oy, double dx, double dy,
                  double max_t, double* t, double* nx, double* ny) noexcept nogil
