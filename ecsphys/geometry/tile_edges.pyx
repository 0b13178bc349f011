# A shape store's copy of one tile map: its merged edges as leaves and its index of edges by
# tile, kept up to date tile by tile (compiled).
#
# Guarantees:
# - `TileEdges(rows, cols)` lays a map out in a `ShapeStore` (ecsphys/geometry/shape_store.py)
#   with `count_edges(grid)` then `lay_out(store, grid, first, room, cells_at, size, ox, oy)`:
#   the edges' segment leaves in the `room` slots from `first`, the tiles' kinds and the
#   unit index in `cells` from `cells_at` (the layout of shape_data.pxd: `near_next` and
#   `tile_grid` read it), and `found`, the map's `(first, count, 0)` as the store hands it
#   out, is set; `take(store, tiles)` takes the tiles the map's `TileLog`
#   (ecsphys/state/tile_log.pyx) lists as changed since `version` (the tiles' version it shows,
#   set by the store), reading its kinds and log in place, and rewrites only the edges on the
#   grid lines around the changed tiles, the slots they move through, and the index entries
#   of the units those edges cover; it returns `found` (the same tuple while the count
#   stays), or None, and the map must be laid out again, when the log does not reach back to
#   `version` or lists more than `limit` changes since (nothing is changed then), or when the
#   live edges would fill more than 7/8 of the room, or less than 1/8 of a room of more than
#   256 slots; once it answered None it answers None until the map is laid out again, and
#   once `detach`ed (its store let it go) `take` answers None and writes nothing;
# - after `take` every reader sees what a fresh `lay_out` of the same grid shows it: each
#   tile's list names the edges on its sides in the same order (bottom, top, left, right);
#   the slots hold the live edges in the order a fresh layout gives them (horizontal grid
#   lines bottom to top, then vertical ones left to right; on a line the edges open up / left
#   first, each group by where its edges start), and each other slot a copy of a live edge
#   with no live edge between the two, so a routine that walks the whole range and keeps the
#   first of equal answers (a compound's part pairs in `distance`) answers the same; the
#   leaves' numbers are a function of the edge alone (one routine writes them all);
# - an update costs per grid line it merges again (the runs of units around its changed
#   ones; none for a line with one changed unit, as when one tile is dug or built: the new
#   edges' ends are read from the records of the edges there before), per unit whose edge
#   changed (one index entry each: a dig into a long floor renames the units of the part of
#   the floor's edges that got a new slot, nothing else), and per edge it moves (an edge
#   with no free slot beside it moves at most SHIFT_REACH others, or a window of slots is
#   spread again, rarely); never per edge or tile of the whole map;
# - with shaped kinds (`set_shapes`, ecsphys/geometry/tile_shapes.pyx) a grid unit is an edge
#   where the tile on one side covers it whole and the other none of it (the tiles' side
#   masks in `solid`); every other piece of the outline (a slope, a half tile's top, the part
#   of a side a half tile leaves open) is an *extra* edge, kept by `extras`
#   (ecsphys/geometry/tile_extras.pyx) in its slots after the main room and listed per tile
#   for `near_next`, which reads them after a tile's four sides. A change to a shaped tile or
#   a neighbour of one is marked for it (`_mark`) and taken after the grid lines' update,
#   around the changed tiles only; one that changes only squares away from shaped tiles
#   costs what it did. With extra edges but no main edge left, the main slots copy an extra
#   edge and the map is laid out again at its next change.
#
# Data (laid out so that one change reads and writes few cache lines: the map's arrays are far
# larger than the caches, and an update is a handful of scattered reads otherwise each
# waiting for memory): `solid` holds a byte per tile with a ring of empty tiles around, rows
# from the bottom (`_solid(up, col)`, up and col from -1); the index is the unit index of
# shape_data.pxd in the store's `cells` (`units`): per grid point (up, col), up 0 .. rows
# and col 0 .. cols, two entries, the slot of the edge over the unit to its right (unit col
# of horizontal grid line up) and over the unit above it (unit up of vertical line col), -1
# for none, so a tile's four sides are its own point's two and the bottom of the point
# above and the left of the one to the right, and changing an edge writes the entries of
# the units it covers and nothing else; `srec` is each slot's edge as one int64
# record (`_rec`: its grid line and group, where it starts and ends, and COPY for a slot
# that copies the live edge of that record), whose order key (`rec_key`, the record less
# its ends: line, group, start) never decreases along the slots; between two live edges
# the copies of the left one come first. An update changes records only; the leaves of the
# slots whose record changed are written last, each once, from its record (their lines asked
# for at once first). The big arrays sit on huge pages where the system has them (Linux),
# so the update's reads are not each held up by a page-table walk.

cimport cython
from libc.math cimport fabs, llround, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free
from libc.string cimport memset

import numpy as np

from ..state.int_sort cimport sort_ints
from ..state.tile_log cimport TileLog
from .tile_extras cimport TileExtras
from .tile_shapes cimport (
    ANY_B, ANY_L, ANY_R, ANY_T, FULL_B, FULL_L, FULL_R, FULL_T, SQUARE_MASK, TileShapes,
    grow_block, write_segment,
)

cdef extern from *:
    """
    #include <stdlib.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* Memory for one of a map's big arrays: on Linux, a block of whole 2 MB pages the kernel
       is asked to back with huge pages (freed with free()); elsewhere, or below 1 MB,
       plain malloc. */
    static void* ecsphys_big_alloc(size_t size) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (size >= ((size_t) 1 << 20)) {
            void* p = NULL;
            size_t huge = ((size_t) 1 << 21);
            size = (size + huge - 1) & ~(huge - 1);
            if (posix_memalign(&p, huge, size) != 0) return NULL;
            madvise(p, size, MADV_HUGEPAGE);
            return p;
        }
    #endif
        return malloc(size ? size : 1);
    }
    #if defined(__GNUC__) || defined(__clang__)
    #define ECSPHYS_PREFETCH(p) __builtin_prefetch((const void*) (p), 1, 3)
    #else
    #define ECSPHYS_PREFETCH(p) ((void) 0)
    #endif
    """
    void* big_alloc "ecsphys_big_alloc" (size_t size) noexcept nogil
    void prefetch "ECSPHYS_PREFETCH" (const void* p) noexcept nogil

