"""Every public name has a docstring: each class and function in the ``__all__`` of ecsphys and
of its public modules, each other public class of the API reference (``docs/api.rst``), each
of their public methods and properties, and each constant of ``ecsphys.__all__``. The API
reference is built from these docstrings, so a name without one would be an empty entry."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pyglet
import pytest

import ecsphys

# ecsphys.sprite_sync imports pyglet.graphics, which makes a GL context at import: off-screen
# (EGL), as in the other drawing tests, so this test runs without a display
pyglet.options["headless"] = True

ROOT = Path(__file__).resolve().parents[1]

# Modules whose ``__all__`` is public (the API reference documents them whole).
PUBLIC_MODULES = ["ecsphys", "ecsphys.geometry", "ecsphys.queries", "ecsphys.tiled"]

# Public classes outside those ``__all__`` that the API reference documents (as it names them).
EXTRA_CLASSES = [
    "ecsphys.queries.WorldQueries",
    "ecsphys.events.EventHandlers",
    "ecsphys.events.BodyContact",
    "ecsphys.events.HandlerEntry",
    "ecsphys.state.contact_set.ContactSet",
    "ecsphys.state.snapshot.Snapshot",
    "ecsphys.debug_draw.DebugDraw",
    "ecsphys.sprite_sync.BodySprite",
    "ecsphys.sprite_sync.SpriteSync",
]


def _resolve(dotted: str) -> object:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _public_names() -> dict[str, object]:
    found = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        found.update((f"{module_name}.{n}", getattr(module, n)) for n in module.__all__)
    found.update((n, _resolve(n)) for n in EXTRA_CLASSES)
    return found


def _public_classes() -> dict[str, type]:
    return {n: c for n, c in _public_names().items() if inspect.isclass(c)}


def _public_functions() -> dict[str, object]:
    return {n: f for n, f in _public_names().items() if callable(f) and not inspect.isclass(f)}


def _own_doc(obj: object) -> str:
    """The docstring of ``obj`` (inherited from the method it overrides, as Sphinx shows it)."""
    return (inspect.getdoc(obj) or "").strip()


def _members(cls: type) -> list[tuple[str, object]]:
    """The public methods and properties ``cls`` defines or inherits from ecsphys's classes
    (not those of ``object``, ``tuple``, ``int``, ``Enum`` ..., nor NamedTuple fields, which
    the class docstring describes)."""
    out = {}
    for base in reversed(cls.__mro__):
        if not base.__module__.startswith("ecsphys"):
            continue
        fields = vars(base).get("_fields", ())
        fields = fields if isinstance(fields, tuple) else ()
        for name, value in vars(base).items():
            if name.startswith("_") or name in fields:
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if inspect.isfunction(value) or isinstance(value, property):
                out[name] = getattr(cls, name)
    return sorted(out.items())


def _data_names() -> list[str]:
    return [n for n in ecsphys.__all__
            if not inspect.isclass(getattr(ecsphys, n)) and not callable(getattr(ecsphys, n))]


def test_the_public_names_are_what_the_reference_documents() -> None:
    api = (ROOT / "docs" / "api.rst").read_text()
    for dotted in [f"ecsphys.{n}" for n in ecsphys.__all__] + EXTRA_CLASSES:
        name = dotted.rpartition(".")[2]
        if name in _data_names():  # constants: in the reference through their class or module
            continue
        directive = rf"^\.\. auto\w+:: ({re.escape(dotted)}|{re.escape(name)})\b"
        assert re.search(directive, api, re.M), f"{dotted} is not in api.rst"


@pytest.mark.parametrize("name", sorted(_public_classes()))
def test_public_class_has_a_docstring(name: str) -> None:
    cls = _public_classes()[name]
    assert (cls.__doc__ or "").strip(), f"{name} has no docstring"


@pytest.mark.parametrize("name", sorted(_public_functions()))
def test_public_function_has_a_docstring(name: str) -> None:
    assert _own_doc(_public_functions()[name]), f"{name} has no docstring"


@pytest.mark.parametrize("name", sorted(_public_classes()))
def test_public_methods_have_docstrings(name: str) -> None:
    missing = [m for m, value in _members(_public_classes()[name]) if not _own_doc(value)]
    assert not missing, f"{name}: no docstring on {', '.join(missing)}"


@pytest.mark.parametrize("name", _data_names())
def test_public_constant_has_a_doc_comment(name: str) -> None:
    """A constant in ``__all__`` (``ALL``, ``STATIC``...) is documented by a ``#:`` comment on the
    line before its assignment in the module it is imported from (what Sphinx reads)."""
    init = ast.parse((ROOT / "ecsphys" / "__init__.py").read_text())
    module = next(node.module for node in ast.walk(init) if isinstance(node, ast.ImportFrom)
                  and any(alias.name == name for alias in node.names))
    source = (ROOT / "ecsphys" / f"{module.replace('.', '/')}.py").read_text().splitlines()
    line = next(i for i, text in enumerate(source) if text.startswith(f"{name} = "))
    assert source[line - 1].startswith("#:"), f"ecsphys.{module}.{name} has no #: comment"


def test_a_missing_docstring_is_found() -> None:
    class Undocumented:
        def method(self) -> None:
            pass

    Undocumented.__module__ = "ecsphys.example"
    assert [m for m, v in _members(Undocumented) if not _own_doc(v)] == ["method"]
