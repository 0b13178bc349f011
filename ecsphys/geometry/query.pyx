# Point, ray and line queries against shapes, compiled: mouse picking, line of sight, bullets,
# picking along a line.
#
# Guarantees:
# - `point_in(shape, pos, point)` is True for points inside the shape or within
#   TOUCH_TOLERANCE of its boundary (a segment: within that distance of it), for every shape
#   kind: Circle, Rect, OrientedRect, Segment, Polygon and Compound (any part);
# - `raycast(shape, pos, origin, direction, max_t)` returns the smallest t in [0, max_t] at
#   which origin + direction * t is on the shape, with the shape's outward unit normal there,
#   or None; a ray that starts inside (or on) a shape returns t = 0 with the normal facing
#   back along the ray. t is in units of direction (max_t = 1 with direction = p2 - p1 is the
#   segment p1-p2). A ray along a segment (collinear) hits it where it first reaches it. A
#   compound answers its nearest part's hit (the first such part in `parts` on a tie);
#   `segment_hits(shape, pos, p1, p2)` is the boolean form (a point test when p1 == p2);
# - `region_overlaps` (compiled only: the world's ``query_region``) is `manifold.overlap`,
#   but for a tile map: a region meets it where a part of it meets one of its edges, on
#   either side (a body's overlap skips the edges its centre is behind: a body is pushed out
#   to the open side; a region is no body), or lies wholly inside its solid tiles; so a
#   region inside the solid, or holding the whole map, finds it;
# - `line_overlaps(line, shape, pos, shift)` is True exactly when the infinite line through
#   `line.base + shift` along the line's direction touches the shape (within
#   TOUCH_TOLERANCE): the shape's projection onto the line's normal contains the line;
# - bad input raises: TypeError naming
#   the type of anything that is not a shape, ValueError for a zero ray direction;
# - a compound's parts are read from the store with the part offsets baked in (a ray that is
#   degenerate at the scale of an ulp, along a part's face or starting or ending exactly on a
#   part's boundary, may get either answer).
#
# Method: the public functions intern the shape in the public store (body_of, then
# store_of(public_store())) and call the cdef functions, which read only C values: the body's
# leaves [first, first + count) (one for a shape, one per part for a compound), each tested
# by its own kind. point_in and line_overlaps answer True at the first leaf that does;
# raycast casts at each leaf with max_t lowered to the best hit so far; through a tile map it
# walks the ray (clipped to the map) TILE_SPAN tiles at a time and stops at the first part that
# ends at or after the best hit, so a long ray costs per tile it passes. Positions are made
# relative to the body first (world point - body position), as the Python code did.

cimport cython
from libc.math cimport INFINITY, ceil, copysign, fabs, sqrt
from libc.stdint cimport uint64_t

from .manifold cimport overlap
from .mask cimport mask_line, mask_point, mask_ray
from .vec cimport clip_ray, max2, min2, norm, sq

from .shape_data cimport (
    CIRCLE, LF_RADIUS, LF_STRIDE, MASK, RECT, SEGMENT, TILEMAP, Body, Leaf, Near, Store, body_of,
    leaf_at, leaf_body, near_init, near_next, store_of, tile_kind_at,
)

import math

from ..limits import MAX_COORD, check_vec
from ..mask import Mask
from ..shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment
from .contact import TOUCH_TOLERANCE
from .shape_store import public_store

__all__ = ["line_overlaps", "point_in", "raycast", "segment_hits"]

cdef double TOL = TOUCH_TOLERANCE
cdef double TILE_SPAN = 2.0     # a ray through a tile map is walked this many tiles at a time
cdef double MAX_SPANS = 65536.0
cdef tuple _KINDS = (Circle, Rect, OrientedRect, Segment, Polygon, Compound, Mask)


cdef inline void _back(double dx, double dy, double* nx, double* ny) noexcept nogil:
    """The unit vector facing back along (dx, dy) (not zero)."""
    cdef double d = norm(dx, dy)
    nx[0] = -dx / d
    ny[0] = -dy / d


