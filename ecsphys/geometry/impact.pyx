# Shapes in motion, compiled: the first time two moving shapes touch (time of impact).
#
# Guarantees:
# - `time_of_impact(a, pos_a, move_a, b, pos_b, move_b)` returns the first t in [0, 1] at which
#   a moved by move_a * t touches b moved by move_b * t, with the Contact at that time (normal
#   from a to b, depth about 0, both shapes where they are at t), or None. Only the relative
#   motion move_a - move_b matters (the seed's "subtract the movement of one object from
#   both"): b is held still, a moves by the difference, and the contact point is shifted by
#   move_b * t at the end.
# - Nothing tunnels: circle pairs are solved exactly (circle-circle, circle-segment, circle-box,
#   circle-convex polygon); axis-aligned rectangle pairs by the slab method (the first time
#   within REACH); every other convex pair by conservative advancement, and where that does
#   not settle within MAX_ADVANCES steps by the binary impact search, whose leaves test the
#   exact swept hull, so a thin segment crossing a thin wall is never a miss. The time found
#   is never after the true first touch and at most about TOUCH_TOLERANCE (in distance) before
#   it: a tolerance in distance, so in t it is about TOUCH_TOLERANCE / |relative move|.
# - Already touching at t = 0 (contact within TOUCH_TOLERANCE): the answer is (0, contact) if
#   the relative motion points into the contact (dot(move_a - move_b, normal) > 0), else None:
#   touching shapes that separate or slide along each other do not impact. Where the contact
#   normal is a convention, the rule is: circles with coincident centres (within ON_TOLERANCE)
#   separate under every move (None); a circle centre on a segment (within ON_TOLERANCE)
#   approaches under every move that is not parallel to the segment (within
#   PARALLEL_TOLERANCE), with the segment's perpendicular facing the move as normal.
# - Two convex polygons (rects, oriented rects, polygons; not circles, segments or masks)
#   that touch on a vertex of each (more than one axis separates them within
#   TOUCH_TOLERANCE: a box's corner on the foot vertex of a ramp lying on the same floor)
#   get, of those axes, the one the relative move closes slowest but closes as the normal
#   (`slide_normal`): each is a true normal there, and this one lets a slide go on along
#   the ramp rather than stop at its foot. A touch on a face keeps the face's normal.
# - Compounds: every part pair is timed, the earliest wins, the deeper contact on a tie; the
#   start rule applies per part pair. A pair whose boxes swept over the move do not meet
#   (within TOUCH_TOLERANCE) is rejected before any exact test.
# - A pixel mask on either side: seed 002's search over the overlap test, sampled every half
#   pixel of the finer mask, then halved to a thousandth of a pixel (`mask_toi`). Only the
#   part of the move where the two boxes, each grown by a pixel, meet is sampled (the rest
#   cannot touch), at most MASK_SAMPLES = 100,000 samples a pair (evenly over a part longer
#   than that many half pixels), and the halving ends where t resolves no finer: a pair's
#   cost does not grow with the length of the move, however long (a shape cast across the
#   whole valid range included).
# - `binary_impact_search` (the seed's method, kept public) never misses a touch: a part of the
#   move is skipped only when the bounding circle of the shape at its start and end (which
#   contains everything the shape sweeps over) misses the other shape; a leaf (a part of the
#   move shorter than max(size / 4, 1/32), size the shape's smaller bounding-box side) is
#   tested with the exact swept hull. Halves are searched earliest first, so the leaf returned
#   is the first one where the shapes touch.
# - Every cdef routine is `noexcept nogil`, touches no Python object and allocates nothing:
#   the narrowphase calls `time_of_impact` for every moving pair, in a loop without the GIL.
#
# Method:
# - A circle moving against a shape at rest meets it when its centre enters the shape grown by
#   the radius. Circle-circle: the centre's path (a ray) against a circle of both radii.
#   Circle-segment: a capsule (two sides parallel to the segment, a circle at each end).
#   Circle-rectangle: a rounded box; the path is clipped against the box grown by the radius
#   (slabs), and an entry in a corner region is resolved against that corner's circle.
#   Circle-convex polygon: the grown polygon is the union of its inside and its edges'
#   capsules; the circle starts outside, so the first entry is the first capsule entry.
# - Two axis-aligned rectangles: a's centre path against their Minkowski sum grown by REACH
#   (the box of half extents half_a + half_b + REACH): one slab per axis, the latest entry.
# - Any other convex pair, by conservative advancement: the distance d(t) between two convex
#   shapes, one moved by t * move, is a convex function of t (a point moving on a line,
#   measured from their convex Minkowski difference), so its tangent lies below it, and the
#   tangent's root t + (d - REACH) / c, c the move's part along the normal, is never after the
#   first time within REACH: each step lands on or before it, from below. A normal the move
#   does not approach along (c <= 0), or a step past t = 1, means no impact. Settled when
#   within REACH + PRECISION. A near-tangent approach creeps on: after MAX_ADVANCES steps the
#   move goes to the binary impact search, then a bisection inside its leaf for the first time
#   within REACH along every separating axis of the swept hull, to PRECISION in distance,
#   returning the earlier end (a graze that comes no closer than REACH but within
#   TOUCH_TOLERANCE: the first time within TOUCH_TOLERANCE).
# - The swept hull of a convex shape moving from t0 to t1 is the convex hull of its two end
#   placements; its faces are the shape's own (each pushed out by the move's part along it,
#   at t1 when the move points out of the face, else at t0) and two faces parallel to the
#   move. Separating axes of two convex shapes: their face normals, so the hull against a
#   resting convex shape needs the normals of both and the move's perpendicular.

"""Shapes in motion (compiled): the first time two moving shapes touch.

``time_of_impact`` (any pair of shapes, compounds included), the analytic ``toi_circle_circle``,
``toi_circle_segment``, ``toi_circle_rect``, ``toi_rect_rect`` and the seed's
``binary_impact_search``; the guarantees and the method are in the comment that opens
``impact.pyx``.
"""

cimport cython
from libc.math cimport INFINITY, ceil, copysign, fabs, floor, sqrt

from .distance cimport separation
from .manifold cimport contact, overlap
from .vec cimport clip_ray, max2, min2, min_proj, norm
from .shape_data cimport (
    public_pair,
    CIRCLE,
    MASK,
    ORECT,
    POLYGON,
    RECT,
    SEGMENT,
    Body,
    CContact,
    CSeparation,
    Leaf,
    Near,
    Store,
    is_group,
    leaf_at,
    leaf_body,
    near_facing,
    near_init,
    near_next,
)

