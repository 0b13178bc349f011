# cython: embedsignature=True
"""Reach sweep: every row the push apart took beyond its reach gets its pairs, many at once.

Guarantees:
- after the pushes apart, every row that got beyond its reach is anchored where it is (its
  reach measured from there, `anchor`: it meets what is near where it got to, not what is
  near where it started) and gets a pair with every solid row whose reach box meets its
  own, grown as `reach.widen` grows it, layers, masks and ``filter_pair`` allowing, that it
  does not pair with already;
- a few such rows look in turn (`reach.look_beyond`); many (at least ``BATCH_MIN``, one row
  in ``BATCH_SHARE``, all solid) at once: one sweep of cells over the solid rows' reach
  boxes (not the index: the same pairs with an index or without), which costs about what a
  broadphase costs, not a look-up per row, and finds the same pairs as the look-ups in
  turn: added by the row that widens (the first of the two if both do), rows in ascending
  order, each row's pairs in ascending rows.
"""

from libc.math cimport INFINITY, floor
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc

from ..broadphase.boxindex cimport Buf, bits_for, buf_free, lower_bound, sort_keys
from ..geometry.shape_data cimport Body
from ..geometry.vec cimport max2
from ..state.int_sort cimport sort_ints
from .live_rows cimport ensure_all
from .reach cimport (
    WIDEN_REACH, add_beyond, look_beyond, mark_partners, new_mark, note_grown, reach_needed,
)
from .slide_context cimport (
    FETCH_AHEAD, STATIC, SWEEP_MARGIN, Ctx, Reach, live_n, live_row, prefetch, re_alloc,
)

# widen_all widens rows at once when at least BATCH_MIN of them, one row in BATCH_SHARE, do
cdef int BATCH_MIN = 256
cdef int BATCH_SHARE = 32
# its cells are as large as the rows' grown reach boxes, up to this many times their mean
cdef double BIG_SIDE = 4.0


cdef struct Item:
    # `widen_all`'s copy of a solid row (the items sorted by cell)
    double x0           # the box its reach is measured from (``Reach``)
    double y0
    double x1
    double y1
    double cov          # its reach (``covered``)
    int64_t layer
    int64_t mask
    int row
    int widens          # it widens now


cdef inline void anchor(Ctx* c, int r) noexcept nogil:
    """Row r's reach measured from where it is now (what it needs from there is its rest),
    ``WIDEN_REACH`` times what it needs: a row pushed apart meets what is near where it got
    to, not what is near where it started."""
    cdef Reach* w = &c.reach[r]
    cdef const Body* b = &c.body[r]
    w.x0 = b.px + b.x0
    w.y0 = b.py + b.y0
    w.x1 = b.px + b.x1
    w.y1 = b.py + b.y1
    w.covered = WIDEN_REACH * reach_needed(c, r)


cdef inline void batch_pair(const Item* p, const Item* q, int sb, uint64_t* out,
                            Py_ssize_t* n) noexcept nogil:
    """`widen_all`'s test of two items: if one widens (r: the first row if both do, it would
    look first), r's grown box meets the other's reach box as `reaches` tests it and layers
    and masks allow it, the pair goes to ``out`` (r's row shifted by ``sb`` bits, the
    other's row)."""
    # (without branches: the key is written always, kept by counting it)
    cdef bint swap = (not p.widens) | (q.widens & (q.row < p.row))
    cdef const Item* r = q if swap else p
    cdef const Item* s = p if swap else q
    cdef double g = r.cov + SWEEP_MARGIN
    cdef bint keep = ((p.widens | q.widens)
                      & (not (s.x0 - s.cov > r.x1 + g)) & (not (s.x1 + s.cov < r.x0 - g))
                      & (not (s.y0 - s.cov > r.y1 + g)) & (not (s.y1 + s.cov < r.y0 - g))
                      & ((r.layer & s.mask) != 0) & ((s.layer & r.mask) != 0))
    out[n[0]] = (<uint64_t> r.row) << sb | <uint64_t> s.row
    n[0] += keep


