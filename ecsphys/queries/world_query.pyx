# The world's spatial queries, compiled: points, rays, regions and shape casts against every
# body of a Physics, through the index its broadphase left at the last step.
#
# Guarantees:
# - `refresh(...)` learns the index as the step left it: the rows of its dynamic ids (the swept
#   boxes of the last run) and of its static ids (the static boxes indexed). A row the index
#   does not cover, because its current box (position + shape bounds) is not inside the box the
#   index holds for it (the game moved it or changed its shape since, a push or a carry moved
#   it past its swept box, it is new to the layout) is *escaped* and tested by every query on
#   its own. So a query sees exactly the table as it is: every colliding row whose current box
#   overlaps the query's box is a candidate, each once (a stamp per row), and is then tested
#   against the query's filter and with the step's own compiled geometry (`point_in`,
#   `raycast`, `overlap`, `time_of_impact`) at its current position. With no compiled index
#   (the brute-force broadphase) every colliding row is escaped.
# - Filters: the row's layer must meet the query's mask; sensors only when asked; the entities
#   of `exclude` (sorted) and one `ignore` entity per ray are skipped.
# - Rays and casts are clipped to the box of all colliding rows and marched in chunks of about
#   `chunk` world units: each chunk's box asks the index for candidates not yet tested, and the
#   march stops at the first chunk that ends at or after the best hit so far. The hit is the
#   smallest t; among equal t, the lowest entity. A zero-length ray is a point test (t = 0,
#   normal (0, 0), the lowest entity containing the point).
# - Bounded work: the def layer refuses a coordinate that is not finite or beyond MAX_COORD
#   (ValueError; `ecsphys.queries` checks and names each argument first), so a move is at
#   most 2 * sqrt(2) * MAX_COORD long and no product of the march overflows. A ray or cast is
#   at most MAX_CHUNKS chunks; each chunk's `find` costs per box near it (the grid skips the
#   rows of its sparse levels that hold no box), and the escaped rows are tested against a
#   long ray once, sorted by where it enters their box (not once a chunk). So the longest
#   ray inside the range, across a world that spans all of it, answers in milliseconds, and
#   `ray_many` costs that per ray at most.
# - Every cdef routine is `noexcept nogil` and reads C values only; the pointers are taken
#   again at each def call (no Python runs between taking them and the end of the call).

cimport cython
from libc.math cimport INFINITY, ceil, fabs
from libc.stdint cimport int64_t, uint32_t
from libc.stdlib cimport qsort
from libc.string cimport memset

from ..broadphase.boxindex cimport (
    FOUND_STATIC, BoxIndex, Buf, PairList, buf_free, buf_reserve, lower_bound, pl_free, pl_push,
)
from ..geometry.impact cimport time_of_impact
from ..geometry.query cimport point_in, raycast, region_overlaps
from ..geometry.shape_data cimport Body, CContact, Store, store_of
from ..geometry.vec cimport clip_ray, norm
from ..state.table_view cimport Rows, row_body, rows_of

import numpy as np

from ..geometry.contact import TOUCH_TOLERANCE
from ..limits import MAX_COORD

__all__ = ["WorldQuery"]

cdef double TOL = TOUCH_TOLERANCE
cdef double LIMIT = MAX_COORD
cdef enum:
    MAX_CHUNKS = 4096


cdef struct Filter:
    int64_t mask
    bint sensors
    const int64_t* exclude   # sorted entities
    Py_ssize_t nexclude
    int64_t ignore           # one more entity to skip, -1: none


cdef struct Found:
    int64_t row
    int64_t entity
    double t
    double nx
    double ny
    double px
    double py


cdef struct Along:
    double t                 # where the ray (the cast's reference point) enters the row's box
    int64_t row


cdef int _cmp_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


cdef int _cmp_along(const void* a, const void* b) noexcept nogil:
    cdef const Along* x = <const Along*>a
    cdef const Along* y = <const Along*>b
    if x.t != y.t:
        return -1 if x.t < y.t else 1
    return (x.row > y.row) - (x.row < y.row)


cdef inline bint _in_range(double v) noexcept nogil:
    return -LIMIT <= v <= LIMIT  # (False for NaN)