from ..limits import MAX_COORD, check_vec
from ..shapes import Shape
from .contact import ON_TOLERANCE, PARALLEL_TOLERANCE, TOUCH_TOLERANCE, Contact

#: Leaf length of the binary impact search at least this (world units), whatever the size.
EPSILON = 1.0 / 32.0
#: The time of impact is the first time the shapes come within REACH of each other (known to
#: PRECISION in distance along the move): inside TOUCH_TOLERANCE by a margin, so the contact
#: then has depth >= -TOUCH_TOLERANCE despite rounding; and not 0, so that shapes that graze
#: (touch exactly, in a direction rounding may make 1e-17 apart) are not passed over.
REACH = 0.875 * TOUCH_TOLERANCE
PRECISION = TOUCH_TOLERANCE / 16
#: Steps of conservative advancement before it leaves the move to the binary search (a
#: near-tangent approach creeps on; a direct one needs a handful).
MAX_ADVANCES = 24

if ECSPHYS_TOUCH_TOLERANCE != TOUCH_TOLERANCE or ON_TOLERANCE != TOUCH_TOLERANCE:
    raise ImportError("ecsphys.geometry.impact: the inline circle routines (impact.pxd) were "
                      f"built for a touch tolerance of {ECSPHYS_TOUCH_TOLERANCE!r}, the "
                      f"geometry's is {TOUCH_TOLERANCE!r} (on: {ON_TOLERANCE!r}): rebuild")

# The same numbers for the C routines (module globals: read only once imported).
cdef double TOUCH = TOUCH_TOLERANCE
cdef double ON_TOL = ON_TOLERANCE
cdef double PARALLEL = PARALLEL_TOLERANCE
cdef double C_REACH = REACH
cdef double C_PRECISION = PRECISION
cdef double C_EPSILON = EPSILON
cdef int C_MAX_ADVANCES = MAX_ADVANCES

# Outcomes of conservative advancement.
cdef enum:
    MISS = 0
    HIT = 1
    UNDECIDED = 2

# The deepest node of the binary impact search (the root is depth 0), and so the size of its
# explicit stack. The search is depth first, earliest half first: popping a node of depth k
# leaves on the stack at most one pending later half for each depth 1..k (each ancestor's,
# and the node's own sibling), k entries; splitting it pushes its two halves (depth k + 1),
# k + 2 entries. A node is split only when its depth is below MAX_DEPTH, so the stack never
# holds more than MAX_DEPTH + 1 entries: STACK_SIZE.
# How deep the search really goes: a node of depth k spans 2^-k of the move (t halves exactly
# while it has the bits; the search stops splitting where the midpoint of t0 and t1 rounds
# onto an end), and is split only while |move| * 2^-k >= the leaf size. With the default leaf
# size (at least EPSILON = 2^-5) and any finite move (|move| < 2^1024) that is k < 1029, so
# MAX_DEPTH = 1100 never binds; it binds only for a caller's min_step below |move| * 2^-1099,
# and then a node at MAX_DEPTH is tested whole, with the exact swept hull: a longer leaf,
# never a miss. (The Python search looped forever where t could not be split.)
cdef enum:
    MAX_DEPTH = 1100
    STACK_SIZE = MAX_DEPTH + 1

# A time of impact with a pixel mask (`mask_toi`) samples at most MASK_SAMPLES placements a
# pair and halves at most MASK_HALVINGS times (it stops sooner where t resolves no finer).
cdef enum:
    MASK_SAMPLES = 100000
    MASK_HALVINGS = 64

cdef struct Span:
    double t0
    double t1
    int depth


# --- analytic: a circle moving against a circle, a segment, a box --------------------------


cdef bint circle_segment_toi(double cx, double cy, double radius, double mx, double my,
                             double x1, double y1, double x2, double y2, double mbx,
                             double mby, double* t, double* nx, double* ny) noexcept nogil:
    """First time in [0, 1] a moving circle touches the segment (x1, y1)-(x2, y2) (moving by
    (mbx, mby)), and the unit normal from the circle to the segment then: the centre's path
    against the capsule of the segment grown by the radius (its two sides, its end circles)."""
    cdef double dx = mx - mbx
    cdef double dy = my - mby
    cdef double ex = x2 - x1
    cdef double ey = y2 - y1
    cdef double length = norm(ex, ey)
    cdef double ee = length * length
    cdef double u, qx, qy, dist, cross, sx, sy, ux, uy, s0, sd, tt, along, hx, hy, h, vx, vy
    cdef double bt = 0.0, bnx = 0.0, bny = 0.0
    cdef bint found = False
    cdef int end
    # initial touch: the closest point of the segment
    u = ((cx - x1) * ex + (cy - y1) * ey) / ee if ee > 0.0 else 0.0
    u = 0.0 if u < 0.0 else (1.0 if u > 1.0 else u)
    qx = x1 + ex * u - cx
    qy = y1 + ey * u - cy
    dist = norm(qx, qy)
    if dist <= radius + TOUCH:
        if length > 0.0 and dist <= ON_TOL:
            # centre on the segment: the perpendicular facing the move; every move across
            # the segment approaches it, a move along it (within PARALLEL_TOLERANCE) slides
            cross = ex * dy - ey * dx
            if fabs(cross) <= PARALLEL * length * norm(dx, dy):
                return False
            sx = ey / length
            sy = -ex / length
            t[0] = 0.0
            if cross < 0.0:
                nx[0] = sx
                ny[0] = sy
            else:
                nx[0] = -sx
                ny[0] = -sy
            return True
        if dist == 0.0:
            return False  # a point segment under the centre: like coincident circles
        sx = qx / dist
        sy = qy / dist
        if sx * dx + sy * dy > 0.0:
            t[0] = 0.0
            nx[0] = sx
            ny[0] = sy
            return True
        return False
    # the sides: the centre comes to distance `radius` from the segment's line, between its
    # ends
    if length > 0.0:
        ux = ex / length
        uy = ey / length
        sx = uy
        sy = -ux
        s0 = (cx - x1) * sx + (cy - y1) * sy
        sd = dx * sx + dy * sy
        if s0 < 0.0:
            s0 = -s0
            sd = -sd
            sx = -sx
            sy = -sy
        # now the centre is on the +n side; it must come to distance radius
        if sd < 0.0 and s0 >= radius:
            tt = (s0 - radius) / -sd
            if tt <= 1.0:
                along = (cx + dx * tt - x1) * ux + (cy + dy * tt - y1) * uy
                if 0.0 <= along <= length:
                    found = True
                    bt = tt
                    bnx = -sx
                    bny = -sy
    # the end circles
    for end in range(2):
        vx = x1 if end == 0 else x2
        vy = y1 if end == 0 else y2
        if ray_circle(cx - vx, cy - vy, dx, dy, radius, &tt) and tt <= 1.0 and (
                not found or tt < bt):
            hx = vx - (cx + dx * tt)
            hy = vy - (cy + dy * tt)
            h = norm(hx, hy)
            found = True
            bt = tt
            bnx = hx / h
            bny = hy / h
    if found:
        t[0] = bt
        nx[0] = bnx
        ny[0] = bny
    return found


