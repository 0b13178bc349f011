# cython: embedsignature=True
"""Stage 4 of the step: the sphere slide, one body at a time, compiled; momentum; no tunneling.

Guarantees (for the solid pairs: neither side a sensor; each rule is stated in full, with its
exceptions, in the module named for it):
- bodies that start the step overlapping are pushed apart along the contact normal, shared by
  inverse mass, never into or through a wall, and a pair that walls stop both ways is not
  left overlapping (`push_apart`); a body buried in a solid tile leaves it the short way
  (`tile_burial`);
- bodies move one at a time, each against the others where they are at that moment, cut at
  their first time of impact a ``skin`` before it, the rest of the move slid along the
  tangent up to ``max_slides`` times, so no body ends the step overlapping a solid one by more
  than the impact tolerance, however fast it moved; a body blocked by a PASSIVE one pushes it;
  a ``stop_on_slope`` body keeps its move along a floor (`slide`);
- the order is fixed: riders after their carriers (`riders`), then rows in ascending order,
  except that a body whose first impact is with a body that has not moved yet in this step
  lets that one move first (`slide.move_from`); then the snaps of characters that left their
  floor (`riders.snap_down`). The same scene gives the same result, bit for bit;
- velocities lose their part into each impact, or reflect it scaled by restitution, momentum
  shared by mass, with Coulomb friction; a pair slower than `rest_speed` rests, and a body
  with an acceleration keeps no velocity into what held it back (`momentum`);
- a one-way body is met only by a body whose contact normal runs against its direction and
  that does not start the step inside it (`slide_context.one_way_solid`);
- a body that gets further than the box the broadphase swept for it gets its pairs looked up
  again among every solid body, the same pairs with the broadphase's index or without
  (`reach`; for many bodies pushed apart at once, `reach_sweep`; the push apart's look-ups of
  the bodies never pushed, `fixed_cells`); those pairs go to the narrowphase too (``extra``);
  an error raised by ``filter_pair`` there leaves the compiled code at once and reaches the
  caller (``Physics`` puts the bodies back as they were before the step);
- per pair, the time of impact, normal, point and approach speed of its first impact for the
  events (`slide`), copied into ``pair_impacts``;
- a sleeper is a fixed partner (inverse mass 0, never pushed, reach 0) to a body that meets it
  at rest; one struck faster exchanges momentum with it and is marked in ``hit`` (`respond`'s
  flags per row, when given), so the step wakes its island in this step (`systems.step`);
  while something sleeps the step sets up and moves only the awake rows and the sleepers it
  meets, each set up when first met (`live_rows`; ``live_rows = False``: every row, the same
  bits);
- after a step that ended with no two solid bodies overlapping (`note_end`), the next looks
  for overlaps to push apart only among the rows that moved or changed since (`_Buffers`).

The step's C state is one `Ctx` (``slide_context.pxd``), filled from the buffers kept between
steps (`_Buffers`); `slide_rows` runs the pieces in order: the rows' start (`live_rows`), the
pairs' edges (`pair_edges`), the push apart, the look-ups of the rows it took beyond their
boxes, the moves (`run`), the velocities that match them (`momentum.match_motion`), the
sensors' impacts, and the positions and moves written back.

Python orchestrates: ``ResponseSystem.process`` is one compiled call per step (two only when
``filter_pair`` is set and a body leaves its box); buffers are kept between steps.
"""


import numpy as np

from libc.stdint cimport int64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcpy, memset
from cpython.ref cimport PyObject

from ..broadphase.boxindex cimport BoxIndex, PairList, pl_free
from ..geometry.shape_data cimport Body, Store, store_of
from ..state.carray cimport as_c, c_array

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API
from ..state.table_view cimport GROUND_FLOOR, GROUND_NEW, Rows, rows_of
from .ground cimport floor_cos
from .gil cimport NOGIL_MIN
from .impacts cimport Impacts
from .live_rows cimport stale, start_rows
from .momentum cimport match_motion
from .pair_edges cimport build_edges
from .push_apart cimport push_apart
from .reach cimport mean_extent, widen
from .riders cimport carry_rider, first_carriers, snap_down
from .slide cimport move_from, sensor_impacts
from .slide_context cimport OVERLAP, PENDING, STATIC, Ctx, Reach, live_n, live_row, moving

