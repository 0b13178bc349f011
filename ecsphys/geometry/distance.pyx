# Separation of two shapes, compiled: how far apart they are, in which direction, between
# which points.
#
# Guarantees:
# - `separation(s, a, b, limit, out)` answers every pair of Circle, Rect, OrientedRect,
#   Segment, Polygon and Compound bodies, in both orders; it returns False (out unspecified)
#   only when the shapes are certainly more than `limit` apart (limit = infinity: never);
# - shapes apart: `distance` is the exact Euclidean distance between them (to rounding), the
#   points (ax, ay) / (bx, by) are closest points on a / b that realise it, and the normal is
#   the unit vector from the point on a to the point on b;
# - shapes that overlap or touch (manifold.contact finds them with TOUCH_TOLERANCE): distance
#   0.0, the normal and both points those of the contact (of the whole shapes: a compound's
#   deepest part pair); contact() says "touching" exactly when the distance is 0;
# - swapping the arguments gives the same distance, the normal reversed and the points
#   swapped; a compound is as far as its nearest part;
# - `contact_within(s, a, b, skin, out)` is contact() widened by a skin: shapes that overlap
#   give contact()'s answer; shapes apart by at most `skin` a contact with depth = -distance,
#   the separation's normal and the point halfway between the closest points; False beyond
#   (the skin of the narrowphase: touching within contact_offset);
#
# Method: a circle is its centre grown by its radius, so circle pairs are point-to-shape
# distances. Two convex pieces (Rect, OrientedRect, Polygon, Segment) are first checked by
# their separating axes: overlapping when no axis separates them, and the largest separation
# is a lower bound that rejects pairs further apart than asked. It is the distance when the
# other piece's nearest vertex lies across from the separating face's edge (a box resting on
# a floor: O(n + m)). Otherwise one of the two closest points is a vertex, and the other lies
# on an edge of the other piece that the vertex is in front of; every such vertex-edge pair is
# measured, so the answer is exact, not iterated (unlike GJK). Where an edge of each piece
# faces the other, parallel, the middle of their overlap is reported rather than a corner.
# Compounds try their part pairs nearest box first and skip parts whose boxes are further
# than the best so far. Every routine reads C values only and allocates nothing (the part
# pairs of two compounds are ordered in a small stack array, or by repeated scans beyond it).

cimport cython
from libc.math cimport INFINITY, fabs

from .manifold cimport contact
from .vec cimport closest_on_segment, max2, min2, norm, sq, unit
from .shape_data cimport (
    public_pair,
    COMPOUND, LI_KIND, LI_STRIDE, CIRCLE, MASK, RECT, SEGMENT, Body, CContact, CSeparation,
    Leaf, Near, Store, is_group,
    leaf_at, leaf_body, near_body, near_next,
)

from .contact import TOUCH_TOLERANCE, Contact, Separation

__all__ = ["contact_within", "distance"]

cdef double TOUCH = TOUCH_TOLERANCE

# A vertex this far behind an edge's line still counts as in front of it (rounding slack:
# measuring one pair too many is harmless, missing the closest pair is not).
cdef double FRONT_SLACK = 1e-9
# Vertices this close (relative) to the nearest one along the normal form a facing edge.
cdef double PARALLEL = 1e-12
# The most part pairs of two compounds ordered in a stack array; more are ordered by scans.
cdef enum:
    MAX_SORTED_PAIRS = 64
# The most near parts of a group listed for a separation (a tile map's edges near a body);
# with more, every part is looked at.
cdef enum:
    MAX_NEAR_PARTS = 128

# what a separation of two primitives found
cdef enum:
    BEYOND = 0      # certainly further apart than the limit
    APART = 1       # apart: out holds the separation
    ZERO = 2        # overlapping or touching: distance 0


# ------------------------------------------------------------ small helpers

