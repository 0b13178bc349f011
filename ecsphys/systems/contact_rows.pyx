# cython: embedsignature=True
"""One step's touching rows, kept in C memory between the stages that make and read them.

Guarantees:
- a `ContactRows` is one step's contacts, one row per touching pair (per tile for a pair with
  a tile map), sorted by ``(key, tile)``: the narrowphase writes them (`reserve` then the
  columns, ``n``), the events' diff (`diff_rows`) adds each row's history (duration, steps,
  the layers the pair had when it began touching, whether it was kept) and marks which rows
  of the step before are still there; after that nobody writes to it: each step makes a new
  one, so a game or a snapshot holding the last step's rows never sees them change;
- nothing is made for Python unless someone asks: `array` gives a column as a fresh NumPy
  array (a copy), `contact_set` / the events' pairs are built from those on first use and
  kept (``cached_set`` / ``cached_pairs``). A step whose contacts nobody reads makes no
  array for them;
- `from_columns` makes rows from NumPy columns (a `ContactSet` made by hand, a restored
  snapshot), every column checked for its length first (ValueError naming it);
- `diff_rows(prev, cur, forced, dt)` is one linear merge of the two sorted row lists: a row of
  ``cur`` whose ``(key, tile)`` was in ``prev`` (and whose previous row is not ``forced``) is
  kept and carries its history on (duration + ``dt``, steps + 1, the old layers); any other
  starts at zero with its layers now; ``present`` (over ``prev``'s rows) says which were kept;
- a row of ``prev`` whose pair index is `DORMANT` (its sides fell asleep: see
  `systems.sleep`) is present in ``cur`` without a row there: it goes on in the sleeping
  contacts (`systems.sleeping_contacts`), not in the step's rows. The pair index column is
  the step's own (a row's pair), or `DORMANT` / `WOKEN`; it is the one column written after
  the step (a wake marks rows; ``ndormant`` counts the `DORMANT` ones);
- `merge_rows(a, b)` is the rows of both in ``(key, tile)`` order (the two hold different
  pairs), every column with the history where both have it; `pick_rows(rows, mask, want)`
  the rows whose flag is ``want``, in order.
"""

import numpy as np

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from ..state.carray cimport as_c, c_array, new_array
from .gil cimport NOGIL_MIN

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API

#: int64 / float64 / byte columns a row takes in the block (normal and point: two floats)
cdef int INT_COLUMNS = 11
cdef int FLOAT_COLUMNS = 8
cdef int BYTE_COLUMNS = 2

cdef size_t ROW_BYTES = INT_COLUMNS * 8 + FLOAT_COLUMNS * 8 + BYTE_COLUMNS

# Freed blocks of rows kept for the next rows: a step makes its rows while the last step's
# die, so reusing their memory spares the allocator giving it back to the system and the
# next rows faulting it in again (about 600 page faults, 0.7 ms, for 16,000 rows after a
# pile woke). Two blocks at most, the most recently freed, each of at least POOL_MIN_ROWS
# rows (smaller ones are cheap to allocate); a block is used for rows that fill at least
# half of it. Module state, touched only with the GIL held.
cdef enum:
    POOL_SLOTS = 2
    POOL_MIN_ROWS = 1024
cdef void* _pool_block[POOL_SLOTS]
cdef Py_ssize_t _pool_cap[POOL_SLOTS]
cdef int _pool_next = 0


cdef void* _take_block(Py_ssize_t cap, Py_ssize_t* got) noexcept:
    """Memory for at least ``cap`` rows: the smallest kept block that fits (its row count in
    ``got``), else a new one (``got`` = ``cap``); NULL when out of memory."""
    cdef int i, best = -1
    for i in range(POOL_SLOTS):
        if (_pool_block[i] != NULL and cap <= _pool_cap[i] <= 2 * cap
                and (best < 0 or _pool_cap[i] < _pool_cap[best])):
            best = i
    cdef void* p
    if best >= 0:
        p = _pool_block[best]
        got[0] = _pool_cap[best]
        _pool_block[best] = NULL
        return p
    got[0] = cap
    return malloc(<size_t> cap * ROW_BYTES)


