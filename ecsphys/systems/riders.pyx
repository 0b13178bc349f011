# cython: embedsignature=True
"""Riders: bodies carried by the moving body they stand on, and characters kept on floors.

Guarantees:
- riders (``carrier``, from the last step's floors: ``systems/ground.pyx``; for a body
  adopted since the last step, the moving platform it stands on at the start,
  `first_carriers`) move after their carrier, by its motion this step but for its part up
  (which its push delivers), on top of their own move (`carry_rider`; a platform riding a
  platform moves first, up to 8 deep); their velocity is their own, relative to the carrier
  (impacts use the world velocity: own + carrier's); a body of infinite mass rides nothing;
- a ``stop_on_slope`` body that stood on a floor, met none this step and is not moving up is
  moved down to a floor within ``floor_snap`` (`snap_down`), a skin above it.
"""

from libc.math cimport isinf

from ..geometry.manifold cimport contact
from ..geometry.shape_data cimport CContact
from ..state.table_view cimport GROUND_NEW
from .live_rows cimport ensure
from .reach cimport widen
from .slide cimport first_hit, move_from
from .slide_context cimport (
    DONE, PENDING, STATIC, Ctx, dot, is_floor, moving, solid, up_of,
)


cdef int carry_rider(Ctx* c, int i, int depth, long* budget) except -1 nogil:
    """Row i rides its carrier (a moving ACTIVE body it stood on at the end of the last
    step): the carrier moves first, and i's move gets the carrier's, but for its part up
    (the carrier pushes i up itself, as it meets it)."""
    cdef int f = c.rows.carrier[i]
    cdef double dx, dy, ux, uy, u
    if f < 0 or f >= c.n or c.carried[i] or c.rows.kind[i] == STATIC:
        return 0
    ensure(c, f)  # (a sleeping carrier: it does not move)
    c.carried[i] = 1
    if depth < 8:
        carry_rider(c, f, depth + 1, budget)  # a platform riding a platform
    if c.state[f] == PENDING and moving(c, f):
        move_from(c, f, budget)
    dx = c.body[f].px - c.start[2 * f]
    dy = c.body[f].py - c.start[2 * f + 1]
    up_of(c, i, &ux, &uy)
    u = dot(dx, dy, ux, uy)
    if u > 0.0:
        dx -= ux * u
        dy -= uy * u
    if dx == 0.0 and dy == 0.0:
        return 0
    c.rest[2 * i] += dx
    c.rest[2 * i + 1] += dy
    c.carry[2 * i] += dx
    c.carry[2 * i + 1] += dy
    if c.state[i] == DONE:
        c.state[i] = PENDING
    return 0


cdef int snap_down(Ctx* c, int r) except -1 nogil:
    """A stop_on_slope row that stood on a floor, met none in this step and is not moving
    up (walking down a slope, over a step) moves down to a floor within ``snap``."""
    cdef double ux, uy, t, closing, safe
    cdef int j, p
    cdef CContact hit
    up_of(c, r, &ux, &uy)
    if dot(c.vel[2 * r], c.vel[2 * r + 1], ux, uy) > 0.0:
        return 0
    c.rest[2 * r] = -ux * c.snap
    c.rest[2 * r + 1] = -uy * c.snap
    widen(c, r)
    if first_hit(c, r, &t, &hit, &j, &p) and is_floor(c, r, hit.nx, hit.ny):
        closing = dot(c.rest[2 * r], c.rest[2 * r + 1], hit.nx, hit.ny)
        safe = t - c.skin / closing if closing > 0.0 else t
        if safe > 0.0:
            c.body[r].px += c.rest[2 * r] * safe
            c.body[r].py += c.rest[2 * r + 1] * safe
        c.floored[r] = 1
    c.rest[2 * r] = 0.0
    c.rest[2 * r + 1] = 0.0
    return 0


cdef void first_carriers(Ctx* c) noexcept nogil:
    """Rows adopted since the last step have no floors classified yet: one that stands on a
    moving platform (within the contact offset, the platform within floor_max_angle of its
    "down") rides it from its first step, like one that stood on it in the last step."""
    cdef int p, r, f, k
    cdef CContact cc
    for p in range(c.np0):
        for k in range(2):
            r = <int> (c.pa[p] if k == 0 else c.pb[p])
            f = <int> (c.pb[p] if k == 0 else c.pa[p])
            if (not (c.rows.ground[r] & GROUND_NEW) or c.rows.carrier[r] >= 0
                    or c.rows.kind[r] == STATIC or isinf(c.rows.mass[r])
                    or c.rows.kind[f] == STATIC or not isinf(c.rows.mass[f])
                    or not solid(&c.rows, r, f)):
                continue
            if (contact(&c.store, &c.body[r], &c.body[f], c.offset, &cc)
                    and is_floor(c, r, cc.nx, cc.ny)):
                c.rows.carrier[r] = f
