# Contacts of shape pairs (compiled): see manifold.pyx for the guarantees.
from libc.math cimport fabs, frexp, ldexp, pow, sqrt

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

# --- CPython's float arithmetic, shared by the compiled geometry ------------------------------
# The Python geometry these modules replace measured lengths with math.hypot and squares with
# `** 2`; CPython computes neither as the C library's hypot or x * x, so they are reproduced
# here, and the compiled answers agree with the Python ones to the last bit.

cdef inline double py_square(double x) noexcept nogil:
    """``x ** 2`` as CPython computes it for a float: the C library's pow of |x| (not always
    the correctly rounded x * x). The exponent is volatile so that the C compiler does not
    turn the call into x * x."""
    cdef volatile double two = 2.0
    if x == 0.0:
        return 0.0
    return pow(fabs(x), two)


cdef inline double _py_norm_scaled(double v0, double v1, double scale) noexcept nogil:
    """CPython 3.11's vector_norm of (v0, v1) (both >= 0) once ``scale``, the power of two
    that brings the larger into [0.5, 1), is known: Veltkamp-Dekker squaring, compensated
    sums and a differential correction of the square root."""
    cdef double T27 = 134217729.0  # 2 ** 27 + 1, the Veltkamp splitter
    cdef double vec[2]
    cdef double x, t, hi, lo, h, oldcsum
    cdef double csum = 1.0, frac1 = 0.0, frac2 = 0.0, frac3 = 0.0
    cdef int i
    vec[0] = v0
    vec[1] = v1
    for i in range(2):
        x = vec[i] * scale
        t = x * T27
        hi = t - (t - x)
        lo = x - hi
        x = hi * hi
        oldcsum = csum
        csum += x
        frac1 += (oldcsum - csum) + x
        x = 2.0 * hi * lo
        oldcsum = csum
        csum += x
        frac2 += (oldcsum - csum) + x
        frac3 += lo * lo
    h = sqrt(csum - 1.0 + (frac1 + frac2 + frac3))
    x = h
    t = x * T27
    hi = t - (t - x)
    lo = x - hi
    x = -hi * hi
    oldcsum = csum
    csum += x
    frac1 += (oldcsum - csum) + x
    x = -2.0 * hi * lo
    oldcsum = csum
    csum += x
    frac2 += (oldcsum - csum) + x
    x = -lo * lo
    oldcsum = csum
    csum += x
    frac3 += (oldcsum - csum) + x
    x = csum - 1.0 + (frac1 + frac2 + frac3)
    return (h + x / (2.0 * h)) / scale


cdef inline double py_hypot(double a, double b) noexcept nogil:
    """``math.hypot(a, b)`` as CPython 3.11 computes it (Modules/mathmodule.c, vector_norm of
    two coordinates); the C library's hypot rounds differently about once in a thousand.
    Finite arguments."""
    cdef double v0 = fabs(a), v1 = fabs(b), mx = 0.0, x, oldcsum, csum = 1.0, frac1 = 0.0
    cdef int max_e
    if v0 > mx:
        mx = v0
    if v1 > mx:
        mx = v1
    if mx == 0.0:
        return mx
    frexp(mx, &max_e)
    if max_e >= -1023:
        return _py_norm_scaled(v0, v1, ldexp(1.0, -max_e))
    # subnormal extremes (scaling would overflow): divide by the largest instead
    x = v0 / mx
    x = x * x
    oldcsum = csum
    csum += x
    frac1 += (oldcsum - csum) + x
    x = v1 / mx
    x = x * x
    oldcsum = csum
    csum += x
    frac1 += (oldcsum - csum) + x
    return mx * sqrt(csum - 1.0 + frac1)


cdef inline double unit(double x, double y, double* ux, double* uy) noexcept nogil:
    """The unit vector ``(*ux, *uy)`` along a nonzero ``(x, y)``, and its length
    (circle_pairs._unit): divided by its largest component first, so it is exact for tiny
    vectors too (sqrt(x*x + y*y) loses precision once the squares are denormal). That
    component is then exactly 1, so math.hypot's scale is 0.5."""
    cdef double s = fabs(x) if fabs(x) > fabs(y) else fabs(y)
    cdef double h
    x = x / s
    y = y / s
    h = _py_norm_scaled(fabs(x), fabs(y), 0.5)
    ux[0] = x / h
    uy[0] = y / h
    return h * s


cdef inline void closest_on_segment(double px, double py, double x1, double y1, double x2,
                                    double y2, double* qx, double* qy) noexcept nogil:
    """The point ``(*qx, *qy)`` of segment (x1, y1)-(x2, y2) closest to (px, py)
    (circle_pairs.closest_on_segment)."""
    cdef double ex = x2 - x1, ey = y2 - y1
    cdef double ee = ex * ex + ey * ey
    cdef double t = ((px - x1) * ex + (py - y1) * ey) / ee if ee > 0.0 else 0.0
    t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
    qx[0] = x1 + ex * t
    qy[0] = y1 + ey * t
