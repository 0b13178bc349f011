# cython: embedsignature=True
"""The contacts of sleeping pairs, kept out of the step's rows: a sleeping pile costs its
contacts nothing per step.

Guarantees:
- a `SleepingContacts` holds the rows of the pairs that fell asleep (`DORMANT` rows: both
  sides asleep or STATIC, one at least asleep; see `systems.sleep`), sorted by
  ``(key, tile)``, as they were in the last step whose rows held them, with their history
  then. Nothing is done for them per step: the clock goes on (``clock``, the seconds of the
  events' steps so far, and ``count``, how many), and a row's duration and steps are worked
  out when someone reads them: what they were when the row came in, plus the seconds
  (steps) the clock went on since;
- `absorb(rows)` (`absorb_rest(rows)`: and the rows that stay, in one call): the `DORMANT`
  rows of ``rows`` (the step before's, with their history) come in, stamped with the clock now; the events call it before their step's `tick`, so a
  row kept touching in this step gets this step's ``dt`` like a pair the diff keeps. They
  join a small second run of rows (``recent``, sorted by ``(key, tile)`` too), not the many:
  an island falling asleep beside many sleepers costs its rows, and the recent run joins
  the main one only when it has grown past an eighth of it (or when someone reads every
  row), so a row is copied a bounded number of times on average;
  `advance(prev, cur, dt)` is a step nobody listens to in one call: the diff of ``cur``
  against ``prev`` (`contact_rows.diff`), `absorb(prev)`, then `tick(dt)`;
- `release(mask)`: the rows whose flag is set leave (a side woke, or is gone), brought up
  to the clock now, with pair index `WOKEN` (the narrowphase finds their pair again, or the
  next diff separates it), as new rows; when most leave, the others come along marked
  `DORMANT` and the next diff brings them back (no copy of the many);
- `release_of(entities)`: the rows of the pairs with a side in ``entities`` (the bodies an
  island's wake woke, or that left) leave, as `release` gives them, found by binary searches (the rows'
  keys for the side a, an order of the rows by side b, made when the rows last changed) and
  marked gone where they lie (in the recent run, which is small, they leave at once): a copy
  of the few, no pass over every row; the rows marked gone leave for good when the store is
  next read whole (or when they are half of it);
  `partners_of(entities)` finds the sleeping bodies touching them the same way;
  `release_all()` gives every row back when nothing sleeps any more (no mask); `now_for`
  reads the rows of a few bodies the same way, brought up to now (one body's polls);
- `now()`: every row brought up to the clock now, pair index `DORMANT`, met in no impact
  (``toi`` inf, ``speed`` 0), kept; made once per state of the store and kept;
- inside the store the ``toi`` column holds the ``clock`` at which a row came in and the
  ``index`` column the ``count`` then (neither means anything for a sleeping contact);
- the same bits in every process: a duration read is ``duration then + (clock now - clock
  then)``, evaluated in that order; `state` and `restore` give and take exactly what the
  store holds, so a replay from a snapshot reads the same bits.
"""

import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc

from ..broadphase.boxindex cimport Buf, buf_free, lower_bound, sort_keys

from ..state.carray cimport as_c, c_array
from .contact_rows cimport (
    DORMANT, WOKEN, ContactRows, diff_rows, merge_rows, pick_rows, take_rows,
)

cimport numpy as cnp

cnp.import_array()  # as_c / c_array read arrays through NumPy's C API


#: the recent run joins the main one once it holds more than this many rows and an eighth
#: of the main run's
cdef Py_ssize_t RECENT_MIN = 256


