# cython: embedsignature=True
"""Each candidate pair's first impact of the step, kept in C memory from the response to the
narrowphase.

Guarantees: an `Impacts` holds, per pair of the step (in the order of the pair lists the
response was given, then the pairs it found beyond the broadphase's boxes), the time of the
pair's first impact in [0, 1] of the step's move (``inf``: none), its approach speed, normal
(from the pair's first row to its second) and point. The response fills it in place each step
(it is reused: read it within the step, or take `arrays`, which are copies); no NumPy array
is made unless `arrays` is called.
"""


from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from ..state.carray cimport new_array

cimport numpy as cnp

cnp.import_array()


cdef class Impacts:
    """Per pair: time of impact, approach speed, normal and point (see the module notes)."""

    def __cinit__(self):
        self.n = 0
        self.cap = 0
        self.toi = NULL

    def __dealloc__(self):
        free(self.toi)

    cdef void _take(self, double* p, Py_ssize_t cap) noexcept:
        """Hold ``p``, room for ``cap`` pairs laid out as the columns (toi, speed, normal,
        point), in place of the block held so far (freed)."""
        free(self.toi)
        self.toi = p
        self.speed = p + cap
        self.normal = p + 2 * cap
        self.point = p + 4 * cap
        self.cap = cap

    cdef int reserve(self, Py_ssize_t n) except -1:
        """Room for ``n`` pairs (what was there is dropped when it grows); sets ``n``."""
        cdef Py_ssize_t cap
        cdef double* p
        if n > self.cap:
            cap = max(n, 2 * self.cap, 64)
            p = <double*> malloc(cap * 6 * sizeof(double))
            if p == NULL:
                raise MemoryError(f"impacts: cannot hold {cap} pairs")
            self._take(p, cap)
        self.n = n
        return 0

    cdef int room(self, Py_ssize_t cap) except -1:
        """Room for ``cap`` pairs, keeping the ``n`` held, its memory written once (so a step
        that first fills it does not wait for the system to map its pages in)."""
        cdef double* p
        if cap <= self.cap:
            return 0
        p = <double*> malloc(cap * 6 * sizeof(double))
        if p == NULL:
            raise MemoryError(f"impacts: cannot hold {cap} pairs")
        # (all bits set, not zeros: a compiler may turn malloc and a memset of zeros into
        # calloc, which writes nothing, and the pages would be mapped in by the step again)
        memset(p, 0xff, cap * 6 * sizeof(double))
        if self.n:
            memcpy(p, self.toi, self.n * sizeof(double))
            memcpy(p + cap, self.speed, self.n * sizeof(double))
            memcpy(p + 2 * cap, self.normal, 2 * self.n * sizeof(double))
            memcpy(p + 4 * cap, self.point, 2 * self.n * sizeof(double))
        self._take(p, cap)
        return 0

    def arrays(self, Py_ssize_t start=0):
        """``(toi, speed, normal, point)`` of the pairs from ``start`` on, as fresh arrays."""
        cdef Py_ssize_t k = self.n - start if 0 <= start < self.n else 0
        toi = new_array(k, -1, b'f')
        speed = new_array(k, -1, b'f')
        normal = new_array(k, 2, b'f')
        point = new_array(k, 2, b'f')
        if k:
            memcpy(cnp.PyArray_DATA(<cnp.ndarray> toi), self.toi + start, k * sizeof(double))
            memcpy(cnp.PyArray_DATA(<cnp.ndarray> speed), self.speed + start,
                   k * sizeof(double))
            memcpy(cnp.PyArray_DATA(<cnp.ndarray> normal), self.normal + 2 * start,
                   2 * k * sizeof(double))
            memcpy(cnp.PyArray_DATA(<cnp.ndarray> point), self.point + 2 * start,
                   2 * k * sizeof(double))
        return toi, speed, normal, point
