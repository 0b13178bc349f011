# cython: embedsignature=True
"""Stage 3 of the step: exact tests of the candidate pairs, compiled, one call for all pairs.

Guarantees:
- ``contacts`` and ``times_of_impact`` answer every pair of shape kinds (compounds included)
  with the one compiled implementation of each routine (``geometry.distance.contact_within``
  and ``geometry.impact.time_of_impact``), the same conventions as the public functions of
  ``ecsphys.geometry``: no pair is handled by a Python loop, whatever its kinds;
- normals point from the pair's first row to its second; contacts within ``tol`` count, with
  ``depth = -distance`` when apart (the skin);
- times of impact are of the relative motion, in [0, 1], ``inf`` for no impact; pairs already
  touching (within ``TOUCH_TOLERANCE``) and approaching give 0;
- a pair with a tile map touches tile by tile (one row per tile, each within its own
  tolerance); a pair near the map that no tile qualifies for (the map as a whole is within
  the separation offset, no tile square within its tolerance) does not touch, so every
  touching row with a map names its tile, except an impact's where no tile lies under the
  contact point;
- a pair's approach ``speed`` is that of its impact in the step (the response's); a pair that
  starts touching without one (it ended the step within the contact offset, the impact
  comes in a later step) gets the speed its bodies close at along the normal at the end of
  the step (world velocities: a rider's own plus its carrier's), so a touch always carries
  the speed of the landing that brought the pair together;
- ``NarrowphaseSystem.process`` tests only the candidate pairs whose boxes at the end of the
  step are within their tolerance (plus rounding slack) and keeps the touching ones as
  `ContactRows` in C memory (stage 5 diffs them where they lie; games read them through
  ``physics.contacts()``, and ``result`` builds a ``ContactSet`` of them when asked):
  a new pair touches within the contact offset, a pair that touched in the previous step
  until it is apart by more than the separation offset (hysteresis, ``2 * contact_offset``
  by default: resting pairs must not flicker), and a pair that met during the step (the
  response's impacts) touches in that step even if it ends it apart, so no impact goes
  unreported; one compiled call, the previous step's keys merged with this step's pairs in C;
- the rows of sleeping pairs (both sides asleep or STATIC: no step's pairs hold them) are
  not the narrowphase's: they go on in the events' sleeping contacts
  (`systems.sleeping_contacts`); those that wake come back into ``rows`` before the next
  step, so their pairs keep the separation offset.
"""

import esper
import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport int64_t

from ..broadphase.boxindex cimport lower_bound
from ..geometry.distance cimport circles_contact_within, contact_within
from ..geometry.impact cimport time_of_impact
from ..geometry.shape_data cimport (
    CIRCLE, TILEMAP, Body, CContact, Store, TileGrid, grid_tile, leaf_body, store_of, tile_grid,
    tile_leaf, tile_open, tile_range,
)
from ..state.carray cimport as_c, c_array, new_array

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API
from ..state.table_view cimport Rows, row_body, rows_of
from .contact_rows cimport ContactRows
from .gil cimport NOGIL_MIN
from .impacts cimport Impacts

from ..state.contact_set import ContactSet
from ..geometry.contact import TOUCH_TOLERANCE

cdef double TOUCH = TOUCH_TOLERANCE


cdef inline bint boxes_within(const Body* a, const Body* b, double grow) noexcept nogil:
    """The bounding boxes are at most ``grow`` apart on both axes."""
    cdef double dx = b.px - a.px
    cdef double dy = b.py - a.py
    return not (b.x0 + dx - a.x1 > grow or a.x0 - b.x1 - dx > grow
                or b.y0 + dy - a.y1 > grow or a.y0 - b.y1 - dy > grow)


cdef inline object _rows(object a):
    return as_c(a, b'i')


cdef inline object _vectors(object a):
    return as_c(a, b'f')


