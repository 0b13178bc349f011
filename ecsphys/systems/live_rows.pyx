# cython: embedsignature=True
"""The rows the sphere slide works on in a step, and their start.

Guarantees:
- every row the step works on starts it where it is, with its move as its rest (what it
  wants), nothing done yet, no edges until `pair_edges.build_edges` gives it the pairs',
  and a reach (`Reach`) of its move's length and the contact offset from its start box (a
  static row or a sleeper: none), as the broadphase grew its box (`init_row`);
- while something sleeps (``awake`` given) the step sets up the awake rows and the
  sleepers beside them in the broadphase's pairs (`start_rows`), and any other sleeper only
  when it first meets it (`ensure`: a look-up's find, a carrier), listed among the live rows
  after them; a sleeper the step never meets costs it nothing; a pass that reads every row
  sets them all up first (`ensure_all`). Without sleepers, every row, 0 .. n: the same bits;
- a sleeper set up late is marked fresh (to be looked at for overlaps) when it holds
  another entity than at the last clean end, or a new one, or moved since (`stale`).
"""

from libc.math cimport sqrt
from libc.stdint cimport int64_t
from libc.string cimport memset

from ..state.table_view cimport row_body
from .slide_context cimport PENDING, STATIC, Ctx, Reach


cdef void init_row(Ctx* c, int i) noexcept nogil:
    """Row i's start of the step: where it is, its move as its rest, and nothing done yet."""
    cdef double* pos_col = c.rows.pos
    cdef double mx = c.rows.move[2 * i]
    cdef double my = c.rows.move[2 * i + 1]
    cdef Reach* w
    c.body[i] = row_body(&c.rows, i, pos_col)
    c.rest[2 * i] = mx
    c.rest[2 * i + 1] = my
    c.want[2 * i] = mx
    c.want[2 * i + 1] = my
    c.prev_n[2 * i] = 0.0
    c.prev_n[2 * i + 1] = 0.0
    c.state[i] = PENDING
    c.slides[i] = 0
    c.carry[2 * i] = 0.0
    c.carry[2 * i + 1] = 0.0
    c.pushed[i] = 0
    c.tleft[i] = c.dt
    c.carried[i] = 0
    c.floored[i] = 0
    c.head[i] = -1
    c.estart[i] = 0  # no edges until `build_edges` gives it the pairs' (none if set up later)
    c.eend[i] = 0
    # the broadphase grew each dynamic box by the move's length and the offset (a sleeper is
    # one of its static boxes: it gets nowhere)
    w = &c.reach[i]
    w.covered = 0.0 if c.rows.kind[i] == STATIC or c.rows.asleep[i] else \
        sqrt(mx * mx + my * my) + c.offset
    w.cov0 = w.covered
    w.x0 = pos_col[2 * i] + c.rows.lo[2 * i]
    w.y0 = pos_col[2 * i + 1] + c.rows.lo[2 * i + 1]
    w.x1 = pos_col[2 * i] + c.rows.hi[2 * i]
    w.y1 = pos_col[2 * i + 1] + c.rows.hi[2 * i + 1]
    w.solid = c.rows.collides[i] and not c.rows.sensor[i]
    w.fixed = c.rows.kind[i] == STATIC
    c.isfar[i] = 0
    c.stamp[i] = 0
    c.mark[i] = 0


cdef void ensure_all(Ctx* c) noexcept nogil:
    """Every row set up (a pass that reads every row: the cells of the push apart, a batch
    of widened rows, a look-up without an index)."""
    cdef int s
    if c.live != NULL:
        for s in range(c.n):
            ensure(c, s)


cdef void start_rows(Ctx* c, const int64_t* awake, int nawake, const int64_t* a,
                     const int64_t* b) noexcept nogil:
    """Every row's start of the step (`init_row`); while something sleeps (``awake`` not
    NULL: the awake rows, ascending) only the awake rows' and those of the broadphase's
    pairs (the sleepers beside awake bodies), listed in ``live``; the rest are set up only
    if the step meets them (`ensure`)."""
    cdef int i, k, p
    if awake == NULL:
        for i in range(c.n):
            init_row(c, i)
        return
    c.tick += 1
    if c.tick == 0:  # wrapped: no row was set up in this step
        memset(c.seen, 0, c.n * sizeof(unsigned int))
        c.tick = 1
    c.nlive = 0
    for k in range(nawake):
        i = <int> awake[k]
        init_row(c, i)
        c.seen[i] = c.tick
        c.live[c.nlive] = i
        c.nlive += 1
    for p in range(c.np0):
        ensure(c, <int> a[p])
        ensure(c, <int> b[p])
