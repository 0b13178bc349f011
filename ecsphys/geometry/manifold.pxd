# Contacts of shape pairs (compiled): see manifold.pyx for the guarantees.
from .shape_data cimport CIRCLE, Body, CContact, Leaf, Store, leaf_at
from .vec cimport unit

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


# --- inline: two circles, the pair a pile meets most (the narrowphase asks it directly), and
# the helpers `contact` shares with them (one definition: manifold.pyx uses these) ----------

cdef inline void _flip(CContact* c) noexcept nogil:
    """The same contact seen from the other shape: the normal reversed."""
    c.nx = -c.nx
    c.ny = -c.ny


cdef inline bint _circle_result(double cx, double cy, double r, double nx, double ny,
                                double depth, double tol, CContact* out) noexcept nogil:
    """A circle's contact: the point halfway through the overlap, along the normal from the
    centre (cx, cy). The callers decided on squared distances: a depth a rounding below
    -tol (the square root of a square within (r + tol)^2) is reported as -tol."""
    if depth < -tol:
        depth = -tol
    cdef double k = r - depth / 2
    out.nx = nx
    out.ny = ny
    out.depth = depth
    out.px = cx + nx * k
    out.py = cy + ny * k
    return True


cdef inline bint _circle_circle(const Leaf* a, double pax, double pay, const Leaf* b,
                                double pbx, double pby, double tol,
                                CContact* out) noexcept nogil:
    """Circle leaf a at (pax, pay) against circle leaf b at (pbx, pby): the normal joins the
    centres; coincident centres get (1, 0)."""
    cdef double ax = pax + a.cx, ay = pay + a.cy
    cdef double dx = pbx + b.cx - ax, dy = pby + b.cy - ay
    cdef double rs = a.radius + b.radius
    cdef double d2 = dx * dx + dy * dy
    cdef double lim = rs + tol
    cdef double nx, ny, d
    if d2 > lim * lim:
        return False
    if dx != 0.0 or dy != 0.0:
        d = unit(dx, dy, &nx, &ny)
    else:
        nx, ny, d = 1.0, 0.0, 0.0
    return _circle_result(ax, ay, a.radius, nx, ny, rs - d, tol, out)


cdef inline bint _swap_first(const Body* a, const Body* b) noexcept nogil:
    """True if a same-kind pair is computed swapped, b first (dispatch._canonical): the body
    further down-left, then the smaller hash, goes first."""
    if b.px != a.px:
        return b.px < a.px
    if b.py != a.py:
        return b.py < a.py
    return b.hash < a.hash


cdef inline bint circles_contact(const Store* s, const Body* a, const Body* b, double tol,
                                 CContact* out) noexcept nogil:
    """`contact` of two circle bodies (both of kind CIRCLE), the same bits."""
    cdef Leaf la = leaf_at(s, a.first)
    cdef Leaf lb = leaf_at(s, b.first)
    cdef bint found
    if _swap_first(a, b):
        found = _circle_circle(&lb, b.px, b.py, &la, a.px, a.py, tol, out)
        if found:
            _flip(out)
        return found
    return _circle_circle(&la, a.px, a.py, &lb, b.px, b.py, tol, out)
