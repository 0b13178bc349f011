# Contacts of shape pairs, compiled: where and how deep two shapes touch.
#
# Guarantees:
# - `contact(s, a, b, tol, out)` answers every pair of Circle, Rect, OrientedRect, Segment,
#   Polygon and Compound bodies, in both orders: the unit normal from a to b, the depth that
#   separates them when b moves by normal * depth (>= -tol: shapes at most `tol` apart count
#   as touching, with a small negative depth) and a world point on or between the touching
#   boundaries; False if they are further apart;
# - a pair registered one way in the Python dispatch (a circle first; of two convex pieces the
#   lower kind first) answers the other order by flipping the normal, exactly; a same-kind pair
#   is computed in one canonical order (by body position, then the shape's hash), so
#   contact(b, a) is contact(a, b) with the normal reversed, bit for bit;
# - circle pairs: exact closest-feature contacts: the circle touches a
#   convex shape when its centre is within its radius of it; the normal is the direction from
#   the centre to the closest point (coincident circle centres: (1, 0)); a centre inside a
#   shape leaves through the nearest face; the point is halfway through the overlap;
# - two axis-aligned rects: the axis of least overlap (x on a tie), the centre of the overlap
#   region (rect_pairs.py);
# - two convex pieces (separating axes): disjoint exactly when a face normal of one of
#   them separates their projections (a segment's "faces" are both normals and both
#   directions, so collinear segments that do not meet are apart); the normal is the face
#   normal of least overlap, the depth that overlap (the minimum translation), the point the
#   middle of the touching features;
# - a compound: nothing if the bounding boxes of the whole groups are apart, else the deepest
#   part-pair contact (the first one found on a tie); `overlap` stops at the first touching
#   part pair;
# - a tile map: the deepest contact with its one-sided edges near the other body, each pushing
#   the body out to the edge's open side: a contact whose normal would push it to the closed
#   side, any contact of a mask (its overlap gradient does not know sides), and one leaning
#   off the edge's normal towards a concave corner (a wall rising at that end) take the
#   edge's normal and the depth that clears the edge along it; at a convex corner (a ledge)
#   the corner's own normal stays, so a body beside a ledge is pushed out sideways;
# - `overlap(s, a, b)` is `contact(..., TOUCH_TOLERANCE)` found, without the square roots;
# - a compound's parts are read from the store with the part offsets baked into their
#   vertices; a same-kind part pair is put in canonical order by the body positions and the
#   parts' store hashes.
#
# Method: every routine reads C values only (Leaf and Body structs, pointers into the shape
# store) and allocates nothing; the public functions intern both shapes in the public store,
# then take its pointers and call the cdef routine. One small function per pair of leaf kinds,
# a dispatch on the two kinds, and the bounding-box rejections of the Python code.

cimport cython
from libc.math cimport INFINITY, fabs, floor, sqrt

from libc.stdint cimport uint64_t

from .vec cimport closest_on_segment, max2, min2, min_proj, norm, sq, unit

from .mask cimport mask_bit, mask_mask
from .shape_data cimport (
    public_pair,
    CIRCLE, LF_RADIUS, LF_STRIDE, LI_F0, LI_STRIDE, MASK, RECT, SEGMENT, TILEMAP, Body,
    CContact, Leaf, Near, Store, is_group, leaf_at, tile_kind_at,
    leaf_body, near_body, near_next,
)

from .contact import TOUCH_TOLERANCE, Contact

__all__ = ["contact", "contact_tol", "overlaps"]

cdef double TOUCH = TOUCH_TOLERANCE


# ------------------------------------------------------------ small helpers

# ------------------------------------------------------------ circle vs circle

cdef inline bint _circle_circle_overlaps(const Leaf* a, double pax, double pay, const Leaf* b,
                                         double pbx, double pby) noexcept nogil:
    cdef double dx = pbx + b.cx - pax - a.cx
    cdef double dy = pby + b.cy - pay - a.cy
    cdef double lim = a.radius + b.radius + TOUCH
    return dx * dx + dy * dy <= lim * lim


# ------------------------------------------------------------ circle vs axis-aligned rect

cdef bint _circle_rect(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                       double pby, double tol, CContact* out) noexcept nogil:
    # the centre clamped to the box is the closest point; a centre inside (or on) the box
    # leaves through the nearest face (right, left, top, bottom on a tie)
    cdef double cx = pax + a.cx, cy = pay + a.cy
    cdef double lx = cx - pbx - b.cx, ly = cy - pby - b.cy
    cdef double hw = b.hx, hh = b.hy, r = a.radius
    cdef double qx = hw if lx > hw else (-hw if lx < -hw else lx)
    cdef double qy = hh if ly > hh else (-hh if ly < -hh else ly)
    cdef double dx = qx - lx, dy = qy - ly
    cdef double d2, lim, nx, ny, d, right, left, top, bottom, m
    if dx != 0.0 or dy != 0.0:
        d2 = dx * dx + dy * dy
        lim = r + tol
        if d2 > lim * lim:
            return False
        d = unit(dx, dy, &nx, &ny)
        return _circle_result(cx, cy, r, nx, ny, r - d, tol, out)
    right, left, top, bottom = hw - lx, lx + hw, hh - ly, ly + hh
    m = right
    if left < m:
        m = left
    if top < m:
        m = top
    if bottom < m:
        m = bottom
    if m == right:
        nx, ny = -1.0, 0.0
    elif m == left:
        nx, ny = 1.0, 0.0
    elif m == top:
        nx, ny = 0.0, -1.0
    else:
        nx, ny = 0.0, 1.0
    return _circle_result(cx, cy, r, nx, ny, r + m, tol, out)


