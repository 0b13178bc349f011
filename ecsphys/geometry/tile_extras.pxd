# A tile map's extra edges (the outline around shaped tiles that is not whole grid units):
# the declarations tile_edges.pyx uses (see tile_extras.pyx for what they guarantee).

from libc.stdint cimport int32_t, int64_t

from .tile_shapes cimport IntBuf, Piece, PieceBuf, TileShapes


cdef class TileExtras:
    cdef TileShapes shapes
    cdef int rows, cols
    cdef Py_ssize_t n
    # where it writes (bound before each layout or update)
    cdef int* cells
    cdef double* lf
    cdef double* verts
    cdef double* faces
    cdef int64_t* lh
    cdef int first, room, v0, f0
    cdef double size, ox, oy
    # its room: slots after the main room's, and its entries in `cells`
    cdef readonly int xroom, pcap, ecap, lcap, lused, xlive
    cdef int xat, plist, pedge, xpos
    # pieces and edges by id, the free ids, each edge's piece count, each slot's edge
    cdef Piece* pc
    cdef IntBuf pfree
    cdef Piece* ec
    cdef IntBuf efree
    cdef int* eref
    cdef int* sl
    cdef int* seen
    cdef int clock
    # a fresh layout's pieces and edges (from `prepare`), and scratch for an update
    cdef PieceBuf fresh
    cdef PieceBuf merged
    cdef IntBuf owner
    cdef PieceBuf gen
    cdef PieceBuf cand
    cdef PieceBuf gone
    cdef IntBuf changed
    cdef IntBuf origins
    cdef IntBuf seeds
    cdef IntBuf dirty
    cdef IntBuf born
    cdef IntBuf chain
    cdef IntBuf touched
    cdef bint oom

    cdef void bind(self, int* cells, double* lf, double* verts, double* faces, int64_t* lh,
                   int first, int room, int v0, int f0, double size, double ox,
                   double oy) noexcept
    cdef void prepare(self, const int32_t* kinds, const int32_t* shaped,
                      Py_ssize_t nshaped) noexcept
    cdef bint lay_out(self) noexcept
    cdef void mark(self, int32_t tile) noexcept
    cdef bint pending(self) noexcept
    cdef bint update(self, const int32_t* kinds) noexcept
    cdef void write_copy(self, int slot) noexcept
    cdef int _edge_at(self, int s) noexcept
    cdef void _write(self, int s) noexcept
    cdef void _write_leaf(self, int slot, const Piece* q) noexcept
    cdef bint _retake(self, const int32_t* kinds, int x) noexcept
    cdef int _touching(self, const Piece* p, bint before) noexcept
    cdef bint _join(self, int seed) noexcept
    cdef int _lower(self, const Piece* key) noexcept
    cdef void _place(self, int s, int e) noexcept
    cdef bint _insert(self, int e) noexcept
    cdef void _remove(self, int e) noexcept