#: Overlap deeper than this (world units) counts as overlapping for the response (the
#: slide's ``OVERLAP``, slide_context.pxd: one value for both).
OVERLAP_TOL = OVERLAP
_NO_ROWS = np.zeros(0, dtype=np.int64)
#: ``extra`` of a step without pairs beyond the swept boxes (read-only: shared by steps)
_NO_EXTRA = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
for _empty in _NO_EXTRA:
    _empty.flags.writeable = False

# `ResponseSystem.reserve` makes room for this many pairs a body (a crowd starting inside
# itself: 1.7 a body in its first step, with those found beyond the swept boxes)
cdef int RESERVE_PAIRS = 2


cdef class _Buffers:
    """Per-row and per-pair C arrays kept between steps (grown, never shrunk)."""
    cdef Body* body
    cdef double* rest
    cdef double* want
    cdef double* prev_n
    cdef double* carry
    cdef unsigned char* pushed
    cdef double* tleft
    cdef unsigned char* carried
    cdef unsigned char* floored
    cdef Reach* reach
    cdef signed char* state
    cdef int* slides
    cdef int* stack
    cdef int* head
    cdef int* estart
    cdef int* eend
    cdef int cap_n
    cdef int* enext
    cdef int* eother
    cdef int* epair
    cdef int cap_e
    cdef int64_t* pa
    cdef int64_t* pb
    cdef double* ptoi
    cdef double* pspeed
    cdef double* pinfo
    cdef int cap_p
    # the positions at the end of the last step when no two solid bodies overlapped then
    cdef double* end_pos
    cdef int64_t* end_ent     # the entity of each row then
    cdef unsigned char* fresh
    cdef double* region
    cdef int* far
    cdef unsigned char* isfar
    cdef unsigned int* stamp
    cdef int* cand
    cdef unsigned int* mark
    cdef int* live
    cdef unsigned int* seen
    cdef unsigned int tick
    cdef double extent        # `mean_extent` of the rows, for the layout version extent_key
    cdef object extent_key
    cdef PairList found
    cdef int end_n
    cdef int end_w            # rows of end_pos / end_ent ever written
    cdef bint fresh_live      # the last fresh_rows marked only the awake rows
    cdef object end_version   # not None: the end was clean

    def __dealloc__(self):
        free(self.body); free(self.rest); free(self.want); free(self.prev_n); free(self.reach)
        free(self.carry); free(self.carried); free(self.floored)
        free(self.pushed); free(self.tleft)
        free(self.state); free(self.slides); free(self.stack); free(self.head)
        free(self.estart); free(self.eend)
        free(self.enext); free(self.eother); free(self.epair)
        free(self.pa); free(self.pb); free(self.ptoi); free(self.pspeed)
        free(self.pinfo)
        free(self.end_pos); free(self.end_ent); free(self.fresh); free(self.region)
        free(self.far); free(self.isfar); free(self.stamp); free(self.cand); free(self.mark)
        free(self.live); free(self.seen)
        pl_free(&self.found)

    cdef int rows(self, int n, bint touch=False) except -1:
        """Room for n rows (and for the row count + 1 of the edge starts, so never none);
        ``touch``: the memory it adds written once (`ResponseSystem.reserve`)."""
        if n < self.cap_n:
            return 0
        cdef int old = self.cap_n
        cdef int cap = max(n, 2 * self.cap_n, 64)
        self.body = <Body*> _regrow(self.body, sizeof(Body), old, cap, touch)
        self.rest = <double*> _regrow(self.rest, 2 * sizeof(double), old, cap, touch)
        self.want = <double*> _regrow(self.want, 2 * sizeof(double), old, cap, touch)
        self.prev_n = <double*> _regrow(self.prev_n, 2 * sizeof(double), old, cap, touch)
        self.carry = <double*> _regrow(self.carry, 2 * sizeof(double), old, cap, touch)
        self.pushed = <unsigned char*> _regrow(self.pushed, sizeof(unsigned char), old, cap,
                                               touch)
        self.tleft = <double*> _regrow(self.tleft, sizeof(double), old, cap, touch)
        self.carried = <unsigned char*> _regrow(self.carried, sizeof(unsigned char), old,
                                                cap, touch)
        self.floored = <unsigned char*> _regrow(self.floored, sizeof(unsigned char), old,
                                                cap, touch)
        self.reach = <Reach*> _regrow(self.reach, sizeof(Reach), old, cap, touch)
        self.state = <signed char*> _regrow(self.state, sizeof(signed char), old, cap, touch)
        self.slides = <int*> _regrow(self.slides, sizeof(int), old, cap, touch)
        self.stack = <int*> _regrow(self.stack, sizeof(int), old, cap, touch)
        self.head = <int*> _regrow(self.head, sizeof(int), old, cap, touch)
        self.estart = <int*> _regrow(self.estart, sizeof(int), old, cap, touch)
        self.eend = <int*> _regrow(self.eend, sizeof(int), old, cap, touch)
        self.fresh = <unsigned char*> _regrow(self.fresh, sizeof(unsigned char), old, cap,
                                              touch)
        self.region = <double*> _regrow(self.region, 4 * sizeof(double), old, cap, touch)
        self.far = <int*> _regrow(self.far, sizeof(int), old, cap, touch)
        self.isfar = <unsigned char*> _regrow(self.isfar, sizeof(unsigned char), old, cap,
                                              touch)
        self.stamp = <unsigned int*> _regrow(self.stamp, sizeof(unsigned int), old, cap,
                                             touch)
        self.cand = <int*> _regrow(self.cand, sizeof(int), old, cap, touch)
        self.mark = <unsigned int*> _regrow(self.mark, sizeof(unsigned int), old, cap, touch)
        self.live = <int*> _regrow(self.live, sizeof(int), old, cap, touch)
        # (zeros, always: a row added now was set up in no step)
        self.seen = <unsigned int*> _regrow(self.seen, sizeof(unsigned int), old, cap, True)
        self.cap_n = cap
        return 0

    cdef int pairs(self, int p, bint touch=False) except -1:
        """Room for p pairs and their edges; ``touch``: as in `rows`."""
        cdef int old, cap
        if p > self.cap_p:
            old = self.cap_p
            cap = max(p, 2 * self.cap_p, 64)
            self.pa = <int64_t*> _regrow(self.pa, sizeof(int64_t), old, cap, touch)
            self.pb = <int64_t*> _regrow(self.pb, sizeof(int64_t), old, cap, touch)
            self.ptoi = <double*> _regrow(self.ptoi, sizeof(double), old, cap, touch)
            self.pspeed = <double*> _regrow(self.pspeed, sizeof(double), old, cap, touch)
            self.pinfo = <double*> _regrow(self.pinfo, 4 * sizeof(double), old, cap, touch)
            self.cap_p = cap
        if 2 * p > self.cap_e:
            old = self.cap_e
            cap = max(2 * p, 2 * self.cap_e, 128)
            self.enext = <int*> _regrow(self.enext, sizeof(int), old, cap, touch)
            self.eother = <int*> _regrow(self.eother, sizeof(int), old, cap, touch)
            self.epair = <int*> _regrow(self.epair, sizeof(int), old, cap, touch)
            self.cap_e = cap
        return 0

    cdef void into(self, Ctx* c) noexcept:
        c.body = self.body; c.rest = self.rest; c.want = self.want; c.prev_n = self.prev_n
        c.reach = self.reach
        c.carry = self.carry; c.carried = self.carried; c.floored = self.floored
        c.pushed = self.pushed; c.tleft = self.tleft
        c.state = self.state; c.slides = self.slides; c.stack = self.stack; c.head = self.head
        c.estart = self.estart
        c.eend = self.eend
        c.enext = self.enext; c.eother = self.eother; c.epair = self.epair; c.cap_e = self.cap_e
        c.pa = self.pa; c.pb = self.pb; c.ptoi = self.ptoi; c.pspeed = self.pspeed
        c.pinfo = self.pinfo
        c.cap_p = self.cap_p
        c.fresh = NULL
        c.region = self.region
        c.far = self.far; c.isfar = self.isfar; c.stamp = self.stamp
        c.cand = self.cand; c.found = &self.found
        c.mark = self.mark
        c.mgen = 0
        c.live = NULL
        c.nlive = 0
        c.end_pos = NULL
        c.end_ent = NULL
        c.end_n = 0
        c.seen = self.seen
        c.tick = self.tick
        c.index = NULL
        c.dyn = c.srow = NULL
        c.ndyn = c.nsrow = 0
        c.nfar = 0
        c.gen = 0
        c.grow = 0.0
        c.grow_limit = 0.0

    cdef void back(self, const Ctx* c) noexcept:
        """Take over the pair and edge arrays the step grew."""
        self.enext = c.enext; self.eother = c.eother; self.epair = c.epair; self.cap_e = c.cap_e
        self.pa = c.pa; self.pb = c.pb; self.ptoi = c.ptoi; self.pspeed = c.pspeed
        self.pinfo = c.pinfo
        self.cap_p = c.cap_p
        self.tick = c.tick


    cdef int note_clean(self, const Rows* r, bint clean, const int64_t* awake,
                        Py_ssize_t nawake) except -1:
        """Remember the table's positions and entities (``r``: its C rows now) if ``clean``,
        else forget. ``awake`` (not NULL while something sleeps: the rows not asleep) says
        which rows to remember: a sleeper has not moved since it was last remembered awake,
        or it is remembered with another entity or position than it has (a row moved by a
        swap-remove, or moved before a step that was not clean), which only makes it fresh
        when met (rows never remembered hold no entity: -1)."""
        self.end_version = None
        if not clean:
            return 0
        cdef int n = r.n, i
        cdef Py_ssize_t k
        if n + 1 > self.end_w:
            self.end_pos = <double*> _grow(self.end_pos, (2 * n + 2) * sizeof(double))
            self.end_ent = <int64_t*> _grow(self.end_ent, (n + 1) * sizeof(int64_t))
        if awake == NULL:
            if n:
                memcpy(self.end_pos, r.pos, 2 * n * sizeof(double))
                memcpy(self.end_ent, r.entity, n * sizeof(int64_t))
        else:
            for i in range(self.end_w, n):
                self.end_ent[i] = -1
            for k in range(nawake):
                i = <int> awake[k]
                self.end_pos[2 * i] = r.pos[2 * i]
                self.end_pos[2 * i + 1] = r.pos[2 * i + 1]
                self.end_ent[i] = r.entity[i]
        if n > self.end_w:
            self.end_w = n
        self.end_n = n
        self.end_version = True
        return 0

    cdef int fresh_rows(self, const Rows* view, touched, regions, const int64_t* awake,
                        Py_ssize_t nawake) except -2:
        """After a clean end: mark in ``fresh`` the rows to look at for overlaps (a row
        holding another entity than then, or a new one, or moved since, or one the table
        says was re-shaped or changed: ``touched`` rows; 2 with its box in ``region`` for a
        tile map row whose tiles changed only within that box: ``regions``, rows with
        ``(x0, y0, x1, y1)`` relative to the row's position) and return how many; -1 if the
        end was not clean (look at every row). ``view``: the table's C rows now. Forgets the
        end either way. ``awake`` (not NULL while something sleeps: the rows not asleep,
        ascending): only those rows are marked (``fresh_live``; a sleeper is marked when the
        step meets it, `ensure`), unless a touched row or a tile map row sleeps (then every
        row)."""
        clean, self.end_version = self.end_version, None
        self.fresh_live = False
        if clean is None:
            return -1
        cdef int n = view.n, count = 0, r
        cdef Py_ssize_t nrows, k
        cdef const int64_t* rows = <const int64_t*> c_array(touched, b'i', &nrows)
        if awake != NULL:
            for k in range(nrows):
                if 0 <= rows[k] < n and view.asleep[rows[k]]:
                    awake = NULL
            for r, box in regions or ():
                if 0 <= r < n and view.asleep[r]:
                    awake = NULL
        if awake != NULL:
            self.fresh_live = True
            for k in range(nawake):
                r = <int> awake[k]
                self.fresh[r] = stale(self.end_pos, self.end_ent, self.end_n, view, r)
            for k in range(nrows):
                if 0 <= rows[k] < n:
                    self.fresh[rows[k]] = 1
        elif n >= NOGIL_MIN:
            with nogil:
                self._mark_fresh(view, rows, nrows)
        else:
            self._mark_fresh(view, rows, nrows)
        for r, box in regions or ():
            if 0 <= r < n and not self.fresh[r]:
                self.fresh[r] = 2
                self.region[4 * r] = box[0]
                self.region[4 * r + 1] = box[1]
                self.region[4 * r + 2] = box[2]
                self.region[4 * r + 3] = box[3]
        if self.fresh_live:
            for k in range(nawake):
                count += self.fresh[awake[k]] != 0
        else:
            for r in range(n):
                count += self.fresh[r] != 0
        return count

    cdef void _mark_fresh(self, const Rows* view, const int64_t* rows,
                          Py_ssize_t nrows) noexcept nogil:
        """`fresh_rows`'s loops: the rows that moved or changed since the end, and ``rows``."""
        cdef int n = view.n, i, r
        for i in range(n):
            self.fresh[i] = stale(self.end_pos, self.end_ent, self.end_n, view, i)
        for i in range(nrows):
            r = <int> rows[i]
            if 0 <= r < n:
                self.fresh[r] = 1