cdef void _give_block(void* p, Py_ssize_t cap) noexcept:
    """A block of ``cap`` rows no longer used: kept for the next rows (in place of the older
    kept one, which is freed), or freed when small."""
    if p == NULL:
        return
    if cap < POOL_MIN_ROWS:
        free(p)
        return
    global _pool_next
    cdef int i = _pool_next
    free(_pool_block[i])
    _pool_block[i] = p
    _pool_cap[i] = cap
    _pool_next = (i + 1) % POOL_SLOTS


#: the pair index of a sleeping pair's row (`DORMANT`), for Python code
DORMANT_INDEX = DORMANT

#: the columns the events' diff fills (`diff_rows`), besides ``kept``
HISTORY_COLUMNS = ("duration", "steps", "history_layer_a", "history_layer_b")

#: the columns `array` gives: name -> (kind, values per row)
COLUMNS = {
    "keys": ("i", 1), "a": ("i", 1), "b": ("i", 1), "layer_a": ("i", 1),
    "layer_b": ("i", 1), "tile": ("i", 1), "tile_kind": ("i", 1), "index": ("i", 1),
    "normal": ("f", 2), "point": ("f", 2), "depth": ("f", 1), "toi": ("f", 1),
    "speed": ("f", 1), "sensor": ("b", 1), "duration": ("f", 1), "steps": ("i", 1),
    "history_layer_a": ("i", 1), "history_layer_b": ("i", 1), "kept": ("b", 1),
}


