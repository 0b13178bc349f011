# cython: embedsignature=True
"""Sleeping: bodies at rest stop moving, together with what they rest on and against, and
wake for anything that would move them.

Guarantees:
- `rest_rows` (every step while sleeping is on, after the ground and the limits): a body that
  is neither STATIC nor asleep rests this step when it is held, slow and has not moved.
  Held: a body with an acceleration (gravity) has a solid contact that holds it up
  (``GROUND_SUPPORT``: the other side lies against its acceleration; `systems.ground`), so a
  body in mid-air, one whose support was dug or deleted, or one sliding down a wall never
  rests; a body without acceleration needs none. Slow: its speed is at most ``s =
  max(sleep_speed, 2 * |acc| * dt)`` and it moved at most ``s * dt`` in the step (what one
  step of its acceleration adds twice: a resting body meets what holds it at about that
  speed every step, whatever the game's units). Not drifting: since its rest began
  (``rest_pos``, taken in the first step it rests) it moved no further than ``sleep_speed``
  times the time it has rested, or times ``sleep_after`` if that is more: a body sliding
  along a floor or off a ledge faster than ``sleep_speed`` never rests ``sleep_after``,
  while a pile that jitters in place, or creeps slower than that while its island
  settles, does. Its ``rest_time`` grows by
  ``dt``, else it is 0 (and its next rest begins where it is then). Never resting: a rider
  whose carrier moved in this step; a body of infinite mass or without a collider unless
  its velocity and acceleration are exactly 0 (a slow door must not freeze);
- `fall_asleep` (run only in a step where an awake body has rested ``sleep_after``; it
  looks at the awake rows and the rows their contacts reach, not at every row, so a body
  falling asleep beside many sleepers costs its island): islands are the bodies linked by
  the step's solid contacts (no sensor side) between
  *linking* bodies: colliding, not STATIC, of finite mass, not sensors (`islands`); static
  bodies and bodies of infinite mass link nothing, so two piles on one floor are two
  islands. An island whose every body rested ``sleep_after`` (or already sleeps) falls
  asleep together: ``asleep = 1``, velocity and move exactly 0, ``prev_pos = pos`` (drawn
  still), ``island`` the entity of its smallest row, or, when it joins sleeping islands,
  the smallest of their ids (which they all take). Positions are not written: a sleeper
  keeps its position bit for bit while it sleeps;
- `wake_marks` (after the broadphase, when anything sleeps): every sleeper in a pair with a
  body that could reach it in this step is marked: an awake body that did not rest in the
  last step (it moved, was just made or woken) within its own move, its carrier's move and
  ``offset`` (the contact offset) of it at the step's start positions (`contact_within`), or
  a STATIC body the game changed (``forced``) within ``offset``; sensors wake nothing. An
  awake body that rests beside a sleeper meets it as a fixed partner, and sleeps with its
  island once it has rested ``sleep_after`` too (they link through their contact);
- `wake_rows` (and `wake_marked`) wakes every body of the islands of the given
  sleepers: ``asleep = 0``, ``island = -1``, ``rest_time = 0``; velocities are left as they
  are (0, or what the game wrote); it walks each island's list (`islands.pxd`), so a wake
  costs the rows it wakes, however many sleep elsewhere
- a sleeper is a static box of the broadphase (`systems.broadphase`): it pairs only with
  awake bodies. A contact row whose sides both sleep or are STATIC is marked `DORMANT` at
  the end of its step (`mark_dormant`) and goes on, as it is, in the sleeping contacts
  (`systems.sleeping_contacts`) while they sleep (touching, keep-touching and
  ``contacts()`` go on); after every wake the rows of pairs no longer asleep leave them,
  marked `WOKEN` (`dormant_rows`, `still_pairs`), so their pairs are found again;
- `take_requests` applies the table's wake requests (see `state.body_table`): the islands of
  the requested bodies, of the sleepers touching them in the last step's contacts, and of
  the sleepers near the tiles changed since the last step wake;
- every loop is over rows in ascending order and contacts in their (key, tile) order: the
  same bits in every process.
"""