# ------------------------------------------------------------ points (lx, ly relative to the body)

cdef inline bint _point_circle(const Leaf* c, double lx, double ly) noexcept nogil:
    cdef double dx = lx - c.cx, dy = ly - c.cy
    cdef double r = c.radius + TOL
    return dx * dx + dy * dy <= r * r


cdef inline bint _point_rect(const Leaf* r, double lx, double ly) noexcept nogil:
    return fabs(lx - r.cx) <= r.hx + TOL and fabs(ly - r.cy) <= r.hy + TOL


cdef inline bint _point_segment(const Leaf* s, double lx, double ly) noexcept nogil:
    # the closest point of the segment, then the squared distance
    cdef double x1 = s.v[0], y1 = s.v[1], x2 = s.v[2], y2 = s.v[3]
    cdef double ex = x2 - x1, ey = y2 - y1
    cdef double ee = ex * ex + ey * ey
    cdef double t = ((lx - x1) * ex + (ly - y1) * ey) / ee if ee > 0.0 else 0.0
    t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
    cdef double qx = x1 + ex * t, qy = y1 + ey * t
    return sq(qx - lx) + sq(qy - ly) <= TOL * TOL


cdef inline bint _point_convex(const Leaf* p, double lx, double ly) noexcept nogil:
    cdef const double* f = p.f
    cdef int i
    for i in range(p.nf):
        if not (f[3 * i] * lx + f[3 * i + 1] * ly - f[3 * i + 2] <= TOL):
            return False
    return True


cdef inline bint _point_leaf(const Leaf* leaf, double lx, double ly) noexcept nogil:
    if leaf.kind == MASK:
        return mask_point(leaf, lx, ly)
    if leaf.kind == CIRCLE:
        return _point_circle(leaf, lx, ly)
    if leaf.kind == RECT:
        return _point_rect(leaf, lx, ly)
    if leaf.kind == SEGMENT:
        return _point_segment(leaf, lx, ly)
    return _point_convex(leaf, lx, ly)


cdef bint point_in(const Store* s, const Body* b, double x, double y) noexcept nogil:
    # a tile map holds the points of its solid tiles and of its edges
    cdef double lx = x - b.px, ly = y - b.py
    cdef Leaf leaf
    cdef int i
    cdef Near it
    if b.kind == TILEMAP and tile_kind_at(s, b, x, y) > 0:
        return True
    near_init(&it, s, b, x - TOL, y - TOL, x + TOL, y + TOL)
    i = near_next(&it)
    while i >= 0:
        leaf = leaf_at(s, i)
        if _point_leaf(&leaf, lx, ly):
            return True
        i = near_next(&it)
    return False


# ------------------------------------------------------------ regions

cdef bint _leaf_point(const Leaf* leaf, double* lx, double* ly) noexcept nogil:
    """A point of the leaf (relative to its body): a circle's centre, a mask's first set
    pixel's centre, any other leaf's first vertex; False for a mask with no pixel set."""
    cdef long row, col, w
    cdef uint64_t bits
    if leaf.kind == CIRCLE:
        lx[0], ly[0] = leaf.cx, leaf.cy
        return True
    if leaf.kind == MASK:
        for row in range(leaf.nf):
            for w in range(leaf.words):
                bits = leaf.bits[row * leaf.words + w]
                if bits:
                    col = w * 64
                    while not (bits & 1):
                        bits >>= 1
                        col += 1
                    lx[0] = leaf.cx - leaf.hx + (col + 0.5) * leaf.radius
                    ly[0] = leaf.cy + leaf.hy - (row + 0.5) * leaf.radius
                    return True
        return False
    lx[0], ly[0] = leaf.v[0], leaf.v[1]
    return True


