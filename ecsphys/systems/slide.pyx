# cython: embedsignature=True
"""The slide: each body moves by its rest to its first impact, then slides along what it met.

Guarantees (for the solid pairs: neither side a sensor):
- bodies move one at a time (seed 002: "update one movement at a time"), each against the
  others where they are at that moment: a body's move is cut at its first time of impact
  (``geometry.impact``: analytic for circles and boxes, conservative advancement for the
  rest, nothing tunnels), leaving a ``skin`` gap, and the rest of the move slides along the
  tangent (``slide="project"`` keeps the rest's tangential part; ``slide="tangent"`` carries
  the rest at full length along the tangent, exact head-on ties turning each body to its own
  right, and a body wedged between two turning the other way); slid moves are checked again,
  up to ``max_slides`` times. So no body ends the step overlapping a solid one by more than
  the impact tolerance, however fast it moved;
- a body whose first impact is with a body that has not moved yet in this step lets that one
  move first (`move_from`: followers in a queue are not stopped by a leader that has not
  moved yet); a body met again while it waits for its own leaders counts as standing where
  it is;
- a slid move keeps the velocity friction left it (static friction holds a body on a slope
  where ``friction >= tan(slope)``: its motion agrees with its velocity); a move that runs
  back into what the body slid along last is caught in a crease and stops there;
- a body blocked by a PASSIVE one pushes it: the blocked part of its move, shared by mass, is
  handed to the PASSIVE body, which moves it against what lies beyond (and stops there), and
  the pusher follows; a body resting on the PASSIVE one (`momentum.supported`) does not push
  it down, so a stack of crates can be pushed. A body of infinite mass pushes every
  finite-mass body (ACTIVE too) the whole blocked part, and a carrier pushes its riders; a
  body pushed against a wall is not pushed again in that step once it has moved: the pusher
  slides along it like along a wall;
- a ``stop_on_slope`` body meeting a floor (within ``floor_max_angle`` of its "up") drops the
  part of its move and of its velocity that points down, and carries its move across "up"
  along the floor at the same length across "up" (`slope_rest`);
- per pair, the time of impact (fraction of the move in which the pair met, ``inf`` if it did
  not), its normal and point, and the approach speed along the normal (units per second) for
  the events; a pair that meets slower than `momentum.rest_speed` rests and reports 0; a
  pair with a sensor does not respond, but gets the time of impact of the two bodies' final
  moves of the step from where they started (`sensor_impacts`).
"""

from libc.math cimport INFINITY, isinf, sqrt
from libc.stdint cimport int64_t

from ..geometry.impact cimport circles_time_of_impact, time_of_impact
from ..geometry.shape_data cimport CIRCLE, Body, CContact
from ..geometry.vec cimport max2, sq
from .momentum cimport impulse, rest_speed, supported
from .reach cimport widen
from .slide_context cimport (
    DONE, PASSIVE, PENDING, STATIC, SWEEP_MARGIN, WAITING, Ctx, dot, fixed, immovable, moving,
    one_way_solid, prefetch, solid, up_of,
)

cdef double TIE_EPS = 1e-12


cdef void slope_rest(Ctx* c, int r, double lx, double ly, double nx, double ny) noexcept nogil:
    """A stop_on_slope body meeting a floor: its rest loses its part down (gravity does not
    slide it), and its part across "up" goes along the floor with the same length across
    "up" (it walks at the game's speed up and down slopes)."""
    cdef double ux, uy
    up_of(c, r, &ux, &uy)
    cdef double lv = dot(lx, ly, ux, uy)
    cdef double hx = lx - ux * lv, hy = ly - uy * lv
    cdef double h = sqrt(hx * hx + hy * hy)
    cdef double tx = ny, ty = -nx, across
    c.rest[2 * r] = 0.0
    c.rest[2 * r + 1] = 0.0
    if h <= 0.0:
        return
    if dot(tx, ty, hx, hy) < 0.0:
        tx = -tx
        ty = -ty
    across = sqrt(max2(1.0 - sq(dot(tx, ty, ux, uy)), 1e-12))
    c.rest[2 * r] = tx * h / across
    c.rest[2 * r + 1] = ty * h / across


