# The rows the slide works on (see live_rows.pyx for the guarantees): their start of the step,
# and a sleeper set up when the step first meets it (`ensure`, inline: its check is on every
# look-up's path).

from libc.stdint cimport int64_t

from ..state.table_view cimport Rows
from .slide_context cimport Ctx


cdef inline unsigned char stale(const double* end_pos, const int64_t* end_ent, int end_n,
                                const Rows* view, int i) noexcept nogil:
    """Row i holds another entity than at the last clean end, or a new one, or moved since
    (1), else 0."""
    return (i >= end_n or end_ent[i] != view.entity[i]
            or end_pos[2 * i] != view.pos[2 * i]
            or end_pos[2 * i + 1] != view.pos[2 * i + 1])


cdef void init_row(Ctx* c, int i) noexcept nogil


cdef inline void ensure(Ctx* c, int s) noexcept nogil:
    """Row s is set up for this step: a sleeper the step meets (a pair's, a look-up's, a
    carrier) is set up when first met and listed among the live rows; a sleeper the step
    never meets costs it nothing."""
    if c.live != NULL and c.seen[s] != c.tick:
        init_row(c, s)
        if c.fresh != NULL and c.end_ent != NULL:  # (the awake rows' marks only so far)
            c.fresh[s] = stale(c.end_pos, c.end_ent, c.end_n, &c.rows, s)
        c.seen[s] = c.tick
        c.live[c.nlive] = s
        c.nlive += 1


cdef void ensure_all(Ctx* c) noexcept nogil


cdef void start_rows(Ctx* c, const int64_t* awake, int nawake, const int64_t* a,
                     const int64_t* b) noexcept nogil