cdef inline bint _circle_rect_overlaps(const Leaf* a, double pax, double pay, const Leaf* b,
                                       double pbx, double pby) noexcept nogil:
    # the centre's distance outside the box, per axis
    cdef double lx = fabs(pax + a.cx - pbx - b.cx) - b.hx
    cdef double ly = fabs(pay + a.cy - pby - b.cy) - b.hy
    cdef double lim = a.radius + TOUCH
    lx = lx if lx > 0.0 else 0.0
    ly = ly if ly > 0.0 else 0.0
    return lx * lx + ly * ly <= lim * lim


# ------------------------------------------------------------ circle vs segment

cdef bint _circle_segment(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                          double pby, double tol, CContact* out) noexcept nogil:
    # across the segment's middle the normal is the segment's normal (a centre on the
    # segment gets its first normal); past an end, the direction to that end
    cdef double cx = pax + a.cx, cy = pay + a.cy
    cdef double x1 = b.v[0] + pbx, y1 = b.v[1] + pby, x2 = b.v[2] + pbx, y2 = b.v[3] + pby
    cdef double r = a.radius
    cdef double lim = r + tol
    cdef double ex = x2 - x1, ey = y2 - y1
    cdef double u = (cx - x1) * ex + (cy - y1) * ey
    cdef double nx, ny, side, qx, qy, dx, dy, d2, d
    if 0.0 < u < ex * ex + ey * ey:
        nx, ny = b.f[0], b.f[1]
        side = (cx - x1) * nx + (cy - y1) * ny
        if side > lim or -side > lim:
            return False
        if side > 0.0:
            return _circle_result(cx, cy, r, -nx, -ny, r - side, tol, out)
        return _circle_result(cx, cy, r, nx, ny, r + side, tol, out)
    if u <= 0.0:
        qx, qy = x1, y1
    else:
        qx, qy = x2, y2
    dx, dy = qx - cx, qy - cy
    d2 = dx * dx + dy * dy
    if d2 > lim * lim:
        return False
    if dx != 0.0 or dy != 0.0:
        d = unit(dx, dy, &nx, &ny)
    else:
        nx, ny, d = b.f[0], b.f[1], 0.0
    return _circle_result(cx, cy, r, nx, ny, r - d, tol, out)


cdef inline bint _circle_segment_overlaps(const Leaf* a, double pax, double pay, const Leaf* b,
                                          double pbx, double pby) noexcept nogil:
    cdef double cx = pax + a.cx, cy = pay + a.cy
    cdef double qx, qy
    cdef double lim = a.radius + TOUCH
    closest_on_segment(cx, cy, b.v[0] + pbx, b.v[1] + pby, b.v[2] + pbx, b.v[3] + pby,
                       &qx, &qy)
    return sq(qx - cx) + sq(qy - cy) <= lim * lim


# ------------------------------------------------------------ circle vs convex polygon

cdef bint _circle_convex(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                         double pby, double tol, CContact* out) noexcept nogil:
    # The face the centre is furthest outside of decides: inside every face, the circle
    # leaves through the nearest face; otherwise the closest point of the faces the centre
    # sees: across a face's middle the face normal (exact), else the nearest vertex.
    cdef const double* f = b.f
    cdef const double* v = b.v
    cdef double cx = pax + a.cx, cy = pay + a.cy
    cdef double lx = cx - pbx, ly = cy - pby
    cdef double r = a.radius
    cdef double best = -INFINITY, s, nx, ny, sup
    cdef double d2min = INFINITY, bqx = 0.0, bqy = 0.0
    cdef double x1, y1, x2, y2, ex, ey, u, qx, qy, d2, lim, d
    cdef int i, j, bi = 0, n = b.nv
    for i in range(b.nf):
        s = f[3 * i] * lx + f[3 * i + 1] * ly - f[3 * i + 2]
        if s > best:
            best, bi = s, i
    if best > r + tol:
        return False
    if best <= 0.0:
        return _circle_result(cx, cy, r, -f[3 * bi], -f[3 * bi + 1], r - best, tol, out)
    for i in range(b.nf):
        nx, ny, sup = f[3 * i], f[3 * i + 1], f[3 * i + 2]
        s = nx * lx + ny * ly - sup
        if s <= 0.0:
            continue
        j = (i + 1) % n
        x1, y1, x2, y2 = v[2 * i], v[2 * i + 1], v[2 * j], v[2 * j + 1]
        ex, ey = x2 - x1, y2 - y1
        u = (lx - x1) * ex + (ly - y1) * ey
        if 0.0 < u < ex * ex + ey * ey:
            if s * s < d2min:
                d2min, bqx, bqy = s * s, lx - nx * s, ly - ny * s
            continue
        if u <= 0.0:
            qx, qy = x1, y1
        else:
            qx, qy = x2, y2
        d2 = sq(qx - lx) + sq(qy - ly)
        if d2 < d2min:
            d2min, bqx, bqy = d2, qx, qy
    lim = r + tol
    if d2min > lim * lim:
        return False
    if bqx == lx and bqy == ly:  # the centre on the outline, a rounding outside face bi
        return _circle_result(cx, cy, r, -f[3 * bi], -f[3 * bi + 1], r - best, tol, out)
    d = unit(bqx - lx, bqy - ly, &nx, &ny)
    return _circle_result(cx, cy, r, nx, ny, r - d, tol, out)


