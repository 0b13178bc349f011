# Distances between shapes (compiled): see distance.pyx for the guarantees.
from .manifold cimport circles_contact
from .shape_data cimport (
    ECSPHYS_TOUCH_TOLERANCE, Body, CContact, CSeparation, Leaf, Store, leaf_at,
)
from .vec cimport max2, unit

# Separation of bodies a and b (exact distance and closest points when apart; distance 0
# with contact()'s normal and point when they overlap or touch). Returns False, leaving
# `out` unspecified, only when the shapes are certainly more than `limit` apart.
cdef bint separation(const Store* s, const Body* a, const Body* b, double limit,
                     CSeparation* out) noexcept nogil

# contact() widened by a skin: overlapping shapes give contact()'s answer; shapes apart by
# at most `skin` a contact with depth = -distance, the separation's normal and the point
# halfway between the closest points; False beyond.
cdef bint contact_within(const Store* s, const Body* a, const Body* b, double skin,
                         CContact* out) noexcept nogil


# --- inline: two circles (the narrowphase asks them directly) ------------------------------

cdef inline double _box_gap(const Body* a, const Body* b) noexcept nogil:
    """The larger of the two axis gaps between the bodies' bounding boxes (a lower bound on
    their distance; <= 0 when the boxes meet)."""
    cdef double dx = b.px - a.px, dy = b.py - a.py
    cdef double g = b.x0 + dx - a.x1
    g = max2(g, a.x0 - b.x1 - dx)
    g = max2(g, b.y0 + dy - a.y1)
    return max2(g, a.y0 - b.y1 - dy)


cdef inline bint circles_contact_within(const Store* s, const Body* a, const Body* b,
                                        double skin, CContact* out) noexcept nogil:
    """`contact_within` of two circle bodies (both of kind CIRCLE), the same bits: the
    contact, else the separation of centres apart by more than twice the touch tolerance
    (the rare rest, overlapping or touching at the rounding's edge, asks `contact_within`)."""
    cdef Leaf la, lb
    cdef double cx, cy, qx, qy, dx, dy, nx, ny, d, gap
    if circles_contact(s, a, b, ECSPHYS_TOUCH_TOLERANCE, out):
        return True
    if skin <= ECSPHYS_TOUCH_TOLERANCE:
        return False
    if _box_gap(a, b) > skin:
        return False
    la = leaf_at(s, a.first)
    lb = leaf_at(s, b.first)
    cx = a.px + la.cx
    cy = a.py + la.cy
    qx = b.px + lb.cx
    qy = b.py + lb.cy
    dx = qx - cx
    dy = qy - cy
    if dx == 0.0 and dy == 0.0:
        return contact_within(s, a, b, skin, out)
    d = unit(dx, dy, &nx, &ny)
    gap = d - la.radius - lb.radius
    if gap <= 2 * ECSPHYS_TOUCH_TOLERANCE:  # (overlapping, or touching as contact() may say)
        return contact_within(s, a, b, skin, out)
    if gap > skin:
        return False
    out.nx = nx
    out.ny = ny
    out.depth = -gap
    out.px = ((cx + nx * la.radius) + (qx - nx * lb.radius)) / 2
    out.py = ((cy + ny * la.radius) + (qy - ny * lb.radius)) / 2
    return True
