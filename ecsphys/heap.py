"""Keeps freed heap memory in the process, so NumPy temporaries cost no page faults.

A step allocates many temporary arrays of 100 KB and more (one float per candidate pair at
10,000 bodies is 128 KB). With glibc's defaults the heap is trimmed back to the system as
soon as they are freed, so the next step maps those pages again and the kernel zeroes every
one of them: measured on the rain scene at 10,000 bodies, about a quarter of the step's time.
Asking glibc to keep a pad of freed memory at the top of the heap (``M_TOP_PAD``) removes that
cost for the price of holding that much memory once it was used.

Guarantees:
- `keep_freed_memory` changes the allocator once per process, only where glibc's ``mallopt``
  exists (Linux with glibc); elsewhere, or when the environment variable
  ``ECSPHYS_KEEP_FREED_MEMORY`` is ``0``, it does nothing and returns False;
- it never raises: an allocator that refuses the setting leaves things as they were.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

#: glibc's mallopt parameter number for the top pad (malloc.h: M_TOP_PAD)
_M_TOP_PAD = -2
#: freed memory kept at the top of the heap: enough for the temporaries of a 50,000-body step
TOP_PAD_BYTES = 32 * 1024 * 1024
ENV_VAR = "ECSPHYS_KEEP_FREED_MEMORY"

_done: bool | None = None


def keep_freed_memory() -> bool:
    """Ask glibc to keep ``TOP_PAD_BYTES`` of freed memory (once per process).

    Returns whether the setting is in force. Called by `ecsphys.Physics` on creation; set the
    environment variable ``ECSPHYS_KEEP_FREED_MEMORY=0`` to leave the allocator alone.
    """
    global _done
    if _done is not None:
        return _done
    _done = False
    if os.environ.get(ENV_VAR, "1") == "0" or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _done = mallopt(_M_TOP_PAD, TOP_PAD_BYTES) == 1
    return _done