cdef bint region_overlaps(const Store* s, const Body* a, const Body* b) noexcept nogil:
    cdef Body part, edge
    cdef Leaf leaf
    cdef Near it
    cdef int i, j
    cdef double x, y
    if b.kind != TILEMAP:
        return overlap(s, a, b)
    if (b.px + b.x0 > a.px + a.x1 + TOL or a.px + a.x0 > b.px + b.x1 + TOL
            or b.py + b.y0 > a.py + a.y1 + TOL or a.py + a.y0 > b.py + b.y1 + TOL):
        return False
    for i in range(a.first, a.first + a.count):
        part = leaf_body(s, i, a.px, a.py)
        # an edge it meets, on either side (a region is not a body in front of the edges)
        near_init(&it, s, b, part.px + part.x0 - TOL, part.py + part.y0 - TOL,
                  part.px + part.x1 + TOL, part.py + part.y1 + TOL)
        j = near_next(&it)
        while j >= 0:
            edge = leaf_body(s, j, b.px, b.py)
            if overlap(s, &edge, &part):
                return True
            j = near_next(&it)
        # meeting no edge, the part is wholly inside the solid or wholly out of it
        leaf = leaf_at(s, i)
        if _leaf_point(&leaf, &x, &y) and tile_kind_at(s, b, a.px + x, a.py + y) > 0:
            return True
    return False


# ------------------------------------------------------------ rays (ox, oy relative to the body)

cdef inline bint _ray_circle(const Leaf* c, double ox, double oy, double dx, double dy,
                             double max_t, double* t, double* nx, double* ny) noexcept nogil:
    cdef double px = ox - c.cx, py = oy - c.cy
    cdef double r = c.radius
    cdef double cc = px * px + py * py - r * r
    if cc <= 0.0:
        t[0] = 0.0
        _back(dx, dy, nx, ny)
        return True
    cdef double a = dx * dx + dy * dy
    cdef double b = px * dx + py * dy
    if b >= 0.0:
        return False
    cdef double disc = b * b - a * cc
    if disc < 0.0:
        return False
    cdef double th = cc / (-b + sqrt(disc))
    if th > max_t:
        return False
    t[0] = th
    nx[0] = (px + dx * th) / r
    ny[0] = (py + dy * th) / r
    return True


cdef inline bint _ray_segment(const Leaf* s, double ox, double oy, double dx, double dy,
                              double max_t, double* t, double* nx, double* ny) noexcept nogil:
    cdef double x1 = s.v[0], y1 = s.v[1], x2 = s.v[2], y2 = s.v[3]
    cdef double ex = x2 - x1, ey = y2 - y1
    cdef double wx = x1 - ox, wy = y1 - oy
    cdef double den = dx * ey - dy * ex
    cdef double th, u, fx, fy, dd, t1, t2, lo, hi
    if den != 0.0:
        th = (wx * ey - wy * ex) / den
        u = (wx * dy - wy * dx) / den
        if th < 0.0 or th > max_t or u < 0.0 or u > 1.0:
            return False
        fx = s.f[0]
        fy = s.f[1]
        t[0] = th
        if fx * dx + fy * dy < 0.0:
            nx[0] = fx
            ny[0] = fy
        else:
            nx[0] = -fx
            ny[0] = -fy
        return True
    if wx * dy - wy * dx != 0.0:  # parallel, not on the same line
        return False
    dd = dx * dx + dy * dy
    t1 = (wx * dx + wy * dy) / dd
    t2 = ((x2 - ox) * dx + (y2 - oy) * dy) / dd
    lo = t2 if t2 < t1 else t1  # Python's min(t1, t2) and max(t1, t2)
    hi = t2 if t2 > t1 else t1
    if hi < 0.0 or lo > max_t:
        return False
    t[0] = 0.0 if 0.0 > lo else lo  # max(lo, 0.0)
    _back(dx, dy, nx, ny)
    return True