def contacts(t, ra, rb, pos, double tol):
    """Contacts of the pairs (ra[i], rb[i]) with bodies at ``pos`` (indexed by row).

    Returns ``(hit, normal, depth, point)``; ``hit`` where the shapes are at most ``tol``
    apart (``depth >= -tol``)."""
    cdef const int64_t[::1] a = _rows(ra)
    cdef const int64_t[::1] b = _rows(rb)
    cdef const double[:, ::1] p = _vectors(pos)
    cdef Py_ssize_t k = a.shape[0]
    hit_ = np.zeros(k, dtype=np.bool_)
    normal_ = np.zeros((k, 2))
    depth_ = np.full(k, -np.inf)
    point_ = np.zeros((k, 2))
    if k == 0:
        return hit_, normal_, depth_, point_
    cdef unsigned char[::1] hit = hit_.view(np.uint8)
    cdef double[:, ::1] normal = normal_
    cdef double[::1] depth = depth_
    cdef double[:, ::1] point = point_
    cdef Rows r = rows_of(t)
    cdef Store s = store_of(t.store)
    cdef Py_ssize_t i
    cdef Body ba, bb
    cdef CContact c
    with nogil:
        for i in range(k):
            ba = row_body(&r, a[i], &p[0, 0])
            bb = row_body(&r, b[i], &p[0, 0])
            if contact_within(&s, &ba, &bb, tol, &c):
                hit[i] = 1
                normal[i, 0] = c.nx
                normal[i, 1] = c.ny
                depth[i] = c.depth
                point[i, 0] = c.px
                point[i, 1] = c.py
    return hit_, normal_, depth_, point_


def times_of_impact(t, ra, rb, pos, move):
    """Times of impact of the pairs while each row moves by ``move[row]`` from ``pos[row]``.

    Returns ``(toi, normal)``; ``toi`` inf where the pair does not meet; normal from a to b."""
    cdef const int64_t[::1] a = _rows(ra)
    cdef const int64_t[::1] b = _rows(rb)
    cdef const double[:, ::1] p = _vectors(pos)
    cdef const double[:, ::1] m = _vectors(move)
    cdef Py_ssize_t k = a.shape[0]
    toi_ = np.full(k, np.inf)
    normal_ = np.zeros((k, 2))
    if k == 0:
        return toi_, normal_
    cdef double[::1] toi = toi_
    cdef double[:, ::1] normal = normal_
    cdef Rows r = rows_of(t)
    cdef Store s = store_of(t.store)
    cdef Py_ssize_t i
    cdef int64_t ia, ib
    cdef Body ba, bb
    cdef CContact c
    cdef double when
    with nogil:
        for i in range(k):
            ia = a[i]
            ib = b[i]
            ba = row_body(&r, ia, &p[0, 0])
            bb = row_body(&r, ib, &p[0, 0])
            if time_of_impact(&s, &ba, m[ia, 0], m[ia, 1], &bb, m[ib, 0], m[ib, 1],
                              &when, &c):
                toi[i] = when
                normal[i, 0] = c.nx
                normal[i, 1] = c.ny
    return toi_, normal_


cdef inline bint sorted_has(const int64_t* keys, Py_ssize_t n, Py_ssize_t* j, int64_t key,
                            int64_t last) noexcept nogil:
    """Whether the sorted ``keys`` (``n`` of them) hold ``key``. ``j[0]`` is where the search
    for the previous key (``last``) ended: keys asked for in increasing order walk the list
    once (a merge); a key smaller than the last one is searched for from the start (binary
    search)."""
    if key < last:
        j[0] = lower_bound(keys, 0, n, key)
    else:
        while j[0] < n and keys[j[0]] < key:
            j[0] += 1
    return j[0] < n and keys[j[0]] == key


cdef struct Out:
    # the touching rows being written (see touching_pairs)
    int64_t* index
    double* normal       # 2 per row
    double* point        # 2 per row
    double* depth
    double* toi
    double* speed
    int64_t* keys
    int64_t* ea
    int64_t* eb
    int64_t* la
    int64_t* lb
    int64_t* tile
    int64_t* tile_kind
    unsigned char* sensor
    bint columns
    Py_ssize_t n