cdef inline bint _circle_convex_overlaps(const Leaf* a, double pax, double pay, const Leaf* b,
                                         double pbx, double pby) noexcept nogil:
    # inside every face, or within the radius of the closest point of a face it sees
    cdef const double* f = b.f
    cdef const double* v = b.v
    cdef double lx = pax + a.cx - pbx, ly = pay + a.cy - pby
    cdef double lim = a.radius + TOUCH
    cdef double d2min = INFINITY, s, qx, qy, d2
    cdef bint inside = True
    cdef int i, j, n = b.nv
    for i in range(b.nf):
        s = f[3 * i] * lx + f[3 * i + 1] * ly - f[3 * i + 2]
        if s <= 0.0:
            continue
        if s > lim:
            return False
        inside = False
        j = (i + 1) % n
        closest_on_segment(lx, ly, v[2 * i], v[2 * i + 1], v[2 * j], v[2 * j + 1], &qx, &qy)
        d2 = sq(qx - lx) + sq(qy - ly)
        if d2 < d2min:
            d2min = d2
    return inside or d2min <= lim * lim


# ------------------------------------------------------------ two axis-aligned rects

cdef bint _rect_rect(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                     double pby, double tol, CContact* out) noexcept nogil:
    # overlap on both axes; the axis of least overlap (x on a tie) separates, the normal
    # pointing from a's centre to b's (+ on equal centres); the point is the centre of the
    # overlap region
    cdef double ax = pax + a.cx, ay = pay + a.cy, bx = pbx + b.cx, by = pby + b.cy
    cdef double dx = bx - ax, dy = by - ay
    cdef double ahw = a.hx, ahh = a.hy, bhw = b.hx, bhh = b.hy
    cdef double ox = ahw + bhw - fabs(dx), oy, sx, sy
    if ox < -tol:
        return False
    oy = ahh + bhh - fabs(dy)
    if oy < -tol:
        return False
    if ox <= oy:
        sx = 1.0 if dx >= 0.0 else -1.0
        out.nx, out.ny, out.depth = sx, 0.0, ox
        out.px = ax + sx * (ahw - ox / 2)
        out.py = (max2(ay - ahh, by - bhh) + min2(ay + ahh, by + bhh)) / 2
        return True
    sy = 1.0 if dy >= 0.0 else -1.0
    out.nx, out.ny, out.depth = 0.0, sy, oy
    out.px = (max2(ax - ahw, bx - bhw) + min2(ax + ahw, bx + bhw)) / 2
    out.py = ay + sy * (ahh - oy / 2)
    return True


cdef inline bint _rect_rect_overlaps(const Leaf* a, double pax, double pay, const Leaf* b,
                                     double pbx, double pby) noexcept nogil:
    # (a.width + b.width) / 2 == a.hx + b.hx exactly: halving commutes with rounding
    return (fabs(pbx + b.cx - pax - a.cx) <= (a.hx + b.hx) + TOUCH
            and fabs(pby + b.cy - pay - a.cy) <= (a.hy + b.hy) + TOUCH)


# ------------------------------------------------------------ two convex pieces (SAT)

cdef inline bint _boxes_apart(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                              double pby, double tol) noexcept nogil:
    """The cheap rejection: the leaves' bounding boxes are more than ``tol`` apart."""
    cdef double dx = pbx - pax, dy = pby - pay
    return (b.x0 + dx > a.x1 + tol or a.x0 > b.x1 + dx + tol
            or b.y0 + dy > a.y1 + tol or a.y0 > b.y1 + dy + tol)