import numpy as np

from ..state.body_table import SLEEP_LOG
from ..state.id_sets import unique_ids

from libc.math cimport isinf, sqrt
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc

from ..broadphase.boxindex cimport lower_bound
from ..geometry.distance cimport contact_within
from ..geometry.shape_data cimport Body, CContact, Store
from libc.string cimport memchr, memcpy

from ..state.carray cimport as_c, c_array, new_array
from ..state.table_view cimport GROUND_SUPPORT, Rows, row_body, rows_of
from .contact_rows cimport DORMANT, WOKEN, ContactRows
from .islands cimport find_islands, island_alone, island_splice, root_of

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API

cdef int STATIC = 0


cdef Py_ssize_t rest_rows(Rows* r, const int64_t* rows, Py_ssize_t n, double dt, double speed,
                          double after, Py_ssize_t* awake) noexcept nogil:
    """Each awake body's ``rest_time`` after this step (see the module comment), over the
    ``n`` rows listed in ``rows`` (or rows ``0 .. n`` when NULL); returns how many awake
    bodies have now rested at least ``after`` seconds, and in ``awake`` how many bodies are
    awake (not STATIC, not asleep)."""
    cdef int i, c
    cdef Py_ssize_t q
    cdef double ax, ay, vx, vy, dx, dy, s
    cdef double reach, held
    cdef Py_ssize_t ready = 0
    cdef bint rests
    awake[0] = 0
    for q in range(n):
        i = <int> (rows[q] if rows != NULL else q)
        if r.kind[i] == STATIC or r.asleep[i]:
            continue
        awake[0] += 1
        ax = r.acc[2 * i]
        ay = r.acc[2 * i + 1]
        vx = r.vel[2 * i]
        vy = r.vel[2 * i + 1]
        if not r.collides[i] or r.inv_mass[i] == 0.0 or isinf(r.mass[i]):
            rests = vx == 0.0 and vy == 0.0 and ax == 0.0 and ay == 0.0
        elif (ax != 0.0 or ay != 0.0) and not (r.ground[i] & GROUND_SUPPORT):
            rests = False  # in mid-air, or against a wall: it falls
        else:
            s = 2.0 * dt * sqrt(ax * ax + ay * ay)
            if s < speed:
                s = speed
            dx = r.pos[2 * i] - r.prev[2 * i]
            dy = r.pos[2 * i + 1] - r.prev[2 * i + 1]
            rests = vx * vx + vy * vy <= s * s and dx * dx + dy * dy <= s * s * dt * dt
            if rests and r.rest_time[i] > 0.0:  # not drifting from where this rest began?
                held = r.rest_time[i] + dt
                reach = speed * (held if held > after else after)
                dx = r.pos[2 * i] - r.rest_pos[2 * i]
                dy = r.pos[2 * i + 1] - r.rest_pos[2 * i + 1]
                rests = dx * dx + dy * dy <= reach * reach
        c = r.carrier[i]
        if rests and c >= 0 and (r.move[2 * c] != 0.0 or r.move[2 * c + 1] != 0.0):
            rests = False  # it rides a platform that moves
        if rests:
            if r.rest_time[i] == 0.0:  # a rest begins here
                r.rest_pos[2 * i] = r.pos[2 * i]
                r.rest_pos[2 * i + 1] = r.pos[2 * i + 1]
            r.rest_time[i] += dt
            if r.rest_time[i] >= after:
                ready += 1
        else:
            r.rest_time[i] = 0.0
    return ready


cdef inline bint _links(const Rows* r, int i) noexcept nogil:
    return (r.collides[i] and r.kind[i] != STATIC and r.inv_mass[i] > 0.0
            and not isinf(r.mass[i]) and not r.sensor[i])


cdef int _cmp_labels(const void* x, const void* y) noexcept nogil:
    cdef int64_t a = (<const int64_t*> x)[0], b = (<const int64_t*> y)[0]
    return (a > b) - (a < b)