cdef void slide_rest(Ctx* c, int r, double lx, double ly, double nx, double ny,
                     double dvx, double dvy) noexcept nogil:
    """The slid rest of row r into c.rest: ``(lx, ly)`` the rest left at the impact, ``n``
    the normal from r to what it hit, ``dv`` what the impact changed r's velocity by. A
    tangent slide that would turn into what the row slid along last (wedged between two
    bodies) turns the other way: it gives way instead of pressing on, which breaks the
    arches a crowd forms in a doorway. A projected rest keeps its part along the tangent,
    changed as friction changed the velocity along it over the time the row has left
    (static friction holds it still: its motion agrees with its velocity), never reversed;
    one that runs back into what the row slid along last is caught in a crease (a corner, a
    pocket between two bodies) and stops there."""
    cdef double px = c.prev_n[2 * r]
    cdef double py = c.prev_n[2 * r + 1]
    cdef double into = dot(lx, ly, nx, ny)
    cdef double tx = ny
    cdef double ty = -nx
    cdef double u, d, length, sx, sy, along, after
    if c.rows.slide[r] == 1 and into > 0.0:
        u = dot(lx, ly, tx, ty)
        d = 1.0 if u >= -TIE_EPS else -1.0
        if dot(tx * d, ty * d, px, py) > TIE_EPS:
            d = -d
        length = sqrt(lx * lx + ly * ly)
        c.rest[2 * r] = tx * d * length
        c.rest[2 * r + 1] = ty * d * length
        return
    if into < 0.0:
        into = 0.0
    sx = lx - nx * into
    sy = ly - ny * into
    if dvx != 0.0 or dvy != 0.0:
        along = dot(sx, sy, tx, ty)
        after = along + dot(dvx, dvy, tx, ty) * c.tleft[r]
        if after * along <= 0.0:
            after = 0.0
        sx += tx * (after - along)
        sy += ty * (after - along)
    if dot(sx, sy, px, py) > TIE_EPS:
        sx = 0.0
        sy = 0.0
    c.rest[2 * r] = sx
    c.rest[2 * r + 1] = sy


cdef int first_hit(Ctx* c, int r, double* when, CContact* hit, int* other,
                   int* pair, bint fixed_only=False, int skip=-1) noexcept nogil:
    """The first impact of row r moving by its rest against its neighbours where they are
    now (standing still): 1 with the time, contact (normal from r), row and pair; 0 if none.
    Ties go to the neighbour met first in r's edge list. ``fixed_only``: only the neighbours
    that are never pushed (`immovable`); ``skip``: a row left out."""
    cdef double mx = c.rest[2 * r]
    cdef double my = c.rest[2 * r + 1]
    cdef const Body* br = &c.body[r]
    cdef const Body* bo
    # r's box swept by its rest
    cdef double x0 = br.px + br.x0 + (mx if mx < 0.0 else 0.0) - SWEEP_MARGIN
    cdef double x1 = br.px + br.x1 + (mx if mx > 0.0 else 0.0) + SWEEP_MARGIN
    cdef double y0 = br.py + br.y0 + (my if my < 0.0 else 0.0) - SWEEP_MARGIN
    cdef double y1 = br.py + br.y1 + (my if my > 0.0 else 0.0) + SWEEP_MARGIN
    cdef double best = INFINITY
    cdef double t
    cdef CContact cc
    cdef int e = c.estart[r]
    cdef int end = c.eend[r]
    cdef int j
    cdef int found = 0
    cdef bint circle = br.kind == CIRCLE, met
    for j in range(e, end):  # the neighbours' lines fetched at once
        prefetch(&c.body[c.eother[j]])
        prefetch(&c.rows.one_way[2 * c.eother[j]])
    while True:
        if e == end:  # past the contiguous edges: the linked ones, if any
            e = c.head[r]
            end = -2
            if e < 0:
                break
        j = c.eother[e]
        bo = &c.body[j]
        if (j != skip and (not fixed_only or immovable(c, j))
                and bo.px + bo.x0 <= x1 and x0 <= bo.px + bo.x1
                and bo.py + bo.y0 <= y1 and y0 <= bo.py + bo.y1):
            if circle and bo.kind == CIRCLE:  # (inline: impact.pxd; a leaving pair is cheap)
                met = circles_time_of_impact(&c.store, br, mx, my, bo, 0.0, 0.0, &t, &cc)
            else:
                met = time_of_impact(&c.store, br, mx, my, bo, 0.0, 0.0, &t, &cc)
            if met and t < best and one_way_solid(c, r, j, &cc):
                best = t
                hit[0] = cc
                other[0] = j
                pair[0] = c.epair[e]
                found = 1
        if end == -2:
            e = c.enext[e]
            if e < 0:
                break
        else:
            e += 1
    when[0] = best
    return found


