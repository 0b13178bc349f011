# cython: embedsignature=True
"""Stage 3 of the step: exact tests of the candidate pairs, compiled, one call for all pairs.

Guarantees:
- ``contacts`` and ``times_of_impact`` answer every pair of shape kinds (compounds included)
  with the one compiled implementation of each routine (``geometry.distance.contact_within``
  and ``geometry.impact.time_of_impact``), the same conventions as the public functions of
  ``ecsphys.geometry``: no pair is handled by a Python loop, whatever its kinds;
- normals point from the pair's first row to its second; contacts within ``tol`` count, with
  ``depth = -distance`` when apart (the skin);
- times of impact are of the relative motion, in [0, 1], ``inf`` for no impact; pairs already
  touching (within ``TOUCH_TOLERANCE``) and approaching give 0;
- ``NarrowphaseSystem.process`` tests only the candidate pairs whose boxes at the end of the
  step are within the contact offset (plus rounding slack) and keeps the touching ones in a
  ``ContactSet`` (stage 5 reads it for the events; games through ``physics.contacts()``).
"""

import esper
import numpy as np

from libc.stdint cimport int64_t

from ..geometry.distance cimport contact_within
from ..geometry.impact cimport time_of_impact
from ..geometry.shape_data cimport Body, CContact, Store, store_of
from ..table_view cimport Rows, row_body, rows_of

from ..contact_set import ContactSet
from ..geometry.contact import TOUCH_TOLERANCE


cdef inline bint boxes_within(const Body* a, const Body* b, double grow) noexcept nogil:
    """The bounding boxes are at most ``grow`` apart on both axes."""
    cdef double dx = b.px - a.px
    cdef double dy = b.py - a.py
    return not (b.x0 + dx - a.x1 > grow or a.x0 - b.x1 - dx > grow
                or b.y0 + dy - a.y1 > grow or a.y0 - b.y1 - dy > grow)


def _rows(a):
    return np.ascontiguousarray(a, dtype=np.int64)


def _vectors(a):
    return np.ascontiguousarray(a, dtype=np.float64)


def contacts(t, ra, rb, pos, double tol):
    """Contacts of the pairs (ra[i], rb[i]) with bodies at ``pos`` (indexed by row).

    Returns ``(hit, normal, depth, point)``; ``hit`` where the shapes are at most ``tol``
    apart (``depth >= -tol``)."""
    cdef const int64_t[::1] a = _rows(ra)
    cdef const int64_t[::1] b = _rows(rb)
    cdef const double[:, ::1] p = _vectors(pos)
    cdef Py_ssize_t k = a.shape[0]
    hit_ = np.zeros(k, dtype=np.bool_)
    normal_ = np.zeros((k, 2))
    depth_ = np.full(k, -np.inf)
    point_ = np.zeros((k, 2))
    if k == 0:
        return hit_, normal_, depth_, point_
    cdef unsigned char[::1] hit = hit_.view(np.uint8)
    cdef double[:, ::1] normal = normal_
    cdef double[::1] depth = depth_
    cdef double[:, ::1] point = point_
    cdef Rows r = rows_of(t)
    cdef Store s = store_of(t.store)
    cdef Py_ssize_t i
    cdef Body ba, bb
    cdef CContact c
    with nogil:
        for i in range(k):
            ba = row_body(&r, a[i], &p[0, 0])
            bb = row_body(&r, b[i], &p[0, 0])
            if contact_within(&s, &ba, &bb, tol, &c):
                hit[i] = 1
                normal[i, 0] = c.nx
                normal[i, 1] = c.ny
                depth[i] = c.depth
                point[i, 0] = c.px
                point[i, 1] = c.py
    return hit_, normal_, depth_, point_


