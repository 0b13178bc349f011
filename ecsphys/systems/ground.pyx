# cython: embedsignature=True
"""Floors, walls and ceilings: what each body stands on, read from the step's contacts.

Guarantees (one compiled pass over the contacts at the end of each step):
- a body's "up" is the opposite of its acceleration (gravity), or the physics' ``up`` for a
  body without one; a contact whose other side lies below it, the normal from the body to
  it within ``floor_max_angle`` of "down", is a floor; within that angle of "up" a ceiling;
  any other contact a wall. Sensor contacts do not count; a one-way body counts only as a
  floor, and only for a body standing on it (not overlapping it, the normal against its
  one-way direction within ``floor_max_angle``);
- per row: ``ground`` (GROUND_FLOOR | GROUND_WALL | GROUND_CEILING, and GROUND_SUPPORT when
  a solid contact holds the body up: the normal from the body to the other side points at
  least `SUPPORT_COS` into "down", however steep, as a ball in a V of two steep slopes is
  held; what a body needs to fall asleep: `systems.sleep`), and for the most level
  floor its surface normal (``floor_n``, pointing up out of the floor), velocity
  (``floor_v``) and entity (``floor_entity``, -1: none); static bodies get nothing; a
  sleeping body keeps what it had when it fell asleep (its contacts stay as they were);
- ``carrier``: the row of the floor when that floor is a moving body that is never pushed
  (infinite mass, not STATIC: a moving platform; the response carries the body along with
  it in the next step), else -1; a body of infinite mass rides nothing (only the game
  changes its velocity, and only its own velocity moves it);
- while a body rides a carrier its velocity is its own, relative to the carrier (the
  carrier's motion is added to its move, as Godot's ``move_and_slide`` does), so its world
  velocity is its own plus the carrier's, counted once: one that rides it no more (it
  jumped or walked off) takes the carrier's velocity on (Godot's ``ADD_VELOCITY`` on
  leaving a platform); one that lands on a carrier gives back as much of its velocity
  along the carrier's as the carrier's speed, at most (it jumped from it, or from one as
  fast: its speed relative to the carrier is what it had before the jump), and keeps the
  rest as its own (one slower than the carrier, or at rest on it, moves with it at once).
"""

import numpy as np

from libc.math cimport isinf, sqrt
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc

from ..state.carray cimport as_c, c_array

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API
from ..state.table_view cimport (
    GROUND_CEILING, GROUND_FLOOR, GROUND_SUPPORT, GROUND_WALL, Rows, body_up, rows_of,
)
from .contact_rows cimport DORMANT, ContactRows
from .gil cimport NOGIL_MIN

cdef int STATIC = 0
#: a one-way body is a floor only for bodies no deeper into it than this
cdef double ONE_WAY_DEPTH = 1e-6
#: a contact supports a body (GROUND_SUPPORT) when the normal to the other side has at least
#: this cosine with the body's "down" (within about 89.4 degrees: not a wall it slides along)
cdef double SUPPORT_COS = 0.01


cdef struct Pass:
    Rows rows
    double* vel
    double upx
    double upy
    double cos_floor
    double* best       # per row: how level its best floor is so far
    double* up         # per row: its "up" (`body_up`), worked out once a pass


cdef void _side(Pass* g, int r, int o, double dx, double dy, double depth) noexcept nogil:
    """Row r touches row o, (dx, dy) the unit normal from r to o."""
    cdef const Rows* w = &g.rows
    cdef double ux, uy, down, wx, wy
    if w.kind[r] == STATIC or w.asleep[r]:
        return
    ux = g.up[2 * r]
    uy = g.up[2 * r + 1]
    down = -(dx * ux + dy * uy)      # cos of the angle between "down" and the normal
    wx = w.one_way[2 * o]
    wy = w.one_way[2 * o + 1]
    if wx != 0.0 or wy != 0.0:
        if depth > ONE_WAY_DEPTH or -(dx * wx + dy * wy) < g.cos_floor or down < g.cos_floor:
            return
    if down >= SUPPORT_COS:
        w.ground[r] |= GROUND_SUPPORT
    if down >= g.cos_floor:
        w.ground[r] |= GROUND_FLOOR
        if down > g.best[r]:
            g.best[r] = down
            w.floor_n[2 * r] = -dx
            w.floor_n[2 * r + 1] = -dy
            w.floor_v[2 * r] = g.vel[2 * o]
            w.floor_v[2 * r + 1] = g.vel[2 * o + 1]
            w.floor_entity[r] = w.entity[o]
            w.carrier[r] = o if (w.kind[o] != STATIC and isinf(w.mass[o])
                                 and not isinf(w.mass[r])) else -1
    elif -down >= g.cos_floor:
        w.ground[r] |= GROUND_CEILING
    else:
        w.ground[r] |= GROUND_WALL


cdef void _land(double* vel, int r, int f) noexcept nogil:
    """Row r lands on carrier f: its velocity along f's gives back up to f's speed."""
    cdef double cx = vel[2 * f], cy = vel[2 * f + 1]
    cdef double speed = sqrt(cx * cx + cy * cy)
    if speed <= 0.0:
        return
    cdef double along = (vel[2 * r] * cx + vel[2 * r + 1] * cy) / speed
    if along <= 0.0:
        return
    if along > speed:
        along = speed
    vel[2 * r] -= cx / speed * along
    vel[2 * r + 1] -= cy / speed * along


