# An ascending sort of ints in place, inline (C values only, no GIL): the one sort of plain
# ints that the tile map's edge keepers (geometry/tile_edges.pyx: changed units and written
# slots; tile_extras.pyx: tiles and piece ids) and the reach look-ups (systems/reach.pyx,
# fixed_cells.pyx, reach_sweep.pyx: rows) share.
#
# Guarantees: `sort_ints(a, n)` leaves a[:n] (int, int32_t or int64_t: `sorted_int`, the
# same code for each) in ascending order: insertion sort when short (n <= 48), else a heap sort; no
# allocation, no comparison callback. Plain ints have one ascending order, so what it
# leaves is what any sort of them leaves.

from libc.stdint cimport int32_t, int64_t

ctypedef fused sorted_int:
    int
    int32_t
    int64_t


cdef inline void sift_down_int(sorted_int* a, Py_ssize_t root, Py_ssize_t k) noexcept nogil:
    """Sift a[root] down the max-heap a[:k]."""
    cdef Py_ssize_t child
    cdef sorted_int v = a[root]
    while True:
        child = 2 * root + 1
        if child >= k:
            break
        if child + 1 < k and a[child + 1] > a[child]:
            child += 1
        if a[child] <= v:
            break
        a[root] = a[child]
        root = child
    a[root] = v


cdef inline void sort_ints(sorted_int* a, Py_ssize_t n) noexcept nogil:
    """Sort ``a[:n]`` ascending (see the module comment)."""
    cdef Py_ssize_t i, j, end
    cdef sorted_int v
    if n <= 48:
        for i in range(1, n):
            v = a[i]
            j = i - 1
            while j >= 0 and a[j] > v:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = v
        return
    for i in range(n // 2 - 1, -1, -1):
        sift_down_int(a, i, n)
    end = n - 1
    while end > 0:
        v = a[0]
        a[0] = a[end]
        a[end] = v
        sift_down_int(a, 0, end)
        end -= 1
