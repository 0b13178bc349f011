# One step's touching rows in C memory: what the narrowphase writes, the events' diff
# completes and games read (see contact_rows.pyx for the guarantees).

from libc.stdint cimport int64_t

# the pair index of a sleeping pair's row (both sides asleep or STATIC, one asleep): its pair
# is in no later step's pairs, the row goes to the sleeping contacts (`sleeping_contacts`);
# and of such a row whose side woke since (its pair is found again, or it ended)
cdef enum:
    DORMANT = -1
    WOKEN = -2


cdef class ContactRows:
    cdef readonly Py_ssize_t n       # rows written
    cdef Py_ssize_t cap              # rows the block holds
    cdef void* block                 # every per-row column, in one allocation
    # per row, as the narrowphase found it (sorted by key, then tile)
    cdef int64_t* keys               # entity a << 32 | entity b
    cdef int64_t* ea
    cdef int64_t* eb
    cdef int64_t* la                 # the collider layers of each side now
    cdef int64_t* lb
    cdef int64_t* tile               # row << 32 | col of the tile, -1: none
    cdef int64_t* tile_kind
    cdef int64_t* index              # the row's pair in the step's pair lists
    cdef double* normal              # 2 per row, from a to b
    cdef double* point               # 2 per row
    cdef double* depth
    cdef double* toi
    cdef double* speed
    cdef unsigned char* sensor
    # per row, the history the events' diff gives (`history` once it is there)
    cdef double* duration
    cdef int64_t* steps
    cdef int64_t* ha                 # the layers the pair had when it began touching
    cdef int64_t* hb
    cdef unsigned char* kept         # the pair touched in the step before
    cdef bint history
    # per row of the step before: still touching now (`diff_rows`)
    cdef unsigned char* present
    cdef Py_ssize_t npresent
    cdef readonly double deepest     # the largest depth of a row without a sensor
    cdef readonly Py_ssize_t tested  # exact pair tests run to find these rows
    cdef public Py_ssize_t ndormant  # rows whose index is DORMANT (as last marked)
    cdef public object cached_set    # the rows as a ContactSet / the events' pairs, once asked
    cdef public object cached_pairs

    cdef int reserve(self, Py_ssize_t cap) except -1
    cdef int reserve_present(self, Py_ssize_t pn) except -1
    cdef void* _column(self, str name)


cdef int diff_rows(ContactRows prev, ContactRows cur, const unsigned char* forced,
                   double dt) except -1


cdef ContactRows merge_rows(ContactRows a, ContactRows b)
cdef ContactRows pick_rows(ContactRows rows, const unsigned char* mask, bint want)
cdef ContactRows take_rows(ContactRows rows, const int64_t* at, Py_ssize_t k)
