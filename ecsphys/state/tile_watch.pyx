# A tile map row's watch on its map's tiles, and the step's refresh of the body table's tile
# maps (compiled): the start of every step looks at each map, and the step after a dig takes
# its changes, reading few Python objects (each one the step has not read since the last
# step is a cache miss, and the step after the refresh pays for what it evicted).
#
# Guarantees:
# - `TileWatch(tilemap)` holds the map, its tiles' log (`tiles`) and the version of the tiles
#   its row last took (`seen`, the map's version when it is made), and once known the map's
#   compiled copy in the store (`edges`, a `TileEdges`) and the leaf range its row holds;
# - `refresh_maps(table)` does what `BodyTable.refresh_tilemaps` says, for each map of
#   `table.tilemaps` (entity -> watch) whose tiles changed since `seen`, in that order: the
#   box of the changed tiles grown by a tile goes to `table.tile_regions` if another row's
#   box reaches into it (grown by a box noted there already), or the map is `table.touched`
#   when the log does not list the changes one by one or lists more than
#   `REGION_CHANGES_MAX`; then the changes go into the store through the map's `edges`
#   (`TileEdges.take`), or through `ShapeStore.take_tiles` when the watch does not know them
#   or `take` answers None (the map is laid out again), and the watch learns the edges the
#   store then holds; the range is written into the row (`table._write_range`) only when
#   the store hands out another tuple; `seen` becomes the tiles' version. If a take raises,
#   the store forgets the map (`forget_tiles`: it is laid out afresh next time), `seen`
#   stays (the box noted is noted again, no harm) and the error is raised.

from .table_view cimport Rows, rows_of
from .tile_log cimport TileLog

#: a map that changed more tiles than this since the response last looked is looked at whole
REGION_CHANGES_MAX = 256


cdef class TileWatch:
    """A tile map row's watch on its map's tiles (see the module comment)."""

    cdef readonly object tilemap
    cdef readonly TileLog tiles
    #: the version of the tiles the row last took
    cdef public Py_ssize_t seen
    #: the map's compiled copy in the store (None until known, or once let go)
    cdef public object edges
    cdef object found
    cdef double size, ox, oy

    def __cinit__(self, tilemap):
        self.tilemap = tilemap
        self.tiles = tilemap._tiles
        self.seen = self.tiles.version
        self.size = tilemap.tile_size
        self.ox = tilemap.origin[0]
        self.oy = tilemap.origin[1]

    def __repr__(self) -> str:
        return f"TileWatch({self.tilemap!r}, seen={self.seen})"


def refresh_maps(t) -> None:
    """Take the tile changes of the tile maps of body table ``t`` (see the module
    comment)."""
    cdef dict watches = t.tilemaps
    cdef TileWatch w
    for entity, watch in watches.items():
        w = <TileWatch?> watch
        if w.tiles.version != w.seen:
            _take(t, entity, w)


cdef int _take(t, entity, TileWatch w) except -1:
    cdef TileLog tiles = w.tiles
    cdef Py_ssize_t seen = w.seen
    # the box first: it reads the table the refresh just read, before the take's writes
    # push it out of the caches (a box noted for a take that then raises is looked at in the
    # next step with the same changes, no harm)
    if not _note(t, tiles, entity, <Py_ssize_t> t.row_of[entity], seen, REGION_CHANGES_MAX,
                 w.size, w.ox, w.oy):
        t.touched.add(entity)
    store = t.store
    found = None
    if w.edges is not None:
        try:
            found = w.edges.take(store, tiles)
        except BaseException:
            w.edges = None
            store.forget_tiles(w.tilemap)
            raise
    if found is None:
        found = store.take_tiles(w.tilemap)
        w.edges = store.tile_edges(w.tilemap)
    if found is not w.found:
        t._write_range(entity, found)
        w.found = found
    w.seen = tiles.version
    return 0


cdef bint _reach(const Rows* r, const double* pos, Py_ssize_t row, const double* box) noexcept:
    """Whether a row other than ``row`` has a box (its position plus its shape's bounds)
    that meets ``box`` (x0, y0, x1, y1) relative to row ``row``'s position, edges
    included, compared as the response compares a body with a tile map's changed tiles."""
    cdef double x0 = pos[2 * row] + box[0], y0 = pos[2 * row + 1] + box[1]
    cdef double x1 = pos[2 * row] + box[2], y1 = pos[2 * row + 1] + box[3]
    cdef Py_ssize_t i
    for i in range(r.n):
        if i != row and not (pos[2 * i] + r.hi[2 * i] < x0 or pos[2 * i] + r.lo[2 * i] > x1
                             or pos[2 * i + 1] + r.hi[2 * i + 1] < y0
                             or pos[2 * i + 1] + r.lo[2 * i + 1] > y1):
            return True
    return False


cdef bint _note(t, TileLog tiles, entity, Py_ssize_t row, Py_ssize_t since, Py_ssize_t most,
                double tile_size, double ox, double oy) except -1:
    """The box part of `refresh_maps` for the map of row ``row``; False, nothing noted, when
    the log does not list the changes since ``since`` one by one or lists more than
    ``most``."""
    cdef double box[4]
    if not tiles._region(since, most, tile_size, ox, oy, box):
        return False
    cdef dict regions = t.tile_regions
    old = regions.get(entity)
    if old is not None:
        regions[entity] = [min(box[0], <double> old[0]), min(box[1], <double> old[1]),
                           max(box[2], <double> old[2]), max(box[3], <double> old[3])]
        return True
    cdef Rows r = rows_of(t)
    if not 0 <= row < r.n:
        raise ValueError(f"refresh_maps: a tile map's row must be one of the table's {r.n} "
                         f"rows, got {row}")
    if _reach(&r, r.pos, row, box):
        regions[entity] = [box[0], box[1], box[2], box[3]]
    return True

