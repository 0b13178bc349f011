# cython: embedsignature=True
"""Stage 4 of the step: the sphere slide, one body at a time, compiled; momentum; no tunneling.

Guarantees (for the solid pairs: neither side a sensor):
- bodies that start the step overlapping are pushed apart along the contact normal, shared by
  inverse mass (a static side never moves), so a body spawned in a wall leaves it the short
  way; a share that would take a body into a body that is never pushed (static, or of
  infinite mass: it rests on a floor, leans on a wall) stops a skin before it, and the other
  body of the pair takes the rest, so a push apart never moves a body into a wall or
  through a thin floor; a pair that walls stop both ways along the normal (two crates side
  by side in a pit one tile wide) is not left overlapping: the body on top along its "up"
  (against its acceleration) rises out of the other by the least lift that clears it, up to
  what stops it, and falls back onto it (two bodies that can be pushed, with an
  acceleration: a body overlapping a wall or a floor, or without an "up", stays put);
- bodies move one at a time (seed 002: "update one movement at a time"), each against the
  others where they are at that moment: a body's move is cut at its first time of impact
  (``geometry.impact``: analytic for circles and boxes, conservative advancement for the
  rest, nothing tunnels), leaving a ``skin`` gap, and the rest of the move slides along the
  tangent (``slide="project"`` keeps the rest's tangential part; ``slide="tangent"`` carries
  the rest at full length along the tangent, exact head-on ties turning each body to its own
  right, and a body wedged between two turning the other way); slid moves are checked again,
  up to ``max_slides`` times. So no body ends the step overlapping a solid one by more than
  the impact tolerance, however fast it moved;
- the order is fixed: rows in ascending order, except that a body whose first impact is with
  a body that has not moved yet in this step lets that one move first (followers in a queue
  are not stopped by a leader that has not moved yet); a body met again while it waits for
  its own leaders counts as standing where it is. The same scene gives the same result, bit
  for bit;
- velocities lose their part into each impact, or reflect it scaled by restitution, with
  momentum shared by mass (each impact an exact exchange, one after the other, so impacts
  never add energy), and friction takes at most ``friction * normal impulse`` off the
  pair's tangential velocity (Coulomb; the two frictions' geometric mean), never reversing
  it; a body of infinite mass keeps its velocity;
- rest: a pair that meets slower than `rest_speed` (``bounce_threshold``, or two steps of
  the pair's accelerations along the normal, whichever is larger) does not bounce; a body
  with an acceleration keeps no velocity into what held it back this step (`match_motion`),
  so a settled pile reads velocities of about zero whatever its restitution; a slid move
  keeps the velocity friction left it (static friction holds a body on a slope where
  ``friction >= tan(slope)``: its motion agrees with its velocity);
- a body blocked by a PASSIVE one pushes it: the blocked part of its move, shared by mass,
  is handed to the PASSIVE body, which moves it against what lies beyond (and stops there),
  and the pusher follows; a body resting on the PASSIVE one (the contact normal within ~45
  degrees of its own acceleration) does not push it down, so a stack of crates can be
  pushed. A body of infinite mass pushes every finite-mass body (ACTIVE too) the whole
  blocked part, and a carrier pushes its riders; a body pushed against a wall stops the
  push there, so nothing is squeezed into a wall, and is not pushed again in that step
  once it has moved: the pusher slides along it like along a wall (it still falls, lands
  and jumps beside a crate that cannot move);
- riders (``carrier``, from the last step's floors: ``systems/ground.pyx``; for a body
  adopted since the last step, the moving platform it stands on at the start) move after
  their carrier, by its motion this step but for its part up (which its push delivers), on
  top of their own move; their velocity is their own, relative to the carrier (impacts use
  the world velocity: own + carrier's); a body of infinite mass rides nothing;
- a ``stop_on_slope`` body meeting a floor (within ``floor_max_angle`` of its "up") drops
  the part of its move and of its velocity that points down, and carries its move across
  "up" along the floor at the same length across "up"; one that stood on a floor, met none
  this step and is not moving up is moved down to a floor within ``floor_snap``;
- a one-way body is met only by a body whose contact normal runs against its direction and
  that does not start the step inside it; overlaps with one-way bodies are never pushed
  apart;
- a body that gets further than the box the broadphase swept for it (pushed, or pushed
  apart) gets its pairs looked up again among every solid body, layers, masks and
  ``filter_pair`` applying, so a pushed crate is stopped by what lies beyond like any move;
  those pairs go to the narrowphase too (``extra``); an error raised by ``filter_pair``
  there leaves the compiled code at once and reaches the caller (``Physics`` puts the
  bodies back as they were before the step), as one raised in the broadphase does. Given
  the broadphase of the step (``process(..., broadphase=...)``, with a compiled index), the
  look-up asks its index (``find``) with the grown box grown again by the most a body
  widened in this step reaches beyond the box the index holds for it (bodies pushed
  further than twice the mean body size are few: each look-up takes them on its own), so
  it costs per body near, not per row: the same pairs, in the same order (ascending rows),
  as the look at every row it makes without an index (the brute force). Bodies pushed apart
  look up once all pushes apart are done (meanwhile a push looks up only the bodies that
  are never pushed, and only when one is near its path), their reach measured from where
  they got to (what is near where they started is not looked up again); when many do (a
  crowd that starts inside itself), all at once: one sweep over the solid bodies' reach
  boxes, which costs about what a broadphase costs, not a look-up per body, and finds the
  same pairs with an index or without;
- per pair, the time of impact (fraction of the move in which the pair met, ``inf`` if it did
  not) and the approach speed along the normal (units per second) for the events; a pair
  that meets slower than `rest_speed` rests (it meets about one step of gravity every step)
  and reports 0;
- a sleeper is a fixed partner (inverse mass 0, never pushed, reach 0) to a body that meets
  it at rest (it leans or lies on it: slower than `rest_speed`); one that strikes it faster
  (a body the step did not foresee reaching it: pushed or deflected there) exchanges
  momentum with it as with an awake body (its velocity changes; its position stays, as a
  sleeper's does, until the next step) and marks it in ``hit`` (``respond``'s flags per
  row, when given), so the step wakes its island in this step (`systems.step`); while something
  sleeps the step sets up and moves only the awake rows and the sleepers it meets (a pair's
  partner, a look-up's find, a carrier), each set up when first met, so a sleeper the awake
  bodies do not reach costs the response nothing (``live_rows = False``: every row, the
  same bits).

Python orchestrates: ``ResponseSystem.process`` is one compiled call per step (two only when
``filter_pair`` is set and a body leaves its box); buffers are kept between steps.
"""


import numpy as np

from libc.math cimport INFINITY, M_PI, cos, fabs, floor, isinf, sqrt
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from cpython.ref cimport PyObject

from ..broadphase.boxindex cimport (
    FOUND_STATIC, BoxIndex, Buf, PairList, bits_for, buf_free, pl_free, sort_keys,
)
from ..geometry.impact cimport circles_time_of_impact, time_of_impact
from ..geometry.manifold cimport contact
from ..geometry.shape_data cimport (
    CIRCLE, COMPOUND, LF_STRIDE, LF_X0, LF_X1, LF_Y0, LF_Y1, TILEMAP, Body, CContact, Store,
    TileGrid, grid_tile, store_of, tile_grid, tile_range,
)
from ..geometry.vec cimport max2, sq
from ..state.carray cimport as_c, c_array

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API
from ..state.table_view cimport GROUND_FLOOR, GROUND_NEW, Rows, body_up, row_body, rows_of
from .ground cimport floor_cos
from .gil cimport NOGIL_MIN
from .impacts cimport Impacts

from ..geometry.contact import TOUCH_TOLERANCE as _TOUCH_TOLERANCE

