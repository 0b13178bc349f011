# cython: embedsignature=True
"""Reach: the pairs of a body that gets beyond the box the broadphase swept for it.

Guarantees:
- a body that gets further than the box the broadphase swept for it (pushed, or pushed
  apart) gets its pairs looked up again among every solid body (`widen`), layers, masks and
  ``filter_pair`` applying, so a pushed crate is stopped by what lies beyond like any move;
  those pairs go to the narrowphase too (``extra``); an error raised by ``filter_pair``
  there leaves the compiled code at once and reaches the caller;
- a row widened gets ``WIDEN_REACH`` times the reach it needs, so a body pushed on and on is
  looked up rarely; it pairs with every solid row whose reach box (its start box, or where
  the push apart left it, grown by its reach) meets its grown box, not both static, that it
  does not pair with already (`pair_beyond`), the row of the lower entity first
  (`add_beyond`);
- given the broadphase's compiled index, the look-up asks it (`beyond_candidates`) with the
  grown box grown again by the most a body widened in this step reaches beyond the box the
  index holds for it (rows pushed further than twice the mean body size, `mean_extent`, are
  far: each look-up takes them on its own), so it costs per body near, not per row: the same
  pairs, in the same order (ascending rows), as the look at every row it makes without an
  index (the brute force).
"""

from libc.math cimport INFINITY, fabs
from libc.stdint cimport int64_t
from libc.string cimport memset

from ..broadphase.boxindex cimport FOUND_STATIC, BoxIndex, PairList
from ..state.int_sort cimport sort_ints
from ..state.table_view cimport Rows
from .live_rows cimport ensure, ensure_all
from .pair_edges cimport add_pair
from .slide_context cimport SWEEP_MARGIN, Ctx, Reach, prefetch


cdef int look_beyond(Ctx* c, int r) except -1 nogil:
    """`widen`'s look-up for row r, its reach set."""
    cdef Reach* w = &c.reach[r]
    cdef double g = w.covered + SWEEP_MARGIN
    cdef double x0 = w.x0 - g
    cdef double y0 = w.y0 - g
    cdef double x1 = w.x1 + g
    cdef double y1 = w.y1 + g
    cdef int s, k, count
    mark_partners(c, r)
    if c.index == NULL:
        ensure_all(c)
        for s in range(c.n):
            pair_beyond(c, r, s, x0, y0, x1, y1)
        return 0
    note_grown(c, r)
    count = beyond_candidates(c, x0, y0, x1, y1)
    for k in range(count):
        pair_beyond(c, r, c.cand[k], x0, y0, x1, y1)
    return 0


cdef int pair_beyond(Ctx* c, int r, int s, double x0, double y0, double x1,
                     double y1) except -1 nogil:
    """widen's test of row s for row r (its grown box x0, y0, x1, y1): a pair if s is solid,
    not both are static, s's start box grown by its own reach (``covered``) meets r's,
    layers, masks and ``filter_pair`` allow it, and r does not pair with s already (s is
    not marked: widen marks r's partners first)."""
    cdef const Rows* rw = &c.rows
    if s == r or not c.reach[s].solid:
        return 0
    if c.reach[s].fixed and c.reach[r].fixed:
        return 0
    if not reaches(c, s, x0, y0, x1, y1):
        return 0
    if (rw.layer[r] & rw.mask[s]) == 0 or (rw.layer[s] & rw.mask[r]) == 0:
        return 0
    if c.mark[s] == c.mgen:  # r pairs with s already
        return 0
    return add_beyond(c, r, s)


cdef int add_beyond(Ctx* c, int r, int s) except -1 nogil:
    """The pair of rows r and s found beyond the swept boxes (the row of the lower entity
    first), if ``filter_pair`` allows it."""
    cdef const Rows* rw = &c.rows
    cdef bint ok
    cdef int64_t a = r, b = s
    if rw.entity[a] > rw.entity[b]:
        a, b = s, r
    if c.filter_pair != NULL:
        with gil:
            ok = bool((<object> c.filter_pair)(int(rw.entity[a]), int(rw.entity[b])))
        if not ok:
            return 0
    add_pair(c, a, b, INFINITY)
    return 0


cdef int beyond_candidates(Ctx* c, double x0, double y0, double x1,
                           double y1) except -1 nogil:
    """The rows widen tests for the grown box (x0, y0, x1, y1), each once, ascending, into
    ``c.cand``; returns how many. Every row whose start box grown by its reach meets the
    box is among them: the index's boxes hold each row's start box grown by its reach at
    the start (``cov0``; a static's box exactly), so the index asked with the box grown by
    ``grow`` (the most a row not far reaches beyond that) and a margin for rounding finds
    them, and the far rows are added; only those that meet the box are kept (`reaches`)."""
    cdef double m = (c.grow + SWEEP_MARGIN
                     + 1e-12 * (fabs(x0) + fabs(y0) + fabs(x1) + fabs(y1)))
    cdef double q[4]
    cdef PairList* found = c.found
    cdef Py_ssize_t t
    cdef int64_t id_, row
    cdef int k = 0
    q[0] = x0 - m
    q[1] = y0 - m
    q[2] = x1 + m
    q[3] = y1 + m
    c.gen += 1
    if c.gen == 0:  # wrapped: clear the stamps
        memset(c.stamp, 0, c.n * sizeof(unsigned int))
        c.gen = 1
    found.n = 0
    if (<BoxIndex> c.index).find(q, found) < 0:
        with gil:
            raise MemoryError()
    for t in range(found.n):  # ids to rows (-1: none), their lines fetched meanwhile
        id_ = found.a[t]
        row = -1
        if found.b[t] == FOUND_STATIC:
            if 0 <= id_ < c.nsrow:
                row = c.srow[id_]
        elif 0 <= id_ < c.ndyn:
            row = c.dyn[id_]
        if row < 0 or row >= c.n:
            row = -1
        else:
            ensure(c, <int> row)  # (a sleeper: a static box of the index)
            prefetch(&c.reach[row])
        found.a[t] = row
    for t in range(found.n):
        row = found.a[t]
        if row < 0 or c.stamp[row] == c.gen:
            continue
        c.stamp[row] = c.gen
        if reaches(c, <int> row, x0, y0, x1, y1):
            c.cand[k] = <int> row
            k += 1
    for t in range(c.nfar):
        row = c.far[t]
        if c.stamp[row] != c.gen:
            c.stamp[row] = c.gen
            if reaches(c, <int> row, x0, y0, x1, y1):
                c.cand[k] = <int> row
                k += 1
    sort_ints(c.cand, k)
    return k


cdef double mean_extent(const Rows* rw, int n) noexcept nogil:
    """The mean of the colliding rows' larger box sides (0 with none)."""
    cdef double total = 0.0, w, h
    cdef int i, k = 0
    for i in range(n):
        if rw.collides[i]:
            w = rw.hi[2 * i] - rw.lo[2 * i]
            h = rw.hi[2 * i + 1] - rw.lo[2 * i + 1]
            total += w if w > h else h
            k += 1
    return total / k if k else 0.0
