"""Sphinx configuration of ecsphys's API reference.

Build it (from the repository's root, with ``pip install -e ".[docs]"``):
``python -m sphinx -W --keep-going -n -b html docs docs/_build/html``. ``-W`` and ``-n`` make
a broken cross-reference an error, and so is a documented public name without a docstring
(``_require_docstrings`` below; ``tests/test_docstrings.py`` checks the same in the test suite).

The API is read from the installed package (autodoc imports it, so the compiled core must be
built); the compiled functions carry their signatures in their docstrings (``embedsignature``
in ``setup.py``).
"""

from __future__ import annotations

import pyglet

# imported before anything is read: a source tree whose compiled core is not built stops the
# build here, with ecsphys's message saying how to build it
import ecsphys  # noqa: F401

# ecsphys.sprite_sync imports pyglet.graphics, which makes a GL context at import: off-screen
# (EGL), so the reference builds without a display
pyglet.options["headless"] = True

project = "ecsphys"
author = "ecsphys contributors"
copyright = "ecsphys contributors"
release = version = "0.1.0"

extensions = ["sphinx.ext.autodoc", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# `Name` in a docstring is a cross-reference (checked by -n), found by its last part:
# `Physics` in ecsphys.events names ecsphys.Physics.
default_role = "any"
add_module_names = False
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "undoc-members": True}
myst_heading_anchors = 3

# Other projects' types in signatures (numpy, the standard library, pyglet) are shown unlinked:
# linking them would need their inventories from the network at every build.
nitpick_ignore_regex = [
    ("py:class", r"(numpy|np|collections\.abc|enum|os|typing|pyglet)\..*"),
    # ecsphys.geometry.hull's names for box and circle tuples, left as written where the
    # annotations cannot be evaluated (they import Shape only under TYPE_CHECKING)
    ("py:class", r"Box|CircleT"),
    # the TypeVar of EventHandlers' decorators (the decorated function's own type)
    ("py:class", r"ecsphys\.events\.F"),
    # tuple[float, float]: NamedTuple signatures (Hit) show their field annotations unevaluated
    ("py:class", r"Vec"),
]

html_theme = "alabaster"
html_title = f"ecsphys {release}"


def _require_docstrings(app, what, name, obj, options, lines) -> None:
    """A documented object with no docstring is a warning (an error under ``-W``)."""
    # attributes (slots, dataclass and NamedTuple fields) are described by their class
    if not any(line.strip() for line in lines) and what not in ("module", "attribute"):
        from sphinx.util import logging

        logging.getLogger("ecsphys.docs").warning(
            "%s %s has no docstring", what, name, type="ecsphys", subtype="docstring")


def _lists(app, what, name, obj, options, lines) -> None:
    """A blank line before a list that follows its heading line directly (``Guarantees:``
    then ``- ...``, as ecsphys's docstrings write them), which reStructuredText needs."""
    for i in range(len(lines) - 1, 0, -1):
        if lines[i].lstrip().startswith("- ") and lines[i - 1].rstrip().endswith(":"):
            lines.insert(i, "")


def _sections(app, what, name, obj, options, lines) -> None:
    """Google-style sections (``Parameters:``, ``Returns:``) of classes and functions become
    field lists. Properties and data are left as written: napoleon would read the first
    ``words: more words`` of their docstrings as a type."""
    if what in ("class", "exception", "function", "method"):
        from sphinx.ext.napoleon import Config, GoogleDocstring

        config = Config(napoleon_numpy_docstring=False, napoleon_use_rtype=False)
        lines[:] = GoogleDocstring(lines, config, app, what, name, obj, options).lines()


def setup(app):
    """Sphinx's hook for this project's own checks and fixes of docstrings."""
    app.connect("autodoc-process-docstring", _lists)
    app.connect("autodoc-process-docstring", _sections)
    app.connect("autodoc-process-docstring", _require_docstrings)
    return {"parallel_read_safe": True}

