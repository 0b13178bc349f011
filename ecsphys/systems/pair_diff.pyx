# cython: embedsignature=True
"""The step-to-step diff of touching pairs, compiled: one merge of two sorted key lists.

Guarantees: given the previous step's pairs (keys and tiles, sorted and unique as pairs, with
their durations, step counts and the layers they had when they touched) and this step's (the
same, with their layers now), one linear pass decides for each current pair whether it is *kept* (its key
was there before and the previous pair is not ``forced`` to start again) or *new*, and for
each previous pair whether it is still *present* (kept by a current pair). Kept pairs carry
their history over (duration + ``dt``, steps + 1, the old layers); new pairs start at zero
with their current layers. A previous pair that is ``forced`` is never present, so it
separates, and its current pair, if any, touches again.
"""

import numpy as np

from libc.stdint cimport int64_t

from libc.string cimport memset

from ..state.carray cimport c_array, new_array

cimport numpy as cnp

cnp.import_array()  # c_array reads arrays through NumPy's C API


cdef inline int _cmp(int64_t ka, int64_t ta, int64_t kb, int64_t tb) noexcept nogil:
    """-1, 0 or 1 as (ka, ta) orders before, like or after (kb, tb)."""
    if ka != kb:
        return -1 if ka < kb else 1
    if ta != tb:
        return -1 if ta < tb else 1
    return 0


def diff(prev_keys, prev_tile, prev_duration, prev_steps, prev_layer_a, prev_layer_b, keys,
         tile, layer_a, layer_b, forced, double dt):
    """``(duration, steps, layer_a, layer_b, kept, present)`` of this step's pairs (see the
    module notes). Every column a contiguous int64 array (durations float64), ``forced``
    None or a bool array over the previous pairs. All columns of one side must have the same
    length."""
    cdef Py_ssize_t pn, m, c1, c2, c3, c4, c5, c6, c7, c8, cf = 0
    cdef const int64_t* p_keys = <const int64_t*> c_array(prev_keys, b'i', &pn)
    cdef const int64_t* p_tile = <const int64_t*> c_array(prev_tile, b'i', &c1)
    cdef const double* p_duration = <const double*> c_array(prev_duration, b'f', &c2)
    cdef const int64_t* p_steps = <const int64_t*> c_array(prev_steps, b'i', &c3)
    cdef const int64_t* p_la = <const int64_t*> c_array(prev_layer_a, b'i', &c4)
    cdef const int64_t* p_lb = <const int64_t*> c_array(prev_layer_b, b'i', &c5)
    cdef const int64_t* c_keys = <const int64_t*> c_array(keys, b'i', &m)
    cdef const int64_t* c_tile = <const int64_t*> c_array(tile, b'i', &c6)
    cdef const int64_t* c_la = <const int64_t*> c_array(layer_a, b'i', &c7)
    cdef const int64_t* c_lb = <const int64_t*> c_array(layer_b, b'i', &c8)
    if c1 != pn or c2 != pn or c3 != pn or c4 != pn or c5 != pn:
        raise ValueError(f"the previous pairs' columns need {pn} rows each")
    if c6 != m or c7 != m or c8 != m:
        raise ValueError(f"tile, layer_a and layer_b need one row per pair ({m})")
    cdef bint with_forced = forced is not None
    cdef const unsigned char* force = NULL
    if with_forced:
        force = <const unsigned char*> c_array(forced, b'b', &cf)
        if cf != pn:
            raise ValueError(f"forced needs one row per previous pair ({pn})")
    duration_ = new_array(m, -1, b'f')
    steps_ = new_array(m, -1, b'i')
    la_ = new_array(m, -1, b'i')
    lb_ = new_array(m, -1, b'i')
    kept_ = new_array(m, -1, b'b')
    present_ = new_array(pn, -1, b'b')
    cdef Py_ssize_t unused
    cdef double* duration = <double*> c_array(duration_, b'f', &unused)
    cdef int64_t* steps = <int64_t*> c_array(steps_, b'i', &unused)
    cdef int64_t* la = <int64_t*> c_array(la_, b'i', &unused)
    cdef int64_t* lb = <int64_t*> c_array(lb_, b'i', &unused)
    cdef unsigned char* kept = <unsigned char*> c_array(kept_, b'b', &unused)
    cdef unsigned char* present = <unsigned char*> c_array(present_, b'b', &unused)
    cdef Py_ssize_t i, j = 0
    with nogil:
        if m:
            memset(kept, 0, m)
        if pn:
            memset(present, 0, pn)
        for i in range(m):
            while j < pn and _cmp(p_keys[j], p_tile[j], c_keys[i], c_tile[i]) < 0:
                j += 1
            if (j < pn and _cmp(p_keys[j], p_tile[j], c_keys[i], c_tile[i]) == 0
                    and not (with_forced and force[j])):
                kept[i] = 1
                present[j] = 1
                duration[i] = p_duration[j] + dt
                steps[i] = p_steps[j] + 1
                la[i] = p_la[j]
                lb[i] = p_lb[j]
            else:
                duration[i] = 0.0
                steps[i] = 0
                la[i] = c_la[i]
                lb[i] = c_lb[i]
    return duration_, steps_, la_, lb_, kept_, present_