cdef inline bint _d2_below(double x, double y, double best, double* d2) noexcept nogil:
    """True if ``x * x + y * y`` (set in *d2) is below ``best``."""
    d2[0] = x * x + y * y
    return d2[0] < best


cdef inline void _flip(CSeparation* s) noexcept nogil:
    """The same separation seen from the other shape."""
    cdef double x = s.ax, y = s.ay
    s.nx = -s.nx
    s.ny = -s.ny
    s.ax = s.bx
    s.ay = s.by
    s.bx = x
    s.by = y


cdef inline void _zero_of(const CContact* c, CSeparation* out) noexcept nogil:
    out.distance = 0.0
    out.nx = c.nx
    out.ny = c.ny
    out.ax = out.bx = c.px
    out.ay = out.by = c.py


cdef void _overlapping(const Store* s, const Body* a, const Body* b,
                       CSeparation* out) noexcept nogil:
    # the zero separation of shapes that overlap or touch: contact()'s normal and point; at
    # exact touching, where rounding can make contact() miss, a wider tolerance, else any
    # direction and a's position
    cdef CContact c
    if not contact(s, a, b, TOUCH, &c) and not contact(s, a, b, 1e-6, &c):
        c.nx, c.ny, c.depth, c.px, c.py = 1.0, 0.0, 0.0, a.px, a.py
    _zero_of(&c, out)


cdef inline bint _touching(const Store* s, const Body* a, const Body* b, double lower,
                           CSeparation* out) noexcept nogil:
    # the zero separation if contact() counts the shapes as touching (asked only when
    # `lower`, a lower bound on their distance, is within twice its tolerance): the
    # distance is 0 exactly when contact() finds the shapes touching
    cdef CContact c
    if lower > 2 * TOUCH:
        return False
    if not contact(s, a, b, TOUCH, &c):
        return False
    _zero_of(&c, out)
    return True


# ------------------------------------------------------------ a circle: its centre's distance

cdef bint _closest_on(const Leaf* leaf, double px, double py, double x, double y,
                      double* qx, double* qy) noexcept nogil:
    # the point of a primitive (not a circle) at (px, py) closest to the world point (x, y),
    # and whether (x, y) is inside (or on) it
    cdef double lx = x - px, ly = y - py
    cdef double ox, oy, hw, hh, cx, cy, d2, d2min, bqx, bqy, nx, ny, sup
    cdef const double* v = leaf.v
    cdef const double* f = leaf.f
    cdef int i, j, n = leaf.nv
    if leaf.kind == RECT:
        # the point clamped to the box
        ox, oy, hw, hh = leaf.cx, leaf.cy, leaf.hx, leaf.hy
        cx = min2(max2(lx, ox - hw), ox + hw)
        cy = min2(max2(ly, oy - hh), oy + hh)
        qx[0], qy[0] = cx + px, cy + py
        return cx == lx and cy == ly
    if leaf.kind == SEGMENT:
        closest_on_segment(lx, ly, v[0], v[1], v[2], v[3], &cx, &cy)
        qx[0], qy[0] = cx + px, cy + py
        return cx == lx and cy == ly
    # convex polygon: outside some face; the closest point is on a face the point sees
    d2min, bqx, bqy = INFINITY, 0.0, 0.0
    for i in range(leaf.nf):
        nx, ny, sup = f[3 * i], f[3 * i + 1], f[3 * i + 2]
        if nx * lx + ny * ly - sup <= 0.0:
            continue
        j = (i + 1) % n
        closest_on_segment(lx, ly, v[2 * i], v[2 * i + 1], v[2 * j], v[2 * j + 1], &cx, &cy)
        d2 = sq(cx - lx) + sq(cy - ly)
        if d2 < d2min:
            d2min, bqx, bqy = d2, cx, cy
    if d2min == INFINITY:
        qx[0], qy[0] = x, y
        return True
    qx[0], qy[0] = bqx + px, bqy + py
    return False