cdef void _contact_point(const Leaf* a, const Leaf* b, double dx, double dy, double nx,
                         double ny, double pax, double pay, CContact* out) noexcept nogil:
    # The middle of the touching features: a's vertices furthest along n and b's least along
    # n (in a's frame), within 1e-9 (relative) of the extreme; along n halfway between the
    # two extremes, across n the middle of the overlap of the two features' extents.
    cdef const double* va = a.v
    cdef const double* vb = b.v
    cdef double amax = nx * va[0] + ny * va[1]
    cdef double bmin = nx * (vb[0] + dx) + ny * (vb[1] + dy)
    cdef double p, t, ea, eb, ta_lo = 0.0, ta_hi = 0.0, tb_lo = 0.0, tb_hi = 0.0
    cdef double tx = -ny, ty = nx, x, y, lo, hi, tc, nc
    cdef bint first
    cdef int j
    for j in range(1, a.nv):
        p = nx * va[2 * j] + ny * va[2 * j + 1]
        if p > amax:
            amax = p
    for j in range(1, b.nv):
        p = nx * (vb[2 * j] + dx) + ny * (vb[2 * j + 1] + dy)
        if p < bmin:
            bmin = p
    ea = 1e-9 * (1.0 + fabs(amax))
    eb = 1e-9 * (1.0 + fabs(bmin))
    first = True
    for j in range(a.nv):
        x, y = va[2 * j], va[2 * j + 1]
        if nx * x + ny * y >= amax - ea:
            t = tx * x + ty * y
            if first:
                ta_lo = ta_hi = t
                first = False
            else:
                if t < ta_lo:
                    ta_lo = t
                if t > ta_hi:
                    ta_hi = t
    first = True
    for j in range(b.nv):
        x, y = vb[2 * j] + dx, vb[2 * j + 1] + dy
        if nx * x + ny * y <= bmin + eb:
            t = tx * x + ty * y
            if first:
                tb_lo = tb_hi = t
                first = False
            else:
                if t < tb_lo:
                    tb_lo = t
                if t > tb_hi:
                    tb_hi = t
    lo = max2(ta_lo, tb_lo)
    hi = min2(ta_hi, tb_hi)
    tc = (lo + hi) / 2
    nc = (amax + bmin) / 2
    out.px = pax + nx * nc + tx * tc
    out.py = pay + ny * nc + ty * tc


cdef bint _sat_contact(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                       double pby, double tol, CContact* out) noexcept nogil:
    # every face normal of a, then of b (reversed): a separation beyond tol rejects; the
    # least overlap (the first face on a tie, a's before b's) is the contact normal
    cdef const double* f
    cdef double dx, dy, best = INFINITY, bnx = 0.0, bny = 0.0, nx, ny, sep
    cdef int i
    if _boxes_apart(a, pax, pay, b, pbx, pby, tol):
        return False
    dx, dy = pbx - pax, pby - pay
    f = a.f
    for i in range(a.nf):
        nx, ny = f[3 * i], f[3 * i + 1]
        sep = min_proj(b.v, b.nv, nx, ny) + nx * dx + ny * dy - f[3 * i + 2]
        if sep > tol:
            return False
        if -sep < best:
            best, bnx, bny = -sep, nx, ny
    f = b.f
    for i in range(b.nf):
        nx, ny = f[3 * i], f[3 * i + 1]
        sep = min_proj(a.v, a.nv, nx, ny) - nx * dx - ny * dy - f[3 * i + 2]
        if sep > tol:
            return False
        if -sep < best:
            best, bnx, bny = -sep, -nx, -ny
    out.nx, out.ny, out.depth = bnx, bny, best
    _contact_point(a, b, dx, dy, bnx, bny, pax, pay, out)
    return True


cdef bint _sat_overlaps(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                        double pby) noexcept nogil:
    # stops at the first separating face
    cdef const double* f
    cdef double dx, dy
    cdef int i
    if _boxes_apart(a, pax, pay, b, pbx, pby, TOUCH):
        return False
    dx, dy = pbx - pax, pby - pay
    f = a.f
    for i in range(a.nf):
        if (min_proj(b.v, b.nv, f[3 * i], f[3 * i + 1]) + f[3 * i] * dx + f[3 * i + 1] * dy
                - f[3 * i + 2] > TOUCH):
            return False
    f = b.f
    for i in range(b.nf):
        if (min_proj(a.v, a.nv, f[3 * i], f[3 * i + 1]) - f[3 * i] * dx - f[3 * i + 1] * dy
                - f[3 * i + 2] > TOUCH):
            return False
    return True


# ------------------------------------------------------------ dispatch on two leaves

cdef inline bint _circle_vs(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                            double pby, double tol, CContact* out) noexcept nogil:
    """Circle a against any leaf b."""
    if b.kind == CIRCLE:
        return _circle_circle(a, pax, pay, b, pbx, pby, tol, out)
    if b.kind == RECT:
        return _circle_rect(a, pax, pay, b, pbx, pby, tol, out)
    if b.kind == SEGMENT:
        return _circle_segment(a, pax, pay, b, pbx, pby, tol, out)
    return _circle_convex(a, pax, pay, b, pbx, pby, tol, out)