cdef inline bint _ray_convex(const Leaf* p, double ox, double oy, double dx, double dy,
                             double max_t, double* t, double* nx, double* ny) noexcept nogil:
    cdef double t_in = -INFINITY, t_out = INFINITY
    cdef double bx = 0.0, by = 0.0, fx, fy, num, den, th
    cdef const double* f = p.f
    cdef int i
    for i in range(p.nf):
        fx = f[3 * i]
        fy = f[3 * i + 1]
        num = f[3 * i + 2] - (fx * ox + fy * oy)  # >= 0: origin inside this face's half-plane
        den = fx * dx + fy * dy
        if den == 0.0:
            if num < 0.0:
                return False
            continue
        th = num / den
        if den < 0.0:
            if th > t_in:
                t_in = th
                bx = fx
                by = fy
        elif th < t_out:
            t_out = th
        if t_in > t_out:
            return False
    if t_out < 0.0 or t_in > max_t:
        return False
    if t_in <= 0.0:
        t[0] = 0.0
        _back(dx, dy, nx, ny)
        return True
    t[0] = t_in
    nx[0] = bx
    ny[0] = by
    return True


cdef inline bint _ray_leaf(const Leaf* leaf, double ox, double oy, double dx, double dy,
                           double max_t, double* t, double* nx, double* ny) noexcept nogil:
    if leaf.kind == MASK:
        return mask_ray(leaf, ox, oy, dx, dy, max_t, t, nx, ny)
    if leaf.kind == CIRCLE:
        return _ray_circle(leaf, ox, oy, dx, dy, max_t, t, nx, ny)
    if leaf.kind == SEGMENT:
        return _ray_segment(leaf, ox, oy, dx, dy, max_t, t, nx, ny)
    return _ray_convex(leaf, ox, oy, dx, dy, max_t, t, nx, ny)


cdef inline double _reach(double d, double max_t) noexcept nogil:
    """How far a ray goes along one axis: ``d * max_t`` (0 for no motion that way)."""
    if d == 0.0:
        return 0.0
    if max_t < INFINITY:
        return d * max_t
    return copysign(INFINITY, d)


cdef bint _ray_span(const Store* s, const Body* b, double ox, double oy, double dx, double dy,
                    double x0, double y0, double x1, double y1, double* max_t, bint found,
                    double* t, double* nx, double* ny) noexcept nogil:
    """Test the leaves of ``b`` near the world box x0..x1, y0..y1 against the ray up to
    ``max_t[0]``, lowering it to each better hit; True if a hit was found (or ``found``)."""
    cdef double lx = ox - b.px, ly = oy - b.py
    cdef double ht, hx, hy
    cdef Leaf leaf
    cdef int i
    cdef Near it
    near_init(&it, s, b, x0, y0, x1, y1)
    i = near_next(&it)
    while i >= 0:
        leaf = leaf_at(s, i)
        if _ray_leaf(&leaf, lx, ly, dx, dy, max_t[0], &ht, &hx, &hy):
            if not found or ht < t[0]:
                found = True
                t[0] = ht
                nx[0] = hx
                ny[0] = hy
                max_t[0] = ht
        i = near_next(&it)
    return found