cdef inline void note_impact(Ctx* c, int p, int64_t first, double t,
                             const CContact* hit) noexcept nogil:
    """The first impact of pair p: its time, normal (turned to point from the pair's a to its
    b; ``first`` is the row the normal points from) and point."""
    cdef double sign = 1.0 if c.pa[p] == first else -1.0
    c.ptoi[p] = t
    c.pinfo[4 * p] = sign * hit.nx
    c.pinfo[4 * p + 1] = sign * hit.ny
    c.pinfo[4 * p + 2] = hit.px
    c.pinfo[4 * p + 3] = hit.py


cdef void sensor_impacts(Ctx* c) noexcept nogil:
    """Pairs with a sensor do not respond, but a body that passes through a sensor within the
    step meets it: the time of impact of the step's final moves from the start positions."""
    cdef int p
    cdef int64_t a, b
    cdef Body ba, bb
    cdef CContact hit
    cdef double t, amx, amy, bmx, bmy
    for p in range(c.np0):
        a = c.pa[p]
        b = c.pb[p]
        if solid(&c.rows, a, b):
            continue
        ba = c.body[a]
        bb = c.body[b]
        amx = ba.px - c.start[2 * a]
        amy = ba.py - c.start[2 * a + 1]
        bmx = bb.px - c.start[2 * b]
        bmy = bb.py - c.start[2 * b + 1]
        ba.px = c.start[2 * a]
        ba.py = c.start[2 * a + 1]
        bb.px = c.start[2 * b]
        bb.py = c.start[2 * b + 1]
        if time_of_impact(&c.store, &ba, amx, amy, &bb, bmx, bmy, &t, &hit):
            note_impact(c, p, a, t, &hit)
            if c.dt > 0.0:
                c.pspeed[p] = ((amx - bmx) * hit.nx + (amy - bmy) * hit.ny) / c.dt