cdef class ContactRows:
    """One step's touching rows in C memory (see the module notes)."""

    def __cinit__(self):
        self.n = 0
        self.cap = 0
        self.block = NULL
        self.present = NULL
        self.npresent = 0
        self.history = False
        self.deepest = -np.inf
        self.tested = 0
        self.ndormant = 0

    def __dealloc__(self):
        _give_block(self.block, self.cap)
        free(self.present)

    cdef int reserve(self, Py_ssize_t cap) except -1:
        """Room for ``cap`` rows (what was written is dropped: call before writing)."""
        if cap < 1:
            cap = 1
        if cap <= self.cap:
            return 0
        cdef Py_ssize_t got = cap
        cdef char* p = <char*> _take_block(cap, &got)
        if p == NULL:
            raise MemoryError(f"contact rows: cannot hold {cap} rows")
        _give_block(self.block, self.cap)
        self.block = p
        self.cap = got
        cap = got
        cdef int64_t* i = <int64_t*> p
        self.keys = i
        self.ea = i + cap
        self.eb = i + 2 * cap
        self.la = i + 3 * cap
        self.lb = i + 4 * cap
        self.tile = i + 5 * cap
        self.tile_kind = i + 6 * cap
        self.index = i + 7 * cap
        self.steps = i + 8 * cap
        self.ha = i + 9 * cap
        self.hb = i + 10 * cap
        cdef double* f = <double*> (i + INT_COLUMNS * cap)
        self.normal = f
        self.point = f + 2 * cap
        self.depth = f + 4 * cap
        self.toi = f + 5 * cap
        self.speed = f + 6 * cap
        self.duration = f + 7 * cap
        cdef unsigned char* b = <unsigned char*> (f + FLOAT_COLUMNS * cap)
        self.sensor = b
        self.kept = b + cap
        return 0

    cdef int reserve_present(self, Py_ssize_t pn) except -1:
        """Room for one ``present`` flag per row of the step before (set to 0)."""
        free(self.present)
        self.present = <unsigned char*> malloc(pn if pn > 0 else 1)
        if self.present == NULL:
            raise MemoryError(f"contact rows: cannot hold {pn} flags")
        self.npresent = pn
        if pn:
            memset(self.present, 0, pn)
        return 0

    def __len__(self):
        return self.n

    @property
    def has_history(self) -> bool:
        """Whether the events' diff gave these rows their durations, steps and layers."""
        return bool(self.history)

    def array(self, str name):
        """Column ``name`` (see ``COLUMNS``) as a fresh NumPy array: ``(n,)``, or ``(n, 2)``
        for ``normal`` and ``point``; ``present`` has one flag per row of the step before.
        History columns (``duration``, ``steps``, ``history_layer_*``, ``kept``) only once the
        diff gave them (else ValueError)."""
        cdef void* src
        cdef Py_ssize_t rows = self.n
        if name == "present":
            out = new_array(self.npresent, -1, b'b')
            if self.npresent:
                memcpy(cnp.PyArray_DATA(<cnp.ndarray> out), self.present, self.npresent)
            return out
        spec = COLUMNS.get(name)
        if spec is None:
            raise ValueError(f"no contact column named {name!r}")
        if (name in HISTORY_COLUMNS or name == "kept") and not self.history:
            raise ValueError(f"contact column {name!r}: no history yet (the events' diff "
                             f"has not run on these rows)")
        kind, width = spec
        src = self._column(name)
        out = new_array(rows, width if width > 1 else -1, ord(kind))
        cdef size_t itemsize = 1 if kind == "b" else 8
        if rows:
            memcpy(cnp.PyArray_DATA(<cnp.ndarray> out), src, rows * width * itemsize)
        return out

    cdef void* _column(self, str name):
        if name == "keys":
            return self.keys
        if name == "a":
            return self.ea
        if name == "b":
            return self.eb
        if name == "layer_a":
            return self.la
        if name == "layer_b":
            return self.lb
        if name == "tile":
            return self.tile
        if name == "tile_kind":
            return self.tile_kind
        if name == "index":
            return self.index
        if name == "normal":
            return self.normal
        if name == "point":
            return self.point
        if name == "depth":
            return self.depth
        if name == "toi":
            return self.toi
        if name == "speed":
            return self.speed
        if name == "sensor":
            return self.sensor
        if name == "duration":
            return self.duration
        if name == "steps":
            return self.steps
        if name == "history_layer_a":
            return self.ha
        if name == "history_layer_b":
            return self.hb
        return self.kept

    @staticmethod
    def from_columns(Py_ssize_t n, dict columns, double deepest=-np.inf):
        """Rows from NumPy columns: ``keys, a, b, layer_a, layer_b, tile, tile_kind, normal,
        point, depth, toi, speed, sensor`` (``index`` optional, zeros), and for the history
        ``duration, steps, history_layer_a, history_layer_b`` (all four or none; ``kept``
        optional). Each is converted to its kind and checked to hold ``n`` rows first."""
        cdef ContactRows out = ContactRows()
        cdef dict ready = {}
        history = [k for k in HISTORY_COLUMNS if k in columns]
        if history and len(history) != 4:
            raise ValueError(f"contact rows: history columns {history} without the others")
        for name, value in columns.items():
            spec = COLUMNS.get(name)
            if spec is None:
                raise ValueError(f"no contact column named {name!r}")
            kind, width = spec
            arr = as_c(value, ord(kind))
            if arr.size != n * width:
                raise ValueError(f"contact column {name!r} needs {n} rows, got "
                                 f"{arr.size // width}")
            ready[name] = arr
        for name in ("keys", "a", "b", "layer_a", "layer_b", "tile", "tile_kind", "normal",
                     "point", "depth", "toi", "speed", "sensor"):
            if name not in ready:
                raise ValueError(f"contact rows: column {name!r} missing")
        out.reserve(n)
        out.n = n
        cdef Py_ssize_t count
        cdef size_t itemsize
        cdef void* dst
        for name, arr in ready.items():
            kind, width = COLUMNS[name]
            itemsize = 1 if kind == "b" else 8
            dst = out._column(name)
            if n:
                memcpy(dst, c_array(arr, ord(kind), &count), n * width * itemsize)
        if "index" not in ready and n:
            memset(out.index, 0, n * sizeof(int64_t))
        for count in range(n):
            out.ndormant += out.index[count] == DORMANT
        if history:
            out.history = True
            if "kept" not in ready and n:
                memset(out.kept, 0, n)
        out.deepest = deepest
        return out

    @staticmethod
    def from_contact_set(contacts, layer_a=None, layer_b=None):
        """Rows (without history) from a `ContactSet`: its columns checked and converted; a
        set without tiles gets ``-1`` / ``0``, without speeds zeros; ``layer_a`` /
        ``layer_b``, where given, stand for the set's layers (else its own, zeros where it
        has none); ``deepest`` from its rows without a sensor."""
        m = len(contacts)
        if layer_a is None:
            layer_a = np.zeros(m, np.int64) if contacts.layer_a is None else contacts.layer_a
        if layer_b is None:
            layer_b = np.zeros(m, np.int64) if contacts.layer_b is None else contacts.layer_b
        speed = getattr(contacts, "speed", None)
        sensor = np.asarray(contacts.sensor, dtype=np.bool_)
        depth = np.asarray(contacts.depth, dtype=np.float64)
        solid = depth[~sensor] if m else depth
        return ContactRows.from_columns(m, {
            "keys": contacts.keys, "a": contacts.a, "b": contacts.b,
            "layer_a": layer_a, "layer_b": layer_b,
            "tile": np.full(m, -1, dtype=np.int64) if contacts.tile is None else contacts.tile,
            "tile_kind": (np.zeros(m, dtype=np.int64) if contacts.tile_kind is None
                          else contacts.tile_kind),
            "normal": np.asarray(contacts.normal, dtype=np.float64).reshape(m, 2),
            "point": np.asarray(contacts.point, dtype=np.float64).reshape(m, 2),
            "depth": depth, "toi": contacts.toi, "sensor": sensor,
            "speed": np.zeros(m) if speed is None or len(speed) != m else speed,
        }, float(solid.max()) if len(solid) else -np.inf)


