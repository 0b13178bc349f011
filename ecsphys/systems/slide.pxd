# One body's slide (see slide.pyx for the guarantees): what the push apart, the riders and the
# stage (`systems/response.pyx`) call.

from ..geometry.shape_data cimport CContact
from .slide_context cimport Ctx


cdef int first_hit(Ctx* c, int r, double* when, CContact* hit, int* other,
                   int* pair, bint fixed_only=*, int skip=*) noexcept nogil


cdef int move_from(Ctx* c, int i, long* budget) except -1 nogil


cdef void sensor_impacts(Ctx* c) noexcept nogil
