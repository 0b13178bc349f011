# A tile map's tiles and the log of their changes, compiled: what `TileMap` (tilemap.py)
# writes when a game digs or builds, and what its readers take at the next step.
#
# Guarantees:
# - `TileLog(kinds)` keeps the (rows, cols) int32 array `kinds` (C-contiguous, writable) and
#   writes it in place; nothing else should write it;
# - `set((row, col), kind)` changes one tile in constant time with no Python object made: the
#   kind is written, the tile is appended to the log and `version` goes up by one (nothing
#   at all when the tile already has that kind). It answers False, changing nothing, for
#   anything but two plain ints in the grid and a plain int kind from 0 to 2**31 - 1: the
#   caller checks such input and says what is wrong (`put` takes the checked values);
# - the log lists the changes since version `base`, one tile (`row * cols + col`) per change
#   in order, repeats included: `changes_since(v)` for any v from `base` to `version`, and
#   the box of those tiles (`changed_box`). It holds at most 64 plus a sixteenth of the
#   tiles: the change after that empties it first (`base` moves to the version then), and a
#   reader further behind takes the whole grid again;
# - a log that cannot grow (no memory) raises MemoryError before the tile is written;
# - it pickles (the kinds, the version and the log), and what unpickles it is checked as any
#   input is (ValueError naming the field).

from cpython.long cimport PyLong_AsLongAndOverflow
from libc.stdint cimport int32_t
from libc.stdlib cimport free, realloc

cdef enum:
    LOG_MIN = 64           # the log holds this many changes plus a sixteenth of the tiles
    KIND_MAX = 2147483647  # the largest kind (int32)