cdef inline int _cmp(int64_t ka, int64_t ta, int64_t kb, int64_t tb) noexcept nogil:
    """-1, 0 or 1 as (ka, ta) orders before, like or after (kb, tb)."""
    if ka != kb:
        return -1 if ka < kb else 1
    if ta != tb:
        return -1 if ta < tb else 1
    return 0


cdef void _merge(ContactRows prev, ContactRows cur, const unsigned char* forced, double dt,
                 unsigned char* present) noexcept nogil:
    """`diff_rows`'s merge of the two sorted row lists."""
    cdef Py_ssize_t pn = prev.n, m = cur.n, i = 0, j = 0
    if prev.ndormant:  # sleeping pairs go on in the sleeping contacts
        for j in range(pn):
            if prev.index[j] == DORMANT:
                present[j] = 1
        j = 0
    while i < m:
        while j < pn and _cmp(prev.keys[j], prev.tile[j], cur.keys[i], cur.tile[i]) < 0:
            j += 1
        if (j < pn and _cmp(prev.keys[j], prev.tile[j], cur.keys[i], cur.tile[i]) == 0
                and not (forced != NULL and forced[j])):
            cur.kept[i] = 1
            present[j] = 1
            cur.duration[i] = prev.duration[j] + dt
            cur.steps[i] = prev.steps[j] + 1
            cur.ha[i] = prev.ha[j]
            cur.hb[i] = prev.hb[j]
        else:
            cur.kept[i] = 0
            cur.duration[i] = 0.0
            cur.steps[i] = 0
            cur.ha[i] = cur.la[i]
            cur.hb[i] = cur.lb[i]
        i += 1


cdef int diff_rows(ContactRows prev, ContactRows cur, const unsigned char* forced,
                   double dt) except -1:
    """The history of ``cur``'s rows from ``prev``'s (which must have one), and which of
    ``prev``'s rows are present in ``cur`` (see the module notes); ``forced``: NULL or one
    flag per row of ``prev`` (that pair starts again)."""
    if prev.n and not prev.history:
        raise ValueError("contact rows: the step before has no history to carry on")
    cdef Py_ssize_t pn = prev.n, m = cur.n
    cur.reserve_present(pn)
    cdef unsigned char* present = cur.present
    if m + pn >= NOGIL_MIN:
        with nogil:
            _merge(prev, cur, forced, dt, present)
    else:
        _merge(prev, cur, forced, dt, present)
    cur.history = True
    return 0