cdef int _check_point(double x, double y) except -1:
    if not (_in_range(x) and _in_range(y)):
        raise ValueError(f"world queries take coordinates in [{-LIMIT:g}, {LIMIT:g}], got "
                         f"({x!r}, {y!r})")
    return 0


cdef inline bint _excluded(const Filter* f, int64_t e) noexcept nogil:
    cdef Py_ssize_t lo
    if e == f.ignore:
        return True
    lo = lower_bound(f.exclude, 0, f.nexclude, e)
    return lo < f.nexclude and f.exclude[lo] == e


cdef inline bint _better(double t, int64_t e, const Found* best) noexcept nogil:
    return t < best.t or (t == best.t and e < best.entity)


cdef inline void _grow_box(double* q, double by) noexcept nogil:
    q[0] -= by
    q[1] -= by
    q[2] += by
    q[3] += by


cdef inline Py_ssize_t _chunks(double t0, double t1, double length, double chunk) noexcept nogil:
    """How many chunks of about ``chunk`` world units the part [t0, t1] of a move of
    ``length`` is walked in (1 to MAX_CHUNKS)."""
    cdef double c = ceil((t1 - t0) * length / chunk)
    if not c >= 1.0:
        return 1
    return <Py_ssize_t>c if c < MAX_CHUNKS else MAX_CHUNKS


cdef inline void _swept_box(double px, double py, double x0, double y0, double x1, double y1,
                            double dx, double dy, double s0, double s1, double* q) noexcept nogil:
    """The box (grown by TOL) a shape of bounds x0..x1, y0..y1 at (px, py) covers moving
    by (dx, dy) * t for t in [s0, s1] (a ray: bounds all 0)."""
    q[0] = px + x0 + dx * (s0 if dx >= 0.0 else s1)
    q[1] = py + y0 + dy * (s0 if dy >= 0.0 else s1)
    q[2] = px + x1 + dx * (s1 if dx >= 0.0 else s0)
    q[3] = py + y1 + dy * (s1 if dy >= 0.0 else s0)
    _grow_box(q, TOL)


cdef inline void _span(double t0, double t1, Py_ssize_t c, Py_ssize_t chunks, double* s0,
                       double* s1) noexcept nogil:
    """Chunk ``c`` of [t0, t1] cut in ``chunks``: [*s0, *s1] (the last ends exactly at t1)."""
    s0[0] = t0 + (t1 - t0) * c / chunks
    s1[0] = t0 + (t1 - t0) * (c + 1) / chunks if c + 1 < chunks else t1