cdef int _circle_vs(const Store* s, const Body* a, const Body* b, double limit,
                    CSeparation* out, bint fill) noexcept nogil:
    # circle a against primitive b: from the centre to b's closest point (a circle's centre,
    # reached by its radius), less the radius
    cdef Leaf la = leaf_at(s, a.first)
    cdef Leaf lb = leaf_at(s, b.first)
    cdef double cx = a.px + la.cx, cy = a.py + la.cy, r = la.radius
    cdef double qx, qy, reach, dx, dy, nx, ny, d, gap
    if lb.kind == CIRCLE:
        qx, qy = b.px + lb.cx, b.py + lb.cy
        reach = lb.radius
    else:
        if _closest_on(&lb, b.px, b.py, cx, cy, &qx, &qy):
            if fill:
                _overlapping(s, a, b, out)
            return ZERO
        reach = 0.0
    dx, dy = qx - cx, qy - cy
    if dx == 0.0 and dy == 0.0:
        if fill:
            _overlapping(s, a, b, out)
        return ZERO
    d = unit(dx, dy, &nx, &ny)
    gap = d - r - reach
    if gap <= 0.0:
        if fill:
            _overlapping(s, a, b, out)
        return ZERO
    if gap > limit:
        return BEYOND
    if _touching(s, a, b, gap, out):
        return ZERO
    out.distance = gap
    out.nx, out.ny = nx, ny
    out.ax, out.ay = cx + nx * r, cy + ny * r
    out.bx, out.by = qx - nx * reach, qy - ny * reach
    return APART


# ------------------------------------------------------------ two convex pieces

cdef double _sat(const double* f, int nf, const double* v, int nv, double sx, double sy,
                 int* face, double* wmin) noexcept nogil:
    # the face of one piece with the largest separation of the other piece's vertices
    # (shifted by (sx, sy) into its frame) beyond it: that separation, the face, and the
    # least projection on it (the vertices that have it are the witnesses)
    cdef double best = -INFINITY, m, p, nx, ny
    cdef int i, j
    face[0] = 0
    wmin[0] = INFINITY  # no face: the witness is vertex 0 (see _face_witness)
    for i in range(nf):
        nx, ny = f[3 * i], f[3 * i + 1]
        m = nx * (v[0] + sx) + ny * (v[1] + sy)
        for j in range(1, nv):
            p = nx * (v[2 * j] + sx) + ny * (v[2 * j + 1] + sy)
            if p < m:
                m = p
        if m - f[3 * i + 2] > best:
            best = m - f[3 * i + 2]
            face[0] = i
            wmin[0] = m
    return best


cdef bint _face_witness(const Leaf* shape, int face, const Leaf* other, double sx, double sy,
                        double wmin, double* px, double* py, double* qx,
                        double* qy) noexcept nogil:
    # The distance certificate of the separating face `face` of `shape` with the other
    # piece's vertices (shifted into shape's frame), nearest to it at the witnesses: if the
    # foot of a witness on the face's line lies on the face's edge, that foot (*px, *py) and
    # the witness (*qx, *qy) are closest points (nothing is closer than the face's
    # separation, and they are that far apart).
    cdef const double* sv = shape.v
    cdef const double* v = other.v
    cdef double x1, y1, x2, y2, ex, ey, ee, wx, wy, u, nx, ny
    cdef int j, k
    if shape.kind == SEGMENT:
        if face > 1:  # an end direction of the segment, not an edge
            return False
        x1, y1, x2, y2 = sv[0], sv[1], sv[2], sv[3]
    else:
        k = (face + 1) % shape.nv
        x1, y1, x2, y2 = sv[2 * face], sv[2 * face + 1], sv[2 * k], sv[2 * k + 1]
    ex, ey = x2 - x1, y2 - y1
    ee = ex * ex + ey * ey
    nx, ny = shape.f[3 * face], shape.f[3 * face + 1]
    for j in range(other.nv):
        wx, wy = v[2 * j] + sx, v[2 * j + 1] + sy
        # a witness: least along the face normal (vertex 0 if no face was measured)
        if wmin == INFINITY:
            if j > 0:
                break
        elif nx * wx + ny * wy != wmin:
            continue
        u = ((wx - x1) * ex + (wy - y1) * ey) / ee
        if 0.0 <= u <= 1.0:
            px[0], py[0] = x1 + ex * u, y1 + ey * u
            qx[0], qy[0] = wx, wy
            return True
    return False


