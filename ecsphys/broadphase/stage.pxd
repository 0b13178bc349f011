# The broadphase stage's step, compiled (see stage.pyx for the guarantees): what the compiled
# step (`systems/step.pyx`) calls and reads.

cimport cython
from libc.stdint cimport int64_t, uint64_t

from .boxindex cimport Buf
from ..geometry.shape_data cimport Store
from ..state.table_view cimport Rows


cdef inline uint64_t pair_key(const int64_t* entity, int64_t a, int64_t b) noexcept nogil:
    """The sort key of the pair of rows ``a``, ``b`` (entity ids below 2**32): ordered like
    ``(entity[a], entity[b])``, the order of the stage's pairs."""
    return (<uint64_t> entity[a] << 32) | <uint64_t> entity[b]


@cython.final
cdef class Stage:
    cdef object _dyn_arr
    cdef object _srow_arr
    cdef const int64_t[::1] dyn
    cdef const int64_t[::1] srow
    cdef object _lo_arr
    cdef object _hi_arr
    cdef double[:, ::1] lo
    cdef double[:, ::1] hi
    cdef Buf b_key
    cdef Buf b_val
    cdef Buf b_sa
    cdef Buf b_tmp
    cdef Rows rows      # the table's columns (taken each run)
    cdef Store store
    # the last run's pairs (rows a, b; npairs of them) and its box pairs before the layers
    cdef Buf b_ra
    cdef Buf b_rb
    cdef int64_t* pa
    cdef int64_t* pb
    cdef readonly Py_ssize_t npairs
    cdef readonly Py_ssize_t box_pairs
    cdef readonly Py_ssize_t version  # moves with each run and each set_pairs

    cdef bint _near_edges(self, int64_t tile_row, Py_ssize_t k) noexcept nogil
    cdef void _swept(self, Py_ssize_t k, double offset) noexcept nogil
    cdef bint _passes(self, int64_t a, int64_t b) noexcept nogil
    cdef Py_ssize_t _statics(self, const int64_t* sk, const int64_t* sl, Py_ssize_t ns,
                             bint check) noexcept nogil
    cdef Py_ssize_t _count(self, const int64_t* di, const int64_t* dj,
                           Py_ssize_t nd) noexcept nogil
    cdef Py_ssize_t _merge2(self, const int64_t* di, const int64_t* dj, Py_ssize_t nd,
                            Py_ssize_t cs, bint check, const int64_t* ta, const int64_t* tb,
                            int64_t* ra, int64_t* rb) noexcept nogil
    cdef int run_c(self, object index, object table, double contact_offset,
                   bint check_layers, const Rows* rows, const Store* store) except -1