cdef inline bint _slab(double p, double d, double e, double* ta, double* tb) noexcept nogil:
    """One axis of a slab clip: the times ``ta <= tb`` a path ``p + d t`` is within ``e`` of 0
    on it (all time, -INFINITY .. INFINITY, if it does not move along it: it narrows
    nothing); False if it does not move along it and is outside."""
    if d == 0.0:
        if fabs(p) > e:
            return False
        ta[0] = -INFINITY
        tb[0] = INFINITY
        return True
    ta[0] = (-e - p) / d
    tb[0] = (e - p) / d
    if ta[0] > tb[0]:
        ta[0], tb[0] = tb[0], ta[0]
    return True


cdef bint circle_rect_toi(double cx, double cy, double radius, double mx, double my,
                          double rcx, double rcy, double hw, double hh, double mbx, double mby,
                          double* t, double* nx, double* ny) noexcept nogil:
    """First time in [0, 1] a moving circle touches an axis-aligned rectangle (centre, half
    extents, moving by (mbx, mby)), and the unit normal from the circle to it then: the
    centre's path clipped against the box grown by the radius (a rounded rectangle), a corner
    entry resolved against that corner's circle."""
    cdef double lx = cx - rcx
    cdef double ly = cy - rcy
    cdef double dx = mx - mbx
    cdef double dy = my - mby
    cdef double r = radius
    cdef double qx, qy, gx, gy, dist, sx, sy, m, ex, ey, t_in, t_out, p, d, e, ta, tb, tt
    cdef double hx, hy, kx, ky, tc, kcx, kcy, c, s
    cdef double bnx = 0.0, bny = 0.0
    cdef int axis
    # initial touch: the closest point of the box
    qx = hw if lx > hw else (-hw if lx < -hw else lx)
    qy = hh if ly > hh else (-hh if ly < -hh else ly)
    gx = qx - lx
    gy = qy - ly
    dist = norm(gx, gy)
    if dist <= r + TOUCH:
        if dist > 0.0:
            sx = gx / dist
            sy = gy / dist
        else:
            # centre inside: the nearest face's outward direction, reversed
            m = hw - lx
            if lx + hw < m:
                m = lx + hw
            if hh - ly < m:
                m = hh - ly
            if ly + hh < m:
                m = ly + hh
            if m == hw - lx:
                sx = -1.0
                sy = 0.0
            elif m == lx + hw:
                sx = 1.0
                sy = 0.0
            elif m == hh - ly:
                sx = 0.0
                sy = -1.0
            else:
                sx = 0.0
                sy = 1.0
        if sx * dx + sy * dy > 0.0:
            t[0] = 0.0
            nx[0] = sx
            ny[0] = sy
            return True
        return False
    # slab clip of the path against the box grown by r
    ex = hw + r
    ey = hh + r
    t_in = -INFINITY
    t_out = INFINITY
    for axis in range(2):
        p = lx if axis == 0 else ly
        d = dx if axis == 0 else dy
        e = ex if axis == 0 else ey
        if not _slab(p, d, e, &ta, &tb):
            return False
        if ta > t_in:
            t_in = ta
            s = 1.0 if d > 0.0 else -1.0
            if axis == 0:
                bnx = s
                bny = 0.0
            else:
                bnx = 0.0
                bny = s
        if tb < t_out:
            t_out = tb
    if t_in > t_out or t_out < 0.0 or t_in > 1.0:
        return False
    tt = t_in
    if 0.0 > t_in:
        tt = 0.0
    hx = lx + dx * tt
    hy = ly + dy * tt
    if fabs(hx) > hw and fabs(hy) > hh:  # corner region: only that corner's circle can be hit
        kx = copysign(hw, hx)
        ky = copysign(hh, hy)
        if not ray_circle(lx - kx, ly - ky, dx, dy, r, &tc) or tc > 1.0:
            return False
        kcx = kx - (lx + dx * tc)
        kcy = ky - (ly + dy * tc)
        c = norm(kcx, kcy)
        t[0] = tc
        nx[0] = kcx / c
        ny[0] = kcy / c
        return True
    t[0] = tt
    nx[0] = bnx
    ny[0] = bny
    return True


cdef bint rect_rect_slab(double cax, double cay, double hax, double hay, double max_,
                         double may, double cbx, double cby, double hbx, double hby,
                         double mbx, double mby, double* t) noexcept nogil:
    """First time in [0, 1] two moving axis-aligned rectangles come within REACH of each
    other: a's centre path against the box of half extents half_a + half_b + REACH around
    b's centre, one slab per axis, the latest entry (t = 0 if already inside)."""
    cdef double t_in = 0.0, t_out = 1.0
    cdef double p, d, e, ta, tb
    cdef int i
    for i in range(2):
        p = (cax - cbx) if i == 0 else (cay - cby)
        d = (max_ - mbx) if i == 0 else (may - mby)
        e = ((hax + hbx) if i == 0 else (hay + hby)) + C_REACH
        if not _slab(p, d, e, &ta, &tb):
            return False
        t_in = ta if ta > t_in else t_in
        t_out = tb if tb < t_out else t_out
        if t_in > t_out:
            return False
    t[0] = t_in
    return True


# --- the exact swept hull and the binary impact search -------------------------------------