cdef inline void put(Out* o, const Rows* r, Py_ssize_t i, int64_t ia, int64_t ib, int64_t key,
                     const CContact* c, double when, double fast, int64_t tile,
                     int64_t kind) noexcept nogil:
    """One touching row: pair i (rows ia, ib), its contact, impact and tile."""
    cdef Py_ssize_t k = o.n
    o.index[k] = i
    o.normal[2 * k] = c.nx
    o.normal[2 * k + 1] = c.ny
    o.depth[k] = c.depth
    o.point[2 * k] = c.px
    o.point[2 * k + 1] = c.py
    o.toi[k] = when
    o.speed[k] = fast
    if o.columns:
        o.keys[k] = key
        o.ea[k] = r.entity[ia]
        o.eb[k] = r.entity[ib]
        o.la[k] = r.layer[ia]
        o.lb[k] = r.layer[ib]
        o.tile[k] = tile
        o.tile_kind[k] = kind
        o.sensor[k] = 1 if r.sensor[ia] or r.sensor[ib] else 0
    o.n = k + 1


cdef inline Py_ssize_t tiles_bound(const Store* s, const Body* tm, const Body* other,
                                   double grow) noexcept nogil:
    """How many tiles of map ``tm`` the box of ``other`` grown by ``grow`` covers."""
    cdef TileGrid g = tile_grid(s, tm)
    cdef int c0, c1, u0, u1
    tile_range(&g, other.px + other.x0 - grow, other.py + other.y0 - grow,
               other.px + other.x1 + grow, other.py + other.y1 + grow, &c0, &c1, &u0, &u1)
    if c0 > c1 or u0 > u1:
        return 0
    return (<Py_ssize_t> (c1 - c0 + 1)) * (u1 - u0 + 1)


cdef struct In:
    # the pairs and what the narrowphase knows of them (see touching_pairs)
    const int64_t* a
    const int64_t* b
    Py_ssize_t k
    const double* pos
    double tol
    double keep_tol
    const int64_t* keys      # the previous step's rows: keys and tiles (pn of them)
    const int64_t* tiles
    Py_ssize_t pn
    const double* when       # per pair, or NULL
    const double* approach   # per pair, or NULL
    const double* vel        # the velocities at the end of the step (n * 2)
    const double* inormal    # 2 per pair (with when)
    const double* ipoint


cdef Py_ssize_t room(const In* q, const Rows* r, const Store* s) noexcept nogil:
    """How many rows the pairs may give: one each, plus the tiles a pair with a tile map may
    touch."""
    cdef Py_ssize_t i, cap = q.k
    cdef int64_t ia, ib
    cdef Body ba, bb
    cdef double grow = (q.keep_tol if q.keep_tol > q.tol else q.tol) + 2 * TOUCH
    for i in range(q.k):
        ia = q.a[i]
        ib = q.b[i]
        if r.code[ia] == TILEMAP or r.code[ib] == TILEMAP:
            ba = row_body(r, ia, q.pos)
            bb = row_body(r, ib, q.pos)
            cap += tiles_bound(s, &ba, &bb, grow) if ba.kind == TILEMAP else \
                tiles_bound(s, &bb, &ba, grow)
    return cap


cdef Py_ssize_t touching(Out* o, const In* q, const Rows* r, const Store* s) noexcept nogil:
    """The touching rows of the pairs into ``o`` (see touching_pairs); returns how many pairs
    got an exact test."""
    cdef Py_ssize_t i, tested = 0, j = 0
    cdef int64_t key, last = -1, ia, ib, tile, kind
    cdef bint touches, met
    cdef Body ba, bb
    cdef CContact c
    cdef double met_at, fast, pair_tol
    cdef double slack = 2 * TOUCH
    for i in range(q.k):
        ia = q.a[i]
        ib = q.b[i]
        pair_tol = q.tol
        key = (r.entity[ia] << 32) | r.entity[ib]
        if q.pn:
            if sorted_has(q.keys, q.pn, &j, key, last):
                pair_tol = q.keep_tol
            last = key
        met = q.when != NULL and q.when[i] < INFINITY
        ba = row_body(r, ia, q.pos)
        bb = row_body(r, ib, q.pos)
        touches = False
        if boxes_within(&ba, &bb, pair_tol + slack):
            tested += 1
            if ba.kind == CIRCLE and bb.kind == CIRCLE:  # (inline: distance.pxd)
                touches = circles_contact_within(s, &ba, &bb, pair_tol, &c)
            else:
                touches = contact_within(s, &ba, &bb, pair_tol, &c)
        if not (touches or met):
            continue
        met_at = q.when[i] if met else INFINITY
        fast = q.approach[i] if met and q.approach != NULL else 0.0
        if touches and not met and pair_tol == q.tol and q.vel != NULL:
            fast = closing(r, q.vel, ia, ib, &c)  # touches ahead of its impact
        if not touches:  # met during the step, apart at its end: the impact's contact
            c.nx = q.inormal[2 * i]
            c.ny = q.inormal[2 * i + 1]
            c.depth = 0.0
            c.px = q.ipoint[2 * i]
            c.py = q.ipoint[2 * i + 1]
        tile = -1
        kind = 0
        if ba.kind == TILEMAP or bb.kind == TILEMAP:
            if touches and put_tiles(o, s, r, i, ia, ib, key, &ba, &bb, q.tol, pair_tol,
                                     q.keys, q.tiles, q.pn if pair_tol > q.tol else 0, j,
                                     met_at, fast):
                continue
            if not met:  # near the map, but no tile's square qualifies: not touching
                continue
            tile_under(s, &ba, &bb, &c, &tile, &kind)
        put(o, r, i, ia, ib, key, &c, met_at, fast, tile, kind)
    return tested


