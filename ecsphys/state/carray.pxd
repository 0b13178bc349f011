# Raw C pointers into NumPy arrays, for the thin ``def`` layers of the compiled stages.
#
# Guarantees:
# - `c_array(arr, kind, &count)` returns a pointer to the first item of ``arr``, a
#   C-contiguous buffer of ``kind`` 'i' (int64), 'f' (float64) or 'b' (one-byte bool or
#   uint8), and sets ``count`` to its number of items (all dimensions); any other object,
#   dtype or layout raises ValueError / TypeError (nothing is converted);
# - the pointer is valid while ``arr`` is alive and not resized: the caller keeps a
#   reference for as long as it uses the pointer (NumPy never moves an array's data while
#   it is referenced);
# - an empty array gives a valid, non-NULL pointer that must not be read;
# - it costs about a tenth of a typed memoryview's acquisition (the buffer is taken and let
#   go at once, no memoryview object is made): the step's fixed cost at small sizes is
#   mostly such acquisitions.

from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_FORMAT,
    PyBuffer_Release,
    PyObject_GetBuffer,
)


cdef extern from *:
    """
    static long long ecsphys_carray_empty[2];
    """
    long long ecsphys_carray_empty[2]


cdef inline char _kind(const char* fmt, Py_ssize_t itemsize) noexcept:
    """'i', 'f' or 'b' for an int64, float64 or one-byte format; 0 for anything else."""
    if fmt == NULL:  # unsigned bytes
        return b'b' if itemsize == 1 else 0
    if fmt[0] == b'@' or fmt[0] == b'=' or fmt[0] == b'<':
        fmt += 1
    if fmt[0] == 0 or fmt[1] != 0:
        return 0
    if itemsize == 8 and (fmt[0] == b'q' or fmt[0] == b'l'):
        return b'i'
    if itemsize == 8 and fmt[0] == b'd':
        return b'f'
    if itemsize == 1 and (fmt[0] == b'?' or fmt[0] == b'B'):
        return b'b'
    return 0


cdef inline void* c_array(object arr, char kind, Py_ssize_t* count) except NULL:
    """A pointer to the items of ``arr`` (see the module comment); ``count`` gets how many."""
    cdef Py_buffer view
    PyObject_GetBuffer(arr, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    cdef void* p = view.buf
    cdef char got = _kind(view.format, view.itemsize)
    cdef Py_ssize_t n = view.len // view.itemsize if view.itemsize else 0
    PyBuffer_Release(&view)
    if got != kind:
        raise ValueError(f"expected a contiguous array of kind {chr(kind)!r} (i: int64, "
                         f"f: float64, b: bool), got {getattr(arr, 'dtype', type(arr))}")
    count[0] = n
    return p if p != NULL and n else <void*> ecsphys_carray_empty
