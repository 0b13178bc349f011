# Pixel masks, compiled (see mask.pyx for the guarantees).

from .shape_data cimport Leaf

cdef inline bint mask_bit(const Leaf* m, long row, long col) noexcept nogil:
    """Pixel (row, col) of mask m is set; False outside the mask."""
    if row < 0 or col < 0 or row >= m.nf or col >= m.nv:
        return False
    return (m.bits[row * m.words + (col >> 6)] >> (col & 63)) & 1

cdef bint mask_point(const Leaf* m, double lx, double ly) noexcept nogil
cdef long mask_mask(const Leaf* a, double ax, double ay, const Leaf* b, double bx, double by,
                    bint count) noexcept nogil
cdef bint mask_ray(const Leaf* m, double ox, double oy, double dx, double dy, double max_t,
                   double* t, double* nx, double* ny) noexcept nogil
cdef bint mask_line(const Leaf* m, double nx, double ny, double k, double tol) noexcept nogil
