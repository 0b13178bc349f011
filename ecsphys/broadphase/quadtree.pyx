# Quad tree broadphase, compiled: boxes pushed down a region quad tree to its leaves, pairs
# within leaves.
#
# Guarantees:
# - Exact: every overlapping (closed-box) dynamic-dynamic pair with di < dj and every
#   overlapping dynamic-static pair, each once, sorted lexicographically, fresh int64 arrays.
# - A real quad tree: a node holding more than `capacity` boxes splits into four quadrants at
#   the centre of its bounds, down to `max_depth`. A box goes into every child it touches (left
#   if lo_x < mid, right if hi_x >= mid; same for y), so boxes live in leaves only. A pair met
#   in several shared leaves is reported only from the leaf whose region holds the lower-left
#   corner of the pair's intersection (the reference-point rule), so each pair comes out once.
# - Memory is bounded: a node splits only if that duplicates at most half of its boxes (many
#   boxes spanning the centre stop the split), so copies grow at most 1.5x per level.
# - One compiled call per query (no GIL, no Python inside): the dynamic tree is rebuilt on
#   every query into buffers kept from call to call; the static tree is built once per
#   set_static (and only then: no single-box updates, so the physics' broadphase stage calls
#   set_static again when a static changes), and a query walks each dynamic box down it;
#   `find` walks a box down both trees with the same reference-point rule.
# - Typically slower than Grid; it adapts to very uneven densities without a cell size.

from libc.math cimport INFINITY
from libc.stdint cimport int64_t

from .boxindex cimport (
    FOUND_DYNAMIC,
    FOUND_STATIC,
    BoxIndex,
    Buf,
    PairList,
    buf_free,
    buf_keep,
    buf_reserve,
    overlap,
    pack_boxes,
    pl_push,
    sort_pairs,
)

import numpy as np

from .base import as_boxes

__all__ = ["QuadTree"]


cdef struct QNode:
    double bx0         # bounds: the split point is their centre
    double bx1
    double by0
    double by1
    double rx0         # region [rx0, rx1) x [ry0, ry1) for the reference-point rule
    double rx1
    double ry0
    double ry1
    double mx
    double my
    int64_t child      # first of four children (quadrant q = 2 * top + right), -1: a leaf
    int64_t i0         # items i0 .. i1 - 1 (box ids in the items buffer)
    int64_t i1
    int depth


cdef struct Tree:
    QNode* node
    int64_t nnode
    int64_t* item
    int depth


cdef inline int quadrants(const double* b, double mx, double my) noexcept nogil:
    """Bit q set when the box touches quadrant q (q = 2 * top + right)."""
    cdef int left = b[0] < mx, right = b[2] >= mx, bottom = b[1] < my, top = b[3] >= my
    return ((left & bottom) | ((right & bottom) << 1) | ((left & top) << 2)
            | ((right & top) << 3))


cdef inline bint in_region(const QNode* nd, double x, double y) noexcept nogil:
    return nd.rx0 <= x and x < nd.rx1 and nd.ry0 <= y and y < nd.ry1


