# The C side of the compiled broadphases (see boxindex.pxd for the guarantees): buffers, pair
# lists, radix sorts of keys, input checks and the BoxIndex base type with its `query`.

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

import numpy as np

from .base import as_boxes

cdef enum:
    SHORT = 48  # keys up to this many: insertion sort


cdef void* buf_reserve(Buf* b, size_t nbytes) noexcept nogil:
    cdef size_t cap
    if nbytes <= b.cap and b.p != NULL:
        return b.p
    cap = nbytes + nbytes // 4 + 256
    free(b.p)
    b.p = malloc(cap)
    b.cap = cap if b.p != NULL else 0
    return b.p


cdef void* buf_keep(Buf* b, size_t nbytes) noexcept nogil:
    cdef size_t cap
    cdef void* p
    if nbytes <= b.cap and b.p != NULL:
        return b.p
    cap = nbytes + nbytes // 2 + 256
    p = realloc(b.p, cap)
    if p == NULL:
        return NULL
    b.p = p
    b.cap = cap
    return p


cdef void buf_free(Buf* b) noexcept nogil:
    free(b.p)
    b.p = NULL
    b.cap = 0


cdef int pl_grow(PairList* p, Py_ssize_t need) noexcept nogil:
    cdef Py_ssize_t cap = need + need // 2 + 64
    cdef int64_t* a
    cdef int64_t* b
    if need <= p.cap:
        return 0
    a = <int64_t*>realloc(p.a, cap * sizeof(int64_t))
    if a == NULL:
        return -1
    p.a = a
    b = <int64_t*>realloc(p.b, cap * sizeof(int64_t))
    if b == NULL:
        return -1
    p.b = b
    p.cap = cap
    return 0


cdef void pl_free(PairList* p) noexcept nogil:
    free(p.a)
    free(p.b)
    p.a = NULL
    p.b = NULL
    p.n = 0
    p.cap = 0


cdef int bits_for(uint64_t v) noexcept nogil:
    cdef int b = 0
    while v:
        v >>= 1
        b += 1
    return b


cdef void _insertion(uint64_t* key, int64_t* val, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef uint64_t k
    cdef int64_t v = 0
    for i in range(1, n):
        k = key[i]
        if val != NULL:
            v = val[i]
        j = i - 1
        while j >= 0 and key[j] > k:
            key[j + 1] = key[j]
            if val != NULL:
                val[j + 1] = val[j]
            j -= 1
        key[j + 1] = k
        if val != NULL:
            val[j + 1] = v


cdef int sort_keys(uint64_t* key, int64_t* val, Py_ssize_t n, Buf* tmp) noexcept nogil:
    cdef Py_ssize_t i, o, total
    cdef uint64_t kor = 0
    cdef uint64_t* sk = key
    cdef int64_t* sv = val
    cdef uint64_t* dk
    cdef int64_t* dv = NULL
    cdef uint64_t* t
    cdef int64_t* tv
    cdef Py_ssize_t count[2048]
    cdef int bits, shift = 0, digit
    cdef unsigned int mask, d
    cdef void* mem
    if n < 2:
        return 0
    if n <= SHORT:
        _insertion(key, val, n)
        return 0
    for i in range(n):
        kor |= key[i]
    bits = bits_for(kor)
    digit = 8 if n < 4096 else 11
    mask = (1u << digit) - 1
    mem = buf_reserve(tmp, <size_t>n * (16 if val != NULL else 8))
    if mem == NULL:
        return -1
    dk = <uint64_t*>mem
    if val != NULL:
        dv = <int64_t*>(dk + n)
    while shift < bits:
        memset(count, 0, (mask + 1) * sizeof(Py_ssize_t))
        for i in range(n):
            count[(sk[i] >> shift) & mask] += 1
        if count[(sk[0] >> shift) & mask] == n:  # one digit value: nothing to move
            shift += digit
            continue
        total = 0
        for d in range(mask + 1):
            o = count[d]
            count[d] = total
            total += o
        for i in range(n):
            d = (sk[i] >> shift) & mask
            o = count[d]
            count[d] = o + 1
            dk[o] = sk[i]
            if sv != NULL:
                dv[o] = sv[i]
        t = sk
        sk = dk
        dk = t
        tv = sv
        sv = dv
        dv = tv
        shift += digit
    if sk != key:
        memcpy(key, sk, n * sizeof(uint64_t))
        if val != NULL:
            memcpy(val, sv, n * sizeof(int64_t))
    return 0


cdef int sort_pairs(PairList* p, PairList* spare, int64_t nb, Buf* keys,
                    Buf* tmp) noexcept nogil:
    cdef Py_ssize_t i, n = p.n, s, o
    cdef int shift = bits_for(<uint64_t>(nb - 1)) if nb > 1 else 0
    cdef uint64_t low = ((<uint64_t>1) << shift) - 1
    cdef uint64_t* k
    cdef int64_t* first
    cdef int64_t* nxt
    cdef int64_t* sa
    cdef int64_t* sb
    cdef int64_t amax = 0, x, y
    cdef PairList sw
    if n < 2:
        return 0
    for i in range(n):
        if p.a[i] > amax:
            amax = p.a[i]
    if amax <= 4 * n + 4096:
        # a counting sort by a; each b is put in order within its run of equal a as it
        # arrives (an insertion step: runs are short)
        first = <int64_t*>buf_reserve(tmp, (2 * amax + 3) * sizeof(int64_t))
        if first == NULL or pl_grow(spare, n) < 0:
            return -1
        nxt = first + amax + 1
        sa = spare.a
        sb = spare.b
        memset(nxt, 0, (amax + 2) * sizeof(int64_t))
        for i in range(n):
            nxt[p.a[i] + 1] += 1
        for i in range(1, amax + 2):
            nxt[i] += nxt[i - 1]
        memcpy(first, nxt, (amax + 1) * sizeof(int64_t))
        for i in range(n):
            x = p.a[i]
            y = p.b[i]
            o = nxt[x]
            nxt[x] = o + 1
            sa[o] = x
            s = first[x]
            while o > s and sb[o - 1] > y:
                sb[o] = sb[o - 1]
                o -= 1
            sb[o] = y
        # the sorted pairs are in spare's arrays: swap the two lists
        sw = p[0]
        p[0] = spare[0]
        spare[0] = sw
        p.n = n
        spare.n = 0
        return 0
    k = <uint64_t*>buf_reserve(keys, n * sizeof(uint64_t))
    if k == NULL:
        return -1
    for i in range(n):
        k[i] = ((<uint64_t>p.a[i]) << shift) | <uint64_t>p.b[i]
    if sort_keys(k, NULL, n, tmp) < 0:
        return -1
    for i in range(n):
        p.a[i] = <int64_t>(k[i] >> shift)
        p.b[i] = <int64_t>(k[i] & low)
    return 0


cdef tuple pair_arrays(PairList* p):
    """Two fresh int64 arrays holding the pairs."""
    cdef Py_ssize_t n = p.n
    a = np.empty(n, dtype=np.int64)
    b = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] va = a
    cdef int64_t[::1] vb = b
    if n:
        memcpy(&va[0], p.a, n * sizeof(int64_t))
        memcpy(&vb[0], p.b, n * sizeof(int64_t))
    return a, b