cdef inline Py_ssize_t _label_at(const int64_t* lab, Py_ssize_t nl, int64_t v) noexcept nogil:
    """The index of label ``v`` in the sorted, unique ``lab`` (-1: not there)."""
    cdef Py_ssize_t lo = lower_bound(lab, 0, nl, v)
    return lo if lo < nl and lab[lo] == v else -1


cdef inline Py_ssize_t _label_root(Py_ssize_t* up, Py_ssize_t x) noexcept nogil:
    while up[x] != x:
        up[x] = up[up[x]]
        x = up[x]
    return x


cdef inline void _free_all(void* rows, void* ta, void* parent, void* flags, void* first,
                           void* lab, void* up) noexcept nogil:
    """`fall_asleep`'s buffers freed (any of them NULL)."""
    free(rows)
    free(ta)
    free(parent)
    free(flags)
    free(first)
    free(lab)
    free(up)


cdef inline Py_ssize_t _local(int* loc, int64_t* rows, Py_ssize_t k, int64_t row) noexcept nogil:
    """Row ``row``'s local id in `fall_asleep` (given one, the next, if it has none); the
    number of local ids after."""
    if loc[row] < 0:
        loc[row] = <int> k
        rows[k] = row
        return k + 1
    return k


cdef Py_ssize_t fall_asleep(Rows* r, const int64_t* awake, Py_ssize_t nw, const int64_t* pa,
                            const int64_t* pb, const int64_t* index,
                            const unsigned char* sensor, Py_ssize_t m, double after,
                            int* loc, int64_t* fell) noexcept nogil:
    """The islands whose every body rested ``after`` seconds (or sleeps) fall asleep (see the
    module comment), looking only at the ``nw`` awake rows ``awake`` (ascending; NULL: rows
    ``0 .. nw``) and the rows they touch: the step's ``m`` contact rows are pairs ``index`` of
    ``pa``/``pb`` (``sensor``: the row has a sensor side; a sleeping pair's row, index
    ``DORMANT``, links nothing here: its sides sleep in one island already). ``loc``: one int
    per row of the table, all -1, and all -1 again on return. An island that joins one
    sleeping island takes its id; one that joins several takes the smallest of their ids,
    and their sleepers take it too (walking their lists: a join costs the islands joined);
    else it takes the entity of its smallest row. The island lists (``island_next``,
    ``island_prev``; `islands.pxd`) follow: the rows that fell form their island's list,
    spliced into the lists of the sleeping islands they join. The rows that fell asleep go to ``fell``
    (ascending). Returns how many; -1 when out of memory (nothing changed)."""
    cdef Py_ssize_t k = 0, q, count = 0, nl = 0, j, x, y, t
    cdef int64_t i, root
    cdef int64_t* rows = <int64_t*> malloc((nw + 2 * m + 1) * sizeof(int64_t))
    cdef int64_t* ta = <int64_t*> calloc(2 * m + 1, sizeof(int64_t))
    cdef int* parent = <int*> malloc((nw + 2 * m + 1) * sizeof(int))
    cdef unsigned char* flags = <unsigned char*> calloc(3 * (nw + 2 * m) + 1, 1)
    cdef int64_t* first = <int64_t*> malloc(2 * (nw + 2 * m + 1) * sizeof(int64_t))
    cdef int64_t* head = first + (nw + 2 * m + 1)  # (a falling island's first row, by root)
    cdef int64_t* lab_row = NULL                  # (a row of each sleeping island joined)
    cdef int* nxt = r.island_next
    cdef int* prv = r.island_prev
    cdef int64_t* lab = NULL
    cdef Py_ssize_t* up = NULL
    cdef int64_t* tb
    cdef unsigned char* links
    cdef unsigned char* ok
    cdef unsigned char* ready
    if rows == NULL or ta == NULL or parent == NULL or flags == NULL or first == NULL:
        _free_all(rows, ta, parent, flags, first, lab, up)
        return -1
    # local ids: the awake rows first (ascending), then the rows their contacts reach
    for q in range(nw):
        k = _local(loc, rows, k, awake[q] if awake != NULL else q)
    t = 0
    tb = ta + m
    for q in range(m):
        if not sensor[q] and index[q] >= 0:
            k = _local(loc, rows, k, pa[index[q]])
            k = _local(loc, rows, k, pb[index[q]])
            ta[t] = loc[pa[index[q]]]
            tb[t] = loc[pb[index[q]]]
            t += 1
    links = flags
    ok = flags + k
    ready = flags + 2 * k
    for x in range(k):
        links[x] = _links(r, rows[x])
        first[x] = -1
        head[x] = -1
    find_islands(<int> k, ta, tb, t, links, parent)
    # an island falls asleep when it has a body awake and every awake body rested
    for x in range(k):
        ok[x] = 1
    for x in range(k):
        i = rows[x]
        if r.kind[i] != STATIC and not r.asleep[i]:
            root = root_of(parent, <int> x)
            ready[root] = 1
            if r.rest_time[i] < after:
                ok[root] = 0
    # the sleeping islands the falling ones join: their ids, merged (a small union-find)
    for x in range(k):
        root = root_of(parent, <int> x)
        if r.asleep[rows[x]] and ready[root] and ok[root]:
            nl += 1
    if nl:
        lab = <int64_t*> malloc(2 * nl * sizeof(int64_t))
        lab_row = lab + nl
        up = <Py_ssize_t*> malloc(nl * sizeof(Py_ssize_t))
        if lab == NULL or up == NULL:
            for x in range(k):
                loc[rows[x]] = -1
            _free_all(rows, ta, parent, flags, first, lab, up)
            return -1
        nl = 0
        for x in range(k):
            root = root_of(parent, <int> x)
            if r.asleep[rows[x]] and ready[root] and ok[root]:
                lab[nl] = r.island[rows[x]]
                nl += 1
        qsort(lab, nl, sizeof(int64_t), _cmp_labels)
        j = 0
        for q in range(nl):
            if q == 0 or lab[q] != lab[j - 1]:
                lab[j] = lab[q]
                j += 1
        nl = j
        for q in range(nl):
            up[q] = q
        for x in range(k):
            if not r.asleep[rows[x]]:
                continue
            root = root_of(parent, <int> x)
            if not (ready[root] and ok[root]):
                continue
            y = _label_at(lab, nl, r.island[rows[x]])
            lab_row[y] = rows[x]
            if first[root] < 0:
                first[root] = y
            else:  # one island now: the smaller id is the root
                y = _label_root(up, y)
                j = _label_root(up, first[root])
                if y < j:
                    up[j] = y
                elif j < y:
                    up[y] = j
    for x in range(k):  # (the awake rows come first, ascending: `fell` is ascending)
        i = rows[x]
        if r.kind[i] == STATIC or r.asleep[i]:
            continue
        root = root_of(parent, <int> x)
        if not ok[root]:
            continue
        fell[count] = i
        count += 1
        r.asleep[i] = 1
        r.vel[2 * i] = 0.0
        r.vel[2 * i + 1] = 0.0
        r.move[2 * i] = 0.0
        r.move[2 * i + 1] = 0.0
        r.prev[2 * i] = r.pos[2 * i]
        r.prev[2 * i + 1] = r.pos[2 * i + 1]
        r.island[i] = (lab[_label_root(up, first[root])] if first[root] >= 0
                       else r.entity[rows[root]])
        island_alone(nxt, prv, <int> i)  # (its island's list)
        if head[root] < 0:
            head[root] = i
        else:
            island_splice(nxt, prv, <int> head[root], <int> i)
    for q in range(nl):  # joined several sleeping islands: they take the merged id, and
        j = _label_root(up, q)  # their lists become one (each list spliced in once)
        if j != q:
            i = lab_row[q]
            while True:
                r.island[i] = lab[j]
                i = nxt[i]
                if i == lab_row[q]:
                    break
            island_splice(nxt, prv, <int> lab_row[j], <int> lab_row[q])
    for x in range(k):  # the islands that fell join the lists of the sleepers they touch
        if head[x] >= 0 and first[x] >= 0:
            island_splice(nxt, prv, <int> lab_row[_label_root(up, first[x])], <int> head[x])
    for x in range(k):
        loc[rows[x]] = -1
    _free_all(rows, ta, parent, flags, first, lab, up)
    return count