cdef bint _nearest(const Leaf* e, const Leaf* o, double sx, double sy, double* best,
                   double slack, double* qx, double* qy, double* vx, double* vy) noexcept nogil:
    # The nearest (edge point, vertex) pair of e's edges and o's vertices (shifted into e's
    # frame) that are in front of the edge (behind by at most `slack`), if nearer than *best
    # (squared): *best lowered, the point on the edge (*qx, *qy), the vertex (*vx, *vy). A
    # segment is one edge every point is in front of.
    cdef const double* ev = e.v
    cdef const double* f = e.f
    cdef const double* v = o.v
    cdef double x1, y1, x2, y2, ex, ey, ee, nx, ny, sup, px, py, wx, wy, u, cx, cy, d2
    cdef bint found = False, segment = e.kind == SEGMENT
    cdef int i, j, k, nedges = 1 if segment else e.nv
    for i in range(nedges):
        k = (i + 1) % e.nv
        x1, y1, x2, y2 = ev[2 * i], ev[2 * i + 1], ev[2 * k], ev[2 * k + 1]
        ex, ey = x2 - x1, y2 - y1
        ee = ex * ex + ey * ey
        nx, ny, sup = f[3 * i], f[3 * i + 1], f[3 * i + 2]
        for j in range(o.nv):
            px, py = v[2 * j] + sx, v[2 * j + 1] + sy
            if not segment and nx * px + ny * py - sup < -slack:
                continue
            wx, wy = px - x1, py - y1
            u = (wx * ex + wy * ey) / ee  # closest point of the edge: x1 + e * clamp(u)
            u = 0.0 if u < 0.0 else (1.0 if u > 1.0 else u)
            cx, cy = x1 + ex * u, y1 + ey * u
            if _d2_below(px - cx, py - cy, best[0], &d2):
                best[0] = d2
                qx[0], qy[0], vx[0], vy[0] = cx, cy, px, py
                found = True
    return found


cdef void _nearest_pair(const Leaf* a, const Leaf* b, double dx, double dy, double* px,
                        double* py, double* qx, double* qy) noexcept nogil:
    # closest points (on a, on b; in a's frame) of convex pieces apart: the nearest of every
    # vertex against every edge of the other piece that it is in front of
    cdef double slack = FRONT_SLACK, best_ab, best_ba
    cdef double ab_qx = 0.0, ab_qy = 0.0, ab_vx = 0.0, ab_vy = 0.0
    cdef double ba_qx = 0.0, ba_qy = 0.0, ba_vx = 0.0, ba_vy = 0.0
    cdef bint found_ab, found_ba
    while True:
        # a vertex of b against the edges of a, then a vertex of a against b's, nearer still
        best_ab = INFINITY
        found_ab = _nearest(a, b, dx, dy, &best_ab, slack, &ab_qx, &ab_qy, &ab_vx, &ab_vy)
        best_ba = best_ab if found_ab else INFINITY
        found_ba = _nearest(b, a, -dx, -dy, &best_ba, slack, &ba_qx, &ba_qy, &ba_vx, &ba_vy)
        if found_ab or found_ba:
            break
        slack = INFINITY  # not reached for pieces apart; measure every pair rather than fail
    if found_ba:
        px[0], py[0], qx[0], qy[0] = ba_vx + dx, ba_vy + dy, ba_qx + dx, ba_qy + dy
    else:
        px[0], py[0], qx[0], qy[0] = ab_qx, ab_qy, ab_vx, ab_vy


