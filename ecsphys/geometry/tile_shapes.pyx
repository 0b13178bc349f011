# Shaped tile kinds: what a slope or a half tile adds to a tile map's outline (compiled).
#
# Guarantees:
# - `TileShapes(kinds, points, counts)` holds each shaped kind's convex polygon (counter-
#   clockwise, tile units: (0, 0) the tile's bottom-left corner, y up; checked by
#   ecsphys/tilemap.py before) and, per side of its square, the stretch it covers: `mask(kind)`
#   is its side mask (tile_shapes.pxd: FULL / ANY bits; 0 for kind 0, SQUARE_MASK for a kind
#   without a shape), which TileEdges' grid lines read: a whole unit of a grid line is an edge
#   there where one side covers it fully and the other not at all;
# - `pieces` lists every other exposed piece of the outline around the shaped tiles it is
#   given (all of them, sorted): a shaped tile's edges inside its square, and the parts of
#   the sides on its grid lines that neither a whole-unit edge nor a neighbour covers (a half
#   tile's side, the part of a square's side above a half tile beside it), each once, with
#   the tile it belongs to and its open side on its right;
# - `merge_pieces` sorts the pieces by their line (normal and offset, rounded at 2**-30 of a
#   unit, so collinear pieces of different tiles share one) and along it, and joins pieces of
#   one line that touch into one edge (no seam along a slope of many tiles); the order, and so
#   the edges, depend on the pieces alone, not on the order they came in.
#   Pieces on a grid line are not joined with the whole-unit edges TileEdges keeps there: a
#   wall above a half tile is two collinear edges.

cimport cython
from libc.math cimport fabs, llround, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc, qsort

import numpy as np

#: The most points a kind's polygon may have (tile_shapes.pxd's MAX_SHAPE_POINTS), for the
#: Python side to check against limits.MAX_TILE_SHAPE_POINTS (tests/test_tile_shapes.py)
SHAPE_POINTS = MAX_SHAPE_POINTS

cdef double EPS = 1e-9    # (tile units) a stretch shorter than this is a point
cdef double KEY = 1073741824.0  # 2**30: the rounding of a line's key


cdef bint _emit(PieceBuf* out, double ax, double ay, double bx, double by,
                int32_t tile) noexcept nogil:
    """The piece a -> b (open on its right) of tile ``tile``."""
    cdef Piece q
    cdef double dx = bx - ax, dy = by - ay
    cdef double k = sqrt(dx * dx + dy * dy)
    if not k > EPS:
        return True
    dx /= k
    dy /= k
    q.x0, q.y0, q.x1, q.y1 = ax, ay, bx, by
    q.nx = dy
    q.ny = -dx
    q.t0 = dx * ax + dy * ay
    q.t1 = dx * bx + dy * by
    q.kx = llround(q.nx * KEY)
    q.ky = llround(q.ny * KEY)
    q.kc = llround((q.nx * ax + q.ny * ay) * KEY)
    q.tile = tile
    return piece_push(out, &q)


cdef bint _side(PieceBuf* out, int side, double lo, double hi, double u, double c,
                int32_t tile) noexcept nogil:
    """Stretch lo .. hi of a side of the square whose lower-left corner is (c, u), as the
    counter-clockwise outline runs it (bottom left to right, right upwards, top right to
    left, left downwards)."""
    if side == 0:
        return _emit(out, c + lo, u, c + hi, u, tile)
    if side == 1:
        return _emit(out, c + hi, u + 1, c + lo, u + 1, tile)
    if side == 2:
        return _emit(out, c, u + hi, c, u + lo, tile)
    return _emit(out, c + 1, u + lo, c + 1, u + hi, tile)


cdef bint _less(PieceBuf* out, int side, double lo, double hi, double nlo, double nhi,
                double u, double c, int32_t tile) noexcept nogil:
    """Stretch lo .. hi of a side less the stretch nlo .. nhi a neighbour covers there."""
    if not nhi - nlo > EPS:
        return _side(out, side, lo, hi, u, c, tile)
    if nlo - lo > EPS and not _side(out, side, lo, nlo if nlo < hi else hi, u, c, tile):
        return False
    if hi - nhi > EPS:
        return _side(out, side, nhi if nhi > lo else lo, hi, u, c, tile)
    return True


cdef int piece_order(const void* pa, const void* pb) noexcept nogil:
    """Pieces by line (key), then along it (tile_shapes.pxd: `line_order`), then by tile
    (qsort)."""
    cdef const Piece* a = <const Piece*> pa
    cdef const Piece* b = <const Piece*> pb
    cdef int c = line_order(a, b)
    if c != 0:
        return c
    if a.tile != b.tile:
        return -1 if a.tile < b.tile else 1
    return 0