cdef class TileLog:
    """A tile map's kinds and the log of their changes (see the module comment)."""

    def __cinit__(self, kinds):
        cdef int32_t[:, ::1] view = kinds
        if view.shape[0] < 1 or view.shape[1] < 1:
            raise ValueError(f"TileLog kinds must have at least one row and column, got "
                             f"{view.shape[0]} x {view.shape[1]}")
        self.kinds = kinds
        self.tiles = &view[0, 0]
        self.rows = <int> view.shape[0]
        self.cols = <int> view.shape[1]
        self.limit = LOG_MIN + <Py_ssize_t> self.rows * self.cols // 16

    def __dealloc__(self):
        free(self.log)

    def __reduce__(self):
        return (_restored, (self.kinds, self.version, self.base, self.changes_since(self.base)))

    # ------------------------------------------------------------ writing

    def set(self, key, kind) -> bool:
        """Set tile ``key`` = ``(row, col)`` to ``kind``; False (nothing changed) when the key
        is not two ints in the grid or the kind not an int from 0 to 2**31 - 1."""
        return self._set(key, kind)

    cdef bint _set(self, key, kind) except -1:
        cdef long row, col, value
        cdef int over = 0
        if type(key) is not tuple or len(<tuple> key) != 2:
            return False
        r = (<tuple> key)[0]
        c = (<tuple> key)[1]
        if type(r) is not int or type(c) is not int or type(kind) is not int:
            return False
        row = PyLong_AsLongAndOverflow(r, &over)
        if over:
            return False
        col = PyLong_AsLongAndOverflow(c, &over)
        if over:
            return False
        value = PyLong_AsLongAndOverflow(kind, &over)
        if over or not (0 <= row < self.rows and 0 <= col < self.cols
                        and 0 <= value <= KIND_MAX):
            return False
        self._write(row, col, <int32_t> value)
        return True

    def put(self, long row, long col, long kind) -> None:
        """Set tile ``(row, col)`` to ``kind`` (checked values; IndexError / ValueError if
        they are not in range)."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise IndexError(f"TileLog tile ({row}, {col}) is outside the {self.rows}x"
                             f"{self.cols} grid")
        if not 0 <= kind <= KIND_MAX:
            raise ValueError(f"TileLog kind must be from 0 to 2**31 - 1, got {kind}")
        self._write(row, col, <int32_t> kind)

    cdef int _write(self, Py_ssize_t row, Py_ssize_t col, int32_t kind) except -1:
        cdef Py_ssize_t k = row * self.cols + col
        cdef Py_ssize_t at = self.version - self.base
        cdef Py_ssize_t cap
        cdef int32_t* grown
        if self.tiles[k] == kind:
            return 0
        if at >= self.limit:  # too many to take one by one: readers take the whole grid
            at = 0
        if at == self.cap:
            cap = min(2 * self.cap + 64, self.limit)
            grown = <int32_t*> realloc(self.log, cap * sizeof(int32_t))
            if grown == NULL:
                raise MemoryError("TileLog: no memory for the log of changes")
            self.log = grown
            self.cap = cap
        if at == 0:
            self.base = self.version
        self.tiles[k] = kind
        self.log[at] = <int32_t> k
        self.version += 1
        return 0

    # ------------------------------------------------------------ reading

    def get(self, key) -> int:
        """The kind of tile ``key`` = ``(row, col)``; -1 when the key is not two ints in the
        grid."""
        return self._get(key)

    cdef long _get(self, key) except -2:
        cdef long row, col
        cdef int over = 0
        if type(key) is not tuple or len(<tuple> key) != 2:
            return -1
        r = (<tuple> key)[0]
        c = (<tuple> key)[1]
        if type(r) is not int or type(c) is not int:
            return -1
        row = PyLong_AsLongAndOverflow(r, &over)
        if over:
            return -1
        col = PyLong_AsLongAndOverflow(c, &over)
        if over or not (0 <= row < self.rows and 0 <= col < self.cols):
            return -1
        return self.tiles[row * self.cols + col]

    def changes_since(self, Py_ssize_t version) -> list | None:
        """The tiles changed since ``version`` (``row * cols + col``, in order, repeats
        included), or None when that is before ``base`` or after ``version``."""
        if not self.base <= version <= self.version:
            return None
        cdef Py_ssize_t i
        return [self.log[i] for i in range(version - self.base, self.version - self.base)]

    def changed_box(self, Py_ssize_t since, Py_ssize_t most) -> tuple | None:
        """``(row0, col0, row1, col1)``, the rows and columns of the tiles changed since
        version ``since`` (an empty box, row0 > row1, if none), or None when the log does
        not reach back that far or lists more than ``most`` changes since."""
        cdef Py_ssize_t box[4]
        if not self._box(since, most, box):
            return None
        return (box[0], box[1], box[2], box[3])

    def note_region(self, dict regions, key, Py_ssize_t since, Py_ssize_t most,
                    double tile_size, tuple origin) -> bool:
        """Grow ``regions[key]`` (a box ``[x0, y0, x1, y1]``, or none yet) to hold the tiles
        changed since version ``since`` and a tile around them, for tiles of ``tile_size``
        whose grid's bottom-left corner is at ``origin``; False, nothing written, when
        `changed_box` answers None (the log does not reach back, or lists more than
        ``most`` changes since)."""
        cdef double r[4]
        if not self._region(since, most, tile_size, origin[0], origin[1], r):
            return False
        old = regions.get(key)
        if old is not None:
            r[0] = min(r[0], <double> old[0])
            r[1] = min(r[1], <double> old[1])
            r[2] = max(r[2], <double> old[2])
            r[3] = max(r[3], <double> old[3])
        regions[key] = [r[0], r[1], r[2], r[3]]
        return True

    cdef bint _region(self, Py_ssize_t since, Py_ssize_t most, double tile_size, double ox,
                      double oy, double* out) noexcept:
        """The box of `note_region` (before it is grown by one already noted) into out[0:4];
        False when `changed_box` answers None."""
        cdef Py_ssize_t box[4]
        if not self._box(since, most, box):
            return False
        out[0] = ox + (box[1] - 1) * tile_size
        out[1] = oy + (self.rows - 2 - box[2]) * tile_size
        out[2] = ox + (box[3] + 2) * tile_size
        out[3] = oy + (self.rows + 1 - box[0]) * tile_size
        return True

    cdef bint _box(self, Py_ssize_t since, Py_ssize_t most, Py_ssize_t* box) noexcept:
        """Rows and columns of the tiles changed since ``since`` into box[0:4] (see
        `changed_box`); False when the log does not reach back or lists more than ``most``."""
        if not self.base <= since <= self.version or self.version - since > most:
            return False
        cdef Py_ssize_t i, k, r, c
        box[0] = self.rows
        box[1] = self.cols
        box[2] = -1
        box[3] = -1
        for i in range(since - self.base, self.version - self.base):
            k = self.log[i]
            r = k // self.cols
            c = k - r * self.cols
            box[0] = r if r < box[0] else box[0]
            box[2] = r if r > box[2] else box[2]
            box[1] = c if c < box[1] else box[1]
            box[3] = c if c > box[3] else box[3]
        return True


def tilemap_getitem(tm, key) -> int:
    """The kind of tile ``key`` = ``(row, col)`` of `TileMap` ``tm`` (its ``__getitem__``:
    compiled, so reading a tile makes no Python frame); a key that is not two plain ints in
    the grid goes to ``tm._index`` (IndexError / TypeError naming it)."""
    cdef TileLog tiles = tm._tiles
    cdef long kind = tiles._get(key)
    if kind >= 0:
        return kind
    row, col = tm._index(key)
    return tm._grid.item(row, col)


def tilemap_setitem(tm, key, kind) -> None:
    """Dig (``0``) or build (a kind above 0) tile ``key`` = ``(row, col)`` of `TileMap`
    ``tm`` (its ``__setitem__``: compiled, no Python frame); the physics takes the change at
    its next step. Anything but plain ints goes through ``tm._index`` and
    ``tm._checked_kind`` (IndexError / TypeError / ValueError naming the tile and value)."""
    cdef TileLog tiles = tm._tiles
    if not tiles._set(key, kind):
        row, col = tm._index(key)
        tiles.put(row, col, tm._checked_kind(row, col, kind))


def _restored(kinds, version, base, log) -> TileLog:
    """A pickled `TileLog` made again, its version and log checked (ValueError naming the
    field)."""
    cdef TileLog tiles = TileLog(kinds)
    cdef Py_ssize_t n = <Py_ssize_t> tiles.rows * tiles.cols, i
    if type(version) is not int or type(base) is not int or not 0 <= base <= version:
        raise ValueError(f"TileLog version and base must be ints, 0 <= base <= version, got "
                         f"{version!r} and {base!r}")
    if not isinstance(log, list) or len(log) != version - base or len(log) > tiles.limit:
        raise ValueError(f"TileLog log must list the {version - base} changes since {base} "
                         f"(at most {tiles.limit}), got {log!r:.80}")
    for k in log:
        if type(k) is not int or not 0 <= k < n:
            raise ValueError(f"TileLog log must name tiles from 0 to {n - 1}, got {k!r}")
    if log:
        tiles.log = <int32_t*> realloc(NULL, len(log) * sizeof(int32_t))
        if tiles.log == NULL:
            raise MemoryError("TileLog: no memory for the log of changes")
        tiles.cap = len(log)
        for i in range(len(log)):
            tiles.log[i] = <int32_t> log[i]
    tiles.version = version
    tiles.base = base
    return tiles
