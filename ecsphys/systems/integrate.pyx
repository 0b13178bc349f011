# cython: embedsignature=True
"""Stage 1 of the step: velocities and desired moves of all bodies, one compiled pass.

Guarantees: the positions at the start of the step are kept (``table.prev_pos``, for
interpolation); for PASSIVE and ACTIVE bodies, semi-implicit Euler: ``v += a_total * dt``
then ``move = v * dt``; STATIC bodies get a zero move and keep their velocity untouched.
The world's limits hold (``ecsphys.limits``): each velocity component is clamped to
``MAX_SPEED``; a move that would take a body past ``MAX_COORD`` stops it there (that velocity
component set to 0), and a body pushed past it last step is put back on it. Nothing else is
written to the positions here. ``keep_in_limits`` (at the end of the step) puts back within the
limits a velocity an impulse raised past MAX_SPEED and a body a push moved past MAX_COORD.
"""

import esper

from .. import limits

from ..state.carray cimport c_array

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API
from ..state.table_view cimport Rows, rows_of

cdef int STATIC = 0
cdef double MAX_SPEED = limits.MAX_SPEED
cdef double MAX_COORD = limits.MAX_COORD


cdef inline void _axis(double* p, double* v, double* m, double a, double dt) noexcept nogil:
    """One axis of one body: the velocity integrated and clamped to MAX_SPEED, the move
    that keeps the position within MAX_COORD (the velocity that way zeroed where it stops)."""
    cdef double w = v[0] + a * dt
    if p[0] > MAX_COORD:  # pushed past the edge last step
        p[0] = MAX_COORD
    elif p[0] < -MAX_COORD:
        p[0] = -MAX_COORD
    if w > MAX_SPEED:
        w = MAX_SPEED
    elif w < -MAX_SPEED:
        w = -MAX_SPEED
    m[0] = w * dt
    if p[0] + m[0] > MAX_COORD:
        m[0] = MAX_COORD - p[0]
        w = 0.0
    elif p[0] + m[0] < -MAX_COORD:
        m[0] = -MAX_COORD - p[0]
        w = 0.0
    v[0] = w


cdef int _columns(object t, int n, double** pos, double** vel, double** prev,
                  double** move) except -1:
    """Pointers to the table's position and velocity columns (and, where asked, its start
    positions and moves), each checked to hold ``n`` rows. The table keeps the arrays alive
    through the compiled pass that uses them."""
    cdef Py_ssize_t count
    names = ("pos", "vel", "prev_pos", "move")
    cdef double** out[4]
    out[0] = pos
    out[1] = vel
    out[2] = prev
    out[3] = move
    cdef int k
    for k in range(4):
        if out[k] == NULL:
            continue
        out[k][0] = <double*> c_array(getattr(t, names[k]), b'f', &count)
        if count < 2 * n:
            raise ValueError(f"the table's {names[k]} column holds {count // 2} rows, not {n}")
    return 0


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
        cdef double* pos
        cdef double* prev
        cdef double* vel
        cdef double* move
        _columns(t, n, &pos, &vel, &prev, &move)
        cdef int i
        with nogil:
            for i in range(n):
                prev[2 * i] = pos[2 * i]
                prev[2 * i + 1] = pos[2 * i + 1]
                if r.kind[i] == STATIC:
                    move[2 * i] = 0.0
                    move[2 * i + 1] = 0.0
                    continue
                _axis(&pos[2 * i], &vel[2 * i], &move[2 * i], r.acc[2 * i], dt)
                _axis(&pos[2 * i + 1], &vel[2 * i + 1], &move[2 * i + 1], r.acc[2 * i + 1],
                      dt)


def keep_in_limits(table) -> None:
    """At the end of the step: every velocity component within MAX_SPEED, every position within
    MAX_COORD (an impulse or a push may have taken a body past them); one compiled pass."""
    cdef int n = table.n
    if n == 0:
        return
    cdef double* pos
    cdef double* vel
    _columns(table, n, &pos, &vel, NULL, NULL)
    cdef int i
    with nogil:
        for i in range(2 * n):
            if pos[i] > MAX_COORD:
                pos[i] = MAX_COORD
            elif pos[i] < -MAX_COORD:
                pos[i] = -MAX_COORD
            if vel[i] > MAX_SPEED:
                vel[i] = MAX_SPEED
            elif vel[i] < -MAX_SPEED:
                vel[i] = -MAX_SPEED