cdef bint swept_overlaps(const Leaf* a, double pax, double pay, double mx, double my,
                         double t0, double t1, const Leaf* b, double pbx, double pby,
                         double tol) noexcept nogil:
    """True if convex leaf a at pa + move * t touches convex leaf b (at rest at pb) for some
    t in [t0, t1], within tol: no separating axis among the faces of both and the move's
    perpendicular (the swept hull's extra faces). Exact: nothing tunnels."""
    cdef double dx = pbx - pax
    cdef double dy = pby - pay
    cdef const double* f
    cdef double nx, ny, sup, mn, ext, lo, hi, v, length, ux, uy, alo, ahi, blo, bhi
    cdef int i, j
    # a's faces, pushed out by the move along them (at t1 moving out of the face, else t0)
    for i in range(a.nf):
        f = a.f + 3 * i
        nx = f[0]
        ny = f[1]
        sup = f[2]
        mn = nx * mx + ny * my
        ext = mn * t1 if mn > 0.0 else mn * t0
        lo = min_proj(b.v, b.nv, nx, ny)
        if lo + nx * dx + ny * dy - sup - ext > tol:
            return False
    # b's faces against the swept a (a's vertices at the end that is least along the face)
    for i in range(b.nf):
        f = b.f + 3 * i
        nx = f[0]
        ny = f[1]
        sup = f[2]
        mn = nx * mx + ny * my
        ext = mn * t0 if mn > 0.0 else mn * t1
        lo = min_proj(a.v, a.nv, nx, ny)
        if lo + ext - nx * dx - ny * dy - sup > tol:
            return False
    # the hull's faces parallel to the move: the move's perpendicular
    length = norm(mx, my)
    if length > 0.0:
        ux = -my / length
        uy = mx / length
        alo = INFINITY
        ahi = -INFINITY
        for j in range(a.nv):
            v = ux * a.v[2 * j] + uy * a.v[2 * j + 1]
            if v < alo:
                alo = v
            if v > ahi:
                ahi = v
        blo = INFINITY
        bhi = -INFINITY
        for j in range(b.nv):
            v = ux * (b.v[2 * j] + dx) + uy * (b.v[2 * j + 1] + dy)
            if v < blo:
                blo = v
            if v > bhi:
                bhi = v
        if blo - ahi > tol or alo - bhi > tol:
            return False
    return True


cdef bint circle_overlaps(double cx, double cy, double r, const Leaf* b, double pbx,
                          double pby) noexcept nogil:
    """True if the circle (cx, cy, r) overlaps or touches (within TOUCH_TOLERANCE) convex
    leaf b at pb: its centre within r of the closest point of b."""
    cdef double lim = r + TOUCH
    cdef double lx, ly, x1, y1, x2, y2, ex, ey, ee, u, qx, qy, s, d2, d2min
    cdef const double* f
    cdef bint inside
    cdef int i, k
    if b.kind == RECT:
        lx = fabs(cx + 0.0 - pbx - b.cx) - b.hx
        ly = fabs(cy + 0.0 - pby - b.cy) - b.hy
        lx = lx if lx > 0.0 else 0.0
        ly = ly if ly > 0.0 else 0.0
        return lx * lx + ly * ly <= lim * lim
    if b.kind == SEGMENT:
        x1 = b.v[0] + pbx
        y1 = b.v[1] + pby
        ex = b.v[2] + pbx - x1
        ey = b.v[3] + pby - y1
        ee = ex * ex + ey * ey
        u = ((cx - x1) * ex + (cy - y1) * ey) / ee if ee > 0.0 else 0.0
        u = 0.0 if u < 0.0 else (1.0 if u > 1.0 else u)
        qx = x1 + ex * u - cx
        qy = y1 + ey * u - cy
        return qx * qx + qy * qy <= lim * lim
    # a convex polygon: inside every face, or within r of the faces the centre is outside of
    lx = cx + 0.0 - pbx
    ly = cy + 0.0 - pby
    inside = True
    d2min = INFINITY
    for i in range(b.nf):
        f = b.f + 3 * i
        s = f[0] * lx + f[1] * ly - f[2]
        if s <= 0.0:
            continue
        if s > lim:
            return False
        inside = False
        k = i + 1 if i + 1 < b.nv else 0
        x1 = b.v[2 * i]
        y1 = b.v[2 * i + 1]
        x2 = b.v[2 * k]
        y2 = b.v[2 * k + 1]
        ex = x2 - x1
        ey = y2 - y1
        ee = ex * ex + ey * ey
        u = ((lx - x1) * ex + (ly - y1) * ey) / ee if ee > 0.0 else 0.0
        u = 0.0 if u < 0.0 else (1.0 if u > 1.0 else u)
        qx = x1 + ex * u - lx
        qy = y1 + ey * u - ly
        d2 = qx * qx + qy * qy
        if d2 < d2min:
            d2min = d2
    return inside or d2min <= lim * lim


cdef void bounding_circle(const Leaf* a, double* cx, double* cy, double* r) noexcept nogil:
    """A circle containing convex leaf a (the shape's own bounding_circle())."""
    cdef double x, y, d
    cdef int i
    if a.kind == RECT or a.kind == ORECT:
        cx[0] = a.cx
        cy[0] = a.cy
        r[0] = norm(2.0 * a.hx, 2.0 * a.hy) / 2
    elif a.kind == SEGMENT:
        cx[0] = (a.v[0] + a.v[2]) / 2
        cy[0] = (a.v[1] + a.v[3]) / 2
        r[0] = norm(a.v[2] - a.v[0], a.v[3] - a.v[1]) / 2
    else:
        x = (a.x0 + a.x1) / 2
        y = (a.y0 + a.y1) / 2
        cx[0] = x
        cy[0] = y
        r[0] = 0.0
        for i in range(a.nv):
            d = norm(a.v[2 * i] - x, a.v[2 * i + 1] - y)
            if d > r[0]:
                r[0] = d


cdef bint impact_leaf(const Store* s, const Body* a, double mx, double my, const Body* b,
                      double min_step, double* t0, double* t1) noexcept nogil:
    cdef Leaf la = leaf_at(s, a.first)
    cdef Leaf lb = leaf_at(s, b.first)
    cdef double length = norm(mx, my)
    cdef double bcx, bcy, br, ox, oy, lo, hi, tm, span, side
    cdef Span stack[STACK_SIZE]
    cdef int top = 0
    cdef int depth
    if min_step < 0.0:
        side = a.x1 - a.x0
        if a.y1 - a.y0 < side:
            side = a.y1 - a.y0
        min_step = side / 4
        if C_EPSILON > min_step:
            min_step = C_EPSILON
    bounding_circle(&la, &bcx, &bcy, &br)
    ox = a.px + bcx
    oy = a.py + bcy
    stack[0].t0 = 0.0
    stack[0].t1 = 1.0
    stack[0].depth = 0
    top = 1
    while top > 0:
        top -= 1
        lo = stack[top].t0
        hi = stack[top].t1
        depth = stack[top].depth
        tm = (lo + hi) / 2
        span = length * (hi - lo)
        # everything a sweeps over during [lo, hi] lies within the bounding circle at the
        # middle of the span grown by half the distance moved
        if not circle_overlaps(ox + mx * tm, oy + my * tm, br + span / 2 + TOUCH, &lb,
                               b.px, b.py):
            continue
        if span < min_step or depth >= MAX_DEPTH or not (lo < tm < hi):
            if swept_overlaps(&la, a.px, a.py, mx, my, lo, hi, &lb, b.px, b.py, TOUCH):
                t0[0] = lo
                t1[0] = hi
                return True
            continue
        # the later half first onto the stack, so the earlier one is searched first
        stack[top].t0 = tm
        stack[top].t1 = hi
        stack[top].depth = depth + 1
        stack[top + 1].t0 = lo
        stack[top + 1].t1 = tm
        stack[top + 1].depth = depth + 1
        top += 2
    return False


