"""Vectorised separating-axis contact and time of impact of convex outlines (Rect,
OrientedRect, Polygon, Segment) under translation, over arrays of pairs.

Guarantees:
- ``convex_contact`` gives what the scalar ``sat_contact`` (through ``contact_tol``'s pair
  dispatch) gives for each pair, the same float operations: the bounding-box rejection, the
  face separations, the face of least overlap (the first on ties, in the order the scalar
  dispatch tests the faces: see ``first_is_b``), so the same hit, normal and depth, bit for bit;
  ``convex_contact_point`` the same contact point, bit for bit;
- ``convex_time_of_impact`` follows ``geometry.time_of_impact``'s conventions: swept boxes apart
  (by more than ``TOUCH_TOLERANCE``) never meet; shapes touching at the start (within
  ``TOUCH_TOLERANCE``) give 0 if the relative move points into the start contact's normal,
  else no impact (``inf``), both exactly as the scalar decides them; otherwise the first time
  in ``[0, 1]`` at which every face separation is within ``REACH`` (the slab method, exact
  for convex outlines under translation: along each face normal the separation is linear in
  t), with the normal of the contact there. The scalar searches for the first time the
  Euclidean distance is within ``REACH`` (to ``PRECISION``), which is never earlier: the two
  agree to about ``TOUCH_TOLERANCE`` in distance (corner against corner, the face separations
  reach ``REACH`` while the corners are up to a few ``REACH`` apart). Pairs whose contact at the
  time found is not within ``2 * TOUCH_TOLERANCE`` (rounding at a graze), or that are not
  touching at the start yet have every face separation within ``REACH`` there (their boxes
  apart: corner against corner), are reported as ``unsure``, for the caller to answer with the
  scalar function.

An outline is padded to a common vertex and face count by repeating its last vertex and face
(a repeated vertex changes no minimum, a repeated face no maximum, and comes after the
original, so ties still pick the original).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .contact import TOUCH_TOLERANCE
from .impact_search import REACH


class Outlines(NamedTuple):
    """Convex outlines of n shapes, relative to their body positions (offsets included):
    ``verts (n, V, 2)``, face normals ``(n, F, 2)`` and supports ``(n, F)`` (as the shapes'
    ``_verts`` / ``_faces``, padded), bounding boxes ``lo`` / ``hi (n, 2)``, shape codes and
    shape hashes ``(n,)`` (the scalar dispatch's order of a same-kind pair)."""

    verts: np.ndarray
    normals: np.ndarray
    supports: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    code: np.ndarray
    hash: np.ndarray


def _take(o: Outlines, m: np.ndarray) -> Outlines:
    return Outlines(*(c[m] for c in o))


def _pick(swap: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``y`` where ``swap`` else ``x``, row by row."""
    s = swap.reshape((-1,) + (1,) * (x.ndim - 1))
    return np.where(s, y, x)


def first_is_b(a: Outlines, pa: np.ndarray, b: Outlines, pb: np.ndarray) -> np.ndarray:
    """Where the scalar dispatch computes the pair with b first (then flips the normal): a
    kind later in (Rect, OrientedRect, Segment, Polygon) than b's (the registered order; the
    shape codes follow it), or the same kind with b's position before a's (as tuples), or at
    the same position with the smaller hash."""
    same = a.code == b.code
    before = (pb[:, 0] < pa[:, 0]) | ((pb[:, 0] == pa[:, 0]) & (pb[:, 1] < pa[:, 1]))
    equal = (pb[:, 0] == pa[:, 0]) & (pb[:, 1] == pa[:, 1])
    return (a.code > b.code) | (same & (before | (equal & (b.hash < a.hash))))


def _separations(
    a: Outlines, pa: np.ndarray, b: Outlines, pb: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Separations along a's faces ``(n, Fa)`` and b's faces ``(n, Fb)``, as ``sat_contact``
    computes them with a first: ``min(n . vb) + n . (pb - pa) - support`` and
    ``min(n . va) - n . (pb - pa) - support`` (the same values with b first, since negating is
    exact)."""
    dx = pb[:, 0] - pa[:, 0]
    dy = pb[:, 1] - pa[:, 1]
    na, nb = a.normals, b.normals
    proj = na[:, :, 0:1] * b.verts[:, None, :, 0]
    proj += na[:, :, 1:2] * b.verts[:, None, :, 1]
    sep_a = proj.min(axis=2)
    sep_a += na[:, :, 0] * dx[:, None]
    sep_a += na[:, :, 1] * dy[:, None]
    sep_a -= a.supports
    proj = nb[:, :, 0:1] * a.verts[:, None, :, 0]
    proj += nb[:, :, 1:2] * a.verts[:, None, :, 1]
    sep_b = proj.min(axis=2)
    sep_b -= nb[:, :, 0] * dx[:, None]
    sep_b -= nb[:, :, 1] * dy[:, None]
    sep_b -= b.supports
    return sep_a, sep_b


def _boxes_apart(
    a: Outlines, pa: np.ndarray, b: Outlines, pb: np.ndarray, tol: float
) -> np.ndarray:
    """``sat._boxes_apart`` with a first, row by row."""
    dx = pb[:, 0] - pa[:, 0]
    dy = pb[:, 1] - pa[:, 1]
    return (
        (b.lo[:, 0] + dx > a.hi[:, 0] + tol)
        | (a.lo[:, 0] > b.hi[:, 0] + dx + tol)
        | (b.lo[:, 1] + dy > a.hi[:, 1] + tol)
        | (a.lo[:, 1] > b.hi[:, 1] + dy + tol)
    )


def convex_contact(
    a: Outlines, pa: np.ndarray, b: Outlines, pb: np.ndarray, tol: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Contacts of the pairs (a at body positions ``pa``, b at ``pb``): ``(hit, normal,
    depth)``, the normal from a to b, hit where the shapes are at most ``tol`` apart; the
    values of ``contact_tol(a, pa, b, pb, tol)`` (the normal meaningless where not hit; the
    depth is minus the largest face separation everywhere, a bound on the distance).
    """
    sep_a, sep_b = _separations(a, pa, b, pb)
    swap = first_is_b(a, pa, b, pb)
    apart = _pick(swap, _boxes_apart(a, pa, b, pb, tol), _boxes_apart(b, pb, a, pa, tol))
    normals = np.concatenate((a.normals, -b.normals), axis=1)
    seps = np.concatenate((sep_a, sep_b), axis=1)
    if swap.any():  # b's faces first (the scalar's order), for ties
        fa = a.normals.shape[1]
        order = np.concatenate((np.arange(fa, seps.shape[1]), np.arange(fa)))
        seps = _pick(swap, seps, seps[:, order])
        normals = _pick(swap, normals, normals[:, order])
    best = np.argmax(seps, axis=1)
    rows = np.arange(len(best))
    top = seps[rows, best]
    hit = ~apart & (top <= tol)
    return hit, normals[rows, best], -top


def convex_contact_point(
    a: Outlines, pa: np.ndarray, b: Outlines, pb: np.ndarray, normal: np.ndarray
) -> np.ndarray:
    """The contact points ``sat_contact`` reports for the pairs with this ``normal`` (from a to
    b, as ``convex_contact`` gives it): the middle of the touching features, A's vertices
    furthest along the normal and B's least (within ``1e-9`` relative), computed as the
    scalar does (with b first where the dispatch puts it first). ``a`` and ``b`` must have the
    same vertex count."""
    swap = first_is_b(a, pa, b, pb)
    fv = _pick(swap, a.verts, b.verts)
    sv = _pick(swap, b.verts, a.verts)
    pf = _pick(swap, pa, pb)
    ps = _pick(swap, pb, pa)
    n = _pick(swap, normal, -normal)
    nx, ny = n[:, 0:1], n[:, 1:2]
    dx = (ps[:, 0] - pf[:, 0])[:, None]
    dy = (ps[:, 1] - pf[:, 1])[:, None]
    fx, fy = fv[:, :, 0], fv[:, :, 1]
    sx, sy = sv[:, :, 0] + dx, sv[:, :, 1] + dy
    proj_f = nx * fx + ny * fy
    proj_s = nx * sx + ny * sy
    amax = proj_f.max(axis=1)
    bmin = proj_s.min(axis=1)
    ea = 1e-9 * (1.0 + np.abs(amax))
    eb = 1e-9 * (1.0 + np.abs(bmin))
    tx, ty = -ny, nx
    along_f = tx * fx + ty * fy
    along_s = tx * sx + ty * sy
    on_f = proj_f >= (amax - ea)[:, None]
    on_s = proj_s <= (bmin + eb)[:, None]
    lo = np.maximum(np.where(on_f, along_f, np.inf).min(axis=1),
                    np.where(on_s, along_s, np.inf).min(axis=1))
    hi = np.minimum(np.where(on_f, along_f, -np.inf).max(axis=1),
                    np.where(on_s, along_s, -np.inf).max(axis=1))
    tc = (lo + hi) / 2
    nc = (amax + bmin) / 2
    point = np.empty_like(pa)
    point[:, 0] = pf[:, 0] + nx[:, 0] * nc + tx[:, 0] * tc
    point[:, 1] = pf[:, 1] + ny[:, 0] * nc + ty[:, 0] * tc
    return point


def convex_time_of_impact(
    a: Outlines, pa: np.ndarray, d: np.ndarray, b: Outlines, pb: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Times of impact of the pairs while a moves by ``d`` (relative to b) from ``pa``, b at
    ``pb``: ``(toi, normal, unsure)``, ``toi`` inf for no impact, the normal from a to b (see
    the module notes; ``unsure`` rows are for the scalar function)."""
    tol = TOUCH_TOLERANCE
    k = len(pa)
    # _relative_toi's rejection: the swept box of a against b's box
    zero = np.minimum(d, 0.0)
    a_lo = pa + a.lo
    a_lo += zero
    a_hi = pa + a.hi
    a_hi += np.maximum(d, 0.0)
    b_lo = pb + b.lo
    b_hi = pb + b.hi
    meet = ~(
        (b_lo[:, 0] > a_hi[:, 0] + tol)
        | (a_lo[:, 0] > b_hi[:, 0] + tol)
        | (b_lo[:, 1] > a_hi[:, 1] + tol)
        | (a_lo[:, 1] > b_hi[:, 1] + tol)
    )
    start, start_n, _ = convex_contact(a, pa, b, pb, tol)
    approach = start_n[:, 0] * d[:, 0] + start_n[:, 1] * d[:, 1] > 0.0
    # slabs: every face separation s0 - rate * t within REACH
    sep_a, sep_b = _separations(a, pa, b, pb)
    sep = np.concatenate((sep_a, sep_b), axis=1)
    sep -= REACH
    rate = np.concatenate((
        a.normals[:, :, 0] * d[:, 0:1] + a.normals[:, :, 1] * d[:, 1:2],
        -(b.normals[:, :, 0] * d[:, 0:1] + b.normals[:, :, 1] * d[:, 1:2]),
    ), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        when = sep / rate
    closing, opening = rate > 0.0, rate < 0.0
    t_in = np.where(closing, when, -np.inf).max(axis=1)
    t_out = np.where(opening, when, np.inf).min(axis=1)
    never = ((rate == 0.0) & (sep > 0.0)).any(axis=1)
    np.maximum(t_in, 0.0, out=t_in)
    np.minimum(t_out, 1.0, out=t_out)
    hit = meet & ~start & ~never & (t_in <= t_out)
    t_in[~hit] = 0.0
    # the contact where a is then (within twice the tolerance), as the scalar reports it
    at = d * t_in[:, None]
    at += pa
    met, normal, _ = convex_contact(a, at, b, pb, 2 * tol)
    # not touching at the start yet every face within REACH (the boxes are apart: corners):
    # the scalar advances from the Euclidean distance instead
    unsure = hit & (~met | (t_in == 0.0))
    met &= hit & ~unsure
    toi = np.full(k, np.inf)
    toi[met] = t_in[met]
    started = meet & start
    toi[started & approach] = 0.0
    normal[started] = start_n[started]
    normal[~started & ~met] = 0.0
    return toi, normal, unsure
