# Times of impact of moving shapes (compiled): see impact.pyx for the guarantees.
from .shape_data cimport Body, CContact, Store

# First t in [0, 1] at which body a moving by (amx, amy) touches body b moving by (bmx, bmy)
# (bodies at their positions + move * t), with the contact then (normal from a to b, both
# shapes where they are at t): True and *t, *out set; False if they do not touch during the
# move (or touch at the start without approaching).
cdef bint time_of_impact(const Store* s, const Body* a, double amx, double amy,
                         const Body* b, double bmx, double bmy,
                         double* t, CContact* out) noexcept nogil