cdef void _middle_of_parallel(const Leaf* a, const Leaf* b, double dx, double dy, double nx,
                              double ny, double* px, double* py, double* qx,
                              double* qy) noexcept nogil:
    # Closest points p (on a) and q (on b, shifted into a's frame) along the normal n; where
    # an edge of each faces the other, parallel (a box resting on a floor), every point of
    # the overlap of the two edges is closest: the middle of that overlap, not a corner.
    cdef const double* va = a.v
    cdef const double* vb = b.v
    cdef double tx = -ny, ty = nx
    cdef double amax = nx * px[0] + ny * py[0]
    cdef double bmin = nx * qx[0] + ny * qy[0]
    cdef double ea = PARALLEL * (1.0 + fabs(amax))  # tight: the points stay on the shapes
    cdef double eb = PARALLEL * (1.0 + fabs(bmin))
    cdef double x, y, t, ta_lo = 0.0, ta_hi = 0.0, tb_lo = 0.0, tb_hi = 0.0, lo, hi, tc
    cdef int j, na = 0, nb = 0
    for j in range(a.nv):
        x, y = va[2 * j], va[2 * j + 1]
        if nx * x + ny * y >= amax - ea:
            t = tx * x + ty * y
            if na == 0:
                ta_lo = ta_hi = t
            else:
                if t < ta_lo:
                    ta_lo = t
                if t > ta_hi:
                    ta_hi = t
            na += 1
    for j in range(b.nv):
        x, y = vb[2 * j] + dx, vb[2 * j + 1] + dy
        if nx * x + ny * y <= bmin + eb:
            t = tx * x + ty * y
            if nb == 0:
                tb_lo = tb_hi = t
            else:
                if t < tb_lo:
                    tb_lo = t
                if t > tb_hi:
                    tb_hi = t
            nb += 1
    if na < 2 or nb < 2:
        return
    lo = max2(ta_lo, tb_lo)
    hi = min2(ta_hi, tb_hi)
    if lo > hi:
        return
    tc = (lo + hi) / 2
    px[0], py[0] = nx * amax + tx * tc, ny * amax + ty * tc
    qx[0], qy[0] = nx * bmin + tx * tc, ny * bmin + ty * tc


cdef int _convex(const Store* s, const Body* a, const Body* b, double limit,
                 CSeparation* out, bint fill) noexcept nogil:
    # two convex pieces; the vertex-edge pairs in each piece's own body frame
    cdef Leaf la = leaf_at(s, a.first)
    cdef Leaf lb = leaf_at(s, b.first)
    cdef double dx = b.px - a.px, dy = b.py - a.py
    cdef double gap_a, gap_b, wmin_a, wmin_b, lower, px, py, qx, qy, ux, uy, nx, ny, d
    cdef int face_a, face_b
    cdef bint cert
    gap_a = _sat(la.f, la.nf, lb.v, lb.nv, dx, dy, &face_a, &wmin_a)  # b's vertices, a's frame
    gap_b = _sat(lb.f, lb.nf, la.v, la.nv, -dx, -dy, &face_b, &wmin_b)  # a's, b's frame
    lower = max2(gap_a, gap_b)
    if lower <= 0.0:
        if fill:
            _overlapping(s, a, b, out)
        return ZERO
    if lower > limit:
        return BEYOND
    if _touching(s, a, b, lower, out):
        return ZERO
    # a face and a vertex facing each other (a box resting on a floor): the face's separation
    if gap_a >= gap_b:
        cert = _face_witness(&la, face_a, &lb, dx, dy, wmin_a, &px, &py, &qx, &qy)
    else:
        cert = _face_witness(&lb, face_b, &la, -dx, -dy, wmin_b, &qx, &qy, &px, &py)
        if cert:
            px, py, qx, qy = px + dx, py + dy, qx + dx, qy + dy
    if not cert:  # else a vertex and a vertex: every vertex against the edges it faces
        _nearest_pair(&la, &lb, dx, dy, &px, &py, &qx, &qy)
    ux, uy = qx - px, qy - py
    if ux == 0.0 and uy == 0.0:
        if fill:
            _overlapping(s, a, b, out)
        return ZERO
    d = unit(ux, uy, &nx, &ny)
    _middle_of_parallel(&la, &lb, dx, dy, nx, ny, &px, &py, &qx, &qy)
    out.distance = d
    out.nx, out.ny = nx, ny
    out.ax, out.ay = px + a.px, py + a.py
    out.bx, out.by = qx + a.px, qy + a.py
    return APART