cdef inline double closing(const Rows* r, const double* vel, int64_t ia, int64_t ib,
                           const CContact* c) noexcept nogil:
    """How fast rows ia and ib close along the contact's normal (from ia to ib), 0 if they
    do not: their world velocities, a rider's own plus its carrier's."""
    cdef double vx = vel[2 * ia] - vel[2 * ib], vy = vel[2 * ia + 1] - vel[2 * ib + 1]
    cdef int f = r.carrier[ia]
    if f >= 0:
        vx += vel[2 * f]
        vy += vel[2 * f + 1]
    f = r.carrier[ib]
    if f >= 0:
        vx -= vel[2 * f]
        vy -= vel[2 * f + 1]
    cdef double v = vx * c.nx + vy * c.ny
    return v if v > 0.0 else 0.0


cdef inline bint had_tile(const int64_t* keys, const int64_t* tiles, Py_ssize_t n,
                          Py_ssize_t j, int64_t key, int64_t tile) noexcept nogil:
    """The previous step's rows (sorted by key, then tile) hold (key, tile); ``j`` is where
    the key's rows start (or where it would be)."""
    while j < n and keys[j] == key:
        if tiles[j] == tile:
            return True
        j += 1
    return False


cdef Py_ssize_t put_tiles(Out* o, const Store* s, const Rows* r, Py_ssize_t i, int64_t ia,
                          int64_t ib, int64_t key, const Body* ba, const Body* bb,
                          double tol, double keep_tol, const int64_t* prev_keys,
                          const int64_t* prev_tiles, Py_ssize_t pn, Py_ssize_t j,
                          double when, double fast) noexcept nogil:
    """The rows of a pair with a tile map: one per solid tile the other body touches (its
    contact with the tile's square, or a shaped kind's polygon) within ``tol``, or within ``keep_tol`` for a tile it
    touched in the previous step (``prev_keys`` / ``prev_tiles``, from row ``j``: hysteresis
    per tile), in tile order (rows from the top, then columns). Returns how many."""
    cdef bint map_a = ba.kind == TILEMAP
    cdef const Body* tm = ba if map_a else bb
    cdef const Body* other = bb if map_a else ba
    cdef TileGrid g = tile_grid(s, tm)
    cdef int c0, c1, u0, u1, u, col
    cdef Body square
    cdef CContact c
    cdef Py_ssize_t before = o.n
    cdef int64_t tile
    cdef double reach = keep_tol if keep_tol > tol and pn > 0 else tol
    tile_range(&g, other.px + other.x0 - reach, other.py + other.y0 - reach,
               other.px + other.x1 + reach, other.py + other.y1 + reach, &c0, &c1, &u0, &u1)
    if c0 > c1 or u0 > u1:
        return 0
    for u in range(u1, u0 - 1, -1):  # from the top row down: tile order
        for col in range(c0, c1 + 1):
            if not tile_open(&g, u, col):
                continue
            square = leaf_body(s, tile_leaf(&g, g.kind[u * g.cols + col]),
                               g.ox + (col + 0.5) * g.size,
                               g.oy + (u + 0.5) * g.size)
            if map_a:
                if not contact_within(s, &square, other, reach, &c):
                    continue
            elif not contact_within(s, other, &square, reach, &c):
                continue
            tile = ((<int64_t> (g.rows - 1 - u)) << 32) | col
            if -c.depth > tol and not had_tile(prev_keys, prev_tiles, pn, j, key, tile):
                continue
            put(o, r, i, ia, ib, key, &c, when, fast, tile, g.kind[u * g.cols + col])
    return o.n - before


