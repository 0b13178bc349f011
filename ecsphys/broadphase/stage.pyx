# The broadphase stage's step, compiled: swept boxes, the query, the layer filter, entity order.
#
# Guarantees:
# - `Stage.run(index, table, contact_offset, check_layers)` is one compiled call per step over
#   the rows given to `set_rows` (dynamic rows in entity order, static rows), or apart to
#   `set_dynamic_rows` and `set_static_rows` (the static rows read in place, so the caller
#   moves a static to another row by writing its new row there); it reads the table's
#   columns in place (pos, move, lo, hi, layer, mask, entity) and returns fresh int64 arrays
#   `ra`, `rb` and the number of box pairs before the layer filter;
# - a dynamic row's box is its shape's box at the start grown on every side by the length of
#   its move plus `contact_offset` (the same floating-point operations as the NumPy stage);
# - the pairs are the index's: dynamic-dynamic (both dynamic rows) and dynamic-static, no
#   static-static; with `check_layers` a pair is kept only if each side's layer is in the
#   other's mask; a pair with a tile map is kept only if the map has an edge on the tiles the
#   dynamic box covers (a body in the open middle of a maze is no candidate of the maze);
# - output order: `entity[ra] < entity[rb]`, sorted by that entity pair, each pair once
#   (entity ids below 2**32). The dynamic pairs come out of the index already in that order
#   (dynamic ids follow entity order); only the dynamic-static pairs are sorted and merged in;
# - a compiled index (a `BoxIndex`) is run without Python; any other object with
#   `query(lo, hi)` (the NumPy brute force) is called through Python on the same boxes;
# - work memory (the swept boxes and the sort buffers) is kept from step to step;
# - `dynamic_layout` gives the dynamic rows of a layout in one pass; `follow_sleep` the same
#   after a few rows fell asleep or woke, at the cost of the dynamic rows (a merge in C).

from libc.math cimport sqrt
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc, qsort
from libc.string cimport memcpy, memmove

from .boxindex cimport BoxIndex, Buf, buf_free, buf_reserve, sort_keys
from ..geometry.shape_data cimport TILEMAP, Body, Near, Store, near_init, near_next, store_of
from ..state.carray cimport as_c, c_array, new_array

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API
from ..state.table_view cimport Rows, row_body, rows_of
from ..systems.gil cimport NOGIL_MIN

import numpy as np

cdef unsigned char _STATIC = 0  # ColliderKind.STATIC

__all__ = ["Stage"]