def times_of_impact(t, ra, rb, pos, move):
    """Times of impact of the pairs while each row moves by ``move[row]`` from ``pos[row]``.

    Returns ``(toi, normal)``; ``toi`` inf where the pair does not meet; normal from a to b."""
    cdef const int64_t[::1] a = _rows(ra)
    cdef const int64_t[::1] b = _rows(rb)
    cdef const double[:, ::1] p = _vectors(pos)
    cdef const double[:, ::1] m = _vectors(move)
    cdef Py_ssize_t k = a.shape[0]
    toi_ = np.full(k, np.inf)
    normal_ = np.zeros((k, 2))
    if k == 0:
        return toi_, normal_
    cdef double[::1] toi = toi_
    cdef double[:, ::1] normal = normal_
    cdef Rows r = rows_of(t)
    cdef Store s = store_of(t.store)
    cdef Py_ssize_t i
    cdef int64_t ia, ib
    cdef Body ba, bb
    cdef CContact c
    cdef double when
    with nogil:
        for i in range(k):
            ia = a[i]
            ib = b[i]
            ba = row_body(&r, ia, &p[0, 0])
            bb = row_body(&r, ib, &p[0, 0])
            if time_of_impact(&s, &ba, m[ia, 0], m[ia, 1], &bb, m[ib, 0], m[ib, 1],
                              &when, &c):
                toi[i] = when
                normal[i, 0] = c.nx
                normal[i, 1] = c.ny
    return toi_, normal_


def touching_pairs(t, ra, rb, pos, double tol):
    """The pairs whose shapes at ``pos`` are at most ``tol`` apart, tested only where their
    bounding boxes are within ``tol`` (grown by ``2 * TOUCH_TOLERANCE`` so rounding never
    drops a touching pair). Returns ``(index, normal, depth, point, tested)``: the indices
    of the touching pairs into ``ra`` / ``rb`` in increasing order, their contacts, and how
    many pairs got an exact test."""
    cdef const int64_t[::1] a = _rows(ra)
    cdef const int64_t[::1] b = _rows(rb)
    cdef const double[:, ::1] p = _vectors(pos)
    cdef Py_ssize_t k = a.shape[0]
    index_ = np.empty(k, dtype=np.int64)
    normal_ = np.empty((k, 2))
    depth_ = np.empty(k)
    point_ = np.empty((k, 2))
    if k == 0:
        return index_, normal_, depth_, point_, 0
    cdef int64_t[::1] index = index_
    cdef double[:, ::1] normal = normal_
    cdef double[::1] depth = depth_
    cdef double[:, ::1] point = point_
    cdef Rows r = rows_of(t)
    cdef Store s = store_of(t.store)
    cdef double grow = tol + 2 * TOUCH_TOLERANCE
    cdef Py_ssize_t i, found = 0, tested = 0
    cdef Body ba, bb
    cdef CContact c
    with nogil:
        for i in range(k):
            ba = row_body(&r, a[i], &p[0, 0])
            bb = row_body(&r, b[i], &p[0, 0])
            if not boxes_within(&ba, &bb, grow):
                continue
            tested += 1
            if contact_within(&s, &ba, &bb, tol, &c):
                index[found] = i
                normal[found, 0] = c.nx
                normal[found, 1] = c.ny
                depth[found] = c.depth
                point[found, 0] = c.px
                point[found, 1] = c.py
                found += 1
    return index_[:found], normal_[:found], depth_[:found], point_[:found], tested


class NarrowphaseSystem(esper.Processor):
    """Stages 3 and 5: the exact contacts of the candidate pairs at the end of the step."""

    def __init__(self, table, contact_offset=0.01):
        self.table = table
        self.contact_offset = contact_offset
        self.result = ContactSet()
        self.tests = 0  # exact pair tests run in the last step (diagnostics)

    def process(self, ra, rb, toi=None):
        """Contacts of the pairs at the table's current positions into ``self.result``.

        The candidates come from swept boxes; pairs whose boxes at the end of the step are
        apart by more than the contact offset cannot touch and are not tested (the same
        result, fewer exact tests)."""
        t = self.table
        idx, normal, depth, point, self.tests = touching_pairs(
            t, ra, rb, t.pos, self.contact_offset)
        a, b = ra[idx], rb[idx]
        self.result = ContactSet(
            a=t.entity[a], b=t.entity[b], normal=normal, depth=depth, point=point,
            toi=toi[idx] if toi is not None else np.full(len(idx), np.inf),
            sensor=t.sensor[a] | t.sensor[b],
        )