cdef bint leaf_contact(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                       double pby, double tol, CContact* out) noexcept nogil:
    # A circle goes first, and of two convex pieces the lower kind (Rect, OrientedRect,
    # Segment, Polygon): the other order is computed that way and its normal flipped.
    cdef bint found
    if a.kind == MASK:
        return _mask_contact(a, pax, pay, b, pbx, pby, tol, out)
    if b.kind == MASK:
        found = _mask_contact(b, pbx, pby, a, pax, pay, tol, out)
        if found:
            _flip(out)
        return found
    if a.kind == CIRCLE:
        return _circle_vs(a, pax, pay, b, pbx, pby, tol, out)
    if b.kind == CIRCLE:
        found = _circle_vs(b, pbx, pby, a, pax, pay, tol, out)
    elif a.kind == RECT and b.kind == RECT:
        return _rect_rect(a, pax, pay, b, pbx, pby, tol, out)
    elif a.kind <= b.kind:
        return _sat_contact(a, pax, pay, b, pbx, pby, tol, out)
    else:
        found = _sat_contact(b, pbx, pby, a, pax, pay, tol, out)
    if found:
        _flip(out)
    return found


# ------------------------------------------------------------ masks against any shape
#
# A mask meets another mask where set pixels share area (geometry/mask.pyx); it meets any other
# shape where one of its set pixels, as a square, overlaps or touches it like any two shapes.
# Contacts are approximate (documented so): the normal against the gradient of the count of
# meeting pixels as the other shape moves a pixel each way along x and y (pygame's trick; from
# the mask's centre to the other's when that is flat), the depth the other must move along it
# to meet no pixel (doubling, then halving to a millionth of a pixel), the point halfway
# between the centroids of the meeting pixels (of the mask; of the other too when it is one).

cdef struct Pixel:
    # one pixel of a mask as a square leaf (its vertices and faces kept with it)
    Leaf leaf
    double v[8]
    double f[12]


cdef void _pixel_init(Pixel* p, double s) noexcept nogil:
    cdef double h = s * 0.5
    p.leaf.kind = RECT
    p.leaf.nv = 4
    p.leaf.nf = 4
    p.v[0], p.v[1], p.v[2], p.v[3] = -h, -h, h, -h
    p.v[4], p.v[5], p.v[6], p.v[7] = h, h, -h, h
    p.f[0], p.f[1], p.f[2] = 0.0, -1.0, h
    p.f[3], p.f[4], p.f[5] = 1.0, 0.0, h
    p.f[6], p.f[7], p.f[8] = 0.0, 1.0, h
    p.f[9], p.f[10], p.f[11] = -1.0, 0.0, h
    p.leaf.v = p.v
    p.leaf.f = p.f
    p.leaf.radius = 0.0
    p.leaf.cx = p.leaf.cy = 0.0
    p.leaf.hx = p.leaf.hy = h
    p.leaf.x0 = p.leaf.y0 = -h
    p.leaf.x1 = p.leaf.y1 = h
    p.leaf.hash = 0


cdef long _mask_meets(const Leaf* m, double mx, double my, const Leaf* o, double ox, double oy,
                      bint count, double* sx, double* sy) noexcept nogil:
    """Mask m's set pixels that meet shape o (see above): whether any, or how many with
    ``count``; with ``sx`` the sums of their centres too."""
    if o.kind == MASK and sx == NULL:
        return mask_mask(m, mx, my, o, ox, oy, count)
    cdef double s = m.radius
    cdef double left = mx + m.cx - m.hx
    cdef double top = my + m.cy + m.hy
    cdef double grow = 0.0 if o.kind == MASK else TOUCH
    cdef double fc0 = (ox + o.x0 - grow - left) / s, fc1 = (ox + o.x1 + grow - left) / s
    cdef double fr0 = (top - (oy + o.y1 + grow)) / s, fr1 = (top - (oy + o.y0 - grow)) / s
    if fc1 < 0.0 or fr1 < 0.0 or fc0 >= m.nv or fr0 >= m.nf:
        return 0
    cdef long c0 = <long> floor(fc0) if fc0 > 0.0 else 0
    cdef long c1 = <long> floor(fc1) if fc1 < m.nv - 1 else m.nv - 1
    cdef long r0 = <long> floor(fr0) if fr0 > 0.0 else 0
    cdef long r1 = <long> floor(fr1) if fr1 < m.nf - 1 else m.nf - 1
    cdef Pixel px
    cdef Leaf one
    cdef uint64_t bit = 1
    cdef long r, c, total = 0
    cdef double x, y
    cdef bint meets
    _pixel_init(&px, s)
    if o.kind == MASK:  # a one-pixel mask of m's scale
        one = m[0]
        one.nv = one.nf = one.words = 1
        one.bits = &bit
        one.cx = one.cy = 0.0
        one.hx = one.hy = s * 0.5
        one.x0 = one.y0 = -s * 0.5
        one.x1 = one.y1 = s * 0.5
    for r in range(r0, r1 + 1):
        y = top - (r + 0.5) * s
        for c in range(c0, c1 + 1):
            if not mask_bit(m, r, c):
                continue
            x = left + (c + 0.5) * s
            if o.kind == MASK:
                meets = mask_mask(&one, x, y, o, ox, oy, False) > 0
            else:
                meets = _leaf_overlap(&px.leaf, x, y, o, ox, oy)
            if not meets:
                continue
            if not count and sx == NULL:
                return 1
            total += 1
            if sx != NULL:
                sx[0] += x
                sy[0] += y
    return total


