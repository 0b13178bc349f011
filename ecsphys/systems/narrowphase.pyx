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
  step are within their tolerance (plus rounding slack) and keeps the touching ones in a
  ``ContactSet`` (stage 5 reads it for the events; games through ``physics.contacts()``):
  a new pair touches within the contact offset, a pair that touched in the previous step
  until it is apart by more than the separation offset (hysteresis, ``2 * contact_offset``
  by default: resting pairs must not flicker), and a pair that met during the step (the
  response's impacts) touches in that step even if it ends it apart, so no impact goes
  unreported; one compiled call, the previous step's keys merged with this step's pairs in C.
"""

import esper
import numpy as np

from libc.math cimport INFINITY
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


cdef inline bint sorted_has(const int64_t[::1] keys, Py_ssize_t* j, int64_t key,
                            int64_t last) noexcept nogil:
    """Whether the sorted ``keys`` hold ``key``. ``j[0]`` is where the search for the previous
    key (``last``) ended: keys asked for in increasing order walk the list once (a merge);
    a key smaller than the last one is searched for from the start (binary search)."""
    cdef Py_ssize_t n = keys.shape[0]
    cdef Py_ssize_t lo, hi, mid
    if key < last:
        lo = 0
        hi = n
        while lo < hi:
            mid = (lo + hi) // 2
            if keys[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        j[0] = lo
    else:
        while j[0] < n and keys[j[0]] < key:
            j[0] += 1
    return j[0] < n and keys[j[0]] == key


def touching_pairs(t, ra, rb, pos, double tol, double keep_tol=-1.0, prev_keys=None,
                   toi=None, impact_normal=None, impact_point=None, speed=None,
                   bint columns=False):
    """The pairs whose shapes at ``pos`` are at most ``tol`` apart, tested only where their
    bounding boxes are within ``tol`` (grown by ``2 * TOUCH_TOLERANCE`` so rounding never
    drops a touching pair). Returns ``(index, normal, depth, point, tested)``: the indices
    of the touching pairs into ``ra`` / ``rb`` in increasing order, their contacts, and how
    many pairs got an exact test.

    Hysteresis: a pair whose key (``entity[a] << 32 | entity[b]``) is in ``prev_keys`` (sorted;
    the pairs that touched in the previous step) touches within ``keep_tol`` instead (if it is
    larger than ``tol``). The pairs come in key order (the broadphase's), so this is a merge of
    two sorted lists.

    Impacts: with ``toi`` (per pair, ``inf`` where the pair did not meet during the step) and
    the impacts' ``impact_normal`` / ``impact_point``, a pair that met during the step touches
    even if it ends the step apart: where its shapes are within the pair's tolerance at the
    end it gets that contact like any other pair, else the impact's normal and point and
    depth ``0.0``.

    With ``columns``, returns ``(contacts, tested, deepest)`` instead: the touching pairs as
    a `ContactSet` (entities, keys, time of impact, the approach ``speed`` of pairs that met,
    sensors, layers: every column, from the same pass) and the largest depth of a pair
    without a sensor (``-inf`` if none)."""
    cdef const int64_t[::1] a = _rows(ra)
    cdef const int64_t[::1] b = _rows(rb)
    cdef const double[:, ::1] p = _vectors(pos)
    cdef Py_ssize_t k = a.shape[0]
    cdef bint with_keep = prev_keys is not None and len(prev_keys) > 0 and keep_tol > tol
    cdef bint with_impacts = toi is not None
    cdef bint with_speed = with_impacts and speed is not None
    index_ = np.empty(k, dtype=np.int64)
    normal_ = np.empty((k, 2))
    point_ = np.empty((k, 2))
    floats_ = np.empty((3, k))  # depth, toi, speed
    ints_ = np.empty((5 if columns else 0, k), dtype=np.int64)  # keys, a, b, layers a, b
    sensor_ = np.empty(k if columns else 0, dtype=np.bool_)
    cdef const int64_t[::1] keys = _rows(prev_keys if with_keep else ())
    cdef const double[::1] when = _vectors(toi if with_impacts else ())
    cdef const double[::1] approach = _vectors(speed if with_speed else ())
    cdef const double[:, ::1] inormal = _vectors(
        impact_normal if with_impacts else np.zeros((0, 2))).reshape(-1, 2)
    cdef const double[:, ::1] ipoint = _vectors(
        impact_point if with_impacts else np.zeros((0, 2))).reshape(-1, 2)
    if with_impacts and (when.shape[0] != k or inormal.shape[0] != k
                         or ipoint.shape[0] != k):
        raise ValueError(f"toi, impact_normal and impact_point need one row per pair ({k})")
    if with_speed and approach.shape[0] != k:
        raise ValueError(f"speed needs one row per pair ({k})")
    cdef int64_t[::1] index = index_
    cdef double[:, ::1] normal = normal_
    cdef double[:, ::1] point = point_
    cdef double[:, ::1] floats = floats_
    cdef int64_t[:, ::1] ints = ints_
    cdef unsigned char[::1] sensor = sensor_.view(np.uint8)
    cdef Rows r = rows_of(t)
    cdef Store s = store_of(t.store)
    cdef double slack = 2 * TOUCH_TOLERANCE
    cdef double pair_tol, deepest = -INFINITY
    cdef Py_ssize_t i, found = 0, tested = 0, j = 0
    cdef int64_t key, last = -1, ia, ib
    cdef bint touches, met
    cdef Body ba, bb
    cdef CContact c
    with nogil:
        for i in range(k):
            ia = a[i]
            ib = b[i]
            pair_tol = tol
            key = (r.entity[ia] << 32) | r.entity[ib]
            if with_keep:
                if sorted_has(keys, &j, key, last):
                    pair_tol = keep_tol
                last = key
            met = with_impacts and when[i] < INFINITY
            ba = row_body(&r, ia, &p[0, 0])
            bb = row_body(&r, ib, &p[0, 0])
            touches = False
            if boxes_within(&ba, &bb, pair_tol + slack):
                tested += 1
                touches = contact_within(&s, &ba, &bb, pair_tol, &c)
            if not (touches or met):
                continue
            index[found] = i
            if touches:
                normal[found, 0] = c.nx
                normal[found, 1] = c.ny
                floats[0, found] = c.depth
                point[found, 0] = c.px
                point[found, 1] = c.py
            else:  # met during the step, apart at its end: the impact's contact
                normal[found, 0] = inormal[i, 0]
                normal[found, 1] = inormal[i, 1]
                floats[0, found] = 0.0
                point[found, 0] = ipoint[i, 0]
                point[found, 1] = ipoint[i, 1]
            floats[1, found] = when[i] if met else INFINITY
            floats[2, found] = approach[i] if met and with_speed else 0.0
            if columns:
                ints[0, found] = key
                ints[1, found] = r.entity[ia]
                ints[2, found] = r.entity[ib]
                ints[3, found] = r.layer[ia]
                ints[4, found] = r.layer[ib]
                sensor[found] = 1 if r.sensor[ia] or r.sensor[ib] else 0
                if not sensor[found] and floats[0, found] > deepest:
                    deepest = floats[0, found]
            found += 1
    if not columns:
        return index_[:found], normal_[:found], floats_[0, :found], point_[:found], tested
    result = ContactSet(
        a=ints_[1, :found], b=ints_[2, :found], normal=normal_[:found],
        depth=floats_[0, :found], point=point_[:found], toi=floats_[1, :found],
        sensor=sensor_[:found], speed=floats_[2, :found], layer_a=ints_[3, :found],
        layer_b=ints_[4, :found], _keys=ints_[0, :found])
    return result, tested, deepest


#: How much wider than the contact offset the separation offset is by default: a pair that
#: touched in the previous step stops touching only when its shapes are apart by more than
#: ``SEPARATION_FACTOR * contact_offset`` (hysteresis: "resting pairs must not flicker").
SEPARATION_FACTOR = 2.0


class NarrowphaseSystem(esper.Processor):
    """Stages 3 and 5: the exact contacts of the candidate pairs at the end of the step.

    Parameters:
        table: the body table.
        contact_offset: shapes this close start touching.
        separation_offset: a pair already touching stops only beyond this gap (None:
            ``SEPARATION_FACTOR * contact_offset``); not below ``contact_offset``.
    """

    def __init__(self, table, contact_offset=0.01, separation_offset=None):
        self.table = table
        self.contact_offset = contact_offset
        if separation_offset is None:
            separation_offset = SEPARATION_FACTOR * contact_offset
        self.separation_offset = max(separation_offset, contact_offset)
        self.result = ContactSet()
        self.tests = 0  # exact pair tests run in the last step (diagnostics)
        #: the largest depth of a touching pair without a sensor in the last step
        self.deepest = -np.inf
        self.last_input = None

    def process(self, ra, rb, toi=None, speed=None, normal=None, point=None, changed=None):
        """Contacts of the pairs at the table's current positions into ``self.result``.

        ``ra`` / ``rb`` come in entity-pair order (the broadphase's). The pairs that touched in
        the last ``process`` (``self.result``) keep touching up to the separation offset,
        except those with an entity in ``changed`` (collider or geometry changed: they start
        again like new pairs). With ``toi`` (and the impacts' ``speed``, ``normal``, ``point``:
        per pair, from the response), a pair that met during the step touches even if it
        ends the step apart (see `touching_pairs`).

        The candidates come from swept boxes; pairs whose boxes at the end of the step are
        apart by more than their tolerance cannot touch and are not tested (the same result,
        fewer exact tests)."""
        t = self.table
        prev = self.result
        prev_keys = None
        if len(prev) and self.separation_offset > self.contact_offset:
            prev_keys = prev.keys
            if changed:
                ch = np.fromiter(changed, dtype=np.int64, count=len(changed))
                prev_keys = prev_keys[~(np.isin(prev.a, ch) | np.isin(prev.b, ch))]
        if toi is not None and normal is None:
            normal = np.zeros((len(toi), 2))
        if toi is not None and point is None:
            point = np.zeros((len(toi), 2))
        #: what the last step tested (tests and diagnostics): the pairs, the previous step's
        #: keys that kept the wider tolerance, and the impacts
        self.last_input = (ra, rb, prev_keys, toi, normal, point)
        self.result, self.tests, self.deepest = touching_pairs(
            t, ra, rb, t.pos, self.contact_offset, self.separation_offset, prev_keys,
            toi, normal, point, speed, columns=True)

    def reset(self):
        """Forget the last step's contacts (no hysteresis for them in the next step)."""
        self.result = ContactSet()
