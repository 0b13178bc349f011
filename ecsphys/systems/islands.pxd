# Islands of rows linked by contacts (compiled): see islands.pyx for the guarantees.
from libc.stdint cimport int64_t


cdef inline int root_of(int* parent, int r) noexcept nogil:
    """The root of row r's island (path halving on the way)."""
    while parent[r] != r:
        parent[r] = parent[parent[r]]
        r = parent[r]
    return r


cdef void find_islands(int n, const int64_t* a, const int64_t* b, Py_ssize_t m,
                       const unsigned char* links, int* parent) noexcept nogil
