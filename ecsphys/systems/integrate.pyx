# cython: embedsignature=True
"""Stage 1 of the step: velocities and desired moves of all bodies, one compiled pass.

Guarantees: the positions at the start of the step are kept (``table.prev_pos``, for
interpolation); for PASSIVE and ACTIVE bodies, semi-implicit Euler: ``v += a_total * dt``
then ``move = v * dt``; STATIC bodies and sleeping ones (``asleep``) get a zero move and keep
their velocity untouched (a sleeper's is 0).
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
from libc.stdint cimport int64_t

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


cdef int _check_motion(object t, int n) except -1:
    """Each of the table's motion columns (pos, vel, prev_pos, move) holds ``n`` rows."""
    cdef Py_ssize_t count
    for name in ("pos", "vel", "prev_pos", "move"):
        c_array(getattr(t, name), b'f', &count)
        if count < 2 * n:
            raise ValueError(f"the table's {name} column holds {count // 2} rows, not {n}")
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
        _check_motion(t, n)
        cdef Rows r = rows_of(t)
        with nogil:
            integrate_rows(&r, n, dt)


cdef inline void _integrate_row(Rows* r, Py_ssize_t i, double dt) noexcept nogil:
    """Stage 1 for row ``i``: its start position kept in ``prev``, its velocity integrated
    and its desired move written (a static body's or a sleeper's move is zero)."""
    r.prev[2 * i] = r.pos[2 * i]
    r.prev[2 * i + 1] = r.pos[2 * i + 1]
    if r.kind[i] == STATIC or r.asleep[i]:  # a sleeper stays exactly put
        r.move[2 * i] = 0.0
        r.move[2 * i + 1] = 0.0
        return
    _axis(&r.pos[2 * i], &r.vel[2 * i], &r.move[2 * i], r.acc[2 * i], dt)
    _axis(&r.pos[2 * i + 1], &r.vel[2 * i + 1], &r.move[2 * i + 1], r.acc[2 * i + 1], dt)


cdef void integrate_rows(Rows* r, int n, double dt) noexcept nogil:
    """Stage 1 over rows ``0 .. n``: each start position kept in ``prev``; each body's
    velocity integrated and its desired move written (a static body's move is zero)."""
    cdef int i
    for i in range(n):
        _integrate_row(r, i, dt)


cdef void integrate_listed(Rows* r, const int64_t* rows, Py_ssize_t k, double dt) noexcept nogil:
    """Stage 1 for the ``k`` rows listed (bodies woken after the step's integration: their
    start positions are in ``prev`` already)."""
    cdef Py_ssize_t q
    cdef int64_t i
    for q in range(k):
        i = rows[q]
        if r.kind[i] == STATIC or r.asleep[i]:
            continue
        _axis(&r.pos[2 * i], &r.vel[2 * i], &r.move[2 * i], r.acc[2 * i], dt)
        _axis(&r.pos[2 * i + 1], &r.vel[2 * i + 1], &r.move[2 * i + 1], r.acc[2 * i + 1], dt)


cdef void integrate_some(Rows* r, const int64_t* rows, Py_ssize_t k,
                         double dt) noexcept nogil:
    """`integrate_rows` over the ``k`` rows listed (ascending: the rows not asleep while
    something sleeps), or over rows ``0 .. k`` when ``rows`` is NULL."""
    cdef Py_ssize_t q
    if rows == NULL:
        integrate_rows(r, <int> k, dt)
        return
    for q in range(k):
        _integrate_row(r, rows[q], dt)


cdef inline void _limit(double* pos, double* vel, Py_ssize_t i) noexcept nogil:
    if pos[i] > MAX_COORD:
        pos[i] = MAX_COORD
    elif pos[i] < -MAX_COORD:
        pos[i] = -MAX_COORD
    if vel[i] > MAX_SPEED:
        vel[i] = MAX_SPEED
    elif vel[i] < -MAX_SPEED:
        vel[i] = -MAX_SPEED


cdef void limit_some(double* pos, double* vel, const int64_t* rows,
                     Py_ssize_t k) noexcept nogil:
    """`limit_motion` over the ``k`` rows listed, or rows ``0 .. k`` when ``rows`` is NULL
    (a sleeper neither moves nor is pushed: it stays within the limits)."""
    cdef Py_ssize_t q
    if rows == NULL:
        limit_motion(pos, vel, <int> k)
        return
    for q in range(k):
        _limit(pos, vel, 2 * rows[q])
        _limit(pos, vel, 2 * rows[q] + 1)


cdef void limit_motion(double* pos, double* vel, int n) noexcept nogil:
    """Every velocity component within MAX_SPEED and every position within MAX_COORD, over
    rows ``0 .. n`` of the position and velocity columns."""
    cdef int i
    for i in range(2 * n):
        _limit(pos, vel, i)


def keep_in_limits(table) -> None:
    """At the end of the step: every velocity component within MAX_SPEED, every position within
    MAX_COORD (an impulse or a push may have taken a body past them); one compiled pass."""
    cdef int n = table.n
    if n == 0:
        return
    cdef Py_ssize_t npos, nvel
    cdef double* pos = <double*> c_array(table.pos, b'f', &npos)
    cdef double* vel = <double*> c_array(table.vel, b'f', &nvel)
    if npos < 2 * n:
        raise ValueError(f"the table's pos column holds {npos // 2} rows, not {n}")
    if nvel < 2 * n:
        raise ValueError(f"the table's vel column holds {nvel // 2} rows, not {n}")
    with nogil:
        limit_motion(pos, vel, n)