# --- convex pairs: conservative advancement, then the search and its bisection -------------


cdef inline Body moved(const Body* a, double mx, double my, double t) noexcept nogil:
    """Body a moved by (mx, my) * t."""
    cdef Body out = a[0]
    out.px = a.px + mx * t
    out.py = a.py + my * t
    return out


cdef int advance(const Store* s, const Body* a, double mx, double my, const Body* b,
                 double* t, CContact* out) noexcept nogil:
    """Conservative advancement of convex a (apart from b at the start) moving by (mx, my)
    against convex b at rest: HIT with *t and the contact then, MISS, or UNDECIDED if it does
    not settle within MAX_ADVANCES steps (each step the root of the distance's tangent)."""
    cdef CSeparation sep
    cdef Body at
    cdef double tt = 0.0
    cdef double d, closing
    cdef int step
    separation(s, a, b, INFINITY, &sep)
    for step in range(C_MAX_ADVANCES):
        d = sep.distance
        if d <= C_REACH + C_PRECISION:
            at = moved(a, mx, my, tt)
            if contact(s, &at, b, 2 * TOUCH, out):
                t[0] = tt
                return HIT
            return UNDECIDED
        closing = sep.nx * mx + sep.ny * my
        if closing <= 0.0:
            return MISS
        tt += (d - C_REACH) / closing
        if tt > 1.0:
            return MISS
        at = moved(a, mx, my, tt)
        separation(s, &at, b, INFINITY, &sep)
    return UNDECIDED


cdef inline bint _solid_polygon(int kind) noexcept nogil:
    return kind == RECT or kind == ORECT or kind == POLYGON


cdef void slide_normal(const Store* s, const Body* a, double mx, double my, const Body* b,
                       CContact* out) noexcept nogil:
    """At a touch of two convex polygons (rects, oriented rects, polygons) that more than one
    axis separates (within TOUCH_TOLERANCE: a vertex on a vertex, as a box's corner on the
    foot of a ramp lying on the same floor), every such axis is a true contact normal; the
    one the move (mx, my) closes slowest (but closes) becomes ``out``'s, so the rest of the
    move slides along the face that stops it least (up the ramp) instead of stopping at the
    corner. A touch with one separating axis (a face) is left as it is."""
    cdef Leaf la = leaf_at(s, a.first)
    cdef Leaf lb = leaf_at(s, b.first)
    if not (_solid_polygon(la.kind) and _solid_polygon(lb.kind)):
        return
    cdef double dx = b.px - a.px, dy = b.py - a.py
    cdef double best = out.nx * mx + out.ny * my, closing, nx, ny, sep
    cdef double bnx = out.nx, bny = out.ny
    cdef const double* f
    cdef int i
    if not best > 0.0:
        return
    f = la.f
    for i in range(la.nf):  # a's faces: the normal from a to b is the face's
        nx, ny = f[3 * i], f[3 * i + 1]
        sep = min_proj(lb.v, lb.nv, nx, ny) + nx * dx + ny * dy - f[3 * i + 2]
        closing = nx * mx + ny * my
        if sep >= -TOUCH and 0.0 < closing < best:
            best, bnx, bny = closing, nx, ny
    f = lb.f
    for i in range(lb.nf):  # b's faces: the normal from a to b is the face's reversed
        nx, ny = f[3 * i], f[3 * i + 1]
        sep = min_proj(la.v, la.nv, nx, ny) - nx * dx - ny * dy - f[3 * i + 2]
        closing = -(nx * mx + ny * my)
        if sep >= -TOUCH and 0.0 < closing < best:
            best, bnx, bny = closing, -nx, -ny
    out.nx = bnx
    out.ny = bny


cdef bint convex_toi(const Store* s, const Body* a, double mx, double my, const Body* b,
                     double* t, CContact* out) noexcept nogil:
    """Time of impact of convex a moving by (mx, my) against convex b at rest, the contact at
    a's position then (its normal the one the move closes slowest where several separate
    the two: `slide_normal`)."""
    cdef Body at
    if not _convex_toi(s, a, mx, my, b, t, out):
        return False
    at = moved(a, mx, my, t[0])
    slide_normal(s, &at, mx, my, b, out)
    return True


cdef bint _convex_toi(const Store* s, const Body* a, double mx, double my, const Body* b,
                      double* t, CContact* out) noexcept nogil:
    cdef CContact c
    cdef Leaf la, lb
    cdef Body at
    cdef double t0, t1, length, lo = 0.0, hi = 0.0, mid, tol
    cdef int outcome, round_, i
    if contact(s, a, b, TOUCH, &c):
        if c.nx * mx + c.ny * my > 0.0:
            t[0] = 0.0
            out[0] = c
            return True
        return False
    outcome = advance(s, a, mx, my, b, t, out)
    if outcome != UNDECIDED:
        return outcome == HIT
    if not impact_leaf(s, a, mx, my, b, -1.0, &t0, &t1):
        return False
    la = leaf_at(s, a.first)
    lb = leaf_at(s, b.first)
    length = norm(mx, my)
    # bisect for the first time within REACH (a graze that comes no closer than that but
    # within TOUCH_TOLERANCE: the first time within TOUCH_TOLERANCE)
    for round_ in range(2):
        tol = C_REACH if round_ == 0 else TOUCH
        lo = t0
        hi = t1
        for i in range(100):
            if (hi - lo) * length <= C_PRECISION:
                break
            mid = (lo + hi) / 2
            if not (lo < mid < hi):  # t cannot be split further (a very long move)
                break
            if swept_overlaps(&la, a.px, a.py, mx, my, t0, mid, &lb, b.px, b.py, tol):
                hi = mid
            else:
                lo = mid
        if hi < t1 or swept_overlaps(&la, a.px, a.py, mx, my, t0, t1, &lb, b.px, b.py, tol):
            break
    at = moved(a, mx, my, lo)
    if contact(s, &at, b, (hi - lo) * length + 2 * TOUCH, out):
        t[0] = lo
        return True
    # only if rounding moved the touch: report it at the later end
    at = moved(a, mx, my, hi)
    if contact(s, &at, b, 4 * TOUCH, out):
        t[0] = hi
        return True
    return False


