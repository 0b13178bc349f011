# cython: embedsignature=True
"""Momentum and rest in the sphere slide: what each impact does to the velocities, and the
velocities a held body keeps.

Guarantees (`impulse`, `rest_speed`, `supported` in momentum.pxd; `match_motion` here):
- velocities lose their part into each impact, or reflect it scaled by restitution, with
  momentum shared by mass (each impact an exact exchange, one after the other, so impacts
  never add energy), and friction takes at most ``friction * normal impulse`` off the
  pair's tangential velocity (Coulomb; the two frictions' geometric mean), never reversing
  it; a body of infinite mass keeps its velocity; a rider's impacts use its world velocity
  (its own plus its carrier's);
- rest: a pair that meets slower than `rest_speed` (``bounce_threshold``, or two steps of
  the pair's accelerations along the normal, whichever is larger) does not bounce; a body
  with an acceleration keeps no velocity into what held it back this step (`match_motion`),
  so a settled pile reads velocities of about zero whatever its restitution;
- a sleeper not struck is a fixed partner (inverse mass 0); one struck faster than
  `rest_speed` exchanges momentum as an awake body would and is marked in ``c.hit`` (the
  step wakes its island);
- a body rests on what it touches when the contact normal is within ~45 degrees of its
  acceleration (`supported`): it does not push it down.
"""

from libc.math cimport sqrt

from .slide_context cimport STATIC, Ctx, live_n, live_row


cdef void match_motion(Ctx* c) noexcept nogil:
    """Velocities that match what the bodies did: a body with an acceleration (gravity) that
    got less far than its own move (its rider's carry aside) keeps, along the part of the
    move it was denied, at most the speed it actually moved at that way. So a body held by a
    contact keeps no velocity into it: without this, bodies held up or held back by bodies
    that are themselves held (a pile, a row of balls pressed against a wall) keep what
    gravity and the impacts between bodies moving alike (which exchange nothing) add every
    step, and a settled pile reads ever larger velocities while it does not move. A bounce
    is kept (its velocity points out of what it met); bodies without acceleration (top-down
    games: the game sets their velocities) are left as the impacts made them. One pass over
    the rows."""
    cdef int r, k
    cdef double gx, gy, bx, by, b, ux, uy, vu, du
    cdef double* v = c.vel
    if c.dt <= 0.0:
        return
    for k in range(live_n(c)):
        r = live_row(c, k)
        if c.slides[r] == 0 or c.rows.kind[r] == STATIC:
            continue
        if c.rows.acc[2 * r] == 0.0 and c.rows.acc[2 * r + 1] == 0.0:
            continue
        # its own motion, and the part of its own move it did not make
        gx = c.body[r].px - c.start[2 * r] - c.carry[2 * r]
        gy = c.body[r].py - c.start[2 * r + 1] - c.carry[2 * r + 1]
        bx = c.want[2 * r] - gx
        by = c.want[2 * r + 1] - gy
        b = sqrt(bx * bx + by * by)
        if b <= 1e-12:
            continue
        ux = bx / b
        uy = by / b
        du = (gx * ux + gy * uy) / c.dt
        if du < 0.0:
            du = 0.0
        vu = v[2 * r] * ux + v[2 * r + 1] * uy
        if vu > du:
            v[2 * r] -= ux * (vu - du)
            v[2 * r + 1] -= uy * (vu - du)
