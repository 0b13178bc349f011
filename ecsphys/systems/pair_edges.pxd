# The slide's pairs and their edges (see pair_edges.pyx for the guarantees).

from libc.stdint cimport int64_t

from .slide_context cimport Ctx


cdef int add_pair(Ctx* c, int64_t a, int64_t b, double toi) except -1 nogil


cdef void build_edges(Ctx* c, const int64_t* a, const int64_t* b) noexcept nogil