def diff(ContactRows prev not None, ContactRows cur not None, forced=None, double dt=0.0):
    """`diff_rows` for Python: ``forced`` None or a bool array with one flag per row of
    ``prev`` (ValueError otherwise). Fills ``cur``'s history and ``present``."""
    cdef Py_ssize_t cf = 0
    cdef const unsigned char* force = NULL
    if forced is not None:
        forced_ = as_c(forced, b'b')
        force = <const unsigned char*> c_array(forced_, b'b', &cf)
        if cf != prev.n:
            raise ValueError(f"forced needs one row per previous pair ({prev.n}), got {cf}")
    diff_rows(prev, cur, force if prev.n else NULL, dt)
    cur.cached_pairs = None


cdef inline void _copy_run(ContactRows src, Py_ssize_t i, ContactRows dst, Py_ssize_t o,
                           Py_ssize_t k) noexcept nogil:
    """Rows ``i .. i + k - 1`` of ``src`` as rows ``o ..`` of ``dst``, a column at a time:
    what the narrowphase writes, without the history."""
    memcpy(dst.keys + o, src.keys + i, k * sizeof(int64_t))
    memcpy(dst.ea + o, src.ea + i, k * sizeof(int64_t))
    memcpy(dst.eb + o, src.eb + i, k * sizeof(int64_t))
    memcpy(dst.la + o, src.la + i, k * sizeof(int64_t))
    memcpy(dst.lb + o, src.lb + i, k * sizeof(int64_t))
    memcpy(dst.tile + o, src.tile + i, k * sizeof(int64_t))
    memcpy(dst.tile_kind + o, src.tile_kind + i, k * sizeof(int64_t))
    memcpy(dst.index + o, src.index + i, k * sizeof(int64_t))
    memcpy(dst.normal + 2 * o, src.normal + 2 * i, 2 * k * sizeof(double))
    memcpy(dst.point + 2 * o, src.point + 2 * i, 2 * k * sizeof(double))
    memcpy(dst.depth + o, src.depth + i, k * sizeof(double))
    memcpy(dst.toi + o, src.toi + i, k * sizeof(double))
    memcpy(dst.speed + o, src.speed + i, k * sizeof(double))
    memcpy(dst.sensor + o, src.sensor + i, k)


cdef inline void _copy_history(ContactRows src, Py_ssize_t i, ContactRows dst, Py_ssize_t o,
                               Py_ssize_t k) noexcept nogil:
    """The history of rows ``i .. i + k - 1`` of ``src`` as rows ``o ..`` of ``dst``."""
    memcpy(dst.duration + o, src.duration + i, k * sizeof(double))
    memcpy(dst.steps + o, src.steps + i, k * sizeof(int64_t))
    memcpy(dst.ha + o, src.ha + i, k * sizeof(int64_t))
    memcpy(dst.hb + o, src.hb + i, k * sizeof(int64_t))
    memcpy(dst.kept + o, src.kept + i, k)


cdef void _merge_into(ContactRows a, ContactRows b, ContactRows out, bint history) noexcept nogil:
    """`merge_rows`'s merge: runs of either side copied a column at a time (a tie: ``a``'s
    row first)."""
    cdef Py_ssize_t i = 0, j = 0, o = 0, k
    while i < a.n or j < b.n:
        k = 0
        if j == b.n:
            k = a.n - i
        elif i < a.n:
            while i + k < a.n and _cmp(a.keys[i + k], a.tile[i + k], b.keys[j],
                                       b.tile[j]) <= 0:
                k += 1
        if k:
            _copy_run(a, i, out, o, k)
            if history:
                _copy_history(a, i, out, o, k)
            i += k
            o += k
            continue
        k = 1
        while j + k < b.n and (i == a.n or _cmp(b.keys[j + k], b.tile[j + k], a.keys[i],
                                                 a.tile[i]) < 0):
            k += 1
        _copy_run(b, j, out, o, k)
        if history:
            _copy_history(b, j, out, o, k)
        j += k
        o += k
    out.n = o