cdef void* _grow(void* p, size_t size) except NULL:
    cdef void* q = realloc(p, size)
    if q == NULL:
        raise MemoryError()
    return q


cdef void* _regrow(void* p, size_t item, Py_ssize_t old, Py_ssize_t cap,
                   bint touch) except NULL:
    """`_grow` from ``old`` to ``cap`` items of ``item`` bytes (contents kept); ``touch``: the
    items added are written once (zeros), so the system maps their pages in now, not when a
    step first writes them."""
    cdef char* q = <char*> _grow(p, cap * item)
    if touch and cap > old:
        memset(q + old * item, 0, (cap - old) * item)
    return q


# ------------------------------------------------------------------ the stage

cdef int run(Ctx* c) except -1 nogil:
    """Riders after their carriers, then every moving row, one at a time, leaders first
    (see the module notes); then the snaps of characters that left their floor."""
    cdef int i, k
    cdef long budget = 64 * (<long> live_n(c) + c.npairs) * (c.max_slides + 1) + 1024
    for k in range(live_n(c)):
        if c.rows.ground[live_row(c, k)] & GROUND_NEW:
            first_carriers(c)
            break
    for k in range(live_n(c)):
        i = live_row(c, k)
        if c.rows.carrier[i] >= 0:
            carry_rider(c, i, 0, &budget)
    for k in range(live_n(c)):
        i = live_row(c, k)
        if c.state[i] == PENDING and moving(c, i):
            move_from(c, i, &budget)
    if c.snap > 0.0:
        for k in range(live_n(c)):
            i = live_row(c, k)
            if (c.rows.stop_slope[i] and not c.floored[i] and c.rows.kind[i] != STATIC
                    and c.rows.ground[i] & GROUND_FLOOR):
                snap_down(c, i)
    return 0