cdef inline void tile_under(const Store* s, const Body* ba, const Body* bb,
                            const CContact* c, int64_t* tile, int64_t* kind) noexcept nogil:
    """The tile of the map side under a contact point (nudged into the map along the normal,
    which points from ba to bb); -1 and 0 when there is none."""
    cdef bint map_a = ba.kind == TILEMAP
    cdef const Body* tm = ba if map_a else bb
    cdef TileGrid g = tile_grid(s, tm)
    cdef double d = -1e-6 * g.size if map_a else 1e-6 * g.size
    cdef int u = 0, x = 0
    cdef int k = grid_tile(&g, c.px + c.nx * d, c.py + c.ny * d, &u, &x)
    tile[0] = -1
    kind[0] = 0
    if k > 0:
        tile[0] = ((<int64_t> (g.rows - 1 - u)) << 32) | x
        kind[0] = k


def touching_pairs(t, ra, rb, pos, double tol, double keep_tol=-1.0, prev_keys=None,
                   toi=None, impact_normal=None, impact_point=None, speed=None,
                   bint columns=False, prev_tiles=None, ContactRows prev_rows=None,
                   Impacts impacts=None):
    """The pairs whose shapes at ``pos`` are at most ``tol`` apart, tested only where their
    bounding boxes are within ``tol`` (grown by ``2 * TOUCH_TOLERANCE`` so rounding never
    drops a touching pair). Returns ``(index, normal, depth, point, tested)``: the indices
    of the touching pairs into ``ra`` / ``rb`` in increasing order, their contacts, and how
    many pairs got an exact test.

    Hysteresis: a pair whose key (``entity[a] << 32 | entity[b]``) is in ``prev_keys`` (sorted;
    the pairs that touched in the previous step) touches within ``keep_tol`` instead (if it is
    larger than ``tol``). The pairs come in key order (the broadphase's), so this is a merge of
    two sorted lists.

    Impacts: with ``toi`` (per pair, ``inf`` where the pair did not meet during the step) and
    the impacts' ``impact_normal`` / ``impact_point``, a pair that met during the step touches
    even if it ends the step apart: where its shapes are within the pair's tolerance at the
    end it gets that contact like any other pair, else the impact's normal and point and
    depth ``0.0``.

    Tile maps: a touching pair with a `TileMap` gives one row per solid tile the other body
    touches (its contact with that tile's square, the pair's impact for each), in tile order,
    within ``tol``, or within ``keep_tol`` for a tile of a row in ``prev_tiles`` (the tiles of
    the previous rows, aligned with ``prev_keys``; hysteresis per tile); a pair that touches only by an edge no tile square
    reaches, or met during the step and ends apart, gives one row for the tile under its
    contact point. The index of each row is its pair's, so a pair may appear more than once.

    With ``columns``, returns the touching rows as a `ContactRows` instead (entities, keys,
    time of impact, the approach ``speed`` of pairs that met, sensors, layers, tiles and each
    row's pair index: every column, from the same pass, in C memory), with ``deepest`` the
    largest depth of a row without a sensor (``-inf`` if none) and ``tested``. ``prev_rows``
    (instead of ``prev_keys`` / ``prev_tiles``): the previous step's rows, read in place;
    ``impacts`` (instead of ``toi``, ``speed``, ``impact_normal``, ``impact_point``): the
    response's `Impacts` of these pairs, read in place."""
    ra_ = _rows(ra)
    rb_ = _rows(rb)
    pos_ = _vectors(pos)
    cdef Py_ssize_t k, kb, npos, pn, ptn, nw, na, nn, npt, nvel, unused
    cdef const int64_t* a = <const int64_t*> c_array(ra_, b'i', &k)
    cdef const int64_t* b = <const int64_t*> c_array(rb_, b'i', &kb)
    if kb != k:
        raise ValueError(f"ra and rb need the same length, got {k} and {kb}")
    cdef const double* p = <const double*> c_array(pos_, b'f', &npos)
    cdef bint with_rows = prev_rows is not None and prev_rows.n > 0 and keep_tol > tol
    cdef bint with_keep = with_rows or (
        prev_keys is not None and len(prev_keys) > 0 and keep_tol > tol)
    cdef bint with_impacts = toi is not None or impacts is not None
    cdef bint with_speed = with_impacts and (speed is not None or impacts is not None)
    cdef const int64_t* pk
    cdef const int64_t* pt
    if with_rows:
        pk = prev_rows.keys
        pt = prev_rows.tile
        pn = prev_rows.n
    else:
        keys_ = _rows(prev_keys if with_keep else ())
        pk = <const int64_t*> c_array(keys_, b'i', &pn)
        ptiles_ = _rows(prev_tiles if with_keep and prev_tiles is not None
                        else np.full(pn, -1))
        pt = <const int64_t*> c_array(ptiles_, b'i', &ptn)
        if ptn != pn:
            raise ValueError(f"prev_tiles needs one row per previous key ({pn})")
    cdef const double* when
    cdef const double* approach
    cdef const double* inormal
    cdef const double* ipoint
    if impacts is not None:
        if impacts.n < k:
            raise ValueError(f"impacts hold {impacts.n} pairs, not {k}")
        when, approach, inormal, ipoint = impacts.toi, impacts.speed, impacts.normal, \
            impacts.point
        nw = na = k
        nn = npt = 2 * k
    else:
        when_ = _vectors(toi if with_impacts else ())
        approach_ = _vectors(speed if with_speed else ())
        inormal_ = _vectors(impact_normal if with_impacts else np.zeros((0, 2)))
        ipoint_ = _vectors(impact_point if with_impacts else np.zeros((0, 2)))
        when = <const double*> c_array(when_, b'f', &nw)
        approach = <const double*> c_array(approach_, b'f', &na)
        inormal = <const double*> c_array(inormal_, b'f', &nn)
        ipoint = <const double*> c_array(ipoint_, b'f', &npt)
    if with_impacts and (nw != k or nn != 2 * k or npt != 2 * k):
        raise ValueError(f"toi, impact_normal and impact_point need one row per pair ({k})")
    if with_speed and na != k:
        raise ValueError(f"speed needs one row per pair ({k})")
    cdef Rows r = rows_of(t)
    cdef Store s = store_of(t.store)
    cdef In q
    vel_ = t.vel
    q.vel = <const double*> c_array(vel_, b'f', &nvel) if t.n else NULL
    q.a = a if k else NULL
    q.b = b if k else NULL
    q.k = k
    q.pos = p if npos else NULL
    q.tol = tol
    q.keep_tol = keep_tol
    q.keys = pk if pn else NULL
    q.tiles = pt if pn else NULL
    q.pn = pn if with_keep else 0
    q.when = when if with_impacts and k else NULL
    q.approach = approach if with_speed and k else NULL
    q.inormal = inormal if with_impacts and k else NULL
    q.ipoint = ipoint if with_impacts and k else NULL
    if columns:
        return contact_rows_of(&q, &r, &s)
    cdef Py_ssize_t cap, tested
    with nogil:
        cap = room(&q, &r, &s)
    cdef Out o
    cdef double* floats
    o.columns = False
    o.n = 0
    if True:
        index_ = new_array(cap, -1, b'i')
        normal_ = new_array(cap, 2, b'f')
        point_ = new_array(cap, 2, b'f')
        floats_ = new_array(3, cap, b'f')  # depth, toi, speed
        if cap:
            o.index = <int64_t*> c_array(index_, b'i', &unused)
            o.normal = <double*> c_array(normal_, b'f', &unused)
            o.point = <double*> c_array(point_, b'f', &unused)
            floats = <double*> c_array(floats_, b'f', &unused)
            o.depth = floats
            o.toi = floats + cap
            o.speed = floats + 2 * cap
    with nogil:
        tested = touching(&o, &q, &r, &s)
    cdef Py_ssize_t found = o.n
    return index_[:found], normal_[:found], floats_[0, :found], point_[:found], tested