# ------------------------------------------------------------ dispatch

cdef int _primitives(const Store* s, const Body* a, const Body* b, double limit,
                     CSeparation* out, bint fill) noexcept nogil:
    # two primitives whose boxes are within the limit; with `fill`, a ZERO answer carries
    # the zero separation of a and b (else the caller makes its own)
    cdef int found
    if a.kind == MASK or b.kind == MASK:  # no exact separation of pixels (contact_within)
        return BEYOND
    if a.kind == CIRCLE:
        return _circle_vs(s, a, b, limit, out, fill)
    if b.kind == CIRCLE:
        found = _circle_vs(s, b, a, limit, out, fill)
        if found == APART or (found == ZERO and fill):
            _flip(out)
        return found
    return _convex(s, a, b, limit, out, fill)


cdef inline void _part(const Store* s, const Body* body, const int* ids, int k,
                       Body* out) noexcept nogil:
    """Part k of a body: the k-th of its listed leaves ``ids`` (or of its whole range when
    NULL) for a group, or the body itself."""
    if not is_group(body.kind):
        out[0] = body[0]
    elif ids != NULL:
        out[0] = leaf_body(s, ids[k], body.px, body.py)
    else:
        out[0] = leaf_body(s, body.first + k, body.px, body.py)


cdef int _near_parts(const Store* s, const Body* body, const Body* other, double grow,
                     int* ids, int cap) noexcept nogil:
    """How many parts of ``body`` to look at against ``other``: 1 for a single shape; for a
    group the leaves near ``other``'s box grown by ``grow``, listed in ``ids`` (their count),
    or -1 if there are more than ``cap`` (then every part)."""
    cdef Near it
    cdef int n = 0, i
    if not is_group(body.kind):
        return 1
    near_body(&it, s, body, other, grow)
    i = near_next(&it)
    while i >= 0:
        if n == cap:
            return -1
        ids[n] = i
        n += 1
        i = near_next(&it)
    return n


cdef bint _pair_try(const Store* s, const Body* a, const Body* b, const Body* pa,
                    const Body* pb, double* limit, bint* found, CSeparation* out,
                    bint* zero) noexcept nogil:
    # one part pair: a nearer separation lowers the limit; overlapping parts make the whole
    # pair's zero separation (its deepest contact) the answer (*zero set, True returned)
    cdef CSeparation sep
    cdef int st
    if _box_gap(pa, pb) > limit[0]:
        return False
    st = _primitives(s, pa, pb, limit[0], &sep, False)
    if st == ZERO:
        _overlapping(s, a, b, out)
        zero[0] = True
        return True
    if st == APART and (not found[0] or sep.distance < out.distance):
        out[0] = sep
        limit[0] = sep.distance
        found[0] = True
    return False