cdef bint _mask_contact(const Leaf* m, double mx, double my, const Leaf* o, double ox,
                        double oy, double tol, CContact* out) noexcept nogil:
    """The contact of mask m with shape o (normal from m to o; see above)."""
    cdef double s = m.radius if o.kind != MASK or m.radius < o.radius else o.radius
    cdef double step = tol if tol > 4e-9 * s else 4e-9 * s
    cdef double gx, gy, g, lo, hi, mid, reach, ax = 0.0, ay = 0.0, bx = 0.0, by = 0.0
    cdef long na, nb
    cdef int k
    if not _mask_meets(m, mx, my, o, ox, oy, False, NULL, NULL):
        if o.kind != MASK:
            return False  # a pixel touching another shape already meets it
        # two masks whose sides touch: o moved ``step`` towards m along an axis meets it
        for k in range(4):
            gx = -1.0 if k == 0 else (1.0 if k == 1 else 0.0)
            gy = -1.0 if k == 2 else (1.0 if k == 3 else 0.0)
            if _mask_meets(m, mx, my, o, ox + gx * step, oy + gy * step, False, NULL, NULL):
                out.nx, out.ny, out.depth = -gx, -gy, 0.0
                out.px = (max2(mx + m.x0, ox + o.x0) + min2(mx + m.x1, ox + o.x1)) * 0.5
                out.py = (max2(my + m.y0, oy + o.y0) + min2(my + m.y1, oy + o.y1)) * 0.5
                return True
        return False
    gx = <double> (_mask_meets(m, mx, my, o, ox + s, oy, True, NULL, NULL)
                   - _mask_meets(m, mx, my, o, ox - s, oy, True, NULL, NULL))
    gy = <double> (_mask_meets(m, mx, my, o, ox, oy + s, True, NULL, NULL)
                   - _mask_meets(m, mx, my, o, ox, oy - s, True, NULL, NULL))
    g = sqrt(gx * gx + gy * gy)
    if g > 0.0:
        out.nx, out.ny = -gx / g, -gy / g
    else:  # flat: from m's centre to o's
        gx = (ox + (o.x0 + o.x1) * 0.5) - (mx + m.cx)
        gy = (oy + (o.y0 + o.y1) * 0.5) - (my + m.cy)
        g = sqrt(gx * gx + gy * gy)
        out.nx = gx / g if g > 0.0 else 0.0
        out.ny = gy / g if g > 0.0 else 1.0
    reach = (m.x1 - m.x0) + (m.y1 - m.y0) + (o.x1 - o.x0) + (o.y1 - o.y0)
    hi = s
    while hi < reach and _mask_meets(m, mx, my, o, ox + out.nx * hi, oy + out.ny * hi, False,
                                     NULL, NULL):
        hi *= 2.0
    lo = 0.0
    for k in range(64):
        if hi - lo <= 1e-6 * s:
            break
        mid = (lo + hi) * 0.5
        if _mask_meets(m, mx, my, o, ox + out.nx * mid, oy + out.ny * mid, False, NULL, NULL):
            lo = mid
        else:
            hi = mid
    out.depth = hi
    na = _mask_meets(m, mx, my, o, ox, oy, True, &ax, &ay)
    out.px, out.py = ax / na, ay / na
    if o.kind == MASK:
        nb = _mask_meets(o, ox, oy, m, mx, my, True, &bx, &by)
        if nb:
            out.px = (out.px + bx / nb) * 0.5
            out.py = (out.py + by / nb) * 0.5
    return True


