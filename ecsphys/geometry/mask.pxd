# Pixel masks, compiled (see mask.pyx for the guarantees).

from .shape_data cimport CContact, Leaf

cdef bint mask_point(const Leaf* m, double lx, double ly) noexcept nogil
cdef long mask_mask(const Leaf* a, double ax, double ay, const Leaf* b, double bx, double by,
                    bint count) noexcept nogil
cdef bint mask_contact(const Leaf* a, double ax, double ay, const Leaf* b, double bx, double by,
                       double tol, CContact* out) noexcept nogil
