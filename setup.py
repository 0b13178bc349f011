"""Build of ecsphys's compiled core: every ``.pyx`` under ``ecsphys/`` becomes an extension.

Compiler directives are set once here for all modules. ``ECSPHYS_CYTHON_DEBUG=1`` turns the
checks back on (bounds, negative indices, initialised memoryviews, None) for hunting a crash:
``ECSPHYS_CYTHON_DEBUG=1 pip install -e .`` rebuilds with them. For development,
``ECSPHYS_BUILD_ONLY=ecsphys.geometry.impact python setup.py build_ext --inplace`` builds the
named modules only (comma-separated). ``ECSPHYS_SANITIZE=1`` builds with AddressSanitizer
and UndefinedBehaviorSanitizer (``-fsanitize=address,undefined``) for CI's sanitizer run:
load the runtime first with ``LD_PRELOAD="$(gcc -print-file-name=libasan.so)"`` and
``ASAN_OPTIONS=detect_leaks=0`` (Python itself is not built with it).

The build uses every core this process may run on: Cython translates the modules in parallel
processes and the C compiler runs on as many extensions at once (``build_ext``'s ``parallel``
option, set here because ``pip install`` and ``pip wheel`` cannot pass ``-j``).
``ECSPHYS_BUILD_JOBS=N`` sets the number of jobs (1 builds one module after another);
``python setup.py build_ext -j N`` wins over it. Cython runs only when extensions are built,
not each time setuptools reads the project's metadata.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

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


def _jobs() -> int:
    """``ECSPHYS_BUILD_JOBS`` if set, else the number of cores this process may run on."""
    value = os.environ.get("ECSPHYS_BUILD_JOBS", "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            raise ValueError(f"ECSPHYS_BUILD_JOBS must be a whole number >= 1, got {value!r}")
        return int(value)
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


JOBS = _jobs()


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
            # a release build carries no debug information (Python's own CFLAGS ask for -g:
            # -g0 after it wins; the linker drops what a static library brought): the
            # wheel is a tenth of its size
            flags, link = ((["-O2", "-g0"], ["-Wl,--strip-debug"]) if not DEBUG
                           else (["-O0", "-g"], []))
        # no fused multiply-adds: a product computed in two places (a quick test beside the
        # full one) rounds alike, and every machine gets the same bits (GCC and Clang fuse
        # by default where the target has FMA)
        flags = [*flags, "-ffp-contract=off"]
        # NumPy's headers: the raw-pointer hand-over (state/carray.pxd) reads arrays through
        # NumPy's C API; only its current API is used (no deprecation warnings)
        out.append(Extension(name, [str(rel)], extra_compile_args=flags,
                             extra_link_args=link, include_dirs=[numpy.get_include()],
                             define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]))
    return out


class ParallelBuildExt(build_ext):
    """``build_ext`` that runs ``JOBS`` jobs (or ``-j N``'s N) at once: Cython translates the
    ``.pyx`` sources in that many processes just before the compiler builds that many
    extensions in parallel."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel and JOBS > 1:
            self.parallel = JOBS

    def build_extensions(self) -> None:
        jobs = (os.cpu_count() or 1) if self.parallel is True else int(self.parallel or 1)
        translated = cythonize(
            self.extensions, compiler_directives=DIRECTIVES, force=DEBUG or SANITIZE or self.force,
            quiet=True, include_path=["."], nthreads=jobs if jobs > 1 else 0,
        )
        sources = {ext.name: ext.sources for ext in translated}
        for ext in self.extensions:  # setuptools keeps its own state on these objects
            ext.sources = sources[ext.name]
        # largest C file first, so that no core waits at the end on one big module
        self.extensions.sort(key=lambda ext: -sum(map(os.path.getsize, ext.sources)))
        super().build_extensions()


setup(ext_modules=_extensions(), cmdclass={"build_ext": ParallelBuildExt})