cdef void big_pairs(const Item* items, const uint64_t* okey, Py_ssize_t nsmall, Py_ssize_t t,
                    double inv, int64_t cx0, int64_t cy0, int64_t width, int64_t height,
                    int sb, uint64_t* out, Py_ssize_t* n) noexcept nogil:
    """`widen_all`'s pairs of big item t with the small items (sorted by the cell of their
    low corner, ``okey``): only those in the cells its grown box meets, and one cell left
    and below (a small item's box is at most a cell wide), row of cells by row; every small
    item when that is most of them (or its box is not finite)."""
    cdef const Item* p = &items[t]
    cdef double g = p.cov + SWEEP_MARGIN
    cdef double fx0 = floor((p.x0 - g) * inv) - 1.0 - cx0
    cdef double fy0 = floor((p.y0 - g) * inv) - 1.0 - cy0
    cdef double fx1 = floor((p.x1 + g) * inv) - cx0
    cdef double fy1 = floor((p.y1 + g) * inv) - cy0
    cdef int64_t y, ya, yb, xa, xb
    cdef Py_ssize_t u
    if fx0 < 0.0:
        fx0 = 0.0
    if fy0 < 0.0:
        fy0 = 0.0
    if fx1 > <double> (width - 1):
        fx1 = <double> (width - 1)
    if fy1 > <double> (height - 1):
        fy1 = <double> (height - 1)
    if not (fx0 <= fx1 and fy0 <= fy1):
        if fx0 > fx1 or fy0 > fy1:  # (beyond every small item)
            return
        for u in range(nsmall):  # (not finite)
            batch_pair(p, &items[u], sb, out, n)
        return
    if (fy1 - fy0 + 1.0) * 24.0 > <double> nsmall:  # (as many rows as items: look at all)
        for u in range(nsmall):
            batch_pair(p, &items[u], sb, out, n)
        return
    xa = <int64_t> fx0
    xb = <int64_t> fx1
    ya = <int64_t> fy0
    yb = <int64_t> fy1
    for y in range(ya, yb + 1):
        u = lower_bound(okey, 0, nsmall, <uint64_t> (y * width + xa))
        while u < nsmall and okey[u] <= <uint64_t> (y * width + xb):
            batch_pair(p, &items[u], sb, out, n)
            u += 1


cdef inline bint room(uint64_t** buf, Py_ssize_t* cap, Py_ssize_t need) noexcept nogil:
    """``buf`` holds at least ``need`` keys (grown by half again); False if out of memory."""
    cdef Py_ssize_t n
    if need <= cap[0]:
        return True
    n = need + need // 2 + 1024
    if not re_alloc(<void**> buf, n * sizeof(uint64_t)):
        return False
    cap[0] = n
    return True


cdef inline double item_side(const Reach* w) noexcept nogil:
    """The larger side of a row's reach box grown by the margin (`widen_all`'s cells)."""
    return max2(w.x1 - w.x0, w.y1 - w.y0) + 2.0 * (w.covered + SWEEP_MARGIN)


