# Times of impact of moving shapes (compiled): see impact.pyx for the guarantees.
from .shape_data cimport Body, CContact, Store

# First t in [0, 1] at which body a moving by (amx, amy) touches body b moving by (bmx, bmy)
# (bodies at their positions + move * t), with the contact then (normal from a to b, both
# shapes where they are at t): True and *t, *out set; False if they do not touch during the
# move (or touch at the start without approaching).
cdef bint time_of_impact(const Store* s, const Body* a, double amx, double amy,
                         const Body* b, double bmx, double bmy,
                         double* t, CContact* out) noexcept nogil


# The binary impact search (the seed's method, exact swept-hull leaves): the first part
# [*t0, *t1] of convex a's move by (mx, my) (b, convex, at rest) in which a touches b within
# TOUCH_TOLERANCE, leaves no longer than min_step world units (min_step < 0: the default,
# max(size / 4, 1/32)); False if a never touches b during the move. a and b are bodies of one
# convex leaf each (Rect, OrientedRect, Segment or Polygon).
cdef bint impact_leaf(const Store* s, const Body* a, double mx, double my, const Body* b,
                      double min_step, double* t0, double* t1) noexcept nogil