cdef bint _ray_tiles(const Store* s, const Body* b, double ox, double oy, double dx, double dy,
                     double max_t, double* t, double* nx, double* ny) noexcept nogil:
    """A tile map: t = 0 when the ray starts in a solid tile; else the first edge it meets,
    the ray clipped to the map and walked a few tiles at a time, so a long
    ray costs per tile it passes, not per tile of its bounding box; it stops at the first
    part that ends at or after the best hit."""
    cdef double size = s.lf[(b.first - 1) * LF_STRIDE + LF_RADIUS]
    cdef double a = 0.0, e = max_t, step, c0, c1
    cdef double box[4]
    cdef int k, parts
    cdef bint found = False
    if tile_kind_at(s, b, ox, oy) > 0:  # starts in a solid tile: inside, as point_in says
        t[0] = 0.0
        _back(dx, dy, nx, ny)
        return True
    box[0] = b.px + b.x0 - TOL
    box[1] = b.py + b.y0 - TOL
    box[2] = b.px + b.x1 + TOL
    box[3] = b.py + b.y1 + TOL
    if not clip_ray(ox, oy, dx, dy, box, &a, &e):  # the part of the ray over the map
        return False
    step = TILE_SPAN * size / norm(dx, dy)
    parts = <int>min2(ceil((e - a) / step), <double>MAX_SPANS) if e > a else 1
    if parts < 1:
        parts = 1
    for k in range(parts):
        c0 = a + (e - a) * k / parts
        c1 = a + (e - a) * (k + 1) / parts if k + 1 < parts else e
        found = _ray_span(s, b, ox, oy, dx, dy,
                          min2(ox + dx * c0, ox + dx * c1) - TOL,
                          min2(oy + dy * c0, oy + dy * c1) - TOL,
                          max2(ox + dx * c0, ox + dx * c1) + TOL,
                          max2(oy + dy * c0, oy + dy * c1) + TOL, &max_t, found, t, nx, ny)
        if found and t[0] <= c1:
            break
    return found


cdef bint raycast(const Store* s, const Body* b, double ox, double oy, double dx, double dy,
                  double max_t, double* t, double* nx, double* ny) noexcept nogil:
    cdef double ex, ey
    if b.kind == TILEMAP:
        return _ray_tiles(s, b, ox, oy, dx, dy, max_t, t, nx, ny)
    ex = _reach(dx, max_t)
    ey = _reach(dy, max_t)
    return _ray_span(s, b, ox, oy, dx, dy, min2(ox, ox + ex) - TOL, min2(oy, oy + ey) - TOL,
                     max2(ox, ox + ex) + TOL, max2(oy, oy + ey) + TOL, &max_t, False, t, nx,
                     ny)


cdef bint segment_hits(const Store* s, const Body* b, double x1, double y1, double x2,
                       double y2) noexcept nogil:
    cdef double dx = x2 - x1, dy = y2 - y1
    cdef double t, nx, ny
    if dx == 0.0 and dy == 0.0:
        return point_in(s, b, x1, y1)
    return raycast(s, b, x1, y1, dx, dy, 1.0, &t, &nx, &ny)


# ------------------------------------------------------------ infinite lines

cdef inline bint _line_leaf(const Leaf* leaf, double nx, double ny, double k) noexcept nogil:
    cdef double p, lo, hi
    cdef int i
    if leaf.kind == CIRCLE:
        return fabs(nx * leaf.cx + ny * leaf.cy - k) <= leaf.radius + TOL
    if leaf.kind == MASK:
        return mask_line(leaf, nx, ny, k, TOL)
    lo = hi = nx * leaf.v[0] + ny * leaf.v[1]
    for i in range(1, leaf.nv):
        p = nx * leaf.v[2 * i] + ny * leaf.v[2 * i + 1]
        if p < lo:  # Python's min and max of the projections
            lo = p
        if p > hi:
            hi = p
    return lo - TOL <= k and k <= hi + TOL


cdef bint line_overlaps(const Store* s, const Body* b, double nx, double ny, double bx,
                        double by) noexcept nogil:
    # the line's offset along its normal, relative to the body
    cdef double k = nx * (bx - b.px) + ny * (by - b.py)
    cdef Leaf leaf
    cdef int i
    for i in range(b.first, b.first + b.count):
        leaf = leaf_at(s, i)
        if _line_leaf(&leaf, nx, ny, k):
            return True
    return False


# ------------------------------------------------------------ the public functions
#
# The def functions cannot share the cdef functions' names in this module: they are defined
# under private names and published under the public ones (module attributes, __name__).
# They index their arguments with bounds checks on (the package turns them off), so a short
# sequence raises IndexError as in Python instead of reading past a tuple.

cdef inline _check(object shape, str name):
    if not isinstance(shape, _KINDS):
        raise TypeError(f"{name} does not know {type(shape).__name__}")


