# Sort-and-sweep (sweep and prune) broadphase, compiled: boxes sorted by lo_x, pairs from the
# runs of boxes whose x ranges overlap.
#
# Guarantees:
# - Exact: every overlapping (closed-box) dynamic-dynamic pair with di < dj and every
#   overlapping dynamic-static pair, each once, sorted lexicographically, fresh int64 arrays.
# - One compiled call per query (no GIL, no Python inside). Dynamic boxes are sorted by lo_x
#   starting from the previous call's order: an insertion sort of nearly sorted keys in steady
#   state, a radix sort when the order changed a lot (more than 8 moves a box) or on the first
#   call; deleted ids drop out of the kept order and new ids join at its end. Box p is tested
#   against the run of later boxes with lo_x <= hi_x[p]. Any size mix is correct; cost grows
#   with the number of x-overlapping pairs (tall columns of boxes are the bad case).
# - Statics: sorted by lo_x once per set_static (and only then: no single-box updates, so
#   the physics' broadphase stage calls set_static again when a static changes); a dynamic
#   box looks up the statics with lo_x in [its lo_x - widest static (widened by a relative
#   1e-14, so rounding never drops one), its hi_x] by binary search. Statics much wider than
#   typical (over 8x the median width) are kept apart and tested against every dynamic box,
#   so one long floor does not widen every lookup.
# - `find(q)` uses the same sorted boxes: the last run's dynamic boxes with lo_x in [q's lo_x -
#   the widest of them (widened the same way), q's hi_x], and the statics as a dynamic box does.
# - Work memory is kept from call to call and only grows.

from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy

from .boxindex cimport (
    FOUND_DYNAMIC,
    FOUND_STATIC,
    ID_FIRST,
    ID_SECOND,
    MINMAX,
    BoxIndex,
    Buf,
    PairList,
    buf_free,
    buf_keep,
    buf_reserve,
    sort_keys,
    sort_pairs,
    test_range,
)

import numpy as np

from .base import as_boxes, median

__all__ = ["SweepAndPrune"]

cdef double WIDE_FACTOR = 8.0
cdef double MARGIN = 1e-14


cdef inline uint64_t order_bits(double d) noexcept nogil:
    """An unsigned key ordered like the double ``d`` (NaN-free)."""
    cdef uint64_t u
    memcpy(&u, &d, sizeof(uint64_t))
    if u >> 63:
        return ~u
    return u | (<uint64_t>1 << 63)


