# cython: embedsignature=True
"""Fixed cells: a hashed grid of the reach boxes of the solid rows that are never pushed,
made for one push apart.

Guarantees:
- `cells_find` gives the rows of the cells whose reach box meets a box, each once,
  ascending: what `reach.beyond_candidates` keeps of those rows, from the cells instead of
  the index (the same rows with an index or without);
- a row over more than ``CELLS_BIG`` cells is in none (every look-up takes it); a look-up
  over more than ``CELLS_SCAN`` cells takes every row of the cells; without such big rows
  and over at most ``OCC_CELLS`` cells, a look-up whose cells hold no row ends there;
- the memory is the caller's to free (`cells_free`), also after a ``MemoryError``.
"""

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from ..state.int_sort cimport sort_ints
from .live_rows cimport ensure_all
from .reach cimport reaches
from .slide_context cimport Ctx, Reach


cdef inline int64_t ifloor(double v) noexcept nogil:
    """floor(v) as an integer, for abs(v) < 2**62 (no call into the maths library)."""
    cdef int64_t i = <int64_t> v
    return i - (v < <double> i)


cdef inline bint cell_span(double inv, double x0, double y0, double x1, double y1,
                           int64_t* span, double limit) noexcept nogil:
    """The cells under the box (columns span[0]..span[2], rows span[1]..span[3]), or False
    if there are more than ``limit`` of them (or the box is not finite)."""
    cdef double tx0 = x0 * inv, ty0 = y0 * inv, tx1 = x1 * inv, ty1 = y1 * inv
    if not (tx0 > -1e15 and ty0 > -1e15 and tx1 < 1e15 and ty1 < 1e15):
        return False
    span[0] = ifloor(tx0)
    span[1] = ifloor(ty0)
    span[2] = ifloor(tx1)
    span[3] = ifloor(ty1)
    return (<double> (span[2] - span[0]) + 1.0) * (<double> (span[3] - span[1]) + 1.0) <= limit


cdef inline uint64_t cell_hash(int64_t cx, int64_t cy) noexcept nogil:
    cdef uint64_t h = (<uint64_t> cx) * 0x9E3779B97F4A7C15ULL ^ (<uint64_t> cy) * 0xC2B2AE3D27D4EB4FULL
    return h ^ (h >> 29)


cdef void cells_free(Cells* g) noexcept nogil:
    free(g.start)
    free(g.item)
    free(g.big)
    free(g.occ)
    g.start = g.item = g.big = NULL
    g.occ = NULL
    g.nitem = g.nbig = 0


