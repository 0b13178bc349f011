"""Vectorised time of impact of circles against convex outlines (OrientedRect, Polygon) under
translation, over arrays of pairs: the circle's centre against the outline rounded by the
radius.

Guarantees:
- ``circle_convex_time_of_impact`` follows ``geometry.time_of_impact``'s conventions for a
  circle (first) against a convex polygon: swept boxes apart (by more than
  ``TOUCH_TOLERANCE``, the ``meet`` mask the caller computes in the pair's order, see
  ``swept_boxes_meet``) never meet; a circle touching at the start (within
  ``TOUCH_TOLERANCE``, ``circle_convex_contact``'s float operations) gives 0 if the move
  points into the start contact's normal, else no impact (``inf``), with that normal;
  otherwise the exact first time in ``[0, 1]`` the centre comes within the radius of the
  outline (the scalar's roots: the same float operations at the vertices, the same roots to
  rounding at the faces), the normal from the circle to the outline then;
- rows where rounding may decide differently from the scalar are reported ``unsure``, for the
  caller to answer with the scalar function: a centre on the outline (within
  ``ON_TOLERANCE``), a start contact whose normal is nearly square to the move, a circle
  apart by at most ``2 * TOUCH_TOLERANCE`` (the scalar's edge tests may count it as touching),
  an entry near a face's end, an impact near ``t = 1``, a path that misses a corner of the
  outline grown by the radius by a hair; their ``toi`` is ``inf``.

Method: the slab method on the outline's faces moved out by the radius (entry the latest face
entry, exit the earliest face exit). An entry through a face's extent is the impact with that
face; an entry beside it (a vertex region), or a start inside the grown outline yet not
touching, is decided by the vertex circles (the first root among them: the rounded outline is
the grown faces' strips and the vertex circles, and a path entering a vertex region first
meets that vertex's circle or nothing).
"""

from __future__ import annotations

import numpy as np

from .contact import ON_TOLERANCE, TOUCH_TOLERANCE
from .kernels_convex import Outlines

#: relative margin of the ``unsure`` bands (rounding is ~1e-16 relative)
_BAND = 1e-9


def swept_boxes_meet(
    pa: np.ndarray, lo_a: np.ndarray, hi_a: np.ndarray, d: np.ndarray,
    pb: np.ndarray, lo_b: np.ndarray, hi_b: np.ndarray,
) -> np.ndarray:
    """``time_of_impact``'s first rejection, row by row and with its float operations: the
    box of a (``lo_a`` / ``hi_a`` around ``pa``) swept by ``d`` meets b's box (within
    ``TOUCH_TOLERANCE``)."""
    tol = TOUCH_TOLERANCE
    a_lo = pa + lo_a
    a_lo += np.minimum(d, 0.0)
    a_hi = pa + hi_a
    a_hi += np.maximum(d, 0.0)
    b_lo = pb + lo_b
    b_hi = pb + hi_b
    return ~(
        (b_lo[:, 0] > a_hi[:, 0] + tol)
        | (a_lo[:, 0] > b_hi[:, 0] + tol)
        | (b_lo[:, 1] > a_hi[:, 1] + tol)
        | (a_lo[:, 1] > b_hi[:, 1] + tol)
    )


