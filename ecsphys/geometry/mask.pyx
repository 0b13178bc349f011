# cython: embedsignature=True
"""Pixel masks, compiled: a point against a mask, and a mask against a mask 64 pixels at a time.

Guarantees:
- a mask leaf (``shape_data.MASK``) holds ``height`` rows of ``words`` 64-bit words (bit
  ``c % 64`` of word ``c // 64`` is column ``c``; bits past the width are 0), row 0 on top,
  pixels ``scale`` square, centred on (cx, cy) relative to its body;
- ``mask_point``: whether a point (relative to the body) lies in a set pixel; a point on a
  pixel's left or bottom side belongs to it; nothing outside the mask's box is read (no
  negative index wraps around);
- ``mask_mask``: whether (or, with ``count``, how many pixel pairs) the set pixels of two masks
  overlap with positive area (pixels that only share a side do not). Two masks of one scale
  whose grids are offset by whole pixels AND their rows word by word over the overlap window;
  offset by a fraction of a pixel, a pixel meets the two columns (rows) it straddles, so the
  other row is read at two shifts and ORed; masks of different scales are compared pixel by
  pixel against the block of the other's pixels each one covers. Exact in every case (the
  brute-force pixel loop agrees, tests/test_mask.py);
- ``overlaps_at`` answers one mask against another at many placements in one compiled call;
- ``mask_ray``: the first set pixel a ray enters, walked pixel by pixel from the mask's box;
- ``mask_line``: whether an infinite line touches a set pixel's square (within a tolerance);
- ``mask_contact`` (approximate, documented so): two masks sharing pixels touch with a normal
  against the gradient of their overlap (the shared pixels counted with b moved one pixel
  each way along x and y, pygame's trick; from a's centre to b's when that is flat), a depth
  (how far b must move along that normal to share no pixel, to a hundredth of a pixel) and a
  point (halfway between the centroids of either mask's shared pixels); masks sharing no pixel touch (depth 0, an axis
  normal) when b moved ``tol`` towards a along an axis would share one.
"""

from libc.math cimport INFINITY, ceil, fabs, floor, sqrt
from libc.stdint cimport uint64_t

from .shape_data cimport Leaf, Store, leaf_at, store_of

import numpy as np

cdef double ALIGN = 1e-9  # how close to a whole pixel an offset counts as aligned

cdef extern from *:
    """
    static inline int ecsphys_popcount64(unsigned long long x) { return __builtin_popcountll(x); }
    """
    int ecsphys_popcount64(unsigned long long x) nogil


cdef bint mask_point(const Leaf* m, double lx, double ly) noexcept nogil:
    cdef double u = (lx - (m.cx - m.hx)) / m.radius
    cdef double v = ((m.cy + m.hy) - ly) / m.radius
    if not (u >= 0.0 and v > 0.0 and u < m.nv and v <= m.nf):
        return False
    # v counts rows down from the top: row r holds v in (r, r + 1], its bottom side included
    return mask_bit(m, <long> ceil(v) - 1, <long> floor(u))


cdef inline uint64_t _row_bits(const Leaf* m, long row, long start) noexcept nogil:
    """Bits ``start .. start + 63`` of row ``row`` (0 outside the mask)."""
    if row < 0 or row >= m.nf or start >= m.nv or start <= -64:
        return 0
    cdef const uint64_t* w = m.bits + row * m.words
    cdef long q = start >> 6  # floor division, also for negative starts
    cdef int r = <int> (start - (q << 6))
    cdef uint64_t lo = w[q] if 0 <= q < m.words else 0
    cdef uint64_t hi
    if r == 0:
        return lo
    hi = w[q + 1] if 0 <= q + 1 < m.words else 0
    return (lo >> r) | (hi << (64 - r))


