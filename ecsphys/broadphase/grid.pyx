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
# - Statics are indexed once per set_static (and only then): each static box is stored in every
#   cell it covers of the finest static level where it covers at most 64 cells (static levels
#   have cells of static_cell_size * 8**L, the automatic static cell being twice the median
#   of the boxes' smaller sides), so a long floor sits in a few coarse cells and a query box
#   costs per cell *it* covers, never per cell the floor covers. A pair met in several cells
#   is kept only in the cell holding the lower-left corner of the intersection. A query looks
#   each dynamic box up there (a summed-area table rejects empty areas in O(1)), unless the
#   statics are few and cover few dynamic cells (walls around a crowd): then each static box
#   scans the dynamic cells under it instead, which costs nothing per dynamic box.
# - `find(q)` looks a box up the same ways: the dynamic boxes of the last run in each level's
#   cells under it grown by one cell, the statics by the lower-left-corner rule. Where the
#   keys are sparse (binary search), the rows under a box that hold no key are jumped over,
#   so a box costs per row that holds boxes, never per row of the grid (up to 2**25): a world
#   query's long ray across a world as wide as the valid range stays cheap. A box with a NaN
#   finds nothing.
# - Negative and far-away coordinates work (exact while |coordinate| / cell stays below about
#   1e12; the cell is raised so an axis has at most 2**25 cells); a sparse scene switches
#   from a dense cell table to binary search.

from libc.math cimport floor, isfinite, sqrt
from libc.stdint cimport int64_t, uint64_t, uint8_t
from libc.string cimport memset

from .boxindex cimport (
    FOUND_DYNAMIC,
    FOUND_STATIC,
    ID_FIRST,
    MINMAX,
    BoxIndex,
    Buf,
    PairList,
    buf_free,
    buf_reserve,
    overlap,
    pl_push,
    sort_keys,
    sort_pairs,
    test_range,
)

import numpy as np

from .base import as_boxes

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


cdef struct SLevel:
    double cell
    double inv
    double x0
    double y0
    int64_t w
    int64_t h
    Py_ssize_t e0      # entries e0 .. e1 - 1 (sorted by key)
    Py_ssize_t e1
    Py_ssize_t st      # offset of the start table, -1: binary search
    Py_ssize_t sat     # offset of the summed-area table, -1: none


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


