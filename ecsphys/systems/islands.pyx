# cython: embedsignature=True
"""Islands: the groups of bodies linked by contacts, for sleeping (a group sleeps together).

Guarantees:
- `find_islands` joins the rows of every pair whose two rows both link (``links[r]`` non-zero)
  with a union-find over the pairs in the order given (path halving); afterwards
  ``root_of(parent, r)`` is the smallest row of r's island, so the answer does not depend on
  the order of the pairs or on which row of a pair comes first: the same bits in any process;
- a row that does not link (a static body, one of infinite mass, a sensor's side: the caller
  decides) is an island of its own and joins nothing, so two bodies resting on the same floor
  are two islands;
- it runs in O(n + m α(n)) over n rows and m pairs, without the GIL and without allocating;
  the ``def`` entry `islands` checks its arguments (a pair row outside ``[0, n)`` raises
  ValueError naming it) before anything runs;
- a sleeping island's rows form a circular doubly linked list in the table's
  ``island_next`` / ``island_prev`` columns (-1 for a row awake), made by `islands.pxd`'s
  inline operations (a row alone, two lists spliced) and followed by the body table as rows
  leave or move, so waking
  an island walks its rows and nothing else; `check_lists` tells whether the lists are
  exactly the groups of the ``island`` column (tests).
"""

import numpy as np

from libc.stdint cimport int64_t

from ..state.carray cimport as_c, c_array, new_array

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API


cdef void find_islands(int n, const int64_t* a, const int64_t* b, Py_ssize_t m,
                       const unsigned char* links, int* parent) noexcept nogil:
    """Fill ``parent`` (n rows) so that `root_of` gives each row's island: the smallest row
    linked to it through pairs ``a``, ``b`` (``m`` of them, rows in ``[0, n)``) whose rows both
    link."""
    cdef int r, x, y
    cdef Py_ssize_t k
    for r in range(n):
        parent[r] = r
    for k in range(m):
        x = <int> a[k]
        y = <int> b[k]
        if not links[x] or not links[y]:
            continue
        x = root_of(parent, x)
        y = root_of(parent, y)
        if x < y:  # the smaller row stays the root
            parent[y] = x
        elif y < x:
            parent[x] = y


def islands(int n, ra, rb, links):
    """Each row's island as the smallest row in it (an int64 array of ``n``): rows joined
    through the pairs ``(ra[k], rb[k])`` whose two rows both have ``links`` set (``links``:
    ``n`` bools or uint8). ValueError for pair lists of different lengths, a ``links`` of
    another length, or a pair row outside ``[0, n)``."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    ra_ = as_c(ra, b'i')
    rb_ = as_c(rb, b'i')
    links_ = as_c(np.asarray(links, dtype=np.bool_), b'b')
    cdef Py_ssize_t m, mb, nl, k
    cdef const int64_t* a = <const int64_t*> c_array(ra_, b'i', &m)
    cdef const int64_t* b = <const int64_t*> c_array(rb_, b'i', &mb)
    cdef const unsigned char* lk = <const unsigned char*> c_array(links_, b'b', &nl)
    if m != mb:
        raise ValueError(f"ra and rb must have the same length, got {m} and {mb}")
    if nl != n:
        raise ValueError(f"links must hold one flag per row ({n}), got {nl}")
    for k in range(m):
        if not (0 <= a[k] < n and 0 <= b[k] < n):
            raise ValueError(f"pair {k}: rows ({a[k]}, {b[k]}) outside [0, {n})")
    out = new_array(n, -1, b'i')
    cdef Py_ssize_t unused
    cdef int64_t* o = <int64_t*> c_array(out, b'i', &unused)
    parent_ = np.empty(max(n, 1), dtype=np.intc)
    cdef int[::1] parent = parent_
    cdef int r
    with nogil:
        find_islands(n, a, b, m, lk, &parent[0])
        for r in range(n):
            o[r] = root_of(&parent[0], r)
    return out


def check_lists(table) -> str:
    """'' when the table's island lists are exactly its islands (every sleeper in one
    circular list with the rows of its ``island`` id and no other; every awake row in none,
    its links -1), else what is wrong first (a test's invariant)."""
    cdef Py_ssize_t n = table.n
    cdef Py_ssize_t r, steps
    cdef int x
    nxt = table.island_next
    prv = table.island_prev
    island = table.island
    asleep = table.asleep
    seen = np.zeros(max(n, 1), dtype=np.bool_)
    for r in range(n):
        if not asleep[r]:
            if nxt[r] != -1 or prv[r] != -1 or island[r] != -1:
                return f"awake row {r}: links {nxt[r]}, {prv[r]}, island {island[r]}"
            continue
        if seen[r]:
            continue
        members = set()
        x = <int> r
        steps = 0
        while True:
            if not (0 <= x < n):
                return f"row {r}'s list reaches row {x}, outside [0, {n})"
            if prv[nxt[x]] != x:
                return f"row {x}: next {nxt[x]} has previous {prv[nxt[x]]}"
            if island[x] != island[r] or not asleep[x]:
                return f"row {x} in row {r}'s list: island {island[x]}, not {island[r]}"
            members.add(x)
            seen[x] = True
            x = nxt[x]
            steps += 1
            if x == r:
                break
            if steps > n:
                return f"row {r}'s list does not come back to it"
        same = set(np.flatnonzero((island[:n] == island[r]) & (asleep[:n] != 0)).tolist())
        if same != members:
            return f"island {island[r]}: rows {sorted(same)}, list {sorted(members)}"
    return ""
