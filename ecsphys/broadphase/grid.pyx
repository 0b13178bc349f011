# Uniform grid (spatial hash) broadphase, compiled: boxes binned by centre cell, pairs from the
# neighbour cells; a hierarchy of grids for mixed sizes; statics in a cell index built once.
#
# Guarantees:
# - Exact: every overlapping (closed-box) dynamic-dynamic pair with di < dj and every
#   overlapping dynamic-static pair, each once, sorted lexicographically, fresh int64 arrays.
# - One compiled call per query (no GIL, no Python inside): pack the boxes, pick the cell, sort
#   the boxes by (level, cell) (a counting sort when the cell table is dense, else a radix
#   sort), test neighbours, sort the pairs. Work memory is kept from call to call and only
#   grows; ids are 0..n-1 on each call, so adding or deleting boxes between calls is fine.
# - Mixed sizes: level L has cells of cell_size * 4**L; a box goes in the finest level whose
#   cells are wider than it (its larger extent <= 99% of a cell), binned by the cell of its
#   centre. Within a level a box is tested against the rest of its cell, the next cell to the
#   right and the three cells of the row above (two contiguous key ranges, walked by pointers
#   that only move forward). Across two levels, either every box of the finer level looks at
#   the coarser level's cells under it grown by one coarse cell, or every box of the coarser
#   level looks at the finer cells under it grown by one fine cell, whichever is estimated
#   cheaper; so each pair is found once and a few giants never coarsen the grid for everybody
#   nor cost per cell they cover for every small box.
# - cell_size=None picks the cell from the box extents: just above the largest box when the
#   largest is at most twice the median (one level: the common case of similar bodies), else
#   just above the 98th percentile capped at 3x the median; medians from a sample of at most
#   about 1,000 boxes. The current cell is kept while the estimate stays within
#   [cell / 1.05, cell * 1.005].
# - Statics: each static box is stored in every cell it covers of the finest static level
#   where it covers at most 64 cells (static levels have cells of static_cell_size * 8**L,
#   the automatic static cell being twice the median of the boxes' smaller sides, chosen by
#   set_static), so a long floor sits in a few coarse cells and a query box costs per cell
#   *it* covers, never per cell the floor covers. A pair met in several cells is kept only in
#   the cell holding the lower-left corner of the intersection. A level keeps its cells in an
#   array over the cells that hold boxes (while that is at most 4 places a box plus 65,536),
#   else in a hash table; each cell's boxes (copies, with their ids) lie side by side in a
#   pool. `set_static` builds it all (the boxes sorted by cell: a row's cells lie together)
#   and counts a rebuild; `update_static(ids, lo, hi)` and `remove_static(ids)` change single
#   static ids, each costing per cell its box covers (a full cell moves its boxes to the end
#   of the pool with twice the room; what is left behind is packed away once it is half the
#   pool), and count no rebuild. `update_static` returns False for a box these cells cannot
#   hold (beyond the range the finest cell keeps exact, or too wide for the coarsest level):
#   then index them all again with set_static. Ids need not be dense: a removed id holds
#   nothing. A query looks each dynamic box up there, unless the statics are few and cover
#   few dynamic cells (walls around a crowd): then each static box scans the dynamic cells
#   under it instead, which costs nothing per dynamic box.
# - `find(q)` looks a box up the same ways: the dynamic boxes of the last run in each level's
#   cells under it grown by one cell, the statics by the lower-left-corner rule. Where the
#   dynamic keys are sparse (binary search), the rows under a box that hold no key are jumped
#   over, so a box costs per row that holds boxes, never per row of the grid (up to 2**25); a
#   static level is read only within the bounds of its cells that hold boxes, a table level
#   at most once per place of its table: a world query's long ray across a world as wide as
#   the valid range stays cheap. A box with a NaN finds nothing.
# - A few dynamic boxes (n (n - 1) / 2 at most `SMALL_TESTS`) skip the dynamic cells: every
#   pair is tested, in id order, and with few statics (at most `FEW_STATICS`, n per static
#   at most `SMALL_TESTS`) every (box, static) pair too; more statics are looked up in their
#   cells as usual. The same pairs in the same order as the cells give (the cells cost more
#   than the tests there: a room of ten bodies). `find` then tests the last run's boxes one by
#   one. The cell is not picked again while the runs are small (the next run with cells
#   picks it).
# - Negative and far-away coordinates work (exact while |coordinate| / cell stays below about
#   1e12; the cell is raised so an axis has at most 2**25 cells); a sparse scene switches
#   from a dense cell table to binary search.

cimport cython
from libc.math cimport INFINITY, NAN, fabs, floor, isfinite, sqrt
from libc.stdint cimport int8_t, int64_t, uint64_t, uint8_t
from libc.string cimport memcpy, memset

from .boxindex cimport (
    FOUND_DYNAMIC,
    FOUND_STATIC,
    ID_FIRST,
    MINMAX,
    BoxIndex,
    Buf,
    PairList,
    buf_free,
    buf_keep,
    buf_reserve,
    lower_bound,
    overlap,
    pack_boxes,
    pl_grow,
    pl_push,
    sort_keys,
    sort_pairs,
    test_range,
)

import numpy as np

from .base import as_boxes, median

__all__ = ["Grid"]

cdef enum:
    MAX_LEVELS = 16
    MAX_SLEVELS = 12
    STATIC_MAX_CELLS = 64
    SCAN_STATICS = 4
    SAMPLE_STEP_DIV = 512

cdef double NORMAL_FRACTION = 0.99
cdef double LEVEL_RATIO = 4.0
cdef double STATIC_RATIO = 8.0
cdef double MAX_AXIS_CELLS = 33554432.0  # 2**25: keys stay exact
cdef double FIT_RATIO = 2.0
cdef double FIT_MARGIN = 1.0 / 0.98
cdef double KEEP_ABOVE = 1.05
cdef double KEEP_BELOW = 1.005
cdef double MAX_STATIC_CELLS = 1125899906842624.0  # 2**50: a static box's cells stay exact
#: a run of at most this many dynamic box tests (n (n - 1) / 2) tests every pair, and every
#: (box, static) pair too when that is at most as many tests and the statics at most FEW_STATICS
cdef double SMALL_TESTS = 1024.0
cdef Py_ssize_t FEW_STATICS = 64

cdef uint64_t HASH_X = 0x9E3779B97F4A7C15
cdef uint64_t HASH_Y = 0xC2B2AE3D27D4EB4F


cdef struct Level:
    double cell
    double inv
    double ox          # cell coordinates of the padding corner
    double oy
    double xmin        # centre cells spanned (while building)
    double xmax
    double ymin
    double ymax
    double emax
    int64_t w
    int64_t h
    int64_t koff       # first key of the level
    Py_ssize_t p0      # positions p0 .. p1 - 1 in cell order
    Py_ssize_t p1


cdef struct SCell:
    int64_t cx          # the cell's coordinates (floor of the world coordinate / cell)
    int64_t cy
    int64_t start       # its entries: start .. start + count - 1 of the entry pool,
    int count           # with room for `room` there; count 0: an empty place of the table
    int room


cdef struct SEntry:
    double box[4]       # a static box (a copy: a cell's boxes are read together)
    int64_t id          # its static id


cdef struct SLevel:
    double cell
    double inv
    bint dense          # the cells in a row-major array over the cells ox .. ox + w - 1,
    int64_t ox          # oy .. oy + h - 1 (most worlds: compact, read in order), else in
    int64_t oy          # a hash table (open addressing, linear probing)
    int64_t w
    int64_t h
    Py_ssize_t cap      # places of the array or table (a table's is a power of two)
    Py_ssize_t ncell    # cells holding entries
    Py_ssize_t count    # entries
    double bx0          # bounds of the cells holding entries (grown on insert, reset by
    double by0          # set_static): a box is looked up only where they are
    double bx1
    double by1
    Buf tab             # SCell[cap]


def small_tests(value=None):
    """The most box tests a run makes without its cells (see the module notes); ``value``
    (a number >= 0) sets it. Returns the value before. For tests and benchmarks."""
    global SMALL_TESTS
    before = SMALL_TESTS
    if value is not None:
        if not (value >= 0):
            raise ValueError(f"small_tests must be a number >= 0, got {value!r}")
        SMALL_TESTS = float(value)
    return before