#: Overlap deeper than this (world units) counts as overlapping for the response.
OVERLAP_TOL = 1e-6
_NO_ROWS = np.zeros(0, dtype=np.int64)
#: ``extra`` of a step without pairs beyond the swept boxes (read-only: shared by steps)
_NO_EXTRA = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
for _empty in _NO_EXTRA:
    _empty.flags.writeable = False

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define ecsphys_prefetch(p) __builtin_prefetch((p))
    #else
    #define ecsphys_prefetch(p) ((void)(p))
    #endif
    """
    void prefetch "ecsphys_prefetch"(const void* p) noexcept nogil

cdef double TOUCH = _TOUCH_TOLERANCE
cdef double OVERLAP = OVERLAP_TOL
cdef double TIE_EPS = 1e-12
# widen gives a row this many times the reach it needs: more, and a body pushed on and on is
# looked up more rarely, but pairs with more rows it never meets (at 2.0 the first step of
# 10,000 overlapping bodies made 20% more work than at 1.5; 1.25 slowed later steps)
cdef double WIDEN_REACH = 1.5
# widen_all widens rows at once when at least BATCH_MIN of them, one row in BATCH_SHARE, do
cdef int BATCH_MIN = 256
cdef int BATCH_SHARE = 32
# its cells are as large as the rows' grown reach boxes, up to this many times their mean
cdef double BIG_SIDE = 4.0
# separate asks for the rows of the pair this many pairs ahead
cdef int FETCH_AHEAD = 16
# a push apart looks up the bodies never pushed near a push in the index for its first
# LAZY_FIXED pushes (a few bodies spawned in others), then in cells of those made for it
cdef int LAZY_FIXED = 256
# `ResponseSystem.reserve` makes room for this many pairs a body (a crowd starting inside
# itself: 1.7 a body in its first step, with those found beyond the swept boxes)
cdef int RESERVE_PAIRS = 2
cdef double SWEEP_MARGIN = 1e-3     # world units: swept boxes this far apart may still meet
cdef double SUPPORT_COS = 0.7       # a contact normal within ~45 degrees of "down" supports
cdef int STATIC = 0
cdef int PASSIVE = 1
cdef int ACTIVE = 2
cdef double ONE_WAY_COS = 1e-3     # a one-way body is met only from (almost) above

# row states of a step
cdef enum:
    PENDING = 0      # has not moved yet (or was pushed after it moved)
    WAITING = 1      # on the stack: moving, or waiting for the leaders it met
    DONE = 2


cdef struct Reach:
    # per row, what widen reads of it (one cache line)
    double x0               # its start box (after a push apart took it beyond its reach:
                            # its box then, `anchor`), what its reach is measured from
    double y0
    double x1
    double y1
    double covered          # how far it may get from that box this step
    double cov0             # that at the start: what the broadphase's box for it holds
    int solid               # it collides and is no sensor (widen may pair with it)
    int fixed               # STATIC
    double pad


cdef struct Ctx:
    Store store
    Rows rows
    int n
    double dt
    double skin
    int max_slides
    const double* start
    Body* body           # every row's shape where it is now (px, py: the working position)
    double* rest
    double* want         # per row: its own move of the step (what it wanted)
    double* vel
    double* prev_n
    double* carry           # per row: its carrier's motion added to its move this step
    unsigned char* pushed   # per row: was handed a push this step
    double* tleft           # per row: seconds of the step its own motion has left
    Reach* reach
    signed char* state
    int* slides
    int* stack
    # adjacency, both directions per pair: a row's edges of the broadphase's pairs are
    # estart[row] .. eend[row] (contiguous, for the rows the step works on); those found
    # beyond the boxes follow in a linked list per row (head, enext)
    int* estart
    int* eend
    int* head
    int* enext
    int* eother
    int* epair
    int ne
    int cap_e
    # pairs: the broadphase's (index < np0) and those found beyond the boxes
    int64_t* pa
    int64_t* pb
    double* ptoi
    double* pspeed
    double* pinfo        # per pair: normal (from pa to pb) and point of the first impact
    int npairs
    int np0
    int cap_p
    int hits
    int widened
    unsigned char* hit      # per row: a sleeper struck in this step (NULL: not asked)
    int nhit
    PyObject* filter_pair   # a Python callable, or NULL: called with the GIL
    # characters and platforms (from the physics)
    double upx              # "up" of a body without acceleration
    double upy
    double cos_floor        # a normal within floor_max_angle of "up" is a floor
    double snap             # floor_snap
    double bounce           # bounce_threshold: slower impacts do not bounce
    double offset           # contact_offset
    unsigned char* carried  # per row: its carrier's motion was added this step
    unsigned char* floored  # per row: met a floor this step
    # per row: new, moved, re-shaped or changed since the last step's clean end (1), or a
    # tile map whose tiles changed only within its box in ``region`` (2); NULL: every row is
    # looked at for overlaps
    unsigned char* fresh
    double* region          # per row with fresh 2: x0, y0, x1, y1 relative to its position
    # the broadphase's index for widen (a BoxIndex), or NULL: widen looks at every row
    void* index
    const int64_t* dyn      # its dynamic id -> row
    Py_ssize_t ndyn
    const int64_t* srow     # its static id -> row (a free id: a row >= n)
    Py_ssize_t nsrow
    PairList* found         # what find answers
    double grow             # the most a widened row (not far) reaches beyond that
    double grow_limit       # a row widened beyond this is far: looked at on its own
    int* far                # far rows (nfar of them)
    int nfar
    unsigned char* isfar
    unsigned int* stamp     # per row: the look-up that took it last (gen)
    unsigned int gen
    int* cand               # the rows a look-up takes
    unsigned int* mark      # per row: the widen (mgen) it was a partner of already
    unsigned int mgen
    # the rows this step works on while something sleeps: the awake rows (ascending), then
    # the sleepers it meets as it finds them (`ensure`); NULL: every row, 0 .. n
    int* live
    int nlive
    unsigned int* seen      # per row: the step (tick) that set it up last
    unsigned int tick
    # while ``fresh`` holds only the live rows' marks: the last clean end's positions and
    # entities (`_Buffers.note_clean`), for the sleepers met later (`ensure`); else NULL
    const double* end_pos
    const int64_t* end_ent
    int end_n


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


cdef inline unsigned char stale(const double* end_pos, const int64_t* end_ent, int end_n,
                                const Rows* view, int i) noexcept nogil:
    """Row i holds another entity than at the last clean end, or a new one, or moved since
    (1), else 0."""
    return (i >= end_n or end_ent[i] != view.entity[i]
            or end_pos[2 * i] != view.pos[2 * i]
            or end_pos[2 * i + 1] != view.pos[2 * i + 1])


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


# ------------------------------------------------------------------ pairs and edges

cdef int add_pair(Ctx* c, int64_t a, int64_t b, double toi) except -1 nogil:
    """A new pair (rows a, b) and its two edges; grows the arrays when full."""
    cdef int p = c.npairs
    cdef bint ok = True
    if p >= c.cap_p:
        c.cap_p = 2 * c.cap_p + 64
        ok = (_re(<void**> &c.pa, c.cap_p * sizeof(int64_t))
              and _re(<void**> &c.pb, c.cap_p * sizeof(int64_t))
              and _re(<void**> &c.ptoi, c.cap_p * sizeof(double))
              and _re(<void**> &c.pspeed, c.cap_p * sizeof(double))
              and _re(<void**> &c.pinfo, 4 * c.cap_p * sizeof(double)))
    if ok and c.ne + 2 > c.cap_e:
        c.cap_e = 2 * c.cap_e + 128
        ok = (_re(<void**> &c.enext, c.cap_e * sizeof(int))
              and _re(<void**> &c.eother, c.cap_e * sizeof(int))
              and _re(<void**> &c.epair, c.cap_e * sizeof(int)))
    if not ok:
        with gil:
            raise MemoryError()
    c.pa[p] = a
    c.pb[p] = b
    c.ptoi[p] = toi
    c.pspeed[p] = 0.0
    c.npairs = p + 1
    link(c, <int> a, <int> b, p)
    link(c, <int> b, <int> a, p)
    return 0


cdef inline bint _re(void** p, size_t size) noexcept nogil:
    """realloc in place: False (and p untouched) when out of memory."""
    cdef void* q = realloc(p[0], size)
    if q == NULL:
        return False
    p[0] = q
    return True


cdef inline void link(Ctx* c, int row, int other, int pair) noexcept nogil:
    cdef int e = c.ne
    c.eother[e] = other
    c.epair[e] = pair
    c.enext[e] = c.head[row]
    c.head[row] = e
    c.ne = e + 1


cdef inline bint solid(const Rows* r, int64_t a, int64_t b) noexcept nogil:
    return not (r.sensor[a] or r.sensor[b])


cdef void build_edges(Ctx* c, const int64_t* a, const int64_t* b) noexcept nogil:
    """The broadphase's pairs (sensor pairs too: events) and the contiguous edges of the
    solid ones, each row's in pair order: counts, each row's start (the rows the step works
    on, in their order: a sleeping world's step touches only those), fill. Every pair's rows
    are set up by now (`start_rows`); a row set up later has none (`init_row`)."""
    cdef int p, i, k, e, total = 0
    cdef int* end = c.eend  # the counts, then the fill's cursor, then each row's end
    for k in range(live_n(c)):
        end[live_row(c, k)] = 0
    for p in range(c.np0):
        c.pa[p] = a[p]
        c.pb[p] = b[p]
        c.ptoi[p] = INFINITY
        c.pspeed[p] = 0.0
        if solid(&c.rows, a[p], b[p]):
            end[a[p]] += 1
            end[b[p]] += 1
    for k in range(live_n(c)):
        i = live_row(c, k)
        c.estart[i] = total
        total += end[i]
        end[i] = c.estart[i]
    for p in range(c.np0):
        if solid(&c.rows, a[p], b[p]):
            e = end[a[p]]
            c.eother[e] = <int> b[p]
            c.epair[e] = p
            end[a[p]] = e + 1
            e = end[b[p]]
            c.eother[e] = <int> a[p]
            c.epair[e] = p
            end[b[p]] = e + 1
    c.npairs = c.np0
    c.ne = total


# ------------------------------------------------------------------ small vector helpers

cdef inline double dot(double ax, double ay, double bx, double by) noexcept nogil:
    return ax * bx + ay * by


cdef inline bint moving(const Ctx* c, int r) noexcept nogil:
    return c.rest[2 * r] != 0.0 or c.rest[2 * r + 1] != 0.0


# ------------------------------------------------------------------ momentum

cdef inline void up_of(const Ctx* c, int r, double* ux, double* uy) noexcept nogil:
    """Row r's "up": against its acceleration, or the physics' up without one."""
    body_up(&c.rows, r, c.upx, c.upy, ux, uy)


cdef inline bint is_floor(const Ctx* c, int r, double nx, double ny) noexcept nogil:
    """The normal from r to what it meets is within floor_max_angle of r's "down"."""
    cdef double ux, uy
    up_of(c, r, &ux, &uy)
    return -(nx * ux + ny * uy) >= c.cos_floor


cdef inline void world_vel(const Ctx* c, int r, double* vx, double* vy) noexcept nogil:
    """Row r's world velocity: its own, plus its carrier's while it rides one."""
    cdef int f = c.rows.carrier[r]
    vx[0] = c.vel[2 * r]
    vy[0] = c.vel[2 * r + 1]
    if f >= 0:
        vx[0] += c.vel[2 * f]
        vy[0] += c.vel[2 * f + 1]


cdef inline bint fixed(const Ctx* c, int r) noexcept nogil:
    """Row r sleeps and was not struck in this step: a fixed partner (see the module
    comment)."""
    return c.rows.asleep[r] and (c.hit == NULL or not c.hit[r])


cdef inline double inv_mass_of(const Ctx* c, int r) noexcept nogil:
    """Row r's inverse mass as the response exchanges momentum and shares pushes: 0 for a
    sleeper not struck (a fixed partner until it wakes)."""
    return 0.0 if fixed(c, r) else c.rows.inv_mass[r]


cdef inline double rest_speed(const Ctx* c, int a, int b, double nx, double ny) noexcept nogil:
    """The approach speed below which pair (a, b) meets without an impact of its own (it
    rests): ``bounce_threshold``, or what the two bodies' accelerations add along the
    normal in two steps, whichever is larger (a body resting on another meets it at about
    one step of gravity every step, whatever the units of the game)."""
    cdef double g = (fabs(c.rows.acc[2 * a] * nx + c.rows.acc[2 * a + 1] * ny)
                     + fabs(c.rows.acc[2 * b] * nx + c.rows.acc[2 * b + 1] * ny))
    return max2(c.bounce, 2.0 * c.dt * g)


cdef void impulse(Ctx* c, int a, int b, double nx, double ny) noexcept nogil:
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


cdef inline bint one_way_solid(const Ctx* c, int r, int j, const CContact* hit) noexcept nogil:
    """Whether r moving into j meets it: a one-way body is met only by a body that comes
    against its direction (the normal from it to the other along its direction) and did not
    start inside it."""
    cdef double wx = c.rows.one_way[2 * j], wy = c.rows.one_way[2 * j + 1]
    if wx != 0.0 or wy != 0.0:   # r lands on j: the normal from r to j against j's way
        if -(hit.nx * wx + hit.ny * wy) < ONE_WAY_COS or hit.depth > OVERLAP:
            return False
    wx = c.rows.one_way[2 * r]
    wy = c.rows.one_way[2 * r + 1]
    if wx != 0.0 or wy != 0.0:   # a one-way r moves into j from below j
        if hit.nx * wx + hit.ny * wy < ONE_WAY_COS or hit.depth > OVERLAP:
            return False
    return True


cdef inline bint is_one_way(const Ctx* c, int r) noexcept nogil:
    return c.rows.one_way[2 * r] != 0.0 or c.rows.one_way[2 * r + 1] != 0.0


# ------------------------------------------------------------------ the slide

cdef void slope_rest(Ctx* c, int r, double lx, double ly, double nx, double ny) noexcept nogil:
    """A stop_on_slope body meeting a floor: its rest loses its part down (gravity does not
    slide it), and its part across "up" goes along the floor with the same length across
    "up" (it walks at the game's speed up and down slopes)."""
    cdef double ux, uy
    up_of(c, r, &ux, &uy)
    cdef double lv = dot(lx, ly, ux, uy)
    cdef double hx = lx - ux * lv, hy = ly - uy * lv
    cdef double h = sqrt(hx * hx + hy * hy)
    cdef double tx = ny, ty = -nx, across
    c.rest[2 * r] = 0.0
    c.rest[2 * r + 1] = 0.0
    if h <= 0.0:
        return
    if dot(tx, ty, hx, hy) < 0.0:
        tx = -tx
        ty = -ty
    across = sqrt(max2(1.0 - sq(dot(tx, ty, ux, uy)), 1e-12))
    c.rest[2 * r] = tx * h / across
    c.rest[2 * r + 1] = ty * h / across


cdef void slide_rest(Ctx* c, int r, double lx, double ly, double nx, double ny,
                     double dvx, double dvy) noexcept nogil:
    """The slid rest of row r into c.rest: ``(lx, ly)`` the rest left at the impact, ``n``
    the normal from r to what it hit, ``dv`` what the impact changed r's velocity by. A
    tangent slide that would turn into what the row slid along last (wedged between two
    bodies) turns the other way: it gives way instead of pressing on, which breaks the
    arches a crowd forms in a doorway. A projected rest keeps its part along the tangent,
    changed as friction changed the velocity along it over the time the row has left
    (static friction holds it still: its motion agrees with its velocity), never reversed;
    one that runs back into what the row slid along last is caught in a crease (a corner, a
    pocket between two bodies) and stops there."""
    cdef double px = c.prev_n[2 * r]
    cdef double py = c.prev_n[2 * r + 1]
    cdef double into = dot(lx, ly, nx, ny)
    cdef double tx = ny
    cdef double ty = -nx
    cdef double u, d, length, sx, sy, along, after
    if c.rows.slide[r] == 1 and into > 0.0:
        u = dot(lx, ly, tx, ty)
        d = 1.0 if u >= -TIE_EPS else -1.0
        if dot(tx * d, ty * d, px, py) > TIE_EPS:
            d = -d
        length = sqrt(lx * lx + ly * ly)
        c.rest[2 * r] = tx * d * length
        c.rest[2 * r + 1] = ty * d * length
        return
    if into < 0.0:
        into = 0.0
    sx = lx - nx * into
    sy = ly - ny * into
    if dvx != 0.0 or dvy != 0.0:
        along = dot(sx, sy, tx, ty)
        after = along + dot(dvx, dvy, tx, ty) * c.tleft[r]
        if after * along <= 0.0:
            after = 0.0
        sx += tx * (after - along)
        sy += ty * (after - along)
    if dot(sx, sy, px, py) > TIE_EPS:
        sx = 0.0
        sy = 0.0
    c.rest[2 * r] = sx
    c.rest[2 * r + 1] = sy


cdef inline bint immovable(const Ctx* c, int r) noexcept nogil:
    """Row r is never pushed: static, of infinite mass, or asleep and not struck (a sleeper
    is a fixed partner until it wakes)."""
    return c.rows.kind[r] == STATIC or c.rows.inv_mass[r] == 0.0 or fixed(c, r)


cdef int first_hit(Ctx* c, int r, double* when, CContact* hit, int* other,
                   int* pair, bint fixed_only=False, int skip=-1) noexcept nogil:
    """The first impact of row r moving by its rest against its neighbours where they are
    now (standing still): 1 with the time, contact (normal from r), row and pair; 0 if none.
    Ties go to the neighbour met first in r's edge list. ``fixed_only``: only the neighbours
    that are never pushed (`immovable`); ``skip``: a row left out."""
    cdef double mx = c.rest[2 * r]
    cdef double my = c.rest[2 * r + 1]
    cdef const Body* br = &c.body[r]
    cdef const Body* bo
    # r's box swept by its rest
    cdef double x0 = br.px + br.x0 + (mx if mx < 0.0 else 0.0) - SWEEP_MARGIN
    cdef double x1 = br.px + br.x1 + (mx if mx > 0.0 else 0.0) + SWEEP_MARGIN
    cdef double y0 = br.py + br.y0 + (my if my < 0.0 else 0.0) - SWEEP_MARGIN
    cdef double y1 = br.py + br.y1 + (my if my > 0.0 else 0.0) + SWEEP_MARGIN
    cdef double best = INFINITY
    cdef double t
    cdef CContact cc
    cdef int e = c.estart[r]
    cdef int end = c.eend[r]
    cdef int j
    cdef int found = 0
    cdef bint circle = br.kind == CIRCLE, met
    for j in range(e, end):  # the neighbours' lines fetched at once
        prefetch(&c.body[c.eother[j]])
        prefetch(&c.rows.one_way[2 * c.eother[j]])
    while True:
        if e == end:  # past the contiguous edges: the linked ones, if any
            e = c.head[r]
            end = -2
            if e < 0:
                break
        j = c.eother[e]
        bo = &c.body[j]
        if (j != skip and (not fixed_only or immovable(c, j))
                and bo.px + bo.x0 <= x1 and x0 <= bo.px + bo.x1
                and bo.py + bo.y0 <= y1 and y0 <= bo.py + bo.y1):
            if circle and bo.kind == CIRCLE:  # (inline: impact.pxd; a leaving pair is cheap)
                met = circles_time_of_impact(&c.store, br, mx, my, bo, 0.0, 0.0, &t, &cc)
            else:
                met = time_of_impact(&c.store, br, mx, my, bo, 0.0, 0.0, &t, &cc)
            if met and t < best and one_way_solid(c, r, j, &cc):
                best = t
                hit[0] = cc
                other[0] = j
                pair[0] = c.epair[e]
                found = 1
        if end == -2:
            e = c.enext[e]
            if e < 0:
                break
        else:
            e += 1
    when[0] = best
    return found


cdef inline void note_impact(Ctx* c, int p, int64_t first, double t,
                             const CContact* hit) noexcept nogil:
    """The first impact of pair p: its time, normal (turned to point from the pair's a to its
    b; ``first`` is the row the normal points from) and point."""
    cdef double sign = 1.0 if c.pa[p] == first else -1.0
    c.ptoi[p] = t
    c.pinfo[4 * p] = sign * hit.nx
    c.pinfo[4 * p + 1] = sign * hit.ny
    c.pinfo[4 * p + 2] = hit.px
    c.pinfo[4 * p + 3] = hit.py


cdef void sensor_impacts(Ctx* c) noexcept nogil:
    """Pairs with a sensor do not respond, but a body that passes through a sensor within the
    step meets it: the time of impact of the step's final moves from the start positions."""
    cdef int p
    cdef int64_t a, b
    cdef Body ba, bb
    cdef CContact hit
    cdef double t, amx, amy, bmx, bmy
    for p in range(c.np0):
        a = c.pa[p]
        b = c.pb[p]
        if solid(&c.rows, a, b):
            continue
        ba = c.body[a]
        bb = c.body[b]
        amx = ba.px - c.start[2 * a]
        amy = ba.py - c.start[2 * a + 1]
        bmx = bb.px - c.start[2 * b]
        bmy = bb.py - c.start[2 * b + 1]
        ba.px = c.start[2 * a]
        ba.py = c.start[2 * a + 1]
        bb.px = c.start[2 * b]
        bb.py = c.start[2 * b + 1]
        if time_of_impact(&c.store, &ba, amx, amy, &bb, bmx, bmy, &t, &hit):
            note_impact(c, p, a, t, &hit)
            if c.dt > 0.0:
                c.pspeed[p] = ((amx - bmx) * hit.nx + (amy - bmy) * hit.ny) / c.dt


cdef void apply_hit(Ctx* c, int r, int j, double t, const CContact* hit, int p) noexcept nogil:
    """Row r meets row j at fraction t of its rest: move to just before, exchange momentum
    (with friction), push j if it gives way, slide the rest."""
    cdef double nx = hit.nx
    cdef double ny = hit.ny
    cdef double mx = c.rest[2 * r]
    cdef double my = c.rest[2 * r + 1]
    cdef double closing = dot(mx, my, nx, ny)
    cdef double safe = t - c.skin / closing if closing > 0.0 else t
    if safe < 0.0:
        safe = 0.0
    elif safe > 1.0:
        safe = 1.0
    c.body[r].px += mx * safe
    c.body[r].py += my * safe
    cdef double lx = mx * (1.0 - safe)
    cdef double ly = my * (1.0 - safe)
    c.tleft[r] *= 1.0 - safe
    # what the events learn: the first time in the step, the fastest approach
    cdef double* v = c.vel
    cdef double speed = (v[2 * r] - v[2 * j]) * nx + (v[2 * r + 1] - v[2 * j + 1]) * ny
    if t < c.ptoi[p]:
        note_impact(c, p, r, t, hit)
    if speed > c.pspeed[p] and speed > rest_speed(c, r, j, nx, ny):  # not a resting pair
        c.pspeed[p] = speed
    cdef double ux, uy, vu
    up_of(c, r, &ux, &uy)
    cdef bint floor = -(nx * ux + ny * uy) >= c.cos_floor
    # a character landing or standing on a floor (not moving up)
    cdef bint slope = floor and c.rows.stop_slope[r] and dot(lx, ly, ux, uy) <= 0.0
    cdef double keep_vx = c.vel[2 * r], keep_vy = c.vel[2 * r + 1]
    if floor:
        c.floored[r] = 1
    impulse(c, r, j, nx, ny)
    if slope:
        # it keeps the game's velocity but for its part down
        vu = dot(keep_vx, keep_vy, ux, uy)
        if vu < 0.0:
            keep_vx -= ux * vu
            keep_vy -= uy * vu
        c.vel[2 * r] = keep_vx
        c.vel[2 * r + 1] = keep_vy
    # push: a PASSIVE body (unless r rests on it), a rider of r, or anything with a finite
    # mass when r's is infinite; the blocked part of the move along the normal, by mass. A
    # body pushed in this step that has made its move since (as far as it could: it is
    # blocked) is not pushed again: r slides along it like along a wall, so a body pressing
    # on a crate against a wall still falls, lands and jumps
    cdef double into, share, cx = 0.0, cy = 0.0
    cdef bint rider = c.rows.carrier[j] == r
    cdef bint heavy = isinf(c.rows.mass[r]) and not isinf(c.rows.mass[j])
    if c.rows.kind[j] != STATIC and not fixed(c, j) and not (
            c.pushed[j] and c.state[j] == DONE) and (
            rider or heavy or (c.rows.kind[j] == PASSIVE and not supported(c, r, nx, ny))):
        into = dot(lx, ly, nx, ny)
        if into > 0.0:
            share = 1.0 if rider or isinf(c.rows.mass[r]) else \
                c.rows.mass[r] / (c.rows.mass[r] + c.rows.mass[j])
            cx = nx * into * share
            cy = ny * into * share
            c.rest[2 * j] += cx
            c.rest[2 * j + 1] += cy
            c.pushed[j] = 1
            if c.state[j] == DONE:
                c.state[j] = PENDING
    if slope:
        slope_rest(c, r, lx, ly, nx, ny)
    else:
        slide_rest(c, r, lx, ly, nx, ny, c.vel[2 * r] - keep_vx, c.vel[2 * r + 1] - keep_vy)
    c.rest[2 * r] += cx
    c.rest[2 * r + 1] += cy
    if cx != 0.0 or cy != 0.0:
        # j moves out of the way (the pusher follows it): not a wall to be caught against
        c.prev_n[2 * r] = 0.0
        c.prev_n[2 * r + 1] = 0.0
    else:
        c.prev_n[2 * r] = nx
        c.prev_n[2 * r + 1] = ny
    c.slides[r] += 1
    c.hits += 1


# ------------------------------------------------------------------ beyond the swept box

cdef inline double reach_needed(const Ctx* c, int r) noexcept nogil:
    """How far (per axis) row r may get from the box its reach is measured from (its start
    box, or where `anchor` put it) by the end of its rest."""
    cdef double dx = fabs(c.body[r].px + c.body[r].x0 - c.reach[r].x0)
    cdef double dy = fabs(c.body[r].py + c.body[r].y0 - c.reach[r].y0)
    cdef double rx = fabs(c.rest[2 * r])
    cdef double ry = fabs(c.rest[2 * r + 1])
    return (dx if dx > dy else dy) + (rx if rx > ry else ry)


cdef int widen(Ctx* c, int r) except -1 nogil:
    """Row r may leave the box the broadphase swept for it: give it a reach ``WIDEN_REACH``
    times what it needs (so a body pushed on and on is looked up rarely) and a pair with every
    solid row whose reach box (its start box, or where `anchor` put it, grown by its reach)
    meets r's grown box, layers, masks and ``filter_pair`` allowing, that it does not pair
    with already: in ascending rows,
    from the rows the index finds near r's grown box and the far rows
    (`beyond_candidates`), or from every row without an index."""
    cdef double need = reach_needed(c, r)
    cdef Reach* w = &c.reach[r]
    if need <= w.covered + SWEEP_MARGIN:
        return 0
    w.covered = WIDEN_REACH * need
    c.widened += 1
    return look_beyond(c, r)


cdef int look_beyond(Ctx* c, int r) except -1 nogil:
    """`widen`'s look-up for row r, its reach set."""
    cdef Reach* w = &c.reach[r]
    cdef double g = w.covered + SWEEP_MARGIN
    cdef double x0 = w.x0 - g
    cdef double y0 = w.y0 - g
    cdef double x1 = w.x1 + g
    cdef double y1 = w.y1 + g
    cdef int s, k, count
    mark_partners(c, r)
    if c.index == NULL:
        ensure_all(c)
        for s in range(c.n):
            pair_beyond(c, r, s, x0, y0, x1, y1)
        return 0
    note_grown(c, r)
    count = beyond_candidates(c, x0, y0, x1, y1)
    for k in range(count):
        pair_beyond(c, r, c.cand[k], x0, y0, x1, y1)
    return 0


cdef inline unsigned int new_mark(Ctx* c) noexcept nogil:
    """A new ``mgen``: no row is marked with it."""
    c.mgen += 1
    if c.mgen == 0:  # wrapped: clear the marks
        memset(c.mark, 0, c.n * sizeof(unsigned int))
        c.mgen = 1
    return c.mgen


cdef inline void mark_partners(Ctx* c, int r) noexcept nogil:
    """Mark r's partners so far (its edges: the solid pairs) with a new ``mgen``."""
    cdef int e
    new_mark(c)
    for e in range(c.estart[r], c.eend[r]):
        c.mark[c.eother[e]] = c.mgen
    e = c.head[r]
    while e >= 0:
        c.mark[c.eother[e]] = c.mgen
        e = c.enext[e]


cdef int pair_beyond(Ctx* c, int r, int s, double x0, double y0, double x1,
                     double y1) except -1 nogil:
    """widen's test of row s for row r (its grown box x0, y0, x1, y1): a pair if s is solid,
    not both are static, s's start box grown by its own reach (``covered``) meets r's,
    layers, masks and ``filter_pair`` allow it, and r does not pair with s already (s is
    not marked: widen marks r's partners first)."""
    cdef const Rows* rw = &c.rows
    if s == r or not c.reach[s].solid:
        return 0
    if c.reach[s].fixed and c.reach[r].fixed:
        return 0
    if not reaches(c, s, x0, y0, x1, y1):
        return 0
    if (rw.layer[r] & rw.mask[s]) == 0 or (rw.layer[s] & rw.mask[r]) == 0:
        return 0
    if c.mark[s] == c.mgen:  # r pairs with s already
        return 0
    return add_beyond(c, r, s)


cdef int add_beyond(Ctx* c, int r, int s) except -1 nogil:
    """The pair of rows r and s found beyond the swept boxes (the row of the lower entity
    first), if ``filter_pair`` allows it."""
    cdef const Rows* rw = &c.rows
    cdef bint ok
    cdef int64_t a = r, b = s
    if rw.entity[a] > rw.entity[b]:
        a, b = s, r
    if c.filter_pair != NULL:
        with gil:
            ok = bool((<object> c.filter_pair)(int(rw.entity[a]), int(rw.entity[b])))
        if not ok:
            return 0
    add_pair(c, a, b, INFINITY)
    return 0


cdef inline void note_grown(Ctx* c, int r) noexcept nogil:
    """Row r's reach grew beyond what the index's box for it holds: by at most
    ``grow_limit``, the index answers for it if asked with boxes grown by ``grow``; beyond
    that, it is a far row, looked at by every look-up (a few bodies pushed a long way do
    not widen every look-up). (Its reach box is measured from its start box, or from where
    `anchor` put it: as far beyond the index's box as it gets on any side.)"""
    cdef const Reach* w = &c.reach[r]
    cdef double sx0 = c.start[2 * r] + c.rows.lo[2 * r]
    cdef double sy0 = c.start[2 * r + 1] + c.rows.lo[2 * r + 1]
    cdef double sx1 = c.start[2 * r] + c.rows.hi[2 * r]
    cdef double sy1 = c.start[2 * r + 1] + c.rows.hi[2 * r + 1]
    cdef double g = w.covered - w.cov0 + max2(max2(sx0 - w.x0, w.x1 - sx1),
                                              max2(sy0 - w.y0, w.y1 - sy1))
    if g <= c.grow_limit:
        if g > c.grow:
            c.grow = g
    elif not c.isfar[r]:
        c.isfar[r] = 1
        c.far[c.nfar] = r
        c.nfar += 1


cdef inline bint reaches(const Ctx* c, int s, double x0, double y0, double x1,
                         double y1) noexcept nogil:
    """Row s's reach box (its start box, or where `anchor` put it, grown by its reach) meets
    the box (widen's box test)."""
    cdef const Reach* b = &c.reach[s]
    cdef double h = b.covered
    return not (b.x0 - h > x1 or b.x1 + h < x0 or b.y0 - h > y1 or b.y1 + h < y0)


cdef int beyond_candidates(Ctx* c, double x0, double y0, double x1,
                           double y1) except -1 nogil:
    """The rows widen tests for the grown box (x0, y0, x1, y1), each once, ascending, into
    ``c.cand``; returns how many. Every row whose start box grown by its reach meets the
    box is among them: the index's boxes hold each row's start box grown by its reach at
    the start (``cov0``; a static's box exactly), so the index asked with the box grown by
    ``grow`` (the most a row not far reaches beyond that) and a margin for rounding finds
    them, and the far rows are added; only those that meet the box are kept (`reaches`)."""
    cdef double m = (c.grow + SWEEP_MARGIN
                     + 1e-12 * (fabs(x0) + fabs(y0) + fabs(x1) + fabs(y1)))
    cdef double q[4]
    cdef PairList* found = c.found
    cdef Py_ssize_t t
    cdef int64_t id_, row
    cdef int k = 0
    q[0] = x0 - m
    q[1] = y0 - m
    q[2] = x1 + m
    q[3] = y1 + m
    c.gen += 1
    if c.gen == 0:  # wrapped: clear the stamps
        memset(c.stamp, 0, c.n * sizeof(unsigned int))
        c.gen = 1
    found.n = 0
    if (<BoxIndex> c.index).find(q, found) < 0:
        with gil:
            raise MemoryError()
    for t in range(found.n):  # ids to rows (-1: none), their lines fetched meanwhile
        id_ = found.a[t]
        row = -1
        if found.b[t] == FOUND_STATIC:
            if 0 <= id_ < c.nsrow:
                row = c.srow[id_]
        elif 0 <= id_ < c.ndyn:
            row = c.dyn[id_]
        if row < 0 or row >= c.n:
            row = -1
        else:
            ensure(c, <int> row)  # (a sleeper: a static box of the index)
            prefetch(&c.reach[row])
        found.a[t] = row
    for t in range(found.n):
        row = found.a[t]
        if row < 0 or c.stamp[row] == c.gen:
            continue
        c.stamp[row] = c.gen
        if reaches(c, <int> row, x0, y0, x1, y1):
            c.cand[k] = <int> row
            k += 1
    for t in range(c.nfar):
        row = c.far[t]
        if c.stamp[row] != c.gen:
            c.stamp[row] = c.gen
            if reaches(c, <int> row, x0, y0, x1, y1):
                c.cand[k] = <int> row
                k += 1
    sort_rows(c.cand, k)
    return k


cdef void sort_rows(int* a, int k) noexcept nogil:
    """Sort ``a[:k]`` ascending: insertion sort when short, else a heap sort (in place, no
    allocation, no comparison callback)."""
    cdef int i, j, v, end, root, child
    if k <= 48:
        for i in range(1, k):
            v = a[i]
            j = i - 1
            while j >= 0 and a[j] > v:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = v
        return
    for i in range(k // 2 - 1, -1, -1):
        sift_down(a, i, k)
    end = k - 1
    while end > 0:
        v = a[0]
        a[0] = a[end]
        a[end] = v
        sift_down(a, 0, end)
        end -= 1


cdef inline void sift_down(int* a, int root, int k) noexcept nogil:
    cdef int child, v = a[root]
    while True:
        child = 2 * root + 1
        if child >= k:
            break
        if child + 1 < k and a[child + 1] > a[child]:
            child += 1
        if a[child] <= v:
            break
        a[root] = a[child]
        root = child
    a[root] = v


# ------------------------------------------------------------------ the push apart's look-ups

cdef enum:
    MOVED_LIST = 256    # push_apart lists the rows it moved while they are at most this many
    OCC_CELLS = 1 << 20 # the most cells whose rows Cells marks
    CELLS_BIG = 4096    # a box over more cells than this is in none: every look-up takes it
    CELLS_SCAN = 4096   # a look-up over more cells than this takes every row of the cells


cdef struct Cells:
    # a hashed grid of some rows' reach boxes (as `reaches` tests them), made for one push
    # apart (`cells_build`); a cell's rows are in its bucket, ascending (buckets shared by
    # several cells only add rows the look-up's box test drops)
    double inv          # 1 / the side of a cell
    uint64_t mask       # buckets - 1 (a power of two)
    int* start          # bucket k's rows: item[start[k]:start[k + 1]]
    int* item
    int nitem
    int* big            # rows over more than CELLS_BIG cells, ascending
    int nbig
    # without big rows, and over few enough cells: which cells hold a row (a look-up where
    # none does ends there), columns ox .. ox + ow - 1, rows oy .. oy + oh - 1
    unsigned char* occ
    int64_t ox
    int64_t oy
    int64_t ow
    int64_t oh


cdef inline int64_t ifloor(double v) noexcept nogil:
    """floor(v) as an integer, for abs(v) < 2**62 (no call into the maths library)."""
    cdef int64_t i = <int64_t> v
    return i - (v < <double> i)


cdef inline bint cell_span(double inv, double x0, double y0, double x1, double y1,
                           int64_t* span, double limit) noexcept nogil:
    """The cells under the box (columns span[0]..span[2], rows span[1]..span[3]), or False
    if there are more than ``limit`` of them (or the box is not finite)."""
    cdef double tx0 = x0 * inv, ty0 = y0 * inv, tx1 = x1 * inv, ty1 = y1 * inv
    if not (tx0 > -1e15 and ty0 > -1e15 and tx1 < 1e15 and ty1 < 1e15):
        return False
    span[0] = ifloor(tx0)
    span[1] = ifloor(ty0)
    span[2] = ifloor(tx1)
    span[3] = ifloor(ty1)
    return (<double> (span[2] - span[0]) + 1.0) * (<double> (span[3] - span[1]) + 1.0) <= limit


cdef inline uint64_t cell_hash(int64_t cx, int64_t cy) noexcept nogil:
    cdef uint64_t h = (<uint64_t> cx) * 0x9E3779B97F4A7C15ULL ^ (<uint64_t> cy) * 0xC2B2AE3D27D4EB4FULL
    return h ^ (h >> 29)


cdef inline bint in_cells(const Ctx* c, int s) noexcept nogil:
    """Row s goes into the cells: never pushed, and solid (widen pairs only with those)."""
    return immovable(c, s) and c.reach[s].solid


cdef void cells_free(Cells* g) noexcept nogil:
    free(g.start)
    free(g.item)
    free(g.big)
    free(g.occ)
    g.start = g.item = g.big = NULL
    g.occ = NULL
    g.nitem = g.nbig = 0


cdef int cells_build(Ctx* c, Cells* g, double side) except -1 nogil:
    """The cells of side ``side`` of the solid rows that are never pushed, by their reach
    boxes (the boxes `reaches` tests): those rows listed (in ``c.stack``: free until the
    slide), counted, then filled from the last to the first, so each bucket holds its rows
    ascending."""
    cdef int s, t, m = 0
    cdef int* rows = c.stack
    cdef int64_t span[4]
    cdef int64_t cx, cy, total = 0, nbig = 0
    cdef int64_t x0 = 0, y0 = 0, x1 = -1, y1 = -1
    cdef uint64_t buckets = 16, k
    cdef const Reach* w
    g.start = g.item = g.big = NULL
    g.occ = NULL
    g.nitem = g.nbig = 0
    g.inv = 1.0 / side
    ensure_all(c)
    for s in range(c.n):
        if in_cells(c, s):
            rows[m] = s
            m += 1
    for t in range(m):
        w = &c.reach[rows[t]]
        if cell_span(g.inv, w.x0 - w.covered, w.y0 - w.covered, w.x1 + w.covered,
                     w.y1 + w.covered, span, CELLS_BIG):
            if total == 0:
                x0, y0, x1, y1 = span[0], span[1], span[2], span[3]
            x0 = span[0] if span[0] < x0 else x0
            y0 = span[1] if span[1] < y0 else y0
            x1 = span[2] if span[2] > x1 else x1
            y1 = span[3] if span[3] > y1 else y1
            total += (span[2] - span[0] + 1) * (span[3] - span[1] + 1)
        else:
            nbig += 1
    while buckets < 2 * <uint64_t> total:
        buckets *= 2
    g.mask = buckets - 1
    g.ox = x0
    g.oy = y0
    g.ow = x1 - x0 + 1 if nbig == 0 else 0
    g.oh = y1 - y0 + 1 if nbig == 0 else 0
    if (<double> g.ow) * (<double> g.oh) > OCC_CELLS:
        g.ow = g.oh = 0
    if total < 0x7fffffff:
        g.start = <int*> calloc(buckets + 1, sizeof(int))
        g.item = <int*> malloc((total + 1) * sizeof(int))
        g.big = <int*> malloc((nbig + 1) * sizeof(int))
        g.occ = <unsigned char*> calloc(g.ow * g.oh + 1, 1)
    if g.start == NULL or g.item == NULL or g.big == NULL or g.occ == NULL:
        cells_free(g)
        with gil:
            raise MemoryError()
    for t in range(m):
        w = &c.reach[rows[t]]
        if cell_span(g.inv, w.x0 - w.covered, w.y0 - w.covered, w.x1 + w.covered,
                     w.y1 + w.covered, span, CELLS_BIG):
            for cy in range(span[1], span[3] + 1):
                for cx in range(span[0], span[2] + 1):
                    g.start[cell_hash(cx, cy) & g.mask] += 1
                    if g.ow:
                        g.occ[(cy - g.oy) * g.ow + cx - g.ox] = 1
        else:
            g.big[g.nbig] = rows[t]
            g.nbig += 1
    for k in range(1, buckets):  # each bucket's end
        g.start[k] += g.start[k - 1]
    g.start[buckets] = <int> total
    g.nitem = <int> total
    for t in range(m - 1, -1, -1):
        w = &c.reach[rows[t]]
        if cell_span(g.inv, w.x0 - w.covered, w.y0 - w.covered, w.x1 + w.covered,
                     w.y1 + w.covered, span, CELLS_BIG):
            for cy in range(span[1], span[3] + 1):
                for cx in range(span[0], span[2] + 1):
                    k = cell_hash(cx, cy) & g.mask
                    g.start[k] -= 1
                    g.item[g.start[k]] = rows[t]
    return 0


cdef inline int take(Ctx* c, int s, int k, double x0, double y0, double x1,
                     double y1) noexcept nogil:
    """`cells_find`'s step: row s into ``c.cand`` (at k) if new to this look-up and it
    reaches the box; returns the new count."""
    if c.stamp[s] != c.gen:
        c.stamp[s] = c.gen
        if reaches(c, s, x0, y0, x1, y1):
            c.cand[k] = s
            return k + 1
    return k


cdef int cells_find(Ctx* c, const Cells* g, double x0, double y0, double x1,
                    double y1) noexcept nogil:
    """The rows of the cells whose reach box meets the box (x0, y0, x1, y1), each once,
    ascending, into ``c.cand``; returns how many: what `beyond_candidates` keeps, from the
    cells instead of the index."""
    cdef int64_t span[4]
    cdef int64_t cx, cy
    cdef uint64_t h
    cdef int t, k = 0
    cdef bint within = cell_span(g.inv, x0, y0, x1, y1, span, CELLS_SCAN)
    if g.nitem == 0 and g.nbig == 0:
        return 0
    if within and g.ow:  # no row in any of its cells: none
        if (span[2] < g.ox or span[0] >= g.ox + g.ow or span[3] < g.oy
                or span[1] >= g.oy + g.oh):
            return 0
        for cy in range(max(span[1], g.oy), min(span[3], g.oy + g.oh - 1) + 1):
            for cx in range(max(span[0], g.ox), min(span[2], g.ox + g.ow - 1) + 1):
                k += g.occ[(cy - g.oy) * g.ow + cx - g.ox]
        if k == 0:
            return 0
        k = 0
    c.gen += 1
    if c.gen == 0:  # wrapped: clear the stamps
        memset(c.stamp, 0, c.n * sizeof(unsigned int))
        c.gen = 1
    if within:
        for cy in range(span[1], span[3] + 1):
            for cx in range(span[0], span[2] + 1):
                h = cell_hash(cx, cy) & g.mask
                for t in range(g.start[h], g.start[h + 1]):
                    k = take(c, g.item[t], k, x0, y0, x1, y1)
    else:
        for t in range(g.nitem):
            k = take(c, g.item[t], k, x0, y0, x1, y1)
    for t in range(g.nbig):
        k = take(c, g.big[t], k, x0, y0, x1, y1)
    sort_rows(c.cand, k)
    return k


cdef struct Item:
    # `widen_all`'s copy of a solid row (the items sorted by cell)
    double x0           # the box its reach is measured from (``Reach``)
    double y0
    double x1
    double y1
    double cov          # its reach (``covered``)
    int64_t layer
    int64_t mask
    int row
    int widens          # it widens now


cdef struct Pushes:
    # what push_apart keeps while it pushes
    Cells fixed         # the solid rows that are never pushed (made at the LAZY_FIXED-th look)
    bint built
    int looks           # look-ups of those so far
    int nmoved          # rows moved so far (beyond MOVED_LIST: not listed, all are looked at)
    int moved[MOVED_LIST]


cdef int fixed_near(Ctx* c, int r, Pushes* ps, double x0, double y0, double x1,
                    double y1) except -1 nogil:
    """The solid rows that are never pushed whose reach box meets the box (x0, y0, x1, y1)
    (they do not move in a push apart: where they are is in it), each once, ascending, into
    ``c.cand``; returns how many. From the index while the look-ups are few (nothing has
    widened yet: what it holds is exact), else (and without an index) from cells of those
    rows made once for the push apart."""
    cdef int k, m = 0, s
    cdef double side
    ps.looks += 1
    if not ps.built and (c.index == NULL or ps.looks > LAZY_FIXED):
        side = 2.0 * mean_extent(&c.rows, c.n)
        cells_build(c, &ps.fixed, side if side > 0.0 and side < INFINITY else 1.0)
        ps.built = True
    if ps.built:
        return cells_find(c, &ps.fixed, x0, y0, x1, y1)
    for k in range(beyond_candidates(c, x0, y0, x1, y1)):
        s = c.cand[k]
        if in_cells(c, s):
            c.cand[m] = s
            m += 1
    return m


cdef inline void note_moved(Pushes* ps, int r) noexcept nogil:
    """Row r moved in the push apart (listed once, while the list has room)."""
    cdef int k
    if ps.nmoved > MOVED_LIST:
        return
    for k in range(ps.nmoved):
        if ps.moved[k] == r:
            return
    if ps.nmoved < MOVED_LIST:
        ps.moved[ps.nmoved] = r
    ps.nmoved += 1


cdef inline void anchor(Ctx* c, int r) noexcept nogil:
    """Row r's reach measured from where it is now (what it needs from there is its rest),
    ``WIDEN_REACH`` times what it needs: a row pushed apart meets what is near where it got
    to, not what is near where it started."""
    cdef Reach* w = &c.reach[r]
    cdef const Body* b = &c.body[r]
    w.x0 = b.px + b.x0
    w.y0 = b.py + b.y0
    w.x1 = b.px + b.x1
    w.y1 = b.py + b.y1
    w.covered = WIDEN_REACH * reach_needed(c, r)


cdef inline void batch_pair(const Item* p, const Item* q, int sb, uint64_t* out,
                            Py_ssize_t* n) noexcept nogil:
    """`widen_all`'s test of two items: if one widens (r: the first row if both do, it would
    look first), r's grown box meets the other's reach box as `reaches` tests it and layers
    and masks allow it, the pair goes to ``out`` (r's row shifted by ``sb`` bits, the
    other's row)."""
    # (without branches: the key is written always, kept by counting it)
    cdef bint swap = (not p.widens) | (q.widens & (q.row < p.row))
    cdef const Item* r = q if swap else p
    cdef const Item* s = p if swap else q
    cdef double g = r.cov + SWEEP_MARGIN
    cdef bint keep = ((p.widens | q.widens)
                      & (not (s.x0 - s.cov > r.x1 + g)) & (not (s.x1 + s.cov < r.x0 - g))
                      & (not (s.y0 - s.cov > r.y1 + g)) & (not (s.y1 + s.cov < r.y0 - g))
                      & ((r.layer & s.mask) != 0) & ((s.layer & r.mask) != 0))
    out[n[0]] = (<uint64_t> r.row) << sb | <uint64_t> s.row
    n[0] += keep


cdef inline Py_ssize_t first_at(const uint64_t* key, Py_ssize_t n, uint64_t k) noexcept nogil:
    """The first index of the ascending ``key[:n]`` whose key is at least k."""
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if key[mid] < k:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef void big_pairs(const Item* items, const uint64_t* okey, Py_ssize_t nsmall, Py_ssize_t t,
                    double inv, int64_t cx0, int64_t cy0, int64_t width, int64_t height,
                    int sb, uint64_t* out, Py_ssize_t* n) noexcept nogil:
    """`widen_all`'s pairs of big item t with the small items (sorted by the cell of their
    low corner, ``okey``): only those in the cells its grown box meets, and one cell left
    and below (a small item's box is at most a cell wide), row of cells by row; every small
    item when that is most of them (or its box is not finite)."""
    cdef const Item* p = &items[t]
    cdef double g = p.cov + SWEEP_MARGIN
    cdef double fx0 = floor((p.x0 - g) * inv) - 1.0 - cx0
    cdef double fy0 = floor((p.y0 - g) * inv) - 1.0 - cy0
    cdef double fx1 = floor((p.x1 + g) * inv) - cx0
    cdef double fy1 = floor((p.y1 + g) * inv) - cy0
    cdef int64_t y, ya, yb, xa, xb
    cdef Py_ssize_t u
    if fx0 < 0.0:
        fx0 = 0.0
    if fy0 < 0.0:
        fy0 = 0.0
    if fx1 > <double> (width - 1):
        fx1 = <double> (width - 1)
    if fy1 > <double> (height - 1):
        fy1 = <double> (height - 1)
    if not (fx0 <= fx1 and fy0 <= fy1):
        if fx0 > fx1 or fy0 > fy1:  # (beyond every small item)
            return
        for u in range(nsmall):  # (not finite)
            batch_pair(p, &items[u], sb, out, n)
        return
    if (fy1 - fy0 + 1.0) * 24.0 > <double> nsmall:  # (as many rows as items: look at all)
        for u in range(nsmall):
            batch_pair(p, &items[u], sb, out, n)
        return
    xa = <int64_t> fx0
    xb = <int64_t> fx1
    ya = <int64_t> fy0
    yb = <int64_t> fy1
    for y in range(ya, yb + 1):
        u = first_at(okey, nsmall, <uint64_t> (y * width + xa))
        while u < nsmall and okey[u] <= <uint64_t> (y * width + xb):
            batch_pair(p, &items[u], sb, out, n)
            u += 1


cdef inline bint room(uint64_t** buf, Py_ssize_t* cap, Py_ssize_t need) noexcept nogil:
    """``buf`` holds at least ``need`` keys (grown by half again); False if out of memory."""
    cdef Py_ssize_t n
    if need <= cap[0]:
        return True
    n = need + need // 2 + 1024
    if not _re(<void**> buf, n * sizeof(uint64_t)):
        return False
    cap[0] = n
    return True


cdef inline double item_side(const Reach* w) noexcept nogil:
    """The larger side of a row's reach box grown by the margin (`widen_all`'s cells)."""
    return max2(w.x1 - w.x0, w.y1 - w.y0) + 2.0 * (w.covered + SWEEP_MARGIN)


cdef int widen_all(Ctx* c, const int* moved, int nmoved) except -1 nogil:
    """After the pushes apart: every row that got beyond its reach is anchored where it is
    (`anchor`) and gets a pair with every solid row whose reach box meets its own, grown as
    `widen` grows it, layers, masks and ``filter_pair`` allowing, that it does not pair with
    already. A few such rows look in turn (`look_beyond`); many (all solid) at once, all
    anchored first: one sweep of cells over the solid rows' reach boxes (not the index: the
    same pairs with an index or without) takes each pair once, and the pairs are added by
    the row that widens (the first of the two if both do: it would look first), rows in
    ascending order, each row's pairs in ascending rows.

    The sweep: cells as large as the rows' grown reach boxes (but a few times their mean
    size: the rows larger than that, the big ones, are met with every other), each row in
    the cell of its box's low corner, the rows sorted by cell; a row meets rows in its own
    cell and the next one, and in the three cells above, and no others."""
    cdef int i, nw = 0, nsolid = 0, nsmall = 0, r, s, last, sb
    cdef unsigned int wgen
    cdef bint solid_all = True, ok = True
    cdef double side = 0.0, mean = 0.0, e, g, inv
    cdef int* rows = c.stack    # (free until the slide)
    cdef Reach* w
    cdef int64_t cx, cy, cx0 = 0, cy0 = 0, cx1 = 0, cy1 = 0, width = 0
    cdef uint64_t k, hi
    cdef Py_ssize_t t, u, a, ncand = 0, cap = 0
    cdef uint64_t* okey = NULL      # the small items' cells, ascending
    cdef int64_t* oval = NULL
    cdef Item* items = NULL
    cdef uint64_t* cand = NULL
    cdef Buf tmp
    tmp.p = NULL
    tmp.cap = 0
    sb = bits_for(<uint64_t> c.n)
    for t in range(nmoved if moved != NULL else live_n(c)):
        i = moved[t] if moved != NULL else live_row(c, <int> t)
        if (c.rows.kind[i] != STATIC
                and reach_needed(c, i) > c.reach[i].covered + SWEEP_MARGIN):
            rows[nw] = i
            nw += 1
            solid_all = solid_all and c.reach[i].solid
    if nw == 0:
        return 0
    if moved != NULL:  # (the live rows are ascending but for the sleepers after them, which
        sort_rows(rows, nw)  # never widen)
    wgen = new_mark(c)  # the rows that widen, marked
    for i in range(nw):
        r = rows[i]
        anchor(c, r)
        c.mark[r] = wgen
        c.widened += 1
    if c.index != NULL:  # (every reach grown before the first look-up)
        for i in range(nw):
            note_grown(c, rows[i])
    if nw < BATCH_MIN or nw * BATCH_SHARE < c.n or not solid_all:
        for i in range(nw):
            look_beyond(c, rows[i])
        return 0
    # the cells' side: the largest grown reach box up to BIG_SIDE times their mean
    ensure_all(c)
    for i in range(c.n):
        if c.reach[i].solid:
            nsolid += 1
            mean += item_side(&c.reach[i])
    mean = BIG_SIDE * mean / nsolid
    for i in range(c.n):
        if c.reach[i].solid:
            e = item_side(&c.reach[i])
            if e <= mean and e > side:
                side = e
    side *= 1.0 + 1e-9   # (two low corners a side apart are in neighbouring cells)
    if not (side > 0.0 and side < INFINITY):
        for i in range(nw):  # (boxes not finite: each looks on its own)
            look_beyond(c, rows[i])
        return 0
    inv = 1.0 / side
    for i in range(c.n):
        w = &c.reach[i]
        if w.solid and item_side(w) <= side:
            g = w.covered + SWEEP_MARGIN
            cx = <int64_t> floor((w.x0 - g) * inv)
            cy = <int64_t> floor((w.y0 - g) * inv)
            if nsmall == 0:
                cx0, cy0, cx1, cy1 = cx, cy, cx, cy
            cx0 = cx if cx < cx0 else cx0
            cy0 = cy if cy < cy0 else cy0
            cx1 = cx if cx > cx1 else cx1
            cy1 = cy if cy > cy1 else cy1
            nsmall += 1
    width = cx1 - cx0 + 1
    if nsmall and (<double> width) * (<double> (cy1 - cy0 + 1)) > 1e18:
        for i in range(nw):  # (cells too many to number: each looks on its own)
            look_beyond(c, rows[i])
        return 0
    try:
        items = <Item*> malloc((nsolid + 1) * sizeof(Item))
        okey = <uint64_t*> malloc((nsolid + 1) * sizeof(uint64_t))
        oval = <int64_t*> malloc((nsolid + 1) * sizeof(int64_t))
        if items == NULL or okey == NULL or oval == NULL:
            ok = False
        # the small items sorted by cell, the big ones after them, ascending
        u = 0
        a = nsmall
        for i in range(c.n if ok else 0):
            w = &c.reach[i]
            if not w.solid:
                continue
            if item_side(w) <= side:
                g = w.covered + SWEEP_MARGIN
                okey[u] = <uint64_t> ((<int64_t> floor((w.y0 - g) * inv) - cy0) * width
                                      + (<int64_t> floor((w.x0 - g) * inv) - cx0))
                oval[u] = i
                u += 1
            else:
                oval[a] = i
                a += 1
        if ok and sort_keys(okey, oval, nsmall, &tmp) < 0:
            ok = False
        for t in range(nsolid if ok else 0):
            if t + FETCH_AHEAD < nsolid:  # (rows in cell order are far apart in memory)
                i = <int> oval[t + FETCH_AHEAD]
                prefetch(&c.reach[i])
                prefetch(&c.rows.layer[i])
                prefetch(&c.rows.mask[i])
                prefetch(&c.mark[i])
            i = <int> oval[t]
            w = &c.reach[i]
            items[t].x0 = w.x0
            items[t].y0 = w.y0
            items[t].x1 = w.x1
            items[t].y1 = w.y1
            items[t].cov = w.covered
            items[t].layer = c.rows.layer[i]
            items[t].mask = c.rows.mask[i]
            items[t].row = i
            items[t].widens = c.mark[i] == wgen
        # the sweep: each small item against the rest of its cell and the next, and the
        # three cells above (a: the first item at or after the first of those)
        a = 0
        for t in range(nsmall if ok else 0):
            k = okey[t]
            cx = <int64_t> (k % <uint64_t> width)
            if not room(&cand, &cap, ncand + 64):
                ok = False
                break
            hi = k + 1 if cx + 1 < width else k
            u = t + 1
            while u < nsmall and okey[u] <= hi:
                if ncand + 1 > cap and not room(&cand, &cap, ncand + 1):
                    ok = False
                    break
                batch_pair(&items[t], &items[u], sb, cand, &ncand)
                u += 1
            k = k + <uint64_t> width - (1 if cx > 0 else 0)
            hi = k + (1 if cx > 0 else 0) + (1 if cx + 1 < width else 0)
            while a < nsmall and okey[a] < k:
                a += 1
            u = a
            while ok and u < nsmall and okey[u] <= hi:
                if ncand + 1 > cap and not room(&cand, &cap, ncand + 1):
                    ok = False
                    break
                batch_pair(&items[t], &items[u], sb, cand, &ncand)
                u += 1
            if not ok:
                break
        for t in range(nsmall, nsolid if ok else nsmall):
            if not room(&cand, &cap, ncand + t):  # (at most every item before it)
                ok = False
                break
            for u in range(nsmall, t):
                batch_pair(&items[t], &items[u], sb, cand, &ncand)
            big_pairs(items, okey, nsmall, t, inv, cx0, cy0, width, cy1 - cy0 + 1, sb, cand,
                      &ncand)
        if ok and sort_keys(cand, NULL, ncand, &tmp) < 0:
            ok = False
        if not ok:
            with gil:
                raise MemoryError()
        # the pairs, by the row that widens
        last = -1
        for t in range(ncand):
            r = <int> (cand[t] >> sb)
            s = <int> (cand[t] & ((1ULL << sb) - 1))
            if r != last:
                mark_partners(c, r)
                last = r
            if c.mark[s] != c.mgen:
                add_beyond(c, r, s)
    finally:
        free(items)
        free(okey)
        free(oval)
        free(cand)
        buf_free(&tmp)
    return 0


# ------------------------------------------------------------------ the passes

cdef bint box_clear(const TileGrid* g, double x0, double y0, double x1, double y1) noexcept nogil:
    """No solid tile's square overlaps the box (shrunk by a hair: touching is clear); a box
    over more than 4,096 tiles counts as clear (the check would cost more than it saves)."""
    cdef double e = 1e-9 * g.size
    cdef int c0, c1, u0, u1, u, col
    tile_range(g, x0 + e, y0 + e, x1 - e, y1 - e, &c0, &c1, &u0, &u1)
    if c0 > c1 or u0 > u1:
        return True
    if (<long> (c1 - c0 + 1)) * (u1 - u0 + 1) > 4096:
        return True
    for u in range(u0, u1 + 1):
        for col in range(c0, c1 + 1):
            if g.kind[u * g.cols + col] > 0:
                return False
    return True


cdef bint buried_tile(const Ctx* c, const Body* b, const TileGrid* g, int* u, int* col
                      ) noexcept nogil:
    """Body b's centre (of its box) lies in a solid tile of grid g, or, for a compound, the
    centre of one of its parts' boxes does (a dumbbell with one ball built over): that tile
    into *u and *col. A part whose centre is outside the tiles meets their edges instead."""
    cdef int i
    cdef const double* lf
    if grid_tile(g, b.px + (b.x0 + b.x1) * 0.5, b.py + (b.y0 + b.y1) * 0.5, u, col) > 0:
        return True
    if b.kind != COMPOUND:
        return False
    for i in range(b.first, b.first + b.count):
        lf = c.store.lf + i * LF_STRIDE
        if grid_tile(g, b.px + (lf[LF_X0] + lf[LF_X1]) * 0.5,
                     b.py + (lf[LF_Y0] + lf[LF_Y1]) * 0.5, u, col) > 0:
            return True
    return False


cdef bint out_of_tiles(Ctx* c, int r, int m) noexcept nogil:
    """Row r's centre, or the centre of one of its parts, is inside a solid tile of tile map
    row m (a tile was built on it, or it was placed there; `buried_tile`): move it out the
    short way by a side of that tile that is open (the tile beyond it empty, or outside the
    map) and where its box overlaps no solid tile, its box a skin beyond that side, and take
    away its velocity into the tiles. It never leaves through other solid tiles, nor into
    them (a body resting on a floor when a tile is built on it goes up or sideways, never
    down through or into the floor); only a body with no such side goes to the nearest side
    of the nearest empty tile straight up, down, left or right where its box is clear (up to
    64 tiles away), and one with none of those either to the nearest of them, clear or
    not."""
    cdef Body* b = &c.body[r]
    cdef TileGrid g = tile_grid(&c.store, &c.body[m])
    cdef int u = 0, col = 0
    if not buried_tile(c, b, &g, &u, &col):
        return False
    cdef double best = INFINITY, d = 0.0, nx = 0.0, ny = 0.0, bx = 0.0, by = 0.0
    cdef double sx, sy
    cdef int k, side, reach = 1, attempt
    cdef bint clear = True
    # an open side where the box is clear (reach 1), then beyond solid tiles where it is
    # clear (reach 64), then the nearest of those, clear or not
    for attempt in range(3):
        if best < INFINITY:
            break
        reach = 1 if attempt == 0 else 64
        clear = attempt < 2
        for side in range(4):
            for k in range(1, reach + 1):
                if side == 0:    # up
                    if u + k < g.rows and g.kind[(u + k) * g.cols + col] > 0:
                        continue
                    d = g.oy + (u + k) * g.size - (b.py + b.y0) + c.skin
                elif side == 1:  # down
                    if u - k >= 0 and g.kind[(u - k) * g.cols + col] > 0:
                        continue
                    d = (b.py + b.y1) - (g.oy + (u - k + 1) * g.size) + c.skin
                elif side == 2:  # left
                    if col - k >= 0 and g.kind[u * g.cols + col - k] > 0:
                        continue
                    d = (b.px + b.x1) - (g.ox + (col - k + 1) * g.size) + c.skin
                else:            # right
                    if col + k < g.cols and g.kind[u * g.cols + col + k] > 0:
                        continue
                    d = g.ox + (col + k) * g.size - (b.px + b.x0) + c.skin
                sx = -1.0 if side == 2 else (1.0 if side == 3 else 0.0)
                sy = 1.0 if side == 0 else (-1.0 if side == 1 else 0.0)
                if d < best and (not clear or box_clear(
                        &g, b.px + b.x0 + sx * d, b.py + b.y0 + sy * d,
                        b.px + b.x1 + sx * d, b.py + b.y1 + sy * d)):
                    best = d
                    bx = sx
                    by = sy
                break
    if best == INFINITY:
        return False
    b.px += bx * best
    b.py += by * best
    # the velocity into the tiles goes (the normal from the body to the map is -(bx, by))
    nx = -bx
    ny = -by
    if r < m:
        impulse(c, r, m, nx, ny)
    else:
        impulse(c, m, r, -nx, -ny)
    return True


cdef double push_by(Ctx* c, int r, int other, double dx, double dy,
                    Pushes* ps) except -1.0 nogil:
    """Move row r by (dx, dy) as a push apart from row ``other``, stopping a skin before the
    first body in the way that is never pushed (a wall, a floor, a platform of infinite
    mass); returns the fraction of the move made. Bodies that can give way are left to the
    slide (they are pushed in turn, or pushed apart in the next step). The push may take r
    beyond the box the broadphase swept for it: r gets its pairs with the bodies never
    pushed in its way first (`fixed_near`), the rest once all pushes are done
    (`widen_all`)."""
    if r < 0 or (dx == 0.0 and dy == 0.0):
        return 1.0 if r >= 0 else 0.0
    cdef double kx, ky, t, safe = 1.0, closing
    cdef int j, p, k, count
    cdef CContact hit
    cdef Body* br = &c.body[r]
    note_moved(ps, r)
    # the box first_hit looks in: r's box swept by the push
    cdef double x0 = br.px + br.x0 + (dx if dx < 0.0 else 0.0) - SWEEP_MARGIN
    cdef double y0 = br.py + br.y0 + (dy if dy < 0.0 else 0.0) - SWEEP_MARGIN
    cdef double x1 = br.px + br.x1 + (dx if dx > 0.0 else 0.0) + SWEEP_MARGIN
    cdef double y1 = br.py + br.y1 + (dy if dy > 0.0 else 0.0) + SWEEP_MARGIN
    count = fixed_near(c, r, ps, x0, y0, x1, y1)
    if count:  # (mostly none: r's rest is not even read)
        mark_partners(c, r)
        for k in range(count):
            pair_beyond(c, r, c.cand[k], x0, y0, x1, y1)
        kx = c.rest[2 * r]
        ky = c.rest[2 * r + 1]
        c.rest[2 * r] = dx  # (first_hit moves r by its rest)
        c.rest[2 * r + 1] = dy
        if first_hit(c, r, &t, &hit, &j, &p, True, other):
            closing = dot(dx, dy, hit.nx, hit.ny)
            safe = t - c.skin / closing if closing > 0.0 else t
            safe = 0.0 if safe < 0.0 else (1.0 if safe > 1.0 else safe)
        c.rest[2 * r] = kx
        c.rest[2 * r + 1] = ky
    br.px += dx * safe
    br.py += dy * safe
    return safe


cdef inline bint near_region(const Ctx* c, int m, int r) noexcept nogil:
    """Row r's box meets the changed-tile box of tile map row m (``region``)."""
    cdef const double* g = c.region + 4 * m
    cdef const Body* b = &c.body[r]
    cdef const Body* t = &c.body[m]
    return not (b.px + b.x1 < t.px + g[0] or b.px + b.x0 > t.px + g[2]
                or b.py + b.y1 < t.py + g[1] or b.py + b.y0 > t.py + g[3])


cdef inline bint moved(const Ctx* c, int r) noexcept nogil:
    """Row r is no longer where the step started it."""
    return c.body[r].px != c.start[2 * r] or c.body[r].py != c.start[2 * r + 1]


cdef int push_apart(Ctx* c) except -1 nogil:
    """Separate the solid pairs that overlap at the start, along the normal, by inverse mass,
    one pair after another; what moves into the contact no longer does. A body whose share
    would take it into a body that is never pushed (it rests on a floor, leans on a wall)
    moves up to that body, and the other body of the pair takes the rest of the depth, up
    to what stops it in turn (`push_by`), so nothing is pushed into or through a wall. A
    body whose centre is inside a solid tile of a tile map leaves it the short way
    (`out_of_tiles`). Then every row pushed beyond its reach gets its new pairs
    (`widen_all`)."""
    cdef Pushes ps
    ps.built = False
    ps.looks = 0
    ps.nmoved = 0
    ps.fixed.start = ps.fixed.item = ps.fixed.big = NULL
    ps.fixed.occ = NULL
    try:
        separate(c, &ps)
    finally:
        cells_free(&ps.fixed)
    if ps.nmoved:
        widen_all(c, ps.moved if ps.nmoved <= MOVED_LIST else NULL, ps.nmoved)
    return 0


cdef int separate(Ctx* c, Pushes* ps) except -1 nogil:
    """`push_apart`'s pass over the broadphase's pairs (the lines it reads of the second row
    of a pair a few pairs ahead asked for meanwhile: the second rows are far apart in
    memory; the first ones ascend)."""
    cdef int p, ra, rb
    cdef int64_t a, b, f
    cdef CContact cc
    cdef double wa, wb, total, da, db, left
    for p in range(c.np0):
        a = c.pa[p]
        b = c.pb[p]
        if p + FETCH_AHEAD < c.np0:  # (here, not in a helper: the compiler drops those)
            f = c.pb[p + FETCH_AHEAD]
            prefetch(&c.body[f])
            prefetch(&c.rows.one_way[2 * f])
            prefetch(&c.rows.inv_mass[f])
            prefetch(&c.rows.sensor[f])
            prefetch(&c.rest[2 * f])
            prefetch(&c.vel[2 * f])
            prefetch(&c.rows.restitution[f])
            prefetch(&c.rows.friction[f])
            prefetch(&c.rows.acc[2 * f])
        if c.fresh != NULL and not (c.fresh[a] == 1 or c.fresh[b] == 1 or moved(c, <int> a)
                                    or moved(c, <int> b)):
            # neither changed since the clean end, nor was pushed in this pass; a tile map
            # whose tiles changed is looked at only with bodies near the changed tiles
            if not ((c.fresh[a] == 2 and near_region(c, <int> a, <int> b))
                    or (c.fresh[b] == 2 and near_region(c, <int> b, <int> a))):
                continue
        if not solid(&c.rows, a, b) or is_one_way(c, <int> a) or is_one_way(c, <int> b):
            continue  # a body inside a one-way body is passing through it
        wa = inv_mass_of(c, <int> a)
        wb = inv_mass_of(c, <int> b)
        total = wa + wb
        if total <= 0.0:
            continue
        if c.body[b].kind == TILEMAP and wa > 0.0 and out_of_tiles(c, <int> a, <int> b):
            note_moved(ps, <int> a)
            continue
        if c.body[a].kind == TILEMAP and wb > 0.0 and out_of_tiles(c, <int> b, <int> a):
            note_moved(ps, <int> b)
            continue
        if not contact(&c.store, &c.body[a], &c.body[b], TOUCH, &cc) or cc.depth <= OVERLAP:
            continue
        # shares of the depth (a moves against the normal, b along it); a side that cannot
        # move (-1) takes none
        da = cc.depth * wa / total
        db = cc.depth - da
        ra = <int> a if wa > 0.0 else -1
        rb = <int> b if wb > 0.0 else -1
        left = da * (1.0 - push_by(c, ra, <int> b, -cc.nx * da, -cc.ny * da, ps))
        db += left
        left = db * (1.0 - push_by(c, rb, <int> a, cc.nx * db, cc.ny * db, ps))
        if left > 0.0 and ra >= 0:
            left *= 1.0 - push_by(c, ra, <int> b, -cc.nx * left, -cc.ny * left, ps)
        if left > OVERLAP and wa > 0.0 and wb > 0.0:  # walls stopped both ways
            rise_out(c, <int> a, <int> b, ps)
        impulse(c, <int> a, <int> b, cc.nx, cc.ny)
    return 0


cdef inline double _reach_along(const Body* b, double ux, double uy, bint top) noexcept nogil:
    """How far body b's box reaches along (ux, uy): its highest point (``top``) or lowest."""
    cdef double x = b.x1 if (ux > 0.0) == top else b.x0
    cdef double y = b.y1 if (uy > 0.0) == top else b.y0
    return (b.px + x) * ux + (b.py + y) * uy


cdef int rise_out(Ctx* c, int a, int b, Pushes* ps) except -1 nogil:
    """A pair of two bodies that can be pushed (finite mass, not static) still overlapping
    after its push apart, walls having stopped both sides along the normal (two crates side
    by side in a pit one tile wide): the body on top along its "up" (against its
    acceleration; of two level, ``b``) rises out of the other by what it takes to clear it
    (the least lift along "up" after which they only touch, plus the skin), up to what stops
    it (a ceiling, `push_by`); the next steps let it fall back onto the other, as pymunk
    stacks them. Only a body with an acceleration rises: a top-down game's bodies have no
    "up" to rise along. (A body overlapping a wall, a floor or a ceiling, as one grown
    where it does not fit, is not lifted: it stays put, as documented.)"""
    cdef int r = -1, o
    cdef double ux = 0.0, uy = 0.0, vx, vy, lift, t
    cdef bint can_a = c.rows.acc[2 * a] != 0.0 or c.rows.acc[2 * a + 1] != 0.0
    cdef bint can_b = c.rows.acc[2 * b] != 0.0 or c.rows.acc[2 * b + 1] != 0.0
    cdef Body moved
    cdef CContact hit
    if can_b:
        body_up(&c.rows, b, c.upx, c.upy, &ux, &uy)
        r = b
        if can_a and ((c.body[b].px - c.body[a].px) * ux
                      + (c.body[b].py - c.body[a].py) * uy) < 0.0:
            r = a
    elif can_a:
        r = a
    if r < 0:
        return 0
    o = b if r == a else a
    body_up(&c.rows, r, c.upx, c.upy, &ux, &uy)
    # from far enough along "up" that the boxes are apart, down to where r is: the first
    # touch is the least lift
    lift = (_reach_along(&c.body[o], ux, uy, True) - _reach_along(&c.body[r], ux, uy, False)
            + 2.0 * c.skin)
    if not lift > 0.0:
        return 0
    moved = c.body[r]
    moved.px += ux * lift
    moved.py += uy * lift
    if not time_of_impact(&c.store, &moved, -ux * lift, -uy * lift, &c.body[o], 0.0, 0.0,
                          &t, &hit):
        return 0
    vx = ux * (lift * (1.0 - t) + c.skin)
    vy = uy * (lift * (1.0 - t) + c.skin)
    push_by(c, r, o, vx, vy, ps)
    return 0


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


cdef int move_from(Ctx* c, int i, long* budget) except -1 nogil:
    """Row i moves, and every row it meets that has not moved yet goes first (leaders)."""
    cdef int r, j, p, top = 0
    cdef double t
    cdef CContact hit
    hit.nx = hit.ny = hit.depth = hit.px = hit.py = 0.0
    c.stack[0] = i
    c.state[i] = WAITING
    while top >= 0:
        budget[0] -= 1
        r = c.stack[top]
        if budget[0] < 0 or c.slides[r] >= c.max_slides or not moving(c, r):
            c.rest[2 * r] = 0.0
            c.rest[2 * r + 1] = 0.0
            c.state[r] = DONE
            top -= 1
            continue
        widen(c, r)
        if not first_hit(c, r, &t, &hit, &j, &p):
            c.body[r].px += c.rest[2 * r]
            c.body[r].py += c.rest[2 * r + 1]
            c.rest[2 * r] = 0.0
            c.rest[2 * r + 1] = 0.0
            c.state[r] = DONE
            top -= 1
            continue
        if c.state[j] == PENDING and moving(c, j) and c.rows.kind[j] != STATIC:
            # a leader that has not moved yet goes first; r looks again after it
            top += 1
            c.stack[top] = j
            c.state[j] = WAITING
            continue
        apply_hit(c, r, j, t, &hit, p)
    return 0


cdef int carry_rider(Ctx* c, int i, int depth, long* budget) except -1 nogil:
    """Row i rides its carrier (a moving ACTIVE body it stood on at the end of the last
    step): the carrier moves first, and i's move gets the carrier's, but for its part up
    (the carrier pushes i up itself, as it meets it)."""
    cdef int f = c.rows.carrier[i]
    cdef double dx, dy, ux, uy, u
    if f < 0 or f >= c.n or c.carried[i] or c.rows.kind[i] == STATIC:
        return 0
    ensure(c, f)  # (a sleeping carrier: it does not move)
    c.carried[i] = 1
    if depth < 8:
        carry_rider(c, f, depth + 1, budget)  # a platform riding a platform
    if c.state[f] == PENDING and moving(c, f):
        move_from(c, f, budget)
    dx = c.body[f].px - c.start[2 * f]
    dy = c.body[f].py - c.start[2 * f + 1]
    up_of(c, i, &ux, &uy)
    u = dot(dx, dy, ux, uy)
    if u > 0.0:
        dx -= ux * u
        dy -= uy * u
    if dx == 0.0 and dy == 0.0:
        return 0
    c.rest[2 * i] += dx
    c.rest[2 * i + 1] += dy
    c.carry[2 * i] += dx
    c.carry[2 * i + 1] += dy
    if c.state[i] == DONE:
        c.state[i] = PENDING
    return 0


cdef int snap_down(Ctx* c, int r) except -1 nogil:
    """A stop_on_slope row that stood on a floor, met none in this step and is not moving
    up (walking down a slope, over a step) moves down to a floor within ``snap``."""
    cdef double ux, uy, t, closing, safe
    cdef int j, p
    cdef CContact hit
    up_of(c, r, &ux, &uy)
    if dot(c.vel[2 * r], c.vel[2 * r + 1], ux, uy) > 0.0:
        return 0
    c.rest[2 * r] = -ux * c.snap
    c.rest[2 * r + 1] = -uy * c.snap
    widen(c, r)
    if first_hit(c, r, &t, &hit, &j, &p) and is_floor(c, r, hit.nx, hit.ny):
        closing = dot(c.rest[2 * r], c.rest[2 * r + 1], hit.nx, hit.ny)
        safe = t - c.skin / closing if closing > 0.0 else t
        if safe > 0.0:
            c.body[r].px += c.rest[2 * r] * safe
            c.body[r].py += c.rest[2 * r + 1] * safe
        c.floored[r] = 1
    c.rest[2 * r] = 0.0
    c.rest[2 * r + 1] = 0.0
    return 0


cdef void first_carriers(Ctx* c) noexcept nogil:
    """Rows adopted since the last step have no floors classified yet: one that stands on a
    moving platform (within the contact offset, the platform within floor_max_angle of its
    "down") rides it from its first step, like one that stood on it in the last step."""
    cdef int p, r, f, k
    cdef CContact cc
    for p in range(c.np0):
        for k in range(2):
            r = <int> (c.pa[p] if k == 0 else c.pb[p])
            f = <int> (c.pb[p] if k == 0 else c.pa[p])
            if (not (c.rows.ground[r] & GROUND_NEW) or c.rows.carrier[r] >= 0
                    or c.rows.kind[r] == STATIC or isinf(c.rows.mass[r])
                    or c.rows.kind[f] == STATIC or not isinf(c.rows.mass[f])
                    or not solid(&c.rows, r, f)):
                continue
            if (contact(&c.store, &c.body[r], &c.body[f], c.offset, &cc)
                    and is_floor(c, r, cc.nx, cc.ny)):
                c.rows.carrier[r] = f


cdef double mean_extent(const Rows* rw, int n) noexcept nogil:
    """The mean of the colliding rows' larger box sides (0 with none)."""
    cdef double total = 0.0, w, h
    cdef int i, k = 0
    for i in range(n):
        if rw.collides[i]:
            w = rw.hi[2 * i] - rw.lo[2 * i]
            h = rw.hi[2 * i + 1] - rw.lo[2 * i + 1]
            total += w if w > h else h
            k += 1
    return total / k if k else 0.0


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


cdef void init_row(Ctx* c, int i) noexcept nogil:
    """Row i's start of the step: where it is, its move as its rest, and nothing done yet."""
    cdef double* pos_col = c.rows.pos
    cdef double mx = c.rows.move[2 * i]
    cdef double my = c.rows.move[2 * i + 1]
    cdef Reach* w
    c.body[i] = row_body(&c.rows, i, pos_col)
    c.rest[2 * i] = mx
    c.rest[2 * i + 1] = my
    c.want[2 * i] = mx
    c.want[2 * i + 1] = my
    c.prev_n[2 * i] = 0.0
    c.prev_n[2 * i + 1] = 0.0
    c.state[i] = PENDING
    c.slides[i] = 0
    c.carry[2 * i] = 0.0
    c.carry[2 * i + 1] = 0.0
    c.pushed[i] = 0
    c.tleft[i] = c.dt
    c.carried[i] = 0
    c.floored[i] = 0
    c.head[i] = -1
    c.estart[i] = 0  # no edges until `build_edges` gives it the pairs' (none if set up later)
    c.eend[i] = 0
    # the broadphase grew each dynamic box by the move's length and the offset (a sleeper is
    # one of its static boxes: it gets nowhere)
    w = &c.reach[i]
    w.covered = 0.0 if c.rows.kind[i] == STATIC or c.rows.asleep[i] else \
        sqrt(mx * mx + my * my) + c.offset
    w.cov0 = w.covered
    w.x0 = pos_col[2 * i] + c.rows.lo[2 * i]
    w.y0 = pos_col[2 * i + 1] + c.rows.lo[2 * i + 1]
    w.x1 = pos_col[2 * i] + c.rows.hi[2 * i]
    w.y1 = pos_col[2 * i + 1] + c.rows.hi[2 * i + 1]
    w.solid = c.rows.collides[i] and not c.rows.sensor[i]
    w.fixed = c.rows.kind[i] == STATIC
    c.isfar[i] = 0
    c.stamp[i] = 0
    c.mark[i] = 0


cdef inline int live_n(const Ctx* c) noexcept nogil:
    """How many rows the step works on (``live``: while something sleeps, the awake rows and
    the sleepers met so far; else every row)."""
    return c.nlive if c.live != NULL else c.n


cdef inline int live_row(const Ctx* c, int k) noexcept nogil:
    """The k-th row the step works on (see `live_n`)."""
    return c.live[k] if c.live != NULL else k


cdef inline void ensure(Ctx* c, int s) noexcept nogil:
    """Row s is set up for this step: a sleeper the step meets (a pair's, a look-up's, a
    carrier) is set up when first met and listed among the live rows; a sleeper the step
    never meets costs it nothing."""
    if c.live != NULL and c.seen[s] != c.tick:
        init_row(c, s)
        if c.fresh != NULL and c.end_ent != NULL:  # (the awake rows' marks only so far)
            c.fresh[s] = stale(c.end_pos, c.end_ent, c.end_n, &c.rows, s)
        c.seen[s] = c.tick
        c.live[c.nlive] = s
        c.nlive += 1


cdef void ensure_all(Ctx* c) noexcept nogil:
    """Every row set up (a pass that reads every row: the cells of the push apart, a batch
    of widened rows, a look-up without an index)."""
    cdef int s
    if c.live != NULL:
        for s in range(c.n):
            ensure(c, s)


cdef void start_rows(Ctx* c, const int64_t* awake, int nawake, const int64_t* a,
                     const int64_t* b) noexcept nogil:
    """Every row's start of the step (`init_row`); while something sleeps (``awake`` not
    NULL: the awake rows, ascending) only the awake rows' and those of the broadphase's
    pairs (the sleepers beside awake bodies), listed in ``live``; the rest are set up only
    if the step meets them (`ensure`)."""
    cdef int i, k, p
    if awake == NULL:
        for i in range(c.n):
            init_row(c, i)
        return
    c.tick += 1
    if c.tick == 0:  # wrapped: no row was set up in this step
        memset(c.seen, 0, c.n * sizeof(unsigned int))
        c.tick = 1
    c.nlive = 0
    for k in range(nawake):
        i = <int> awake[k]
        init_row(c, i)
        c.seen[i] = c.tick
        c.live[c.nlive] = i
        c.nlive += 1
    for p in range(c.np0):
        ensure(c, <int> a[p])
        ensure(c, <int> b[p])


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
