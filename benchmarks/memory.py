"""Memory per body: how much a process's resident memory grows when an engine holds the rain.

Guarantees:
- one engine per process (``python -m benchmarks.memory ENGINE N`` is run in a fresh
  subprocess by the runner), so no other engine's allocations are counted or reused;
- every engine module is imported and the rain layout of N bodies is made before the first
  reading, then an empty world of the engine is built and stepped once: the baseline; then the
  rain of N bodies is built in the engine and stepped twice (its contacts and broadphase
  allocated), and the second reading taken; both after a ``gc.collect()``;
- resident memory comes from ``/proc/self/statm`` (pages resident, times the page size): it
  sees the C allocations that ``tracemalloc`` cannot (pymunk's Chipmunk, Box2D, the compiled
  core of ecsphys) as well as the Python objects (esper's components, pymunk's bodies);
- prints one JSON line: ``bytes_per_body`` = (second reading - baseline) / N, and the
  readings in bytes.

    python -m benchmarks.memory box2d 10000
"""

from __future__ import annotations

import gc
import json
import os
import sys

import pymunk  # noqa: F401

import ecsphys  # noqa: F401  (imported before the baseline, as the other engines are)

from . import scenes as S


def rss() -> int:
    """Resident bytes of this process now (Linux: ``/proc/self/statm``)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def measure(engine: str, n: int) -> dict[str, float]:
    """The baseline and the rain's readings of ``engine`` (see the module notes)."""
    if engine == "box2d":
        S._pyb2d3()
    lay = S.rain_layout(n)
    empty = S.build_layout(S.empty_layout(), engine)
    with empty.playing():
        empty.step()
    gc.collect()
    before = rss()
    scene = S.build_layout(lay, engine)
    with scene.playing():
        for _ in range(2):
            scene.step()
            scene.after_step()  # (Box2D: its contact events tallied)
    gc.collect()
    after = rss()
    out = {"bytes_per_body": (after - before) / n, "rss_empty": before, "rss_rain": after,
           "contacts": scene.contacts()}
    scene.close()
    empty.close()
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    engine, n = args[0], int(args[1])
    print(json.dumps(measure(engine, n)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