cdef void mark_dormant(const Rows* r, const int64_t* pa, const int64_t* pb,
                       ContactRows rows) noexcept nogil:
    """At the end of a step: each contact row whose sides both sleep or are STATIC (one at
    least asleep) gets the index ``DORMANT``: its pair is in no later step's pairs (a
    sleeper is a static box of the broadphase), so the row goes on in the sleeping contacts
    (`systems.sleeping_contacts`) until a side wakes; ``rows.ndormant`` counts them."""
    cdef Py_ssize_t q, count = 0
    cdef int64_t p, a, b
    for q in range(rows.n):
        p = rows.index[q]
        if p < 0:
            continue
        a = pa[p]
        b = pb[p]
        if ((r.asleep[a] or r.asleep[b]) and (r.asleep[a] or r.kind[a] == STATIC)
                and (r.asleep[b] or r.kind[b] == STATIC)):
            rows.index[q] = DORMANT
            count += 1
    rows.ndormant = count


def still_pairs(table, a, b):
    """Per pair of entities ``a[i]``, ``b[i]``: whether it is a sleeping pair now (both
    bodies of the table, each asleep or STATIC, one at least asleep), as a bool array."""
    cdef Py_ssize_t m = len(a), n = table.n
    if not (table.sleepers and n and m):
        return np.zeros(m, dtype=bool)
    ent = table.entity[:n]
    cdef int64_t top = int(ent.max())
    if top >= 4 * n + 1024:  # sparse ids: a binary search in the sorted ids
        return _still_sparse(table, a, b)
    out = np.zeros(m, dtype=bool)
    cdef const int64_t[::1] e = np.ascontiguousarray(ent, dtype=np.int64)
    cdef const int64_t[::1] ea = np.ascontiguousarray(a, dtype=np.int64)
    cdef const int64_t[::1] eb = np.ascontiguousarray(b, dtype=np.int64)
    cdef const unsigned char[::1] sl = np.ascontiguousarray(table.asleep[:n], dtype=np.uint8)
    cdef const int64_t[::1] kind = np.ascontiguousarray(table.kind[:n], dtype=np.int64)
    cdef unsigned char[::1] o = out.view(np.uint8)
    cdef unsigned char* state = <unsigned char*> calloc(top + 1, 1)  # by id: 0 none,
    if state == NULL:                                                 # 1 STATIC, 2 asleep
        raise MemoryError(f"still_pairs: cannot hold {top + 1} flags")
    cdef Py_ssize_t i, q
    cdef int64_t x, y
    cdef unsigned char sx, sy
    with nogil:
        for i in range(n):
            state[e[i]] = 2 if sl[i] else (1 if kind[i] == STATIC else 0)
        for q in range(m):
            x = ea[q]
            y = eb[q]
            if x < 0 or y < 0 or x > top or y > top:
                continue
            sx = state[x]
            sy = state[y]
            o[q] = sx != 0 and sy != 0 and (sx == 2 or sy == 2)
    free(state)
    return out