# the leaf layout of shape_data.pxd (not cimported: shape_data imports the store, which
# imports this module)
cdef enum:
    SEGMENT = 3
    LI_STRIDE = 5
    LF_STRIDE = 9
    LI_V0 = 3
    LI_F0 = 4
    LF_BOUNDS = 5   # a leaf's bounds (x0, y0, x1, y1) from here in its floats

cdef enum:
    SHIFT_REACH = 32     # a new edge with no free slot beside it moves at most this many
    WINDOW = 64          # else the slots around it are spread again, this many at first
    SMALL_ROOM = 256     # a room this small is never laid out again for being too empty
    UNIT_BITS = 14       # a changed unit: its grid line above these bits (sides <= 16384)
    UNIT_MASK = (1 << 14) - 1
    PLACED = -2          # a new edge's hint once it took the slot of one that went

# an edge record (int64): COPY | end << 1 | start << 16 | (line * 2 + group) << 31; the
# group is 0 for the edges of a line that open up / left, 1 for those that open down / right
cdef enum:
    COPY = 1
    REC_UNIT = 0x7FFF    # start and end: 15 bits (sides <= 16384)


cdef struct Buf:
    # a growable array of int32
    int32_t* p
    Py_ssize_t n
    Py_ssize_t cap


cdef struct Buf64:
    # a growable array of int64 (edge records)
    int64_t* p
    Py_ssize_t n
    Py_ssize_t cap


cdef inline bint push(Buf* b, int32_t v) noexcept nogil:
    if b.n == b.cap and not _grow(b):
        return False
    b.p[b.n] = v
    b.n += 1
    return True


cdef inline bint _grow(Buf* b) noexcept nogil:
    return grow_block(<void**> &b.p, &b.cap, sizeof(int32_t), 64)


cdef inline bint push64(Buf64* b, int64_t v) noexcept nogil:
    if b.n == b.cap and not _grow64(b):
        return False
    b.p[b.n] = v
    b.n += 1
    return True


cdef inline bint _grow64(Buf64* b) noexcept nogil:
    return grow_block(<void**> &b.p, &b.cap, sizeof(int64_t), 64)


cdef inline int64_t _rec(int line, int group, int a, int b) noexcept nogil:
    """The record of the edge over units a .. b of a grid line (of its ``group``)."""
    return ((<int64_t> (line * 2 + group) << 31) | (<int64_t> a << 16) | (<int64_t> b << 1))


cdef inline int64_t rec_key(int64_t r) noexcept nogil:
    """The order of an edge in a fresh layout: its grid line, its group on the line, where
    it starts (a copy's: the edge's it copies)."""
    return r >> 16


cdef inline int rec_line(int64_t r) noexcept nogil:
    return <int> (r >> 32)


cdef inline int rec_group(int64_t r) noexcept nogil:
    return <int> ((r >> 31) & 1)


cdef inline int rec_start(int64_t r) noexcept nogil:
    return <int> ((r >> 16) & REC_UNIT)


cdef inline int rec_end(int64_t r) noexcept nogil:
    return <int> ((r >> 1) & REC_UNIT)


cdef inline int64_t edge_hash(const int32_t* e) noexcept nogil:
    """The leaf's hash from the edge's grid numbers (wrapping as int64 arithmetic does)."""
    cdef uint64_t m = 1000003
    cdef uint64_t h = ((((<uint64_t> <int64_t> e[0]) * m + <uint64_t> <int64_t> e[1]) * m
                        + <uint64_t> <int64_t> e[2]) * m + <uint64_t> <int64_t> e[3])
    return <int64_t> (h * 4 + <uint64_t> <int64_t> e[4])


cdef inline bint _fits(Py_ssize_t live, Py_ssize_t room) noexcept nogil:
    return live <= room - room // 8 - 1 and not (room > SMALL_ROOM and live * 8 < room)


cdef inline Py_ssize_t _index_size(Py_ssize_t rows, Py_ssize_t cols) noexcept nogil:
    return rows * cols + 2 * (rows + 1) * (cols + 1)


def index_size(Py_ssize_t rows, Py_ssize_t cols) -> int:
    """How many ``cells`` entries a ``rows`` x ``cols`` map's index takes: a kind per tile,
    then two unit entries per grid point (shape_data.pxd)."""
    return _index_size(rows, cols)


def room_fits(Py_ssize_t live, Py_ssize_t room) -> bool:
    """Whether ``live`` edges may stay in a room of ``room`` slots: they fill at most 7/8 of
    it (less one slot), and at least 1/8 of it if it has more than 256."""
    return _fits(live, room)


cdef inline bint _shaped(uint8_t mask) noexcept nogil:
    """A side mask of a shaped kind (neither empty nor a square)."""
    return mask != 0 and mask != SQUARE_MASK


