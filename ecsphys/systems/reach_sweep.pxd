# The rows the push apart took beyond their reach, widened together (see reach_sweep.pyx).

from .slide_context cimport Ctx


cdef int widen_all(Ctx* c, const int* moved, int nmoved) except -1 nogil
