# The C side of the compiled broadphases: reusable buffers, pair lists, key sorts, the base type.
#
# Guarantees:
# - a `Buf` is a block of memory kept from call to call: `buf_reserve` returns at least the
#   bytes asked for (contents not kept when it grows), `buf_free` releases it; NULL means out of
#   memory (`buf_keep` grows keeping the contents) and every function here then returns -1 without raising (nogil callers pass it up,
#   the `def` layer raises MemoryError);
# - a `PairList` is a growable list of int64 pairs (a[k], b[k]); `pl_push` appends, keeping
#   what is there;
# - `sort_keys` sorts uint64 keys ascending (stable, with an optional int64 payload), an LSD
#   radix sort of 11-bit digits over the bits the keys use, insertion sort when short;
#   `sort_pairs` sorts a pair list lexicographically for `0 <= a`, `0 <= b < nb` (it may
#   swap the list's arrays with those of `spare`); `lower_bound` finds where a key goes in
#   ascending int64 or uint64 keys (a binary search, inline for either);
# - boxes are packed 4 doubles a box, (lo_x, lo_y, hi_x, hi_y), and closed: `overlap` is
#   `lo_a <= hi_b and lo_b <= hi_a` on both axes;
# - `BoxIndex` is what the grid, the sweep and the quad tree are: `run(lo, hi, n)` (no GIL, no
#   Python) leaves the dynamic-dynamic pairs `dd` (i < j) and the dynamic-static pairs `ds`
#   sorted lexicographically, each pair once; the def `query` wraps it for Python;
# - `find(q, out)` (no GIL, no Python) appends to `out` a pair (id, 0) for every dynamic box of
#   the last `run` and a pair (id, 1) for every static box that overlaps box `q` (closed), each
#   once: the index as the step left it, for the world's queries (`n_last` is how many
#   dynamic boxes the last run had; ids are below it). The def `find_box` wraps it for Python.

from libc.stdint cimport int64_t, uint64_t


cdef struct Buf:
    void* p
    size_t cap


cdef struct PairList:
    int64_t* a
    int64_t* b
    Py_ssize_t n
    Py_ssize_t cap


cdef void* buf_reserve(Buf* b, size_t nbytes) noexcept nogil
cdef void* buf_keep(Buf* b, size_t nbytes) noexcept nogil
cdef void buf_free(Buf* b) noexcept nogil
cdef int pl_grow(PairList* p, Py_ssize_t need) noexcept nogil
cdef void pl_free(PairList* p) noexcept nogil
cdef int sort_keys(uint64_t* key, int64_t* val, Py_ssize_t n, Buf* tmp) noexcept nogil
cdef int sort_pairs(PairList* p, PairList* spare, int64_t nb, Buf* keys,
                    Buf* tmp) noexcept nogil
cdef int bits_for(uint64_t v) noexcept nogil
cdef tuple pair_arrays(PairList* p)


cdef inline int pl_push(PairList* p, int64_t a, int64_t b) noexcept nogil:
    if p.n == p.cap:
        if pl_grow(p, p.n + 1) < 0:
            return -1
    p.a[p.n] = a
    p.b[p.n] = b
    p.n += 1
    return 0


ctypedef fused search_key:
    int64_t
    uint64_t


cdef inline Py_ssize_t lower_bound(const search_key* keys, Py_ssize_t lo, Py_ssize_t hi,
                                   search_key k) noexcept nogil:
    """The first index in ``lo .. hi - 1`` of the ascending ``keys`` whose key is at least
    ``k`` (``hi``: none); int64 or uint64 keys (reach_sweep.pyx searches its uint64 ones)."""
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < k:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline void pack_boxes(const double* lo, const double* hi, Py_ssize_t n,
                            double* box) noexcept nogil:
    """Boxes ``i`` from corners ``lo[2 i:2 i + 2]`` and ``hi[2 i:2 i + 2]`` into ``box`` packed
    (lo_x, lo_y, hi_x, hi_y)."""
    cdef Py_ssize_t i
    for i in range(n):
        box[4 * i] = lo[2 * i]
        box[4 * i + 1] = lo[2 * i + 1]
        box[4 * i + 2] = hi[2 * i]
        box[4 * i + 3] = hi[2 * i + 1]


cdef inline bint overlap(const double* a, const double* b) noexcept nogil:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


cdef enum:
    FOUND_DYNAMIC = 0   # find's second column
    FOUND_STATIC = 1


cdef enum:
    MINMAX = 0      # test_range pushes (min(a, id), max(a, id))
    ID_FIRST = 1    # ... (id, a)
    ID_SECOND = 2   # ... (a, id)


cdef inline int test_range(PairList* out, const double* q, int64_t a, const double* boxes,
                           const int64_t* ids, Py_ssize_t s, Py_ssize_t e,
                           int mode) noexcept nogil:
    """Test box ``q`` (id ``a``) against ``boxes[s:e]`` (ids ``ids[s:e]``) and push each
    overlapping pair as ``mode`` says. Branch-free: every candidate is written, the count
    advances only on an overlap."""
    cdef Py_ssize_t t, k
    cdef int64_t b
    cdef const double* bb
    cdef int ok
    if e <= s:
        return 0
    if out.n + (e - s) > out.cap:
        if pl_grow(out, out.n + (e - s)) < 0:
            return -1
    k = out.n
    for t in range(s, e):
        bb = boxes + 4 * t
        ok = (q[0] <= bb[2]) & (bb[0] <= q[2]) & (q[1] <= bb[3]) & (bb[1] <= q[3])
        b = ids[t]
        if mode == MINMAX:
            out.a[k] = a if a < b else b
            out.b[k] = b if a < b else a
        elif mode == ID_FIRST:
            out.a[k] = b
            out.b[k] = a
        else:
            out.a[k] = a
            out.b[k] = b
        k += ok
    out.n = k
    return 0


cdef class BoxIndex:
    cdef readonly Py_ssize_t rebuilds
    cdef readonly Py_ssize_t last_candidates
    cdef readonly Py_ssize_t n_last
    cdef PairList dd
    cdef PairList ds
    cdef PairList spare
    cdef Buf b_keys
    cdef Buf b_tmp
    cdef int run(self, const double* lo, const double* hi, Py_ssize_t n) noexcept nogil
    cdef int find(self, const double* q, PairList* out) noexcept nogil
