# Small vector arithmetic shared by the compiled geometry (inline, C values only).
#
# Guarantees: `norm` is the Euclidean length of any finite vector, exact to rounding for tiny
# and huge ones too (the plain sqrt(x*x + y*y) underflows once the squares are denormal and
# overflows past 1e154: those rare cases are scaled first); `unit` gives a unit vector of a
# nonzero vector and its length by the same rule; `closest_on_segment` clamps the projection;
# `clip_ray` narrows a ray's [t0, t1] to the part inside a box (slabs), the one clip every ray
# walk uses.

from libc.math cimport fabs, sqrt

cdef inline double sq(double x) noexcept nogil:
    return x * x


cdef inline double norm(double x, double y) noexcept nogil:
    cdef double h = sqrt(x * x + y * y)
    cdef double s
    if 1e-150 < h < 1e150:
        return h
    s = fabs(x) if fabs(x) > fabs(y) else fabs(y)
    if s == 0.0 or s != s or s > 1.7976931348623157e308:
        return h if s == 0.0 or s != s else s
    x = x / s
    y = y / s
    return s * sqrt(x * x + y * y)


cdef inline double unit(double x, double y, double* ux, double* uy) noexcept nogil:
    """The unit vector ``(*ux, *uy)`` along a nonzero ``(x, y)``; returns its length."""
    cdef double h = norm(x, y)
    cdef double s
    if h > 1e-150:
        ux[0] = x / h
        uy[0] = y / h
        return h
    # tiny: divide by the largest component first, so the direction keeps full precision
    s = fabs(x) if fabs(x) > fabs(y) else fabs(y)
    x = x / s
    y = y / s
    cdef double k = sqrt(x * x + y * y)
    ux[0] = x / k
    uy[0] = y / k
    return h


cdef inline double max2(double a, double b) noexcept nogil:
    """The larger; the first of two equal values (the sign of a zero is kept)."""
    return b if b > a else a


cdef inline double min2(double a, double b) noexcept nogil:
    """The smaller; the first of two equal values."""
    return b if b < a else a


cdef inline void closest_on_segment(double px, double py, double x1, double y1, double x2,
                                    double y2, double* qx, double* qy) noexcept nogil:
    """The point ``(*qx, *qy)`` of segment (x1, y1)-(x2, y2) closest to (px, py)."""
    cdef double ex = x2 - x1, ey = y2 - y1
    cdef double ee = ex * ex + ey * ey
    cdef double t = ((px - x1) * ex + (py - y1) * ey) / ee if ee > 0.0 else 0.0
    t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
    qx[0] = x1 + ex * t
    qy[0] = y1 + ey * t


cdef inline double min_proj(const double* v, int nv, double nx, double ny) noexcept nogil:
    """The least projection on (nx, ny) of the nv vertices v (x y pairs; nv >= 1)."""
    cdef double m = nx * v[0] + ny * v[1], p
    cdef int j
    for j in range(1, nv):
        p = nx * v[2 * j] + ny * v[2 * j + 1]
        if p < m:
            m = p
    return m


cdef inline bint clip_ray(double ox, double oy, double dx, double dy, const double* box,
                          double* t0, double* t1) noexcept nogil:
    """Narrow ``[*t0, *t1]`` to the part of the ray ``(ox, oy) + (dx, dy) * t`` inside ``box``
    (x0, y0, x1, y1; closed); False if none is left."""
    cdef double a, b, s, o, d
    cdef int axis
    for axis in range(2):
        o = ox if axis == 0 else oy
        d = dx if axis == 0 else dy
        if d == 0.0:
            if o < box[axis] or o > box[axis + 2]:
                return False
            continue
        a = (box[axis] - o) / d
        b = (box[axis + 2] - o) / d
        if a > b:
            s = a
            a = b
            b = s
        if a > t0[0]:
            t0[0] = a
        if b < t1[0]:
            t1[0] = b
    return t0[0] <= t1[0]
