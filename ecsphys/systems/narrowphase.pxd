# Stages 3 and 5 of the step, the exact tests (see narrowphase.pyx for the guarantees): what
# the compiled step (`systems/step.pyx`) calls.

from libc.stdint cimport int64_t

from ..geometry.shape_data cimport Store
from ..state.table_view cimport Rows
from .contact_rows cimport ContactRows
from .impacts cimport Impacts


cdef class NarrowphaseSystem:
    cdef public object table
    cdef public double contact_offset     # new pairs touch within this
    cdef public double separation_offset  # pairs that touched stop only beyond this
    cdef public ContactRows rows          # the last step's touching rows
    cdef object _last                     # what the last step tested (``last_input``)
    cdef object _pairs_of                 # where the compiled step's pairs are as arrays

    cdef int step_rows(self, const int64_t* a, const int64_t* b, Py_ssize_t k, object changed,
                       Impacts impacts, object pairs_of, const Rows* r,
                       const Store* s) except -1
