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
# - a NumPy array is read through NumPy's C API (type number, byte order, contiguity, data
#   pointer: a few field reads, no buffer request, no format string); anything else through
#   the buffer protocol (taken and let go at once, no memoryview object is made). Either way
#   it costs a small fraction of a typed memoryview's acquisition: the step's fixed cost at
#   small sizes was mostly such acquisitions.
#
# A module that cimports this one is built against NumPy's headers (setup.py adds them);
# Cython calls NumPy's ``import_array`` at its import.

cimport numpy as cnp
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


cdef inline char _numpy_kind(cnp.ndarray a) noexcept:
    """'i', 'f' or 'b' for a native-order int64, float64 or one-byte bool / uint8 array; 0
    for anything else."""
    cdef int t = cnp.PyArray_TYPE(a)
    if t == cnp.NPY_BOOL or t == cnp.NPY_UINT8:
        return b'b'
    if not cnp.PyArray_ISNOTSWAPPED(a):
        return 0
    if t == cnp.NPY_FLOAT64:
        return b'f'
    if (t == cnp.NPY_LONG or t == cnp.NPY_LONGLONG) and \
            cnp.PyArray_ITEMSIZE(a) == 8:
        return b'i'
    return 0


cdef inline int _refuse(object arr, char kind) except -1:
    raise ValueError(f"expected a contiguous array of kind {chr(kind)!r} (i: int64, "
                     f"f: float64, b: bool), got {getattr(arr, 'dtype', type(arr))}")


cdef inline void* c_array(object arr, char kind, Py_ssize_t* count) except NULL:
    """A pointer to the items of ``arr`` (see the module comment); ``count`` gets how many."""
    cdef cnp.ndarray a
    cdef Py_ssize_t n
    cdef void* p
    if cnp.PyArray_Check(arr):
        a = <cnp.ndarray> arr
        if _numpy_kind(a) != kind:
            _refuse(arr, kind)
        if not cnp.PyArray_IS_C_CONTIGUOUS(a):
            raise ValueError(f"expected a contiguous array of kind {chr(kind)!r}, got a "
                             f"strided view (strides {arr.strides})")
        n = cnp.PyArray_SIZE(a)
        p = cnp.PyArray_DATA(a)
        count[0] = n
        return p if p != NULL and n else <void*> ecsphys_carray_empty
    cdef Py_buffer view
    PyObject_GetBuffer(arr, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    p = view.buf
    cdef char got = _kind(view.format, view.itemsize)
    n = view.len // view.itemsize if view.itemsize else 0
    PyBuffer_Release(&view)
    if got != kind:
        _refuse(arr, kind)
    count[0] = n
    return p if p != NULL and n else <void*> ecsphys_carray_empty


cdef inline object as_c(object arr, char kind):
    """``arr`` itself when `c_array` reads it as it is (a native, C-contiguous NumPy array of
    ``kind``), else a contiguous copy converted to ``kind`` (int64, float64 or bool): the
    common case costs a few field reads instead of a call to ``np.ascontiguousarray``."""
    if cnp.PyArray_Check(arr) and _numpy_kind(<cnp.ndarray> arr) == kind and \
            cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray> arr):
        return arr
    cdef int typenum = (cnp.NPY_INT64 if kind == b'i' else
                        cnp.NPY_FLOAT64 if kind == b'f' else cnp.NPY_BOOL)
    return cnp.PyArray_FROMANY(arr, typenum, 0, 0, cnp.NPY_ARRAY_C_CONTIGUOUS |
                               cnp.NPY_ARRAY_ALIGNED)


cdef inline object new_array(Py_ssize_t rows, Py_ssize_t cols, char kind):
    """A fresh uninitialised C-contiguous array of ``kind`` (int64, float64 or bool): ``rows``
    items with ``cols < 0``, else ``rows`` x ``cols`` (NumPy's C API: no Python call)."""
    cdef cnp.npy_intp dims[2]
    dims[0] = rows
    dims[1] = cols
    cdef int typenum = (cnp.NPY_INT64 if kind == b'i' else
                        cnp.NPY_FLOAT64 if kind == b'f' else cnp.NPY_BOOL)
    return cnp.PyArray_EMPTY(2 if cols >= 0 else 1, dims, typenum, 0)
