# Times of impact of moving shapes (compiled): see impact.pyx for the guarantees.
from libc.math cimport sqrt

from .shape_data cimport ECSPHYS_TOUCH_TOLERANCE, Body, CContact, Leaf, Store, leaf_at
from .vec cimport norm

# --- two circles, inline: the pair a pile meets most (the slide asks it directly) ----------

cdef inline bint ray_circle(double px, double py, double dx, double dy, double radius,
                            double* t) noexcept nogil:
    """First t >= 0 at which the point p + d t reaches distance `radius` from the origin, for
    a point that starts outside: False if never (or not moving, or moving away)."""
    cdef double a = dx * dx + dy * dy
    cdef double b = px * dx + py * dy
    cdef double c, disc
    if a == 0.0 or b >= 0.0:
        return False
    c = px * px + py * py - radius * radius
    disc = b * b - a * c
    if disc < 0.0:
        return False
    # the smaller root of a t^2 + 2 b t + c, in the form that does not cancel (b < 0)
    t[0] = c / (-b + sqrt(disc))
    return True


cdef inline bint circle_circle_toi(double cax, double cay, double ra, double max_,
                                   double may, double cbx, double cby, double rb, double mbx,
                                   double mby, double* t, double* nx,
                                   double* ny) noexcept nogil:
    """First time in [0, 1] two moving circles touch, and the unit normal from a to b then:
    circle b grown by both radii against a's centre path, relative to b."""
    cdef double px = cax - cbx
    cdef double py = cay - cby
    cdef double dx = max_ - mbx
    cdef double dy = may - mby
    cdef double rs = ra + rb
    cdef double lim = rs + ECSPHYS_TOUCH_TOLERANCE
    cdef double dist, tt, qx, qy, q
    if px * dx + py * dy >= 0.0:  # moving apart, along, or not at all: every branch below
        return False              # says no (asked first: no square root for the many)
    if px * px + py * py <= lim * lim * (1.0 + 1e-12):  # near: the square root decides
        dist = norm(px, py)
        if dist <= lim:
            if dist > ECSPHYS_TOUCH_TOLERANCE and px * dx + py * dy < 0.0:
                t[0] = 0.0
                nx[0] = -px / dist
                ny[0] = -py / dist
                return True
            return False  # separating, sliding, or coincident centres (every move separates)
    if not ray_circle(px, py, dx, dy, rs, &tt) or tt > 1.0:
        return False
    qx = px + dx * tt
    qy = py + dy * tt
    q = norm(qx, qy)
    t[0] = tt
    nx[0] = -qx / q
    ny[0] = -qy / q
    return True


cdef inline bint circles_toi(const Store* s, const Body* a, double mx, double my,
                             const Body* b, double* t, CContact* out) noexcept nogil:
    """`primitive_toi` of two circle bodies (a moving by (mx, my), b at rest); the contact
    is at a's position at that time (at t = 0 the centres' contact, with its depth)."""
    cdef Leaf la = leaf_at(s, a.first)
    cdef Leaf lb = leaf_at(s, b.first)
    cdef double cx = a.px + la.cx
    cdef double cy = a.py + la.cy
    cdef double tt, nx, ny, k, depth
    if not circle_circle_toi(cx, cy, la.radius, mx, my, b.px + lb.cx, b.py + lb.cy,
                             lb.radius, 0.0, 0.0, &tt, &nx, &ny):
        return False
    depth = 0.0
    if tt == 0.0:
        depth = la.radius + lb.radius - norm(b.px + lb.cx - cx, b.py + lb.cy - cy)
    k = la.radius - depth / 2
    t[0] = tt
    out.nx = nx
    out.ny = ny
    out.depth = depth
    out.px = cx + mx * tt + nx * k
    out.py = cy + my * tt + ny * k
    return True


cdef inline bint moved_contact(double tt, const CContact* c, double bmx, double bmy,
                               double* t, CContact* out) noexcept nogil:
    """The impact at ``tt`` whose contact ``c`` was computed with b at rest, its point shifted
    to where b (moving by (bmx, bmy)) is at that time; True."""
    t[0] = tt
    out.nx = c.nx
    out.ny = c.ny
    out.depth = c.depth
    out.px = c.px + bmx * tt
    out.py = c.py + bmy * tt
    return True


cdef inline bint circles_time_of_impact(const Store* s, const Body* a, double amx, double amy,
                                        const Body* b, double bmx, double bmy, double* t,
                                        CContact* out) noexcept nogil:
    """`time_of_impact` of two circle bodies (both of kind CIRCLE), the same bits."""
    cdef double tt
    cdef CContact c
    if not circles_toi(s, a, amx - bmx, amy - bmy, b, &tt, &c):
        return False
    return moved_contact(tt, &c, bmx, bmy, t, out)


# First t in [0, 1] at which body a moving by (amx, amy) touches body b moving by (bmx, bmy)
# (bodies at their positions + move * t), with the contact then (normal from a to b, both
# shapes where they are at t): True and *t, *out set; False if they do not touch during the
# move (or touch at the start without approaching).
cdef bint time_of_impact(const Store* s, const Body* a, double amx, double amy,
                         const Body* b, double bmx, double bmy,
                         double* t, CContact* out) noexcept nogil


# The binary impact search (the seed's method, exact swept-hull leaves): the first part
# [*t0, *t1] of convex a's move by (mx, my) (b, convex, at rest) in which a touches b within
# TOUCH_TOLERANCE, leaves no longer than min_step world units (min_step < 0: the default,
# max(size / 4, 1/32)); False if a never touches b during the move. a and b are bodies of one
# convex leaf each (Rect, OrientedRect, Segment or Polygon).
cdef bint impact_leaf(const Store* s, const Body* a, double mx, double my, const Body* b,
                      double min_step, double* t0, double* t1) noexcept nogil
