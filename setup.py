"""Build of ecsphys's compiled core: every ``.pyx`` under ``ecsphys/`` becomes an extension.

Compiler directives are set once here for all modules. ``ECSPHYS_CYTHON_DEBUG=1`` turns the
checks back on (bounds, negative indices, initialised memoryviews, None) for hunting a crash:
``ECSPHYS_CYTHON_DEBUG=1 pip install -e .`` rebuilds with them. For development,
``ECSPHYS_BUILD_ONLY=ecsphys.geometry.impact python setup.py build_ext --inplace`` builds the
named modules only (comma-separated). ``ECSPHYS_SANITIZE=1`` builds with AddressSanitizer
and UndefinedBehaviorSanitizer (``-fsanitize=address,undefined``) for CI's sanitizer run:
load the runtime first with ``LD_PRELOAD="$(gcc -print-file-name=libasan.so)"`` and
``ASAN_OPTIONS=detect_leaks=0`` (Python itself is not built with it).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("ECSPHYS_CYTHON_DEBUG", "0") not in ("", "0")
ONLY = [m for m in os.environ.get("ECSPHYS_BUILD_ONLY", "").split(",") if m]
SANITIZE = os.environ.get("ECSPHYS_SANITIZE", "0") not in ("", "0")
_SAN = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
        "-fno-omit-frame-pointer"]

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "nonecheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
}


def _extensions() -> list[Extension]:
    root = Path(__file__).parent
    out = []
    for pyx in sorted(root.glob("ecsphys/**/*.pyx")):
        rel = pyx.relative_to(root)
        name = ".".join(rel.with_suffix("").parts)
        if ONLY and name not in ONLY:
            continue
        if SANITIZE:
            flags, link = ["-O1", "-g", *_SAN], _SAN
        else:
            flags, link = (["-O2"] if not DEBUG else ["-O0", "-g"]), []
        # NumPy's headers: the raw-pointer hand-over (state/carray.pxd) reads arrays through
        # NumPy's C API; only its current API is used (no deprecation warnings)
        out.append(Extension(name, [str(rel)], extra_compile_args=flags,
                             extra_link_args=link, include_dirs=[numpy.get_include()],
                             define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]))
    return out


setup(ext_modules=cythonize(
    _extensions(), compiler_directives=DIRECTIVES, force=DEBUG or SANITIZE, quiet=True,
    include_path=["."],
))
