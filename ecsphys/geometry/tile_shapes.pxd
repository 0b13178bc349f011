# Shaped tile kinds (slopes, half tiles): the declarations tile_edges.pyx shares with
# tile_shapes.pyx and tile_extras.pyx (see there for what they guarantee), the one writer
# of a tile map's edge leaf that both edge keepers use, the growth of a growable buffer's
# block (`grow_block`, tile_edges.pyx's buffers' too), and what tile_shapes.pyx and
# tile_extras.pyx both use inline: the growable buffers (`IntBuf`, `PieceBuf`: `ipush`,
# `piece_push`) and the pieces' line order (`same_line`, `line_order`, which `piece_order`
# breaks ties of by tile).

from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport realloc

# a kind's side masks (TileEdges.solid, per tile): bit FULL << side when the kind covers that
# whole side of its square, ANY << side when it covers a stretch of it (more than a point);
# sides 0 bottom, 1 top, 2 left, 3 right. A square is 0xFF, an empty tile 0.
cdef enum:
    FULL_B = 1
    FULL_T = 2
    FULL_L = 4
    FULL_R = 8
    ANY_B = 16
    ANY_T = 32
    ANY_L = 64
    ANY_R = 128
    SQUARE_MASK = 255
    MAX_SHAPE_POINTS = 16    # a kind's polygon has at most this many points

# one exposed piece of a shaped tile's outline, or a merged edge of several (grid units, rows
# from the bottom); its open side is on the right of (x0, y0) -> (x1, y1)
cdef struct Piece:
    double x0
    double y0
    double x1
    double y1
    double nx            # the unit normal to the open side
    double ny
    double t0            # where it starts and ends along its direction
    double t1
    int64_t kx           # its line, rounded: the order key (normal, offset)
    int64_t ky
    int64_t kc
    int32_t tile         # the tile it is a side of (up * cols + col)

cdef struct PieceBuf:
    Piece* p
    Py_ssize_t n
    Py_ssize_t cap

cdef struct IntBuf:
    int* p
    Py_ssize_t n
    Py_ssize_t cap


cdef class TileShapes:
    cdef readonly int nk
    cdef int32_t* kinds      # sorted
    cdef uint8_t* masks
    cdef int* nv
    cdef double* v           # nk * MAX_SHAPE_POINTS * 2, counter-clockwise, tile units
    cdef double* lo          # nk * 4: the stretch of each side it covers (lo > hi: none)
    cdef double* hi
    cdef int find(self, int32_t kind) noexcept nogil
    cdef uint8_t mask(self, int32_t kind) noexcept nogil
    cdef bint pieces(self, const int32_t* kinds, int rows, int cols, const int32_t* tiles,
                     Py_ssize_t nt, PieceBuf* out) noexcept nogil


cdef bint merge_pieces(PieceBuf* pieces, PieceBuf* edges, int32_t* owner) noexcept nogil
cdef int piece_order(const void* pa, const void* pb) noexcept nogil


cdef inline bint grow_block(void** p, Py_ssize_t* cap, size_t item,
                            Py_ssize_t spare) noexcept nogil:
    """A growable buffer's block ``p`` (``cap`` items of ``item`` bytes) twice as big plus
    ``spare`` items; False (nothing changed) when out of memory. (tile_edges.pyx's buffers
    grow by it too.)"""
    cdef Py_ssize_t grown = 2 * cap[0] + spare
    cdef void* q = realloc(p[0], grown * item)
    if q == NULL:
        return False
    p[0] = q
    cap[0] = grown
    return True


cdef inline bint piece_push(PieceBuf* b, const Piece* q) noexcept nogil:
    """Append a copy of ``q``; False (nothing changed) when out of memory."""
    if b.n == b.cap and not grow_block(<void**> &b.p, &b.cap, sizeof(Piece), 32):
        return False
    b.p[b.n] = q[0]
    b.n += 1
    return True


cdef inline bint ipush(IntBuf* b, int v) noexcept nogil:
    """Append ``v``; False (nothing changed) when out of memory."""
    if b.n == b.cap and not grow_block(<void**> &b.p, &b.cap, sizeof(int), 32):
        return False
    b.p[b.n] = v
    b.n += 1
    return True


cdef inline bint same_line(const Piece* a, const Piece* b) noexcept nogil:
    """Whether two pieces (or edges) lie on one line (the same rounded key)."""
    return a.kx == b.kx and a.ky == b.ky and a.kc == b.kc


cdef inline int line_order(const Piece* a, const Piece* b) noexcept nogil:
    """Two pieces (or edges) in the pieces' order: by line (key), then where they start
    along it; 0 when both are equal."""
    if a.kx != b.kx:
        return -1 if a.kx < b.kx else 1
    if a.ky != b.ky:
        return -1 if a.ky < b.ky else 1
    if a.kc != b.kc:
        return -1 if a.kc < b.kc else 1
    if a.t0 != b.t0:
        return -1 if a.t0 < b.t0 else 1
    return 0


cdef inline void write_segment(double* lf, double* v, double* f, double ax, double ay,
                               double bx, double by, double length) noexcept nogil:
    """A tile map's edge leaf from a (world, relative to the body) to b, ``length`` apart: a
    one-sided segment whose first face, the normal on the right of a -> b, points to the open
    side (its vertices ``v``, 4 faces ``f`` and bounds in ``lf``; its kind, counts and hash
    are the caller's). Each support is summed from 0.0 as NumPy sums (0.0 + -0.0 is 0.0), so
    the leaves are those the vectorised writer made."""
    cdef double dx = (bx - ax) / length, dy = (by - ay) / length
    cdef double s = 0.0 + dy * ax + (-dx) * ay
    v[0] = ax
    v[1] = ay
    v[2] = bx
    v[3] = by
    f[0] = dy
    f[1] = -dx
    f[2] = s
    f[3] = -dy
    f[4] = dx
    f[5] = -s
    f[6] = dx
    f[7] = dy
    f[8] = 0.0 + dx * bx + dy * by
    f[9] = -dx
    f[10] = -dy
    f[11] = -(0.0 + dx * ax + dy * ay)
    lf[5] = ax if ax < bx else bx
    lf[6] = ay if ay < by else by
    lf[7] = bx if ax < bx else ax
    lf[8] = by if ay < by else ay
