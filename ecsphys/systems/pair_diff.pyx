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


cdef inline int _cmp(int64_t ka, int64_t ta, int64_t kb, int64_t tb) noexcept nogil:
    """-1, 0 or 1 as (ka, ta) orders before, like or after (kb, tb)."""
    if ka != kb:
        return -1 if ka < kb else 1
    if ta != tb:
        return -1 if ta < tb else 1
    return 0


def diff(const int64_t[::1] prev_keys, const int64_t[::1] prev_tile,
         const double[::1] prev_duration, const int64_t[::1] prev_steps,
         const int64_t[::1] prev_layer_a, const int64_t[::1] prev_layer_b,
         const int64_t[::1] keys, const int64_t[::1] tile, const int64_t[::1] layer_a,
         const int64_t[::1] layer_b, forced, double dt):
    """``(duration, steps, layer_a, layer_b, kept, present)`` of this step's pairs (see the
    module notes). ``forced``: None, or a bool array over the previous pairs. All columns of
    one side must have the same length."""
    cdef Py_ssize_t pn = prev_keys.shape[0]
    cdef Py_ssize_t m = keys.shape[0]
    if (prev_duration.shape[0] != pn or prev_steps.shape[0] != pn or prev_tile.shape[0] != pn
            or prev_layer_a.shape[0] != pn or prev_layer_b.shape[0] != pn):
        raise ValueError(f"the previous pairs' columns need {pn} rows each")
    if layer_a.shape[0] != m or layer_b.shape[0] != m or tile.shape[0] != m:
        raise ValueError(f"tile, layer_a and layer_b need one row per pair ({m})")
    cdef bint with_forced = forced is not None
    cdef const unsigned char[::1] force = np.ascontiguousarray(
        forced if with_forced else np.zeros(0, dtype=np.bool_), dtype=np.bool_).view(np.uint8)
    if with_forced and force.shape[0] != pn:
        raise ValueError(f"forced needs one row per previous pair ({pn})")
    duration_ = np.empty(m)
    steps_ = np.empty(m, dtype=np.int64)
    la_ = np.empty(m, dtype=np.int64)
    lb_ = np.empty(m, dtype=np.int64)
    kept_ = np.zeros(m, dtype=np.bool_)
    present_ = np.zeros(pn, dtype=np.bool_)
    cdef double[::1] duration = duration_
    cdef int64_t[::1] steps = steps_
    cdef int64_t[::1] la = la_
    cdef int64_t[::1] lb = lb_
    cdef unsigned char[::1] kept = kept_.view(np.uint8)
    cdef unsigned char[::1] present = present_.view(np.uint8)
    cdef Py_ssize_t i, j = 0
    with nogil:
        for i in range(m):
            while j < pn and _cmp(prev_keys[j], prev_tile[j], keys[i], tile[i]) < 0:
                j += 1
            if (j < pn and _cmp(prev_keys[j], prev_tile[j], keys[i], tile[i]) == 0
                    and not (with_forced and force[j])):
                kept[i] = 1
                present[j] = 1
                duration[i] = prev_duration[j] + dt
                steps[i] = prev_steps[j] + 1
                la[i] = prev_layer_a[j]
                lb[i] = prev_layer_b[j]
            else:
                duration[i] = 0.0
                steps[i] = 0
                la[i] = layer_a[i]
                lb[i] = layer_b[i]
    return duration_, steps_, la_, lb_, kept_, present_
