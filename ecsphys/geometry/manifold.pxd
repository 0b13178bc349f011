# Contacts of shape pairs (compiled): see manifold.pyx for the guarantees.
from .shape_data cimport Body, CContact, Leaf, Store

# Contact of body a with body b, shapes at most `tol` apart counting as touching (depth >=
# -tol); False if they are further apart. Every pair of kinds, compounds included (the
# deepest part pair), both orders; a same-kind pair is computed in one canonical order so
# contact(b, a) is contact(a, b) with the normal reversed, exactly.
cdef bint contact(const Store* s, const Body* a, const Body* b, double tol,
                  CContact* out) noexcept nogil

# True if bodies a and b overlap or touch within TOUCH_TOLERANCE (contact(...) would be
# found with tol = TOUCH_TOLERANCE), often cheaper.
cdef bint overlap(const Store* s, const Body* a, const Body* b) noexcept nogil

# Contact of two leaves at body positions (pa, pb), in the order given (no canonical swap).
cdef bint leaf_contact(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                       double pby, double tol, CContact* out) noexcept nogil