cdef inline double clampd(double v, double lo, double hi) noexcept nogil:
    return lo if v < lo else (hi if v > hi else v)


cdef void _select(double* a, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    """Partially order ``a[:n]`` so that ``a[k]`` is its k-th smallest (quickselect)."""
    cdef Py_ssize_t lo = 0, hi = n - 1, i, j
    cdef double pivot, t
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i = lo
        j = hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                t = a[i]
                a[i] = a[j]
                a[j] = t
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return


cdef inline uint64_t cell_hash(int64_t cx, int64_t cy) noexcept nogil:
    cdef uint64_t h = (<uint64_t>cx) * HASH_X ^ ((<uint64_t>cy) * HASH_Y)
    return h ^ (h >> 29)


cdef inline Py_ssize_t hash_slot(const SCell* tab, uint64_t mask, int64_t cx,
                                 int64_t cy) noexcept nogil:
    """In a hash table of ``mask + 1`` places (never full; linear probing): the place of
    cell (cx, cy), or the empty place where it goes."""
    cdef Py_ssize_t i = <Py_ssize_t>(cell_hash(cx, cy) & mask)
    while tab[i].count > 0 and not (tab[i].cx == cx and tab[i].cy == cy):
        i = <Py_ssize_t>((<uint64_t>i + 1) & mask)
    return i


cdef inline Py_ssize_t cell_find(const SLevel* S, int64_t cx, int64_t cy) noexcept nogil:
    """The place of cell (cx, cy) in the level's cells, -1 if it holds no entry."""
    cdef const SCell* tab = <const SCell*>S.tab.p
    cdef Py_ssize_t i
    if S.dense:
        if cx < S.ox or cy < S.oy or cx >= S.ox + S.w or cy >= S.oy + S.h:
            return -1
        i = <Py_ssize_t>((cy - S.oy) * S.w + (cx - S.ox))
        return i if tab[i].count > 0 else -1
    if S.cap == 0:
        return -1
    i = hash_slot(tab, <uint64_t>(S.cap - 1), cx, cy)
    return i if tab[i].count > 0 else -1


cdef inline bint dense_fits(double area, Py_ssize_t entries) noexcept nogil:
    """Whether a level of ``entries`` boxes in cells keeps them in an array of ``area``
    places (not too sparse: at most 4 places an entry, plus 65,536)."""
    return area <= 4.0 * <double>entries + 65536.0


cdef int cells_relayout(SLevel* S, bint dense, int64_t ox, int64_t oy, int64_t w, int64_t h,
                        Py_ssize_t cap) noexcept nogil:
    """Place the level's cells again: in an array over (ox, oy, w, h) (it must hold them
    all) or in a hash table of ``cap`` places (a power of two)."""
    cdef Py_ssize_t old = S.cap, i, j
    cdef SCell* src = <SCell*>S.tab.p
    cdef SCell* tab
    cdef Buf fresh
    cdef uint64_t mask
    cdef bint was_dense = S.dense
    if dense:
        cap = <Py_ssize_t>(w * h)
    fresh.p = NULL
    fresh.cap = 0
    tab = <SCell*>buf_reserve(&fresh, (cap + 1) * sizeof(SCell))
    if tab == NULL:
        return -1
    for i in range(cap):
        tab[i].count = 0
    mask = <uint64_t>(cap - 1)
    for i in range(old if S.ncell else 0):
        if src[i].count > 0:
            if dense:
                j = <Py_ssize_t>((src[i].cy - oy) * w + (src[i].cx - ox))
            else:
                j = hash_slot(tab, mask, src[i].cx, src[i].cy)  # (distinct cells)
            tab[j] = src[i]
    buf_free(&S.tab)
    S.tab = fresh
    S.cap = cap
    S.dense = dense
    S.ox = ox
    S.oy = oy
    S.w = w
    S.h = h
    return 0


cdef Py_ssize_t cell_place(SLevel* S, int64_t cx, int64_t cy) noexcept nogil:
    """The place of cell (cx, cy), made (empty: count 0, no room) if it holds no entry yet;
    -1: out of memory. An array grows (by a quarter more on every side) to take a cell
    beyond it, or becomes a hash table when that would leave it too sparse; a table grows
    when half full."""
    cdef SCell* tab
    cdef Py_ssize_t i, cap
    cdef int64_t x0, y0, x1, y1, mx, my
    if S.dense:
        if not (cx < S.ox or cy < S.oy or cx >= S.ox + S.w or cy >= S.oy + S.h):
            i = <Py_ssize_t>((cy - S.oy) * S.w + (cx - S.ox))
        else:
            x0 = cx if S.w == 0 or cx < S.ox else S.ox
            y0 = cy if S.w == 0 or cy < S.oy else S.oy
            x1 = cx if S.w == 0 or cx >= S.ox + S.w else S.ox + S.w - 1
            y1 = cy if S.w == 0 or cy >= S.oy + S.h else S.oy + S.h - 1
            mx = (x1 - x0 + 1) // 4 + 1
            my = (y1 - y0 + 1) // 4 + 1
            if dense_fits((<double>(x1 - x0 + 1 + 2 * mx)) * <double>(y1 - y0 + 1 + 2 * my),
                          S.count + 1):
                if cells_relayout(S, True, x0 - mx, y0 - my, x1 - x0 + 1 + 2 * mx,
                                  y1 - y0 + 1 + 2 * my, 0) < 0:
                    return -1
            else:
                cap = 64
                while cap < 2 * (S.ncell + 1):
                    cap *= 2
                if cells_relayout(S, False, 0, 0, 0, 0, cap) < 0:
                    return -1
            return cell_place(S, cx, cy)
        tab = <SCell*>S.tab.p
    else:
        if (S.ncell + 1) * 2 > S.cap and cells_relayout(
                S, False, 0, 0, 0, 0, 2 * S.cap if S.cap else 64) < 0:
            return -1
        tab = <SCell*>S.tab.p
        i = hash_slot(tab, <uint64_t>(S.cap - 1), cx, cy)
    if tab[i].count == 0:
        tab[i].cx = cx
        tab[i].cy = cy
        tab[i].start = 0
        tab[i].room = 0
    return i


cdef void cell_delete(SLevel* S, Py_ssize_t i) noexcept nogil:
    """Empty place ``i``; in a table, move back the cells placed after it that would no
    longer be found (backward-shift deletion: no tombstones)."""
    cdef SCell* tab = <SCell*>S.tab.p
    cdef uint64_t mask = <uint64_t>(S.cap - 1)
    cdef Py_ssize_t j = i, k
    tab[i].count = 0
    S.ncell -= 1
    if S.dense:
        return
    while True:
        j = <Py_ssize_t>((<uint64_t>j + 1) & mask)
        if tab[j].count == 0:
            return
        k = <Py_ssize_t>(cell_hash(tab[j].cx, tab[j].cy) & mask)
        # the cell at j stays if its home k lies cyclically in (i, j]
        if (i <= j and i < k and k <= j) or (i > j and (i < k or k <= j)):
            continue
        tab[i] = tab[j]
        tab[j].count = 0
        i = j


cdef inline int cell_hits(const SEntry* pool, const double* q, int64_t qid, const SLevel* S,
                          const SCell* cell, PairList* out, bint found) noexcept nogil:
    """The entries of one cell whose box overlaps ``q``, kept only in the cell of the
    intersection's lower-left corner (so a pair met in several cells comes out once):
    ``(qid, static id)``, or ``(static id, FOUND_STATIC)`` when ``found``."""
    cdef const SEntry* e = pool + cell.start
    cdef const SEntry* end = e + cell.count
    cdef const double* eb
    cdef double rx, ry
    cdef double cx = <double>cell.cx, cy = <double>cell.cy
    while e < end:
        eb = &e.box[0]
        if overlap(q, eb):
            rx = floor((q[0] if q[0] > eb[0] else eb[0]) * S.inv)
            ry = floor((q[1] if q[1] > eb[1] else eb[1]) * S.inv)
            if rx == cx and ry == cy:
                if found:
                    if pl_push(out, e.id, FOUND_STATIC) < 0:
                        return -1
                elif pl_push(out, qid, e.id) < 0:
                    return -1
        e += 1
    return 0


def _static_cell_size(lo, hi):
    """The automatic static cell: twice the median of the boxes' smaller sides."""
    ext = hi - lo
    med = float(median(np.minimum(ext[:, 0], ext[:, 1])))
    if med > 0 and np.isfinite(med):
        return 2.0 * med
    med = float(median(np.maximum(ext[:, 0], ext[:, 1])))
    if med > 0 and np.isfinite(med):
        return 2.0 * med
    span = float(np.max(hi.max(axis=0) - lo.min(axis=0)))
    if span > 0 and np.isfinite(span):
        return max(span / np.sqrt(lo.shape[0]), np.finfo(np.float64).tiny)
    return 1.0


cdef class Grid(BoxIndex):
    """Uniform grid broadphase over dynamic boxes, with a static cell index.

    ``cell_size``: the dynamic grid's cell (None: automatic); ``static_cell_size``: the static
    index's finest cell (None: automatic).
    """

    cdef double _cell            # 0.0: not chosen yet
    cdef bint _auto
    cdef double _static_req      # 0.0: automatic
    cdef bint _scanned
    cdef int _levels_used
    # dynamic layout of the last query
    cdef Level lv[MAX_LEVELS]
    cdef int nlv
    cdef bint dense
    cdef Buf b_ext
    cdef Buf b_lvl
    cdef Buf b_cx
    cdef Buf b_cy
    cdef Buf b_key
    cdef Buf b_ord
    cdef Buf b_sbox
    cdef Buf b_starts
    cdef bint _few               # the last run tested every pair (its boxes in b_few)
    cdef Buf b_few
    cdef int64_t* skey
    cdef int64_t* order
    cdef double* sbox
    cdef int64_t* starts
    # static index: per static id (slot) its box, its level and whether it is in; per level
    # a table of the cells holding entries, each cell's entries (box and id) side by side
    # in a pool (a block per cell, moved to the end with twice the room when full)
    cdef Py_ssize_t m            # static ids 0 .. m - 1 (some may be out: removed)
    cdef Py_ssize_t m_live       # static ids in the index
    cdef double s_c0             # the finest static cell; 0.0: no static index yet
    cdef SLevel s_lv[MAX_SLEVELS]
    cdef Buf b_st_box            # double[4 * m]
    cdef Buf b_st_level          # int8_t[m]: its level, -1: in no cell
    cdef Buf b_st_in             # uint8_t[m]
    cdef Buf b_ent               # SEntry[n_ent]
    cdef Py_ssize_t n_ent        # pool entries handed to cells' blocks
    cdef Py_ssize_t ent_waste    # of those, in blocks no cell uses any more
    cdef double* s_box           # b_st_box.p

    def __init__(self, cell_size=None, static_cell_size=None):
        if cell_size is not None and not (cell_size > 0 and np.isfinite(cell_size)):
            raise ValueError(f"cell_size must be a positive finite number, got {cell_size!r}")
        if static_cell_size is not None and not (
                static_cell_size > 0 and np.isfinite(static_cell_size)):
            raise ValueError(
                f"static_cell_size must be a positive finite number, got {static_cell_size!r}")
        self.rebuilds = 0
        self._auto = cell_size is None
        self._cell = 0.0 if cell_size is None else float(cell_size)
        self._static_req = 0.0 if static_cell_size is None else float(static_cell_size)
        self.m = 0
        self.m_live = 0
        self.s_c0 = 0.0
        self.n_ent = 0
        self.ent_waste = 0
        self.s_box = NULL

    def __dealloc__(self):
        buf_free(&self.b_ext)
        buf_free(&self.b_lvl)
        buf_free(&self.b_cx)
        buf_free(&self.b_cy)
        buf_free(&self.b_key)
        buf_free(&self.b_ord)
        buf_free(&self.b_sbox)
        buf_free(&self.b_starts)
        buf_free(&self.b_few)
        buf_free(&self.b_st_box)
        buf_free(&self.b_st_level)
        buf_free(&self.b_st_in)
        buf_free(&self.b_ent)
        cdef int L
        for L in range(MAX_SLEVELS):
            buf_free(&self.s_lv[L].tab)

    @property
    def cell_size(self):
        """The dynamic cell (None until the first query picks one when automatic)."""
        return None if self._cell <= 0.0 else self._cell

    @property
    def last_static_scan(self):
        """Whether the last ``query`` found the static pairs by scanning from the statics."""
        return bool(self._scanned)

    @property
    def last_levels(self):
        """How many grid levels (box size classes) the last ``query`` used."""
        return self._levels_used

    # ------------------------------------------------------------------ statics

    def set_static(self, lo, hi):
        """Index the static boxes afresh (ids ``0..m-1``); increments ``rebuilds``."""
        lo, hi = as_boxes(lo, hi)
        cdef Py_ssize_t m = lo.shape[0]
        cdef double c = 0.0
        cdef int r = 0
        self.rebuilds += 1
        if m:
            c = self._static_req if self._static_req > 0 else _static_cell_size(lo, hi)
            span = float(np.max(hi.max(axis=0) - lo.min(axis=0)))
            far = float(max(np.abs(lo).max(), np.abs(hi).max()))
            c = max(c, span / MAX_AXIS_CELLS, far / MAX_STATIC_CELLS)
        box = np.ascontiguousarray(np.concatenate((lo, hi), axis=1)) if m else np.zeros((1, 4))
        cdef const double[:, ::1] vb = box
        with nogil:
            r = self._s_reset(m, c)
            if r == 0 and m:
                r = self._s_bulk(&vb[0, 0], m)
        if r < 0:
            raise MemoryError("grid: out of memory")

    def update_static(self, ids, lo, hi):
        """Put the boxes ``lo[k]``-``hi[k]`` in as static ids ``ids[k]`` (a new id, or one whose
        box changed), each costing per cell it covers, not a rebuild (``rebuilds`` stays).
        Returns False, having put in only part of them, when a box does not fit the cells
        chosen at the last ``set_static`` (none yet, or one far beyond them): then index them
        all again with ``set_static``."""
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        lo, hi = as_boxes(lo, hi)
        if ids.ndim != 1 or ids.shape[0] != lo.shape[0]:
            raise ValueError(f"ids must be one id per box, got {ids.shape} for {lo.shape[0]}")
        cdef Py_ssize_t k = ids.shape[0], i = 0
        if k == 0:
            return True
        if ids.min() < 0:
            raise ValueError("static ids must be >= 0")
        box = np.ascontiguousarray(np.concatenate((lo, hi), axis=1))
        cdef const double[:, ::1] vb = box
        cdef const int64_t[::1] vi = ids
        cdef int r = 0
        with nogil:
            while r == 0 and i < k:
                r = self._s_put(vi[i], &vb[i, 0], False)
                i += 1
        if r < 0:
            raise MemoryError("grid: out of memory")
        return r == 0

    def remove_static(self, ids):
        """Take the static ids ``ids`` out of the index (ids not in it are ignored)."""
        ids = np.ascontiguousarray(ids, dtype=np.int64).ravel()
        cdef const int64_t[::1] vi = ids
        cdef Py_ssize_t i
        cdef const uint8_t* st_in
        with nogil:
            st_in = <const uint8_t*>self.b_st_in.p
            for i in range(vi.shape[0]):
                if 0 <= vi[i] < self.m and st_in[vi[i]]:
                    self._s_remove(vi[i])

    @property
    def static_count(self):
        """How many static boxes the index holds."""
        return self.m_live

    cdef int _s_slots(self, Py_ssize_t m) noexcept nogil:
        """Room for static ids up to ``m - 1``; the new ones are out of the index."""
        cdef Py_ssize_t i
        cdef int8_t* level
        cdef uint8_t* st_in
        if m <= self.m:
            return 0
        if (buf_keep(&self.b_st_box, 4 * m * sizeof(double)) == NULL
                or buf_keep(&self.b_st_level, m * sizeof(int8_t)) == NULL
                or buf_keep(&self.b_st_in, m * sizeof(uint8_t)) == NULL):
            return -1
        self.s_box = <double*>self.b_st_box.p
        level = <int8_t*>self.b_st_level.p
        st_in = <uint8_t*>self.b_st_in.p
        for i in range(self.m, m):
            level[i] = -1
            st_in[i] = 0
            self.s_box[4 * i] = self.s_box[4 * i + 1] = NAN
            self.s_box[4 * i + 2] = self.s_box[4 * i + 3] = NAN
        self.m = m
        return 0

    cdef int _s_reset(self, Py_ssize_t m, double c0) noexcept nogil:
        """An empty static index of ``m`` ids (all out) whose finest cell is ``c0``."""
        cdef int L
        cdef double c = c0
        cdef SLevel* S
        for L in range(MAX_SLEVELS):
            S = &self.s_lv[L]
            S.cell = c
            S.inv = 1.0 / c if c > 0.0 else 0.0
            # (the cells are laid out afresh when boxes come: the old table is let go, not
            # cleared, so a rebuild after many statics left costs nothing per old cell)
            buf_free(&S.tab)
            S.dense = True
            S.ox = S.oy = S.w = S.h = 0
            S.cap = 0
            S.ncell = 0
            S.count = 0
            S.bx0 = S.by0 = INFINITY
            S.bx1 = S.by1 = -INFINITY
            c *= STATIC_RATIO
        self.s_c0 = c0
        self.n_ent = 0
        self.ent_waste = 0
        self.m = 0
        self.m_live = 0
        return self._s_slots(m)

    cdef int _s_cells(self, const double* b, bint force, double* f) noexcept nogil:
        """The level of box ``b`` (packed) and its cells there, ``f`` = (x0, y0, x1, y1): the
        finest level where it covers at most STATIC_MAX_CELLS. -1: a box with a NaN (or
        inverted): it goes in no cell; -2: it does not fit this index's cells (beyond the
        range its finest cell keeps exact, or wider than its coarsest level takes), unless
        ``force`` (set_static: the coarsest level takes it, whatever it covers)."""
        cdef int L = 0
        cdef const SLevel* S = &self.s_lv[0]
        cdef double cells
        if not (isfinite(b[0]) and isfinite(b[1]) and isfinite(b[2]) and isfinite(b[3])
                and b[0] <= b[2] and b[1] <= b[3]):
            return -1
        if not force and (fabs(b[0]) * S.inv >= MAX_STATIC_CELLS
                          or fabs(b[1]) * S.inv >= MAX_STATIC_CELLS
                          or fabs(b[2]) * S.inv >= MAX_STATIC_CELLS
                          or fabs(b[3]) * S.inv >= MAX_STATIC_CELLS):
            return -2
        while True:
            S = &self.s_lv[L]
            f[0] = floor(b[0] * S.inv)
            f[1] = floor(b[1] * S.inv)
            f[2] = floor(b[2] * S.inv)
            f[3] = floor(b[3] * S.inv)
            cells = (f[2] - f[0] + 1.0) * (f[3] - f[1] + 1.0)
            if cells <= STATIC_MAX_CELLS or L == MAX_SLEVELS - 1:
                break
            L += 1
        if cells > STATIC_MAX_CELLS and not force:
            return -2
        return L

    @cython.nonecheck(False)  # self is never None here; the debug build checks it
    cdef void _s_hold(self, int64_t sid, const double* b, int L) noexcept nogil:
        """Static id ``sid`` (room made, out of the index) holds box ``b`` at level ``L``; its
        entries are made by the caller."""
        self.s_box[4 * sid] = b[0]
        self.s_box[4 * sid + 1] = b[1]
        self.s_box[4 * sid + 2] = b[2]
        self.s_box[4 * sid + 3] = b[3]
        (<uint8_t*>self.b_st_in.p)[sid] = 1
        (<int8_t*>self.b_st_level.p)[sid] = <int8_t>L
        self.m_live += 1

    cdef inline void _s_bound(self, int L, const double* f) noexcept nogil:
        cdef SLevel* S = &self.s_lv[L]
        if f[0] < S.bx0:
            S.bx0 = f[0]
        if f[1] < S.by0:
            S.by0 = f[1]
        if f[2] > S.bx1:
            S.bx1 = f[2]
        if f[3] > S.by1:
            S.by1 = f[3]

    cdef int _s_put(self, int64_t sid, const double* b, bint force) noexcept nogil:
        """Static id ``sid`` gets box ``b`` (packed) in every cell it covers of its level
        (`_s_cells`). 0: done; -1: out of memory; 1: the box does not fit this index's
        cells (nothing changed)."""
        cdef double f[4]
        cdef int L
        cdef int64_t gx, gy
        if self.s_c0 <= 0.0:
            return 1
        L = self._s_cells(b, force, f)
        if L == -2:
            return 1
        if sid >= self.m and self._s_slots(sid + 1) < 0:
            return -1
        if (<uint8_t*>self.b_st_in.p)[sid]:
            self._s_remove(sid)
        self._s_hold(sid, b, L)
        if L < 0:  # (a NaN or inverted box: held, in no cell, it meets nothing)
            return 0
        gy = <int64_t>f[1]
        while gy <= <int64_t>f[3]:
            gx = <int64_t>f[0]
            while gx <= <int64_t>f[2]:
                if self._s_add(L, sid, gx, gy) < 0:
                    return -1
                gx += 1
            gy += 1
        self._s_bound(L, f)
        return 0

    @cython.nonecheck(False)  # self is never None here; the debug build checks it
    cdef int _s_add(self, int L, int64_t sid, int64_t gx, int64_t gy) noexcept nogil:
        """An entry of static id ``sid`` in cell (gx, gy) of level L, at the end of the cell's
        block (moved to the end of the pool with twice the room when full)."""
        cdef SLevel* S = &self.s_lv[L]
        cdef Py_ssize_t i = cell_place(S, gx, gy)
        cdef SCell* tab
        cdef SEntry* ent
        cdef SEntry* e
        cdef int room
        if i < 0:
            return -1
        tab = <SCell*>S.tab.p
        if tab[i].count == tab[i].room:
            room = 2 * tab[i].room if tab[i].room else 2
            if self._s_room(room) < 0:
                return -1
            ent = <SEntry*>self.b_ent.p
            if tab[i].count:
                memcpy(ent + self.n_ent, ent + tab[i].start, tab[i].count * sizeof(SEntry))
            self.ent_waste += tab[i].room
            tab[i].start = self.n_ent
            tab[i].room = room
            self.n_ent += room
        e = (<SEntry*>self.b_ent.p) + tab[i].start + tab[i].count
        e.box[0] = self.s_box[4 * sid]
        e.box[1] = self.s_box[4 * sid + 1]
        e.box[2] = self.s_box[4 * sid + 2]
        e.box[3] = self.s_box[4 * sid + 3]
        e.id = sid
        if tab[i].count == 0:
            S.ncell += 1
        tab[i].count += 1
        S.count += 1
        return 0

    cdef int _s_room(self, Py_ssize_t k) noexcept nogil:
        """Room for ``k`` more entries at the end of the pool; blocks no cell uses are
        packed away first when they are half of it."""
        if (self.n_ent + k) * sizeof(SEntry) <= self.b_ent.cap:
            return 0
        if self.ent_waste > 0 and 2 * self.ent_waste >= self.n_ent:
            if self._s_pack() < 0:
                return -1
        if buf_keep(&self.b_ent, (self.n_ent + k) * sizeof(SEntry)) == NULL:
            return -1
        return 0

    cdef int _s_pack(self) noexcept nogil:
        """Copy every cell's entries into a fresh pool, side by side, with no spare room."""
        cdef Buf fresh
        cdef SEntry* dst
        cdef const SEntry* src = <const SEntry*>self.b_ent.p
        cdef SCell* tab
        cdef Py_ssize_t total = self.n_ent - self.ent_waste, used = 0, i
        cdef int L
        fresh.p = NULL
        fresh.cap = 0
        dst = <SEntry*>buf_reserve(&fresh, (total + 1) * sizeof(SEntry))
        if dst == NULL:
            return -1
        for L in range(MAX_SLEVELS):
            tab = <SCell*>self.s_lv[L].tab.p
            for i in range(self.s_lv[L].cap if self.s_lv[L].ncell else 0):
                if tab[i].count > 0:
                    memcpy(dst + used, src + tab[i].start, tab[i].count * sizeof(SEntry))
                    tab[i].start = used
                    tab[i].room = tab[i].count
                    used += tab[i].count
        buf_free(&self.b_ent)
        self.b_ent = fresh
        self.n_ent = used
        self.ent_waste = 0
        return 0

    @cython.nonecheck(False)  # self is never None here; the debug build checks it
    cdef void _s_remove(self, int64_t sid) noexcept nogil:
        """Take static id ``sid`` (in the index) out: its entries leave their cells (the last
        entry of a cell takes the place of the one leaving)."""
        cdef int L = (<int8_t*>self.b_st_level.p)[sid]
        cdef SLevel* S
        cdef SCell* tab
        cdef SEntry* blk
        cdef const double* b = self.s_box + 4 * sid
        cdef int64_t gx, gy, gx1, gy1
        cdef Py_ssize_t i
        cdef int k, c
        if L >= 0:
            S = &self.s_lv[L]
            gx1 = <int64_t>floor(b[2] * S.inv)
            gy1 = <int64_t>floor(b[3] * S.inv)
            gy = <int64_t>floor(b[1] * S.inv)
            while gy <= gy1:
                gx = <int64_t>floor(b[0] * S.inv)
                while gx <= gx1:
                    i = cell_find(S, gx, gy)
                    if i >= 0:
                        tab = <SCell*>S.tab.p
                        blk = (<SEntry*>self.b_ent.p) + tab[i].start
                        c = tab[i].count
                        for k in range(c):
                            if blk[k].id == sid:
                                blk[k] = blk[c - 1]
                                tab[i].count = c - 1
                                S.count -= 1
                                break
                        if tab[i].count == 0:
                            self.ent_waste += tab[i].room
                            cell_delete(S, i)
                    gx += 1
                gy += 1
            if S.count == 0:
                S.bx0 = S.by0 = INFINITY
                S.bx1 = S.by1 = -INFINITY
        (<uint8_t*>self.b_st_in.p)[sid] = 0
        (<int8_t*>self.b_st_level.p)[sid] = -1
        self.m_live -= 1
        self.s_box[4 * sid] = self.s_box[4 * sid + 1] = NAN
        self.s_box[4 * sid + 2] = self.s_box[4 * sid + 3] = NAN

    cdef int _s_bulk(self, const double* box, Py_ssize_t m) noexcept nogil:
        """set_static's insertion of boxes 0..m-1 (packed) into the empty index: the entries
        sorted by cell (level, row, column), so each cell's block is exactly its entries
        and the cells of a row lie next to each other in the pool."""
        cdef Py_ssize_t i, total = 0
        cdef double f[4]
        cdef double area
        cdef int L
        cdef int64_t w[MAX_SLEVELS]
        cdef uint64_t koff[MAX_SLEVELS + 1]
        cdef SLevel* S
        cdef int8_t* level = <int8_t*>self.b_st_level.p
        cdef uint64_t* key
        cdef int64_t* val
        cdef Buf b_key, b_val, b_tmp
        cdef int r = -1
        cdef Py_ssize_t count[MAX_SLEVELS]
        cdef Py_ssize_t cap
        for L in range(MAX_SLEVELS):
            count[L] = 0
        b_key.p = b_val.p = b_tmp.p = NULL
        b_key.cap = b_val.cap = b_tmp.cap = 0
        # each box's level and cells; the levels' bounds
        for i in range(m):
            L = self._s_cells(box + 4 * i, True, f)
            self._s_hold(i, box + 4 * i, L)
            if L >= 0:
                total += <Py_ssize_t>((f[2] - f[0] + 1.0) * (f[3] - f[1] + 1.0))
                count[L] += <Py_ssize_t>((f[2] - f[0] + 1.0) * (f[3] - f[1] + 1.0))
                self._s_bound(L, f)
        koff[0] = 0
        for L in range(MAX_SLEVELS):
            S = &self.s_lv[L]
            w[L] = 0
            area = 0.0
            if S.bx0 <= S.bx1:
                w[L] = <int64_t>(S.bx1 - S.bx0) + 1
                area = <double>w[L] * (S.by1 - S.by0 + 1.0)
                # an array over the bounds when not too sparse, else a table
                if dense_fits(area, count[L]):
                    if cells_relayout(S, True, <int64_t>S.bx0, <int64_t>S.by0, w[L],
                                      <int64_t>(S.by1 - S.by0) + 1, 0) < 0:
                        return -1
                else:
                    cap = 64
                    while cap < 2 * count[L]:
                        cap *= 2
                    if cells_relayout(S, False, 0, 0, 0, 0, cap) < 0:
                        return -1
            koff[L + 1] = koff[L] + <uint64_t>area
        key = <uint64_t*>buf_reserve(&b_key, (total + 1) * sizeof(uint64_t))
        val = <int64_t*>buf_reserve(&b_val, (total + 1) * sizeof(int64_t))
        if (key != NULL and val != NULL
                and buf_reserve(&self.b_ent, (total + 1) * sizeof(SEntry)) != NULL):
            r = self._s_sorted(box, m, level, w, koff, key, val, &b_tmp)
        buf_free(&b_key)
        buf_free(&b_val)
        buf_free(&b_tmp)
        return r

    @cython.nonecheck(False)  # self is never None here; the debug build checks it
    cdef int _s_sorted(self, const double* box, Py_ssize_t m, const int8_t* level,
                       const int64_t* w, const uint64_t* koff, uint64_t* key, int64_t* val,
                       Buf* tmp) noexcept nogil:
        """`_s_bulk`'s keys, their sort, and each cell's block from a run of equal keys."""
        cdef Py_ssize_t i, t, u, k = 0, p
        cdef double f[4]
        cdef int L
        cdef int64_t gx, gy, sid
        cdef uint64_t rel
        cdef SLevel* S
        cdef SCell* tab
        cdef SEntry* ent = <SEntry*>self.b_ent.p
        # one key per entry: (level, row, column), the box id as payload
        for i in range(m):
            L = level[i]
            if L < 0:
                continue
            S = &self.s_lv[L]
            self._s_cells(box + 4 * i, True, f)
            gy = <int64_t>f[1]
            while gy <= <int64_t>f[3]:
                gx = <int64_t>f[0]
                while gx <= <int64_t>f[2]:
                    key[k] = (koff[L] + <uint64_t>(gy - <int64_t>S.by0) * <uint64_t>w[L]
                              + <uint64_t>(gx - <int64_t>S.bx0))
                    val[k] = i
                    k += 1
                    gx += 1
                gy += 1
        if sort_keys(key, val, k, tmp) < 0:
            return -1
        L = 0
        t = 0
        while t < k:
            while key[t] >= koff[L + 1]:
                L += 1
            S = &self.s_lv[L]
            rel = key[t] - koff[L]
            gy = <int64_t>(rel // <uint64_t>w[L]) + <int64_t>S.by0
            gx = <int64_t>(rel % <uint64_t>w[L]) + <int64_t>S.bx0
            u = t + 1
            while u < k and key[u] == key[t]:
                u += 1
            p = cell_place(S, gx, gy)
            if p < 0:
                return -1
            tab = <SCell*>S.tab.p
            tab[p].start = self.n_ent
            tab[p].count = <int>(u - t)
            tab[p].room = <int>(u - t)
            S.ncell += 1
            S.count += u - t
            while t < u:
                sid = val[t]
                ent[self.n_ent].box[0] = box[4 * sid]
                ent[self.n_ent].box[1] = box[4 * sid + 1]
                ent[self.n_ent].box[2] = box[4 * sid + 2]
                ent[self.n_ent].box[3] = box[4 * sid + 3]
                ent[self.n_ent].id = sid
                self.n_ent += 1
                t += 1
        return 0

    # ------------------------------------------------------------------ query

    cdef double _pick_cell(self, double* ext, Py_ssize_t n, double emax,
                           double span) noexcept nogil:
        """The automatic cell from the extents (``ext`` is reordered only in the sample)."""
        cdef Py_ssize_t step = n // SAMPLE_STEP_DIV, k, s = 0, k50, k98
        cdef double med, p98, est, c
        cdef double* sample
        if step < 1:
            step = 1
        # the sample: every step-th extent, gathered at the front of a scratch area
        sample = ext + n
        k = 0
        while k < n:
            sample[s] = ext[k]
            s += 1
            k += step
        k98 = (s * 98) // 100
        k50 = s // 2
        _select(sample, s, k98)
        p98 = sample[k98]
        _select(sample, k98 + 1, k50)
        med = sample[k50]
        if emax <= FIT_RATIO * med:
            est = emax * FIT_MARGIN
        else:
            est = 1.02 * p98 / NORMAL_FRACTION
            if est > 3.0 * med:
                est = 3.0 * med
        if not (est > 0.0 and isfinite(est)):
            est = span / sqrt(<double>n) if span > 0.0 and isfinite(span) else 1.0
            if est <= 0.0:
                est = 1.0
        c = self._cell
        if c <= 0.0 or not (est <= c * KEEP_BELOW and c <= est * KEEP_ABOVE):
            self._cell = est
        return self._cell

    cdef inline Py_ssize_t _first(self, Level* T, int64_t k) noexcept nogil:
        """Position of the first box of key ``k`` or later in level ``T``."""
        if self.dense:
            return self.starts[k]
        return lower_bound(self.skey, T.p0, T.p1, k)

    cdef int _scan(self, const double* q, Level* T, int64_t qid, PairList* out,
                   bint to_static) noexcept nogil:
        """Test box ``q`` against the boxes of level ``T`` binned in the cells under it grown
        by one cell; push ``(min, max)`` id pairs, or ``(box id, qid)`` when ``to_static``."""
        cdef double c = T.cell, inv = T.inv
        cdef double fx0 = floor((q[0] - c) * inv) - T.ox
        cdef double fx1 = floor((q[2] + c) * inv) - T.ox
        cdef double fy0 = floor((q[1] - c) * inv) - T.oy
        cdef double fy1 = floor((q[3] + c) * inv) - T.oy
        cdef int64_t gx0, gx1, gy0, gy1, r, base, b
        cdef Py_ssize_t s, e, t, tested = 0
        if fx0 < 1.0:
            fx0 = 1.0
        if fy0 < 1.0:
            fy0 = 1.0
        if fx1 > <double>(T.w - 2):
            fx1 = <double>(T.w - 2)
        if fy1 > <double>(T.h - 2):
            fy1 = <double>(T.h - 2)
        if not (fx0 <= fx1 and fy0 <= fy1):  # (a NaN box: nothing)
            return 0
        gx0 = <int64_t>fx0
        gx1 = <int64_t>fx1
        gy0 = <int64_t>fy0
        gy1 = <int64_t>fy1
        r = gy0
        while r <= gy1:
            base = T.koff + r * T.w
            s = self._first(T, base + gx0)
            if not self.dense:
                # sparse keys: when the first box at or after (row r, column gx0) is in a
                # later row, the rows before that one hold nothing and are skipped, so a tall
                # box costs per row that holds boxes, never per row of a sparse grid (2**25)
                if s >= T.p1:
                    break
                if self.skey[s] >= base + T.w:
                    r = (self.skey[s] - T.koff) // T.w
                    continue
            e = self._first(T, base + gx1 + 1)
            tested += e - s
            if test_range(out, q, qid, self.sbox, self.order, s, e,
                          ID_FIRST if to_static else MINMAX) < 0:
                return -1
            r += 1
        if not to_static:
            self.last_candidates = self.last_candidates + tested
        return 0

    cdef double _scan_cells(self, const double* q, Level* T) noexcept nogil:
        """How many cells ``_scan`` of ``q`` in ``T`` would visit."""
        cdef double c = T.cell, inv = T.inv
        cdef double fx0 = clampd(floor((q[0] - c) * inv) - T.ox, 1.0, <double>(T.w - 2))
        cdef double fx1 = clampd(floor((q[2] + c) * inv) - T.ox, 1.0, <double>(T.w - 2))
        cdef double fy0 = clampd(floor((q[1] - c) * inv) - T.oy, 1.0, <double>(T.h - 2))
        cdef double fy1 = clampd(floor((q[3] + c) * inv) - T.oy, 1.0, <double>(T.h - 2))
        return (fx1 - fx0 + 1.0) * (fy1 - fy0 + 1.0)

    cdef int _levels(self, const double* lo, const double* hi, Py_ssize_t n, double c0,
                     const double* ext, double* cx, double* cy, uint8_t* lvl,
                     uint64_t* key) noexcept nogil:
        """Mixed sizes: each box's level (the finest whose cell fits it), the levels' cell
        spans and keys ``(level offset) + row * w + column``."""
        cdef Py_ssize_t i, p = 0, cnt
        cdef double e, c, sx, sy, lim = NORMAL_FRACTION * c0
        cdef int L, top = 0
        cdef Level* T
        cdef int64_t K = 0
        for i in range(n):
            e = ext[i]
            L = 0
            if e > lim:
                c = lim
                while e > c and L < MAX_LEVELS - 1:
                    L += 1
                    c *= LEVEL_RATIO
            lvl[i] = <uint8_t>L
            if L > top:
                top = L
            T = &self.lv[L]
            T.p1 += 1  # a count for now
            sx = floor((lo[2 * i] + hi[2 * i]) * (0.5 * T.inv))
            sy = floor((lo[2 * i + 1] + hi[2 * i + 1]) * (0.5 * T.inv))
            cx[i] = sx
            cy[i] = sy
            if sx < T.xmin:
                T.xmin = sx
            if sx > T.xmax:
                T.xmax = sx
            if sy < T.ymin:
                T.ymin = sy
            if sy > T.ymax:
                T.ymax = sy
        self.nlv = top + 1
        # one empty padding cell on every side: neighbour keys never wrap into another row
        for L in range(top + 1):
            T = &self.lv[L]
            T.koff = K
            cnt = T.p1
            T.p0 = p
            T.p1 = p + cnt
            p += cnt
            if cnt == 0:
                T.w = 0
                T.h = 0
                continue
            self._levels_used = self._levels_used + 1
            T.ox = T.xmin - 1.0
            T.oy = T.ymin - 1.0
            T.w = <int64_t>(T.xmax - T.xmin) + 3
            T.h = <int64_t>(T.ymax - T.ymin) + 3
            K += T.w * T.h
        for i in range(n):
            T = &self.lv[lvl[i]]
            key[i] = <uint64_t>(T.koff + <int64_t>(cy[i] - T.oy) * T.w
                                + <int64_t>(cx[i] - T.ox))
        return 0

    cdef int _layout(self, const double* lo, const double* hi, Py_ssize_t n) noexcept nogil:
        """Pick the cell, assign levels, sort the boxes by (level, cell) into ``sbox``."""
        cdef Py_ssize_t i, p
        cdef double lx, ly, hx, hy, e, emax = 0.0, sx, sy
        cdef double sxmin = 1e308, sxmax = -1e308, symin = 1e308, symax = -1e308
        cdef double cell, c0, span, lim, c, top_cell, half
        cdef double* ext
        cdef double* cx
        cdef double* cy
        cdef uint8_t* lvl
        cdef uint64_t* key
        cdef int64_t* order
        cdef int64_t* skey
        cdef int64_t* starts = NULL
        cdef double* sbox
        cdef int L, top = 0
        cdef Level* T
        cdef int64_t K = 0, k
        ext = <double*>buf_reserve(&self.b_ext, 2 * n * sizeof(double) + 64)
        cx = <double*>buf_reserve(&self.b_cx, n * sizeof(double))
        cy = <double*>buf_reserve(&self.b_cy, n * sizeof(double))
        lvl = <uint8_t*>buf_reserve(&self.b_lvl, n)
        key = <uint64_t*>buf_reserve(&self.b_key, n * sizeof(uint64_t))
        order = <int64_t*>buf_reserve(&self.b_ord, n * sizeof(int64_t))
        sbox = <double*>buf_reserve(&self.b_sbox, 4 * n * sizeof(double))
        if (ext == NULL or cx == NULL or cy == NULL or lvl == NULL
                or key == NULL or order == NULL or sbox == NULL):
            return -1
        # pass 1: extents and the span of the centres (doubled)
        for i in range(n):
            lx = lo[2 * i]
            ly = lo[2 * i + 1]
            hx = hi[2 * i]
            hy = hi[2 * i + 1]
            e = hx - lx
            if hy - ly > e:
                e = hy - ly
            ext[i] = e
            if e > emax:
                emax = e
            sx = lx + hx
            sy = ly + hy
            if sx < sxmin:
                sxmin = sx
            if sx > sxmax:
                sxmax = sx
            if sy < symin:
                symin = sy
            if sy > symax:
                symax = sy
        span = (sxmax - sxmin if sxmax - sxmin > symax - symin else symax - symin) * 0.5 + emax
        if self._auto:
            cell = self._pick_cell(ext, n, emax, span)
        else:
            cell = self._cell
        c0 = cell
        if span / MAX_AXIS_CELLS > c0:
            c0 = span / MAX_AXIS_CELLS
        # level cells: c0 * 4**L; the top one also fits the largest box
        c = c0
        for L in range(MAX_LEVELS):
            T = &self.lv[L]
            T.cell = c
            T.p1 = 0
            T.xmin = 1e308
            T.ymin = 1e308
            T.xmax = -1e308
            T.ymax = -1e308
            c *= LEVEL_RATIO
        top_cell = emax / NORMAL_FRACTION
        if top_cell > self.lv[MAX_LEVELS - 1].cell:
            self.lv[MAX_LEVELS - 1].cell = top_cell
        for L in range(MAX_LEVELS):
            self.lv[L].inv = 1.0 / self.lv[L].cell
        lim = NORMAL_FRACTION * c0
        if emax <= lim:
            # one level (similar boxes, the common case): its cell span is known from pass 1
            # (floor is monotonic), so the keys and their counts come in one more pass
            T = &self.lv[0]
            half = 0.5 * T.inv
            T.ox = floor(sxmin * half) - 1.0
            T.oy = floor(symin * half) - 1.0
            T.w = <int64_t>(floor(sxmax * half) - T.ox) + 2
            T.h = <int64_t>(floor(symax * half) - T.oy) + 2
            T.koff = 0
            T.p0 = 0
            T.p1 = n
            self.nlv = 1
            self._levels_used = 1
            K = T.w * T.h
            self.dense = K <= 4 * n + 4096
            starts = NULL
            if self.dense:
                starts = <int64_t*>buf_reserve(&self.b_starts, (K + 2) * sizeof(int64_t))
                if starts == NULL:
                    return -1
                memset(starts, 0, (K + 2) * sizeof(int64_t))
            for i in range(n):
                k = ((<int64_t>(floor((lo[2 * i + 1] + hi[2 * i + 1]) * half) - T.oy)) * T.w
                     + <int64_t>(floor((lo[2 * i] + hi[2 * i]) * half) - T.ox))
                key[i] = <uint64_t>k
                if starts != NULL:
                    starts[k + 2] += 1
        else:
            if self._levels(lo, hi, n, c0, ext, cx, cy, lvl, key) < 0:
                return -1
            K = 0
            for L in range(self.nlv):
                K += self.lv[L].w * self.lv[L].h
            self.dense = K <= 4 * n + 4096
            if self.dense:
                starts = <int64_t*>buf_reserve(&self.b_starts, (K + 2) * sizeof(int64_t))
                if starts == NULL:
                    return -1
                memset(starts, 0, (K + 2) * sizeof(int64_t))
                for i in range(n):
                    starts[key[i] + 2] += 1
        skey = <int64_t*>cx  # the sorted keys
        if self.dense:
            # counting sort: starts[k + 2] counts key k, then starts[k + 1] is where key k
            # goes next; after the scatter starts[k] is the first position of key k
            for k in range(2, K + 2):
                starts[k] += starts[k - 1]
            for i in range(n):
                k = <int64_t>key[i]
                p = starts[k + 1]
                starts[k + 1] = p + 1
                order[p] = i
                skey[p] = k
                sbox[4 * p] = lo[2 * i]
                sbox[4 * p + 1] = lo[2 * i + 1]
                sbox[4 * p + 2] = hi[2 * i]
                sbox[4 * p + 3] = hi[2 * i + 1]
            self.starts = starts
        else:
            for i in range(n):
                order[i] = i
            if sort_keys(key, order, n, &self.b_tmp) < 0:
                return -1
            for p in range(n):
                i = order[p]
                skey[p] = <int64_t>key[p]
                sbox[4 * p] = lo[2 * i]
                sbox[4 * p + 1] = lo[2 * i + 1]
                sbox[4 * p + 2] = hi[2 * i]
                sbox[4 * p + 3] = hi[2 * i + 1]
            self.starts = NULL
        self.skey = skey
        self.order = order
        self.sbox = sbox
        return 0

    cdef int _level_pairs(self, Level* T) noexcept nogil:
        """Pairs within one level: own cell, right cell, three cells above (forward ranges)."""
        cdef Py_ssize_t p, q, ea, b0, b1, p0 = T.p0, p1 = T.p1, tested = 0
        cdef int64_t k, w = T.w, a, b
        cdef const int64_t* skey = self.skey
        cdef const int64_t* starts = self.starts if self.dense else NULL
        cdef const double* sbox = self.sbox
        cdef const double* bp
        ea = p0
        b0 = p0
        b1 = p0
        for p in range(p0, p1):
            k = skey[p]
            bp = sbox + 4 * p
            a = self.order[p]
            if starts != NULL:  # dense: the ranges' ends straight from the start table
                ea = starts[k + 2]
                b0 = starts[k + w - 1]
                b1 = starts[k + w + 2]
            else:
                while ea < p1 and skey[ea] < k + 2:
                    ea += 1
                while b0 < p1 and skey[b0] < k + w - 1:
                    b0 += 1
                if b1 < b0:
                    b1 = b0
                while b1 < p1 and skey[b1] < k + w + 2:
                    b1 += 1
            tested += (ea - p - 1) + (b1 - b0)
            if test_range(&self.dd, bp, a, sbox, self.order, p + 1, ea, MINMAX) < 0:
                return -1
            if test_range(&self.dd, bp, a, sbox, self.order, b0, b1, MINMAX) < 0:
                return -1
        self.last_candidates = self.last_candidates + tested
        return 0

    cdef int _cross_levels(self, Level* A, Level* B) noexcept nogil:
        """Pairs between a finer level A and a coarser level B, from the cheaper side."""
        cdef Py_ssize_t p
        cdef double na = <double>(A.p1 - A.p0), nb = <double>(B.p1 - B.p0)
        cdef double from_fine, from_coarse = 0.0, rows
        cdef double dens_a = na / <double>(A.w * A.h), dens_b = nb / <double>(B.w * B.h)
        from_fine = na * (6.0 + 9.0 * dens_b)
        for p in range(B.p0, B.p1):
            rows = (self.sbox[4 * p + 3] - self.sbox[4 * p + 1]) * A.inv + 3.0
            from_coarse += 2.0 * rows + self._scan_cells(self.sbox + 4 * p, A) * dens_a
            if from_coarse > from_fine:
                break
        if from_coarse <= from_fine:
            for p in range(B.p0, B.p1):
                if self._scan(self.sbox + 4 * p, A, self.order[p], &self.dd, False) < 0:
                    return -1
        else:
            for p in range(A.p0, A.p1):
                if self._scan(self.sbox + 4 * p, B, self.order[p], &self.dd, False) < 0:
                    return -1
        return 0

    cdef int _static_lookup(self, Py_ssize_t n) noexcept nogil:
        """Each dynamic box looks itself up in the static cell index."""
        cdef Py_ssize_t i
        for i in range(n):
            if self._static_box(self.sbox + 4 * i, self.order[i], &self.ds, False) < 0:
                return -1
        return 0

    cdef int _static_box(self, const double* q, int64_t qid, PairList* out,
                         bint found) noexcept nogil:
        """Push the static boxes overlapping box ``q``, each once: ``(qid, static id)``, or
        ``(static id, FOUND_STATIC)`` when ``found``. Per level, the cells under ``q`` within
        the bounds of the level's cells that hold entries: read from its array row by row,
        or looked up in its table, or, when they outnumber the table's places, the table
        walked once (a box costs per cell it covers or per place, whichever is fewer)."""
        cdef int L
        cdef SLevel* S
        cdef const SCell* tab
        cdef const SEntry* pool = <const SEntry*>self.b_ent.p
        cdef double fx0, fx1, fy0, fy1
        cdef int64_t gx0, gx1, gy0, gy1, gx, gy
        cdef Py_ssize_t i
        for L in range(MAX_SLEVELS):
            S = &self.s_lv[L]
            if S.count == 0:
                continue
            fx0 = floor(q[0] * S.inv)
            fx1 = floor(q[2] * S.inv)
            fy0 = floor(q[1] * S.inv)
            fy1 = floor(q[3] * S.inv)
            if fx0 < S.bx0:
                fx0 = S.bx0
            if fy0 < S.by0:
                fy0 = S.by0
            if fx1 > S.bx1:
                fx1 = S.bx1
            if fy1 > S.by1:
                fy1 = S.by1
            if not (fx0 <= fx1 and fy0 <= fy1):  # (a NaN box: nothing)
                continue
            gx0 = <int64_t>fx0
            gx1 = <int64_t>fx1
            gy0 = <int64_t>fy0
            gy1 = <int64_t>fy1
            tab = <const SCell*>S.tab.p
            if S.dense:
                gy = gy0
                while gy <= gy1:
                    i = <Py_ssize_t>((gy - S.oy) * S.w - S.ox)
                    gx = gx0
                    while gx <= gx1:
                        if tab[i + gx].count > 0 and cell_hits(pool, q, qid, S, &tab[i + gx],
                                                               out, found) < 0:
                            return -1
                        gx += 1
                    gy += 1
            elif (fx1 - fx0 + 1.0) * (fy1 - fy0 + 1.0) <= <double>S.cap:
                gy = gy0
                while gy <= gy1:
                    gx = gx0
                    while gx <= gx1:
                        i = cell_find(S, gx, gy)
                        if i >= 0 and cell_hits(pool, q, qid, S, &tab[i], out, found) < 0:
                            return -1
                        gx += 1
                    gy += 1
            else:
                for i in range(S.cap):
                    if (tab[i].count > 0 and gx0 <= tab[i].cx and tab[i].cx <= gx1
                            and gy0 <= tab[i].cy and tab[i].cy <= gy1):
                        if cell_hits(pool, q, qid, S, &tab[i], out, found) < 0:
                            return -1
        return 0

    cdef int find(self, const double* q, PairList* out) noexcept nogil:
        cdef int L
        cdef Py_ssize_t i
        cdef const double* few = <const double*>self.b_few.p
        if self.n_last and self._few:
            for i in range(self.n_last):
                if overlap(q, few + 4 * i) and pl_push(out, i, FOUND_DYNAMIC) < 0:
                    return -1
        elif self.n_last:
            for L in range(self.nlv):
                if self.lv[L].p1 > self.lv[L].p0:
                    # (box id, FOUND_DYNAMIC) pairs: _scan's "to static" order
                    if self._scan(q, &self.lv[L], FOUND_DYNAMIC, out, True) < 0:
                        return -1
        if self.m_live:
            return self._static_box(q, 0, out, True)
        return 0

    cdef int _run_few(self, const double* lo, const double* hi, Py_ssize_t n) noexcept nogil:
        """`run` for a few boxes: every dynamic pair tested in id order (so the list comes
        out sorted), and every (box, static id) too while the statics are few, else each
        box looked up in the static cells; the boxes kept for `find`."""
        cdef double* box = <double*>buf_reserve(&self.b_few, 4 * n * sizeof(double))
        cdef const uint8_t* st_in = <const uint8_t*>self.b_st_in.p
        cdef const double* q
        cdef const double* b
        cdef Py_ssize_t i, j, s, k
        if box == NULL:
            return -1
        pack_boxes(lo, hi, n, box)
        if pl_grow(&self.dd, n * (n - 1) // 2) < 0:
            return -1
        for i in range(n - 1):  # (branch-free: every pair written, counted if it overlaps)
            q = box + 4 * i
            k = self.dd.n
            for j in range(i + 1, n):
                b = box + 4 * j
                self.dd.a[k] = i
                self.dd.b[k] = j
                k += (q[0] <= b[2]) & (b[0] <= q[2]) & (q[1] <= b[3]) & (b[1] <= q[3])
            self.dd.n = k
        if self.m_live and (self.m > FEW_STATICS or <double>n * self.m > SMALL_TESTS):
            for i in range(n):  # many statics: each box looks itself up in their cells
                if self._static_box(box + 4 * i, i, &self.ds, False) < 0:
                    return -1
            if sort_pairs(&self.ds, &self.spare, self.m, &self.b_keys, &self.b_tmp) < 0:
                return -1
        elif self.m_live:
            if pl_grow(&self.ds, n * self.m) < 0:
                return -1
            for i in range(n):
                q = box + 4 * i
                k = self.ds.n
                for s in range(self.m):
                    b = self.s_box + 4 * s
                    self.ds.a[k] = i
                    self.ds.b[k] = s
                    k += st_in[s] & (q[0] <= b[2]) & (b[0] <= q[2]) & (q[1] <= b[3]) & (
                        b[1] <= q[3])
                self.ds.n = k
        self._few = True
        self.nlv = 0
        self.last_candidates = n * (n - 1) // 2 + self.ds.n
        return 0

    cdef int run(self, const double* lo, const double* hi, Py_ssize_t n) noexcept nogil:
        cdef int L, L2
        cdef Py_ssize_t s
        cdef double cells
        cdef const uint8_t* st_in = <const uint8_t*>self.b_st_in.p
        self.dd.n = 0
        self.ds.n = 0
        self.n_last = n
        self.last_candidates = 0
        self._scanned = False
        self._levels_used = 0
        self._few = False
        if n == 0:
            return 0
        if <double>n * (n - 1) / 2 <= SMALL_TESTS:
            return self._run_few(lo, hi, n)
        if self._layout(lo, hi, n) < 0:
            return -1
        for L in range(self.nlv):
            if self.lv[L].p1 - self.lv[L].p0 > 1:
                if self._level_pairs(&self.lv[L]) < 0:
                    return -1
        for L in range(self.nlv):
            if self.lv[L].p1 == self.lv[L].p0:
                continue
            for L2 in range(L + 1, self.nlv):
                if self.lv[L2].p1 > self.lv[L2].p0:
                    if self._cross_levels(&self.lv[L], &self.lv[L2]) < 0:
                        return -1
        if sort_pairs(&self.dd, &self.spare, n, &self.b_keys, &self.b_tmp) < 0:
            return -1
        if self.m_live == 0:
            return 0
        # statics: scan from their side when few and covering few dynamic cells
        if self.m_live * SCAN_STATICS <= n:
            cells = 0.0
            for s in range(self.m):
                if not st_in[s]:
                    continue
                for L in range(self.nlv):
                    if self.lv[L].p1 > self.lv[L].p0:
                        cells += self._scan_cells(self.s_box + 4 * s, &self.lv[L])
                if cells > <double>n:
                    break
            if cells <= <double>n:
                self._scanned = True
                for s in range(self.m):
                    if not st_in[s]:
                        continue
                    for L in range(self.nlv):
                        if self.lv[L].p1 > self.lv[L].p0:
                            if self._scan(self.s_box + 4 * s, &self.lv[L], s, &self.ds,
                                          True) < 0:
                                return -1
        if not self._scanned:
            if self._static_lookup(n) < 0:
                return -1
        return sort_pairs(&self.ds, &self.spare, self.m, &self.b_keys, &self.b_tmp)
