# Stage 1 of the step and the world's limits, on C rows (see integrate.pyx for the guarantees).

from ..state.table_view cimport Rows

cdef void integrate_rows(Rows* r, int n, double dt) noexcept nogil
cdef void limit_motion(double* pos, double* vel, int n) noexcept nogil
