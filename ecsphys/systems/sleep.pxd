# Sleeping (compiled): see sleep.pyx for the guarantees.
from libc.stdint cimport int64_t

from ..geometry.shape_data cimport Store
from ..state.table_view cimport Rows
from .contact_rows cimport ContactRows

cdef Py_ssize_t rest_rows(Rows* r, const int64_t* rows, Py_ssize_t n, double dt, double speed,
                          double after, Py_ssize_t* awake) noexcept nogil
cdef Py_ssize_t fall_asleep(Rows* r, const int64_t* awake, Py_ssize_t nw, const int64_t* pa,
                            const int64_t* pb, const int64_t* index,
                            const unsigned char* sensor, Py_ssize_t m, double after,
                            int* loc, int64_t* fell) noexcept nogil
cdef void mark_dormant(const Rows* r, const int64_t* pa, const int64_t* pb,
                       ContactRows rows) noexcept nogil
cdef Py_ssize_t wake_marks(const Rows* r, const Store* s, const int64_t* pa,
                           const int64_t* pb, Py_ssize_t npairs, double offset,
                           const unsigned char* forced, unsigned char* mark) noexcept nogil
cdef int note_fell(object table, const Rows* r, const int64_t* rows,
                   Py_ssize_t fell) except -1
