# cython: embedsignature=True
"""The step's stages in one compiled call: integrate, broadphase, response, narrowphase,
ground and the world's limits, over C views of the body table.

Guarantees:
- ``Step.run(dt)`` is what `Physics` calls once a step, after adoption and the tile maps'
  refresh (Python: they follow what the game changed) and before the events (Python: the
  handlers are the game's code). Inside, the stages run in order through the same compiled
  functions their own entries use (``IntegrateSystem.process``, ``BroadphaseSystem.process``,
  ``ResponseSystem.process``, ``NarrowphaseSystem.process``, ``ground_pass``,
  ``keep_in_limits``), so a step gives the same bits either way; between them no Python call
  is made and no NumPy array is built;
- Python runs inside only where a change or the game's code asks for it: the broadphase's
  ``prepare`` (a new layout, statics that changed), ``filter_pair`` (a Python call per pair),
  a collider or shape changed (the narrowphase drops those pairs' history through NumPy),
  and the rare step where the response found pairs beyond the swept boxes (merged in entity
  order with NumPy: `merge_pairs`);
- all or nothing when ``filter_pair`` raises: the bodies' motion is put back as it was;
- the C views of the table's columns are taken again only when the table grew them
  (`state.table_view.rows_of`);
- ``times`` holds when each stage ended in the last run (``time.perf_counter`` seconds), for
  ``Physics.timings``.
"""

import numpy as np

from libc.math cimport M_PI, cos
from libc.stdint cimport int64_t

from ..broadphase.boxindex cimport BoxIndex
from ..broadphase.stage cimport Stage
from ..state.carray cimport as_c, c_array
from ..geometry.shape_data cimport Store, store_of
from ..state.table_view cimport Rows, rows_of
from .contact_rows cimport ContactRows
from .gil cimport NOGIL_MIN
from .ground cimport ground_rows
from .integrate cimport integrate_rows, limit_motion
from .narrowphase cimport NarrowphaseSystem
from .response cimport IndexView, ResponseSystem, index_view, widen_index

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API

from ..state.contact_set import pair_keys


from time import perf_counter as _perf_counter


cdef inline double _now():
    """``time.perf_counter()``: the clock `Physics` reads around the call (on every
    platform)."""
    return _perf_counter()


def merge_pairs(t, *parts):
    """Concatenate pair lists (rows a, rows b, then any per-pair columns: times, speeds...),
    ordered by entity pair like the broadphase's output."""
    cols = [np.concatenate(c) for c in zip(*parts, strict=True)]
    ra, rb = cols[0], cols[1]
    order = np.argsort(pair_keys(t.entity[ra], t.entity[rb]), kind="stable")
    return tuple(c[order] for c in cols)


cdef class Step:
    """One step's stages for a `Physics` (see the module comment)."""

    cdef object table
    cdef object broadphase
    cdef Stage stage
    cdef ResponseSystem response
    cdef NarrowphaseSystem narrowphase
    cdef double upx, upy, cos_floor
    cdef BoxIndex index      # the broadphase's index, if compiled and its boxes reach far
                             # enough for widen (else None: widen looks at every row)
    #: when the last run started and each stage ended (see the module comment)
    cdef readonly tuple times

    def __init__(self, table, broadphase, ResponseSystem response not None,
                 NarrowphaseSystem narrowphase not None, up, double floor_max_angle):
        self.table = table
        self.broadphase = broadphase
        self.stage = broadphase.stage
        self.response = response
        self.narrowphase = narrowphase
        self.upx = up[0]
        self.upy = up[1]
        # (the same bits as math.cos(math.radians(angle)))
        self.cos_floor = cos(floor_max_angle * (M_PI / 180.0))
        self.times = (0.0, 0.0, 0.0, 0.0, 0.0)
        self.index = widen_index(broadphase, response.contact_offset)

    def run(self, double dt):
        """Integrate, broadphase, response, narrowphase, ground and limits for ``dt``;
        returns the step's `ContactRows`."""
        t = self.table
        bp = self.broadphase
        cdef Stage stage = self.stage
        cdef ResponseSystem response = self.response
        cdef NarrowphaseSystem narrow = self.narrowphase
        cdef double c0 = _now(), c1, c2, c3, c4
        # the C views, taken again after the game's code ran (filter_pair may query the
        # world, which may add shapes to the store)
        cdef Rows r = rows_of(t)
        cdef Store s = store_of(t.store)
        cdef IndexView iv
        fp = bp.filter_pair
        # filter_pair is the game's code inside the step: if it raises, the bodies are put
        # back as they were, so the step is all or nothing
        saved = t.motion() if fp is not None else None
        try:
            if r.n >= NOGIL_MIN:
                with nogil:
                    integrate_rows(&r, r.n, dt)  # keeps the start positions in prev first
            else:
                integrate_rows(&r, r.n, dt)
            c1 = _now()
            bp.prepare()
            stage.run_c(bp.index, t, bp.contact_offset, bp.check_layers, &r, &s)
            bp.after_stage()
            c2 = _now()
            if fp is not None:  # its answers may change between steps
                response.forget_end()
                r = rows_of(t)
                s = store_of(t.store)
            response.filter_pair = fp
            index_view(&iv, self.index, stage, bp._slots)
            response.respond(stage.pa, stage.pb, <int> stage.npairs, dt, &iv, &r, &s)
        except BaseException:
            if saved is not None:
                t.set_motion(saved)
            raise
        c3 = _now()
        if fp is not None:
            r = rows_of(t)
            s = store_of(t.store)
        # every pair's first impact of the step: the broadphase's pairs, then the extra ones
        cdef Py_ssize_t k = stage.npairs, na
        cdef const int64_t* a = stage.pa
        cdef const int64_t* b = stage.pb
        if response.pair_impacts.n > k:  # pairs of bodies pushed beyond their boxes
            ra, rb = self._merged(k)
            ra = as_c(ra, b'i')
            rb = as_c(rb, b'i')
            a = <const int64_t*> c_array(ra, b'i', &na)
            b = <const int64_t*> c_array(rb, b'i', &k)
        else:  # read where the response left them
            narrow.step_rows(a, b, k, t.changed, response.pair_impacts, bp, &r, &s)
        cdef ContactRows rows = narrow.rows
        response.note_end_c(rows.deepest)
        ground_rows(&r, a, b, k, rows, self.upx, self.upy, self.cos_floor)
        # impulses, pushes and a rider leaving its platform stay within the valid range
        if r.n >= NOGIL_MIN:
            with nogil:
                limit_motion(r.pos, r.vel, r.n)
        else:
            limit_motion(r.pos, r.vel, r.n)
        t.pose_version += 1  # queries made from filter_pair during the step look again
        c4 = _now()
        self.times = (c0, c1, c2, c3, c4)
        return rows

    cdef tuple _merged(self, Py_ssize_t k):
        """The narrowphase for the broadphase's pairs and those the response found beyond
        the boxes, merged in entity order; returns the merged ``(ra, rb)``."""
        t = self.table
        bp = self.broadphase
        response = self.response
        extra = response.extra
        toi, speed, normal, point = response.impacts
        ra, rb, toi, speed, normal, point = merge_pairs(
            t, (bp.ra, bp.rb, toi[:k], speed[:k], normal[:k], point[:k]),
            (extra[0], extra[1], toi[k:], speed[k:], normal[k:], point[k:]))
        self.narrowphase.process(ra, rb, toi, speed, normal, point, t.changed)
        return ra, rb
