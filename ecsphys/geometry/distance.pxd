# Distances between shapes (compiled): see distance.pyx for the guarantees.
from .shape_data cimport Body, CContact, CSeparation, Store

# Separation of bodies a and b (exact distance and closest points when apart; distance 0
# with contact()'s normal and point when they overlap or touch). Returns False, leaving
# `out` unspecified, only when the shapes are certainly more than `limit` apart.
cdef bint separation(const Store* s, const Body* a, const Body* b, double limit,
                     CSeparation* out) noexcept nogil

# contact() widened by a skin: overlapping shapes give contact()'s answer; shapes apart by
# at most `skin` a contact with depth = -distance, the separation's normal and the point
# halfway between the closest points; False beyond.
cdef bint contact_within(const Store* s, const Body* a, const Body* b, double skin,
                         CContact* out) noexcept nogil
