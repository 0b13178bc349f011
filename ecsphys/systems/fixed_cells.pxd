# The push apart's look-ups of the rows never pushed (see fixed_cells.pyx for the guarantees).

from libc.stdint cimport int64_t, uint64_t

from .slide_context cimport Ctx, immovable


cdef enum:
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


cdef inline bint in_cells(const Ctx* c, int s) noexcept nogil:
    """Row s goes into the cells: never pushed, and solid (widen pairs only with those)."""
    return immovable(c, s) and c.reach[s].solid


cdef void cells_free(Cells* g) noexcept nogil


cdef int cells_build(Ctx* c, Cells* g, double side) except -1 nogil


cdef int cells_find(Ctx* c, const Cells* g, double x0, double y0, double x1,
                    double y1) noexcept nogil
