# What each body stood on, touched and hit its head on (see ground.pyx for the guarantees):
# what the compiled step (`systems/step.pyx`) calls.

from libc.stdint cimport int64_t

from ..state.table_view cimport Rows
from .contact_rows cimport ContactRows

cdef int ground_rows(Rows* w, const int64_t* a, const int64_t* b, Py_ssize_t na,
                     ContactRows rows, double upx, double upy, double cos_floor,
                     const int64_t* awake, Py_ssize_t nawake) except -1