@cython.embedsignature(False)
@cython.boundscheck(True)
@cython.wraparound(True)
def _point_in(shape, pos, point):
    """True if ``point`` (world) lies in ``shape`` placed at body position ``pos``.

    Raises ``TypeError`` for an unknown shape kind.
    """
    cdef double x, y, px, py
    x, y = check_vec("point", point, MAX_COORD)
    px, py = check_vec("pos", pos, MAX_COORD)
    _check(shape, "point_in")
    store = public_store()
    cdef Body b = body_of(store, shape, px, py)
    cdef Store s = store_of(store)
    return point_in(&s, &b, x, y)


@cython.embedsignature(False)
@cython.boundscheck(True)
@cython.wraparound(True)
def _raycast(shape, pos, origin, direction, max_t=math.inf):
    """First hit ``(t, normal)`` of the ray ``origin + direction * t`` (``0 <= t <= max_t``)
    on ``shape`` at body position ``pos``, or ``None``. ``normal`` is the shape's outward
    unit normal at the hit. Raises ``ValueError`` for a zero ``direction``."""
    ddx, ddy = check_vec("direction", direction, 2 * MAX_COORD)
    cdef double dx = ddx, dy = ddy
    if dx == 0.0 and dy == 0.0:
        raise ValueError(f"raycast direction must not be zero, got {direction!r}")
    cdef double ox, oy, px, py, mt
    ox, oy = check_vec("origin", origin, MAX_COORD)
    px, py = check_vec("pos", pos, MAX_COORD)
    if isinstance(max_t, bool) or not isinstance(max_t, (int, float)) or not max_t >= 0.0:
        raise ValueError(f"raycast max_t must be a number >= 0 (inf: no limit), got {max_t!r}")
    mt = max_t
    _check(shape, "raycast")
    store = public_store()
    cdef Body b = body_of(store, shape, px, py)
    cdef Store s = store_of(store)
    cdef double t, nx, ny
    if not raycast(&s, &b, ox, oy, dx, dy, mt, &t, &nx, &ny):
        return None
    return (t, (nx, ny))


@cython.embedsignature(False)
@cython.boundscheck(True)
@cython.wraparound(True)
def _segment_hits(shape, pos, p1, p2):
    """True if the segment ``p1``-``p2`` (world) touches ``shape`` at ``pos`` (line of sight
    is blocked); a zero-length segment is a point test."""
    cdef double x1, y1, x2, y2, px, py
    x1, y1 = check_vec("p1", p1, MAX_COORD)
    x2, y2 = check_vec("p2", p2, MAX_COORD)
    px, py = check_vec("pos", pos, MAX_COORD)
    _check(shape, "point_in" if x2 - x1 == 0.0 and y2 - y1 == 0.0 else "raycast")
    store = public_store()
    cdef Body b = body_of(store, shape, px, py)
    cdef Store s = store_of(store)
    return segment_hits(&s, &b, x1, y1, x2, y2)


@cython.embedsignature(False)
@cython.boundscheck(True)
@cython.wraparound(True)
def _line_overlaps(line, shape, pos, shift=(0.0, 0.0)):
    """True if ``line`` (moved by ``shift``) touches ``shape`` at body position ``pos``.

    Raises ``TypeError`` for an unknown shape kind.
    """
    nx_, ny_ = line.normal
    base = line.base
    cdef double nx = nx_, ny = ny_
    sx, sy = check_vec("shift", shift, MAX_COORD)
    cdef double bx = base[0] + sx, by = base[1] + sy
    cdef double px, py
    px, py = check_vec("pos", pos, MAX_COORD)
    _check(shape, "line_overlaps")
    store = public_store()
    cdef Body b = body_of(store, shape, px, py)
    cdef Store s = store_of(store)
    return line_overlaps(&s, &b, nx, ny, bx, by)


def _publish():
    g = globals()
    for name in __all__:
        f = g.pop("_" + name)
        f.__name__ = name
        f.__qualname__ = name
        g[name] = f


_publish()
del _publish