# --- any pair -------------------------------------------------------------------------------


cdef bint circle_vs(const Store* s, const Body* a, double mx, double my, const Body* b,
                    double* t, double* nx, double* ny) noexcept nogil:
    """Analytic time of impact of circle a moving by (mx, my) against primitive b at rest,
    and the normal from a to b then."""
    cdef Leaf la = leaf_at(s, a.first)
    cdef Leaf lb = leaf_at(s, b.first)
    cdef double cx = a.px + la.cx
    cdef double cy = a.py + la.cy
    cdef double r = la.radius
    cdef double tt, hx, hy, bt = 0.0, bnx = 0.0, bny = 0.0
    cdef CContact c
    cdef bint found = False
    cdef int i, j
    if lb.kind == CIRCLE:
        return circle_circle_toi(cx, cy, r, mx, my, b.px + lb.cx, b.py + lb.cy, lb.radius,
                                 0.0, 0.0, t, nx, ny)
    if lb.kind == RECT:
        return circle_rect_toi(cx, cy, r, mx, my, b.px + lb.cx, b.py + lb.cy, lb.hx, lb.hy,
                               0.0, 0.0, t, nx, ny)
    if lb.kind == SEGMENT:
        return circle_segment_toi(cx, cy, r, mx, my, lb.v[0] + b.px, lb.v[1] + b.py,
                                  lb.v[2] + b.px, lb.v[3] + b.py, 0.0, 0.0, t, nx, ny)
    # a convex polygon: grown by the radius it is the union of its inside and its edges'
    # capsules; touching at the start, the start rule; else the first capsule entry
    if contact(s, a, b, TOUCH, &c):
        if c.nx * mx + c.ny * my > 0.0:
            t[0] = 0.0
            nx[0] = c.nx
            ny[0] = c.ny
            return True
        return False
    for i in range(lb.nv):
        j = i - 1 if i > 0 else lb.nv - 1
        if circle_segment_toi(cx, cy, r, mx, my, lb.v[2 * j] + b.px, lb.v[2 * j + 1] + b.py,
                              lb.v[2 * i] + b.px, lb.v[2 * i + 1] + b.py, 0.0, 0.0,
                              &tt, &hx, &hy) and (not found or tt < bt):
            found = True
            bt = tt
            bnx = hx
            bny = hy
    if found:
        t[0] = bt
        nx[0] = bnx
        ny[0] = bny
    return found


cdef bint rect_rect_toi(const Store* s, const Body* a, double mx, double my, const Body* b,
                        double* t, CContact* out) noexcept nogil:
    """Two axis-aligned rectangles: the start rule, else the slab time and the contact then."""
    cdef CContact c
    cdef Leaf la, lb
    cdef Body at
    cdef double tt
    if contact(s, a, b, TOUCH, &c):
        if c.nx * mx + c.ny * my > 0.0:
            t[0] = 0.0
            out[0] = c
            return True
        return False
    la = leaf_at(s, a.first)
    lb = leaf_at(s, b.first)
    if not rect_rect_slab(a.px + la.cx, a.py + la.cy, la.hx, la.hy, mx, my,
                          b.px + lb.cx, b.py + lb.cy, lb.hx, lb.hy, 0.0, 0.0, &tt):
        return False
    at = moved(a, mx, my, tt)
    if not contact(s, &at, b, 2 * TOUCH, out):
        return False
    t[0] = tt
    return True


cdef bint mask_toi(const Store* s, const Body* a, double mx, double my, const Body* b,
                   double* t, CContact* out) noexcept nogil:
    """Time of impact with a mask on either side: seed 002's search over the overlap test.
    The move is sampled every half pixel (of the finer mask) for the first place where the
    shapes meet, then halved between it and the sample before down to a thousandth of a
    pixel; the contact is the mask contact there. Shapes that meet at the start and approach
    give 0.

    Only the part of the move where the two boxes meet (each grown by a pixel) is sampled:
    the samples before and after it cannot overlap, so the answer is the one of sampling the
    whole move, at a cost per pair that does not grow with the move's length. At most
    MASK_SAMPLES samples a pair: a part longer than MASK_SAMPLES half pixels is sampled
    MASK_SAMPLES times evenly. The halving stops at MASK_HALVINGS steps or where t can be
    halved no further (a long move of tiny pixels), so it always ends."""
    cdef Leaf la = leaf_at(s, a.first)
    cdef Leaf lb = leaf_at(s, b.first)
    cdef double pixel = INFINITY
    if la.kind == MASK:
        pixel = la.radius
    if lb.kind == MASK and lb.radius < pixel:
        pixel = lb.radius
    cdef double length = norm(mx, my)
    cdef Body at
    cdef CContact c
    cdef double lo, hi, mid, tk, n, k0, k1, t0 = 0.0, t1 = 1.0, grow
    cdef double box[4]
    cdef long count, i
    if overlap(s, a, b):
        if contact(s, a, b, TOUCH, &c) and c.nx * mx + c.ny * my > 0.0:
            t[0] = 0.0
            out[0] = c
            return True
        return False
    if length == 0.0:
        return False
    # a's position where a's box meets b's, both grown by a pixel (and by the rounding of
    # the coordinates): the times outside [t0, t1] need no sample
    grow = pixel + 4.0 * TOUCH + 4e-16 * (fabs(a.px) + fabs(a.py) + fabs(b.px) + fabs(b.py)
                                          + fabs(mx) + fabs(my))
    box[0] = b.px + b.x0 - a.x1 - grow
    box[1] = b.py + b.y0 - a.y1 - grow
    box[2] = b.px + b.x1 - a.x0 + grow
    box[3] = b.py + b.y1 - a.y0 + grow
    if not clip_ray(a.px, a.py, mx, my, box, &t0, &t1):
        return False
    # the samples k / n of the whole move (every half pixel) that fall in [t0, t1]
    n = floor(length / (0.5 * pixel)) + 1.0
    k0 = floor(t0 * n)
    k1 = ceil(t1 * n)
    if k1 > n:
        k1 = n
    lo = k0 / n
    hi = -1.0
    if k1 - k0 <= MASK_SAMPLES:
        count = <long>(k1 - k0)
        for i in range(1, count + 1):
            tk = (k0 + i) / n
            at = moved(a, mx, my, tk)
            if overlap(s, &at, b):
                hi = tk
                break
            lo = tk
    else:  # a long part (a giant beside a tiny pixel): MASK_SAMPLES samples over it
        t0 = lo
        for i in range(1, MASK_SAMPLES + 1):
            tk = t0 + (t1 - t0) * i / MASK_SAMPLES if i < MASK_SAMPLES else t1
            at = moved(a, mx, my, tk)
            if overlap(s, &at, b):
                hi = tk
                break
            lo = tk
    if hi < 0.0:
        return False
    for i in range(MASK_HALVINGS):
        if not (hi - lo) * length > 1e-3 * pixel:
            break
        mid = (lo + hi) * 0.5
        if not (lo < mid < hi):  # t resolves no finer here
            break
        at = moved(a, mx, my, mid)
        if overlap(s, &at, b):
            hi = mid
        else:
            lo = mid
    at = moved(a, mx, my, hi)
    if not contact(s, &at, b, TOUCH, out):
        return False
    t[0] = hi
    return True


