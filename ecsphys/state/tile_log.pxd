# The C-level face of a tile map's tiles and the log of their changes (tile_log.pyx): what
# the shape store's compiled copy of a map (geometry/tile_edges.pyx) reads directly.

from libc.stdint cimport int32_t


cdef class TileLog:
    #: the tiles' kinds, (rows, cols) int32, row 0 on top (0 empty); ``tiles`` is its data
    cdef readonly object kinds
    cdef int32_t* tiles
    cdef readonly int rows, cols
    #: how many changes so far, and the version the log starts after: ``log[i]`` is the tile
    #: (``row * cols + col``) of change ``base + i + 1``, for i below ``version - base``
    cdef readonly Py_ssize_t version, base
    cdef int32_t* log
    cdef Py_ssize_t cap, limit

    cdef bint _set(self, key, kind) except -1
    cdef long _get(self, key) except -2
    cdef int _write(self, Py_ssize_t row, Py_ssize_t col, int32_t kind) except -1
    cdef bint _box(self, Py_ssize_t since, Py_ssize_t most, Py_ssize_t* box) noexcept
    cdef bint _region(self, Py_ssize_t since, Py_ssize_t most, double tile_size, double ox,
                      double oy, double* out) noexcept