@cython.final
cdef class WorldQuery:
    """The compiled half of `ecsphys.queries.WorldQueries` (see the module comment)."""

    cdef BoxIndex index           # None: no compiled index, every row escaped
    cdef object _keep             # the arrays the pointers below point into
    cdef const int64_t* dyn
    cdef Py_ssize_t ndyn
    cdef const int64_t* srow
    cdef Py_ssize_t nsrow
    cdef Buf b_escaped
    cdef Py_ssize_t nesc
    cdef Buf b_stamp
    cdef Py_ssize_t nstamp
    cdef uint32_t gen
    cdef PairList found
    cdef Buf b_cand
    cdef Py_ssize_t ncand
    cdef Buf b_hits
    cdef Py_ssize_t nhits
    cdef Buf b_along              # escaped rows along the current long ray or cast (Along)
    cdef Py_ssize_t nalong
    cdef double world[4]          # the box of every colliding row (empty: lo > hi)
    cdef readonly double chunk    # the march's chunk length (world units)
    # taken at each def call
    cdef Rows rows
    cdef Store store
    cdef const double* pos
    cdef object _pos              # the column pos points into

    def __init__(self):
        self.index = None
        self._keep = None
        self._pos = None
        self.ndyn = self.nsrow = self.nesc = 0
        self.world[0] = self.world[1] = INFINITY
        self.world[2] = self.world[3] = -INFINITY
        self.chunk = 1.0

    def __dealloc__(self):
        buf_free(&self.b_escaped)
        buf_free(&self.b_stamp)
        buf_free(&self.b_cand)
        buf_free(&self.b_hits)
        buf_free(&self.b_along)
        pl_free(&self.found)

    # ------------------------------------------------------------ learning the index

    def refresh(self, index, table, dyn, static_rows, swept_lo, swept_hi, static_lo,
                static_hi):
        """Learn the index as the step left it (its dynamic ids are rows ``dyn`` with swept
        boxes ``swept_lo/hi``, its static ids rows ``static_rows`` with boxes
        ``static_lo/hi``) and which colliding rows of ``table`` it does not cover."""
        cdef Py_ssize_t n = table.n, i, k, r
        cdef Py_ssize_t nd, ns
        dyn = np.ascontiguousarray(dyn, dtype=np.int64)
        static_rows = np.ascontiguousarray(static_rows, dtype=np.int64)
        self.index = index if isinstance(index, BoxIndex) else None
        if self.index is None:
            dyn = dyn[:0]
            static_rows = static_rows[:0]
        nd = min(dyn.shape[0], self.index.n_last) if self.index is not None else 0
        ns = min(static_rows.shape[0], len(static_lo))
        slo = np.ascontiguousarray(swept_lo[:nd], dtype=np.float64).reshape(-1, 2)
        shi = np.ascontiguousarray(swept_hi[:nd], dtype=np.float64).reshape(-1, 2)
        tlo = np.ascontiguousarray(static_lo[:ns], dtype=np.float64).reshape(-1, 2)
        thi = np.ascontiguousarray(static_hi[:ns], dtype=np.float64).reshape(-1, 2)
        self._keep = (dyn, static_rows)
        cdef const int64_t[::1] vd = dyn
        cdef const int64_t[::1] vs = static_rows
        self.dyn = &vd[0] if vd.shape[0] else NULL
        self.ndyn = vd.shape[0]
        self.srow = &vs[0] if vs.shape[0] else NULL
        self.nsrow = vs.shape[0]
        self._bind(table)
        covered = np.zeros(n + 1, dtype=np.uint8)
        cdef unsigned char[::1] cov = covered
        cdef const double[:, ::1] vslo = slo
        cdef const double[:, ::1] vshi = shi
        cdef const double[:, ::1] vtlo = tlo
        cdef const double[:, ::1] vthi = thi
        cdef int64_t* esc = <int64_t*>buf_reserve(&self.b_escaped, (n + 1) * sizeof(int64_t))
        cdef double ext = 0.0
        cdef Py_ssize_t counted = 0
        if esc == NULL:
            raise MemoryError("world queries: out of memory")
        with nogil:
            for i in range(nd):
                r = vd[i]
                if r < n and self._inside(r, &vslo[i, 0], &vshi[i, 0]):
                    cov[r] = 1
            for i in range(ns):
                r = vs[i]
                if r < n and self._inside(r, &vtlo[i, 0], &vthi[i, 0]):
                    cov[r] = 1
            k = 0
            self.world[0] = self.world[1] = INFINITY
            self.world[2] = self.world[3] = -INFINITY
            for r in range(n):
                if not self.rows.collides[r] or self.rows.code[r] < 0:
                    continue
                self._widen_world(r)
                ext += self._extent(r)
                counted += 1
                if not cov[r]:
                    esc[k] = r
                    k += 1
            self.nesc = k
        # chunks of a few typical bodies: a chunk's box finds few candidates, a long ray few
        # chunks
        self.chunk = 4.0 * ext / counted if counted and ext > 0.0 else 1.0

    cdef inline void _box(self, int64_t r, double* b) noexcept nogil:
        b[0] = self.pos[2 * r] + self.rows.lo[2 * r]
        b[1] = self.pos[2 * r + 1] + self.rows.lo[2 * r + 1]
        b[2] = self.pos[2 * r] + self.rows.hi[2 * r]
        b[3] = self.pos[2 * r + 1] + self.rows.hi[2 * r + 1]

    cdef inline bint _inside(self, int64_t r, const double* lo, const double* hi) noexcept nogil:
        cdef double b[4]
        self._box(r, b)
        return lo[0] <= b[0] and lo[1] <= b[1] and b[2] <= hi[0] and b[3] <= hi[1]

    cdef inline double _extent(self, int64_t r) noexcept nogil:
        cdef double w = self.rows.hi[2 * r] - self.rows.lo[2 * r]
        cdef double h = self.rows.hi[2 * r + 1] - self.rows.lo[2 * r + 1]
        return w if w > h else h

    cdef inline void _widen_world(self, int64_t r) noexcept nogil:
        cdef double b[4]
        self._box(r, b)
        if b[0] < self.world[0]:
            self.world[0] = b[0]
        if b[1] < self.world[1]:
            self.world[1] = b[1]
        if b[2] > self.world[2]:
            self.world[2] = b[2]
        if b[3] > self.world[3]:
            self.world[3] = b[3]

    cdef int _bind(self, table) except -1:
        """Take the table's pointers (valid for this call) and size the buffers."""
        cdef const double[:, ::1] pos
        cdef Py_ssize_t n = table.n
        cdef object column = table.pos
        self.rows = rows_of(table)
        self.store = store_of(table.store)
        if column is not self._pos:
            pos = column
            self._pos = column
            self.pos = &pos[0, 0]
        if n + 1 > self.nstamp:
            if (buf_reserve(&self.b_stamp, 2 * (n + 1) * sizeof(uint32_t)) == NULL
                    or buf_reserve(&self.b_cand, 2 * (n + 1) * sizeof(int64_t)) == NULL
                    or buf_reserve(&self.b_hits, 2 * (n + 1) * sizeof(Found)) == NULL
                    or buf_reserve(&self.b_along, 2 * (n + 1) * sizeof(Along)) == NULL):
                raise MemoryError("world queries: out of memory")
            memset(self.b_stamp.p, 0, 2 * (n + 1) * sizeof(uint32_t))
            self.nstamp = 2 * (n + 1)
            self.gen = 0
        return 0

    # ------------------------------------------------------------ candidates

    cdef inline void _fresh(self) noexcept nogil:
        """Start a new query: no row is stamped."""
        self.gen = self.gen + 1
        if self.gen == 0:  # wrapped: clear the stamps once every 4 billion queries
            memset(self.b_stamp.p, 0, self.nstamp * sizeof(uint32_t))
            self.gen = 1
        self.ncand = 0

    cdef inline void _consider(self, int64_t r, const double* q, const Filter* f) noexcept nogil:
        cdef uint32_t* stamp = <uint32_t*>self.b_stamp.p
        cdef double b[4]
        if stamp[r] == self.gen:
            return
        # a row is stamped once taken or filtered out; one whose box misses q (a ray's chunk)
        # may still meet a later chunk
        self._box(r, b)
        if not (b[0] <= q[2] and q[0] <= b[2] and b[1] <= q[3] and q[1] <= b[3]):
            return
        self._take(r, f)

    cdef inline void _take(self, int64_t r, const Filter* f) noexcept nogil:
        """Stamp row ``r`` and append it to the candidates if it passes ``f`` (not stamped in
        this query yet)."""
        cdef uint32_t* stamp = <uint32_t*>self.b_stamp.p
        cdef int64_t e
        if stamp[r] == self.gen:
            return
        stamp[r] = self.gen
        if not self.rows.collides[r] or self.rows.code[r] < 0:
            return
        if (self.rows.layer[r] & f.mask) == 0:
            return
        if self.rows.sensor[r] and not f.sensors:
            return
        e = self.rows.entity[r]
        if (f.nexclude or f.ignore >= 0) and _excluded(f, e):
            return
        (<int64_t*>self.b_cand.p)[self.ncand] = r
        self.ncand = self.ncand + 1

    cdef int _gather(self, const double* q, const Filter* f, bint escaped=True) noexcept nogil:
        """Append the rows not yet stamped in this query whose box overlaps ``q`` and that pass
        ``f`` to the candidates (from ``ncand`` on): the index's, and the escaped rows unless
        ``escaped`` is False (a long ray takes those from `_along`); -1: out of memory."""
        cdef Py_ssize_t k, n = self.rows.n
        cdef int64_t id_, r
        cdef const int64_t* esc = <const int64_t*>self.b_escaped.p
        if self.index is not None:
            self.found.n = 0
            if self.index.find(q, &self.found) < 0:
                return -1
            for k in range(self.found.n):
                id_ = self.found.a[k]
                if self.found.b[k] == FOUND_STATIC:
                    if id_ >= self.nsrow:
                        continue
                    r = self.srow[id_]
                else:
                    if id_ >= self.ndyn:
                        continue
                    r = self.dyn[id_]
                if r < n:
                    self._consider(r, q, f)
        if escaped:
            for k in range(self.nesc):
                if esc[k] < n:
                    self._consider(esc[k], q, f)
        return 0

    cdef void _along(self, double ox, double oy, double dx, double dy, double x0, double y0,
                     double x1, double y1, double t0, double t1) noexcept nogil:
        """The escaped rows whose box the point ``(ox, oy) + (dx, dy) * t``, t in [t0, t1],
        enters with bounds x0..x1, y0..y1 about it (a ray: all 0), sorted by where it enters
        (grown by TOL and the coordinates' rounding): ``b_along[:nalong]``. A row can be met
        no earlier than there, so the march takes it at the chunk that reaches it."""
        cdef const int64_t* esc = <const int64_t*>self.b_escaped.p
        cdef Along* along = <Along*>self.b_along.p
        cdef Py_ssize_t k, m = 0
        cdef double b[4]
        cdef double ta, tb, g
        cdef double slack = 4e-16 * (fabs(ox) + fabs(oy) + fabs(dx) + fabs(dy))
        cdef int64_t r
        for k in range(self.nesc):
            r = esc[k]
            if r >= self.rows.n:
                continue
            self._box(r, b)
            g = TOL + slack + 4e-16 * (fabs(b[0]) + fabs(b[1]) + fabs(b[2]) + fabs(b[3]))
            b[0] -= x1 + g
            b[1] -= y1 + g
            b[2] -= x0 - g
            b[3] -= y0 - g
            ta = t0
            tb = t1
            if clip_ray(ox, oy, dx, dy, b, &ta, &tb):
                along[m].t = ta
                along[m].row = r
                m += 1
        qsort(along, m, sizeof(Along), _cmp_along)
        self.nalong = m

    cdef inline Body _body(self, int64_t r) noexcept nogil:
        return row_body(&self.rows, r, self.pos)

    # ------------------------------------------------------------ the queries (C)

    cdef int _point(self, double x, double y, const Filter* f) noexcept nogil:
        """Candidates containing the point (kept in the candidate list, in place)."""
        cdef double q[4]
        cdef Py_ssize_t k, keep = 0
        cdef int64_t* cand = <int64_t*>self.b_cand.p
        cdef Body b
        q[0] = q[2] = x
        q[1] = q[3] = y
        _grow_box(q, TOL)
        self._fresh()
        if self._gather(q, f) < 0:
            return -1
        for k in range(self.ncand):
            b = self._body(cand[k])
            if point_in(&self.store, &b, x, y):
                cand[keep] = cand[k]
                keep += 1
        self.ncand = keep
        return 0

    cdef int _region(self, const Body* a, const Filter* f) noexcept nogil:
        cdef double q[4]
        cdef Py_ssize_t k, keep = 0
        cdef int64_t* cand = <int64_t*>self.b_cand.p
        cdef Body b
        q[0] = a.px + a.x0
        q[1] = a.py + a.y0
        q[2] = a.px + a.x1
        q[3] = a.py + a.y1
        _grow_box(q, TOL)
        self._fresh()
        if self._gather(q, f) < 0:
            return -1
        for k in range(self.ncand):
            b = self._body(cand[k])
            if region_overlaps(&self.store, a, &b):
                cand[keep] = cand[k]
                keep += 1
        self.ncand = keep
        return 0

    cdef int _ray(self, double ox, double oy, double dx, double dy, const Filter* f,
                  Found* best, bint every) noexcept nogil:
        """The first hit of the ray origin + direction * t, t in [0, 1] (``best.row`` -1:
        none); with ``every``, each row hit is kept in ``b_hits`` (its first hit) instead."""
        cdef double t0 = 0.0, t1 = 1.0, s0, s1, t, nx, ny
        cdef double q[4]
        cdef double w[4]
        cdef double length = norm(dx, dy)
        cdef Py_ssize_t k, c, chunks, start, p = 0
        cdef int64_t r, e
        cdef int64_t* cand = <int64_t*>self.b_cand.p
        cdef Found* hits = <Found*>self.b_hits.p
        cdef const Along* along = <const Along*>self.b_along.p
        cdef bint long_ = False
        cdef Body b
        best.row = -1
        best.entity = -1
        best.t = INFINITY
        best.nx = best.ny = 0.0
        self.nhits = 0
        self._fresh()
        if dx == 0.0 and dy == 0.0:  # (a tiny ray whose length underflows is still a ray)
            if self._point(ox, oy, f) < 0:
                return -1
            for k in range(self.ncand):
                r = cand[k]
                e = self.rows.entity[r]
                if every:
                    hits[self.nhits].row = r
                    hits[self.nhits].entity = e
                    hits[self.nhits].t = 0.0
                    hits[self.nhits].nx = hits[self.nhits].ny = 0.0
                    self.nhits = self.nhits + 1
                elif _better(0.0, e, best):
                    best.row = r
                    best.entity = e
                    best.t = 0.0
            return 0
        w[0] = self.world[0]
        w[1] = self.world[1]
        w[2] = self.world[2]
        w[3] = self.world[3]
        _grow_box(w, TOL)
        if not clip_ray(ox, oy, dx, dy, w, &t0, &t1):
            return 0
        chunks = _chunks(t0, t1, length, self.chunk)
        if chunks > 1 and self.nesc > 0:  # the escaped rows once, not once a chunk
            long_ = True
            self._along(ox, oy, dx, dy, 0.0, 0.0, 0.0, 0.0, t0, t1)
        for c in range(chunks):
            _span(t0, t1, c, chunks, &s0, &s1)
            _swept_box(ox, oy, 0.0, 0.0, 0.0, 0.0, dx, dy, s0, s1, q)
            start = self.ncand
            if self._gather(q, f, not long_) < 0:
                return -1
            while long_ and p < self.nalong and along[p].t <= s1:
                self._take(along[p].row, f)
                p += 1
            for k in range(start, self.ncand):
                r = cand[k]
                b = self._body(r)
                e = self.rows.entity[r]
                if every:
                    if raycast(&self.store, &b, ox, oy, dx, dy, 1.0, &t, &nx, &ny):
                        hits[self.nhits].row = r
                        hits[self.nhits].entity = e
                        hits[self.nhits].t = t
                        hits[self.nhits].nx = nx
                        hits[self.nhits].ny = ny
                        self.nhits = self.nhits + 1
                elif raycast(&self.store, &b, ox, oy, dx, dy,
                             best.t if best.t < 1.0 else 1.0, &t, &nx, &ny):
                    if _better(t, e, best):
                        best.row = r
                        best.entity = e
                        best.t = t
                        best.nx = nx
                        best.ny = ny
            if not every and best.t <= s1:
                break
        return 0

    cdef int _cast(self, const Body* a, double dx, double dy, const Filter* f,
                   Found* best) noexcept nogil:
        """The first body the shape ``a`` touches moving by (dx, dy) (``time_of_impact``)."""
        cdef double t0 = 0.0, t1 = 1.0, s0, s1, t
        cdef double q[4]
        cdef double w[4]
        cdef double length = norm(dx, dy)
        cdef Py_ssize_t k, c, chunks, start, p = 0
        cdef int64_t r, e
        cdef int64_t* cand = <int64_t*>self.b_cand.p
        cdef const Along* along = <const Along*>self.b_along.p
        cdef bint long_ = False
        cdef Body b
        cdef CContact hit
        best.row = -1
        best.entity = -1
        best.t = INFINITY
        self._fresh()
        # the reference point (a's position) against the world grown by a's bounds
        w[0] = self.world[0] - a.x1
        w[1] = self.world[1] - a.y1
        w[2] = self.world[2] - a.x0
        w[3] = self.world[3] - a.y0
        _grow_box(w, TOL)
        if not clip_ray(a.px, a.py, dx, dy, w, &t0, &t1):
            return 0
        chunks = _chunks(t0, t1, length, self.chunk)
        if chunks > 1 and self.nesc > 0:  # the escaped rows once, not once a chunk
            long_ = True
            self._along(a.px, a.py, dx, dy, a.x0, a.y0, a.x1, a.y1, t0, t1)
        for c in range(chunks):
            _span(t0, t1, c, chunks, &s0, &s1)
            _swept_box(a.px, a.py, a.x0, a.y0, a.x1, a.y1, dx, dy, s0, s1, q)
            start = self.ncand
            if self._gather(q, f, not long_) < 0:
                return -1
            while long_ and p < self.nalong and along[p].t <= s1:
                self._take(along[p].row, f)
                p += 1
            for k in range(start, self.ncand):
                r = cand[k]
                b = self._body(r)
                e = self.rows.entity[r]
                if time_of_impact(&self.store, a, dx, dy, &b, 0.0, 0.0, &t, &hit):
                    if _better(t, e, best):
                        best.row = r
                        best.entity = e
                        best.t = t
                        # the surface hit faces the moving shape
                        best.nx = -hit.nx
                        best.ny = -hit.ny
                        best.px = hit.px
                        best.py = hit.py
            if best.t <= s1:
                break
        return 0

    # ------------------------------------------------------------ the def layer

    cdef Filter _filter(self, int64_t mask, bint sensors, exclude):
        cdef const int64_t[::1] ex = exclude
        cdef Filter f
        f.mask = mask
        f.sensors = sensors
        f.exclude = &ex[0] if ex.shape[0] else NULL
        f.nexclude = ex.shape[0]
        f.ignore = -1
        return f

    cdef list _entities(self):
        """The candidates' entities, sorted, as a list."""
        cdef Py_ssize_t k
        cdef int64_t* cand = <int64_t*>self.b_cand.p
        for k in range(self.ncand):
            cand[k] = self.rows.entity[cand[k]]
        qsort(cand, self.ncand, sizeof(int64_t), _cmp_int64)
        return [cand[k] for k in range(self.ncand)]

    def point(self, table, double x, double y, int64_t mask, bint sensors, exclude):
        """Entities (sorted int64) whose shape contains (x, y)."""
        cdef Filter f
        cdef int r
        _check_point(x, y)
        self._bind(table)
        f = self._filter(mask, sensors, exclude)
        with nogil:
            r = self._point(x, y, &f)
        if r < 0:
            raise MemoryError("world queries: out of memory")
        return self._entities()

    def region(self, table, tuple spec, double px, double py, int64_t mask, bint sensors,
               exclude):
        """Entities (sorted int64) overlapping the shape ``spec`` placed at (px, py)."""
        cdef Filter f
        cdef int r
        cdef Body a
        _check_point(px, py)
        self._bind(table)
        f = self._filter(mask, sensors, exclude)
        a = _spec_body(spec, px, py)
        with nogil:
            r = self._region(&a, &f)
        if r < 0:
            raise MemoryError("world queries: out of memory")
        return self._entities()

    def ray(self, table, double ox, double oy, double ex, double ey, int64_t mask,
            bint sensors, exclude):
        """The first hit from (ox, oy) to (ex, ey): ``(entity, fraction, nx, ny)`` or None."""
        cdef Filter f
        cdef Found best
        cdef int r
        _check_point(ox, oy)
        _check_point(ex, ey)
        self._bind(table)
        f = self._filter(mask, sensors, exclude)
        with nogil:
            r = self._ray(ox, oy, ex - ox, ey - oy, &f, &best, False)
        if r < 0:
            raise MemoryError("world queries: out of memory")
        if best.row < 0:
            return None
        return (best.entity, best.t, best.nx, best.ny)

    def ray_all(self, table, double ox, double oy, double ex, double ey, int64_t mask,
                bint sensors, exclude):
        """Every entity the segment hits: arrays ``(entity, fraction, normal)``, sorted by
        fraction, then entity."""
        cdef Filter f
        cdef Found best
        cdef int r
        cdef Py_ssize_t k, m
        cdef const Found* hits
        _check_point(ox, oy)
        _check_point(ex, ey)
        self._bind(table)
        f = self._filter(mask, sensors, exclude)
        with nogil:
            r = self._ray(ox, oy, ex - ox, ey - oy, &f, &best, True)
        if r < 0:
            raise MemoryError("world queries: out of memory")
        m = self.nhits
        hits = <const Found*>self.b_hits.p
        ent = np.empty(m, dtype=np.int64)
        frac = np.empty(m, dtype=np.float64)
        nrm = np.empty((m, 2), dtype=np.float64)
        cdef int64_t[::1] ve = ent
        cdef double[::1] vf = frac
        cdef double[:, ::1] vn = nrm
        for k in range(m):
            ve[k] = hits[k].entity
            vf[k] = hits[k].t
            vn[k, 0] = hits[k].nx
            vn[k, 1] = hits[k].ny
        order = np.lexsort((ent, frac))
        return ent[order], frac[order], nrm[order]

    def cast(self, table, tuple spec, double px, double py, double ex, double ey,
             int64_t mask, bint sensors, exclude):
        """The first body the shape ``spec`` touches moving from (px, py) to (ex, ey):
        ``(entity, fraction, nx, ny, x, y)`` or None."""
        cdef Filter f
        cdef Found best
        cdef int r
        cdef Body a
        _check_point(px, py)
        _check_point(ex, ey)
        self._bind(table)
        f = self._filter(mask, sensors, exclude)
        a = _spec_body(spec, px, py)
        with nogil:
            r = self._cast(&a, ex - px, ey - py, &f, &best)
        if r < 0:
            raise MemoryError("world queries: out of memory")
        if best.row < 0:
            return None
        return (best.entity, best.t, best.nx, best.ny, best.px, best.py)

    def ray_many(self, table, starts, ends, int64_t mask, bint sensors, exclude, ignore,
                 entity, fraction, point, normal):
        """Ray i from ``starts[i]`` to ``ends[i]`` (skipping entity ``ignore[i]``, -1: none):
        its first hit's entity (-1: none), fraction (1: none), point (the end: none) and
        normal ((0, 0): none), written into the given arrays."""
        cdef const double[:, ::1] s = starts
        cdef const double[:, ::1] e = ends
        cdef const int64_t[::1] ig = ignore
        cdef int64_t[::1] ve = entity
        cdef double[::1] vf = fraction
        cdef double[:, ::1] vp = point
        cdef double[:, ::1] vn = normal
        cdef Py_ssize_t i, n = s.shape[0]
        cdef Filter f
        cdef Found best
        cdef int r = 0
        cdef double dx, dy
        if (e.shape[0] != n or ig.shape[0] != n or ve.shape[0] < n or vf.shape[0] < n
                or vp.shape[0] < n or vn.shape[0] < n or s.shape[1] != 2 or e.shape[1] != 2
                or vp.shape[1] != 2 or vn.shape[1] != 2):
            raise ValueError("ray_many: the arrays must have one (x, y) row per ray")
        for i in range(n):
            _check_point(s[i, 0], s[i, 1])
            _check_point(e[i, 0], e[i, 1])
        self._bind(table)
        f = self._filter(mask, sensors, exclude)
        with nogil:
            for i in range(n):
                f.ignore = ig[i]
                dx = e[i, 0] - s[i, 0]
                dy = e[i, 1] - s[i, 1]
                r = self._ray(s[i, 0], s[i, 1], dx, dy, &f, &best, False)
                if r < 0:
                    break
                if best.row < 0:
                    ve[i] = -1
                    vf[i] = 1.0
                    vp[i, 0] = e[i, 0]
                    vp[i, 1] = e[i, 1]
                    vn[i, 0] = vn[i, 1] = 0.0
                else:
                    ve[i] = best.entity
                    vf[i] = best.t
                    vp[i, 0] = s[i, 0] + dx * best.t
                    vp[i, 1] = s[i, 1] + dy * best.t
                    vn[i, 0] = best.nx
                    vn[i, 1] = best.ny
        if r < 0:
            raise MemoryError("world queries: out of memory")

    @property
    def escaped(self):
        """How many colliding rows the index does not cover (tested by every query)."""
        return self.nesc


cdef Body _spec_body(tuple spec, double px, double py):
    """The Body of a query shape: ``spec`` is (first, count, kind, x0, y0, x1, y1, key)."""
    cdef Body a
    a.first = spec[0]
    a.count = spec[1]
    a.kind = spec[2]
    a.x0 = spec[3]
    a.y0 = spec[4]
    a.x1 = spec[5]
    a.y1 = spec[6]
    a.hash = spec[7]
    a.px = px
    a.py = py
    return a
