"""Exact tests of candidate pairs: contacts at given positions, and times of impact of moves.

Guarantees:
- circle, rect and segment pairs (both orders) go through the vectorised kernels of
  ``ecsphys.geometry.kernels``; so do the times of impact of every other pair of convex
  outlines (Rect, OrientedRect, Polygon of at most ``MAX_VERTS`` vertices, Segment: the SAT
  slabs of ``geometry.kernels_convex``) and of circles against OrientedRects and such Polygons
  (the outline rounded by the radius: ``geometry.kernels_round``), and the convex outline
  pairs' contacts within ``TOUCH_TOLERANCE`` (bit for bit the scalar's; those further apart
  than ``tol`` along a face are rejected there, the ones between left to the scalar
  distance); every other pair of shape kinds is tested per pair
  with the scalar functions of ``ecsphys.geometry`` (slower, same conventions:
  ``contact_within``, so shapes apart by at most ``tol`` touch with ``depth = -distance``
  there too);
- normals point from the pair's first row to its second; depth >= -tol counts as touching;
- times of impact are of the relative motion, in [0, 1], ``inf`` for no impact; pairs already
  touching (within ``TOUCH_TOLERANCE``) and approaching give 0; the conventions of
  ``geometry.time_of_impact``, whose values the kernels give (rect-rect: the same, bit for bit;
  other convex outlines: the same at the start, bit for bit, later impacts to about
  ``TOUCH_TOLERANCE`` in distance, see ``geometry.kernels_convex``; a circle against an
  outline: the same start rule and normal, later impacts the scalar's roots to rounding);
  pairs a kernel is unsure of (grazes, a centre on the outline) are left to the scalar.
The narrowphase system itself (stage 3) computes the contacts at the end of the step into a
``ContactSet`` (stage 5 reads it for the events; games read it through ``physics.contacts()``).
"""

from __future__ import annotations

from collections.abc import Iterable

import esper
import numpy as np

from .. import geometry
from ..body_table import CIRCLE_CODE, RECT_CODE, SEGMENT_CODE, BodyTable
from ..contact_set import ContactSet
from ..geometry import TOUCH_TOLERANCE, kernels
from ..geometry.impact_search import REACH
from ..geometry.kernels_convex import (
    Outlines,
    convex_contact,
    convex_contact_point,
    convex_time_of_impact,
)
from ..geometry.kernels_round import circle_convex_time_of_impact, swept_boxes_meet

C, R, S = CIRCLE_CODE, RECT_CODE, SEGMENT_CODE
_KERNEL_CODES = (C, R, S)
#: the shape-kind pairs with vectorised kernels, in dispatch order; group 6 is the rest
_KERNEL_PAIRS = ((C, C), (C, R), (R, C), (R, R), (C, S), (S, C))
_CODE_SPAN = 16  # shape codes (and NO_SHAPE) fit in [-1, 15)
_GROUP = np.full(_CODE_SPAN * _CODE_SPAN, len(_KERNEL_PAIRS), dtype=np.int8)
for _g, (_a, _b) in enumerate(_KERNEL_PAIRS):
    _GROUP[(_a + 1) * _CODE_SPAN + (_b + 1)] = _g


def _groups(t: BodyTable, ra: np.ndarray, rb: np.ndarray) -> list[np.ndarray]:
    """Indices of the pairs per kernel pair of `_KERNEL_PAIRS`, then the rest (7 arrays),
    each in increasing order: one lookup, then a mask per kind pair present when there are
    few (most scenes have one to three), else one stable counting sort."""
    code = t.shape_code
    combo = (code[ra].astype(np.int16) + 1) * _CODE_SPAN + (code[rb] + 1)
    group = _GROUP[combo]
    counts = np.bincount(group, minlength=len(_KERNEL_PAIRS) + 1)
    present = np.flatnonzero(counts)
    if len(present) <= 3:
        out = [np.zeros(0, dtype=np.int64)] * (len(_KERNEL_PAIRS) + 1)
        for g in present.tolist():
            out[g] = np.flatnonzero(group == g)
        return out
    order = np.argsort(group, kind="stable")
    return np.split(order, np.cumsum(counts)[:-1])


