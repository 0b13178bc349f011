# Stage 4 of the step, the sphere slide (see response.pyx for the guarantees): what the compiled
# step (`systems/step.pyx`) calls.

from libc.stdint cimport int64_t

from ..broadphase.boxindex cimport BoxIndex
from ..broadphase.stage cimport Stage
from ..geometry.shape_data cimport Store
from ..state.table_view cimport Rows
from .impacts cimport Impacts


cdef struct IndexView:
    # the broadphase's index for the rows pushed beyond their swept boxes (widen)
    void* index             # a BoxIndex, or NULL: widen looks at every row
    const int64_t* dyn      # its dynamic id -> row
    Py_ssize_t ndyn
    const int64_t* srow     # its static id -> row (a free id: a row >= the table's rows)
    Py_ssize_t nsrow


cdef class ResponseSystem:
    cdef public object table
    cdef public object up                  # (x, y): "up" of a body without acceleration
    cdef public double floor_max_angle     # degrees
    cdef public double floor_snap
    cdef public double bounce_threshold
    cdef public int max_slides
    cdef public double skin
    cdef public double contact_offset
    cdef public int passes                 # diagnostics of the last step
    cdef public int widened
    cdef public int far
    cdef public int sleepers_hit           # sleepers struck in the last step (`respond`)
    cdef public object filter_pair         # the game's pair veto, or None
    cdef public object extra               # pairs found beyond the swept boxes (ra, rb, toi)
    cdef public Impacts pair_impacts       # every pair's first impact of the last step
    cdef public bint pushed_apart          # the last step looked for overlaps
    cdef public bint widen_by_index        # False: widen looks at every row (tests)
    cdef public bint live_rows             # False: every row set up while some sleep (tests)
    cdef object _buffers                   # a _Buffers: C arrays kept between steps

    cdef int respond(self, const int64_t* a, const int64_t* b, int np0, double dt,
                     const IndexView* iv, const Rows* rows, const Store* store,
                     const int64_t* awake, Py_ssize_t nawake,
                     unsigned char* hit=*) except -1
    cdef int note_end_c(self, double deepest, const Rows* rows, const int64_t* awake,
                        Py_ssize_t nawake) except -1


cdef BoxIndex widen_index(object broadphase, double contact_offset)
cdef void index_view(IndexView* iv, BoxIndex index, Stage stage, Py_ssize_t slots) noexcept