cdef bint _leaf_overlap(const Leaf* a, double pax, double pay, const Leaf* b, double pbx,
                        double pby) noexcept nogil:
    # the same orders as leaf_contact (a same-kind pair in the order given); a mask: its
    # pixels against the other (see "masks against any shape")
    cdef const Leaf* c
    cdef const Leaf* o
    cdef double cx, cy, ox, oy
    if a.kind == MASK:
        return _mask_meets(a, pax, pay, b, pbx, pby, False, NULL, NULL) > 0
    if b.kind == MASK:
        return _mask_meets(b, pbx, pby, a, pax, pay, False, NULL, NULL) > 0
    if a.kind == CIRCLE or b.kind == CIRCLE:
        if a.kind == CIRCLE:
            c, cx, cy, o, ox, oy = a, pax, pay, b, pbx, pby
        else:
            c, cx, cy, o, ox, oy = b, pbx, pby, a, pax, pay
        if o.kind == CIRCLE:
            return _circle_circle_overlaps(c, cx, cy, o, ox, oy)
        if o.kind == RECT:
            return _circle_rect_overlaps(c, cx, cy, o, ox, oy)
        if o.kind == SEGMENT:
            return _circle_segment_overlaps(c, cx, cy, o, ox, oy)
        return _circle_convex_overlaps(c, cx, cy, o, ox, oy)
    if a.kind == RECT and b.kind == RECT:
        return _rect_rect_overlaps(a, pax, pay, b, pbx, pby)
    if a.kind <= b.kind:
        return _sat_overlaps(a, pax, pay, b, pbx, pby)
    return _sat_overlaps(b, pbx, pby, a, pax, pay)


# ------------------------------------------------------------ bodies: canonical order, groups

cdef inline bint _bodies_apart(const Body* a, const Body* b, double tol) noexcept nogil:
    """The bounding boxes of the two bodies (whole groups) are more than ``tol`` apart."""
    cdef double dx = b.px - a.px, dy = b.py - a.py
    return (b.x0 + dx > a.x1 + tol or a.x0 > b.x1 + dx + tol
            or b.y0 + dy > a.y1 + tol or a.y0 > b.y1 + dy + tol)


cdef double _clear_along(const Store* s, const Body* part, const Body* b, double fx,
                         double fy) noexcept nogil:
    """How far body b must move along the unit (fx, fy) to stop meeting ``part`` (beyond the
    touch tolerance): doubling, then halving to a billionth of their sizes."""
    cdef Body moved = b[0]
    cdef double reach = (b.x1 - b.x0) + (b.y1 - b.y0) + (part.x1 - part.x0) + (part.y1 - part.y0)
    cdef double lo = 0.0, hi = reach * 1e-3, mid
    cdef int k
    if hi <= 0.0:
        return 0.0
    moved.px = b.px + fx * hi
    moved.py = b.py + fy * hi
    while hi < 2.0 * reach and overlap(s, part, &moved):
        hi *= 2.0
        moved.px = b.px + fx * hi
        moved.py = b.py + fy * hi
    for k in range(64):
        if hi - lo <= 1e-9 * reach:
            break
        mid = (lo + hi) * 0.5
        moved.px = b.px + fx * mid
        moved.py = b.py + fy * mid
        if overlap(s, part, &moved):
            lo = mid
        else:
            hi = mid
    return hi


cdef bint _into_corner(const Store* s, const Body* m, int i, double nx, double ny,
                       const double* f) noexcept nogil:
    """Whether the normal (nx, ny) of a contact with edge leaf i of tile map m leans off the
    edge's own normal ``f`` towards an end of the edge where the outline turns up into a
    wall (a concave corner: the tile beyond that end, on the open side, is solid). There the
    body cannot leave the edge past its end (the wall is in the way), so the edge's own normal
    is the only way out (a thin body standing in the corner of a floor and a wall slipped down
    into the floor, "leaving" it sideways through the wall)."""
    if nx * f[0] + ny * f[1] >= 1.0 - 1e-9:
        return False
    cdef Leaf e = leaf_at(s, i)
    cdef double size = s.lf[(m.first - 1) * LF_STRIDE + LF_RADIUS]
    cdef double tx = e.v[2] - e.v[0], ty = e.v[3] - e.v[1]
    cdef double k = sqrt(tx * tx + ty * ty)
    cdef double ex, ey, h = 0.25 * size
    if k <= 0.0:
        return False
    tx /= k
    ty /= k
    if nx * tx + ny * ty > 0.0:  # leaning towards the second end
        ex, ey = e.v[2], e.v[3]
    else:
        ex, ey = e.v[0], e.v[1]
        tx, ty = -tx, -ty
    return tile_kind_at(s, m, m.px + ex + (tx + f[0]) * h, m.py + ey + (ty + f[1]) * h) > 0


cdef bint _compound_contact(const Store* s, const Body* a, const Body* b, double tol,
                            CContact* out) noexcept nogil:
    # group a against any body b: the groups' boxes first, then each part of a near b's box
    # (each part pair rejects on its own boxes), the deepest contact (the first on a tie).
    # A tile map's edges are one-sided: b (its centre in front of the edge, `near_body`) is
    # pushed out to the open side, never through the edge to its closed side: a contact whose
    # normal points to the closed side (a segment's least overlap can) is replaced by the
    # edge's own normal and the depth that clears the edge along it, and so is a mask's
    # (its overlap gradient does not know the sides: inside a pit it can point down)
    cdef Body part
    cdef CContact c
    cdef bint found = False
    cdef int i
    cdef Near it
    cdef const double* f
    if _bodies_apart(a, b, tol):
        return False
    near_body(&it, s, a, b, tol)
    i = near_next(&it)
    while i >= 0:
        part = leaf_body(s, i, a.px, a.py)
        if contact(s, &part, b, tol, &c):
            if a.kind == TILEMAP:
                f = s.faces + 3 * s.li[i * LI_STRIDE + LI_F0]  # the edge's open side
                if (b.kind == MASK or c.nx * f[0] + c.ny * f[1] < 0.0
                        or _into_corner(s, a, i, c.nx, c.ny, f)):
                    c.nx = f[0]
                    c.ny = f[1]
                    c.depth = _clear_along(s, &part, b, f[0], f[1])
            if not found or c.depth > out.depth:
                out[0] = c
                found = True
        i = near_next(&it)
    return found