def _still_sparse(table, a, b):
    """`still_pairs` for entity ids far beyond the table's size (NumPy, a binary search)."""
    n = table.n
    ent = table.entity[:n]
    asleep = table.asleep[:n].astype(bool)
    still = asleep | (table.kind[:n] == STATIC)
    order = np.argsort(ent, kind="stable")
    sorted_ent = ent[order]

    def sides(e):
        at = np.minimum(np.searchsorted(sorted_ent, e), n - 1)
        return sorted_ent[at] == e, order[at]

    fa, ra = sides(a)
    fb, rb = sides(b)
    return fa & fb & still[ra] & still[rb] & (asleep[ra] | asleep[rb])


def dormant_rows(table, ContactRows rows) -> int:
    """Mark ``rows`` (the last step's contacts) again from the table's sleep state now: a
    row stays ``DORMANT`` only while it is a sleeping pair (`still_pairs`); any other
    dormant row becomes ``WOKEN`` (its pair is found again, or it ended). Marks rows
    dormant the same way (a snapshot restored, a step put back). Returns how many rows are
    dormant (``rows.ndormant``)."""
    cdef Py_ssize_t m = rows.n, q, count = 0
    if not m:
        rows.ndormant = 0
        return 0
    dorm = still_pairs(table, rows.array("a"), rows.array("b")).view(np.uint8)
    cdef const unsigned char[::1] d = dorm
    for q in range(m):
        if d[q]:
            rows.index[q] = DORMANT
            count += 1
        elif rows.index[q] == DORMANT:
            rows.index[q] = WOKEN
    rows.ndormant = count
    return count