cdef int build(const double* box, Py_ssize_t n, int capacity, int max_depth, Buf* nodes,
               Buf* items, Tree* tree) noexcept nogil:
    """Build the tree of the ``n`` packed boxes into ``nodes`` / ``items`` (kept buffers)."""
    cdef QNode* nd
    cdef QNode* ch
    cdef int64_t* it
    cdef int64_t k = 0, nn = 1, used, t, i, c, base
    cdef int64_t cnt[4]
    cdef int64_t pos[4]
    cdef double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY
    cdef int q, bits, depth = 0
    it = <int64_t*>buf_keep(items, (n + 16) * sizeof(int64_t))
    nd = <QNode*>buf_keep(nodes, 64 * sizeof(QNode))
    if it == NULL or nd == NULL:
        return -1
    for i in range(n):
        it[i] = i
        if box[4 * i] < x0:
            x0 = box[4 * i]
        if box[4 * i + 2] > x1:
            x1 = box[4 * i + 2]
        if box[4 * i + 1] < y0:
            y0 = box[4 * i + 1]
        if box[4 * i + 3] > y1:
            y1 = box[4 * i + 3]
    used = n
    nd[0].bx0 = x0
    nd[0].bx1 = x1
    nd[0].by0 = y0
    nd[0].by1 = y1
    nd[0].rx0 = -INFINITY
    nd[0].rx1 = INFINITY
    nd[0].ry0 = -INFINITY
    nd[0].ry1 = INFINITY
    nd[0].i0 = 0
    nd[0].i1 = n
    nd[0].depth = 0
    while k < nn:  # nodes in creation (breadth-first) order
        nd = <QNode*>nodes.p
        nd = nd + k
        nd.mx = (nd.bx0 + nd.bx1) * 0.5
        nd.my = (nd.by0 + nd.by1) * 0.5
        nd.child = -1
        if nd.depth > depth:
            depth = nd.depth
        if nd.i1 - nd.i0 > capacity and nd.depth < max_depth:
            it = <int64_t*>items.p
            cnt[0] = cnt[1] = cnt[2] = cnt[3] = 0
            for t in range(nd.i0, nd.i1):
                bits = quadrants(box + 4 * it[t], nd.mx, nd.my)
                cnt[0] += bits & 1
                cnt[1] += (bits >> 1) & 1
                cnt[2] += (bits >> 2) & 1
                cnt[3] += (bits >> 3) & 1
            c = cnt[0] + cnt[1] + cnt[2] + cnt[3]
            if 2 * c <= 3 * (nd.i1 - nd.i0):
                # split: the children's items go at the end of the items buffer
                if buf_keep(items, (used + c) * sizeof(int64_t)) == NULL:
                    return -1
                if buf_keep(nodes, (nn + 4) * sizeof(QNode)) == NULL:
                    return -1
                it = <int64_t*>items.p
                nd = (<QNode*>nodes.p) + k
                base = used
                for q in range(4):
                    pos[q] = base
                    ch = (<QNode*>nodes.p) + nn + q
                    ch.i0 = base
                    ch.i1 = base + cnt[q]
                    ch.depth = nd.depth + 1
                    if q & 1:
                        ch.bx0 = nd.mx
                        ch.bx1 = nd.bx1
                        ch.rx0 = nd.mx
                        ch.rx1 = nd.rx1
                    else:
                        ch.bx0 = nd.bx0
                        ch.bx1 = nd.mx
                        ch.rx0 = nd.rx0
                        ch.rx1 = nd.mx
                    if q & 2:
                        ch.by0 = nd.my
                        ch.by1 = nd.by1
                        ch.ry0 = nd.my
                        ch.ry1 = nd.ry1
                    else:
                        ch.by0 = nd.by0
                        ch.by1 = nd.my
                        ch.ry0 = nd.ry0
                        ch.ry1 = nd.my
                    base += cnt[q]
                for t in range(nd.i0, nd.i1):
                    i = it[t]
                    bits = quadrants(box + 4 * i, nd.mx, nd.my)
                    for q in range(4):
                        if (bits >> q) & 1:
                            it[pos[q]] = i
                            pos[q] += 1
                nd.child = nn
                nn += 4
                used += c
        k += 1
    tree.node = <QNode*>nodes.p
    tree.nnode = nn
    tree.item = <int64_t*>items.p
    tree.depth = depth
    return 0