@cython.final  # (its cdef methods are called directly, not through a table of pointers)
@cython.nonecheck(False)  # its nogil methods run on self, never None (debug builds)
cdef class TileEdges:
    """One tile map as one shape store holds it (see the module comment)."""

    cdef readonly int rows, cols
    #: how many slots the map's leaves have, and how many hold a live edge
    cdef readonly int room, live
    #: the tiles' version this copy shows, and the most changes it takes one by one
    cdef public Py_ssize_t version, limit
    #: ``(first, count, 0)``: the map's leaf range as the store hands it out
    cdef readonly object found
    #: diagnostics: edges moved a slot to make room, windows of slots spread again
    cdef readonly long moved, spread
    cdef Py_ssize_t n
    cdef int nlines
    cdef int w               # cells a row of the padded grid (cols + 2)
    cdef uint8_t* solid      # per tile of the padded grid: solid
    cdef int64_t* srec       # per slot: its edge record
    cdef Buf lines           # the changed units: line << UNIT_BITS | unit
    cdef Buf64 pending       # edge records (a fresh layout's, or an update's new ones)
    cdef Buf gone            # slots of the edges an update removes
    cdef Buf64 gone_rec      # and their records (their units are let go last)
    cdef Buf hints           # per new edge of an update, a slot near where it goes
    cdef Buf scratch
    cdef Buf64 window        # the edges of a window of slots spread again
    cdef Buf wslots          # slots whose record changed: their leaves are written last
    cdef bint deferred       # (an update defers the leaves' writes; a layout writes all)
    cdef bint oom
    cdef bint detached       # let go by its store: take answers None
    cdef bint stale          # take answered None: it does until the map is laid out again
    # the store's arrays (taken again when its version changes) and the map's place there
    cdef long store_version
    cdef object arrays
    cdef int* li
    cdef double* lf
    cdef int64_t* lh
    cdef double* verts
    cdef double* faces
    cdef int* cells
    cdef readonly int first
    cdef int v0, f0          # slot 0's vertices and faces (slot s: v0 + 2 s, f0 + 4 s)
    #: where the map's tile kinds and unit index start in the store's ``cells``
    cdef readonly int kinds
    cdef int index
    cdef int32_t* units      # the unit index: cells + index (taken again with the arrays)
    # shaped kinds (None: every kind a square) and the map's extra edges (tile_extras.pyx,
    # in its slots after the main room's)
    cdef TileShapes shapes
    cdef readonly TileExtras extras
    cdef bint borrowed       # no main edge: the main slots hold copies of an extra
    cdef double size
    cdef double ox
    cdef double oy

    def __cinit__(self, int rows, int cols):
        if rows < 1 or cols < 1:
            raise ValueError(f"TileEdges needs rows and cols >= 1, got {rows} x {cols}")
        self.rows = rows
        self.cols = cols
        self.n = <Py_ssize_t> rows * cols
        self.nlines = rows + cols + 2
        self.w = cols + 2
        self.store_version = -1
        self.solid = <uint8_t*> big_alloc(<size_t> (rows + 2) * (cols + 2))
        if self.solid == NULL:
            raise MemoryError(f"TileEdges: no memory for a {rows} x {cols} map")
        memset(self.solid, 0, <size_t> (rows + 2) * (cols + 2))

    def __dealloc__(self):
        free(self.solid)
        free(self.srec)
        free(self.lines.p)
        free(self.pending.p)
        free(self.gone.p)
        free(self.gone_rec.p)
        free(self.hints.p)
        free(self.scratch.p)
        free(self.window.p)
        free(self.wslots.p)

    @property
    def count(self) -> int:
        """The map's leaf count as the store gives it: every slot while an edge is live
        (the copies between them included, and the extra edges' room while one is), none
        when no edge is."""
        return self._count()

    cdef inline int _count(self) noexcept:
        if self.extras is not None and self.extras.xlive > 0:
            return self.room + self.extras.xroom
        return self.room if self.live > 0 else 0

    cdef inline int _xroom(self) noexcept:
        return self.extras.xroom if self.extras is not None else 0

    def set_shapes(self, TileShapes shapes) -> None:
        """The map's shaped kinds (before ``count_edges``; None: squares only); its extra
        edges are `extras` (placed with ``extras.place`` before ``lay_out``)."""
        if shapes is not self.shapes:
            self.shapes = shapes
            self.extras = None if shapes is None else TileExtras(shapes, self.rows, self.cols)

    # ------------------------------------------------------------ the def layer

    def count_edges(self, const int[:, ::1] grid) -> int:
        """Take the solid tiles of ``grid`` (kinds, row 0 on top) and merge every grid line
        again; returns how many edges there are (for ``lay_out``)."""
        self._check_grid(grid)
        self._take_solid(grid)
        self.pending.n = 0
        cdef int line
        with nogil:
            for line in range(self.nlines):
                self._merge(line, &self.pending)
        self._raise_oom()
        if self.shapes is not None:
            self._extras_of_grid(grid)
        return <int> self.pending.n

    def lay_out(self, store, const int[:, ::1] grid, int first, int room, int cells_at,
                double size, double ox, double oy) -> None:
        """Write the edges ``count_edges`` merged into slots ``first .. first + room`` of the
        store and the index into its ``cells`` from ``cells_at`` (``index_size(rows, cols)``
        entries: the kinds, then the unit index); the slots' vertex and face rooms must be set,
        each slot's right after the one before (2 vertices and 4 faces a slot: ValueError if
        not). It writes what every slot's leaf shares once; an update writes the rest."""
        cdef Py_ssize_t edges = self.pending.n
        if room < edges or room < 1:
            raise ValueError(f"TileEdges.lay_out: {edges} edges do not fit {room} slots")
        self._check_grid(grid)
        if room != self.room or self.srec == NULL:
            free(self.srec)
            self.srec = NULL
            self.room = 0
            self.srec = <int64_t*> big_alloc(<size_t> room * sizeof(int64_t))
            if self.srec == NULL:
                raise MemoryError("TileEdges: no memory for the slots")
        self.room = room
        self.first = first
        self.kinds = cells_at
        self.index = cells_at + <int> self.n
        self.size = size
        self.ox = ox
        self.oy = oy
        self._bind(store, True)
        cdef int* li = self.li + first * LI_STRIDE
        self.v0 = li[LI_V0]
        self.f0 = li[LI_F0]
        cdef int slots = room + self._xroom()
        if (li[(slots - 1) * LI_STRIDE + LI_V0] != self.v0 + 2 * (slots - 1)
                or li[(slots - 1) * LI_STRIDE + LI_F0] != self.f0 + 4 * (slots - 1)):
            raise ValueError("TileEdges.lay_out: the slots' vertex and face rooms must follow "
                             "each other (2 vertices and 4 faces a slot)")
        cdef int s
        for s in range(slots):  # what every slot's leaf shares: a segment, no circle or box
            li[s * LI_STRIDE] = SEGMENT
            li[s * LI_STRIDE + 1] = 2
            li[s * LI_STRIDE + 2] = 4
            memset(self.lf + (first + s) * LF_STRIDE, 0, LF_BOUNDS * sizeof(double))
        self._write_kinds(grid)
        with nogil:
            self._lay_slots()
        self.pending.n = 0
        self._raise_oom()
        self.borrowed = False
        if self.extras is not None:
            self._bind_extras()
            if not self.extras.lay_out():
                raise ValueError("TileEdges.lay_out: the extra edges do not fit their room")
            self._borrow()
        self.stale = False
        self.found = (first, self._count(), 0)

    def take(self, store, TileLog tiles not None):
        """The map's ``found`` after taking the tiles ``tiles`` lists as changed since
        ``version``; None when the map must be laid out again (see the module comment)."""
        if self.detached or self.stale:
            return None
        if tiles.version == self.version:
            return self.found
        if self.room == 0:
            raise ValueError("TileEdges.take before lay_out")
        if tiles.rows != self.rows or tiles.cols != self.cols:
            raise ValueError(f"TileEdges: the tiles are {tiles.rows} x {tiles.cols}, the map "
                             f"{self.rows} x {self.cols}")
        if not (tiles.base <= self.version <= tiles.version
                and tiles.version - self.version <= self.limit):
            self.stale = True
            return None
        self._bind(store, False)
        self._mark(tiles, self.version - tiles.base, tiles.version - tiles.base)
        cdef bint fits = self._update()  # (short: the GIL is kept)
        self._raise_oom()
        if fits and self.extras is not None:
            if self.extras.pending():
                self._bind_extras()
                fits = self.extras.update(<const int32_t*> self.cells + self.kinds)
            if fits:
                self._borrow()
        if not fits or self.borrowed:  # (the changed tiles were taken in: only a new layout
            self.stale = True          # is right now)
            return None
        self.version = tiles.version
        cdef int count = self._count()
        if count != <int> self.found[1]:
            self.found = (self.first, count, 0)
        return self.found

    def detach(self) -> None:
        """Its store let it go (the store was cleared, or forgot the map): from now on
        `take` answers None and changes nothing."""
        self.detached = True

    cdef void _mark(self, TileLog tiles, Py_ssize_t start, Py_ssize_t end) except *:
        """Take the kinds of the tiles ``tiles.log[start:end]`` names; list the units of the
        grid lines around those whose solidity changed."""
        cdef Py_ssize_t k, row, col, u, i
        cdef int32_t kind
        cdef uint8_t sol
        cdef uint8_t* c
        cdef int32_t old
        for i in range(start, end):
            k = tiles.log[i]
            if not 0 <= k < self.n:
                raise IndexError(f"TileEdges: tile {k} outside the {self.rows} x {self.cols} "
                                 f"grid")
            row = k // self.cols
            col = k - row * self.cols
            kind = tiles.tiles[k]
            u = self.rows - 1 - row
            old = self.cells[self.kinds + u * self.cols + col]
            self.cells[self.kinds + u * self.cols + col] = kind
            c = self._solid(<int> u, <int> col)
            if self.shapes is None:
                sol = SQUARE_MASK if kind != 0 else 0
            else:
                sol = self.shapes.mask(kind)
                if (self.shapes.find(kind) >= 0 or self.shapes.find(old) >= 0
                        or _shaped((c - 1)[0]) or _shaped(c[1]) or _shaped((c - self.w)[0])
                        or _shaped(c[self.w])):
                    self.extras.mark(<int32_t> (u * self.cols + col))
            if c[0] != sol:  # its four sides: units of four grid lines
                c[0] = sol
                self._mark_unit(<int> u, <int> col)
                self._mark_unit(<int> u + 1, <int> col)
                self._mark_unit(self.rows + 1 + <int> col, <int> u)
                self._mark_unit(self.rows + 2 + <int> col, <int> u)

    cdef inline void _mark_unit(self, int line, int unit) noexcept:
        self.oom |= not push(&self.lines, (line << UNIT_BITS) | unit)

    cdef void _check_grid(self, const int[:, ::1] grid) except *:
        if grid.shape[0] != self.rows or grid.shape[1] != self.cols:
            raise ValueError(f"TileEdges: the grid is {grid.shape[0]} x {grid.shape[1]}, the "
                             f"map {self.rows} x {self.cols}")

    cdef void _raise_oom(self) except *:
        if self.oom:
            self.oom = False
            raise MemoryError("TileEdges: out of memory")

    cdef void _bind(self, store, bint always) except *:
        """Pointers into the store's arrays, taken again when they may have moved."""
        cdef long version = store.version
        if not always and version == self.store_version:
            return
        cdef int[:, ::1] li = store.leaf_i
        cdef double[:, ::1] lf = store.leaf_f
        cdef int64_t[::1] lh = store.leaf_h
        cdef double[:, ::1] verts = store.verts
        cdef double[:, ::1] faces = store.faces
        cdef int[::1] cells = store.cells
        if (li.shape[0] < self.first + self.room + self._xroom()
                or cells.shape[0] < self.kinds + _index_size(self.rows, self.cols)
                or li.shape[1] != LI_STRIDE or lf.shape[1] != LF_STRIDE):
            raise ValueError("TileEdges: the store's arrays do not hold the map's room")
        self.arrays = (store.leaf_i, store.leaf_f, store.leaf_h, store.verts, store.faces,
                       store.cells)
        self.li = &li[0, 0]
        self.lf = &lf[0, 0]
        self.lh = &lh[0]
        self.verts = &verts[0, 0]
        self.faces = &faces[0, 0]
        self.cells = &cells[0]
        self.units = <int32_t*> self.cells + self.index
        self.store_version = version

    cdef void _take_solid(self, const int[:, ::1] grid) noexcept:
        cdef int row, col
        cdef Py_ssize_t i
        memset(self.solid, 0, <size_t> (self.rows + 2) * self.w)
        for row in range(self.rows):
            for col in range(self.cols):
                self._solid(self.rows - 1 - row, col)[0] = (
                    SQUARE_MASK if grid[row, col] != 0 else 0) if self.shapes is None \
                    else self.shapes.mask(grid[row, col])

    cdef void _write_kinds(self, const int[:, ::1] grid) noexcept:
        cdef int row, col
        cdef int* kinds = self.cells + self.kinds
        for row in range(self.rows):
            for col in range(self.cols):
                kinds[(self.rows - 1 - row) * self.cols + col] = grid[row, col]

    # ------------------------------------------------------------ the extra edges

    cdef void _extras_of_grid(self, const int[:, ::1] grid) except *:
        """The shaped tiles of ``grid`` and the extra edges around them (for a layout)."""
        cdef int32_t[::1] flat = np.zeros(self.n, dtype=np.int32)
        cdef int32_t[::1] shaped = np.zeros(self.n + 1, dtype=np.int32)
        cdef Py_ssize_t m = 0
        cdef int row, col
        cdef int32_t k
        for row in range(self.rows - 1, -1, -1):  # (from the bottom: the tiles in order)
            for col in range(self.cols):
                k = grid[row, col]
                flat[(self.rows - 1 - row) * self.cols + col] = k
                if self.shapes.find(k) >= 0:
                    shaped[m] = <int32_t> ((self.rows - 1 - row) * self.cols + col)
                    m += 1
        self.extras.prepare(&flat[0], &shaped[0], m)
        if self.extras.oom:
            raise MemoryError("TileEdges: out of memory")

    cdef void _bind_extras(self) noexcept:
        self.extras.bind(self.cells, self.lf, self.verts, self.faces, self.lh, self.first,
                         self.room, self.v0, self.f0, self.size, self.ox, self.oy)

    cdef void _borrow(self) noexcept:
        """With extra edges but no main edge, the main slots copy an extra one (and the map
        is laid out again at its next change)."""
        cdef int s
        if self.live == 0 and self.extras.xlive > 0:
            for s in range(self.room):
                self.extras.write_copy(s)
            self.borrowed = True

    # ------------------------------------------------------------ cells and tiles

    cdef inline uint8_t* _solid(self, int up, int col) noexcept nogil:
        """Whether tile (up, col) is solid, rows from the bottom; up and col from -1 (the
        ring)."""
        return self.solid + (up + 1) * self.w + col + 1

    cdef inline int32_t* _unit(self, int line, int p) noexcept nogil:
        """The index entry of unit p of a grid line: the slot of the edge over it."""
        if line <= self.rows:
            return self.units + 2 * (line * (self.cols + 1) + p)
        return self.units + 2 * (p * (self.cols + 1) + line - self.rows - 1) + 1

    # ------------------------------------------------------------ merging a grid line

    cdef void _merge(self, int line, Buf64* out) noexcept nogil:
        """The merged edges of a grid line, in the order of a fresh layout, onto ``out``:
        horizontal line y (0 .. rows) then vertical line x at ``rows + 1 + x``."""
        cdef int length = self.cols if line <= self.rows else self.rows
        cdef int st, a, i
        for st in range(1, 3):
            i = 0
            while i < length:
                if self._status(line, i) != st:
                    i += 1
                    continue
                a = i
                while i < length and self._status(line, i) == st:
                    i += 1
                self._push_run(out, line, a, i, st)

    cdef inline void _push_run(self, Buf64* out, int line, int a, int b, int st) noexcept nogil:
        """The edge over units a .. b of a grid line whose units have status ``st``."""
        self.oom |= not push64(out, _rec(line, st - 1, a, b))

    cdef inline void _edge(self, int64_t r, int32_t* e) noexcept nogil:
        """Record ``r`` as the edge's grid numbers (x0, y0, x1, y1, facing: 0 up, 1 down,
        2 left, 3 right), y up from the bottom of the map."""
        cdef int line = rec_line(r), g = rec_group(r), a = rec_start(r), b = rec_end(r)
        if line <= self.rows:
            e[0] = a
            e[1] = line
            e[2] = b
            e[3] = line
            e[4] = g
        else:
            e[0] = line - self.rows - 1
            e[1] = a
            e[2] = line - self.rows - 1
            e[3] = b
            e[4] = 2 + g

    # ------------------------------------------------------------ leaves

    cdef void _write_leaf(self, int slot, int64_t r) noexcept nogil:
        """Slot ``slot`` holds the edge of record ``r``: a one-sided segment whose first face
        points to the open side (as shape_store wrote them from the edge array). What every
        slot's leaf shares (its kind and counts, no radius, centre or half extents) was
        written by ``lay_out`` and is not written again."""
        cdef int32_t e[5]
        self._edge(r, e)
        cdef int i = self.first + slot
        cdef double* lf = self.lf + i * LF_STRIDE
        cdef double* v = self.verts + 2 * (self.v0 + 2 * slot)
        cdef double* f = self.faces + 3 * (self.f0 + 4 * slot)
        cdef double ax = e[0] * self.size + self.ox
        cdef double ay = e[1] * self.size + self.oy
        cdef double bx = e[2] * self.size + self.ox
        cdef double by = e[3] * self.size + self.oy
        cdef double t
        if e[4] == 0 or e[4] == 2:  # up and left edges run backwards: right of a -> b is open
            t = ax
            ax = bx
            bx = t
            t = ay
            ay = by
            by = t
        # (one of dx, dy is 0.0: the sum of their sizes is exactly hypot(dx, dy))
        write_segment(lf, v, f, ax, ay, bx, by, fabs(bx - ax) + fabs(by - ay))
        self.lh[i] = edge_hash(e)

    cdef inline void _leaf_changed(self, int s) noexcept nogil:
        """Slot ``s`` holds another record: its leaf is written from it at the end of the
        update (a leaf is a function of the record alone, a copy's of the edge it copies)."""
        if self.deferred:
            self.oom |= not push(&self.wslots, s)

    cdef void _prefetch_leaves(self) noexcept nogil:
        """Ask the memory for the leaves to write, all at once, with write intent (written
        one after another, each would wait for its lines)."""
        cdef Py_ssize_t i
        cdef int s
        for i in range(self.wslots.n):
            s = self.wslots.p[i]
            prefetch(self.lf + (self.first + s) * LF_STRIDE + LF_BOUNDS)
            prefetch(self.lf + (self.first + s) * LF_STRIDE + LF_STRIDE - 1)
            prefetch(self.lh + self.first + s)
            prefetch(self.verts + 2 * (self.v0 + 2 * s))
            prefetch(self.faces + 3 * (self.f0 + 4 * s))
            prefetch(self.faces + 3 * (self.f0 + 4 * s) + 11)

    cdef void _write_leaves(self) noexcept nogil:
        """The leaves of the slots whose record changed, each once, from its record (none
        while no edge is live: the range is empty and its leaves are never read)."""
        cdef Py_ssize_t i
        cdef int s, last = -1
        if self.live > 0:
            sort_ints(self.wslots.p, self.wslots.n)
            for i in range(self.wslots.n):
                s = self.wslots.p[i]
                if s != last:
                    self._write_leaf(s, self.srec[s])
                    last = s
        self.wslots.n = 0

    cdef void _point(self, int64_t r, int32_t slot) noexcept nogil:
        """The units of the edge of record ``r`` name ``slot`` (-1: no edge)."""
        cdef int line = rec_line(r), a = rec_start(r), b = rec_end(r), p
        cdef int32_t* u = self._unit(line, a)
        cdef int step = 2 if line <= self.rows else 2 * (self.cols + 1)
        for p in range(a, b):
            u[0] = slot
            u += step

    cdef inline bint _alive(self, int s) noexcept nogil:
        return not self.srec[s] & COPY

    cdef inline int64_t _key(self, int s) noexcept nogil:
        return rec_key(self.srec[s])

    cdef void _set_live(self, int s, int64_t r) noexcept nogil:
        self.srec[s] = r
        self._leaf_changed(s)
        self._point(r, s)

    cdef void _set_copy(self, int s, int src) noexcept nogil:
        """Dead slot ``s`` copies live slot ``src``."""
        self.srec[s] = self.srec[src] | COPY
        self._leaf_changed(s)

    cdef void _move(self, int dst, int src) noexcept nogil:
        """The live edge of slot ``src`` to the free slot ``dst`` (``src`` left free)."""
        self.moved += 1
        self.srec[dst] = self.srec[src]
        self._leaf_changed(dst)
        self._point(self.srec[dst], dst)
        self.srec[src] |= COPY

    # ------------------------------------------------------------ slots

    cdef void _lay_slots(self) noexcept nogil:
        """The pending edges spread over the room (the first in slot 0), each free slot a
        copy of the live edge before it."""
        cdef Py_ssize_t edges = self.pending.n, i
        cdef int s, last = -1
        self.deferred = False
        self.wslots.n = 0
        for i in range(2 * <Py_ssize_t> (self.rows + 1) * (self.cols + 1)):
            self.units[i] = -1
        for s in range(self.room):
            self.srec[s] = COPY
        for i in range(edges):
            s = <int> ((i * self.room) // edges)
            self._set_live(s, self.pending.p[i])
        self.live = <int> edges
        for s in range(self.room):
            if self._alive(s):
                last = s
            elif last >= 0:
                self._set_copy(s, last)
        if edges > 0:
            for s in range(self.room):
                self._write_leaf(s, self.srec[s])
        self.deferred = True

    cdef int _lower_bound(self, int64_t key, int hint) noexcept nogil:
        """The first slot whose key is not below ``key``, searched from slot ``hint`` (-1: no
        hint) outwards by doubling steps, then by halving."""
        cdef int lo = 0, hi = self.room, mid, probe, step = 1
        if 0 <= hint < self.room:
            if self._key(hint) < key:  # every slot up to lo - 1 is below key
                lo = hint + 1
                probe = hint + 1
                while probe < self.room and self._key(probe) < key:
                    lo = probe + 1
                    step *= 2
                    probe = hint + step
                hi = probe if probe < self.room else self.room
            else:  # every slot from hi on is not below key
                hi = hint
                probe = hint - 1
                while probe >= 0 and self._key(probe) >= key:
                    hi = probe
                    step *= 2
                    probe = hint - step
                lo = probe + 1 if probe >= 0 else 0
        while lo < hi:
            mid = (lo + hi) >> 1
            if self._key(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef void _remove(self, int x) noexcept nogil:
        """The live edge of slot ``x`` goes (its units already name no slot): its slot and
        its copies copy the live edges beside it (those before ``x`` the one before, the
        others the one after)."""
        cdef int64_t key = self._key(x)
        cdef int p = x - 1, q = x + 1, a = x, b = x, s
        self.srec[x] |= COPY
        self.live -= 1
        while p >= 0 and not self._alive(p):
            p -= 1
        while q < self.room and not self._alive(q):
            q += 1
        while a - 1 > p and self._key(a - 1) == key:
            a -= 1
        while b + 1 < q and self._key(b + 1) == key:
            b += 1
        if p < 0 and q >= self.room:
            return  # no live edge left: the copies are never read (the count is 0)
        for s in range(a, b + 1):
            if q >= self.room or (s < x and p >= 0):
                self._set_copy(s, p)
            else:
                self._set_copy(s, q)

    cdef void _insert(self, int64_t r, int hint) noexcept nogil:
        """A new live edge (record ``r``) in its place among the live ones (see the module
        comment), searched from slot ``hint``."""
        cdef int64_t key = rec_key(r)
        cdef int p = self._lower_bound(key, hint), s
        cdef int q = p, b = p - 1
        if self.live == 0:
            s = p if p < self.room else self.room - 1
            self._set_live(s, r)
            self.live = 1
            for b in range(self.room):
                if b != s:
                    self._set_copy(b, s)
            return
        while q < self.room and not self._alive(q):
            q += 1
        while b >= 0 and not self._alive(b):
            b -= 1
        if p < q:  # a free slot whose copies before it copy the edge before
            s = p
        elif q - 1 > b:  # every free slot between copies the edge before: take the last
            s = q - 1
        else:
            s = self._make_room(b, q, r, key)
            if s < 0:
                return
        self._set_live(s, r)
        self.live += 1

    cdef int _make_room(self, int b, int q, int64_t r, int64_t key) noexcept nogil:
        """No free slot between live slots ``b`` and ``q = b + 1`` (either may be beyond the
        room): move the edges up to the nearest free slot by one, or spread a window again
        with ``r`` in it (then -1)."""
        cdef int d, s, left = -1, right = -1
        d = b - 1
        while d >= 0 and b - d <= SHIFT_REACH:
            if not self._alive(d):
                left = d
                break
            d -= 1
        d = q + 1
        while d < self.room and d - q <= SHIFT_REACH:
            if not self._alive(d):
                right = d
                break
            d += 1
        if left >= 0 and (right < 0 or b - left <= right - q):
            for s in range(left + 1, b + 1):
                self._move(s - 1, s)
            return b
        if right >= 0:
            for s in range(right - 1, q - 1, -1):
                self._move(s + 1, s)
            return q
        self._spread(q if q < self.room else b, r, key)
        return -1

    cdef void _spread(self, int at, int64_t r, int64_t key) noexcept nogil:
        """Spread the live edges of a window around slot ``at``, and ``r``, evenly over it
        (the window grows until an eighth of it is free; it starts and ends next to a live
        edge or at the room's ends, so every copy in it or beside it is written again)."""
        cdef int half = WINDOW // 2, lo, hi, s, m, i, j, w, last
        cdef Buf64* tmp = &self.window
        cdef bint placed = False
        self.spread += 1
        while True:
            lo = at - half if at - half > 0 else 0
            hi = at + half if at + half < self.room else self.room
            while lo > 0 and not self._alive(lo - 1):
                lo -= 1
            while hi < self.room and not self._alive(hi):
                hi += 1
            m = 0
            for s in range(lo, hi):
                if self._alive(s):
                    m += 1
            if (hi - lo) - (m + 1) >= (hi - lo) // 8 + 1 or (lo == 0 and hi == self.room):
                break
            half *= 2
        tmp.n = 0
        for s in range(lo, hi):  # the window's edges and r, in order
            if not self._alive(s):
                continue
            if not placed and self._key(s) > key:
                self.oom |= not push64(tmp, r)
                placed = True
            self.oom |= not push64(tmp, self.srec[s])
            self.srec[s] |= COPY
        if not placed:
            self.oom |= not push64(tmp, r)
        if self.oom:
            return
        m += 1
        w = hi - lo
        last = lo
        for i in range(m):  # the first at lo; each free slot copies the live one before it
            s = lo + <int> ((<int64_t> i * w) // m)
            for j in range(last + 1, s):
                self._set_copy(j, last)
            self._set_live(s, tmp.p[i])
            last = s
        for j in range(last + 1, hi):
            self._set_copy(j, last)
        self.live += 1

    # ------------------------------------------------------------ an update

    cdef bint _update(self) noexcept nogil:
        """Take the changed units of the listed grid lines (see ``take``)."""
        cdef Py_ssize_t i = 0, j, removed, added
        cdef int line
        self.pending.n = 0
        self.gone.n = 0
        self.gone_rec.n = 0
        self.hints.n = 0
        sort_ints(self.lines.p, self.lines.n)
        while i < self.lines.n and not self.oom:
            line = self.lines.p[i] >> UNIT_BITS
            j = i
            while j < self.lines.n and self.lines.p[j] >> UNIT_BITS == line:
                j += 1
            if j - i == 1:
                self._diff_unit(line, self.lines.p[i] & UNIT_MASK)
            else:
                self._diff_line(line, self.lines.p + i, j - i)
            i = j
        self.lines.n = 0
        if self.oom:
            return True
        removed = self.gone.n
        added = self.pending.n
        if not _fits(self.live - removed + added, self.room):
            return False
        for i in range(added):  # a new edge that sorts where one that goes is takes its slot
            self._replace(self.pending.p[i], &self.hints.p[i])
        for i in range(removed):
            if self.gone.p[i] >= 0:
                self._remove(self.gone.p[i])
        for i in range(added):
            if self.hints.p[i] != PLACED:
                self._insert(self.pending.p[i], self.hints.p[i])
        for i in range(removed):  # last, the units of the edges that went and no edge took
            self._let_go(self.gone_rec.p[i])
        self.pending.n = 0
        self._prefetch_leaves()
        self._write_leaves()
        return True

    cdef void _let_go(self, int64_t r) noexcept nogil:
        """The units of the edge of record ``r`` (gone) that still name its slot and that
        the slot's edge now does not cover name no slot; units another edge took keep it."""
        cdef int line = rec_line(r), a = rec_start(r), b = rec_end(r), p, s
        cdef int32_t* unit
        for p in range(a, b):
            unit = self._unit(line, p)
            s = unit[0]
            if s < 0 or (self._alive(s) and self._covers(self.srec[s], line, p)):
                continue
            unit[0] = -1

    cdef inline bint _covers(self, int64_t r, int line, int p) noexcept nogil:
        return rec_line(r) == line and rec_start(r) <= p < rec_end(r)

    cdef void _replace(self, int64_t r, int32_t* hint) noexcept nogil:
        """If the new edge of record ``r`` sorts between the live edges beside one that goes
        (a slot of ``gone``), it takes that slot and its copies (the slot leaves ``gone``;
        ``hint`` is set to PLACED): no slot is searched for, none moves, no copy is written
        twice."""
        cdef int64_t key = rec_key(r), old
        cdef Py_ssize_t j
        cdef int x, p, q, a, b, s
        for j in range(self.gone.n):
            x = self.gone.p[j]
            if x < 0:
                continue
            p = x - 1
            while p >= 0 and not self._alive(p):
                p -= 1
            q = x + 1
            while q < self.room and not self._alive(q):
                q += 1
            if (p >= 0 and self._key(p) >= key) or (q < self.room and self._key(q) <= key):
                continue
            old = self._key(x)
            a = x
            while a - 1 > p and self._key(a - 1) == old:
                a -= 1
            b = x
            while b + 1 < q and self._key(b + 1) == old:
                b += 1
            self._set_live(x, r)
            for s in range(a, b + 1):
                if s != x:
                    self._set_copy(s, x)
            self.gone.p[j] = -1
            hint[0] = PLACED
            return

    cdef inline int _status(self, int line, int p) noexcept nogil:
        """Unit p of a grid line: 0 no edge, 1 an edge of the line's first group (open up /
        left), 2 of its second (open down / right): where the tile on one side covers the
        whole unit and the one on the other side none of it (side masks, tile_shapes.pxd;
        a square covers its every side)."""
        cdef uint8_t a, b
        cdef const uint8_t* c
        if line <= self.rows:
            c = self._solid(line, p)
            a = (c - self.w)[0]  # below
            b = c[0]  # above
            if a & FULL_T and not b & ANY_B:
                return 1
            return 2 if b & FULL_B and not a & ANY_T else 0
        c = self._solid(p, line - self.rows - 1)
        b = (c - 1)[0]  # left
        a = c[0]  # right
        if a & FULL_L and not b & ANY_R:
            return 1
        return 2 if b & FULL_R and not a & ANY_L else 0

    cdef void _diff_unit(self, int line, int u) noexcept nogil:
        """`_diff_line` for a line with one changed unit ``u`` (the common case: one tile
        dug or built): the edges over u - 1 .. u + 1 after the change, their ends read from
        the records of the edges there before (units other than u kept their status, so an
        edge over u - 1 or u + 1 still starts or ends where it did), with no walk along the
        line."""
        cdef int length = self.cols if line <= self.rows else self.rows
        cdef Buf* old = &self.scratch
        cdef Py_ssize_t start = self.pending.n
        cdef int i, p, a, b
        cdef int slot[3]
        cdef int st[3]
        old.n = 0
        for i in range(3):
            p = u - 1 + i
            if 0 <= p < length:
                slot[i] = self._unit(line, p)[0]
                st[i] = self._status(line, p)
            else:
                slot[i] = -1
                st[i] = 0
            if slot[i] >= 0 and (old.n == 0 or old.p[old.n - 1] != slot[i]):
                self.oom |= not push(old, slot[i])
        # (an edge over u - 1 or u + 1 now had one there before, of the same status)
        if st[0] != 0 and slot[0] >= 0:  # the edge over u - 1: to u, or on through u
            a = rec_start(self.srec[slot[0]])
            if st[1] != st[0]:
                b = u
            elif st[2] == st[0] and slot[2] >= 0:
                b = rec_end(self.srec[slot[2]])
            else:
                b = u + 1
            self._push_run(&self.pending, line, a, b, st[0])
        if st[1] != 0 and st[1] != st[0]:  # an edge that starts at u
            b = rec_end(self.srec[slot[2]]) if st[2] == st[1] and slot[2] >= 0 else u + 1
            self._push_run(&self.pending, line, u, b, st[1])
        if st[2] != 0 and st[2] != st[1] and slot[2] >= 0:  # one that starts at u + 1
            self._push_run(&self.pending, line, u + 1, rec_end(self.srec[slot[2]]), st[2])
        if self.oom:
            return
        self._match(line, length, start)

    cdef void _diff_line(self, int line, const int32_t* units, Py_ssize_t m) noexcept nogil:
        """The edges of a grid line that go (slots onto ``gone``) and come (onto ``pending``)
        where its units ``units`` (sorted, low bits) changed: the edges over those units and
        their neighbours, before and after, compared (every other edge stays)."""
        cdef bint h = line <= self.rows
        cdef int length = self.cols if h else self.rows
        cdef Buf* old = &self.scratch
        cdef Py_ssize_t i, start = self.pending.n
        cdef int u, p, q, st, last_p = -2, end = -1, last_st = 0, s
        old.n = 0
        for i in range(m):
            u = units[i] & UNIT_MASK
            for p in range(u - 1, u + 2):
                if p < 0 or p >= length or p <= last_p:
                    continue
                last_p = p
                s = self._unit(line, p)[0]
                if s >= 0 and (old.n == 0 or old.p[old.n - 1] != s):
                    self.oom |= not push(old, s)
                st = self._status(line, p)
                if st == 0 or (st == last_st and p < end):
                    continue
                q = p
                while q > 0 and self._status(line, q - 1) == st:
                    q -= 1
                end = p + 1
                while end < length and self._status(line, end) == st:
                    end += 1
                last_st = st
                self._push_run(&self.pending, line, q, end, st)
        if self.oom:
            return
        self._match(line, length, start)

    cdef void _match(self, int line, int length, Py_ssize_t start) noexcept nogil:
        """The diff of a line's edges near its changed units: the old ones (slots in
        ``scratch``) against the merged ones (``pending`` from ``start``), each group in
        order of where its edges start: in one list only, an edge goes (onto ``gone``) or
        comes (kept in ``pending``, with a hint); in both, it stays."""
        cdef Buf* old = &self.scratch
        cdef Py_ssize_t a, b
        cdef int parity
        cdef int64_t r
        for parity in range(2):
            a = 0
            b = start
            while True:
                while a < old.n and rec_group(self.srec[old.p[a]]) != parity:
                    a += 1
                while b < self.pending.n and (self.pending.p[b] < 0
                                              or rec_group(self.pending.p[b]) != parity):
                    b += 1
                if a >= old.n and b >= self.pending.n:
                    break
                if a < old.n and b < self.pending.n and self.srec[old.p[a]] == \
                        self.pending.p[b]:
                    self.pending.p[b] = -1  # stays: not a new edge
                    a += 1
                    b += 1
                elif b >= self.pending.n or (a < old.n and self._key(old.p[a]) <= rec_key(
                        self.pending.p[b])):
                    self.oom |= not (push(&self.gone, old.p[a])
                                     and push64(&self.gone_rec, self.srec[old.p[a]]))
                    a += 1
                else:
                    b += 1
        b = start  # keep the new edges only, each with a slot near its place
        for a in range(start, self.pending.n):
            r = self.pending.p[a]
            if r >= 0:
                self.pending.p[b] = r
                b += 1
                self.oom |= not push(&self.hints, self._hint(r, old, line, length))
        self.pending.n = b

    cdef int _hint(self, int64_t r, const Buf* old, int line, int length) noexcept nogil:
        """A slot near where the new edge of record ``r`` goes, to search from: an edge of its
        group among the line's old ones (``old``), else any of them, else the edge nearest
        its start along the line (edges of one line sort together, each group by where it
        starts); -1 if the line has none near."""
        cdef Py_ssize_t i
        cdef int d, p, s, u = rec_start(r), g = rec_group(r)
        for i in range(old.n):
            if rec_group(self.srec[old.p[i]]) == g:
                return old.p[i]
        if old.n:
            return old.p[0]
        for d in range(SHIFT_REACH):
            p = u - d
            if 0 <= p < length:
                s = self._unit(line, p)[0]
                if s >= 0:
                    return s
            p = u + d
            if 0 <= p < length:
                s = self._unit(line, p)[0]
                if s >= 0:
                    return s
        return -1