cdef bint merge_pieces(PieceBuf* pieces, PieceBuf* edges, int32_t* owner) noexcept nogil:
    """Sort ``pieces`` (see the module comment) and join them into ``edges``; ``owner[i]`` is
    the edge of piece i. False when out of memory."""
    cdef Py_ssize_t i
    cdef Piece* q
    cdef Piece e
    edges.n = 0
    if pieces.n > 1:
        qsort(pieces.p, pieces.n, sizeof(Piece), piece_order)
    for i in range(pieces.n):
        q = pieces.p + i
        if (edges.n > 0 and same_line(&edges.p[edges.n - 1], q)
                and q.t0 <= edges.p[edges.n - 1].t1 + EPS):
            if q.t1 > edges.p[edges.n - 1].t1:  # it reaches further along the line
                edges.p[edges.n - 1].t1 = q.t1
                edges.p[edges.n - 1].x1 = q.x1
                edges.p[edges.n - 1].y1 = q.y1
        else:
            e = q[0]
            if not piece_push(edges, &e):
                return False
        owner[i] = <int32_t> (edges.n - 1)
    return True


cdef class TileShapes:
    """The shaped kinds of a tile map (see the module comment)."""

    def __cinit__(self, const int32_t[::1] kinds, const double[:, :, ::1] points,
                  const int32_t[::1] counts):
        cdef int n = <int> kinds.shape[0], i, j, side
        cdef double x, y, a
        if points.shape[0] != n or counts.shape[0] != n or points.shape[1] != MAX_SHAPE_POINTS \
                or points.shape[2] != 2:
            raise ValueError("TileShapes: kinds, points and counts do not match")
        for i in range(n):
            if i > 0 and kinds[i] <= kinds[i - 1]:
                raise ValueError("TileShapes: kinds must be sorted and distinct")
            if not 3 <= counts[i] <= MAX_SHAPE_POINTS:
                raise ValueError(f"TileShapes: kind {kinds[i]} has {counts[i]} points")
        self.nk = n
        self.kinds = <int32_t*> malloc((n + 1) * sizeof(int32_t))
        self.masks = <uint8_t*> malloc(n + 1)
        self.nv = <int*> malloc((n + 1) * sizeof(int))
        self.v = <double*> malloc((n + 1) * MAX_SHAPE_POINTS * 2 * sizeof(double))
        self.lo = <double*> malloc((n + 1) * 4 * sizeof(double))
        self.hi = <double*> malloc((n + 1) * 4 * sizeof(double))
        if (self.kinds == NULL or self.masks == NULL or self.nv == NULL or self.v == NULL
                or self.lo == NULL or self.hi == NULL):
            raise MemoryError("TileShapes: out of memory")
        for i in range(n):
            self.kinds[i] = kinds[i]
            self.nv[i] = counts[i]
            for side in range(4):
                self.lo[4 * i + side] = 2.0
                self.hi[4 * i + side] = -1.0
            for j in range(counts[i]):
                x = points[i, j, 0]
                y = points[i, j, 1]
                self.v[(i * MAX_SHAPE_POINTS + j) * 2] = x
                self.v[(i * MAX_SHAPE_POINTS + j) * 2 + 1] = y
                # the points on each side line: the stretch of that side it covers
                for side in range(4):
                    a = (x if side < 2 else y)
                    if fabs((y if side < 2 else x) - (0.0 if side % 2 == 0 else 1.0)) <= EPS:
                        if a < self.lo[4 * i + side]:
                            self.lo[4 * i + side] = a
                        if a > self.hi[4 * i + side]:
                            self.hi[4 * i + side] = a
            self.masks[i] = 0
            for side in range(4):
                if self.hi[4 * i + side] - self.lo[4 * i + side] > EPS:
                    self.masks[i] |= ANY_B << side
                    if self.lo[4 * i + side] <= EPS and self.hi[4 * i + side] >= 1.0 - EPS:
                        self.masks[i] |= FULL_B << side
                        self.lo[4 * i + side] = 0.0
                        self.hi[4 * i + side] = 1.0

    def __dealloc__(self):
        free(self.kinds)
        free(self.masks)
        free(self.nv)
        free(self.v)
        free(self.lo)
        free(self.hi)

    cdef int find(self, int32_t kind) noexcept nogil:
        """The index of a shaped kind, -1 for a kind without a shape."""
        cdef int lo = 0, hi = self.nk, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.kinds[mid] < kind:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < self.nk and self.kinds[lo] == kind else -1

    cdef uint8_t mask(self, int32_t kind) noexcept nogil:
        cdef int i
        if kind == 0:
            return 0
        i = self.find(kind)
        return SQUARE_MASK if i < 0 else self.masks[i]

    def side_mask(self, int kind) -> int:
        """The side mask of a kind (see tile_shapes.pxd)."""
        return self.mask(kind)

    cdef bint pieces(self, const int32_t* kinds, int rows, int cols, const int32_t* tiles,
                     Py_ssize_t nt, PieceBuf* out) noexcept nogil:
        """The pieces around shaped tiles ``tiles`` (up * cols + col, each once) of the map
        whose kinds (rows from the bottom) are ``kinds``, onto ``out``; False when out of
        memory."""
        cdef Py_ssize_t k
        cdef int t, u, c, i, j, n, side, nu, nc, ni, other
        cdef int32_t nkind
        cdef double ax, ay, bx, by, nlo, nhi
        cdef const double* v
        cdef uint8_t m
        for k in range(nt):
            t = tiles[k]
            u = t // cols
            c = t - u * cols
            i = self.find(kinds[t])
            if i < 0:
                continue
            v = self.v + i * MAX_SHAPE_POINTS * 2
            n = self.nv[i]
            for j in range(n):  # its edges inside the square
                ax, ay = v[2 * j], v[2 * j + 1]
                bx, by = v[2 * ((j + 1) % n)], v[2 * ((j + 1) % n) + 1]
                if ((fabs(ay) <= EPS and fabs(by) <= EPS) or (fabs(ay - 1) <= EPS
                        and fabs(by - 1) <= EPS) or (fabs(ax) <= EPS and fabs(bx) <= EPS)
                        or (fabs(ax - 1) <= EPS and fabs(bx - 1) <= EPS)):
                    continue  # on a side: below
                if not _emit(out, c + ax, u + ay, c + bx, u + by, t):
                    return False
            m = self.masks[i]
            for side in range(4):  # its sides, against the neighbour across each
                nu = u - 1 if side == 0 else (u + 1 if side == 1 else u)
                nc = c - 1 if side == 2 else (c + 1 if side == 3 else c)
                other = side ^ 1  # the neighbour's side on the same grid line
                nkind = 0
                if 0 <= nu < rows and 0 <= nc < cols:
                    nkind = kinds[nu * cols + nc]
                ni = self.find(nkind) if nkind != 0 else -1
                if nkind == 0:
                    nlo, nhi = 2.0, -1.0
                elif ni < 0:
                    nlo, nhi = 0.0, 1.0
                else:
                    nlo, nhi = self.lo[4 * ni + other], self.hi[4 * ni + other]
                if m & (ANY_B << side):
                    # (a full side against nothing is a whole-unit edge of TileEdges)
                    if not (m & (FULL_B << side) and not nhi - nlo > EPS):
                        if not _less(out, side, self.lo[4 * i + side], self.hi[4 * i + side],
                                     nlo, nhi, u, c, t):
                            return False
                    if nkind != 0 and ni < 0 and not m & (FULL_B << side):
                        # a square beside a partly covered side: the rest of its side
                        if not _less(out, other, 0.0, 1.0, self.lo[4 * i + side],
                                     self.hi[4 * i + side], nu, nc, nu * cols + nc):
                            return False
        return True

    def outline_pieces(self, const int32_t[:, ::1] grid):
        """The merged extra edges of a whole grid of kinds (row 0 on top), for TileMap.edges
        and the tests: ``(edges, tiles)``, edges an (E, 6) float array ``(x0, y0, x1, y1, nx,
        ny)`` in tiles from the map's bottom-left corner (open side on the right of
        (x0, y0) -> (x1, y1)), tiles a list per edge of the ``(row, col)`` it is a side of."""
        cdef int rows = <int> grid.shape[0], cols = <int> grid.shape[1], r, c
        cdef int32_t[::1] flat = np.zeros(rows * cols, dtype=np.int32)
        cdef int32_t[::1] shaped = np.zeros(rows * cols, dtype=np.int32)
        cdef Py_ssize_t nt = 0, i
        for r in range(rows):
            for c in range(cols):
                flat[(rows - 1 - r) * cols + c] = grid[r, c]
        for i in range(rows * cols):
            if self.find(flat[i]) >= 0:
                shaped[nt] = <int32_t> i
                nt += 1
        cdef PieceBuf ps, es
        ps.p = es.p = NULL
        ps.n = ps.cap = es.n = es.cap = 0
        cdef int32_t* owner = NULL
        try:
            if not self.pieces(&flat[0], rows, cols, &shaped[0], nt, &ps):
                raise MemoryError("TileShapes: out of memory")
            owner = <int32_t*> malloc((ps.n + 1) * sizeof(int32_t))
            if owner == NULL or not merge_pieces(&ps, &es, owner):
                raise MemoryError("TileShapes: out of memory")
            edges = np.empty((es.n, 6), dtype=np.float64)
            for i in range(es.n):
                edges[i] = (es.p[i].x0, es.p[i].y0, es.p[i].x1, es.p[i].y1, es.p[i].nx,
                            es.p[i].ny)
            tiles = [[] for _ in range(es.n)]
            for i in range(ps.n):
                r = ps.p[i].tile // cols
                tiles[owner[i]].append((rows - 1 - r, ps.p[i].tile - r * cols))
            return edges, tiles
        finally:
            free(ps.p)
            free(es.p)
            free(owner)