def _unit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``circle_pairs._unit`` row by row (scaled first, exact for tiny vectors); (1, 0) for 0."""
    s = np.maximum(np.abs(x), np.abs(y))
    s[s == 0.0] = 1.0
    x, y = x / s, y / s
    h = np.hypot(x, y)
    zero = h == 0.0
    h[zero] = 1.0
    x, y = x / h, y / h
    x[zero] = 1.0
    return x, y


def _first_vertex_root(
    cx: np.ndarray, cy: np.ndarray, dx: np.ndarray, dy: np.ndarray, r: np.ndarray,
    vx: np.ndarray, vy: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first time in ``[0, 1]`` each centre ``c + d t`` reaches distance ``r`` from any of
    its vertices ``v (n, V)`` (``toi._ray_circle``'s float operations), ``inf`` if none, and the
    unit normal from the centre to that vertex then."""
    px = cx[:, None] - vx
    py = cy[:, None] - vy
    dx2, dy2 = dx[:, None], dy[:, None]
    a = dx2 * dx2 + dy2 * dy2
    b = px * dx2 + py * dy2
    c = px * px + py * py - (r * r)[:, None]
    disc = b * b - a * c
    ok = (a != 0.0) & (b < 0.0) & (disc >= 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = c / (-b + np.sqrt(np.where(ok, disc, 0.0)))
    ok &= t <= 1.0
    t = np.where(ok, t, np.inf)
    best = np.argmin(t, axis=1)
    rows = np.arange(len(best))
    tt = t[rows, best]
    found = np.isfinite(tt)
    tf = np.where(found, tt, 0.0)
    hx = vx[rows, best] - (cx + dx * tf)
    hy = vy[rows, best] - (cy + dy * tf)
    h = np.sqrt(hx * hx + hy * hy)
    h[h == 0.0] = 1.0
    return tt, hx / h, hy / h


def circle_convex_time_of_impact(
    c: np.ndarray, r: np.ndarray, d: np.ndarray, o: Outlines, nverts: np.ndarray,
    po: np.ndarray, meet: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Times of impact of circles (centres ``c``, radii ``r``) moving by ``d`` (relative to the
    outline) against the outlines ``o`` (``nverts`` vertices each) at body positions ``po``;
    ``meet`` the swept boxes' test (``swept_boxes_meet`` in the pair's order). Returns
    ``(toi, normal, unsure)``: ``toi`` inf for no impact, the normal from the circle to the
    outline (see the module notes; ``unsure`` rows are for the scalar function)."""
    with np.errstate(divide="ignore", invalid="ignore"):  # moves along a face: rate 0
        return _round_toi(c, r, d, o, nverts, po, meet)


def _round_toi(
    c: np.ndarray, r: np.ndarray, d: np.ndarray, o: Outlines, nverts: np.ndarray,
    po: np.ndarray, meet: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    tol = TOUCH_TOLERANCE
    k = len(c)
    rows = np.arange(k)
    toi = np.full(k, np.inf)
    normal = np.zeros((k, 2))
    unsure = np.zeros(k, dtype=np.bool_)
    if not meet.any():
        return toi, normal, unsure
    lx = c[:, 0] - po[:, 0]
    ly = c[:, 1] - po[:, 1]
    lxc, lyc = lx[:, None], ly[:, None]
    fnx, fny = o.normals[:, :, 0], o.normals[:, :, 1]
    s = fnx * lxc + fny * lyc - o.supports  # (k, F), as the scalar
    bi = np.argmax(s, axis=1)
    best = s[rows, bi]
    # face i runs from vertex i to vertex i + 1 (the padded faces and vertices repeat the last
    # one, so a padded face runs from the last vertex to the first, as the last face does)
    v1 = o.verts[:, : s.shape[1]]
    wrap = np.arange(1, s.shape[1] + 1)[None, :, None] >= nverts[:, None, None]
    v2 = np.where(wrap, v1[:, :1], np.concatenate((v1[:, 1:], v1[:, :1]), axis=1))
    x1, y1, x2, y2 = v1[:, :, 0], v1[:, :, 1], v2[:, :, 0], v2[:, :, 1]
    ex, ey = x2 - x1, y2 - y1
    ee = ex * ex + ey * ey

    # --- the start contact: circle_convex_contact's closest point --------------------------
    u = (lxc - x1) * ex + (lyc - y1) * ey
    mid = (u > 0.0) & (u < ee)
    low = u <= 0.0
    qx = np.where(mid, lxc - fnx * s, np.where(low, x1, x2))
    qy = np.where(mid, lyc - fny * s, np.where(low, y1, y2))
    gx, gy = qx - lxc, qy - lyc
    d2 = np.where(mid, s * s, gx * gx + gy * gy)
    d2[s <= 0.0] = np.inf
    ci = np.argmin(d2, axis=1)
    d2min = d2[rows, ci]
    inside = best <= 0.0
    lim = r + tol
    start = meet & ~(best > lim) & (inside | (d2min <= lim * lim))
    nx, ny = _unit(gx[rows, ci], gy[rows, ci])
    nx[inside] = -fnx[rows, bi][inside]
    ny[inside] = -fny[rows, bi][inside]
    dx, dy = d[:, 0], d[:, 1]
    along_n = nx * dx + ny * dy
    dlen = np.sqrt(dx * dx + dy * dy)
    lim2 = r + 2 * tol
    near = meet & ~start & ~(best > lim2) & (d2min <= lim2 * lim2)  # the scalar edges may touch
    unsure |= near
    unsure |= start & ((np.abs(best) <= ON_TOLERANCE) | (np.abs(along_n) <= _BAND * dlen))

    # --- later: the slabs of the faces moved out by r ---------------------------------------
    rate = fnx * dx[:, None] + fny * dy[:, None]  # < 0: closing
    gap = s - r[:, None]
    closing, opening = rate < 0.0, rate > 0.0
    when = gap / -rate
    enter = np.where(closing, when, -np.inf)
    fi = np.argmax(enter, axis=1)
    t_in = enter[rows, fi]
    t_out = np.where(opening, when, np.inf).min(axis=1)
    never = ((rate == 0.0) & (gap > 0.0)).any(axis=1)
    moving = meet & ~start & ~near
    slab = moving & ~never & (t_in <= t_out) & (t_in <= 1.0) & (t_out >= 0.0)
    band = _BAND * (1.0 + r + np.abs(lx) + np.abs(ly) + dlen)
    # a hair from the grown outline: an impact at about t = 1 (a move ending in touch), or a
    # path through a corner of the grown outline (the vertex circle there may be grazed)
    open_ = moving & ~never & (t_out >= 0.0)
    unsure |= open_ & (t_in <= t_out) & (t_in > 1.0) & (t_in <= 1.0 + _BAND)
    unsure |= open_ & (t_in > t_out) & (t_in - t_out <= _BAND) & (t_in <= 1.0 + _BAND)
    # the entry point along its face: inside the extent, a face impact
    te = np.maximum(t_in, 0.0)
    hx = lx + dx * te - x1[rows, fi]
    hy = ly + dy * te - y1[rows, fi]
    efx, efy = ex[rows, fi], ey[rows, fi]
    length = np.sqrt(ee[rows, fi])
    along = (hx * efx + hy * efy) / length
    entered = slab & (t_in > 0.0)
    face = entered & (along >= 0.0) & (along <= length)
    unsure |= entered & ((np.abs(along) <= band) | (np.abs(along - length) <= band))
    unsure |= face & (t_in >= 1.0 - _BAND)
    toi[face] = t_in[face]
    normal[face, 0] = -fnx[rows, fi][face]
    normal[face, 1] = -fny[rows, fi][face]
    corner = np.flatnonzero(slab & ~face)
    if len(corner):  # a vertex region: the first vertex circle met, or none
        vx = o.verts[corner, :, 0] + po[corner, 0:1]
        vy = o.verts[corner, :, 1] + po[corner, 1:2]
        tc, cnx, cny = _first_vertex_root(c[corner, 0], c[corner, 1], dx[corner],
                                          dy[corner], r[corner], vx, vy)
        toi[corner] = tc
        normal[corner, 0] = cnx
        normal[corner, 1] = cny
    toi[start & (along_n > 0.0)] = 0.0
    normal[start, 0] = nx[start]
    normal[start, 1] = ny[start]
    unsure &= meet
    toi[unsure] = np.inf  # the caller's scalar answer fills in impacts only
    normal[~np.isfinite(toi)] = 0.0
    return toi, normal, unsure