cdef long _aligned(const Leaf* a, const Leaf* b, double dx, double dy, bint count) noexcept nogil:
    """Masks of one scale: b's column c sits at a's column c + dx, b's row r at a's row
    r + dy (in pixels, rows down)."""
    cdef long dxi = <long> floor(dx + ALIGN)
    cdef long dyi = <long> floor(dy + ALIGN)
    cdef bint fx = fabs(dx - dxi) > ALIGN
    cdef bint fy = fabs(dy - dyi) > ALIGN
    # a's rows and columns that may meet b
    cdef long r0 = dyi if dyi > 0 else 0
    cdef long r1 = dyi + b.nf + (1 if fy else 0)
    cdef long c0 = dxi if dxi > 0 else 0
    cdef long c1 = dxi + b.nv + (1 if fx else 0)
    if r1 > a.nf:
        r1 = a.nf
    if c1 > a.nv:
        c1 = a.nv
    if r0 >= r1 or c0 >= c1:
        return 0
    cdef long total = 0, row, w, start, rb
    cdef uint64_t mine, theirs, window
    cdef long w0 = c0 >> 6, w1 = (c1 - 1) >> 6
    for row in range(r0, r1):
        rb = row - dyi
        for w in range(w0, w1 + 1):
            mine = a.bits[row * a.words + w]
            if mine == 0:
                continue
            # only a's columns c0 .. c1 - 1 of this word
            window = ~(<uint64_t> 0)
            if w == w0 and (c0 & 63):
                window &= ~(<uint64_t> 0) << (c0 & 63)
            if w == w1 and (c1 & 63):
                window &= ~(<uint64_t> 0) >> (64 - (c1 & 63))
            mine &= window
            start = (w << 6) - dxi
            theirs = _row_bits(b, rb, start)
            if fx:
                theirs |= _row_bits(b, rb, start - 1)
            if fy:
                theirs |= _row_bits(b, rb - 1, start)
                if fx:
                    theirs |= _row_bits(b, rb - 1, start - 1)
            mine &= theirs
            if mine:
                if not count:
                    return 1
                total += ecsphys_popcount64(mine)
    return total


cdef long _general(const Leaf* a, double ax, double ay, const Leaf* b, double bx,
                   double by, bint count) noexcept nogil:
    """Masks of different scales: each set pixel of a against the block of b's pixels its
    square covers (positive area)."""
    cdef double sa = a.radius, sb = b.radius
    cdef double a_left = ax + a.cx - a.hx, a_top = ay + a.cy + a.hy
    cdef double b_left = bx + b.cx - b.hx, b_top = by + b.cy + b.hy
    cdef long total = 0, r, c, rr, cc, rb0, rb1, cb0, cb1
    cdef double x0, x1, y0, y1
    for r in range(a.nf):
        y0 = (a_top - (r + 1) * sa - b_top) / -sb  # b rows (down) the pixel spans
        y1 = (a_top - r * sa - b_top) / -sb
        rb0 = <long> floor(y1 + ALIGN)
        rb1 = <long> floor(y0 - ALIGN)
        if rb1 < 0 or rb0 >= b.nf:
            continue
        for c in range(a.nv):
            if not mask_bit(a, r, c):
                continue
            x0 = (a_left + c * sa - b_left) / sb
            x1 = (a_left + (c + 1) * sa - b_left) / sb
            cb0 = <long> floor(x0 + ALIGN)
            cb1 = <long> floor(x1 - ALIGN)
            for rr in range(rb0 if rb0 > 0 else 0, (rb1 if rb1 < b.nf - 1 else b.nf - 1) + 1):
                for cc in range(cb0 if cb0 > 0 else 0, (cb1 if cb1 < b.nv - 1 else b.nv - 1) + 1):
                    if mask_bit(b, rr, cc):
                        if not count:
                            return 1
                        total += 1
    return total