cdef class SleepingContacts:
    """The rows of sleeping pairs and the clock they count on (see the module notes)."""

    cdef ContactRows rows          # stamped rows (toi: clock then, index: count then)
    cdef readonly double clock     # seconds of the events' steps so far
    cdef readonly int64_t count    # how many steps
    cdef readonly int64_t version  # bumped at each change (rows or clock)
    cdef readonly int64_t rows_version  # bumped when rows come or go
    cdef object _now               # `now()` for ``_now_version``
    cdef int64_t _now_version
    cdef object _ends              # the rows' keys and sides as arrays, for ``_ends_version``
    cdef int64_t _ends_version
    cdef unsigned char* gone       # per row: released by `release_of` since (NULL: none)
    cdef Py_ssize_t ngone
    cdef uint64_t* bkey            # the rows' b sides ascending (stable), and their rows:
    cdef int64_t* bpos             # made for the rows of ``_b_version``
    cdef int64_t _b_version
    cdef Buf _sort_tmp
    cdef ContactRows recent        # rows come in here first (see the module notes) ...
    cdef uint64_t* rbkey           # ... with its own order by side b
    cdef int64_t* rbpos

    def __cinit__(self):
        self.rows = _empty()
        self.clock = 0.0
        self.count = 0
        self.version = 0
        self.rows_version = 0
        self._now = None
        self._now_version = -1
        self._ends = None
        self._ends_version = -1
        self.gone = NULL
        self.ngone = 0
        self.bkey = NULL
        self.bpos = NULL
        self._b_version = -1
        self.recent = _empty()
        self.rbkey = NULL
        self.rbpos = NULL

    def __dealloc__(self):
        free(self.gone)
        free(self.bkey)
        free(self.bpos)
        free(self.rbkey)
        free(self.rbpos)
        buf_free(&self._sort_tmp)

    def __len__(self):
        return self.rows.n - self.ngone + self.recent.n

    cdef int _flush(self) except -1:
        """The recent run joins the main one (the rows marked gone leave first): before
        anything that reads every row."""
        self._settle()
        if not self.recent.n:
            return 0
        self.rows = merge_rows(self.rows, self.recent) if self.rows.n else self.recent
        self.rows.ndormant = 0
        self._set_recent(_empty())
        self.rows_version += 1
        return 0

    cdef int _set_recent(self, ContactRows rows) except -1:
        """``rows`` are the recent run now; its order by side b made for them."""
        cdef Py_ssize_t q, n = rows.n
        free(self.rbkey)
        free(self.rbpos)
        self.rbkey = NULL
        self.rbpos = NULL
        self.recent = rows
        if not n:
            return 0
        self.rbkey = <uint64_t*> malloc(n * sizeof(uint64_t))
        self.rbpos = <int64_t*> malloc(n * sizeof(int64_t))
        if self.rbkey == NULL or self.rbpos == NULL:
            raise MemoryError(f"sleeping contacts: cannot order {n} rows")
        for q in range(n):
            self.rbkey[q] = <uint64_t> rows.eb[q]
            self.rbpos[q] = q
        if sort_keys(self.rbkey, self.rbpos, n, &self._sort_tmp) < 0:
            raise MemoryError(f"sleeping contacts: cannot order {n} rows")
        return 0

    cdef int _settle(self) except -1:
        """The rows `release_of` marked gone leave for good (a pass over every row)."""
        if not self.ngone:
            return 0
        self.rows = pick_rows(self.rows, self.gone, False)
        self._forget_gone()
        self.version += 1
        self.rows_version += 1
        self._b_order()
        return 0

    cdef void _forget_gone(self) noexcept:
        free(self.gone)
        self.gone = NULL
        self.ngone = 0

    cdef int _b_order(self) except -1:
        """``bkey`` / ``bpos`` for the rows now (a radix sort, when the rows changed)."""
        cdef Py_ssize_t q, n = self.rows.n
        if self._b_version == self.rows_version:
            return 0
        free(self.bkey)
        free(self.bpos)
        self.bkey = <uint64_t*> malloc((n if n else 1) * sizeof(uint64_t))
        self.bpos = <int64_t*> malloc((n if n else 1) * sizeof(int64_t))
        if self.bkey == NULL or self.bpos == NULL:
            free(self.bkey)
            free(self.bpos)
            self.bkey = NULL
            self.bpos = NULL
            raise MemoryError(f"sleeping contacts: cannot order {n} rows")
        for q in range(n):
            self.bkey[q] = <uint64_t> self.rows.eb[q]
            self.bpos[q] = q
        if sort_keys(self.bkey, self.bpos, n, &self._sort_tmp) < 0:
            raise MemoryError(f"sleeping contacts: cannot order {n} rows")
        self._b_version = self.rows_version
        return 0

    def advance(self, ContactRows prev not None, ContactRows cur not None, double dt):
        """A step nobody listens to, in one call: ``cur``'s history from ``prev``
        (`contact_rows.diff`), the `DORMANT` rows of ``prev`` in (`absorb`), then `tick`."""
        diff_rows(prev, cur, NULL, dt)
        cur.cached_pairs = None
        if prev.ndormant:
            self.absorb(prev)
        self.clock += dt
        self.count += 1
        self.version += 1

    def tick(self, double dt):
        """One step of ``dt`` seconds went by."""
        self.clock += dt
        self.count += 1
        self.version += 1

    def absorb(self, ContactRows rows not None) -> int:
        """The `DORMANT` rows of ``rows`` (with their history) come in, stamped with the clock
        now; returns how many."""
        if not rows.ndormant:
            return 0
        return self._absorb(rows, None)

    def absorb_rest(self, ContactRows rows not None) -> ContactRows:
        """`absorb` ``rows``, and return the rows that stayed (the pairs not `DORMANT`, in
        their order, a new `ContactRows`; ``rows`` itself when none is dormant): a quiet
        step's move of the last step's sleeping pairs into the store, in one call."""
        if not rows.ndormant:
            return rows
        cdef list rest = [None]
        self._absorb(rows, rest)
        return rest[0]

    cdef Py_ssize_t _absorb(self, ContactRows rows, list rest) except -1:
        """`absorb`; ``rest`` (a list of one) is given the rows not dormant."""
        if rows.n and not rows.history:
            raise ValueError("sleeping contacts: rows without their history cannot come in")
        cdef Py_ssize_t q, n = rows.n
        cdef ContactRows came
        cdef unsigned char* mask = <unsigned char*> malloc(n if n else 1)
        if mask == NULL:
            raise MemoryError(f"sleeping contacts: cannot mark {n} rows")
        try:
            for q in range(n):
                mask[q] = rows.index[q] == DORMANT
            came = pick_rows(rows, mask, True)
            if rest is not None:
                rest[0] = pick_rows(rows, mask, False)
        finally:
            free(mask)
        for q in range(came.n):
            came.toi[q] = self.clock
            came.index[q] = self.count
            came.speed[q] = 0.0
        came.ndormant = 0
        if came.n:
            self._set_recent(merge_rows(self.recent, came) if self.recent.n else came)
            self.recent.ndormant = 0
            self.version += 1
            if self.recent.n > RECENT_MIN and 8 * self.recent.n > self.rows.n:
                self._flush()
                self._b_order()  # (now, while the rows are copied anyway: not in a wake)
        return came.n

    def release(self, mask):
        """The rows whose flag in ``mask`` (a bool array, one per row) is set leave the store;
        returns them brought up to the clock now with pair index `WOKEN` (None: none).

        When most rows leave (a pile woke), every row leaves without a copy: those whose flag
        is not set come along marked `DORMANT` (``ndormant``), so the next diff counts them
        present and brings them back (`absorb`), a copy of the few rather than of the
        many."""
        arr = self._mask(mask, "release")  # (the rows marked gone leave first)
        cdef Py_ssize_t count = self.rows.n
        cdef const unsigned char* m = <const unsigned char*> cnp.PyArray_DATA(arr)
        cdef Py_ssize_t q, leaving = 0
        for q in range(count):
            leaving += m[q] != 0
        if not leaving:
            return None
        cdef ContactRows out
        if 2 * leaving < count:
            self.version += 1
            self.rows_version += 1
            out = pick_rows(self.rows, m, True)
            self.rows = pick_rows(self.rows, m, False)
            self._b_order()
            self._up_to_now(out, WOKEN)
            return out
        return self._hand_all(m)  # (most of a pile woke: its rows, without a copy)

    def release_all(self):
        """Every row leaves (nothing sleeps any more): `release` with every flag set, without
        a mask (None: the store was empty)."""
        self._flush()
        return self._hand_all(NULL) if self.rows.n else None

    cdef ContactRows _hand_all(self, const unsigned char* m):
        """Every row leaves the store without a copy, brought up to now as `WOKEN`, but for
        those whose flag in ``m`` is not set (``m`` NULL: every flag set), which come along
        marked `DORMANT` for the next diff to bring back."""
        cdef ContactRows out = self.rows
        cdef Py_ssize_t q
        self.rows = _empty()
        self.version += 1
        self.rows_version += 1
        self._up_to_now(out, WOKEN)
        if m != NULL:
            for q in range(out.n):
                if not m[q]:
                    out.index[q] = DORMANT
                    out.ndormant += 1
        return out

    cdef Py_ssize_t _rows_of(self, entities, str what, int64_t** at_out) except -1:
        """The positions (ascending, each once, not gone) of the rows whose pair has a side
        in ``entities`` (int64, ascending, each once) into ``*at_out`` (malloc'd: the caller
        frees it; NULL when none): a binary search per entity and side, in the main run
        (positions ``0 .. rows.n``) and in the recent one (``rows.n + its position``)."""
        cdef Py_ssize_t k = 0, i, j, found = 0, cap
        arr = as_c(entities, b'i')
        cdef const int64_t* w = <const int64_t*> c_array(arr, b'i', &k)
        for i in range(k):
            if (i and w[i] <= w[i - 1]) or not 0 <= w[i] < (<int64_t> 1) << 31:
                raise ValueError(f"{what}: entities must be ascending, each once, in "
                                 f"[0, 2**31), got {w[i]} at {i}")
        at_out[0] = NULL
        if not k or not len(self):
            return 0
        self._b_order()
        cap = 4 * k + 16
        cdef int64_t* at = <int64_t*> malloc(cap * sizeof(int64_t))
        if at == NULL:
            raise MemoryError(f"sleeping contacts: cannot find the rows of {k} bodies")
        try:
            if _search(self.rows, self.bkey, self.bpos, self.gone, 0, w, k, &at, &found,
                       &cap) < 0 or _search(self.recent, self.rbkey, self.rbpos, NULL,
                                            self.rows.n, w, k, &at, &found, &cap) < 0:
                raise MemoryError("sleeping contacts: cannot find rows")
            if sort_keys(<uint64_t*> at, NULL, found, &self._sort_tmp) < 0:
                raise MemoryError("sleeping contacts: cannot find rows")
            j = 0
            for i in range(found):  # (a row of two of the entities: found twice)
                if j == 0 or at[i] != at[j - 1]:
                    at[j] = at[i]
                    j += 1
        except BaseException:
            free(at)
            raise
        if not j:
            free(at)
            return 0
        at_out[0] = at
        return j

    cdef ContactRows _take(self, const int64_t* at, Py_ssize_t found):
        """Copies of the rows at the positions ``at`` (ascending, `_rows_of`'s), in
        ``(key, tile)`` order: those of the main run and those of the recent one merged."""
        cdef Py_ssize_t split = lower_bound(at, 0, found, self.rows.n)
        cdef ContactRows main = take_rows(self.rows, at, split)
        if split == found:
            return main
        cdef int64_t* own = <int64_t*> malloc((found - split) * sizeof(int64_t))
        cdef Py_ssize_t q
        cdef ContactRows rec
        if own == NULL:
            raise MemoryError("sleeping contacts: cannot take rows")
        try:
            for q in range(split, found):
                own[q - split] = at[q] - self.rows.n
            rec = take_rows(self.recent, own, found - split)
        finally:
            free(own)
        return merge_rows(main, rec) if split else rec

    def release_of(self, entities):
        """The rows whose pair has a side in ``entities`` (int64, ascending, each once: the
        bodies that woke, or left) leave the store; returns them as `release` does (None:
        none). A binary search per entity and side, and a copy of the rows that leave."""
        cdef int64_t* at = NULL
        cdef Py_ssize_t i, found = self._rows_of(entities, "release_of", &at)
        cdef Py_ssize_t n = self.rows.n
        cdef ContactRows out
        if not found:
            return None
        cdef Py_ssize_t split = lower_bound(at, 0, found, n)
        cdef unsigned char* mask
        try:
            if self.gone == NULL and split:
                self.gone = <unsigned char*> calloc(n, 1)
                if self.gone == NULL:
                    raise MemoryError(f"sleeping contacts: cannot mark {n} rows")
            out = self._take(at, found)
            for i in range(split):
                self.gone[at[i]] = 1
            self.ngone += split
            if split < found:  # (the recent run is small: they leave it at once)
                mask = <unsigned char*> calloc(self.recent.n, 1)
                if mask == NULL:
                    raise MemoryError("sleeping contacts: cannot mark rows")
                try:
                    for i in range(split, found):
                        mask[at[i] - n] = 1
                    self._set_recent(pick_rows(self.recent, mask, False))
                finally:
                    free(mask)
        finally:
            free(at)
        self._up_to_now(out, WOKEN)
        self.version += 1
        if 2 * self.ngone > n:
            self._settle()
        return out

    def partners_of(self, entities):
        """For every row whose pair has a side in ``entities`` (int64, ascending, each once):
        the other side of each side among them, as an int64 array (rows in order, side a's
        partner first; an entity may repeat): the sleeping bodies touching them, found
        without a pass over every row."""
        cdef int64_t* at = NULL
        cdef Py_ssize_t i, found = self._rows_of(entities, "partners_of", &at), m = 0, k = 0
        arr = as_c(entities, b'i')  # (held while w is read)
        cdef const int64_t* w = <const int64_t*> c_array(arr, b'i', &k)
        out = np.empty(2 * found, dtype=np.int64)
        cdef int64_t[::1] o = out
        cdef int64_t a, b, n = self.rows.n
        try:
            for i in range(found):
                if at[i] < n:
                    a = self.rows.ea[at[i]]
                    b = self.rows.eb[at[i]]
                else:
                    a = self.recent.ea[at[i] - n]
                    b = self.recent.eb[at[i] - n]
                if _among(w, k, a):
                    o[m] = b
                    m += 1
                if _among(w, k, b):
                    o[m] = a
                    m += 1
        finally:
            free(at)
        return out[:m]

    def now(self):
        """Every row brought up to the clock now (see the module notes)."""
        self._flush()
        if self._now_version != self.version:
            out = pick_rows(self.rows, NULL, False) if self.rows.n else _empty()
            self._up_to_now(out, DORMANT)
            self._now = out
            self._now_version = self.version
        return self._now

    def ends(self):
        """``(a, b)``: each row's entities, as arrays (made once per set of rows: the clock
        going on does not make them again)."""
        return self._sides()[1:]

    def keys(self):
        """Each row's pair key, as an array (made once per set of rows)."""
        return self._sides()[0]

    cdef tuple _sides(self):
        self._flush()
        if self._ends_version != self.rows_version:
            self._ends = (self.rows.array("keys"), self.rows.array("a"), self.rows.array("b"))
            self._ends_version = self.rows_version
        return self._ends

    def now_of(self, mask):
        """The rows whose flag in ``mask`` (a bool array, one per row) is set, brought up to
        the clock now like `now` (a few rows read without making all of them)."""
        arr = self._mask(mask, "now_of")
        cdef ContactRows out = pick_rows(
            self.rows, <const unsigned char*> cnp.PyArray_DATA(arr), True)
        self._up_to_now(out, DORMANT)
        return out

    def now_for(self, entities):
        """The rows whose pair has a side in ``entities`` (int64, ascending, each once),
        brought up to the clock now like `now`: found by entity (`release_of`'s searches),
        kept in the store."""
        cdef int64_t* at = NULL
        cdef Py_ssize_t found = self._rows_of(entities, "now_for", &at)
        cdef ContactRows out
        if not found:
            return _empty()
        try:
            out = self._take(at, found)
        finally:
            free(at)
        self._up_to_now(out, DORMANT)
        return out

    cdef cnp.ndarray _mask(self, mask, str what):
        """``mask`` as a C-contiguous array of one byte flag per row (ValueError naming
        ``what`` otherwise); the caller keeps it while it reads the flags."""
        cdef Py_ssize_t count = 0
        self._flush()
        arr = as_c(mask, b'b')
        c_array(arr, b'b', &count)
        if count != self.rows.n:
            raise ValueError(f"{what}: mask needs one flag per row ({self.rows.n}), got "
                             f"{count}")
        return arr

    cdef void _up_to_now(self, ContactRows rows, int64_t index):
        cdef Py_ssize_t q
        cdef double clock = self.clock
        cdef int64_t count = self.count
        for q in range(rows.n):
            rows.duration[q] = rows.duration[q] + (clock - rows.toi[q])
            rows.steps[q] = rows.steps[q] + (count - rows.index[q])
            rows.toi[q] = INFINITY
            rows.speed[q] = 0.0
            rows.index[q] = index
            rows.kept[q] = 1
        rows.ndormant = rows.n if index == DORMANT else 0

    def state(self):
        """``(rows, clock, count)``: the stamped rows (a copy) and the clock, for a
        snapshot."""
        self._flush()
        return (pick_rows(self.rows, NULL, False) if self.rows.n else _empty(),
                self.clock, self.count)

    def restore(self, ContactRows rows not None, double clock, int64_t count):
        """Take ``rows`` (stamped, sorted, with history; checked by the caller: see
        `state.snapshot`) and the clock, as `state` gave them."""
        if rows.n and not rows.history:
            raise ValueError("sleeping contacts: rows without their history")
        self._forget_gone()
        self._set_recent(_empty())
        self.rows = rows
        self.clock = clock
        self.count = count
        self.version += 1
        self.rows_version += 1
        self._b_order()

    def clear(self):
        """Forget every row (the clock goes on)."""
        self._forget_gone()
        self._set_recent(_empty())
        self.rows = _empty()
        self.version += 1
        self.rows_version += 1


