"""Build of ecsphys's compiled core: every ``.pyx`` under ``ecsphys/`` becomes an extension.

Compiler directives are set once here for all modules. ``ECSPHYS_CYTHON_DEBUG=1`` turns the
checks back on (bounds, negative indices, initialised memoryviews, None) for hunting a crash:
``ECSPHYS_CYTHON_DEBUG=1 pip install -e .`` rebuilds with them. For development,
``ECSPHYS_BUILD_ONLY=ecsphys.geometry.impact python setup.py build_ext --inplace`` builds the
named modules only (comma-separated).
"""

from __future__ import annotations

import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("ECSPHYS_CYTHON_DEBUG", "0") not in ("", "0")
ONLY = [m for m in os.environ.get("ECSPHYS_BUILD_ONLY", "").split(",") if m]

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
        out.append(Extension(
            name, [str(rel)],
            extra_compile_args=["-O2"] if not DEBUG else ["-O0", "-g"],
        ))
    return out


setup(ext_modules=cythonize(
    _extensions(), compiler_directives=DIRECTIVES, force=DEBUG, quiet=True,
    include_path=["."],
))
