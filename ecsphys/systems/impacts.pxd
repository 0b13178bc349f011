# Each candidate pair's first impact of the step, in C memory: what the response writes and the
# narrowphase reads (see impacts.pyx for the guarantees).

cdef class Impacts:
    cdef readonly Py_ssize_t n      # pairs (the broadphase's, then the response's extra ones)
    cdef Py_ssize_t cap
    cdef double* toi                # time of impact in [0, 1] of the step, inf: none
    cdef double* speed              # approach speed along the normal (units per second)
    cdef double* normal             # 2 per pair, from a to b
    cdef double* point              # 2 per pair

    cdef void _take(self, double* p, Py_ssize_t cap) noexcept
    cdef int reserve(self, Py_ssize_t n) except -1
    cdef int room(self, Py_ssize_t cap) except -1
