# Riders and floors of characters (see riders.pyx for the guarantees).

from .slide_context cimport Ctx


cdef int carry_rider(Ctx* c, int i, int depth, long* budget) except -1 nogil


cdef int snap_down(Ctx* c, int r) except -1 nogil


cdef void first_carriers(Ctx* c) noexcept nogil