cdef bint primitive_toi(const Store* s, const Body* a, double mx, double my, const Body* b,
                        double* t, CContact* out) noexcept nogil:
    """Time of impact of primitive a moving by (mx, my) against primitive b at rest; the
    contact is at a's position at that time."""
    cdef Leaf la, lb
    cdef CContact c
    cdef Body at
    cdef double tt, nx, ny, cx, cy, k, depth
    if a.kind == MASK or b.kind == MASK:
        return mask_toi(s, a, mx, my, b, t, out)
    if a.kind == CIRCLE and b.kind == CIRCLE:  # the common pair, directly (impact.pxd)
        return circles_toi(s, a, mx, my, b, t, out)
    if a.kind == CIRCLE:
        if not circle_vs(s, a, mx, my, b, &tt, &nx, &ny):
            return False
        la = leaf_at(s, a.first)
        at = moved(a, mx, my, tt)
        cx = at.px + la.cx
        cy = at.py + la.cy
        if tt == 0.0 and contact(s, &at, b, 2 * TOUCH, &c):
            t[0] = 0.0
            if c.nx * mx + c.ny * my > 0.0:
                out[0] = c
                return True
            # a centre on a segment: the start convention's normal (facing the move), so
            # that the answer's normal always points into the move
            k = la.radius - c.depth / 2
            out.nx = nx
            out.ny = ny
            out.depth = c.depth
            out.px = cx + nx * k
            out.py = cy + ny * k
            return True
        t[0] = tt
        out.nx = nx
        out.ny = ny
        out.depth = 0.0
        out.px = cx + nx * la.radius
        out.py = cy + ny * la.radius
        return True
    if b.kind == CIRCLE:
        # b moving by -(mx, my) against a at rest: the same relative placements
        if not primitive_toi(s, b, -mx, -my, a, &tt, &c):
            return False
        t[0] = tt
        out.nx = -c.nx
        out.ny = -c.ny
        out.depth = c.depth
        out.px = c.px + mx * tt
        out.py = c.py + my * tt
        return True
    if a.kind == RECT and b.kind == RECT:
        return rect_rect_toi(s, a, mx, my, b, t, out)
    return convex_toi(s, a, mx, my, b, t, out)


cdef inline bint boxes_meet(const Body* a, double mx, double my,
                            const Body* b) noexcept nogil:
    """a's bounding box swept over the move meets b's (within TOUCH_TOLERANCE)."""
    cdef double ax0 = a.px + a.x0 + (mx if mx < 0.0 else 0.0)
    cdef double ay0 = a.py + a.y0 + (my if my < 0.0 else 0.0)
    cdef double ax1 = a.px + a.x1 + (mx if mx > 0.0 else 0.0)
    cdef double ay1 = a.py + a.y1 + (my if my > 0.0 else 0.0)
    cdef double bx0 = b.px + b.x0 + 0.0
    cdef double by0 = b.py + b.y0 + 0.0
    cdef double bx1 = b.px + b.x1 + 0.0
    cdef double by1 = b.py + b.y1 + 0.0
    return not (bx0 > ax1 + TOUCH or ax0 > bx1 + TOUCH or by0 > ay1 + TOUCH
                or ay0 > by1 + TOUCH)


cdef bint relative_toi(const Store* s, const Body* a, double mx, double my, const Body* b,
                       double* t, CContact* out) noexcept nogil:
    """Time of impact with b at rest; the contact placed where a is at that time."""
    cdef Body pa, pb
    cdef CContact c
    cdef double tt
    cdef bint found = False
    cdef int i, j
    cdef Near ia, ib
    if not boxes_meet(a, mx, my, b):
        return False
    if is_group(a.kind) or is_group(b.kind):
        # every part pair that may meet (a's parts near b's box swept back by the move, b's
        # near the part's swept box): the earliest, the deeper contact on a tie
        near_init(&ia, s, a, b.px + b.x0 - max2(mx, 0.0) - TOUCH,
                  b.py + b.y0 - max2(my, 0.0) - TOUCH, b.px + b.x1 - min2(mx, 0.0) + TOUCH,
                  b.py + b.y1 - min2(my, 0.0) + TOUCH)
        near_facing(&ia, s, a, b.px + (b.x0 + b.x1) * 0.5, b.py + (b.y0 + b.y1) * 0.5)
        i = near_next(&ia)
        while i >= 0:
            pa = leaf_body(s, i, a.px, a.py)
            near_init(&ib, s, b, pa.px + pa.x0 + min2(mx, 0.0) - TOUCH,
                      pa.py + pa.y0 + min2(my, 0.0) - TOUCH,
                      pa.px + pa.x1 + max2(mx, 0.0) + TOUCH,
                      pa.py + pa.y1 + max2(my, 0.0) + TOUCH)
            near_facing(&ib, s, b, pa.px + (pa.x0 + pa.x1) * 0.5, pa.py + (pa.y0 + pa.y1) * 0.5)
            j = near_next(&ib)
            while j >= 0:
                pb = leaf_body(s, j, b.px, b.py)
                if relative_toi(s, &pa, mx, my, &pb, &tt, &c) and (
                        not found or tt < t[0] or (tt == t[0] and c.depth > out.depth)):
                    found = True
                    t[0] = tt
                    out[0] = c
                j = near_next(&ib)
            i = near_next(&ia)
        return found
    return primitive_toi(s, a, mx, my, b, t, out)


