# Momentum and rest (see momentum.pyx for the guarantees): the exchange of momentum of one
# contact, inline (the slide, the push apart and the tile burial call it per contact).

from libc.math cimport fabs, sqrt

from ..geometry.vec cimport max2
from .slide_context cimport Ctx, fixed, inv_mass_of

cdef extern from *:
    """
    #ifndef ECSPHYS_SLIDE_SUPPORT_COS
    #define ECSPHYS_SLIDE_SUPPORT_COS 0.7
    #endif
    """
    # a contact normal within ~45 degrees of "down" supports
    double SUPPORT_COS "ECSPHYS_SLIDE_SUPPORT_COS"


cdef inline void world_vel(const Ctx* c, int r, double* vx, double* vy) noexcept nogil:
    """Row r's world velocity: its own, plus its carrier's while it rides one."""
    cdef int f = c.rows.carrier[r]
    vx[0] = c.vel[2 * r]
    vy[0] = c.vel[2 * r + 1]
    if f >= 0:
        vx[0] += c.vel[2 * f]
        vy[0] += c.vel[2 * f + 1]


cdef inline double rest_speed(const Ctx* c, int a, int b, double nx, double ny) noexcept nogil:
    """The approach speed below which pair (a, b) meets without an impact of its own (it
    rests): ``bounce_threshold``, or what the two bodies' accelerations add along the
    normal in two steps, whichever is larger (a body resting on another meets it at about
    one step of gravity every step, whatever the units of the game)."""
    cdef double g = (fabs(c.rows.acc[2 * a] * nx + c.rows.acc[2 * a + 1] * ny)
                     + fabs(c.rows.acc[2 * b] * nx + c.rows.acc[2 * b + 1] * ny))
    return max2(c.bounce, 2.0 * c.dt * g)


cdef inline void impulse(Ctx* c, int a, int b, double nx, double ny) noexcept nogil:
    """The exact exchange of momentum along the normal (from a to b), with restitution, and
    friction across it: the tangential velocity of the pair reduced by at most the combined
    friction times the normal impulse (Coulomb), never reversed. A pair that meets slower
    than `rest_speed` does not bounce (its restitution counts as 0): a resting body keeps no
    velocity into what holds it. A sleeper struck faster than that takes its share as an
    awake body would, and is marked in ``c.hit`` (see the module comment)."""
    cdef double ia = inv_mass_of(c, a)
    cdef double ib = inv_mass_of(c, b)
    cdef double* v = c.vel
    cdef double vax, vay, vbx, vby
    world_vel(c, a, &vax, &vay)
    world_vel(c, b, &vbx, &vby)
    cdef double rx = vbx - vax, ry = vby - vay
    cdef double rel = rx * nx + ry * ny
    if rel >= 0.0:
        return
    if (c.hit != NULL and (fixed(c, a) or fixed(c, b))
            and -rel > rest_speed(c, a, b, nx, ny)):
        if fixed(c, a) and not fixed(c, b):
            ia = c.rows.inv_mass[a]
            c.nhit += 1
            c.hit[a] = 1
        elif fixed(c, b) and not fixed(c, a):
            ib = c.rows.inv_mass[b]
            c.nhit += 1
            c.hit[b] = 1
    if ia + ib <= 0.0:
        return
    cdef double e = c.rows.restitution[a]
    if c.rows.restitution[b] > e:
        e = c.rows.restitution[b]
    if e > 0.0 and -rel <= rest_speed(c, a, b, nx, ny):
        e = 0.0
    cdef double j = -(1.0 + e) * rel / (ia + ib)
    v[2 * a] -= nx * j * ia
    v[2 * a + 1] -= ny * j * ia
    v[2 * b] += nx * j * ib
    v[2 * b + 1] += ny * j * ib
    cdef double mu = sqrt(c.rows.friction[a] * c.rows.friction[b])
    if mu <= 0.0:
        return
    cdef double tx = -ny, ty = nx
    cdef double jt = -(rx * tx + ry * ty) / (ia + ib)  # what stops the sliding
    cdef double limit = mu * j
    if jt > limit:
        jt = limit
    elif jt < -limit:
        jt = -limit
    v[2 * a] -= tx * jt * ia
    v[2 * a + 1] -= ty * jt * ia
    v[2 * b] += tx * jt * ib
    v[2 * b + 1] += ty * jt * ib


cdef inline bint supported(const Ctx* c, int p, double nx, double ny) noexcept nogil:
    """The normal (from p to what it touches) is within ~45 degrees of p's acceleration: p
    rests on it."""
    cdef double ax = c.rows.acc[2 * p]
    cdef double ay = c.rows.acc[2 * p + 1]
    cdef double g = sqrt(ax * ax + ay * ay)
    return g > 0.0 and nx * ax + ny * ay > SUPPORT_COS * g


cdef void match_motion(Ctx* c) noexcept nogil