cdef int _search(ContactRows rows, const uint64_t* bkey, const int64_t* bpos,
                 const unsigned char* gone, int64_t offset, const int64_t* w, Py_ssize_t k,
                 int64_t** at, Py_ssize_t* found, Py_ssize_t* cap) noexcept:
    """Append to ``*at`` (``*found`` of ``*cap`` used; grown as needed) ``offset`` plus the
    position of every row of ``rows`` not ``gone`` whose pair has a side in ``w`` (``k``
    entities, ascending): the rows' keys searched for side a, ``bkey`` (side b ascending,
    ``bpos`` their rows) for side b. -1 when out of memory."""
    cdef Py_ssize_t n = rows.n, i, j, q, row
    cdef const int64_t* keys = rows.keys
    cdef const int64_t* ea = rows.ea
    cdef int64_t e
    cdef int64_t* grown
    if not n:
        return 0
    for i in range(k):
        e = w[i]
        for j in range(2):
            if j == 0:  # side a: the rows whose key is e << 32 | b (keys ascending)
                q = lower_bound(keys, 0, n, e << 32)
            else:  # side b: the rows in order of their b side (below 2**31: the same order)
                q = lower_bound(<const int64_t*> bkey, 0, n, e)
            while q < n:
                if j == 0:
                    if ea[q] != e:
                        break
                    row = q
                else:
                    if bkey[q] != <uint64_t> e:
                        break
                    row = bpos[q]
                q += 1
                if gone != NULL and gone[row]:
                    continue
                if found[0] == cap[0]:
                    cap[0] *= 2
                    grown = <int64_t*> realloc(at[0], cap[0] * sizeof(int64_t))
                    if grown == NULL:
                        return -1
                    at[0] = grown
                at[0][found[0]] = offset + row
                found[0] += 1
    return 0


cdef inline bint _among(const int64_t* w, Py_ssize_t k, int64_t e) noexcept:
    """``e`` is one of the ascending ``w[0 .. k-1]`` (a binary search)."""
    cdef Py_ssize_t lo = lower_bound(w, 0, k, e)
    return lo < k and w[lo] == e


cdef ContactRows _empty():
    cdef ContactRows out = ContactRows()
    out.history = True
    return out
