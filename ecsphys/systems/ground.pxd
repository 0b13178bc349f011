# What each body stood on, touched and hit its head on (see ground.pyx for the guarantees):
# what the compiled step (`systems/step.pyx`) calls.

from libc.math cimport M_PI, cos
from libc.stdint cimport int64_t

from ..state.table_view cimport Rows
from .contact_rows cimport ContactRows

cdef inline double floor_cos(double degrees) noexcept nogil:
    """The cosine a contact normal must reach (with "up", or "down") to count as a floor (a
    ceiling): ``floor_max_angle``'s, less a hair, so a slope of exactly that angle is a floor
    whichever way its normal rounds (a 45-degree ramp's is 0.70710678118654746 or ...57)."""
    return cos(degrees * (M_PI / 180.0)) - 1e-12


cdef int ground_rows(Rows* w, const int64_t* a, const int64_t* b, Py_ssize_t na,
                     ContactRows rows, double upx, double upy, double cos_floor,
                     const int64_t* awake, Py_ssize_t nawake) except -1