cdef class Stage:
    """The compiled half of ``BroadphaseSystem`` (see the module comment; its fields are
    declared in stage.pxd)."""

    def __init__(self):
        self.set_rows(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        self._grow(16)

    def __dealloc__(self):
        buf_free(&self.b_ra)
        buf_free(&self.b_rb)
        buf_free(&self.b_key)
        buf_free(&self.b_val)
        buf_free(&self.b_sa)
        buf_free(&self.b_tmp)

    def set_rows(self, dyn, static_rows):
        """The dynamic rows (in entity order: dynamic id ``i`` is row ``dyn[i]``) and the
        static rows (static id ``j`` is row ``static_rows[j]``) of the current layout."""
        self.set_dynamic_rows(dyn)
        self.set_static_rows(np.ascontiguousarray(static_rows, dtype=np.int64).copy())

    def set_dynamic_rows(self, dyn):
        """The dynamic rows, in entity order (dynamic id ``i`` is row ``dyn[i]``; copied)."""
        self._dyn_arr = np.ascontiguousarray(dyn, dtype=np.int64).copy()
        self.dyn = self._dyn_arr
        if self._dyn_arr.shape[0] > (0 if self._lo_arr is None else self._lo_arr.shape[0]):
            self._grow(self._dyn_arr.shape[0])

    def set_static_rows(self, static_rows):
        """The static rows: static id ``j`` is row ``static_rows[j]``. A C-contiguous int64
        array, read in place (not copied): the caller writes a static's new row into it and
        calls this again only when it replaces the array."""
        if not (isinstance(static_rows, np.ndarray) and static_rows.dtype == np.int64
                and static_rows.ndim == 1 and static_rows.flags.c_contiguous):
            raise TypeError("static_rows must be a C-contiguous 1-d int64 array")
        self._srow_arr = static_rows
        self.srow = self._srow_arr

    @property
    def boxes(self):
        """The swept boxes of the last ``run`` (views of reused arrays: read, do not keep)."""
        k = self.dyn.shape[0]
        return self._lo_arr[:k], self._hi_arr[:k]

    def _grow(self, Py_ssize_t k):
        k = k + k // 4 + 16
        self._lo_arr = np.empty((k, 2))
        self._hi_arr = np.empty((k, 2))
        self.lo = self._lo_arr
        self.hi = self._hi_arr

    cdef bint _near_edges(self, int64_t tile_row, Py_ssize_t k) noexcept nogil:
        """The tile map of row ``tile_row`` has an edge near dynamic box ``k``."""
        cdef Body map_body = row_body(&self.rows, tile_row, self.rows.pos)
        cdef Near it
        near_init(&it, &self.store, &map_body, self.lo[k, 0], self.lo[k, 1], self.hi[k, 0],
                  self.hi[k, 1])
        return near_next(&it) >= 0

    cdef void _swept(self, Py_ssize_t k, double offset) noexcept nogil:
        cdef Py_ssize_t j
        cdef int64_t r
        cdef double mx, my, reach
        cdef const int64_t* dyn = &self.dyn[0] if k else NULL
        cdef const double* pos = self.rows.pos
        cdef const double* move = self.rows.move
        cdef const double* rlo = self.rows.lo
        cdef const double* rhi = self.rows.hi
        cdef double* lo = &self.lo[0, 0]
        cdef double* hi = &self.hi[0, 0]
        for j in range(k):
            r = 2 * dyn[j]
            mx = move[r]
            my = move[r + 1]
            reach = sqrt(mx * mx + my * my) + offset
            lo[2 * j] = (pos[r] + rlo[r]) - reach
            lo[2 * j + 1] = (pos[r + 1] + rlo[r + 1]) - reach
            hi[2 * j] = (pos[r] + rhi[r]) + reach
            hi[2 * j + 1] = (pos[r + 1] + rhi[r + 1]) + reach

    cdef bint _passes(self, int64_t a, int64_t b) noexcept nogil:
        cdef const int64_t* layer = self.rows.layer
        cdef const int64_t* mask = self.rows.mask
        return (layer[a] & mask[b]) != 0 and (layer[b] & mask[a]) != 0

    cdef Py_ssize_t _statics(self, const int64_t* sk, const int64_t* sl, Py_ssize_t ns,
                             bint check) noexcept nogil:
        """The dynamic-static pairs as rows in entity order, sorted by entity pair, into
        ``b_sa`` (a first, b from ``ns`` on); returns how many passed the layers (-1: out of
        memory)."""
        cdef Py_ssize_t t, c = 0
        cdef int64_t a, b, x
        cdef uint64_t* key = <uint64_t*>buf_reserve(&self.b_key, ns * sizeof(uint64_t))
        cdef int64_t* val = <int64_t*>buf_reserve(&self.b_val, ns * sizeof(int64_t))
        cdef int64_t* ta = <int64_t*>buf_reserve(&self.b_sa, 2 * ns * sizeof(int64_t))
        cdef int64_t* tb
        if key == NULL or val == NULL or ta == NULL:
            return -1
        tb = ta + ns
        for t in range(ns):
            a = self.dyn[sk[t]]
            b = self.srow[sl[t]]
            if check and not self._passes(a, b):
                continue
            if self.rows.code[b] == TILEMAP and not self._near_edges(b, sk[t]):
                continue
            if self.rows.entity[a] > self.rows.entity[b]:
                x = a
                a = b
                b = x
            ta[c] = a
            tb[c] = b
            key[c] = pair_key(self.rows.entity, a, b)
            val[c] = c
            c += 1
        if sort_keys(key, val, c, &self.b_tmp) < 0:
            return -1
        return c

    cdef Py_ssize_t _count(self, const int64_t* di, const int64_t* dj,
                           Py_ssize_t nd) noexcept nogil:
        cdef Py_ssize_t t, c = 0
        for t in range(nd):
            c += self._passes(self.dyn[di[t]], self.dyn[dj[t]])
        return c

    def run(self, index, table, double contact_offset, bint check_layers):
        """``(ra, rb, box_pairs)`` of this step (see the module comment)."""
        cdef Rows rows = rows_of(table)
        cdef Store store = store_of(table.store)
        self.run_c(index, table, contact_offset, check_layers, &rows, &store)
        ra, rb = self.pairs()
        return ra, rb, self.box_pairs

    def pairs(self):
        """The last run's pairs ``(ra, rb)`` as fresh int64 arrays."""
        cdef Py_ssize_t n = self.npairs, unused
        ra = new_array(n, -1, b'i')
        rb = new_array(n, -1, b'i')
        if n:
            memcpy(<int64_t*> c_array(ra, b'i', &unused), self.pa, n * sizeof(int64_t))
            memcpy(<int64_t*> c_array(rb, b'i', &unused), self.pb, n * sizeof(int64_t))
        return ra, rb

    def set_pairs(self, ra, rb):
        """Put ``(ra, rb)`` (a subset of the last run's pairs, in the same order: what the
        game's ``filter_pair`` kept) in place of the last run's pairs."""
        cdef Py_ssize_t na, nb
        ra_ = as_c(ra, b'i')
        rb_ = as_c(rb, b'i')
        cdef const int64_t* a = <const int64_t*> c_array(ra_, b'i', &na)
        cdef const int64_t* b = <const int64_t*> c_array(rb_, b'i', &nb)
        if na != nb or na > self.npairs:
            raise ValueError(f"set_pairs takes two lists of the same length, at most "
                             f"{self.npairs}, got {na} and {nb}")
        if na:
            memmove(self.pa, a, na * sizeof(int64_t))
            memmove(self.pb, b, na * sizeof(int64_t))
        self.npairs = na
        self.version += 1

    cdef int run_c(self, object index, object table, double contact_offset,
                   bint check_layers, const Rows* rows, const Store* store) except -1:
        """This step's pairs into ``pa``, ``pb`` (``npairs`` of them) and ``box_pairs``;
        ``rows`` and ``store``: the table's C rows and shapes now."""
        cdef Py_ssize_t k = self.dyn.shape[0], nd, ns, cs, nkeep, o
        cdef int r = 0
        cdef BoxIndex bx
        cdef const int64_t* pdi
        cdef const int64_t* pdj
        cdef const int64_t* psk
        cdef const int64_t* psl
        cdef const int64_t[::1] vdi
        cdef const int64_t[::1] vdj
        cdef const int64_t[::1] vsk
        cdef const int64_t[::1] vsl
        cdef int64_t* sa
        self.rows = rows[0]  # the table's columns for this run
        self.store = store[0]
        cdef bint big = k >= NOGIL_MIN
        if big:
            with nogil:
                self._swept(k, contact_offset)
        else:
            self._swept(k, contact_offset)
        if isinstance(index, BoxIndex):
            bx = <BoxIndex>index
            if big:
                with nogil:
                    r = bx.run(&self.lo[0, 0], &self.hi[0, 0], k)
            else:
                r = bx.run(&self.lo[0, 0], &self.hi[0, 0], k)
            if r < 0:
                raise MemoryError("broadphase: out of memory")
            pdi, pdj, nd = bx.dd.a, bx.dd.b, bx.dd.n
            psk, psl, ns = bx.ds.a, bx.ds.b, bx.ds.n
        else:
            di, dj, sk, sl = index.query(self._lo_arr[:k], self._hi_arr[:k])
            vdi = np.ascontiguousarray(di, dtype=np.int64)
            vdj = np.ascontiguousarray(dj, dtype=np.int64)
            vsk = np.ascontiguousarray(sk, dtype=np.int64)
            vsl = np.ascontiguousarray(sl, dtype=np.int64)
            nd = vdi.shape[0]
            ns = vsk.shape[0]
            pdi = &vdi[0] if nd else NULL
            pdj = &vdj[0] if nd else NULL
            psk = &vsk[0] if ns else NULL
            psl = &vsl[0] if ns else NULL
        big = nd + ns >= NOGIL_MIN
        if big:
            with nogil:
                cs = self._statics(psk, psl, ns, check_layers)
                nkeep = self._count(pdi, pdj, nd) if check_layers else nd
        else:
            cs = self._statics(psk, psl, ns, check_layers)
            nkeep = self._count(pdi, pdj, nd) if check_layers else nd
        if cs < 0:
            raise MemoryError("broadphase: out of memory")
        sa = <int64_t*>self.b_sa.p  # the static pairs' rows: a at sa, b at sa + ns
        self.pa = <int64_t*> buf_reserve(&self.b_ra, (nkeep + cs + 1) * sizeof(int64_t))
        self.pb = <int64_t*> buf_reserve(&self.b_rb, (nkeep + cs + 1) * sizeof(int64_t))
        if self.pa == NULL or self.pb == NULL:
            self.npairs = 0
            raise MemoryError("broadphase: out of memory")
        o = 0
        if nkeep + cs and big:
            with nogil:
                o = self._merge2(pdi, pdj, nd, cs, check_layers, sa, sa + ns, self.pa,
                                 self.pb)
        elif nkeep + cs:
            o = self._merge2(pdi, pdj, nd, cs, check_layers, sa, sa + ns, self.pa, self.pb)
        self.npairs = o
        self.box_pairs = nd + ns
        self.version += 1
        return 0

    cdef Py_ssize_t _merge2(self, const int64_t* di, const int64_t* dj, Py_ssize_t nd,
                            Py_ssize_t cs, bint check, const int64_t* ta, const int64_t* tb,
                            int64_t* ra, int64_t* rb) noexcept nogil:
        """Dynamic pairs (filtered) merged with the ``cs`` sorted static ones into ra, rb."""
        cdef Py_ssize_t t, s = 0, o = 0
        cdef int64_t a, b
        cdef uint64_t dkey
        cdef const uint64_t* key = <const uint64_t*>self.b_key.p
        cdef const int64_t* val = <const int64_t*>self.b_val.p
        for t in range(nd):
            a = self.dyn[di[t]]
            b = self.dyn[dj[t]]
            if check and not self._passes(a, b):
                continue
            if s < cs:
                dkey = pair_key(self.rows.entity, a, b)
                while s < cs and key[s] < dkey:
                    ra[o] = ta[val[s]]
                    rb[o] = tb[val[s]]
                    o += 1
                    s += 1
            ra[o] = a
            rb[o] = b
            o += 1
        while s < cs:
            ra[o] = ta[val[s]]
            rb[o] = tb[val[s]]
            o += 1
            s += 1
        return o


def dynamic_layout(table):
    """``(dyn, all_layers_pass)`` of the table's current rows, in one pass: the rows of the
    bodies that collide and are neither static nor asleep, in entity order (the stage's dynamic ids), and
    whether every colliding body's layer meets the AND of all their masks (then no pair
    needs the layer test). Rows are mostly in entity order already (only a removal's
    swap moves one out of it), so the sort, when needed, runs on nearly sorted keys."""
    cdef Py_ssize_t n = table.n, i, k = 0, got
    collides_ = table.collides
    kind_ = table.kind
    entity_ = table.entity
    layer_ = table.layer
    mask_ = table.mask
    cdef const unsigned char* collides = <const unsigned char*> c_array(collides_, b'b', &got)
    if got < n:
        raise ValueError(f"the collides column holds {got} rows, the table {n}")
    cdef const int64_t* entity = <const int64_t*> c_array(entity_, b'i', &got)
    cdef const int64_t* layer = <const int64_t*> c_array(layer_, b'i', &got)
    cdef const int64_t* mask = <const int64_t*> c_array(mask_, b'i', &got)
    kind8 = kind_.view(np.uint8)
    cdef const unsigned char* kind = <const unsigned char*> c_array(kind8, b'b', &got)
    cdef const unsigned char* asleep = <const unsigned char*> c_array(table.asleep, b'b', &got)
    if got < n:
        raise ValueError(f"the asleep column holds {got} rows, the table {n}")
    dyn_ = np.empty(n, dtype=np.int64)
    cdef int64_t* dyn = <int64_t*> c_array(dyn_, b'i', &got)
    cdef int64_t common = -1
    cdef bint any_solid = False, in_order = True, all_pass = True
    cdef int64_t last = -1
    with nogil:
        for i in range(n):
            if not collides[i]:
                continue
            any_solid = True
            common &= mask[i]
            if kind[i] == _STATIC or asleep[i]:
                continue
            dyn[k] = i
            k += 1
            if entity[i] <= last:
                in_order = False
            last = entity[i]
        if any_solid:
            for i in range(n):
                if collides[i] and (layer[i] & common) == 0:
                    all_pass = False
                    break
    out = dyn_[:k]
    if not in_order:
        out = out[np.argsort(entity_[out], kind="stable")]
    return out, all_pass


cdef struct _Keyed:
    int64_t key    # the entity
    int64_t row


cdef int _cmp_keyed(const void* x, const void* y) noexcept nogil:
    cdef int64_t a = (<const _Keyed*> x).key, b = (<const _Keyed*> y).key
    return (a > b) - (a < b)


def follow_sleep(table, dyn, moved):
    """The dynamic rows after only the rows ``moved`` fell asleep or woke: ``dyn`` (the
    dynamic rows before, in entity order) less the rows asleep now, with the rows of
    ``moved`` that are awake, collide and are not static, in entity order: what
    `dynamic_layout` gives for the table now, at the cost of ``dyn`` and ``moved`` (no sort
    of the whole list). ValueError for a row outside the table."""
    cdef Py_ssize_t n = table.n, nd, nm, q, k = 0, i = 0, j = 0, o = 0
    dyn_ = as_c(dyn, b'i')
    moved_ = as_c(moved, b'i')
    cdef const int64_t* d = <const int64_t*> c_array(dyn_, b'i', &nd)
    cdef const int64_t* m = <const int64_t*> c_array(moved_, b'i', &nm)
    for q in range(nd):
        if not 0 <= d[q] < n:
            raise ValueError(f"dyn[{q}] = {d[q]} is not a row of the table (0 .. {n - 1})")
    for q in range(nm):
        if not 0 <= m[q] < n:
            raise ValueError(f"moved[{q}] = {m[q]} is not a row of the table (0 .. {n - 1})")
    cdef Rows r = rows_of(table)
    cdef _Keyed* now = <_Keyed*> malloc((nm + 1) * sizeof(_Keyed))
    if now == NULL:
        raise MemoryError(f"cannot follow {nm} rows")
    out_ = new_array(nd + nm, -1, b'i')
    cdef int64_t* out = <int64_t*> cnp.PyArray_DATA(<cnp.ndarray> out_)
    cdef int64_t e
    with nogil:
        for q in range(nm):
            if r.collides[m[q]] and not r.asleep[m[q]] and r.kind[m[q]] != _STATIC:
                now[k].key = r.entity[m[q]]
                now[k].row = m[q]
                k += 1
        qsort(now, k, sizeof(_Keyed), _cmp_keyed)
        while i < nd or j < k:  # merge by entity; a row in both once
            if i < nd and r.asleep[d[i]]:
                i += 1
                continue
            if j >= k or (i < nd and r.entity[d[i]] < now[j].key):
                out[o] = d[i]
                i += 1
            else:
                e = now[j].key
                out[o] = now[j].row
                j += 1
                if i < nd and r.entity[d[i]] == e:
                    i += 1
            o += 1
    free(now)
    return out_[:o]
