"""The allocator setting that keeps freed memory: in force on glibc, opt-out by environment."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ecsphys import heap

_PROBE = (
    "import ecsphys, ecsphys.heap as h, esper; esper.switch_world('probe'); "
    "ecsphys.Physics(); print(h._done)"
)


def _run(env_value: str | None) -> str:
    import os

    env = dict(os.environ)
    env.pop(heap.ENV_VAR, None)
    if env_value is not None:
        env[heap.ENV_VAR] = env_value
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                         text=True, check=True)
    return out.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt: Linux")
def test_physics_keeps_freed_memory_on_glibc() -> None:
    assert _run(None) == "True"


def test_environment_variable_opts_out() -> None:
    assert _run("0") == "False"


def test_second_call_answers_the_same_without_calling_again() -> None:
    first = heap.keep_freed_memory()
    assert heap.keep_freed_memory() is first