cdef int slide_rows(Ctx* c, const int64_t* a, const int64_t* b, const int64_t* awake,
                    int nawake, bint pushed) except -1 nogil:
    """`respond`'s work on its C context: the rows' start (`start_rows`), the pairs' edges,
    the push apart (``pushed``), the slide of every moving row, and the rows' final
    positions and moves written back to the table's columns (of the live rows: a sleeper
    the step did not meet stays as it is)."""
    cdef int i, k
    cdef double* pos_col = c.rows.pos
    cdef double* move_col = c.rows.move
    start_rows(c, awake, nawake, a, b)
    build_edges(c, a, b)
    if pushed:
        push_apart(c)
        for k in range(live_n(c)):
            i = live_row(c, k)
            if c.rows.kind[i] != STATIC:
                widen(c, i)
    run(c)
    match_motion(c)
    sensor_impacts(c)
    for k in range(live_n(c)):  # last: c.start is pos_col
        i = live_row(c, k)
        move_col[2 * i] = c.body[i].px - pos_col[2 * i]
        move_col[2 * i + 1] = c.body[i].py - pos_col[2 * i + 1]
        pos_col[2 * i] = c.body[i].px
        pos_col[2 * i + 1] = c.body[i].py
    return 0


cdef void copy_impacts(const Ctx* c, double* toi, double* speed, double* normal,
                       double* point, int total) noexcept nogil:
    """The pairs' first impacts from the context into the `Impacts` columns."""
    cdef int i
    for i in range(total):
        toi[i] = c.ptoi[i]
        speed[i] = c.pspeed[i]
        normal[2 * i] = c.pinfo[4 * i]
        normal[2 * i + 1] = c.pinfo[4 * i + 1]
        point[2 * i] = c.pinfo[4 * i + 2]
        point[2 * i + 1] = c.pinfo[4 * i + 3]