cdef Py_ssize_t wake_marks(const Rows* r, const Store* s, const int64_t* pa,
                           const int64_t* pb, Py_ssize_t npairs, double offset,
                           const unsigned char* forced, unsigned char* mark) noexcept nogil:
    """Mark (``mark[row] = 1``) every sleeper a body of the step's pairs could reach in this
    step (see the module comment); returns how many were marked."""
    cdef Py_ssize_t p, count = 0
    cdef int64_t a, b, x, sl
    cdef int c
    cdef double reach, mx, my
    cdef Body bx, bs
    cdef CContact cc
    for p in range(npairs):
        a = pa[p]
        b = pb[p]
        if r.asleep[a] == r.asleep[b] or r.sensor[a] or r.sensor[b]:
            continue
        if r.asleep[a]:
            sl = a
            x = b
        else:
            sl = b
            x = a
        if mark[sl]:
            continue
        if r.kind[x] == STATIC:
            if forced == NULL or not forced[x]:
                continue
            reach = offset
        elif r.rest_time[x] > 0.0:
            continue  # it rested in the last step: the sleeper holds it like a wall
        else:
            mx = r.move[2 * x]
            my = r.move[2 * x + 1]
            reach = offset + sqrt(mx * mx + my * my)
            c = r.carrier[x]
            if c >= 0:
                mx = r.move[2 * c]
                my = r.move[2 * c + 1]
                reach += sqrt(mx * mx + my * my)
        bx = row_body(r, x, r.pos)
        bs = row_body(r, sl, r.pos)
        if contact_within(s, &bx, &bs, reach, &cc):
            mark[sl] = 1
            count += 1
    return count


#: more bodies than this falling asleep or waking at once: the broadphase indexes every
#: static box again (one vectorised pass) rather than these one by one
STATIC_BATCH = 64


def sleep_changed(table, rows, entities=None) -> None:
    """The rows ``rows`` (ascending, each once) fell asleep or woke: they are static boxes of
    the broadphase, or are no more (see `state.body_table`). ``entities``: those of the rows that collide, when the
    caller has them (a few)."""
    version = table.sleep_version + 1
    table.sleep_version = version
    log = table.sleep_log  # (what changed, for those who follow the awake rows)
    log.append((version, rows))
    if len(log) > SLEEP_LOG:
        del log[0]
    table.static_version += 1
    if entities is not None:
        table.static_dirty.update(entities)
        return
    if len(rows) > STATIC_BATCH:
        rows = rows[table.collides[rows]]
    if len(rows) > STATIC_BATCH:
        table.static_all = True
    else:  # (a few: plain look-ups beat NumPy's fancy indexing)
        collides, entity = table.collides, table.entity
        table.static_dirty.update([int(entity[r]) for r in rows.tolist() if collides[r]])


cdef int note_fell(object table, const Rows* r, const int64_t* rows,
                   Py_ssize_t fell) except -1:
    """`sleep_changed` for the ``fell`` rows ``rows`` that fell asleep in a step, and the
    sleepers' count: the log's array made through NumPy's C API and the entities that collide
    read from the table's columns (no Python call, no list: a step in which one body falls
    asleep costs what its few Python object writes cost)."""
    cdef Py_ssize_t q, colliding = 0
    arr = new_array(fell, -1, b'i')
    memcpy(cnp.PyArray_DATA(<cnp.ndarray> arr), rows, fell * sizeof(int64_t))
    table.sleepers += fell
    version = table.sleep_version + 1
    table.sleep_version = version
    log = table.sleep_log
    log.append((version, arr))
    if len(log) > SLEEP_LOG:
        del log[0]
    table.static_version += 1
    for q in range(fell):
        colliding += r.collides[rows[q]] != 0
    if colliding > STATIC_BATCH:
        table.static_all = True
    elif colliding:
        dirty = table.static_dirty
        for q in range(fell):
            if r.collides[rows[q]]:
                dirty.add(r.entity[rows[q]])
    return 0


