# cython: embedsignature=True
"""Stage 1 of the step: velocities and desired moves of all bodies, one compiled pass.

Guarantees: the positions at the start of the step are kept (``table.prev_pos``, for
interpolation); for PASSIVE and ACTIVE bodies, semi-implicit Euler: ``v += a_total * dt``
then ``move = v * dt``; STATIC bodies get a zero move and keep their velocity untouched.
Nothing is written to the positions here.
"""

import esper

from ..table_view cimport Rows, rows_of

cdef int STATIC = 0


class IntegrateSystem(esper.Processor):
    """Stage 1 of the step: velocities and desired moves of all bodies."""

    def __init__(self, table) -> None:
        self.table = table

    def process(self, double dt) -> None:
        t = self.table
        cdef int n = t.n
        if n == 0:
            return
        cdef Rows r = rows_of(t)
        cdef double[:, ::1] pos = t.pos
        cdef double[:, ::1] prev = t.prev_pos
        cdef double[:, ::1] vel = t.vel
        cdef double[:, ::1] move = t.move
        cdef int i
        with nogil:
            for i in range(n):
                prev[i, 0] = pos[i, 0]
                prev[i, 1] = pos[i, 1]
                if r.kind[i] == STATIC:
                    move[i, 0] = 0.0
                    move[i, 1] = 0.0
                    continue
                vel[i, 0] += r.acc[2 * i] * dt
                vel[i, 1] += r.acc[2 * i + 1] * dt
                move[i, 0] = vel[i, 0] * dt
                move[i, 1] = vel[i, 1] * dt