cdef bint time_of_impact(const Store* s, const Body* a, double amx, double amy,
                         const Body* b, double bmx, double bmy,
                         double* t, CContact* out) noexcept nogil:
    cdef double mx = amx - bmx
    cdef double my = amy - bmy
    cdef double tt
    cdef CContact c
    if a.kind == CIRCLE and b.kind == CIRCLE:  # the common pair: no box test, no dispatch
        return circles_time_of_impact(s, a, amx, amy, b, bmx, bmy, t, out)
    if not relative_toi(s, a, mx, my, b, &tt, &c):
        return False
    return moved_contact(tt, &c, bmx, bmy, t, out)  # (computed with b at rest)


# --- the public functions -------------------------------------------------------------------


cdef inline _check_shape(str what, object shape):
    if not isinstance(shape, Shape):
        raise TypeError(
            f"{what} must be a shape (Circle, Rect, OrientedRect, Segment, Polygon or "
            f"Compound), got {type(shape).__name__}: {shape!r}"
        )


# The public time_of_impact: defined under another name (the C routine above holds the
# module's name `time_of_impact` for cimport), then bound to `time_of_impact` in the module's
# namespace at the end of this file.
@cython.embedsignature(False)
def _time_of_impact(a, pos_a, move_a, b, pos_b, move_b=(0.0, 0.0)):
    """time_of_impact(a, pos_a, move_a, b, pos_b, move_b=(0.0, 0.0))

    First ``t`` in ``[0, 1]`` at which ``a`` (moving from ``pos_a`` by ``move_a``) touches
    ``b`` (moving from ``pos_b`` by ``move_b``), and the Contact at that time (both shapes at
    their positions at ``t``), or ``None`` if they do not touch during the move.

    Shapes touching at the start give ``t = 0`` only if they approach; see the module notes.
    Raises ``TypeError`` for a pair of kinds without a test.
    """
    cdef Body ba, bb
    cdef Store s = public_pair(a, pos_a, b, pos_b, &ba, &bb, "no time of impact for")
    amx_, amy_ = check_vec("move_a", move_a, 2 * MAX_COORD)
    bmx_, bmy_ = check_vec("move_b", move_b, 2 * MAX_COORD)
    cdef double amx = amx_, amy = amy_, bmx = bmx_, bmy = bmy_
    cdef double t
    cdef CContact c
    if not time_of_impact(&s, &ba, amx, amy, &bb, bmx, bmy, &t, &c):
        return None
    return (t, Contact((c.nx, c.ny), c.depth, (c.px, c.py)))


def binary_impact_search(a, pos_a, move, b, pos_b, min_step=None):
    """The first interval ``(t0, t1)`` of ``a``'s move (from ``pos_a`` by ``move``, ``b`` at
    rest) in which convex ``a`` touches convex ``b``, or ``None`` if it never does.

    ``min_step`` (world units) is the longest leaf; default ``max(size / 4, 1/32)``.
    """
    _check_shape("binary_impact_search: a", a)
    _check_shape("binary_impact_search: b", b)
    for what, shape in (("a", a), ("b", b)):
        if shape.type_code not in (RECT, ORECT, SEGMENT, POLYGON):
            raise TypeError(
                f"binary_impact_search: {what} must be convex (Rect, OrientedRect, Segment or "
                f"Polygon), got {type(shape).__name__}"
            )
    cdef Body ba, bb
    cdef Store s = public_pair(a, pos_a, b, pos_b, &ba, &bb, "no time of impact for")
    mx_, my_ = check_vec("move", move, 2 * MAX_COORD)
    cdef double mx = mx_, my = my_
    cdef double step = -1.0 if min_step is None else min_step
    cdef double t0, t1
    if min_step is not None and not step > 0.0:
        raise ValueError(f"binary_impact_search: min_step must be positive, got {min_step!r}")
    if not impact_leaf(&s, &ba, mx, my, &bb, step, &t0, &t1):
        return None
    return (t0, t1)


def toi_circle_circle(center_a, radius_a, move_a, center_b, radius_b, move_b=(0.0, 0.0)):
    """First time in ``[0, 1]`` two moving circles touch, and the unit normal from ``a`` to
    ``b`` then; ``None`` if they do not (or touch at the start but are not approaching)."""
    cdef double t, nx, ny
    if circle_circle_toi(center_a[0], center_a[1], radius_a, move_a[0], move_a[1],
                         center_b[0], center_b[1], radius_b, move_b[0], move_b[1],
                         &t, &nx, &ny):
        return (t, (nx, ny))
    return None


def toi_circle_segment(center, radius, move, p1, p2, move_b=(0.0, 0.0)):
    """First time in ``[0, 1]`` a moving circle touches the segment ``p1``-``p2`` (which may
    move by ``move_b``), and the unit normal from the circle to the segment then."""
    cdef double t, nx, ny
    if circle_segment_toi(center[0], center[1], radius, move[0], move[1], p1[0], p1[1],
                          p2[0], p2[1], move_b[0], move_b[1], &t, &nx, &ny):
        return (t, (nx, ny))
    return None


def toi_circle_rect(center, radius, move, rect_center, half_extents, move_b=(0.0, 0.0)):
    """First time in ``[0, 1]`` a moving circle touches an axis-aligned rectangle (centre
    ``rect_center``, ``half_extents``, moving by ``move_b``), and the unit normal from the
    circle to the rectangle then. The rectangle grown by the radius is a rounded rectangle:
    the centre's path is clipped against the grown box, and a corner entry is resolved
    against that corner's circle."""
    cdef double t, nx, ny
    if circle_rect_toi(center[0], center[1], radius, move[0], move[1], rect_center[0],
                       rect_center[1], half_extents[0], half_extents[1], move_b[0],
                       move_b[1], &t, &nx, &ny):
        return (t, (nx, ny))
    return None


def toi_rect_rect(center_a, half_a, move_a, center_b, half_b, move_b=(0.0, 0.0)):
    """First time in ``[0, 1]`` two moving axis-aligned rectangles (centres, half extents)
    come within ``REACH`` of each other, or ``None``: the slab method on their Minkowski sum,
    the box of half extents ``half_a + half_b + REACH`` that ``a``'s centre path enters. The
    same time the binary impact search approximates, exactly. Rectangles within
    ``TOUCH_TOLERANCE`` already at the start are not handled here (``None`` or ``0.0``
    unchecked): see ``time_of_impact`` for the rule at ``t = 0``."""
    cdef double t
    if rect_rect_slab(center_a[0], center_a[1], half_a[0], half_a[1], move_a[0], move_a[1],
                      center_b[0], center_b[1], half_b[0], half_b[1], move_b[0], move_b[1],
                      &t):
        return t
    return None


_time_of_impact.__name__ = _time_of_impact.__qualname__ = "time_of_impact"
globals()["time_of_impact"] = _time_of_impact
del _time_of_impact