cdef class QuadTree(BoxIndex):
    """Region quad tree broadphase (node ``capacity``, ``max_depth``)."""

    cdef readonly int capacity
    cdef readonly int max_depth
    cdef Buf b_box
    cdef Buf b_nodes
    cdef Buf b_items
    cdef Buf s_nodes
    cdef Buf s_items
    cdef Buf b_stack
    cdef Tree st
    cdef Tree dt        # the dynamic tree of the last run (when it had two boxes or more)
    cdef object _sbox_arr
    cdef const double* s_box
    cdef Py_ssize_t m

    def __init__(self, capacity=8, max_depth=10):
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity!r}")
        if max_depth < 0:
            raise ValueError(f"max_depth must be non-negative, got {max_depth!r}")
        self.capacity = int(capacity)
        self.max_depth = int(max_depth)
        self.rebuilds = 0
        self.m = 0

    def __dealloc__(self):
        buf_free(&self.b_box)
        buf_free(&self.b_nodes)
        buf_free(&self.b_items)
        buf_free(&self.s_nodes)
        buf_free(&self.s_items)
        buf_free(&self.b_stack)

    def set_static(self, lo, hi):
        """Build the static quad tree (ids ``0..m-1``); increments ``rebuilds``."""
        lo, hi = as_boxes(lo, hi)
        self.rebuilds += 1
        m = lo.shape[0]
        box = np.ascontiguousarray(np.concatenate((lo, hi), axis=1)) if m else np.zeros((1, 4))
        cdef const double[:, ::1] v = box
        cdef int r = 0
        cdef Py_ssize_t cm = m
        self._sbox_arr = box
        self.s_box = &v[0, 0]
        self.m = m
        if cm:
            with nogil:
                r = build(self.s_box, cm, self.capacity, self.max_depth, &self.s_nodes,
                          &self.s_items, &self.st)
            if r < 0:
                raise MemoryError("quad tree: out of memory")

    cdef int _dynamic(self, const double* box, Py_ssize_t n) noexcept nogil:
        cdef Tree tr
        cdef Py_ssize_t k, s, t
        cdef const QNode* nd
        cdef const double* pa
        cdef const double* pb
        cdef int64_t a, b
        cdef double x, y
        if build(box, n, self.capacity, self.max_depth, &self.b_nodes, &self.b_items,
                 &tr) < 0:
            return -1
        self.dt = tr
        for k in range(tr.nnode):
            nd = tr.node + k
            if nd.child >= 0:
                continue
            s = nd.i1 - nd.i0
            self.last_candidates = self.last_candidates + s * (s - 1) // 2
            for s in range(nd.i0, nd.i1):
                a = tr.item[s]
                pa = box + 4 * a
                for t in range(s + 1, nd.i1):
                    b = tr.item[t]
                    pb = box + 4 * b
                    if overlap(pa, pb):
                        x = pa[0] if pa[0] > pb[0] else pb[0]
                        y = pa[1] if pa[1] > pb[1] else pb[1]
                        if in_region(nd, x, y):
                            if pl_push(&self.dd, a if a < b else b, b if a < b else a) < 0:
                                return -1
        return sort_pairs(&self.dd, &self.spare, n, &self.b_keys, &self.b_tmp)

    cdef int _walk(self, const Tree* tr, const double* boxes, const double* q, int64_t qid,
                   PairList* out, bint found) noexcept nogil:
        """Push the boxes of tree ``tr`` (packed in ``boxes``) overlapping box ``q``, each once
        (from the leaf whose region holds the intersection's lower-left corner):
        ``(qid, box id)``, or ``(box id, qid)`` when ``found``."""
        cdef Py_ssize_t t
        cdef int64_t top, k, l
        cdef int qd, bits
        cdef const QNode* nd
        cdef const double* ps
        cdef double x, y
        cdef int64_t* stack = <int64_t*>buf_reserve(
            &self.b_stack, (4 * (tr.depth + 2)) * sizeof(int64_t))
        if stack == NULL:
            return -1
        stack[0] = 0
        top = 1
        while top:
            top -= 1
            k = stack[top]
            nd = tr.node + k
            if nd.child >= 0:
                bits = quadrants(q, nd.mx, nd.my)
                for qd in range(4):
                    if (bits >> qd) & 1:
                        stack[top] = nd.child + qd
                        top += 1
                continue
            for t in range(nd.i0, nd.i1):
                l = tr.item[t]
                ps = boxes + 4 * l
                if overlap(q, ps):
                    x = q[0] if q[0] > ps[0] else ps[0]
                    y = q[1] if q[1] > ps[1] else ps[1]
                    if in_region(nd, x, y):
                        if pl_push(out, l if found else qid, qid if found else l) < 0:
                            return -1
        return 0

    cdef int _static(self, const double* box, Py_ssize_t n) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(n):
            if self._walk(&self.st, self.s_box, box + 4 * i, i, &self.ds, False) < 0:
                return -1
        return sort_pairs(&self.ds, &self.spare, self.m, &self.b_keys, &self.b_tmp)

    cdef int find(self, const double* q, PairList* out) noexcept nogil:
        cdef const double* box = <const double*>self.b_box.p
        if self.n_last == 1:
            if overlap(q, box) and pl_push(out, 0, FOUND_DYNAMIC) < 0:
                return -1
        elif self.n_last > 1:
            if self._walk(&self.dt, box, q, FOUND_DYNAMIC, out, True) < 0:
                return -1
        if self.m:
            return self._walk(&self.st, self.s_box, q, FOUND_STATIC, out, True)
        return 0

    cdef int run(self, const double* lo, const double* hi, Py_ssize_t n) noexcept nogil:
        cdef double* box
        self.dd.n = 0
        self.ds.n = 0
        self.n_last = n
        self.last_candidates = 0
        if n == 0:
            return 0
        box = <double*>buf_reserve(&self.b_box, 4 * n * sizeof(double))
        if box == NULL:
            return -1
        pack_boxes(lo, hi, n, box)
        if n > 1 and self._dynamic(box, n) < 0:
            return -1
        if self.m and self._static(box, n) < 0:
            return -1
        return 0