cdef void apply_hit(Ctx* c, int r, int j, double t, const CContact* hit, int p) noexcept nogil:
    """Row r meets row j at fraction t of its rest: move to just before, exchange momentum
    (with friction), push j if it gives way, slide the rest."""
    cdef double nx = hit.nx
    cdef double ny = hit.ny
    cdef double mx = c.rest[2 * r]
    cdef double my = c.rest[2 * r + 1]
    cdef double closing = dot(mx, my, nx, ny)
    cdef double safe = t - c.skin / closing if closing > 0.0 else t
    if safe < 0.0:
        safe = 0.0
    elif safe > 1.0:
        safe = 1.0
    c.body[r].px += mx * safe
    c.body[r].py += my * safe
    cdef double lx = mx * (1.0 - safe)
    cdef double ly = my * (1.0 - safe)
    c.tleft[r] *= 1.0 - safe
    # what the events learn: the first time in the step, the fastest approach
    cdef double* v = c.vel
    cdef double speed = (v[2 * r] - v[2 * j]) * nx + (v[2 * r + 1] - v[2 * j + 1]) * ny
    if t < c.ptoi[p]:
        note_impact(c, p, r, t, hit)
    if speed > c.pspeed[p] and speed > rest_speed(c, r, j, nx, ny):  # not a resting pair
        c.pspeed[p] = speed
    cdef double ux, uy, vu
    up_of(c, r, &ux, &uy)
    cdef bint floor = -(nx * ux + ny * uy) >= c.cos_floor
    # a character landing or standing on a floor (not moving up)
    cdef bint slope = floor and c.rows.stop_slope[r] and dot(lx, ly, ux, uy) <= 0.0
    cdef double keep_vx = c.vel[2 * r], keep_vy = c.vel[2 * r + 1]
    if floor:
        c.floored[r] = 1
    impulse(c, r, j, nx, ny)
    if slope:
        # it keeps the game's velocity but for its part down
        vu = dot(keep_vx, keep_vy, ux, uy)
        if vu < 0.0:
            keep_vx -= ux * vu
            keep_vy -= uy * vu
        c.vel[2 * r] = keep_vx
        c.vel[2 * r + 1] = keep_vy
    # push: a PASSIVE body (unless r rests on it), a rider of r, or anything with a finite
    # mass when r's is infinite; the blocked part of the move along the normal, by mass. A
    # body pushed in this step that has made its move since (as far as it could: it is
    # blocked) is not pushed again: r slides along it like along a wall, so a body pressing
    # on a crate against a wall still falls, lands and jumps
    cdef double into, share, cx = 0.0, cy = 0.0
    cdef bint rider = c.rows.carrier[j] == r
    cdef bint heavy = isinf(c.rows.mass[r]) and not isinf(c.rows.mass[j])
    if c.rows.kind[j] != STATIC and not fixed(c, j) and not (
            c.pushed[j] and c.state[j] == DONE) and (
            rider or heavy or (c.rows.kind[j] == PASSIVE and not supported(c, r, nx, ny))):
        into = dot(lx, ly, nx, ny)
        if into > 0.0:
            share = 1.0 if rider or isinf(c.rows.mass[r]) else \
                c.rows.mass[r] / (c.rows.mass[r] + c.rows.mass[j])
            cx = nx * into * share
            cy = ny * into * share
            c.rest[2 * j] += cx
            c.rest[2 * j + 1] += cy
            c.pushed[j] = 1
            if c.state[j] == DONE:
                c.state[j] = PENDING
    if slope:
        slope_rest(c, r, lx, ly, nx, ny)
    else:
        slide_rest(c, r, lx, ly, nx, ny, c.vel[2 * r] - keep_vx, c.vel[2 * r + 1] - keep_vy)
    c.rest[2 * r] += cx
    c.rest[2 * r + 1] += cy
    if cx != 0.0 or cy != 0.0:
        # j moves out of the way (the pusher follows it): not a wall to be caught against
        c.prev_n[2 * r] = 0.0
        c.prev_n[2 * r + 1] = 0.0
    else:
        c.prev_n[2 * r] = nx
        c.prev_n[2 * r + 1] = ny
    c.slides[r] += 1
    c.hits += 1


cdef int move_from(Ctx* c, int i, long* budget) except -1 nogil:
    """Row i moves, and every row it meets that has not moved yet goes first (leaders)."""
    cdef int r, j, p, top = 0
    cdef double t
    cdef CContact hit
    hit.nx = hit.ny = hit.depth = hit.px = hit.py = 0.0
    c.stack[0] = i
    c.state[i] = WAITING
    while top >= 0:
        budget[0] -= 1
        r = c.stack[top]
        if budget[0] < 0 or c.slides[r] >= c.max_slides or not moving(c, r):
            c.rest[2 * r] = 0.0
            c.rest[2 * r + 1] = 0.0
            c.state[r] = DONE
            top -= 1
            continue
        widen(c, r)
        if not first_hit(c, r, &t, &hit, &j, &p):
            c.body[r].px += c.rest[2 * r]
            c.body[r].py += c.rest[2 * r + 1]
            c.rest[2 * r] = 0.0
            c.rest[2 * r + 1] = 0.0
            c.state[r] = DONE
            top -= 1
            continue
        if c.state[j] == PENDING and moving(c, j) and c.rows.kind[j] != STATIC:
            # a leader that has not moved yet goes first; r looks again after it
            top += 1
            c.stack[top] = j
            c.state[j] = WAITING
            continue
        apply_hit(c, r, j, t, &hit, p)
    return 0
