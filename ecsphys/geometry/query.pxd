# Point and ray queries against shapes (compiled): see query.pyx for the guarantees.
from .shape_data cimport Body, Store

# True if world point (x, y) is inside body b or within TOUCH_TOLERANCE of its boundary.
cdef bint point_in(const Store* s, const Body* b, double x, double y) noexcept nogil

# First hit of the ray origin + direction * t, 0 <= t <= max_t, on body b: True with *t and
# the shape's outward unit normal there; a ray starting inside gets t = 0 and the normal
# facing back along the ray. direction must not be zero.
cdef bint raycast(const Store* s, const Body* b, double ox, double oy, double dx, double dy,
                  double max_t, double* t, double* nx, double* ny) noexcept nogil

# True if the world segment (x1, y1)-(x2, y2) touches body b (a point test when x1 == x2 and
# y1 == y2).
cdef bint segment_hits(const Store* s, const Body* b, double x1, double y1, double x2,
                       double y2) noexcept nogil

# True if the infinite line through world point (bx, by) with unit normal (nx, ny) touches
# body b within TOUCH_TOLERANCE.
cdef bint line_overlaps(const Store* s, const Body* b, double nx, double ny, double bx,
                        double by) noexcept nogil

# True if region a (any body but a tile map) overlaps body b within TOUCH_TOLERANCE; for a
# tile map b: a part of a meets one of its edges (either side) or lies inside its solid tiles.
cdef bint region_overlaps(const Store* s, const Body* a, const Body* b) noexcept nogil