cdef ContactRows merge_rows(ContactRows a, ContactRows b):
    """The rows of ``a`` and ``b`` (each sorted, holding different pairs) as new rows in
    ``(key, tile)`` order, with the history where both have it; ``deepest`` and ``tested``
    of both, ``ndormant`` the sum."""
    cdef ContactRows out = ContactRows()
    cdef bint history = (a.history or not a.n) and (b.history or not b.n)
    out.reserve(a.n + b.n)
    if a.n + b.n >= NOGIL_MIN:
        with nogil:
            _merge_into(a, b, out, history)
    else:
        _merge_into(a, b, out, history)
    out.history = history
    out.deepest = a.deepest if a.deepest > b.deepest else b.deepest
    out.tested = a.tested + b.tested
    out.ndormant = a.ndormant + b.ndormant
    return out


cdef ContactRows pick_rows(ContactRows rows, const unsigned char* mask, bint want):
    """The rows whose ``mask`` flag is ``want`` (one flag per row; ``mask`` NULL: every row),
    in order, as new rows with the history if ``rows`` have it (``deepest`` and ``tested``
    kept as they were)."""
    cdef ContactRows out = ContactRows()
    cdef Py_ssize_t i = 0, o = 0, k
    out.reserve(rows.n)
    want = want != 0
    while i < rows.n:
        k = 0
        while i + k < rows.n and (mask == NULL or (mask[i + k] != 0) == want):
            k += 1
        if k:
            _copy_run(rows, i, out, o, k)
            if rows.history:
                _copy_history(rows, i, out, o, k)
            o += k
            i += k
        else:
            i += 1
    return _picked(rows, out, o)


cdef ContactRows take_rows(ContactRows rows, const int64_t* at, Py_ssize_t k):
    """The rows at positions ``at[0 .. k-1]`` (ascending, each < ``rows.n``), in that order,
    as new rows with the history if ``rows`` have it: a copy of the few, not a pass over
    every row."""
    cdef ContactRows out = ContactRows()
    cdef Py_ssize_t o
    out.reserve(k)
    for o in range(k):
        _copy_run(rows, at[o], out, o, 1)
        if rows.history:
            _copy_history(rows, at[o], out, o, 1)
    return _picked(rows, out, k)


cdef ContactRows _picked(ContactRows rows, ContactRows out, Py_ssize_t n):
    """``out``, the first ``n`` rows copied from ``rows``, finished: its count, the history
    flag, ``deepest`` and ``tested`` as ``rows`` had them, and its DORMANT rows counted."""
    cdef Py_ssize_t q
    out.n = n
    out.history = rows.history
    out.deepest = rows.deepest
    out.tested = rows.tested
    for q in range(n):
        out.ndormant += out.index[q] == DORMANT
    return out


def merge(ContactRows a not None, ContactRows b not None):
    """`merge_rows` for Python: ValueError if either is not sorted by ``(key, tile)``."""
    for rows, name in ((a, "a"), (b, "b")):
        if not _sorted(rows):
            raise ValueError(f"merge: rows {name} are not sorted by (key, tile)")
    return merge_rows(a, b)


def pick(ContactRows rows not None, mask, bint want=True):
    """`pick_rows` for Python: ``mask`` a bool array with one flag per row (else
    ValueError)."""
    cdef Py_ssize_t count = 0
    arr = as_c(mask, b'b')
    cdef const unsigned char* m = <const unsigned char*> c_array(arr, b'b', &count)
    if count != rows.n:
        raise ValueError(f"pick: mask needs one flag per row ({rows.n}), got {count}")
    return pick_rows(rows, m, want)


cdef bint _sorted(ContactRows rows) noexcept:
    cdef Py_ssize_t i
    for i in range(1, rows.n):
        if _cmp(rows.keys[i - 1], rows.tile[i - 1], rows.keys[i], rows.tile[i]) > 0:
            return False
    return True