cdef bint contact(const Store* s, const Body* a, const Body* b, double tol,
                  CContact* out) noexcept nogil:
    cdef Leaf la, lb
    cdef bint found
    if is_group(a.kind) or is_group(b.kind):
        if not is_group(a.kind) or (is_group(b.kind) and _swap_first(a, b)):
            found = _compound_contact(s, b, a, tol, out)
            if found:
                _flip(out)
            return found
        return _compound_contact(s, a, b, tol, out)
    la = leaf_at(s, a.first)
    lb = leaf_at(s, b.first)
    if a.kind == b.kind and _swap_first(a, b):
        found = leaf_contact(&lb, b.px, b.py, &la, a.px, a.py, tol, out)
        if found:
            _flip(out)
        return found
    return leaf_contact(&la, a.px, a.py, &lb, b.px, b.py, tol, out)


cdef bint _compound_overlap(const Store* s, const Body* a, const Body* b) noexcept nogil:
    # group a against any body b: the groups' boxes, then the first touching part near b
    cdef Body part
    cdef int i
    cdef Near it
    if _bodies_apart(a, b, TOUCH):
        return False
    near_body(&it, s, a, b, TOUCH)
    i = near_next(&it)
    while i >= 0:
        part = leaf_body(s, i, a.px, a.py)
        if overlap(s, &part, b):
            return True
        i = near_next(&it)
    return False


cdef bint overlap(const Store* s, const Body* a, const Body* b) noexcept nogil:
    cdef Leaf la, lb
    if is_group(a.kind):
        return _compound_overlap(s, a, b)
    if is_group(b.kind):
        return _compound_overlap(s, b, a)
    la = leaf_at(s, a.first)
    lb = leaf_at(s, b.first)
    return _leaf_overlap(&la, a.px, a.py, &lb, b.px, b.py)


# ------------------------------------------------------------ the public functions
#
# They hold the GIL: the shapes live in the one public store, which another thread could grow
# (moving its arrays) or empty while the pointers are read, and a call is far shorter than
# what releasing and taking back the GIL would save.

cdef object _contact_of(object a, object pos_a, object b, object pos_b, double tol):
    cdef Body ba, bb
    cdef Store s = public_pair(a, pos_a, b, pos_b, &ba, &bb, "no contact test for")
    cdef CContact c
    if not contact(&s, &ba, &bb, tol, &c):
        return None
    return Contact((c.nx, c.ny), c.depth, (c.px, c.py))


@cython.embedsignature(False)
def _contact(a, pos_a, b, pos_b):
    """Exact contact of shape ``a`` at body position ``pos_a`` with ``b`` at ``pos_b``.

    Returns ``None`` if they are apart, else a ``Contact`` whose unit ``normal`` points from
    ``a`` to ``b``, whose ``depth`` separates them when ``b`` moves by ``normal * depth``
    (``>= -TOUCH_TOLERANCE``: touching counts), and whose ``point`` lies in the overlap.
    Raises ``TypeError`` for a pair of kinds without a test.
    """
    return _contact_of(a, pos_a, b, pos_b, TOUCH)


def contact_tol(a, pos_a, b, pos_b, double tol):
    """``contact`` with a chosen touching tolerance ``tol`` (used by time of impact)."""
    return _contact_of(a, pos_a, b, pos_b, tol)


def overlaps(a, pos_a, b, pos_b):
    """True if ``a`` at ``pos_a`` and ``b`` at ``pos_b`` overlap or touch (within
    ``TOUCH_TOLERANCE``); the same answer as ``contact(...) is not None``, often cheaper.
    Two masks overlap where set pixels share area (``ecsphys.mask``).
    Raises ``TypeError`` for a pair of kinds without a test."""
    cdef Body ba, bb
    cdef Store s = public_pair(a, pos_a, b, pos_b, &ba, &bb, "no overlap test for")
    return overlap(&s, &ba, &bb)


# The Python name `contact` belongs to the cdef routine inside this module (other modules
# cimport it); the public function is put under that name in the module's namespace.
_contact.__name__ = _contact.__qualname__ = "contact"
globals()["contact"] = _contact
del globals()["_contact"]
