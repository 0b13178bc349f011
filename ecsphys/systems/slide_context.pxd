# The sphere slide's shared context (stage 4 of the step, `systems/response.pyx`): the step's
# C state every piece of the slide works on, and the small rules they all read.
#
# Guarantees: `Ctx` holds one step's rows, pairs, edges and look-up state (set up by
# `ResponseSystem.respond` from its buffers; each field says what it holds), `Reach` a row's
# reach beyond its swept box (one cache line); the helpers here are inline (each module that
# cimports them compiles its own copy: no call through a pointer in the per-contact loops)
# and read the context only, but for `re_alloc`:
# - a body is fixed (`fixed`: asleep and not struck this step) to the response: inverse mass
#   0 (`inv_mass_of`), never pushed (`immovable`, with static bodies and bodies of infinite
#   mass);
# - a one-way body is met only by a body whose contact normal runs against its direction and
#   that does not start the step inside it (`one_way_solid`);
# - a contact normal is a floor for a row when within ``floor_max_angle`` of its "down"
#   (`is_floor`; "up": against its acceleration, or the physics' up without one, `up_of`);
# - while something sleeps the step works on the live rows only (`live_n`, `live_row`: the
#   awake rows ascending, then the sleepers met); else on every row, 0 .. n.

from cpython.ref cimport PyObject
from libc.stdint cimport int64_t
from libc.stdlib cimport realloc

from ..broadphase.boxindex cimport PairList
from ..geometry.shape_data cimport Body, CContact, Store
from ..state.table_view cimport Rows, body_up

cdef extern from *:
    """
    #ifndef ECSPHYS_SLIDE_CONTEXT
    #define ECSPHYS_SLIDE_CONTEXT
    #if defined(__GNUC__) || defined(__clang__)
    #define ecsphys_prefetch(p) __builtin_prefetch((p))
    #else
    #define ecsphys_prefetch(p) ((void)(p))
    #endif
    #define ECSPHYS_SLIDE_SWEEP_MARGIN 1e-3
    #define ECSPHYS_SLIDE_OVERLAP 1e-6
    #define ECSPHYS_SLIDE_ONE_WAY_COS 1e-3
    #endif
    """
    void prefetch "ecsphys_prefetch"(const void* p) noexcept nogil
    # world units: swept boxes this far apart may still meet
    double SWEEP_MARGIN "ECSPHYS_SLIDE_SWEEP_MARGIN"
    # overlap deeper than this (world units) counts as overlapping (response.OVERLAP_TOL)
    double OVERLAP "ECSPHYS_SLIDE_OVERLAP"
    # a one-way body is met only from (almost) above
    double ONE_WAY_COS "ECSPHYS_SLIDE_ONE_WAY_COS"

# a body's kind (``Collider.kind``)
cdef enum:
    STATIC = 0
    PASSIVE = 1
    ACTIVE = 2

# the push apart and the batch widen ask for the rows of the item this many items ahead
cdef enum:
    FETCH_AHEAD = 16


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


cdef inline bint re_alloc(void** p, size_t size) noexcept nogil:
    """realloc in place: False (and p untouched) when out of memory."""
    cdef void* q = realloc(p[0], size)
    if q == NULL:
        return False
    p[0] = q
    return True


cdef inline double dot(double ax, double ay, double bx, double by) noexcept nogil:
    return ax * bx + ay * by


cdef inline bint moving(const Ctx* c, int r) noexcept nogil:
    return c.rest[2 * r] != 0.0 or c.rest[2 * r + 1] != 0.0


cdef inline bint solid(const Rows* r, int64_t a, int64_t b) noexcept nogil:
    return not (r.sensor[a] or r.sensor[b])


cdef inline void up_of(const Ctx* c, int r, double* ux, double* uy) noexcept nogil:
    """Row r's "up": against its acceleration, or the physics' up without one."""
    body_up(&c.rows, r, c.upx, c.upy, ux, uy)


cdef inline bint is_floor(const Ctx* c, int r, double nx, double ny) noexcept nogil:
    """The normal from r to what it meets is within floor_max_angle of r's "down"."""
    cdef double ux, uy
    up_of(c, r, &ux, &uy)
    return -(nx * ux + ny * uy) >= c.cos_floor


cdef inline bint fixed(const Ctx* c, int r) noexcept nogil:
    """Row r sleeps and was not struck in this step: a fixed partner (see the module
    comment)."""
    return c.rows.asleep[r] and (c.hit == NULL or not c.hit[r])


cdef inline double inv_mass_of(const Ctx* c, int r) noexcept nogil:
    """Row r's inverse mass as the response exchanges momentum and shares pushes: 0 for a
    sleeper not struck (a fixed partner until it wakes)."""
    return 0.0 if fixed(c, r) else c.rows.inv_mass[r]


cdef inline bint immovable(const Ctx* c, int r) noexcept nogil:
    """Row r is never pushed: static, of infinite mass, or asleep and not struck (a sleeper
    is a fixed partner until it wakes)."""
    return c.rows.kind[r] == STATIC or c.rows.inv_mass[r] == 0.0 or fixed(c, r)


cdef inline bint is_one_way(const Ctx* c, int r) noexcept nogil:
    return c.rows.one_way[2 * r] != 0.0 or c.rows.one_way[2 * r + 1] != 0.0


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


cdef inline int live_n(const Ctx* c) noexcept nogil:
    """How many rows the step works on (``live``: while something sleeps, the awake rows and
    the sleepers met so far; else every row)."""
    return c.nlive if c.live != NULL else c.n


cdef inline int live_row(const Ctx* c, int k) noexcept nogil:
    """The k-th row the step works on (see `live_n`)."""
    return c.live[k] if c.live != NULL else k
