# cython: embedsignature=True
"""The push apart: bodies that start the step overlapping are separated before they move.

Guarantees (for the solid pairs: neither side a sensor):
- bodies that start the step overlapping are pushed apart along the contact normal, shared by
  inverse mass (a static side never moves, nor does a sleeper not struck), so a body spawned
  in a wall leaves it the short way; one pair after another, the broadphase's order;
- a share that would take a body into a body that is never pushed (static, or of infinite
  mass: it rests on a floor, leans on a wall) stops a skin before it, and the other body of
  the pair takes the rest (`push_by`), so a push apart never moves a body into a wall or
  through a thin floor;
- a pair that walls stop both ways along the normal (two crates side by side in a pit one
  tile wide) is not left overlapping: the body on top along its "up" (against its
  acceleration) rises out of the other by the least lift that clears it, up to what stops
  it, and falls back onto it (`rise_out`; two bodies that can be pushed, with an
  acceleration: a body overlapping a wall or a floor, or without an "up", stays put);
- a body whose centre is inside a solid tile of a tile map leaves it the short way
  (`tile_burial.out_of_tiles`); overlaps with one-way bodies are never pushed apart;
- after a clean end (no two solid bodies overlapping) only the pairs of rows that changed or
  moved since (``fresh``) are looked at, and a tile map whose tiles changed only with the
  bodies near the changed tiles;
- a push looks up the bodies never pushed near its path (from the index for the first
  ``LAZY_FIXED`` look-ups, then from `fixed_cells`); the bodies pushed beyond their reach
  look up the rest once all pushes apart are done, their reach measured from where they
  got to (`reach_sweep.widen_all`).
"""

from libc.math cimport INFINITY
from libc.stdint cimport int64_t

from ..geometry.contact import TOUCH_TOLERANCE as _TOUCH_TOLERANCE

from ..geometry.impact cimport time_of_impact
from ..geometry.manifold cimport contact
from ..geometry.shape_data cimport TILEMAP, Body, CContact
from ..state.table_view cimport body_up
from .fixed_cells cimport Cells, cells_build, cells_find, cells_free, in_cells
from .momentum cimport impulse
from .reach cimport beyond_candidates, mark_partners, mean_extent, pair_beyond
from .reach_sweep cimport widen_all
from .slide cimport first_hit
from .slide_context cimport (
    FETCH_AHEAD, OVERLAP, SWEEP_MARGIN, Ctx, dot, inv_mass_of, is_one_way, prefetch, solid,
)
from .tile_burial cimport out_of_tiles

cdef double TOUCH = _TOUCH_TOLERANCE
# a push apart looks up the bodies never pushed near a push in the index for its first
# LAZY_FIXED pushes (a few bodies spawned in others), then in cells of those made for it
cdef int LAZY_FIXED = 256

cdef enum:
    MOVED_LIST = 256    # push_apart lists the rows it moved while they are at most this many


cdef struct Pushes:
    # what push_apart keeps while it pushes
    Cells fixed         # the solid rows that are never pushed (made at the LAZY_FIXED-th look)
    bint built
    int looks           # look-ups of those so far
    int nmoved          # rows moved so far (beyond MOVED_LIST: not listed, all are looked at)
    int moved[MOVED_LIST]


cdef int fixed_near(Ctx* c, int r, Pushes* ps, double x0, double y0, double x1,
                    double y1) except -1 nogil:
    """The solid rows that are never pushed whose reach box meets the box (x0, y0, x1, y1)
    (they do not move in a push apart: where they are is in it), each once, ascending, into
    ``c.cand``; returns how many. From the index while the look-ups are few (nothing has
    widened yet: what it holds is exact), else (and without an index) from cells of those
    rows made once for the push apart."""
    cdef int k, m = 0, s
    cdef double side
    ps.looks += 1
    if not ps.built and (c.index == NULL or ps.looks > LAZY_FIXED):
        side = 2.0 * mean_extent(&c.rows, c.n)
        cells_build(c, &ps.fixed, side if side > 0.0 and side < INFINITY else 1.0)
        ps.built = True
    if ps.built:
        return cells_find(c, &ps.fixed, x0, y0, x1, y1)
    for k in range(beyond_candidates(c, x0, y0, x1, y1)):
        s = c.cand[k]
        if in_cells(c, s):
            c.cand[m] = s
            m += 1
    return m


cdef inline void note_moved(Pushes* ps, int r) noexcept nogil:
    """Row r moved in the push apart (listed once, while the list has room)."""
    cdef int k
    if ps.nmoved > MOVED_LIST:
        return
    for k in range(ps.nmoved):
        if ps.moved[k] == r:
            return
    if ps.nmoved < MOVED_LIST:
        ps.moved[ps.nmoved] = r
    ps.nmoved += 1