cdef struct Woken:
    int64_t* rows      # the rows woken so far (malloc'd, grown by doubling)
    Py_ssize_t n
    Py_ssize_t cap
    Py_ssize_t most    # the sleepers when the wake began: no more can wake


cdef int wake_walk(Rows* r, int64_t row, Woken* w) except -1 nogil:
    """Wake row ``row``'s island if it sleeps (every row of its list: ``asleep = 0``,
    ``island = -1``, ``rest_time = 0``, out of the list), the rows added to ``w`` (never more
    than ``w.most`` in all: a broken list cannot run on)."""
    cdef int x, y
    cdef int64_t* grown
    if not r.asleep[row]:
        return 0
    x = <int> row
    while w.n < w.most:
        if w.n == w.cap:
            w.cap = min(2 * w.cap + 16, w.most)
            grown = <int64_t*> realloc(w.rows, w.cap * sizeof(int64_t))
            if grown == NULL:
                with gil:
                    raise MemoryError(f"cannot wake {w.cap} rows")
            w.rows = grown
        y = r.island_next[x]
        r.asleep[x] = 0
        r.island[x] = -1
        r.rest_time[x] = 0.0
        r.island_next[x] = -1
        r.island_prev[x] = -1
        w.rows[w.n] = x
        w.n += 1
        if y < 0 or y == row:
            break
        x = y
    return 0


cdef object _woke(object table, Woken* w):
    """The rows ``w`` woke: ascending, as an array; the sleepers' count and the broadphase's
    static changes follow (`sleep_changed`). Frees ``w``'s rows."""
    cdef Py_ssize_t k = w.n
    try:
        arr = new_array(k, -1, b'i')
        if k:
            qsort(w.rows, k, sizeof(int64_t), _cmp_labels)
            memcpy(cnp.PyArray_DATA(<cnp.ndarray> arr), w.rows, k * sizeof(int64_t))
    finally:
        free(w.rows)
        w.rows = NULL
    if k:
        table.sleepers -= k
        sleep_changed(table, arr)
    return arr


def wake_rows(table, rows) -> np.ndarray:
    """Wake the islands of the rows ``rows`` (a sleeper's whole island; an awake row wakes
    nothing): each island's list is walked, no other row is looked at. Returns the rows
    woken, ascending. The caller then lets the contacts know
    (`systems.events.EventsSystem.woke`: the sleeping pairs' rows of the woken bodies).
    ValueError naming a row outside the table."""
    cdef Rows r = rows_of(table)
    cdef Py_ssize_t q, m
    starts = as_c(rows, b'i')
    cdef const int64_t* st = <const int64_t*> c_array(starts, b'i', &m)
    for q in range(m):
        if not 0 <= st[q] < r.n:
            raise ValueError(f"rows[{q}] = {st[q]} is not a row of the table (0 .. {r.n - 1})")
    cdef Woken w
    w.rows = NULL
    w.n = w.cap = 0
    w.most = table.sleepers
    try:
        for q in range(m):
            wake_walk(&r, st[q], &w)
    except MemoryError:
        free(w.rows)
        raise
    return _woke(table, &w)