cdef Py_ssize_t _touching_rows(Out* o, const In* q, const Rows* r, const Store* s,
                               double* deepest) noexcept nogil:
    """`touching` into ``o``, and the deepest solid contact's depth into ``deepest``."""
    cdef Py_ssize_t i, tested = touching(o, q, r, s)
    for i in range(o.n):
        if not o.sensor[i] and o.depth[i] > deepest[0]:
            deepest[0] = o.depth[i]
    return tested


cdef ContactRows contact_rows_of(const In* q, const Rows* r, const Store* s):
    """The touching rows of the pairs ``q`` as new `ContactRows` (with ``deepest`` and
    ``tested``)."""
    cdef Py_ssize_t cap, tested
    cdef double deepest = -INFINITY
    cdef bint big = q.k + r.n >= NOGIL_MIN
    if big:
        with nogil:
            cap = room(q, r, s)
    else:
        cap = room(q, r, s)
    cdef ContactRows rows = ContactRows()
    rows.reserve(cap)
    cdef Out o
    o.columns = True
    o.n = 0
    o.index = rows.index
    o.normal = rows.normal
    o.point = rows.point
    o.depth = rows.depth
    o.toi = rows.toi
    o.speed = rows.speed
    o.keys = rows.keys
    o.ea = rows.ea
    o.eb = rows.eb
    o.la = rows.la
    o.lb = rows.lb
    o.tile = rows.tile
    o.tile_kind = rows.tile_kind
    o.sensor = rows.sensor
    if big:
        with nogil:
            tested = _touching_rows(&o, q, r, s, &deepest)
    else:
        tested = _touching_rows(&o, q, r, s, &deepest)
    rows.n = o.n
    rows.deepest = deepest
    rows.tested = tested
    return rows