cdef double push_by(Ctx* c, int r, int other, double dx, double dy,
                    Pushes* ps) except -1.0 nogil:
    """Move row r by (dx, dy) as a push apart from row ``other``, stopping a skin before the
    first body in the way that is never pushed (a wall, a floor, a platform of infinite
    mass); returns the fraction of the move made. Bodies that can give way are left to the
    slide (they are pushed in turn, or pushed apart in the next step). The push may take r
    beyond the box the broadphase swept for it: r gets its pairs with the bodies never
    pushed in its way first (`fixed_near`), the rest once all pushes are done
    (`widen_all`)."""
    if r < 0 or (dx == 0.0 and dy == 0.0):
        return 1.0 if r >= 0 else 0.0
    cdef double kx, ky, t, safe = 1.0, closing
    cdef int j, p, k, count
    cdef CContact hit
    cdef Body* br = &c.body[r]
    note_moved(ps, r)
    # the box first_hit looks in: r's box swept by the push
    cdef double x0 = br.px + br.x0 + (dx if dx < 0.0 else 0.0) - SWEEP_MARGIN
    cdef double y0 = br.py + br.y0 + (dy if dy < 0.0 else 0.0) - SWEEP_MARGIN
    cdef double x1 = br.px + br.x1 + (dx if dx > 0.0 else 0.0) + SWEEP_MARGIN
    cdef double y1 = br.py + br.y1 + (dy if dy > 0.0 else 0.0) + SWEEP_MARGIN
    count = fixed_near(c, r, ps, x0, y0, x1, y1)
    if count:  # (mostly none: r's rest is not even read)
        mark_partners(c, r)
        for k in range(count):
            pair_beyond(c, r, c.cand[k], x0, y0, x1, y1)
        kx = c.rest[2 * r]
        ky = c.rest[2 * r + 1]
        c.rest[2 * r] = dx  # (first_hit moves r by its rest)
        c.rest[2 * r + 1] = dy
        if first_hit(c, r, &t, &hit, &j, &p, True, other):
            closing = dot(dx, dy, hit.nx, hit.ny)
            safe = t - c.skin / closing if closing > 0.0 else t
            safe = 0.0 if safe < 0.0 else (1.0 if safe > 1.0 else safe)
        c.rest[2 * r] = kx
        c.rest[2 * r + 1] = ky
    br.px += dx * safe
    br.py += dy * safe
    return safe


cdef inline bint near_region(const Ctx* c, int m, int r) noexcept nogil:
    """Row r's box meets the changed-tile box of tile map row m (``region``)."""
    cdef const double* g = c.region + 4 * m
    cdef const Body* b = &c.body[r]
    cdef const Body* t = &c.body[m]
    return not (b.px + b.x1 < t.px + g[0] or b.px + b.x0 > t.px + g[2]
                or b.py + b.y1 < t.py + g[1] or b.py + b.y0 > t.py + g[3])


cdef inline bint moved(const Ctx* c, int r) noexcept nogil:
    """Row r is no longer where the step started it."""
    return c.body[r].px != c.start[2 * r] or c.body[r].py != c.start[2 * r + 1]


cdef int push_apart(Ctx* c) except -1 nogil:
    """Separate the solid pairs that overlap at the start, along the normal, by inverse mass,
    one pair after another; what moves into the contact no longer does. A body whose share
    would take it into a body that is never pushed (it rests on a floor, leans on a wall)
    moves up to that body, and the other body of the pair takes the rest of the depth, up
    to what stops it in turn (`push_by`), so nothing is pushed into or through a wall. A
    body whose centre is inside a solid tile of a tile map leaves it the short way
    (`out_of_tiles`). Then every row pushed beyond its reach gets its new pairs
    (`widen_all`)."""
    cdef Pushes ps
    ps.built = False
    ps.looks = 0
    ps.nmoved = 0
    ps.fixed.start = ps.fixed.item = ps.fixed.big = NULL
    ps.fixed.occ = NULL
    try:
        separate(c, &ps)
    finally:
        cells_free(&ps.fixed)
    if ps.nmoved:
        widen_all(c, ps.moved if ps.nmoved <= MOVED_LIST else NULL, ps.nmoved)
    return 0


