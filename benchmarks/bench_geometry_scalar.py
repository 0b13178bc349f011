"""Per-pair cost of the scalar (pure-Python) pair tests: median microseconds per call.

Run: ``python benchmarks/bench_geometry_scalar.py``.
"""

from __future__ import annotations

import statistics
import time

from ecsphys.geometry import contact, overlaps, time_of_impact
from ecsphys.shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment

HEX = Polygon([(1, 0), (0.5, 0.87), (-0.5, 0.87), (-1, 0), (-0.5, -0.87), (0.5, -0.87)])
CASES = {
    "circle-circle": (Circle(1), Circle(1), (1.5, 0.2)),
    "circle-rect": (Circle(1), Rect(2, 2), (1.5, 0.2)),
    "rect-rect": (Rect(2, 2), Rect(2, 2), (1.5, 0.2)),
    "circle-segment": (Circle(1), Segment((0, -1), (0, 1)), (0.5, 0.2)),
    "orect-orect": (OrientedRect(2, 1, 30), OrientedRect(2, 1, -20), (1.2, 0.3)),
    "polygon-polygon (6+6)": (HEX, HEX, (1.5, 0.3)),
    "circle-polygon": (Circle(1), HEX, (1.5, 0.3)),
    "compound(3)-compound(3)": (
        Compound([Circle(0.5), Rect(1, 1, offset=(1, 0)), HEX]),
        Compound([Circle(0.5), Rect(1, 1, offset=(1, 0)), HEX]),
        (1.5, 0.3),
    ),
    "compound-compound far": (
        Compound([Circle(0.5), Rect(1, 1, offset=(1, 0)), HEX]),
        Compound([Circle(0.5), Rect(1, 1, offset=(1, 0)), HEX]),
        (50, 0),
    ),
}


def median_us(fn, repeat: int = 9, number: int = 2000) -> float:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - t0) / number * 1e6)
    return statistics.median(runs)


def main() -> None:
    print(f"{'pair':28s} {'contact':>9s} {'overlaps':>9s} {'toi':>9s}  (us per call, median)")
    for name, (a, b, pb) in CASES.items():
        assert contact(a, (0, 0), b, pb) is not None or pb == (50, 0)
        c = median_us(lambda a=a, b=b, pb=pb: contact(a, (0.0, 0.0), b, pb))
        o = median_us(lambda a=a, b=b, pb=pb: overlaps(a, (0.0, 0.0), b, pb))
        start = (pb[0] + 5, pb[1])
        t = median_us(
            lambda a=a, b=b, s=start: time_of_impact(a, (0.0, 0.0), (6.0, 0.0), b, s), number=200
        )
        print(f"{name:28s} {c:9.2f} {o:9.2f} {t:9.1f}")


if __name__ == "__main__":
    main()
