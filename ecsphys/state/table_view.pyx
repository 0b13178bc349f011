# The C view of the body table (see table_view.pxd for the guarantees).

import numpy as np

from libc.stdint cimport int64_t


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
    cdef unsigned char[::1] asleep = t.asleep
    cdef double[::1] rest_time = t.rest_time
    cdef double[:, ::1] rest_pos = t.rest_pos
    cdef int64_t[::1] island = t.island
    cdef int[::1] island_next = t.island_next
    cdef int[::1] island_prev = t.island_prev
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
    r.asleep = &asleep[0]
    r.rest_time = &rest_time[0]
    r.rest_pos = &rest_pos[0, 0]
    r.island = &island[0]
    r.island_next = &island_next[0]
    r.island_prev = &island_prev[0]
    return r