cdef long mask_mask(const Leaf* a, double ax, double ay, const Leaf* b, double bx, double by,
                    bint count) noexcept nogil:
    cdef double dx, dy
    if (bx + b.x0 >= ax + a.x1 or ax + a.x0 >= bx + b.x1
            or by + b.y0 >= ay + a.y1 or ay + a.y0 >= by + b.y1):
        return 0
    if a.radius != b.radius:
        return _general(a, ax, ay, b, bx, by, count)
    # b's left column and top row in a's pixels (rows down)
    dx = ((bx + b.cx - b.hx) - (ax + a.cx - a.hx)) / a.radius
    dy = ((ay + a.cy + a.hy) - (by + b.cy + b.hy)) / a.radius
    return _aligned(a, b, dx, dy, count)


cdef inline bint _slab(double p0, double d, double size, int which, double* t_in,
                       double* t_out, int* axis) noexcept nogil:
    """Clip the ray's span ``t_in .. t_out`` to ``0 <= p0 + d * t <= size`` along one axis
    (``which`` is noted in ``axis`` when this side is where the ray enters); False when the
    ray runs beside the box."""
    cdef double ta, tb, tmp
    if d == 0.0:
        return 0.0 <= p0 <= size
    ta = (0.0 - p0) / d
    tb = (size - p0) / d
    if ta > tb:
        tmp = ta; ta = tb; tb = tmp
    if ta > t_in[0]:
        t_in[0] = ta
        axis[0] = which
    if tb < t_out[0]:
        t_out[0] = tb
    return True


cdef bint mask_ray(const Leaf* m, double ox, double oy, double dx, double dy, double max_t,
                   double* t, double* nx, double* ny) noexcept nogil:
    """The first set pixel the ray ``(ox, oy) + (dx, dy) * t`` (relative to the body, t in
    0 .. max_t) enters: its time and the outward normal of the side it enters by; a ray that
    starts in a set pixel hits at 0, its normal facing back along the ray. The pixels are
    walked one by one from where the ray enters the mask's box (Amanatides and Woo)."""
    cdef double s = m.radius
    cdef double left = m.cx - m.hx, top = m.cy + m.hy
    # in pixels: u to the right, v down the rows
    cdef double u0 = (ox - left) / s, v0 = (top - oy) / s
    cdef double du = dx / s, dv = -dy / s
    cdef double t_in = 0.0, t_out = max_t, tmp
    cdef int axis = -1  # the box side the ray enters by: 0 left/right, 1 top/bottom
    if not (_slab(u0, du, m.nv, 0, &t_in, &t_out, &axis)
            and _slab(v0, dv, m.nf, 1, &t_in, &t_out, &axis)):
        return False
    if t_in > t_out:
        return False
    # the first pixel: the one the ray is in just after t_in
    cdef double ue = u0 + du * t_in, ve = v0 + dv * t_in
    cdef long c = <long> floor(ue + (1e-9 if du > 0.0 else (-1e-9 if du < 0.0 else 0.0)))
    cdef long r = <long> floor(ve + (1e-9 if dv > 0.0 else (-1e-9 if dv < 0.0 else 0.0)))
    cdef long sc = 1 if du > 0.0 else -1
    cdef long sr = 1 if dv > 0.0 else -1
    cdef double next_u = ((c + 1) - u0) / du if du > 0.0 else (
        (c - u0) / du if du < 0.0 else INFINITY)
    cdef double next_v = ((r + 1) - v0) / dv if dv > 0.0 else (
        (r - v0) / dv if dv < 0.0 else INFINITY)
    cdef double step_u = fabs(1.0 / du) if du != 0.0 else INFINITY
    cdef double step_v = fabs(1.0 / dv) if dv != 0.0 else INFINITY
    cdef double at = t_in
    while at <= t_out:
        if 0 <= c < m.nv and 0 <= r < m.nf and mask_bit(m, r, c):
            t[0] = at
            if at == 0.0:  # starts in a set pixel
                tmp = sqrt(dx * dx + dy * dy)
                nx[0] = -dx / tmp
                ny[0] = -dy / tmp
            elif axis == 0:
                nx[0] = -1.0 if du > 0.0 else 1.0
                ny[0] = 0.0
            else:
                nx[0] = 0.0
                ny[0] = 1.0 if dv > 0.0 else -1.0  # entering a row from above: the top side
            return True
        if next_u < next_v:
            at = next_u
            next_u += step_u
            c += sc
            axis = 0
        else:
            at = next_v
            next_v += step_v
            r += sr
            axis = 1
    return False