def wake_marked(table, mark) -> np.ndarray:
    """Wake the islands of the rows set in ``mark`` (a uint8 array over the table's rows;
    each mark is cleared): the marks found with ``memchr`` and each island's list walked,
    so a wake among many sleepers costs its islands. Returns the rows woken, ascending."""
    cdef Rows r = rows_of(table)
    if (not isinstance(mark, np.ndarray) or mark.dtype != np.uint8
            or not mark.flags.c_contiguous or mark.ndim != 1):
        raise TypeError(f"mark must be a contiguous uint8 array, got {mark!r:.60}")
    if len(mark) < r.n:
        raise ValueError(f"mark holds {len(mark)} rows, not {r.n}")
    cdef unsigned char* mp = <unsigned char*> cnp.PyArray_DATA(<cnp.ndarray> mark)
    cdef Woken w
    w.rows = NULL
    w.n = w.cap = 0
    w.most = table.sleepers
    cdef unsigned char* at = mp
    cdef unsigned char* end = mp + r.n
    try:
        while at < end:
            if at[0] == 0:  # (the zeros skipped a word at a time)
                at = <unsigned char*> memchr(at, 1, end - at)
                if at == NULL:
                    break
            at[0] = 0
            wake_walk(&r, at - mp, &w)
            at += 1
    except MemoryError:
        free(w.rows)
        raise
    return _woke(table, &w)


def take_requests(table, double offset, partners=None, woke=None):
    """Apply the table's wake requests (see the module comment) and clear them; returns the
    ``forced`` flags (a uint8 array over the rows: the STATIC bodies the game changed, which
    wake the sleepers within ``offset`` of them in the step), or None when there is none.
    ``partners(entities)``: the entities touching the requested bodies after the last step
    (`EventsSystem.partners`), whose islands wake; ``woke(table, rows_woken, gone)`` is
    called after any request with the rows woken and the requested entities no longer in
    the table (the contacts follow the sleep state; `EventsSystem.woke`), or ``woke(table)``
    when the last sleeper left."""
    ids = table.wake_islands
    requested = table.wake_requests
    table.wake_islands = set()
    table.wake_requests = set()
    forced = None
    if not table.sleepers:
        if woke is not None:  # (the last sleeper was removed: its rows end)
            woke(table)
        return None
    n = table.n
    row_of = table.row_of
    asleep = table.asleep[:n]
    kinds = table.kind[:n]
    starts = []  # sleepers whose islands wake (any member names its island)
    for e in ids:
        row = row_of.get(e)
        if row is not None:
            starts.append(row)
    for e in requested:
        row = row_of.get(e)
        if row is None:
            continue
        if asleep[row]:
            starts.append(row)
        elif kinds[row] == STATIC:
            if forced is None:
                forced = np.zeros(max(n, 1), dtype=np.uint8)
            forced[row] = 1
    if requested and partners is not None:
        # the sleepers that touched a requested body (one deleted, moved, re-shaped...)
        req = unique_ids(np.fromiter(requested, dtype=np.int64, count=len(requested)))
        for e in partners(req).tolist():
            row = row_of.get(e)
            if row is not None and asleep[row]:
                starts.append(row)
    if table.tile_regions:
        near = _near_tiles(table, offset)
        if len(near):
            starts.extend(near.tolist())
    woken = (wake_rows(table, np.array(starts, dtype=np.int64)) if starts
             else np.zeros(0, dtype=np.int64))
    if woke is not None and (starts or ids or requested):
        # (a removed body's rows end too)
        woke(table, woken, sorted(e for e in requested if e not in row_of))
    return forced


def _near_tiles(table, double offset) -> np.ndarray:
    """The sleepers (rows) whose boxes reach within ``offset`` of the tiles changed since the
    last step (each map's ``tile_regions`` box, relative to its position)."""
    n = table.n
    asleep = np.flatnonzero(table.asleep[:n])
    if not len(asleep):
        return asleep
    pos = table.pos[asleep]
    lo = pos + table.lo[asleep]
    hi = pos + table.hi[asleep]
    near = np.zeros(len(asleep), dtype=bool)
    for e, (x0, y0, x1, y1) in table.tile_regions.items():
        row = table.row_of.get(e)
        if row is None:
            continue
        px, py = table.pos[row]
        near |= ((lo[:, 0] <= px + x1 + offset) & (hi[:, 0] >= px + x0 - offset)
                 & (lo[:, 1] <= py + y1 + offset) & (hi[:, 1] >= py + y0 - offset))
    return asleep[near]
