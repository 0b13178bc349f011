# cython: embedsignature=True
"""The sphere slide's pairs and each row's edges (the adjacency both ways per solid pair).

Guarantees:
- the broadphase's pairs come first, in its order (sensor pairs too: their events), each
  with no impact yet (time ``inf``, speed 0); a row's edges of the solid ones are
  contiguous, ``estart[row] .. eend[row]``, in pair order (`build_edges`), for the rows the
  step works on; a row set up later has none;
- a pair found beyond the swept boxes follows them (`add_pair`), its two edges at the head of
  each row's linked list (``head``, ``enext``): a row's edges are its contiguous ones, then
  its linked ones, newest first; the arrays grow as needed (``MemoryError`` when they cannot).
"""

from libc.math cimport INFINITY
from libc.stdint cimport int64_t

from .slide_context cimport Ctx, live_n, live_row, re_alloc, solid


cdef int add_pair(Ctx* c, int64_t a, int64_t b, double toi) except -1 nogil:
    """A new pair (rows a, b) and its two edges; grows the arrays when full."""
    cdef int p = c.npairs
    cdef bint ok = True
    if p >= c.cap_p:
        c.cap_p = 2 * c.cap_p + 64
        ok = (re_alloc(<void**> &c.pa, c.cap_p * sizeof(int64_t))
              and re_alloc(<void**> &c.pb, c.cap_p * sizeof(int64_t))
              and re_alloc(<void**> &c.ptoi, c.cap_p * sizeof(double))
              and re_alloc(<void**> &c.pspeed, c.cap_p * sizeof(double))
              and re_alloc(<void**> &c.pinfo, 4 * c.cap_p * sizeof(double)))
    if ok and c.ne + 2 > c.cap_e:
        c.cap_e = 2 * c.cap_e + 128
        ok = (re_alloc(<void**> &c.enext, c.cap_e * sizeof(int))
              and re_alloc(<void**> &c.eother, c.cap_e * sizeof(int))
              and re_alloc(<void**> &c.epair, c.cap_e * sizeof(int)))
    if not ok:
        with gil:
            raise MemoryError()
    c.pa[p] = a
    c.pb[p] = b
    c.ptoi[p] = toi
    c.pspeed[p] = 0.0
    c.npairs = p + 1
    link(c, <int> a, <int> b, p)
    link(c, <int> b, <int> a, p)
    return 0


cdef inline void link(Ctx* c, int row, int other, int pair) noexcept nogil:
    cdef int e = c.ne
    c.eother[e] = other
    c.epair[e] = pair
    c.enext[e] = c.head[row]
    c.head[row] = e
    c.ne = e + 1


cdef void build_edges(Ctx* c, const int64_t* a, const int64_t* b) noexcept nogil:
    """The broadphase's pairs (sensor pairs too: events) and the contiguous edges of the
    solid ones, each row's in pair order: counts, each row's start (the rows the step works
    on, in their order: a sleeping world's step touches only those), fill. Every pair's rows
    are set up by now (`start_rows`); a row set up later has none (`init_row`)."""
    cdef int p, i, k, e, total = 0
    cdef int* end = c.eend  # the counts, then the fill's cursor, then each row's end
    for k in range(live_n(c)):
        end[live_row(c, k)] = 0
    for p in range(c.np0):
        c.pa[p] = a[p]
        c.pb[p] = b[p]
        c.ptoi[p] = INFINITY
        c.pspeed[p] = 0.0
        if solid(&c.rows, a[p], b[p]):
            end[a[p]] += 1
            end[b[p]] += 1
    for k in range(live_n(c)):
        i = live_row(c, k)
        c.estart[i] = total
        total += end[i]
        end[i] = c.estart[i]
    for p in range(c.np0):
        if solid(&c.rows, a[p], b[p]):
            e = end[a[p]]
            c.eother[e] = <int> b[p]
            c.epair[e] = p
            end[a[p]] = e + 1
            e = end[b[p]]
            c.eother[e] = <int> a[p]
            c.epair[e] = p
            end[b[p]] = e + 1
    c.npairs = c.np0
    c.ne = total
