# The C view of the body table (see table_view.pxd for the guarantees).

import numpy as np

from libc.stdint cimport int64_t

from .carray cimport c_array
from .tile_log cimport TileLog

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API


cdef class _RowsCache:
    """The pointers of a table's columns, valid while its ``columns_version`` stays."""
    cdef Rows rows
    cdef long version


cdef Rows rows_of(object t) except *:
    """Pointers into the columns of body table ``t`` (taken again only after they grew)."""
    cdef _RowsCache cache = getattr(t, "_rows_cache", None)
    cdef long version = t.columns_version
    if cache is not None and cache.version == version:
        cache.rows.n = t.n
        return cache.rows
    cache = _RowsCache()
    cache.rows = _take_rows(t)
    cache.version = version
    t._rows_cache = cache
    return cache.rows


cdef Rows _take_rows(object t) except *:
    cdef const int[::1] leaf0 = t.leaf0
    cdef const int[::1] nleaf = t.nleaf
    cdef const signed char[::1] code = t.shape_code
    cdef const double[:, ::1] lo = t.lo
    cdef const double[:, ::1] hi = t.hi
    cdef const int64_t[::1] h = t.shape_hash
    cdef const signed char[::1] kind = t.kind
    cdef const unsigned char[::1] sensor = t.sensor.view(np.uint8)
    cdef const unsigned char[::1] collides = t.collides.view(np.uint8)
    cdef const int64_t[::1] layer = t.layer
    cdef const int64_t[::1] mask = t.mask
    cdef const int64_t[::1] entity = t.entity
    cdef const double[::1] mass = t.mass
    cdef const double[::1] inv_mass = t.inv_mass
    cdef const double[::1] restitution = t.restitution
    cdef const signed char[::1] slide = t.slide
    cdef const double[:, ::1] acc = t.acc
    cdef const double[::1] friction = t.friction
    cdef const unsigned char[::1] stop_slope = t.stop_slope.view(np.uint8)
    cdef const double[:, ::1] one_way = t.one_way
    cdef signed char[::1] ground = t.ground
    cdef double[:, ::1] floor_n = t.floor_n
    cdef double[:, ::1] floor_v = t.floor_v
    cdef int64_t[::1] floor_entity = t.floor_entity
    cdef int[::1] carrier = t.carrier
    cdef double[:, ::1] pos = t.pos
    cdef double[:, ::1] vel = t.vel
    cdef double[:, ::1] prev = t.prev_pos
    cdef double[:, ::1] move = t.move
    cdef Rows r
    r.n = t.n
    r.leaf0 = &leaf0[0]
    r.nleaf = &nleaf[0]
    r.code = &code[0]
    r.lo = &lo[0, 0]
    r.hi = &hi[0, 0]
    r.hash = &h[0]
    r.kind = &kind[0]
    r.sensor = &sensor[0]
    r.collides = &collides[0]
    r.layer = &layer[0]
    r.mask = &mask[0]
    r.entity = &entity[0]
    r.mass = &mass[0]
    r.inv_mass = &inv_mass[0]
    r.restitution = &restitution[0]
    r.slide = &slide[0]
    r.acc = &acc[0, 0]
    r.friction = &friction[0]
    r.stop_slope = &stop_slope[0]
    r.one_way = &one_way[0, 0]
    r.ground = &ground[0]
    r.floor_n = &floor_n[0, 0]
    r.floor_v = &floor_v[0, 0]
    r.floor_entity = &floor_entity[0]
    r.carrier = &carrier[0]
    r.pos = &pos[0, 0]
    r.vel = &vel[0, 0]
    r.prev = &prev[0, 0]
    r.move = &move[0, 0]
    return r



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


def note_tile_region(t, TileLog tiles, entity, Py_ssize_t row, Py_ssize_t since,
                     Py_ssize_t most, double tile_size, tuple origin) -> bool:
    """Note in ``t.tile_regions[entity]`` the box of the tiles ``tiles`` lists as changed
    since version ``since``, grown by a tile (`TileLog.note_region`), for the tile map of
    row ``row``; grown by the box already noted there, if any. A box that no other row's box
    reaches into (at the rows' positions now) is not noted: no pair of the map would be
    looked at for it. False, nothing noted, when the log does not reach back that far or
    lists more than ``most`` changes since (the whole map must be looked at)."""
    cdef double box[4]
    if not tiles._region(since, most, tile_size, origin[0], origin[1], box):
        return False
    cdef dict regions = t.tile_regions
    old = regions.get(entity)
    if old is not None:
        regions[entity] = [min(box[0], <double> old[0]), min(box[1], <double> old[1]),
                           max(box[2], <double> old[2]), max(box[3], <double> old[3])]
        return True
    cdef Rows r = rows_of(t)
    cdef Py_ssize_t count
    cdef const double* pos = <const double*> c_array(t.pos, b'f', &count)
    if not 0 <= row < r.n or count < 2 * r.n:
        raise ValueError(f"note_tile_region: row must be one of the table's {r.n} rows, got "
                         f"{row}")
    if _reach(&r, pos, row, box):
        regions[entity] = [box[0], box[1], box[2], box[3]]
    return True
