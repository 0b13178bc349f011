# The push apart of the bodies that start the step overlapping (see push_apart.pyx).

from .slide_context cimport Ctx


cdef int push_apart(Ctx* c) except -1 nogil
