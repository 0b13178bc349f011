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
  a collider or shape changed (the narrowphase drops those pairs' history through NumPy);
  the rare step where the response found pairs beyond the swept boxes merges them in entity
  order in C (`Step._merged`) into two new arrays;
- all or nothing when ``filter_pair`` raises: the bodies' motion is put back as it was;
- the C views of the table's columns are taken again only when the table grew them
  (`state.table_view.rows_of`);
- ``times`` holds when each stage ended in the last run (``time.perf_counter`` seconds), for
  ``Physics.timings``.
"""

from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc

from ..broadphase.boxindex cimport BoxIndex, Buf, buf_free, sort_keys
from ..broadphase.stage cimport Stage, pair_key
from ..state.carray cimport c_array, new_array
from ..geometry.shape_data cimport Store, store_of
from ..state.table_view cimport Rows, rows_of
from .contact_rows cimport ContactRows
from .gil cimport NOGIL_MIN
from .ground cimport floor_cos, ground_rows
from .impacts cimport Impacts
from .integrate cimport integrate_listed, integrate_some, limit_some
from .narrowphase cimport NarrowphaseSystem
from .response cimport IndexView, ResponseSystem, index_view, widen_index
from .sleep cimport fall_asleep, mark_dormant, note_fell, rest_rows, wake_marks

import numpy as np

from .sleep import wake_marked

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API


from time import perf_counter as _perf_counter


cdef extern from *:
    """
    #if defined(__linux__)
    #include <time.h>
    /* time.perf_counter() as CPython reads it on Linux (CLOCK_MONOTONIC, in seconds), without
       a Python call; 0 elsewhere (the caller then asks Python) */
    static int ecsphys_monotonic(double* out) {
        struct timespec ts;
        long long ns;
        if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
        ns = (long long)ts.tv_sec * 1000000000LL + (long long)ts.tv_nsec;
        *out = (ns % 1000000000LL == 0) ? (double)(ns / 1000000000LL) : (double)ns / 1e9;
        return 1;
    }
    #else
    static int ecsphys_monotonic(double* out) { (void)out; return 0; }
    #endif
    """
    int ecsphys_monotonic(double* out) noexcept nogil


cdef inline double _now():
    """``time.perf_counter()``: the clock `Physics` reads around the call (on every
    platform; on Linux read in C, the same clock)."""
    cdef double t
    if ecsphys_monotonic(&t):
        return t
    return _perf_counter()


cdef class _Pairs:
    """A step's merged pairs as arrays (what the narrowphase reads them from when it must)."""
    cdef readonly object ra
    cdef readonly object rb

    def __init__(self, ra, rb):
        self.ra = ra
        self.rb = rb


cdef int _merge(const int64_t* entity, const int64_t* pa, const int64_t* pb, Py_ssize_t k,
                const int64_t* ea, const int64_t* eb, Py_ssize_t x, uint64_t* keys,
                int64_t* order, Buf* tmp, int64_t* ma, int64_t* mb, Impacts src,
                Impacts dst) noexcept nogil:
    """`Step._merged`'s merge: the ``x`` extra pairs (ea, eb) sorted by key (stable), then
    merged with the broadphase's ``k`` (pa, pb; a tie: the broadphase's first) into ma, mb
    and their impacts from ``src`` into ``dst``; -1 when out of memory."""
    cdef Py_ssize_t i = 0, j = 0, o, q
    for q in range(x):
        keys[q] = pair_key(entity, ea[q], eb[q])
        order[q] = q
    if sort_keys(keys, order, x, tmp) < 0:
        return -1
    for o in range(k + x):
        if j == x or (i < k and pair_key(entity, pa[i], pb[i]) <= keys[j]):
            ma[o] = pa[i]
            mb[o] = pb[i]
            q = i
            i += 1
        else:
            ma[o] = ea[order[j]]
            mb[o] = eb[order[j]]
            q = k + order[j]
            j += 1
        dst.toi[o] = src.toi[q]
        dst.speed[o] = src.speed[q]
        dst.normal[2 * o] = src.normal[2 * q]
        dst.normal[2 * o + 1] = src.normal[2 * q + 1]
        dst.point[2 * o] = src.point[2 * q]
        dst.point[2 * o + 1] = src.point[2 * q + 1]
    return 0


cdef object _follow_awake(object table, object awake, object moved):
    """The rows not asleep, ascending, after only the rows ``moved`` (ascending, each once)
    fell asleep or woke: ``awake`` (ascending) less those asleep now, merged with those of
    ``moved`` awake now (each row once), at the cost of the two lists."""
    cdef Py_ssize_t na, nm, i = 0, j = 0, o = 0
    cdef const int64_t* a = <const int64_t*> c_array(awake, b'i', &na)
    cdef const int64_t* m = <const int64_t*> c_array(moved, b'i', &nm)
    cdef const unsigned char* asleep = <const unsigned char*> cnp.PyArray_DATA(
        <cnp.ndarray> table.asleep)
    out_ = new_array(na + nm, -1, b'i')
    cdef int64_t* out = <int64_t*> cnp.PyArray_DATA(<cnp.ndarray> out_)
    with nogil:
        while i < na or j < nm:
            if i < na and (j >= nm or a[i] < m[j]):
                if not asleep[a[i]]:
                    out[o] = a[i]
                    o += 1
                i += 1
            else:
                if i < na and a[i] == m[j]:
                    i += 1
                if not asleep[m[j]]:
                    out[o] = m[j]
                    o += 1
                j += 1
    return out_[:o]


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
    cdef Impacts merged      # the impacts of `_merged`'s pairs, in their order
    cdef Buf sort_tmp        # `_merged`'s sort buffer
    #: when the last run started and each stage ended (see the module comment)
    cdef double _times[5]
    #: sleeping (`systems.sleep`): seconds at rest before an island sleeps (< 0: never),
    #: the speed limit of rest without acceleration, and how near a body wakes a sleeper
    cdef public double sleep_after
    cdef public double sleep_speed
    cdef public double wake_offset
    cdef bint _still            # every body slept at the end of the last run ...
    cdef tuple _still_key       # ... with these layout, statics, rows and sleepers
    cdef bint _rows_quiet       # the last run's contacts are marked as met in no impact
    cdef readonly Py_ssize_t quiet_steps  # steps that were quiet (`quiet`), diagnostics
    cdef object _awake_arr      # the rows not asleep, ascending (while something sleeps) ...
    cdef tuple _awake_key       # ... for these layout, rows and sleep versions
    #: ``woke(table, rows_woken=None)``: the contacts follow a change of the sleep state (the
    #: events' `EventsSystem.woke`: sleeping pairs that woke come back into the last step's
    #: rows; ``rows_woken``: the change was only that these rows woke)
    cdef public object woke
    #: ``woke_late(table, rows_woken)``: islands woke after the step's contacts were found
    #: (sleepers struck in the response: `EventsSystem.woke_late`)
    cdef public object woke_late
    cdef object _loc            # `fall_asleep`'s local id per row, all -1 between its calls
    cdef Py_ssize_t _nloc       # (its length)
    cdef int64_t* _fell         # the rows that fell asleep in the run (room for _nfell)
    cdef Py_ssize_t _nfell
    cdef object _mark           # `_wake`'s flag per row, all zero between its calls ...
    cdef bint _mark_dirty       # ... unless a call left early (then made afresh)

    def __init__(self, table, broadphase, ResponseSystem response not None,
                 NarrowphaseSystem narrowphase not None, up, double floor_max_angle):
        self.table = table
        self.broadphase = broadphase
        self.stage = broadphase.stage
        self.response = response
        self.narrowphase = narrowphase
        self.upx = up[0]
        self.upy = up[1]
        self.cos_floor = floor_cos(floor_max_angle)
        self._times[:] = [0.0, 0.0, 0.0, 0.0, 0.0]
        self.index = widen_index(broadphase, response.contact_offset)
        self.merged = Impacts()
        self.sort_tmp.p = NULL
        self.sort_tmp.cap = 0
        self.sleep_after = -1.0
        self.sleep_speed = 0.0
        self.wake_offset = narrowphase.contact_offset
        self._still = False
        self._still_key = None
        self._rows_quiet = False
        self.quiet_steps = 0
        self._awake_arr = None
        self._awake_key = None
        self.woke = None
        self.woke_late = None
        self._loc = None
        self._mark = None
        self._mark_dirty = False

    cdef const int64_t* _awake(self, Py_ssize_t* k) except? NULL:
        """The rows not asleep, ascending, and their count in ``k``; NULL with ``k`` = n
        while nothing sleeps (every row: the loops run over ``0 .. n``)."""
        t = self.table
        if not t.sleepers:
            k[0] = t.n
            return NULL
        key = (t.layout_version, t.n, t.sleep_version)
        if key != self._awake_key:
            old = self._awake_key
            moved = (t.sleep_moves_since(old[2]) if old is not None and old[:2] == key[:2]
                     else None)
            if moved is None:  # (a new layout, or a change the log does not cover)
                self._awake_arr = np.flatnonzero(t.asleep[: t.n] == 0).astype(np.int64)
            else:  # the few rows that fell asleep or woke since
                self._awake_arr = _follow_awake(t, self._awake_arr, moved)
            self._awake_key = key
        k[0] = len(self._awake_arr)
        return <const int64_t*> cnp.PyArray_DATA(<cnp.ndarray> self._awake_arr)

    def __dealloc__(self):
        buf_free(&self.sort_tmp)
        free(self._fell)

    @property
    def times(self):
        """When the last run started and each stage ended (`time.perf_counter` seconds),
        a tuple of five, made when read."""
        return (self._times[0], self._times[1], self._times[2], self._times[3],
                self._times[4])

    def run(self, double dt, forced=None):
        """Integrate, broadphase, response, narrowphase, ground and limits for ``dt``;
        returns the step's `ContactRows`. ``forced``: None, or a uint8 flag per row for the
        STATIC bodies the game changed since the last step (they wake the sleepers they
        reach; `systems.sleep.take_requests`)."""
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
        cdef Py_ssize_t nw
        cdef unsigned char* hit = NULL
        cdef const int64_t* awake = self._awake(&nw)  # the loops over rows: these only
        fp = bp.filter_pair
        # filter_pair is the game's code inside the step: if it raises, the bodies are put
        # back as they were, so the step is all or nothing
        saved = t.motion() if fp is not None else None
        try:
            if nw >= NOGIL_MIN:
                with nogil:
                    integrate_some(&r, awake, nw, dt)  # keeps the start positions in prev
            else:
                integrate_some(&r, awake, nw, dt)
            c1 = _now()
            bp.prepare()
            stage.run_c(bp.index, t, bp.contact_offset, not bp._all_layers_pass, &r, &s)
            if fp is not None:
                bp.after_stage()
            if t.sleepers:  # what the awake bodies can reach this step wakes first
                self._wake(dt, forced, &r, &s)
                awake = self._awake(&nw)
            c2 = _now()
            if fp is not None:  # its answers may change between steps
                response.forget_end()
                r = rows_of(t)
                s = store_of(t.store)
            response.filter_pair = fp
            index_view(&iv, self.index, stage, bp._slots)
            if t.sleepers:  # (the marks, zero after `_wake`: the sleepers struck)
                hit = <unsigned char*> cnp.PyArray_DATA(<cnp.ndarray> self._mark)
                self._mark_dirty = True
            response.respond(stage.pa, stage.pb, <int> stage.npairs, dt, &iv, &r, &s,
                             awake, nw, hit)
        except BaseException:
            if saved is not None:
                t.set_motion(saved)  # (the sleep state too)
                if self.woke is not None:  # (islands woken in this step sleep again)
                    self.woke(t)
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
            merged = self._merged(k, &r)
            a = <const int64_t*> c_array(merged.ra, b'i', &na)
            b = <const int64_t*> c_array(merged.rb, b'i', &k)
            narrow.step_rows(a, b, k, t.changed, self.merged, merged, &r, &s)
        else:  # read where the response left them
            narrow.step_rows(a, b, k, t.changed, response.pair_impacts, bp, &r, &s)
        cdef ContactRows rows = narrow.rows
        response.note_end_c(rows.deepest, &r, awake, nw)
        ground_rows(&r, a, b, k, rows, self.upx, self.upy, self.cos_floor, awake, nw)
        # impulses, pushes and a rider leaving its platform stay within the valid range
        if nw >= NOGIL_MIN:
            with nogil:
                limit_some(r.pos, r.vel, awake, nw)
        else:
            limit_some(r.pos, r.vel, awake, nw)
        if hit != NULL:
            if response.sleepers_hit:  # struck sleepers wake with their islands, now
                woken = wake_marked(t, self._mark)  # (the marks cleared)
                if self.woke_late is not None:
                    self.woke_late(t, woken)
                rows = narrow.rows  # (their contacts, back from the sleeping ones)
                r = rows_of(t)
                awake = self._awake(&nw)
            self._mark_dirty = False
        cdef Py_ssize_t fell = 0, moving = 1
        if self.sleep_after >= 0.0 and rest_rows(&r, awake, nw, dt, self.sleep_speed,
                                                 self.sleep_after, &moving):
            if self._nfell < nw:  # (C memory kept between runs: no array made per run)
                free(self._fell)
                self._nfell = 0
                self._fell = <int64_t*> malloc((nw + nw // 4 + 16) * sizeof(int64_t))
                if self._fell == NULL:
                    raise MemoryError(f"cannot find the islands of {r.n} bodies")
                self._nfell = nw + nw // 4 + 16
            if self._nloc < r.n:
                self._loc = np.full(max(r.n + r.n // 4, 16), -1, dtype=np.intc)
                self._nloc = len(self._loc)
            fell = fall_asleep(&r, awake, nw, a, b, rows.index, rows.sensor, rows.n,
                               self.sleep_after,
                               <int*> cnp.PyArray_DATA(<cnp.ndarray> self._loc), self._fell)
            if fell < 0:
                raise MemoryError(f"cannot find the islands of {r.n} bodies")
            if fell:
                note_fell(t, &r, self._fell, fell)
        if t.sleepers:  # the pairs of sleepers and statics go to the sleeping contacts
            mark_dormant(&r, a, b, rows)
        # (a world without bodies is as still as one whose every body sleeps)
        self._still = (moving == fell and t.sleepers > 0) or t.n == 0
        self._rows_quiet = False
        if self._still:
            self._still_key = (t.layout_version, t.static_version, t.n, t.sleepers)
        t.pose_version += 1  # queries made from filter_pair during the step look again
        c4 = _now()
        self._times[:] = [c0, c1, c2, c3, c4]
        return rows

    def quiet(self):
        """The last run's `ContactRows` if this step can be quiet, else None: every body slept
        (or there was none) at the end of the last run and nothing changed since (no row added, removed or
        re-shaped, no static body changed, no tile dug, nothing woken or written). A quiet
        step moves nothing: the bodies and their contacts stay as they are; the contacts
        are marked as met in no impact (``toi`` inf, ``speed`` 0)."""
        if not self._still:
            return None
        t = self.table
        # (``static_dirty`` / ``static_all`` left by this run's own sleep changes are not a
        # change: the broadphase indexes them at the next step that runs; the game's changes
        # to statics move ``static_version``)
        if (t.tile_regions or t.touched or t.changed
                or self._still_key != (t.layout_version, t.static_version, t.n, t.sleepers)):
            self._still = False
            return None
        cdef ContactRows rows = self.narrowphase.rows
        cdef Py_ssize_t i
        cdef double now = _now()
        if not self._rows_quiet:
            for i in range(rows.n):
                rows.toi[i] = INFINITY
                rows.speed[i] = 0.0
            rows.cached_set = None
            rows.cached_pairs = None
            self._rows_quiet = True
        self.quiet_steps += 1
        self._times[:] = [now, now, now, now, now]
        return rows

    cdef int _wake(self, double dt, forced, Rows* r, Store* s) except -1:
        """Wake the islands of the sleepers the awake bodies (and the STATIC bodies the game
        changed, ``forced``) can reach in this step, integrate them and find the pairs
        again, until no more wake (each round wakes at least one island)."""
        cdef Stage stage = self.stage
        t = self.table
        bp = self.broadphase
        cdef Py_ssize_t count, nr
        cdef const unsigned char* fp = NULL
        if forced is not None:
            fp = <const unsigned char*> c_array(forced, b'b', &count)
            if count < r.n:
                raise ValueError(f"forced holds {count} rows, not {r.n}")
        # the marks: kept zeroed between steps (a step that wakes nothing marks nothing), so a
        # sleeping world's step does not allocate and clear a flag per row
        if self._mark is None or len(self._mark) < r.n or self._mark_dirty:
            self._mark = np.zeros(max(r.n + r.n // 4, 1), dtype=np.uint8)
        mark = self._mark
        cdef unsigned char* mp = <unsigned char*> cnp.PyArray_DATA(<cnp.ndarray> mark)
        self._mark_dirty = True  # (until the loop leaves it zeroed: not if it raises)
        while wake_marks(r, s, stage.pa, stage.pb, stage.npairs, self.wake_offset, fp, mp):
            woken = wake_marked(t, mark)  # (the marks cleared)
            if self.woke is not None:
                self.woke(t, woken)
            integrate_listed(r, <const int64_t*> c_array(woken, b'i', &nr), nr, dt)
            bp.prepare()
            stage.run_c(bp.index, t, bp.contact_offset, not bp._all_layers_pass, r, s)
            if bp.filter_pair is not None:
                bp.after_stage()
            r[0] = rows_of(t)  # (filter_pair, the game's code, may have added shapes)
            s[0] = store_of(t.store)
        self._mark_dirty = False
        return 0

    cdef _Pairs _merged(self, Py_ssize_t k, const Rows* r):
        """The broadphase's ``k`` pairs and those the response found beyond the boxes, merged
        in entity-pair order (a tie: the broadphase's first; a stable sort of the two lists),
        as new arrays; their impacts into ``self.merged``, in that order."""
        cdef ResponseSystem response = self.response
        cdef Impacts src = response.pair_impacts
        cdef Impacts dst = self.merged
        cdef Py_ssize_t total = src.n, x = src.n - k, nx
        cdef const int64_t* pa = self.stage.pa
        cdef const int64_t* pb = self.stage.pb
        cdef const int64_t* ea = <const int64_t*> c_array(response.extra[0], b'i', &nx)
        cdef const int64_t* eb = <const int64_t*> c_array(response.extra[1], b'i', &nx)
        cdef const int64_t* entity = r.entity
        if nx != x:
            raise ValueError(f"the response's extra pairs ({nx}) are not its impacts' ({x})")
        ra = new_array(total, -1, b'i')
        rb = new_array(total, -1, b'i')
        cdef int64_t* ma = <int64_t*> cnp.PyArray_DATA(<cnp.ndarray> ra)
        cdef int64_t* mb = <int64_t*> cnp.PyArray_DATA(<cnp.ndarray> rb)
        dst.reserve(total)
        cdef uint64_t* keys = <uint64_t*> malloc(x * sizeof(uint64_t))
        cdef int64_t* order = <int64_t*> malloc(x * sizeof(int64_t))
        cdef int failed = keys == NULL or order == NULL
        try:
            if total >= NOGIL_MIN:
                with nogil:
                    failed = failed or _merge(entity, pa, pb, k, ea, eb, x, keys, order,
                                              &self.sort_tmp, ma, mb, src, dst) < 0
            else:
                failed = failed or _merge(entity, pa, pb, k, ea, eb, x, keys, order,
                                          &self.sort_tmp, ma, mb, src, dst) < 0
        finally:
            free(keys)
            free(order)
        if failed:
            raise MemoryError(f"cannot merge {total} pairs")
        return _Pairs(ra, rb)
