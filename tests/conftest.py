"""Shared fixtures: every test runs in an esper world of its own."""

from __future__ import annotations

import itertools

import esper
import pytest
from hypothesis import settings

# Property tests draw the same examples on every run (CI included): a failure is reproducible,
# never a coin toss. Set HYPOTHESIS_PROFILE=explore for fresh random examples.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "ci"))

_counter = itertools.count()


@pytest.fixture
def world():
    """Switch to a fresh esper world for the test; returns its name."""
    name = f"test-{next(_counter)}"
    previous = esper.current_world
    esper.switch_world(name)
    yield name
    esper.switch_world(previous if previous != name else "default")
    if name in esper.list_worlds() and esper.current_world != name:
        esper.delete_world(name)


@pytest.fixture(scope="module")
def window(request):  # type: ignore[no-untyped-def]
    """A hidden pyglet window of the test module's ``W`` x ``H`` pixels, drawn off-screen
    (EGL); the module's tests are skipped on a machine without headless GL."""
    pyglet = pytest.importorskip("pyglet")
    pyglet.options["headless"] = True
    try:
        win = pyglet.window.Window(request.module.W, request.module.H, visible=False)
    except Exception as exc:  # pragma: no cover - machines without EGL
        pytest.skip(f"no headless GL: {exc}")
    yield win
    win.close()


@pytest.fixture
def built():
    """``make(name, engine, n)``: a benchmark scene built by the runner's own builders
    (`benchmarks.scenes.build`; the benchmark tests), closed after the test."""
    from benchmarks import scenes  # (the benchmark tests put the repository root on the path)

    made: list = []

    def make(name: str, engine: str, n: int):  # noqa: ANN202
        scene = scenes.build(name, engine, n)
        made.append(scene)
        return scene

    yield make
    for scene in made:
        scene.close()