cdef class SweepAndPrune(BoxIndex):
    """Sort-and-sweep on the x axis for dynamic boxes; a sorted static list for statics."""

    cdef Buf b_ord      # the order kept from the previous call (ids)
    cdef Py_ssize_t n_prev
    cdef Buf b_key
    cdef Buf b_sbox
    cdef Buf b_work
    # statics
    cdef object _keep
    cdef Py_ssize_t m
    cdef Py_ssize_t ns
    cdef Py_ssize_t nw
    cdef double s_maxw
    cdef double d_maxw  # the widest dynamic box of the last run
    cdef const double* s_box
    cdef const int64_t* s_id
    cdef const double* w_box
    cdef const int64_t* w_id

    def __init__(self):
        self.rebuilds = 0
        self.n_prev = 0
        self.set_static_arrays(np.zeros((0, 2)), np.zeros((0, 2)))

    def __dealloc__(self):
        buf_free(&self.b_ord)
        buf_free(&self.b_key)
        buf_free(&self.b_sbox)
        buf_free(&self.b_work)

    def set_static(self, lo, hi):
        """Sort the static boxes (ids ``0..m-1``) by ``lo_x``; increments ``rebuilds``."""
        self.set_static_arrays(*as_boxes(lo, hi))
        self.rebuilds += 1

    def set_static_arrays(self, lo, hi):
        m = lo.shape[0]
        width = hi[:, 0] - lo[:, 0]
        med = float(median(width)) if m else 0.0
        wide = width > WIDE_FACTOR * med if med > 0 else np.zeros(m, dtype=bool)
        wide_ids = np.flatnonzero(wide).astype(np.int64)
        keep = np.flatnonzero(~wide).astype(np.int64)
        order = keep[np.argsort(lo[keep, 0], kind="stable")]
        box = np.concatenate((lo, hi), axis=1)
        s_box = np.ascontiguousarray(box[order]) if order.size else np.zeros((1, 4))
        s_id = order if order.size else np.zeros(1, dtype=np.int64)
        w_box = np.ascontiguousarray(box[wide_ids]) if wide_ids.size else np.zeros((1, 4))
        w_id = wide_ids if wide_ids.size else np.zeros(1, dtype=np.int64)
        self._keep = (s_box, s_id, w_box, w_id)
        cdef const double[:, ::1] v_sbox = s_box
        cdef const int64_t[::1] v_sid = s_id
        cdef const double[:, ::1] v_wbox = w_box
        cdef const int64_t[::1] v_wid = w_id
        self.s_box = &v_sbox[0, 0]
        self.s_id = &v_sid[0]
        self.w_box = &v_wbox[0, 0]
        self.w_id = &v_wid[0]
        self.m = m
        self.ns = order.size
        self.nw = wide_ids.size
        self.s_maxw = float(width[keep].max()) if keep.size else 0.0

    cdef int _sort(self, const double* lo, Py_ssize_t n) noexcept nogil:
        """``b_ord`` (ids) sorted by lo_x, from the previous call's order."""
        cdef int64_t* order = <int64_t*>buf_keep(&self.b_ord, n * sizeof(int64_t) + 8)
        cdef uint64_t* key = <uint64_t*>buf_reserve(&self.b_key, n * sizeof(uint64_t) + 8)
        cdef Py_ssize_t t, j = 0, moves = 0, budget = 8 * n + 64
        cdef int64_t id_
        cdef uint64_t k
        if order == NULL or key == NULL:
            return -1
        for t in range(self.n_prev):  # keep the ids still there, in their order
            if order[t] < n:
                order[j] = order[t]
                j += 1
        for t in range(self.n_prev, n):  # new ids at the end
            order[j] = t
            j += 1
        self.n_prev = n
        for t in range(n):
            key[t] = order_bits(lo[2 * order[t]])
        for t in range(1, n):  # insertion sort, while it stays cheap
            k = key[t]
            id_ = order[t]
            j = t - 1
            while j >= 0 and key[j] > k:
                key[j + 1] = key[j]
                order[j + 1] = order[j]
                j -= 1
                moves += 1
            key[j + 1] = k
            order[j + 1] = id_
            if moves > budget:
                return sort_keys(key, order, n, &self.b_work)
        return 0

    cdef Py_ssize_t _first_at(self, const double* box, Py_ssize_t n, double x) noexcept nogil:
        """The first of ``n`` boxes (sorted by lo_x) whose lo_x is not below ``x``."""
        cdef Py_ssize_t lo_ = 0, hi_ = n, mid
        while lo_ < hi_:
            mid = (lo_ + hi_) >> 1
            if box[4 * mid] < x:
                lo_ = mid + 1
            else:
                hi_ = mid
        return lo_

    cdef inline double _reach(self, double x, double width) noexcept nogil:
        """The lowest lo_x a box of at most ``width`` overlapping x can have, widened by a
        relative 1e-14 so rounding never drops one."""
        return x - width - ((x if x >= 0 else -x) + width) * MARGIN

    cdef int _static_box(self, const double* q, int64_t qid, PairList* out,
                         int mode) noexcept nogil:
        """Test box ``q`` (id ``qid``) against the statics, pushing as ``mode`` says."""
        cdef Py_ssize_t s0, s1
        if self.ns:
            s0 = self._first_at(self.s_box, self.ns, self._reach(q[0], self.s_maxw))
            s1 = s0
            while s1 < self.ns and self.s_box[4 * s1] <= q[2]:
                s1 += 1
            if test_range(out, q, qid, self.s_box, self.s_id, s0, s1, mode) < 0:
                return -1
        if self.nw:
            if test_range(out, q, qid, self.w_box, self.w_id, 0, self.nw, mode) < 0:
                return -1
        return 0

    cdef int find(self, const double* q, PairList* out) noexcept nogil:
        cdef Py_ssize_t s0, s1, n = self.n_last
        cdef const double* sbox = <const double*>self.b_sbox.p
        if n:
            s0 = self._first_at(sbox, n, self._reach(q[0], self.d_maxw))
            s1 = s0
            while s1 < n and sbox[4 * s1] <= q[2]:
                s1 += 1
            if test_range(out, q, FOUND_DYNAMIC, sbox, <const int64_t*>self.b_ord.p, s0, s1,
                          ID_FIRST) < 0:
                return -1
        if self.m:
            return self._static_box(q, FOUND_STATIC, out, ID_FIRST)
        return 0

    cdef int run(self, const double* lo, const double* hi, Py_ssize_t n) noexcept nogil:
        cdef Py_ssize_t p, e, i
        cdef int64_t* order
        cdef double* sbox
        cdef double hx
        self.dd.n = 0
        self.ds.n = 0
        self.n_last = n
        self.last_candidates = 0
        self.d_maxw = 0.0
        if n == 0:
            self.n_prev = 0
            return 0
        if self._sort(lo, n) < 0:
            return -1
        order = <int64_t*>self.b_ord.p
        sbox = <double*>buf_reserve(&self.b_sbox, 4 * n * sizeof(double))
        if sbox == NULL:
            return -1
        for p in range(n):
            i = order[p]
            sbox[4 * p] = lo[2 * i]
            sbox[4 * p + 1] = lo[2 * i + 1]
            sbox[4 * p + 2] = hi[2 * i]
            sbox[4 * p + 3] = hi[2 * i + 1]
            if sbox[4 * p + 2] - sbox[4 * p] > self.d_maxw:
                self.d_maxw = sbox[4 * p + 2] - sbox[4 * p]
        for p in range(n):
            hx = sbox[4 * p + 2]
            e = p + 1
            while e < n and sbox[4 * e] <= hx:
                e += 1
            self.last_candidates = self.last_candidates + e - p - 1
            if test_range(&self.dd, sbox + 4 * p, order[p], sbox, order, p + 1, e, MINMAX) < 0:
                return -1
        if sort_pairs(&self.dd, &self.spare, n, &self.b_keys, &self.b_tmp) < 0:
            return -1
        if self.m == 0:
            return 0
        for p in range(n):
            if self._static_box(sbox + 4 * p, order[p], &self.ds, ID_SECOND) < 0:
                return -1
        return sort_pairs(&self.ds, &self.spare, self.m, &self.b_keys, &self.b_tmp)