def ground_pass(t, ra, rb, ContactRows rows, up, double cos_floor):
    """Fill the table's ground columns from the step's contacts ``rows``: row ``i`` is the
    pair ``(ra[index[i]], rb[index[i]])``, with its normal from the first to the second, its
    depth and whether a sensor is in it; ``up`` the default up; ``cos_floor`` the cosine of
    the floor's largest angle."""
    ra_ = as_c(ra, b'i')
    rb_ = as_c(rb, b'i')
    cdef Py_ssize_t na, nb, nv
    cdef const int64_t* a = <const int64_t*> c_array(ra_, b'i', &na)
    cdef const int64_t* b = <const int64_t*> c_array(rb_, b'i', &nb)
    if na != nb:
        raise ValueError(f"ra and rb need the same length, got {na} and {nb}")
    c_array(t.vel, b'f', &nv)
    if 2 * t.n > nv:
        raise ValueError(f"the table's velocities hold {nv // 2} rows, not {t.n}")
    cdef Rows r = rows_of(t)
    ground_rows(&r, a, b, na, rows, up[0], up[1], cos_floor, NULL, r.n)


cdef void _ground(Pass* g, Rows* w, int* old, const int64_t* k, const double* nrm,
                  const double* dep, const unsigned char* sen, Py_ssize_t m,
                  const int64_t* a, const int64_t* b, const int64_t* awake,
                  Py_ssize_t na) noexcept nogil:
    """`ground_rows`'s loops: each row's floor and carrier from the step's contacts."""
    cdef int n = w.n
    cdef Py_ssize_t i, q
    cdef int r, f, p, ia, ib
    for q in range(na):
        r = <int> (awake[q] if awake != NULL else q)
        old[r] = w.carrier[r]
        if w.asleep[r]:  # a sleeper's ground stays as it was when it fell asleep
            continue
        w.carrier[r] = -1
        w.ground[r] = 0
        w.floor_n[2 * r] = w.floor_n[2 * r + 1] = 0.0
        w.floor_v[2 * r] = w.floor_v[2 * r + 1] = 0.0
        w.floor_entity[r] = -1
        g.best[r] = -2.0
        body_up(w, r, g.upx, g.upy, &g.up[2 * r], &g.up[2 * r + 1])
    for i in range(m):
        if sen[i] or k[i] < 0:  # (a sleeping pair's row: both sides keep their ground)
            continue
        p = <int> k[i]
        ia = <int> a[p]
        ib = <int> b[p]
        _side(g, ia, ib, nrm[2 * i], nrm[2 * i + 1], dep[i])
        _side(g, ib, ia, -nrm[2 * i], -nrm[2 * i + 1], dep[i])
    for q in range(na):
        r = <int> (awake[q] if awake != NULL else q)
        f = old[r]
        if f == w.carrier[r]:
            continue
        if f >= 0 and f < n:  # left it: a world velocity again
            g.vel[2 * r] += g.vel[2 * f]
            g.vel[2 * r + 1] += g.vel[2 * f + 1]
        if w.carrier[r] >= 0:  # landed on one: a velocity relative to it
            _land(g.vel, r, w.carrier[r])


cdef int ground_rows(Rows* w, const int64_t* a, const int64_t* b, Py_ssize_t na,
                     ContactRows rows, double upx, double upy, double cos_floor,
                     const int64_t* awake, Py_ssize_t nawake) except -1:
    """`ground_pass` on the C rows ``w`` and the step's ``na`` pairs ``a``, ``b``; the rows
    reset and classified are the ``nawake`` rows listed in ``awake`` (the rows not asleep),
    or rows ``0 .. nawake`` when it is NULL (a sleeper's ground stays as it was)."""
    cdef Py_ssize_t m = rows.n
    cdef const int64_t* k = rows.index
    cdef const double* nrm = rows.normal
    cdef const double* dep = rows.depth
    cdef const unsigned char* sen = rows.sensor
    cdef Py_ssize_t j
    cdef uint64_t bad = 0, top = <uint64_t> na + 1
    for j in range(m):  # the contacts' pairs are the step's pairs, or a sleeping pair's
        bad |= <uint64_t> (k[j] + 1) >= top  # (k in DORMANT (-1) .. na - 1; no branch)
    if bad:
        for j in range(m):
            if not (0 <= k[j] < na or k[j] == DORMANT):
                raise IndexError(f"contact {j}: pair index {k[j]} outside the {na} pairs")
    cdef Pass g
    g.rows = w[0]
    g.vel = w.vel
    g.upx = upx
    g.upy = upy
    g.cos_floor = cos_floor
    cdef int n = w.n
    cdef int* old = <int*> malloc((n + 1) * sizeof(int))
    g.best = <double*> malloc((3 * n + 3) * sizeof(double))  # best, then up
    if old == NULL or g.best == NULL:
        free(old)
        free(g.best)
        raise MemoryError()
    g.up = g.best + n + 1
    if n + m >= NOGIL_MIN:
        with nogil:
            _ground(&g, w, old, k, nrm, dep, sen, m, a, b, awake, nawake)
    else:
        _ground(&g, w, old, k, nrm, dep, sen, m, a, b, awake, nawake)
    free(old)
    free(g.best)
    return 0