def _take(v: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``v[rows]`` for a (n, 2) column: `np.take` gathers rows several times faster."""
    return np.take(v, rows, axis=0)


def _centres(t: BodyTable, rows: np.ndarray, pos: np.ndarray) -> np.ndarray:
    return _take(pos, rows) + _take(t.offset, rows)


def _seg(t: BodyTable, rows: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = _take(pos, rows)
    return p + _take(t.seg_a, rows), p + _take(t.seg_b, rows)


def contacts(
    t: BodyTable, ra: np.ndarray, rb: np.ndarray, pos: np.ndarray, tol: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Contacts of the pairs (ra[i], rb[i]) with bodies at ``pos`` (indexed by row).

    Returns ``(hit, normal, depth, point)``; ``hit`` where depth >= -tol.
    """
    k = len(ra)
    hit = np.zeros(k, dtype=np.bool_)
    normal = np.zeros((k, 2))
    depth = np.full(k, -np.inf)
    point = np.zeros((k, 2))
    if k == 0:
        return hit, normal, depth, point
    groups = _groups(t, ra, rb)

    def put(m: np.ndarray, res: tuple[np.ndarray, ...], flip: bool = False) -> None:
        h, nrm, d, p = res
        hit[m], depth[m], point[m] = h, d, p
        normal[m] = -nrm if flip else nrm

    for (code_a, code_b), m in zip(_KERNEL_PAIRS, groups, strict=False):
        if len(m) == 0:
            continue
        a, b = ra[m], rb[m]
        if (code_a, code_b) == (C, C):
            put(m, kernels.circle_circle(_centres(t, a, pos), t.radius[a],
                                         _centres(t, b, pos), t.radius[b], tol))
        elif (code_a, code_b) == (R, R):
            put(m, kernels.rect_rect(_centres(t, a, pos), _take(t.half, a),
                                     _centres(t, b, pos), _take(t.half, b), tol))
        else:
            flip = code_a != C  # kernels take the circle first
            c, o = (b, a) if flip else (a, b)
            other = code_b if not flip else code_a
            if other == R:
                res = kernels.circle_rect(_centres(t, c, pos), t.radius[c],
                                          _centres(t, o, pos), _take(t.half, o), tol)
            else:
                p1, p2 = _seg(t, o, pos)
                res = kernels.circle_segment(_centres(t, c, pos), t.radius[c], p1, p2, tol)
            put(m, res, flip)
    rest = groups[-1]
    if len(rest):
        # convex outline pairs (not rect-rect): the SAT kernel for shapes within
        # TOUCH_TOLERANCE; the scalar measures the distance of those within tol but further
        m, a, b, others = _convex_pairs(t, ra, rb, rest)
        if len(m):
            size = _outline_size(t, np.concatenate((a, b)))
            oa, ob = _outlines(t, a, size), _outlines(t, b, size)
            pa, pb = _take(pos, a), _take(pos, b)
            h, nrm, d = convex_contact(oa, pa, ob, pb, TOUCH_TOLERANCE)
            if h.any():
                sel = np.flatnonzero(h)
                oh, oj = Outlines(*(c[sel] for c in oa)), Outlines(*(c[sel] for c in ob))
                hit[m[sel]], normal[m[sel]], depth[m[sel]] = True, nrm[sel], d[sel]
                point[m[sel]] = convex_contact_point(oh, pa[sel], oj, pb[sel], nrm[sel])
            # -d, the largest face separation, is a lower bound on the distance
            done = h | (-d > tol + 2 * TOUCH_TOLERANCE) | (tol <= TOUCH_TOLERANCE)
            rest = np.concatenate((others, m[~done]))
    for i in rest:
        a, b = int(ra[i]), int(rb[i])
        sa, sb = t.shapes[a], t.shapes[b]
        assert sa is not None and sb is not None
        c = geometry.contact_within(sa, tuple(pos[a]), sb, tuple(pos[b]), tol)
        if c is not None:
            hit[i] = True
            normal[i] = c.normal
            depth[i] = c.depth
            point[i] = c.point
    return hit, normal, depth, point


def _toi_rect_rect(
    pa: np.ndarray, oa: np.ndarray, ha: np.ndarray, d: np.ndarray,
    pb: np.ndarray, ob: np.ndarray, hb: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Times of impact of AABBs (body positions ``pa`` / ``pb``, shape offsets, half extents)
    while a moves by ``d`` relative to b, and the normals from a to b: the convention of
    ``geometry.time_of_impact`` for two Rects, the same values (the same float operations):
    touching at the start (within ``TOUCH_TOLERANCE``) gives 0 if the move points into the
    contact's normal, else no impact; otherwise the first time within ``REACH`` (the slab
    method of ``geometry.toi_rect_rect``), with the normal of the contact then."""
    ca, cb = pa + oa, pb + ob
    start, start_n, _, _ = kernels.rect_rect(ca, ha, cb, hb, TOUCH_TOLERANCE)
    # slabs of the box grown by both half extents and REACH, which a's centre path enters
    p = ca - cb
    e = ha + hb
    e += REACH
    still = d == 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ta = (-e - p) / d
        tb = (e - p) / d
    lo = np.where(still, -np.inf, np.minimum(ta, tb))
    hi = np.where(still, np.inf, np.maximum(ta, tb))
    t_in = np.maximum(np.maximum(lo[:, 0], lo[:, 1]), 0.0)
    t_out = np.minimum(np.minimum(hi[:, 0], hi[:, 1]), 1.0)
    hit = (t_in <= t_out) & ~(still & (np.abs(p) > e)).any(axis=1)
    t_in[~hit] = 0.0
    # the contact where a is then (within twice the tolerance)
    at = d * t_in[:, None]
    at += pa
    at += oa
    met, normal, _, _ = kernels.rect_rect(at, ha, cb, hb, 2 * TOUCH_TOLERANCE)
    hit &= met
    approach = start_n[:, 0] * d[:, 0] + start_n[:, 1] * d[:, 1] > 0.0
    toi = np.where(start, np.where(approach, 0.0, np.inf), np.where(hit, t_in, np.inf))
    normal[start] = start_n[start]
    return toi, normal


def _outline_size(t: BodyTable, rows: np.ndarray) -> tuple[int, int]:
    """The most vertices and faces among the outlines of ``rows`` (a segment: 2 and 4)."""
    v = int(t.nverts[rows].max())
    return v, (max(v, 4) if (t.shape_code[rows] == SEGMENT_CODE).any() else v)


def _outlines(t: BodyTable, rows: np.ndarray, size: tuple[int, int] | None = None) -> Outlines:
    """The convex outlines of ``rows`` (all with ``nverts > 0``), cut to ``size`` (vertices,
    faces; default the most among them)."""
    code = t.shape_code[rows]
    v, f = size or _outline_size(t, rows)
    return Outlines(
        t.verts[rows, :v], t.face_n[rows, :f], t.face_s[rows, :f], _take(t.lo, rows),
        _take(t.hi, rows), code, t.shape_hash[rows],
    )


def _toi_circle_convex(
    t: BodyTable, ra: np.ndarray, rb: np.ndarray, pos: np.ndarray, move: np.ndarray,
    rest: np.ndarray, toi: np.ndarray, normal: np.ndarray,
) -> np.ndarray:
    """Times of impact of the circle-outline pairs (either order) among ``rest`` into ``toi``
    / ``normal`` by the rounded-outline kernel (``geometry.kernels_round``); returns the pairs
    of ``rest`` left for the scalar function (the others, and the kernel's unsure rows)."""
    a, b = ra[rest], rb[rest]
    code = t.shape_code
    first = (code[a] == C) & (t.nverts[b] > 0)
    second = (code[b] == C) & (t.nverts[a] > 0)
    pick = first | second
    if not pick.any():
        return rest
    m = rest[pick]
    a, b, flip = a[pick], b[pick], second[pick]
    c, o = np.where(flip, b, a), np.where(flip, a, b)
    rel = _take(move, a) - _take(move, b)
    pa, pb = _take(pos, a), _take(pos, b)
    # time_of_impact's swept-box rejection in the pair's order (a swept by the relative move)
    meet = swept_boxes_meet(pa, _take(t.lo, a), _take(t.hi, a), rel,
                            pb, _take(t.lo, b), _take(t.hi, b))
    d = np.where(flip[:, None], -rel, rel)
    tt, nn, unsure = circle_convex_time_of_impact(
        _centres(t, c, pos), t.radius[c], d, _outlines(t, o), t.nverts[o].astype(np.int64),
        _take(pos, o), meet)
    nn[flip] *= -1.0
    toi[m], normal[m] = tt, nn
    return np.concatenate((rest[~pick], m[unsure]))


#: Pair lists this short get their times of impact per pair (the scalar functions, the
#: kernels' reference): a kernel call costs 50-150 µs whatever its size, a pair 3-25 µs.
SCALAR_TOI_BELOW = 4


def times_of_impact(
    t: BodyTable, ra: np.ndarray, rb: np.ndarray, pos: np.ndarray, move: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Times of impact of the pairs while each row moves by ``move[row]`` from ``pos[row]``.

    Returns ``(toi, normal)``; ``toi`` inf where the pair does not meet; normal from a to b.
    """
    k = len(ra)
    toi = np.full(k, np.inf)
    normal = np.zeros((k, 2))
    if k == 0:
        return toi, normal
    if k <= SCALAR_TOI_BELOW:  # a handful: per-pair calls cost less than a kernel's set-up
        _scalar_toi(t, ra, rb, pos, move, range(k), toi, normal)
        return toi, normal
    groups = _groups(t, ra, rb)
    for (code_a, code_b), m in zip(_KERNEL_PAIRS, groups, strict=False):
        if len(m) == 0:
            continue
        a, b = ra[m], rb[m]
        if (code_a, code_b) == (C, C):
            res = kernels.toi_circle_circle(_centres(t, a, pos), t.radius[a], _take(move, a),
                                            _centres(t, b, pos), t.radius[b], _take(move, b))
            toi[m], normal[m] = res
            continue
        rel = _take(move, a) - _take(move, b)
        if (code_a, code_b) == (R, R):
            toi[m], normal[m] = _toi_rect_rect(
                _take(pos, a), _take(t.offset, a), _take(t.half, a), rel,
                _take(pos, b), _take(t.offset, b), _take(t.half, b))
            continue
        flip = code_a != C
        c, o = (b, a) if flip else (a, b)
        d = -rel if flip else rel
        other = code_a if flip else code_b
        if other == R:
            tt, nn = kernels.toi_circle_rect(_centres(t, c, pos), t.radius[c], d,
                                             _centres(t, o, pos), _take(t.half, o))
        else:
            p1, p2 = _seg(t, o, pos)
            tt, nn = kernels.toi_circle_segment(_centres(t, c, pos), t.radius[c], d, p1, p2)
        toi[m] = tt
        normal[m] = -nn if flip else nn
    rest = groups[-1]
    if len(rest):
        # convex outline pairs (not rect-rect, already above): the SAT slab kernel
        m, a, b, others = _convex_pairs(t, ra, rb, rest)
        if len(m):
            tt, nn, unsure = convex_time_of_impact(
                _outlines(t, a), _take(pos, a), _take(move, a) - _take(move, b),
                _outlines(t, b), _take(pos, b))
            toi[m], normal[m] = tt, nn
            rest = np.concatenate((others, m[unsure]))
        rest = _toi_circle_convex(t, ra, rb, pos, move, rest, toi, normal)
    _scalar_toi(t, ra, rb, pos, move, rest, toi, normal)
    return toi, normal


def _convex_pairs(
    t: BodyTable, ra: np.ndarray, rb: np.ndarray, rest: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Of the pairs ``rest`` (indices into ra, rb), those with an outline on both sides (the
    convex kernels' pairs): ``(indices, rows a, rows b, the other indices)``."""
    a, b = ra[rest], rb[rest]
    convex = (t.nverts[a] > 0) & (t.nverts[b] > 0)
    return rest[convex], a[convex], b[convex], rest[~convex]


def _scalar_toi(
    t: BodyTable, ra: np.ndarray, rb: np.ndarray, pos: np.ndarray, move: np.ndarray,
    which: Iterable[int], toi: np.ndarray, normal: np.ndarray,
) -> None:
    """The scalar ``geometry.time_of_impact`` of the pairs ``which`` into ``toi``/``normal``."""
    for i in which:
        a, b = int(ra[i]), int(rb[i])
        sa, sb = t.shapes[a], t.shapes[b]
        assert sa is not None and sb is not None
        hit = geometry.time_of_impact(sa, tuple(pos[a]), tuple(move[a]),
                                      sb, tuple(pos[b]), tuple(move[b]))
        if hit is not None:
            toi[i] = hit[0]
            normal[i] = hit[1].normal


def boxes_within(
    t: BodyTable, ra: np.ndarray, rb: np.ndarray, pos: np.ndarray, tol: float
) -> np.ndarray:
    """Indices of the pairs whose bounding boxes (``lo`` / ``hi`` around ``pos``) are at most
    ``tol`` apart on both axes, in increasing order: the only pairs ``contacts`` can find
    touching (shapes at most ``tol`` apart have boxes at most ``tol`` apart). The boxes are
    grown by ``2 * TOUCH_TOLERANCE`` more, so that rounding never drops a touching pair (the
    per-pair tests count shapes within ``TOUCH_TOLERANCE`` as touching even for ``tol = 0``):
    exact for coordinates up to about 1e6."""
    grow = tol + 2 * TOUCH_TOLERANCE
    d = _take(pos, rb)
    d -= _take(pos, ra)  # b's position seen from a
    # gap = max(lo_b - hi_a, lo_a - hi_b) per axis (b's box relative to a's position)
    gap = _take(t.lo, rb)
    gap += d
    gap -= _take(t.hi, ra)
    other = _take(t.lo, ra)
    other -= d
    other -= _take(t.hi, rb)
    np.maximum(gap, other, out=gap)
    near = gap[:, 0] <= grow
    near &= gap[:, 1] <= grow
    return np.flatnonzero(near)


class NarrowphaseSystem(esper.Processor):
    """Stages 3 and 5: the exact contacts of the candidate pairs at the end of the step."""

    def __init__(self, table: BodyTable, contact_offset: float = 0.01) -> None:
        self.table = table
        self.contact_offset = contact_offset
        self.result = ContactSet()
        self.tests = 0  # exact pair tests run in the last step (diagnostics)

    def process(self, ra: np.ndarray, rb: np.ndarray, toi: np.ndarray | None = None) -> None:
        """Contacts of the pairs at the table's current positions into ``self.result``.

        The candidates come from swept boxes; pairs whose boxes at the end of the step are
        apart by more than the contact offset cannot touch and are not tested (the same
        result, fewer exact tests).
        """
        t = self.table
        near = boxes_within(t, ra, rb, t.pos, self.contact_offset)
        self.tests = len(near)
        hit, normal, depth, point = contacts(t, ra[near], rb[near], t.pos, self.contact_offset)
        idx = near[hit]
        a, b = ra[idx], rb[idx]
        self.result = ContactSet(
            a=t.entity[a].copy(), b=t.entity[b].copy(), normal=normal[hit], depth=depth[hit],
            point=point[hit],
            toi=toi[idx] if toi is not None else np.full(len(idx), np.inf),
            sensor=t.sensor[a] | t.sensor[b],
        )
