"""The check that ecsphys's compiled core is built, run first when ecsphys is imported.

Guarantees: importing ecsphys from a source tree whose Cython modules (every ``.pyx`` of the
package) have no built extension beside them raises ``ImportError`` saying so and how to build
them; there is no pure-Python fallback.
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path


def missing_extensions(package: Path) -> list[str]:
    """The compiled modules of ``package`` (dotted names) that have a ``.pyx`` but no built
    extension module beside it."""
    missing = []
    for pyx in sorted(package.rglob("*.pyx")):
        if not any(pyx.with_suffix(suffix).exists() for suffix in EXTENSION_SUFFIXES):
            rel = pyx.relative_to(package.parent).with_suffix("")
            missing.append(".".join(rel.parts))
    return missing


def require_compiled() -> None:
    """Raise ``ImportError`` naming the modules if the compiled core is not built."""
    missing = missing_extensions(Path(__file__).parent)
    if missing:
        raise ImportError(
            "ecsphys's compiled core is not built (no extension module for "
            f"{', '.join(missing)}). Build it by installing from the source tree with "
            "`pip install -e .` (needs a C compiler and the Python headers), or install a "
            "wheel."
        )