cdef inline bint _row_any(const Leaf* m, long row, long c0, long c1) noexcept nogil:
    """Whether any of columns ``c0 .. c1`` (inside the mask) of ``row`` is set."""
    cdef const uint64_t* w = m.bits + row * m.words
    cdef long k, k0 = c0 >> 6, k1 = c1 >> 6
    cdef uint64_t word
    for k in range(k0, k1 + 1):
        word = w[k]
        if k == k0:
            word &= ~(<uint64_t> 0) << (c0 & 63)
        if k == k1 and (c1 & 63) != 63:
            word &= ~(<uint64_t> 0) >> (63 - (c1 & 63))
        if word:
            return True
    return False


cdef bint mask_line(const Leaf* m, double nx, double ny, double k, double tol) noexcept nogil:
    """Whether the line ``nx * x + ny * y = k`` (relative to the body, (nx, ny) a unit
    normal) touches a set pixel's square within ``tol``. Row by row: the columns whose
    squares reach the line form one interval (the line crosses a row once), tested a word at
    a time."""
    cdef double s = m.radius
    cdef double reach = 0.5 * s * (fabs(nx) + fabs(ny)) + tol
    cdef double left = m.cx - m.hx, top = m.cy + m.hy
    cdef double a = nx * s, b, lo, hi, tmp
    cdef long row, c0, c1
    for row in range(m.nf):
        # centre of pixel (row, c): n . centre - k = a * c + b
        b = nx * (left + 0.5 * s) + ny * (top - (row + 0.5) * s) - k
        if a == 0.0:
            if fabs(b) > reach:
                continue
            c0, c1 = 0, m.nv - 1
        else:
            lo = (-reach - b) / a
            hi = (reach - b) / a
            if lo > hi:
                tmp = lo; lo = hi; hi = tmp
            if hi < 0.0 or lo > m.nv - 1:
                continue
            c0 = <long> ceil(lo) if lo > 0.0 else 0
            c1 = <long> floor(hi) if hi < m.nv - 1 else m.nv - 1
            if c0 > c1:
                continue
        if _row_any(m, row, c0, c1):
            return True
    return False


def overlaps_at(a, pos_a, b, positions):
    """For each row of ``positions`` (an (N, 2) array), whether mask ``b`` placed there
    overlaps mask ``a`` at ``pos_a`` (set pixels sharing area): ``geometry.overlaps`` for many
    placements in one compiled call. Returns a bool array of N."""
    from ..mask import Mask
    from .shape_store import public_store
    if not isinstance(a, Mask) or not isinstance(b, Mask):
        raise TypeError(f"overlaps_at takes two masks, got {type(a).__name__} and "
                        f"{type(b).__name__}")
    cdef const double[:, ::1] p = np.ascontiguousarray(positions, dtype=np.float64).reshape(-1, 2)
    cdef double ax = pos_a[0], ay = pos_a[1]
    store = public_store()
    fa = store.intern(a)[0]
    fb = store.intern(b)[0]
    cdef Store s = store_of(store)
    cdef Leaf la = leaf_at(&s, fa)
    cdef Leaf lb = leaf_at(&s, fb)
    cdef Py_ssize_t i, n = p.shape[0]
    out_ = np.zeros(n, dtype=np.bool_)
    cdef unsigned char[::1] out = out_.view(np.uint8)
    with nogil:
        for i in range(n):
            out[i] = mask_mask(&la, ax, ay, &lb, p[i, 0], p[i, 1], False) > 0
    return out_