cdef int widen_all(Ctx* c, const int* moved, int nmoved) except -1 nogil:
    """After the pushes apart: every row that got beyond its reach is anchored where it is
    (`anchor`) and gets a pair with every solid row whose reach box meets its own, grown as
    `widen` grows it, layers, masks and ``filter_pair`` allowing, that it does not pair with
    already. A few such rows look in turn (`look_beyond`); many (all solid) at once, all
    anchored first: one sweep of cells over the solid rows' reach boxes (not the index: the
    same pairs with an index or without) takes each pair once, and the pairs are added by
    the row that widens (the first of the two if both do: it would look first), rows in
    ascending order, each row's pairs in ascending rows.

    The sweep: cells as large as the rows' grown reach boxes (but a few times their mean
    size: the rows larger than that, the big ones, are met with every other), each row in
    the cell of its box's low corner, the rows sorted by cell; a row meets rows in its own
    cell and the next one, and in the three cells above, and no others."""
    cdef int i, nw = 0, nsolid = 0, nsmall = 0, r, s, last, sb
    cdef unsigned int wgen
    cdef bint solid_all = True, ok = True
    cdef double side = 0.0, mean = 0.0, e, g, inv
    cdef int* rows = c.stack    # (free until the slide)
    cdef Reach* w
    cdef int64_t cx, cy, cx0 = 0, cy0 = 0, cx1 = 0, cy1 = 0, width = 0
    cdef uint64_t k, hi
    cdef Py_ssize_t t, u, a, ncand = 0, cap = 0
    cdef uint64_t* okey = NULL      # the small items' cells, ascending
    cdef int64_t* oval = NULL
    cdef Item* items = NULL
    cdef uint64_t* cand = NULL
    cdef Buf tmp
    tmp.p = NULL
    tmp.cap = 0
    sb = bits_for(<uint64_t> c.n)
    for t in range(nmoved if moved != NULL else live_n(c)):
        i = moved[t] if moved != NULL else live_row(c, <int> t)
        if (c.rows.kind[i] != STATIC
                and reach_needed(c, i) > c.reach[i].covered + SWEEP_MARGIN):
            rows[nw] = i
            nw += 1
            solid_all = solid_all and c.reach[i].solid
    if nw == 0:
        return 0
    if moved != NULL:  # (the live rows are ascending but for the sleepers after them, which
        sort_ints(rows, nw)  # never widen)
    wgen = new_mark(c)  # the rows that widen, marked
    for i in range(nw):
        r = rows[i]
        anchor(c, r)
        c.mark[r] = wgen
        c.widened += 1
    if c.index != NULL:  # (every reach grown before the first look-up)
        for i in range(nw):
            note_grown(c, rows[i])
    if nw < BATCH_MIN or nw * BATCH_SHARE < c.n or not solid_all:
        for i in range(nw):
            look_beyond(c, rows[i])
        return 0
    # the cells' side: the largest grown reach box up to BIG_SIDE times their mean
    ensure_all(c)
    for i in range(c.n):
        if c.reach[i].solid:
            nsolid += 1
            mean += item_side(&c.reach[i])
    mean = BIG_SIDE * mean / nsolid
    for i in range(c.n):
        if c.reach[i].solid:
            e = item_side(&c.reach[i])
            if e <= mean and e > side:
                side = e
    side *= 1.0 + 1e-9   # (two low corners a side apart are in neighbouring cells)
    if not (side > 0.0 and side < INFINITY):
        for i in range(nw):  # (boxes not finite: each looks on its own)
            look_beyond(c, rows[i])
        return 0
    inv = 1.0 / side
    for i in range(c.n):
        w = &c.reach[i]
        if w.solid and item_side(w) <= side:
            g = w.covered + SWEEP_MARGIN
            cx = <int64_t> floor((w.x0 - g) * inv)
            cy = <int64_t> floor((w.y0 - g) * inv)
            if nsmall == 0:
                cx0, cy0, cx1, cy1 = cx, cy, cx, cy
            cx0 = cx if cx < cx0 else cx0
            cy0 = cy if cy < cy0 else cy0
            cx1 = cx if cx > cx1 else cx1
            cy1 = cy if cy > cy1 else cy1
            nsmall += 1
    width = cx1 - cx0 + 1
    if nsmall and (<double> width) * (<double> (cy1 - cy0 + 1)) > 1e18:
        for i in range(nw):  # (cells too many to number: each looks on its own)
            look_beyond(c, rows[i])
        return 0
    try:
        items = <Item*> malloc((nsolid + 1) * sizeof(Item))
        okey = <uint64_t*> malloc((nsolid + 1) * sizeof(uint64_t))
        oval = <int64_t*> malloc((nsolid + 1) * sizeof(int64_t))
        if items == NULL or okey == NULL or oval == NULL:
            ok = False
        # the small items sorted by cell, the big ones after them, ascending
        u = 0
        a = nsmall
        for i in range(c.n if ok else 0):
            w = &c.reach[i]
            if not w.solid:
                continue
            if item_side(w) <= side:
                g = w.covered + SWEEP_MARGIN
                okey[u] = <uint64_t> ((<int64_t> floor((w.y0 - g) * inv) - cy0) * width
                                      + (<int64_t> floor((w.x0 - g) * inv) - cx0))
                oval[u] = i
                u += 1
            else:
                oval[a] = i
                a += 1
        if ok and sort_keys(okey, oval, nsmall, &tmp) < 0:
            ok = False
        for t in range(nsolid if ok else 0):
            if t + FETCH_AHEAD < nsolid:  # (rows in cell order are far apart in memory)
                i = <int> oval[t + FETCH_AHEAD]
                prefetch(&c.reach[i])
                prefetch(&c.rows.layer[i])
                prefetch(&c.rows.mask[i])
                prefetch(&c.mark[i])
            i = <int> oval[t]
            w = &c.reach[i]
            items[t].x0 = w.x0
            items[t].y0 = w.y0
            items[t].x1 = w.x1
            items[t].y1 = w.y1
            items[t].cov = w.covered
            items[t].layer = c.rows.layer[i]
            items[t].mask = c.rows.mask[i]
            items[t].row = i
            items[t].widens = c.mark[i] == wgen
        # the sweep: each small item against the rest of its cell and the next, and the
        # three cells above (a: the first item at or after the first of those)
        a = 0
        for t in range(nsmall if ok else 0):
            k = okey[t]
            cx = <int64_t> (k % <uint64_t> width)
            if not room(&cand, &cap, ncand + 64):
                ok = False
                break
            hi = k + 1 if cx + 1 < width else k
            u = t + 1
            while u < nsmall and okey[u] <= hi:
                if ncand + 1 > cap and not room(&cand, &cap, ncand + 1):
                    ok = False
                    break
                batch_pair(&items[t], &items[u], sb, cand, &ncand)
                u += 1
            k = k + <uint64_t> width - (1 if cx > 0 else 0)
            hi = k + (1 if cx > 0 else 0) + (1 if cx + 1 < width else 0)
            while a < nsmall and okey[a] < k:
                a += 1
            u = a
            while ok and u < nsmall and okey[u] <= hi:
                if ncand + 1 > cap and not room(&cand, &cap, ncand + 1):
                    ok = False
                    break
                batch_pair(&items[t], &items[u], sb, cand, &ncand)
                u += 1
            if not ok:
                break
        for t in range(nsmall, nsolid if ok else nsmall):
            if not room(&cand, &cap, ncand + t):  # (at most every item before it)
                ok = False
                break
            for u in range(nsmall, t):
                batch_pair(&items[t], &items[u], sb, cand, &ncand)
            big_pairs(items, okey, nsmall, t, inv, cx0, cy0, width, cy1 - cy0 + 1, sb, cand,
                      &ncand)
        if ok and sort_keys(cand, NULL, ncand, &tmp) < 0:
            ok = False
        if not ok:
            with gil:
                raise MemoryError()
        # the pairs, by the row that widens
        last = -1
        for t in range(ncand):
            r = <int> (cand[t] >> sb)
            s = <int> (cand[t] & ((1ULL << sb) - 1))
            if r != last:
                mark_partners(c, r)
                last = r
            if c.mark[s] != c.mgen:
                add_beyond(c, r, s)
    finally:
        free(items)
        free(okey)
        free(oval)
        free(cand)
        buf_free(&tmp)
    return 0