cdef bint _compound(const Store* s, const Body* a, const Body* b, double limit,
                    CSeparation* out) noexcept nogil:
    # Nearest part pair, the pairs taken nearest box first (a's parts outer, b's inner, on a
    # tie); pairs whose boxes are further than the best so far end the search.
    cdef int ids_a[MAX_NEAR_PARTS]
    cdef int ids_b[MAX_NEAR_PARTS]
    cdef int na = _near_parts(s, a, b, limit + TOUCH, ids_a, MAX_NEAR_PARTS)
    cdef int nb = _near_parts(s, b, a, limit + TOUCH, ids_b, MAX_NEAR_PARTS)
    cdef const int* la = ids_a
    cdef const int* lb = ids_b
    if na < 0:  # too many near parts to list: all of them
        na, la = a.count, NULL
    if nb < 0:
        nb, lb = b.count, NULL
    cdef int n = na * nb, i, j, k, last_k
    cdef double gaps[MAX_SORTED_PAIRS]
    cdef int order[MAX_SORTED_PAIRS]
    cdef double g, last_g, best_g
    cdef Body pa, pb
    cdef bint found = False, zero = False
    if n <= MAX_SORTED_PAIRS:
        # box gaps in a stack array, sorted (stable: by gap, then pair index)
        for k in range(n):
            _part(s, a, la, k // nb, &pa)
            _part(s, b, lb, k % nb, &pb)
            g = _box_gap(&pa, &pb)
            i = k
            while i > 0 and gaps[i - 1] > g:
                gaps[i] = gaps[i - 1]
                order[i] = order[i - 1]
                i -= 1
            gaps[i] = g
            order[i] = k
        for i in range(n):
            if gaps[i] > limit:
                break
            k = order[i]
            _part(s, a, la, k // nb, &pa)
            _part(s, b, lb, k % nb, &pb)
            if _pair_try(s, a, b, &pa, &pb, &limit, &found, out, &zero):
                return True
        return found
    # many pairs: each step scans for the next pair in (gap, index) order
    last_g, last_k = -INFINITY, -1
    while True:
        best_g, j = INFINITY, -1
        for k in range(n):
            _part(s, a, la, k // nb, &pa)
            _part(s, b, lb, k % nb, &pb)
            g = _box_gap(&pa, &pb)
            if (g > last_g or (g == last_g and k > last_k)) and (j < 0 or g < best_g):
                best_g, j = g, k
        if j < 0 or best_g > limit:
            return found
        last_g, last_k = best_g, j
        _part(s, a, la, j // nb, &pa)
        _part(s, b, lb, j % nb, &pb)
        if _pair_try(s, a, b, &pa, &pb, &limit, &found, out, &zero):
            return True


cdef bint separation(const Store* s, const Body* a, const Body* b, double limit,
                     CSeparation* out) noexcept nogil:
    if _box_gap(a, b) > limit:
        return False
    if is_group(a.kind) or is_group(b.kind):
        return _compound(s, a, b, limit, out)
    return _primitives(s, a, b, limit, out, True) != BEYOND


cdef bint _mask_within(const Store* s, const Body* a, const Body* b, double skin,
                       CContact* out) noexcept nogil:
    """Masks have no exact separation: a mask and a shape are within ``skin`` when b moved
    ``skin`` towards a along one of the eight compass directions meets it (the first that
    does gives the normal; the depth says ``-skin / 2``, halfway)."""
    cdef Body moved_b = b[0]
    cdef double d = 0.7071067811865476
    cdef double dx[8]
    cdef double dy[8]
    cdef CContact c
    cdef int k
    dx[0], dx[1], dx[2], dx[3], dx[4], dx[5], dx[6], dx[7] = -1.0, 1.0, 0.0, 0.0, -d, -d, d, d
    dy[0], dy[1], dy[2], dy[3], dy[4], dy[5], dy[6], dy[7] = 0.0, 0.0, -1.0, 1.0, -d, d, -d, d
    for k in range(8):
        moved_b.px = b.px + dx[k] * skin
        moved_b.py = b.py + dy[k] * skin
        if contact(s, a, &moved_b, TOUCH, &c):
            out.nx, out.ny, out.depth = -dx[k], -dy[k], -skin * 0.5
            out.px, out.py = c.px, c.py
            return True
    return False


cdef bint _has_mask(const Store* s, const Body* b) noexcept nogil:
    cdef int i
    if b.kind == MASK:
        return True
    if b.kind != COMPOUND:
        return False
    for i in range(b.first, b.first + b.count):
        if s.li[i * LI_STRIDE + LI_KIND] == MASK:
            return True
    return False


cdef bint contact_within(const Store* s, const Body* a, const Body* b, double skin,
                         CContact* out) noexcept nogil:
    cdef CSeparation sep
    if contact(s, a, b, TOUCH, out):
        return True
    if skin <= TOUCH:
        return False
    if _has_mask(s, a) or _has_mask(s, b):
        return _mask_within(s, a, b, skin, out)
    if not separation(s, a, b, skin, &sep) or sep.distance > skin:
        return False
    out.nx, out.ny, out.depth = sep.nx, sep.ny, -sep.distance
    out.px, out.py = (sep.ax + sep.bx) / 2, (sep.ay + sep.by) / 2
    return True


# ------------------------------------------------------------ the public functions
#
# They hold the GIL: the shapes live in the one public store, which another thread could grow
# (moving its arrays) or empty while the pointers are read.

@cython.embedsignature(False)
def distance(a, pos_a, b, pos_b):
    """Separation of shape ``a`` at body position ``pos_a`` from ``b`` at ``pos_b``.

    Exact for shapes apart; ``distance == 0.0`` with ``contact``'s normal and point for shapes
    that overlap or touch. Raises ``TypeError`` for a shape kind it does not know.
    """
    cdef Body ba, bb
    cdef Store s = public_pair(a, pos_a, b, pos_b, &ba, &bb, "no distance for")
    cdef CSeparation sep
    if not separation(&s, &ba, &bb, INFINITY, &sep):  # not reached: nothing is beyond infinity
        raise AssertionError(f"no separation of {a!r} at {pos_a!r} and {b!r} at {pos_b!r}")
    return Separation(sep.distance, (sep.nx, sep.ny), (sep.ax, sep.ay), (sep.bx, sep.by))


@cython.embedsignature(False)
def _contact_within(a, pos_a, b, pos_b, double skin):
    """``contact(a, pos_a, b, pos_b)``, or for shapes apart by at most ``skin`` a Contact with
    ``depth = -distance`` (negative), the unit normal from ``a`` to ``b`` along the closest
    points and the point halfway between them; ``None`` for shapes further apart.
    Raises ``TypeError`` for a pair of kinds without a test."""
    cdef Body ba, bb
    cdef Store s = public_pair(a, pos_a, b, pos_b, &ba, &bb, "no contact_within test for")
    cdef CContact c
    if not contact_within(&s, &ba, &bb, skin, &c):
        return None
    return Contact((c.nx, c.ny), c.depth, (c.px, c.py))


def _circles_contact_within(a, pos_a, b, pos_b, double skin):
    """The narrowphase's inline path for two circles (`circles_contact_within`, distance.pxd)
    as `contact_within` answers (for tests: the two must agree to the bit)."""
    cdef Body ba, bb
    cdef Store s = public_pair(a, pos_a, b, pos_b, &ba, &bb, "no contact_within test for")
    cdef CContact c
    if ba.kind != CIRCLE or bb.kind != CIRCLE:
        raise TypeError(f"two circles are needed, got {type(a).__name__} and {type(b).__name__}")
    if not circles_contact_within(&s, &ba, &bb, skin, &c):
        return None
    return Contact((c.nx, c.ny), c.depth, (c.px, c.py))


# The Python name `contact_within` belongs to the cdef routine inside this module (other
# modules cimport it); the public function is put under that name in the module's namespace.
_contact_within.__name__ = _contact_within.__qualname__ = "contact_within"
globals()["contact_within"] = _contact_within
del globals()["_contact_within"]