cdef BoxIndex widen_index(object broadphase, double contact_offset):
    """The `BroadphaseSystem`'s index if widen may ask it: a compiled one whose boxes grew by
    at least the response's ``contact_offset``; else None (widen looks at every row)."""
    index = broadphase.index
    if isinstance(index, BoxIndex) and broadphase.contact_offset >= contact_offset:
        return <BoxIndex> index
    return None


cdef void index_view(IndexView* iv, BoxIndex index, Stage stage,
                     Py_ssize_t slots) noexcept:
    """The index for widen as ``stage`` last ran it (its dynamic and static rows; ``slots``
    static ids in use), or none (``index`` None, or the index not run on these rows)."""
    iv.index = NULL
    iv.dyn = iv.srow = NULL
    iv.ndyn = iv.nsrow = 0
    if index is None or stage is None or index.n_last != stage.dyn.shape[0]:
        return
    iv.index = <void*> index
    iv.ndyn = stage.dyn.shape[0]
    iv.dyn = &stage.dyn[0] if iv.ndyn else NULL
    iv.nsrow = slots  # (static ids beyond are free: FREE_ROW)
    iv.srow = &stage.srow[0] if slots else NULL


cdef class ResponseSystem:
    """Stage 4 of the step: turns desired moves into safe moves and adjusts velocities.

    Its fields are declared in response.pxd; ``respond`` is the compiled step's entry,
    ``process`` the same for arrays."""

    def __init__(self, table, max_slides=4, skin=1e-4, contact_offset=0.01, up=(0.0, 1.0),
                 floor_max_angle=45.0, floor_snap=0.1, bounce_threshold=0.5):
        self.table = table
        #: "up" for bodies without acceleration; floors are within floor_max_angle
        #: (degrees) of it; stop_on_slope bodies snap down to floors within floor_snap
        self.up = up
        self.floor_max_angle = floor_max_angle
        self.floor_snap = floor_snap
        #: impacts slower than this (units/s) do not bounce (see `rest_speed`)
        self.bounce_threshold = bounce_threshold
        self.max_slides = max_slides
        self.skin = skin
        self.contact_offset = contact_offset
        self.passes = 0  # impacts handled in the last step (diagnostics)
        self.widened = 0  # rows looked up beyond their swept boxes in the last step
        #: of those, rows pushed so far that every look-up took them on their own
        self.far = 0
        self.sleepers_hit = 0  # sleepers struck in the last step (`respond`)
        #: the game's pair veto (``Physics.filter_pair``), for pairs found here
        self.filter_pair = None
        #: pairs found beyond the broadphase's boxes in the last step (rows a, b, their times
        #: of impact), for the narrowphase: bodies pushed further than their own move
        self.extra = _NO_EXTRA
        #: per pair (the broadphase's, then ``extra``): the first impact of the last step, in
        #: C memory for the narrowphase (see `Impacts`)
        self.pair_impacts = Impacts()
        self._buffers = _Buffers()
        self.pushed_apart = False  # whether the last step looked for overlaps
        #: bodies pushed beyond their swept boxes are looked up in the broadphase's index
        #: (False: among every row, the same pairs; for tests and diagnostics)
        self.widen_by_index = True
        #: while something sleeps, the step sets up only the awake rows and the sleepers it
        #: meets (False: every row, the same bits; for tests and diagnostics)
        self.live_rows = True

    @property
    def impacts(self):
        """Per pair (the broadphase's, then ``extra``) of the last step: time of impact (inf:
        none), approach speed, normal (from a to b) and point of the first impact, as fresh
        arrays."""
        return self.pair_impacts.arrays()

    def reserve(self, n):
        """Room in the step's C buffers for ``n`` bodies and `RESERVE_PAIRS` pairs a body
        (and their impacts), written once now: `Physics` calls it when it has adopted bodies,
        so the first step with them does not spend its time having the system map those
        pages in (about 8 ms at 50,000 bodies). Never shrinks; the step grows them further
        if it needs to."""
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n!r}")
        cdef _Buffers buf = self._buffers
        cdef int rows = n + 1  # (`rows` has room for fewer than its capacity)
        if rows <= buf.cap_n:
            return
        buf.rows(rows, True)
        buf.pairs(RESERVE_PAIRS * rows, True)
        self.pair_impacts.room(RESERVE_PAIRS * rows)

    def note_end(self, deepest):
        """Learn from the deepest contact between solid bodies at the end of a step whether
        any two overlap (the narrowphase tested every pair that can touch), so the next step
        can skip looking for overlaps to push apart if nothing moved or changed in between."""
        cdef Rows r = rows_of(self.table)
        self.note_end_c(deepest, &r, NULL, 0)

    cdef int note_end_c(self, double deepest, const Rows* rows, const int64_t* awake,
                        Py_ssize_t nawake) except -1:
        """`note_end` on the table's C rows now; ``awake``: NULL, or while something sleeps
        the rows not asleep (the step's awake rows: only those moved)."""
        cdef _Buffers buf = self._buffers
        buf.note_clean(rows, not deepest > OVERLAP_TOL, awake, nawake)
        return 0

    def forget_end(self):
        """Look for overlaps to push apart in the next step whatever `note_end` learnt."""
        cdef _Buffers buf = self._buffers
        buf.end_version = None

    def process(self, ra, rb, dt=0.0, broadphase=None):
        """Turn ``table.move`` (desired moves) into safe moves, move ``table.pos`` by them and
        adjust ``table.vel``, for the candidate pairs (ra, rb) of the broadphase.
        ``self.pair_impacts`` holds every pair's first impact (time, approach speed, normal,
        point) and ``self.extra`` the pairs found beyond the swept boxes. ``broadphase``: the `BroadphaseSystem` that found
        (ra, rb) in this step; bodies pushed beyond their boxes are then looked up in its
        index (a compiled one whose boxes grew by at least this ``contact_offset``; otherwise,
        or without it, among every row: the same pairs)."""
        ra_ = as_c(ra, b'i')
        rb_ = as_c(rb, b'i')
        cdef Py_ssize_t na, nb
        cdef const int64_t* a = <const int64_t*> c_array(ra_, b'i', &na)
        cdef const int64_t* b = <const int64_t*> c_array(rb_, b'i', &nb)
        if na != nb:
            raise ValueError(f"ra and rb need the same length, got {na} and {nb}")
        t = self.table
        cdef Py_ssize_t npos, nmove, nvel
        c_array(t.pos, b'f', &npos)
        c_array(t.move, b'f', &nmove)
        c_array(t.vel, b'f', &nvel)
        if npos < 2 * t.n or nmove < 2 * t.n or nvel < 2 * t.n:
            raise ValueError(f"the table's pos, move and vel columns need {t.n} rows")
        cdef IndexView iv
        if broadphase is not None:
            index_view(&iv, widen_index(broadphase, self.contact_offset), broadphase.stage,
                       broadphase._slots)
        else:
            index_view(&iv, None, None, 0)
        cdef Rows rows = rows_of(t)
        cdef Store store = store_of(t.store)
        self.respond(a if na else NULL, b if na else NULL, <int> na, dt, &iv, &rows, &store,
                     NULL, rows.n)

    cdef int respond(self, const int64_t* a, const int64_t* b, int np0, double dt,
                     const IndexView* iv, const Rows* rows, const Store* store,
                     const int64_t* awake, Py_ssize_t nawake,
                     unsigned char* hit=NULL) except -1:
        """`process` on C pairs ``a``, ``b`` (``np0`` of them); ``hit``: NULL, or a flag per
        row set for each sleeper struck (``sleepers_hit`` counts them); ``iv``: the broadphase's
        index for widen (``index`` NULL, or ``widen_by_index`` False: widen looks at every
        row, the same pairs); ``rows`` and ``store``: the table's C rows and shapes now;
        ``awake``: NULL, or while something sleeps the rows not asleep, ascending (``nawake``
        of them): the step sets up and moves those, and only the sleepers it meets."""
        t = self.table
        cdef int n = rows.n
        cdef _Buffers buf = self._buffers
        buf.rows(n)
        buf.pairs(np0 + 16)
        cdef Ctx c
        buf.into(&c)
        if not self.live_rows:
            awake = NULL
        if awake != NULL:
            c.live = buf.live
        c.rows = rows[0]
        cdef double* pos_col = c.rows.pos
        cdef double* move_col = c.rows.move
        cdef double* vel_col = c.rows.vel
        c.n = n
        c.np0 = np0
        c.npairs = 0
        c.ne = 0
        c.hits = 0
        c.widened = 0
        c.hit = hit
        c.nhit = 0
        c.dt = dt
        c.skin = self.skin
        c.max_slides = self.max_slides
        fp = self.filter_pair
        c.filter_pair = NULL if fp is None else <PyObject*> fp
        up = self.up
        c.upx = up[0]
        c.upy = up[1]
        c.cos_floor = floor_cos(self.floor_max_angle)
        c.snap = self.floor_snap
        c.bounce = self.bounce_threshold
        c.offset = self.contact_offset
        c.vel = vel_col
        c.start = pos_col
        c.store = store[0]
        if iv.index != NULL and self.widen_by_index:
            # (the rows' boxes and colliders change only with the layout)
            key = (t.layout_version, n)
            if buf.extent_key != key:
                buf.extent = mean_extent(rows, n)
                buf.extent_key = key
            c.grow_limit = 2.0 * buf.extent
            c.index = iv.index
            c.ndyn = iv.ndyn
            c.dyn = iv.dyn if iv.ndyn else NULL
            c.nsrow = iv.nsrow
            c.srow = iv.srow if iv.nsrow else NULL
        # rows the table says were added, re-shaped or changed since the last step (read
        # only after a clean end: else every row is looked at, as after an adoption)
        touched = t.touched
        row_of = t.row_of
        cdef bint clean = buf.end_version is not None
        trows = _NO_ROWS
        if touched:
            if clean:
                trows = np.fromiter([row_of[e] for e in touched if e in row_of],
                                    dtype=np.int64)
            touched.clear()
        regions = None
        if t.tile_regions:  # tile maps whose tiles changed: where
            if clean:
                regions = [(row_of[e], box) for e, box in t.tile_regions.items()
                           if e in row_of]
            t.tile_regions.clear()
        cdef int fresh = buf.fresh_rows(rows, trows, regions, awake, nawake)
        cdef bint pushed = fresh != 0
        if fresh > 0:  # after a clean end only the fresh rows' pairs can overlap
            c.fresh = buf.fresh
            if buf.fresh_live:
                c.end_pos = buf.end_pos
                c.end_ent = buf.end_ent
                c.end_n = buf.end_n
        self.pushed_apart = pushed
        cdef int i
        try:
            if nawake + np0 >= NOGIL_MIN:
                with nogil:
                    slide_rows(&c, a, b, awake, nawake, pushed)
            else:
                slide_rows(&c, a, b, awake, nawake, pushed)
        finally:
            buf.back(&c)
        self.passes = c.hits
        self.widened = c.widened
        self.sleepers_hit = c.nhit
        self.far = c.nfar
        cdef int total = c.npairs
        cdef Impacts impacts = self.pair_impacts
        impacts.reserve(total)
        copy_impacts(&c, impacts.toi, impacts.speed, impacts.normal, impacts.point, total)
        if total > np0:
            extra_a = np.asarray(<int64_t[:total]> c.pa)[np0:].copy()
            extra_b = np.asarray(<int64_t[:total]> c.pb)[np0:].copy()
            self.extra = (extra_a, extra_b, impacts.arrays(np0)[0])
        else:
            self.extra = _NO_EXTRA
        return 0
