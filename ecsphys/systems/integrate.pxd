# Stage 1 of the step and the world's limits, on C rows (see integrate.pyx for the guarantees).

from libc.stdint cimport int64_t

from ..state.table_view cimport Rows

cdef void integrate_rows(Rows* r, int n, double dt) noexcept nogil
cdef void limit_motion(double* pos, double* vel, int n) noexcept nogil
cdef void integrate_listed(Rows* r, const int64_t* rows, Py_ssize_t k, double dt) noexcept nogil
cdef void integrate_some(Rows* r, const int64_t* rows, Py_ssize_t k,
                         double dt) noexcept nogil
cdef void limit_some(double* pos, double* vel, const int64_t* rows,
                     Py_ssize_t k) noexcept nogil
