# A row's reach beyond the box the broadphase swept for it (see reach.pyx for the guarantees):
# `widen` is inline (its check runs before every move of the slide; the look-up itself,
# `look_beyond`, is a call), as are the box tests of the look-ups.

from libc.math cimport fabs
from libc.string cimport memset

from ..geometry.vec cimport max2
from ..state.table_view cimport Rows
from .slide_context cimport SWEEP_MARGIN, Ctx, Reach

cdef extern from *:
    """
    #ifndef ECSPHYS_SLIDE_WIDEN_REACH
    #define ECSPHYS_SLIDE_WIDEN_REACH 1.5
    #endif
    """
    # widen gives a row this many times the reach it needs: more, and a body pushed on and on
    # is looked up more rarely, but pairs with more rows it never meets (at 2.0 the first
    # step of 10,000 overlapping bodies made 20% more work than at 1.5; 1.25 slowed later
    # steps)
    double WIDEN_REACH "ECSPHYS_SLIDE_WIDEN_REACH"


cdef inline double reach_needed(const Ctx* c, int r) noexcept nogil:
    """How far (per axis) row r may get from the box its reach is measured from (its start
    box, or where `anchor` put it) by the end of its rest."""
    cdef double dx = fabs(c.body[r].px + c.body[r].x0 - c.reach[r].x0)
    cdef double dy = fabs(c.body[r].py + c.body[r].y0 - c.reach[r].y0)
    cdef double rx = fabs(c.rest[2 * r])
    cdef double ry = fabs(c.rest[2 * r + 1])
    return (dx if dx > dy else dy) + (rx if rx > ry else ry)


cdef inline int widen(Ctx* c, int r) except -1 nogil:
    """Row r may leave the box the broadphase swept for it: give it a reach ``WIDEN_REACH``
    times what it needs (so a body pushed on and on is looked up rarely) and a pair with every
    solid row whose reach box (its start box, or where `anchor` put it, grown by its reach)
    meets r's grown box, layers, masks and ``filter_pair`` allowing, that it does not pair
    with already: in ascending rows,
    from the rows the index finds near r's grown box and the far rows
    (`beyond_candidates`), or from every row without an index."""
    cdef double need = reach_needed(c, r)
    cdef Reach* w = &c.reach[r]
    if need <= w.covered + SWEEP_MARGIN:
        return 0
    w.covered = WIDEN_REACH * need
    c.widened += 1
    return look_beyond(c, r)


cdef int look_beyond(Ctx* c, int r) except -1 nogil


cdef inline unsigned int new_mark(Ctx* c) noexcept nogil:
    """A new ``mgen``: no row is marked with it."""
    c.mgen += 1
    if c.mgen == 0:  # wrapped: clear the marks
        memset(c.mark, 0, c.n * sizeof(unsigned int))
        c.mgen = 1
    return c.mgen


cdef inline void mark_partners(Ctx* c, int r) noexcept nogil:
    """Mark r's partners so far (its edges: the solid pairs) with a new ``mgen``."""
    cdef int e
    new_mark(c)
    for e in range(c.estart[r], c.eend[r]):
        c.mark[c.eother[e]] = c.mgen
    e = c.head[r]
    while e >= 0:
        c.mark[c.eother[e]] = c.mgen
        e = c.enext[e]


cdef int pair_beyond(Ctx* c, int r, int s, double x0, double y0, double x1,
                     double y1) except -1 nogil


cdef int add_beyond(Ctx* c, int r, int s) except -1 nogil


cdef inline void note_grown(Ctx* c, int r) noexcept nogil:
    """Row r's reach grew beyond what the index's box for it holds: by at most
    ``grow_limit``, the index answers for it if asked with boxes grown by ``grow``; beyond
    that, it is a far row, looked at by every look-up (a few bodies pushed a long way do
    not widen every look-up). (Its reach box is measured from its start box, or from where
    `anchor` put it: as far beyond the index's box as it gets on any side.)"""
    cdef const Reach* w = &c.reach[r]
    cdef double sx0 = c.start[2 * r] + c.rows.lo[2 * r]
    cdef double sy0 = c.start[2 * r + 1] + c.rows.lo[2 * r + 1]
    cdef double sx1 = c.start[2 * r] + c.rows.hi[2 * r]
    cdef double sy1 = c.start[2 * r + 1] + c.rows.hi[2 * r + 1]
    cdef double g = w.covered - w.cov0 + max2(max2(sx0 - w.x0, w.x1 - sx1),
                                              max2(sy0 - w.y0, w.y1 - sy1))
    if g <= c.grow_limit:
        if g > c.grow:
            c.grow = g
    elif not c.isfar[r]:
        c.isfar[r] = 1
        c.far[c.nfar] = r
        c.nfar += 1


cdef inline bint reaches(const Ctx* c, int s, double x0, double y0, double x1,
                         double y1) noexcept nogil:
    """Row s's reach box (its start box, or where `anchor` put it, grown by its reach) meets
    the box (widen's box test)."""
    cdef const Reach* b = &c.reach[s]
    cdef double h = b.covered
    return not (b.x0 - h > x1 or b.x1 + h < x0 or b.y0 - h > y1 or b.y1 + h < y0)


cdef int beyond_candidates(Ctx* c, double x0, double y0, double x1,
                           double y1) except -1 nogil


cdef double mean_extent(const Rows* rw, int n) noexcept nogil