#: How much wider than the contact offset the separation offset is by default: a pair that
#: touched in the previous step stops touching only when its shapes are apart by more than
#: ``SEPARATION_FACTOR * contact_offset`` (hysteresis: "resting pairs must not flicker").
SEPARATION_FACTOR = 2.0


def contact_set_of(ContactRows rows not None):
    """``rows`` as a `ContactSet` (built on first use, then kept with the rows)."""
    if rows.cached_set is None:
        cols = {name: rows.array(name) for name in (
            "a", "b", "normal", "depth", "point", "toi", "sensor", "speed", "layer_a",
            "layer_b", "tile", "tile_kind")}
        rows.cached_set = ContactSet(**cols, _keys=rows.array("keys"))
    return rows.cached_set


cdef class NarrowphaseSystem:
    """Stages 3 and 5: the exact contacts of the candidate pairs at the end of the step.

    The step's touching rows stay in C memory (``rows``, a `ContactRows`); ``result`` builds
    the `ContactSet` of them only when someone reads it.

    Parameters:
        table: the body table.
        contact_offset: shapes this close start touching.
        separation_offset: a pair already touching stops only beyond this gap (None:
            ``SEPARATION_FACTOR * contact_offset``); not below ``contact_offset``.
    """

    def __init__(self, table, contact_offset=0.01, separation_offset=None):
        self.table = table
        self.contact_offset = contact_offset
        if separation_offset is None:
            separation_offset = SEPARATION_FACTOR * contact_offset
        self.separation_offset = max(separation_offset, contact_offset)
        #: the last step's touching rows (see `ContactRows`)
        self.rows = ContactRows()
        self._last = None
        self._pairs_of = None

    @property
    def result(self):
        """The last step's touching rows as a `ContactSet` (built on first use, then kept)."""
        return contact_set_of(self.rows)

    @result.setter
    def result(self, contacts):
        """Take ``contacts`` (a `ContactSet`, e.g. a restored snapshot's) as the last step's
        rows: the next step's hysteresis reads them."""
        rows = ContactRows.from_contact_set(contacts)
        rows.cached_set = contacts
        self.rows = rows

    @property
    def deepest(self):
        """The largest depth of a touching row without a sensor in the last step (-inf:
        none)."""
        return (<ContactRows> self.rows).deepest

    @property
    def tests(self):
        """How many exact pair tests the last step ran (diagnostics)."""
        return (<ContactRows> self.rows).tested

    @property
    def pair_index(self):
        """Per row of ``result``: the index of its pair in the step's pair lists."""
        return self.rows.array("index")

    @property
    def last_input(self):
        """What the last step tested (tests and diagnostics): the pairs, the previous step's
        keys that kept the wider tolerance (None: none), and the impacts."""
        if self._last is None:
            return None
        ra, rb, prev, met = self._last
        if ra is None:  # the compiled step's: the broadphase's pairs of that step
            ra, rb = self._pairs_of.ra, self._pairs_of.rb
        if isinstance(prev, ContactRows):
            prev = prev.array("keys")
        if isinstance(met, Impacts):
            toi, _, normal, point = met.arrays()
            met = (toi[:len(ra)], normal[:len(ra)], point[:len(ra)])
        return (ra, rb, prev, *met)

    def process(self, ra, rb, toi=None, speed=None, normal=None, point=None, changed=None,
                impacts=None):
        """Contacts of the pairs at the table's current positions into ``self.rows``.

        ``ra`` / ``rb`` come in entity-pair order (the broadphase's). The pairs that touched in
        the last ``process`` keep touching up to the separation offset, except those with an
        entity in ``changed`` (collider or geometry changed: they start again like new
        pairs). With ``toi`` (and the impacts' ``speed``, ``normal``, ``point``: per pair,
        from the response, or ``impacts``: its `Impacts`), a pair that met during the step
        touches even if it ends the step apart (see `touching_pairs`).

        The candidates come from swept boxes; pairs whose boxes at the end of the step are
        apart by more than their tolerance cannot touch and are not tested (the same result,
        fewer exact tests)."""
        t = self.table
        cdef ContactRows prev = self.rows
        prev_keys = prev_tiles = None
        prev_rows = None
        if prev.n and self.separation_offset > self.contact_offset:
            if changed:
                prev_keys, prev_tiles = prev.array("keys"), prev.array("tile")
                ch = np.fromiter(changed, dtype=np.int64, count=len(changed))
                keep = ~(np.isin(prev.array("a"), ch) | np.isin(prev.array("b"), ch))
                prev_keys = prev_keys[keep]
                prev_tiles = prev_tiles[keep]
            else:
                prev_rows = prev
        if toi is not None and normal is None:
            normal = np.zeros((len(toi), 2))
        if toi is not None and point is None:
            point = np.zeros((len(toi), 2))
        self._last = (ra, rb, prev_rows if prev_rows is not None else prev_keys,
                      impacts if impacts is not None else (toi, normal, point))
        self.rows = touching_pairs(
            t, ra, rb, t.pos, self.contact_offset, self.separation_offset, prev_keys,
            toi, normal, point, speed, columns=True, prev_tiles=prev_tiles,
            prev_rows=prev_rows, impacts=impacts)

    cdef int step_rows(self, const int64_t* a, const int64_t* b, Py_ssize_t k, object changed,
                       Impacts impacts, object pairs_of, const Rows* r,
                       const Store* s) except -1:
        """`process` for the compiled step: the pairs ``a``, ``b`` (``k`` of them, those
        ``pairs_of.ra`` / ``.rb`` give as arrays) with the response's ``impacts``; ``r``
        and ``s``: the table's C rows and shapes now."""
        cdef ContactRows prev = self.rows
        if changed and prev.n and self.separation_offset > self.contact_offset:
            ra, rb = pairs_of.ra, pairs_of.rb  # entities changed: through the arrays
            self.process(ra, rb, changed=changed, impacts=impacts)
            return 0
        if impacts.n < k:
            raise ValueError(f"impacts hold {impacts.n} pairs, not {k}")
        cdef bint keep = prev.n > 0 and self.separation_offset > self.contact_offset
        cdef In q
        q.a = a if k else NULL
        q.b = b if k else NULL
        q.k = k
        q.pos = r.pos
        q.vel = r.vel if r.n else NULL
        q.tol = self.contact_offset
        q.keep_tol = self.separation_offset
        q.keys = prev.keys if keep else NULL
        q.tiles = prev.tile if keep else NULL
        q.pn = prev.n if keep else 0
        q.when = impacts.toi if k else NULL
        q.approach = impacts.speed if k else NULL
        q.inormal = impacts.normal if k else NULL
        q.ipoint = impacts.point if k else NULL
        self._last = (None, None, prev if keep else None, impacts)
        self._pairs_of = pairs_of
        self.rows = contact_rows_of(&q, r, s)
        return 0

    def reset(self):
        """Forget the last step's contacts (no hysteresis for them in the next step)."""
        self.rows = ContactRows()
        self._last = None
