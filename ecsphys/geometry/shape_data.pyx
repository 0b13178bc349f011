# The C view of shapes (see shape_data.pxd for the guarantees): the Store of a Python
# ShapeStore and the Body of a Python shape.

from libc.stdint cimport int64_t, uint64_t

from ..limits import MAX_COORD, check_vec
from ..mask import has_mask
from ..shapes import Shape
from .shape_store import public_store


cdef class _StoreCache:
    """The pointers of a store's arrays, valid while its ``version`` stays."""
    cdef Store store
    cdef long version


cdef Store store_of(object store) except *:
    """Pointers into ``store``'s arrays (valid until a shape is added to it); taken again
    only after the arrays grew."""
    cdef _StoreCache cache = getattr(store, "_c_cache", None)
    cdef long version = store.version
    if cache is not None and cache.version == version:
        return cache.store
    cache = _StoreCache()
    cache.store = _take_store(store)
    cache.version = version
    store._c_cache = cache
    return cache.store


cdef Store _take_store(object store) except *:
    cdef int[:, ::1] li = store.leaf_i
    cdef double[:, ::1] lf = store.leaf_f
    cdef int64_t[::1] lh = store.leaf_h
    cdef double[:, ::1] verts = store.verts
    cdef double[:, ::1] faces = store.faces
    cdef int[::1] cells = store.cells
    cdef uint64_t[::1] bits = store.bits
    cdef Store s
    s.li = &li[0, 0]
    s.lf = &lf[0, 0]
    s.lh = &lh[0]
    s.verts = &verts[0, 0]
    s.faces = &faces[0, 0]
    s.cells = &cells[0]
    s.bits = &bits[0]
    return s


cdef Body body_of(object store, object shape, double px, double py) except *:
    """``shape`` at body position ``(px, py)``; interns its leaves (call before store_of)."""
    first, count, key = store.intern(shape)
    cdef Body b
    b.first = first
    b.count = count
    b.kind = shape.type_code
    b.px = px
    b.py = py
    x0, y0, x1, y1 = shape.bounds()
    b.x0 = x0
    b.y0 = y0
    b.x1 = x1
    b.y1 = y1
    b.hash = key
    return b


cdef Store public_pair(object a, object pos_a, object b, object pos_b, Body* ba, Body* bb,
                       str what) except *:
    """Both shapes interned in the public store (see shape_data.pxd)."""
    if not isinstance(a, Shape) or not isinstance(b, Shape):
        raise TypeError(f"{what} {type(a).__name__} against {type(b).__name__}")
    if (has_mask(a) or has_mask(b)) and what == "no distance for":
        raise TypeError(f"{what} {type(a).__name__} against {type(b).__name__} (a mask has "
                        f"no exact distance; contact_within and time_of_impact answer it)")
    ax, ay = check_vec("pos_a", pos_a, MAX_COORD)
    bx, by = check_vec("pos_b", pos_b, MAX_COORD)
    store = public_store()
    ba[0] = body_of(store, a, ax, ay)
    bb[0] = body_of(store, b, bx, by)
    return store_of(store)