cdef int separate(Ctx* c, Pushes* ps) except -1 nogil:
    """`push_apart`'s pass over the broadphase's pairs (the lines it reads of the second row
    of a pair a few pairs ahead asked for meanwhile: the second rows are far apart in
    memory; the first ones ascend)."""
    cdef int p, ra, rb
    cdef int64_t a, b, f
    cdef CContact cc
    cdef double wa, wb, total, da, db, left
    for p in range(c.np0):
        a = c.pa[p]
        b = c.pb[p]
        if p + FETCH_AHEAD < c.np0:  # (here, not in a helper: the compiler drops those)
            f = c.pb[p + FETCH_AHEAD]
            prefetch(&c.body[f])
            prefetch(&c.rows.one_way[2 * f])
            prefetch(&c.rows.inv_mass[f])
            prefetch(&c.rows.sensor[f])
            prefetch(&c.rest[2 * f])
            prefetch(&c.vel[2 * f])
            prefetch(&c.rows.restitution[f])
            prefetch(&c.rows.friction[f])
            prefetch(&c.rows.acc[2 * f])
        if c.fresh != NULL and not (c.fresh[a] == 1 or c.fresh[b] == 1 or moved(c, <int> a)
                                    or moved(c, <int> b)):
            # neither changed since the clean end, nor was pushed in this pass; a tile map
            # whose tiles changed is looked at only with bodies near the changed tiles
            if not ((c.fresh[a] == 2 and near_region(c, <int> a, <int> b))
                    or (c.fresh[b] == 2 and near_region(c, <int> b, <int> a))):
                continue
        if not solid(&c.rows, a, b) or is_one_way(c, <int> a) or is_one_way(c, <int> b):
            continue  # a body inside a one-way body is passing through it
        wa = inv_mass_of(c, <int> a)
        wb = inv_mass_of(c, <int> b)
        total = wa + wb
        if total <= 0.0:
            continue
        if c.body[b].kind == TILEMAP and wa > 0.0 and out_of_tiles(c, <int> a, <int> b):
            note_moved(ps, <int> a)
            continue
        if c.body[a].kind == TILEMAP and wb > 0.0 and out_of_tiles(c, <int> b, <int> a):
            note_moved(ps, <int> b)
            continue
        if not contact(&c.store, &c.body[a], &c.body[b], TOUCH, &cc) or cc.depth <= OVERLAP:
            continue
        # shares of the depth (a moves against the normal, b along it); a side that cannot
        # move (-1) takes none
        da = cc.depth * wa / total
        db = cc.depth - da
        ra = <int> a if wa > 0.0 else -1
        rb = <int> b if wb > 0.0 else -1
        left = da * (1.0 - push_by(c, ra, <int> b, -cc.nx * da, -cc.ny * da, ps))
        db += left
        left = db * (1.0 - push_by(c, rb, <int> a, cc.nx * db, cc.ny * db, ps))
        if left > 0.0 and ra >= 0:
            left *= 1.0 - push_by(c, ra, <int> b, -cc.nx * left, -cc.ny * left, ps)
        if left > OVERLAP and wa > 0.0 and wb > 0.0:  # walls stopped both ways
            rise_out(c, <int> a, <int> b, ps)
        impulse(c, <int> a, <int> b, cc.nx, cc.ny)
    return 0


cdef inline double _reach_along(const Body* b, double ux, double uy, bint top) noexcept nogil:
    """How far body b's box reaches along (ux, uy): its highest point (``top``) or lowest."""
    cdef double x = b.x1 if (ux > 0.0) == top else b.x0
    cdef double y = b.y1 if (uy > 0.0) == top else b.y0
    return (b.px + x) * ux + (b.py + y) * uy


cdef int rise_out(Ctx* c, int a, int b, Pushes* ps) except -1 nogil:
    """A pair of two bodies that can be pushed (finite mass, not static) still overlapping
    after its push apart, walls having stopped both sides along the normal (two crates side
    by side in a pit one tile wide): the body on top along its "up" (against its
    acceleration; of two level, ``b``) rises out of the other by what it takes to clear it
    (the least lift along "up" after which they only touch, plus the skin), up to what stops
    it (a ceiling, `push_by`); the next steps let it fall back onto the other, as pymunk
    stacks them. Only a body with an acceleration rises: a top-down game's bodies have no
    "up" to rise along. (A body overlapping a wall, a floor or a ceiling, as one grown
    where it does not fit, is not lifted: it stays put, as documented.)"""
    cdef int r = -1, o
    cdef double ux = 0.0, uy = 0.0, vx, vy, lift, t
    cdef bint can_a = c.rows.acc[2 * a] != 0.0 or c.rows.acc[2 * a + 1] != 0.0
    cdef bint can_b = c.rows.acc[2 * b] != 0.0 or c.rows.acc[2 * b + 1] != 0.0
    cdef Body moved
    cdef CContact hit
    if can_b:
        body_up(&c.rows, b, c.upx, c.upy, &ux, &uy)
        r = b
        if can_a and ((c.body[b].px - c.body[a].px) * ux
                      + (c.body[b].py - c.body[a].py) * uy) < 0.0:
            r = a
    elif can_a:
        r = a
    if r < 0:
        return 0
    o = b if r == a else a
    body_up(&c.rows, r, c.upx, c.upy, &ux, &uy)
    # from far enough along "up" that the boxes are apart, down to where r is: the first
    # touch is the least lift
    lift = (_reach_along(&c.body[o], ux, uy, True) - _reach_along(&c.body[r], ux, uy, False)
            + 2.0 * c.skin)
    if not lift > 0.0:
        return 0
    moved = c.body[r]
    moved.px += ux * lift
    moved.py += uy * lift
    if not time_of_impact(&c.store, &moved, -ux * lift, -uy * lift, &c.body[o], 0.0, 0.0,
                          &t, &hit):
        return 0
    vx = ux * (lift * (1.0 - t) + c.skin)
    vy = uy * (lift * (1.0 - t) + c.skin)
    push_by(c, r, o, vx, vy, ps)
    return 0
