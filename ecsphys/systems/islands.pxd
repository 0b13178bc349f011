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


# A sleeping island's rows as a circular doubly linked list (the table's ``island_next`` and
# ``island_prev`` columns; -1 for an awake row): a wake walks its island, not every row.
# Made and joined here; a row leaving or moving is followed by `state.body_table` (Python).

cdef inline void island_alone(int* nxt, int* prv, int a) noexcept nogil:
    """Row ``a`` starts a list of its own."""
    nxt[a] = a
    prv[a] = a


cdef inline void island_splice(int* nxt, int* prv, int a, int b) noexcept nogil:
    """Join the lists of rows ``a`` and ``b`` into one (they must be two lists: splicing a
    list with itself splits it)."""
    cdef int an = nxt[a], bn = nxt[b]
    nxt[a] = bn
    prv[bn] = a
    nxt[b] = an
    prv[an] = b