cdef int cells_build(Ctx* c, Cells* g, double side) except -1 nogil:
    """The cells of side ``side`` of the solid rows that are never pushed, by their reach
    boxes (the boxes `reaches` tests): those rows listed (in ``c.stack``: free until the
    slide), counted, then filled from the last to the first, so each bucket holds its rows
    ascending."""
    cdef int s, t, m = 0
    cdef int* rows = c.stack
    cdef int64_t span[4]
    cdef int64_t cx, cy, total = 0, nbig = 0
    cdef int64_t x0 = 0, y0 = 0, x1 = -1, y1 = -1
    cdef uint64_t buckets = 16, k
    cdef const Reach* w
    g.start = g.item = g.big = NULL
    g.occ = NULL
    g.nitem = g.nbig = 0
    g.inv = 1.0 / side
    ensure_all(c)
    for s in range(c.n):
        if in_cells(c, s):
            rows[m] = s
            m += 1
    for t in range(m):
        w = &c.reach[rows[t]]
        if cell_span(g.inv, w.x0 - w.covered, w.y0 - w.covered, w.x1 + w.covered,
                     w.y1 + w.covered, span, CELLS_BIG):
            if total == 0:
                x0, y0, x1, y1 = span[0], span[1], span[2], span[3]
            x0 = span[0] if span[0] < x0 else x0
            y0 = span[1] if span[1] < y0 else y0
            x1 = span[2] if span[2] > x1 else x1
            y1 = span[3] if span[3] > y1 else y1
            total += (span[2] - span[0] + 1) * (span[3] - span[1] + 1)
        else:
            nbig += 1
    while buckets < 2 * <uint64_t> total:
        buckets *= 2
    g.mask = buckets - 1
    g.ox = x0
    g.oy = y0
    g.ow = x1 - x0 + 1 if nbig == 0 else 0
    g.oh = y1 - y0 + 1 if nbig == 0 else 0
    if (<double> g.ow) * (<double> g.oh) > OCC_CELLS:
        g.ow = g.oh = 0
    if total < 0x7fffffff:
        g.start = <int*> calloc(buckets + 1, sizeof(int))
        g.item = <int*> malloc((total + 1) * sizeof(int))
        g.big = <int*> malloc((nbig + 1) * sizeof(int))
        g.occ = <unsigned char*> calloc(g.ow * g.oh + 1, 1)
    if g.start == NULL or g.item == NULL or g.big == NULL or g.occ == NULL:
        cells_free(g)
        with gil:
            raise MemoryError()
    for t in range(m):
        w = &c.reach[rows[t]]
        if cell_span(g.inv, w.x0 - w.covered, w.y0 - w.covered, w.x1 + w.covered,
                     w.y1 + w.covered, span, CELLS_BIG):
            for cy in range(span[1], span[3] + 1):
                for cx in range(span[0], span[2] + 1):
                    g.start[cell_hash(cx, cy) & g.mask] += 1
                    if g.ow:
                        g.occ[(cy - g.oy) * g.ow + cx - g.ox] = 1
        else:
            g.big[g.nbig] = rows[t]
            g.nbig += 1
    for k in range(1, buckets):  # each bucket's end
        g.start[k] += g.start[k - 1]
    g.start[buckets] = <int> total
    g.nitem = <int> total
    for t in range(m - 1, -1, -1):
        w = &c.reach[rows[t]]
        if cell_span(g.inv, w.x0 - w.covered, w.y0 - w.covered, w.x1 + w.covered,
                     w.y1 + w.covered, span, CELLS_BIG):
            for cy in range(span[1], span[3] + 1):
                for cx in range(span[0], span[2] + 1):
                    k = cell_hash(cx, cy) & g.mask
                    g.start[k] -= 1
                    g.item[g.start[k]] = rows[t]
    return 0


cdef inline int take(Ctx* c, int s, int k, double x0, double y0, double x1,
                     double y1) noexcept nogil:
    """`cells_find`'s step: row s into ``c.cand`` (at k) if new to this look-up and it
    reaches the box; returns the new count."""
    if c.stamp[s] != c.gen:
        c.stamp[s] = c.gen
        if reaches(c, s, x0, y0, x1, y1):
            c.cand[k] = s
            return k + 1
    return k


cdef int cells_find(Ctx* c, const Cells* g, double x0, double y0, double x1,
                    double y1) noexcept nogil:
    """The rows of the cells whose reach box meets the box (x0, y0, x1, y1), each once,
    ascending, into ``c.cand``; returns how many: what `beyond_candidates` keeps, from the
    cells instead of the index."""
    cdef int64_t span[4]
    cdef int64_t cx, cy
    cdef uint64_t h
    cdef int t, k = 0
    cdef bint within = cell_span(g.inv, x0, y0, x1, y1, span, CELLS_SCAN)
    if g.nitem == 0 and g.nbig == 0:
        return 0
    if within and g.ow:  # no row in any of its cells: none
        if (span[2] < g.ox or span[0] >= g.ox + g.ow or span[3] < g.oy
                or span[1] >= g.oy + g.oh):
            return 0
        for cy in range(max(span[1], g.oy), min(span[3], g.oy + g.oh - 1) + 1):
            for cx in range(max(span[0], g.ox), min(span[2], g.ox + g.ow - 1) + 1):
                k += g.occ[(cy - g.oy) * g.ow + cx - g.ox]
        if k == 0:
            return 0
        k = 0
    c.gen += 1
    if c.gen == 0:  # wrapped: clear the stamps
        memset(c.stamp, 0, c.n * sizeof(unsigned int))
        c.gen = 1
    if within:
        for cy in range(span[1], span[3] + 1):
            for cx in range(span[0], span[2] + 1):
                h = cell_hash(cx, cy) & g.mask
                for t in range(g.start[h], g.start[h + 1]):
                    k = take(c, g.item[t], k, x0, y0, x1, y1)
    else:
        for t in range(g.nitem):
            k = take(c, g.item[t], k, x0, y0, x1, y1)
    for t in range(g.nbig):
        k = take(c, g.big[t], k, x0, y0, x1, y1)
    sort_ints(c.cand, k)
    return k