cdef class BoxIndex:
    """Base of the compiled broadphases: ``query`` hands the boxes to the C ``run``."""

    def __dealloc__(self):
        pl_free(&self.dd)
        pl_free(&self.ds)
        pl_free(&self.spare)
        buf_free(&self.b_keys)
        buf_free(&self.b_tmp)

    cdef int run(self, const double* lo, const double* hi, Py_ssize_t n) noexcept nogil:
        self.dd.n = 0
        self.ds.n = 0
        self.n_last = 0
        return 0

    cdef int find(self, const double* q, PairList* out) noexcept nogil:
        return 0

    def find_box(self, lo, hi):
        """``(ids, static)`` of the boxes overlapping the box ``lo``-``hi`` (closed): the
        dynamic boxes of the last ``query`` (``static`` False) and the static boxes (True),
        each once, in no particular order."""
        cdef double q[4]
        cdef PairList out
        cdef int r
        q[0], q[1] = float(lo[0]), float(lo[1])
        q[2], q[3] = float(hi[0]), float(hi[1])
        out.a = NULL
        out.b = NULL
        out.n = 0
        out.cap = 0
        try:
            with nogil:
                r = self.find(q, &out)
            if r < 0:
                raise MemoryError("broadphase: out of memory")
            ids, which = pair_arrays(&out)
        finally:
            pl_free(&out)
        return ids, which.astype(bool)

    def query(self, lo, hi):
        """Return ``(di, dj, sk, sl)`` for the dynamic boxes ``lo, hi`` (ids ``0..n-1``):
        overlapping dynamic pairs ``di < dj`` and dynamic-static pairs, each sorted, fresh."""
        lo, hi = as_boxes(lo, hi)
        cdef const double[:, ::1] vl = lo
        cdef const double[:, ::1] vh = hi
        cdef Py_ssize_t n = vl.shape[0]
        cdef const double* pl = &vl[0, 0] if n else NULL
        cdef const double* ph = &vh[0, 0] if n else NULL
        cdef int r
        with nogil:
            r = self.run(pl, ph, n)
        if r < 0:
            raise MemoryError("broadphase: out of memory")
        di, dj = pair_arrays(&self.dd)
        sk, sl = pair_arrays(&self.ds)
        return di, dj, sk, sl