cdef inline Py_ssize_t lower_bound(const int64_t* keys, Py_ssize_t lo, Py_ssize_t hi,
                                   int64_t k) noexcept nogil:
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < k:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _static_cell_size(lo, hi):
    """The automatic static cell: twice the median of the boxes' smaller sides."""
    ext = hi - lo
    med = float(np.median(np.minimum(ext[:, 0], ext[:, 1])))
    if med > 0 and np.isfinite(med):
        return 2.0 * med
    med = float(np.median(np.maximum(ext[:, 0], ext[:, 1])))
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
    cdef int64_t* skey
    cdef int64_t* order
    cdef double* sbox
    cdef int64_t* starts
    # static index
    cdef object _s_keep
    cdef Py_ssize_t m
    cdef int s_nlv
    cdef SLevel s_lv[MAX_SLEVELS]
    cdef const double* s_box
    cdef const double* e_box
    cdef const int64_t* e_id
    cdef const int64_t* e_key
    cdef const int64_t* e_cx
    cdef const int64_t* e_cy
    cdef const int64_t* s_tab

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
        self.s_nlv = 0
        self._s_keep = None

    def __dealloc__(self):
        buf_free(&self.b_ext)
        buf_free(&self.b_lvl)
        buf_free(&self.b_cx)
        buf_free(&self.b_cy)
        buf_free(&self.b_key)
        buf_free(&self.b_ord)
        buf_free(&self.b_sbox)
        buf_free(&self.b_starts)

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
        """Index the static boxes (ids ``0..m-1``); increments ``rebuilds``."""
        lo, hi = as_boxes(lo, hi)
        m = lo.shape[0]
        self.rebuilds += 1
        box = np.empty((m, 4))
        box[:, :2] = lo
        box[:, 2:] = hi
        parts_box, parts_id, parts_key, parts_cx, parts_cy, tabs = [], [], [], [], [], []
        levels = []
        e_total = 0
        t_total = 0
        if m:
            c = self._static_req if self._static_req > 0 else _static_cell_size(lo, hi)
            span = float(np.max(hi.max(axis=0) - lo.min(axis=0)))
            c = max(c, span / MAX_AXIS_CELLS)
            rem = np.arange(m, dtype=np.int64)
            while rem.size:
                inv = 1.0 / c
                rl, rh = lo[rem], hi[rem]
                fx0 = np.floor(rl[:, 0] * inv)
                fy0 = np.floor(rl[:, 1] * inv)
                fx1 = np.floor(rh[:, 0] * inv)
                fy1 = np.floor(rh[:, 1] * inv)
                ncell = (fx1 - fx0 + 1) * (fy1 - fy0 + 1)
                fit = ncell <= STATIC_MAX_CELLS
                if len(levels) == MAX_SLEVELS - 1:
                    fit[:] = True
                take = rem[fit]
                if take.size:
                    fx0, fy0, fx1, fy1 = fx0[fit], fy0[fit], fx1[fit], fy1[fit]
                    x0, y0 = float(fx0.min()), float(fy0.min())
                    ix0 = (fx0 - x0).astype(np.int64)
                    iy0 = (fy0 - y0).astype(np.int64)
                    nx = (fx1 - x0).astype(np.int64) - ix0 + 1
                    ny = (fy1 - y0).astype(np.int64) - iy0 + 1
                    w = int((ix0 + nx).max())
                    h = int((iy0 + ny).max())
                    count = nx * ny
                    slot = np.repeat(np.arange(take.size), count)
                    first = np.cumsum(count) - count
                    local = np.arange(slot.size, dtype=np.int64) - first[slot]
                    ex = ix0[slot] + local % nx[slot]
                    ey = iy0[slot] + local // nx[slot]
                    key = ey * w + ex
                    o = np.argsort(key, kind="stable")
                    owner = take[slot[o]]
                    parts_box.append(box[owner])
                    parts_id.append(owner)
                    parts_key.append(key[o])
                    parts_cx.append(ex[o])
                    parts_cy.append(ey[o])
                    ne = int(key.size)
                    st = sat = -1
                    if w * h <= 4 * ne + 65536:  # dense: start table + summed-area table
                        per_cell = np.bincount(key, minlength=w * h)
                        starts = np.zeros(w * h + 1, dtype=np.int64)
                        np.cumsum(per_cell, out=starts[1:])
                        starts += e_total
                        s_a = np.zeros((h + 1, w + 1), dtype=np.int64)
                        np.cumsum(np.cumsum(per_cell.reshape(h, w), axis=0), axis=1,
                                  out=s_a[1:, 1:])
                        st = t_total
                        tabs.append(starts)
                        t_total += starts.size
                        sat = t_total
                        tabs.append(s_a.ravel())
                        t_total += s_a.size
                    levels.append((c, inv, x0, y0, w, h, e_total, e_total + ne, st, sat))
                    e_total += ne
                rem = rem[~fit]
                c *= STATIC_RATIO
        cat = np.concatenate
        e_box = cat(parts_box) if parts_box else np.zeros((1, 4))
        e_id = cat(parts_id) if parts_id else np.zeros(1, dtype=np.int64)
        e_key = cat(parts_key) if parts_key else np.zeros(1, dtype=np.int64)
        e_cx = cat(parts_cx) if parts_cx else np.zeros(1, dtype=np.int64)
        e_cy = cat(parts_cy) if parts_cy else np.zeros(1, dtype=np.int64)
        tab = cat(tabs) if tabs else np.zeros(1, dtype=np.int64)
        if m == 0:
            box = np.zeros((1, 4))
        keep = (np.ascontiguousarray(box), np.ascontiguousarray(e_box),
                np.ascontiguousarray(e_id, dtype=np.int64),
                np.ascontiguousarray(e_key, dtype=np.int64),
                np.ascontiguousarray(e_cx, dtype=np.int64),
                np.ascontiguousarray(e_cy, dtype=np.int64),
                np.ascontiguousarray(tab, dtype=np.int64))
        cdef const double[:, ::1] v_box = keep[0]
        cdef const double[:, ::1] v_ebox = keep[1]
        cdef const int64_t[::1] v_id = keep[2]
        cdef const int64_t[::1] v_key = keep[3]
        cdef const int64_t[::1] v_cx = keep[4]
        cdef const int64_t[::1] v_cy = keep[5]
        cdef const int64_t[::1] v_tab = keep[6]
        self._s_keep = keep
        self.s_box = &v_box[0, 0]
        self.e_box = &v_ebox[0, 0]
        self.e_id = &v_id[0]
        self.e_key = &v_key[0]
        self.e_cx = &v_cx[0]
        self.e_cy = &v_cy[0]
        self.s_tab = &v_tab[0]
        self.m = m
        self.s_nlv = len(levels)
        cdef int i
        for i, (c, inv, x0, y0, w, h, e0, e1, st, sat) in enumerate(levels):
            self.s_lv[i].cell = c
            self.s_lv[i].inv = inv
            self.s_lv[i].x0 = x0
            self.s_lv[i].y0 = y0
            self.s_lv[i].w = w
            self.s_lv[i].h = h
            self.s_lv[i].e0 = e0
            self.s_lv[i].e1 = e1
            self.s_lv[i].st = st
            self.s_lv[i].sat = sat

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
        cdef int64_t* starts
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
        ``(static id, FOUND_STATIC)`` when ``found``."""
        cdef Py_ssize_t t, s, e
        cdef int l
        cdef SLevel* S
        cdef const double* eb
        cdef double fx0, fx1, fy0, fy1, rx, ry
        cdef int64_t gx0, gx1, gy0, gy1, r, w1, k0
        cdef const int64_t* sat
        cdef const int64_t* st
        for l in range(self.s_nlv):
            S = &self.s_lv[l]
            fx0 = floor(q[0] * S.inv) - S.x0
            fx1 = floor(q[2] * S.inv) - S.x0
            fy0 = floor(q[1] * S.inv) - S.y0
            fy1 = floor(q[3] * S.inv) - S.y0
            if fx0 < 0.0:
                fx0 = 0.0
            if fy0 < 0.0:
                fy0 = 0.0
            if fx1 > <double>(S.w - 1):
                fx1 = <double>(S.w - 1)
            if fy1 > <double>(S.h - 1):
                fy1 = <double>(S.h - 1)
            if not (fx0 <= fx1 and fy0 <= fy1):  # (a NaN box: nothing)
                continue
            gx0 = <int64_t>fx0
            gx1 = <int64_t>fx1
            gy0 = <int64_t>fy0
            gy1 = <int64_t>fy1
            if S.sat >= 0:
                sat = self.s_tab + S.sat
                w1 = S.w + 1
                if (sat[(gy1 + 1) * w1 + gx1 + 1] - sat[gy0 * w1 + gx1 + 1]
                        - sat[(gy1 + 1) * w1 + gx0] + sat[gy0 * w1 + gx0]) == 0:
                    continue
            r = gy0
            while r <= gy1:
                k0 = r * S.w
                if S.st >= 0:
                    st = self.s_tab + S.st
                    s = st[k0 + gx0]
                    e = st[k0 + gx1 + 1]
                else:
                    s = lower_bound(self.e_key, S.e0, S.e1, k0 + gx0)
                    # sparse: jump to the next row that holds entries (as `_scan` does)
                    if s >= S.e1:
                        break
                    if self.e_key[s] >= k0 + S.w:
                        r = self.e_key[s] // S.w
                        continue
                    e = lower_bound(self.e_key, s, S.e1, k0 + gx1 + 1)
                for t in range(s, e):
                    eb = self.e_box + 4 * t
                    if overlap(q, eb):
                        # reference point: the intersection's lower-left corner's cell
                        rx = floor((q[0] if q[0] > eb[0] else eb[0]) * S.inv) - S.x0
                        ry = floor((q[1] if q[1] > eb[1] else eb[1]) * S.inv) - S.y0
                        if rx == <double>self.e_cx[t] and ry == <double>self.e_cy[t]:
                            if found:
                                if pl_push(out, self.e_id[t], FOUND_STATIC) < 0:
                                    return -1
                            elif pl_push(out, qid, self.e_id[t]) < 0:
                                return -1
                r += 1
        return 0

    cdef int find(self, const double* q, PairList* out) noexcept nogil:
        cdef int L
        if self.n_last:
            for L in range(self.nlv):
                if self.lv[L].p1 > self.lv[L].p0:
                    # (box id, FOUND_DYNAMIC) pairs: _scan's "to static" order
                    if self._scan(q, &self.lv[L], FOUND_DYNAMIC, out, True) < 0:
                        return -1
        if self.m:
            return self._static_box(q, 0, out, True)
        return 0

    cdef int run(self, const double* lo, const double* hi, Py_ssize_t n) noexcept nogil:
        cdef int L, L2
        cdef Py_ssize_t s
        cdef double cells
        self.dd.n = 0
        self.ds.n = 0
        self.n_last = n
        self.last_candidates = 0
        self._scanned = False
        self._levels_used = 0
        if n == 0:
            return 0
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
        if self.m == 0:
            return 0
        # statics: scan from their side when few and covering few dynamic cells
        if self.m * SCAN_STATICS <= n:
            cells = 0.0
            for s in range(self.m):
                for L in range(self.nlv):
                    if self.lv[L].p1 > self.lv[L].p0:
                        cells += self._scan_cells(self.s_box + 4 * s, &self.lv[L])
                if cells > <double>n:
                    break
            if cells <= <double>n:
                self._scanned = True
                for s in range(self.m):
                    for L in range(self.nlv):
                        if self.lv[L].p1 > self.lv[L].p0:
                            if self._scan(self.s_box + 4 * s, &self.lv[L], s, &self.ds,
                                          True) < 0:
                                return -1
        if not self._scanned:
            if self._static_lookup(n) < 0:
                return -1
        return sort_pairs(&self.ds, &self.spare, self.m, &self.b_keys, &self.b_tmp)
