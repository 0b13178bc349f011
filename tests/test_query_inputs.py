"""Hostile arguments to the world queries (issue 27, item 3): every query argument is checked
against the valid range before anything runs, and no compiled loop of a query runs for as long
as its input says.

What these tests show:

- rays, casts and points beyond ``limits.MAX_COORD`` (1e308 included) are refused with a
  ``ValueError`` naming the argument and the value. Before, a ray to (1e308, -1e308) that
  crossed a pixel mask never returned (its pixel walk stepped by 0), one to (1e308, 1e308)
  answered NaN fractions, points and normals, and rays in a world reaching the edge of the
  range were walked for about a second each (``raycast_many`` of a hundred: minutes);
- the longest rays and casts inside the range, across a world that reaches ``MAX_COORD`` on
  every side, answer in milliseconds (the grid's index walks only the rows that hold boxes);
- a pixel mask cast along a long move costs per body near its path, not per pixel of the
  move: one that hung (a halving that could not converge at 1e9 with 1e-6 pixels) answers,
  one that tested 100,000 placements of each body along the way answers at once;
- ``exclude`` takes entities (ints in [0, 2**63 - 1], at most ``MAX_EXCLUDE`` of them: an
  endless iterator used to hang), ``ignore`` entities or -1, ``shape`` a concrete shape (the
  ``Shape`` base class raised ``NotImplementedError``), the arrays of ``raycast_many`` real
  numbers of shape (n, 2) (bools, strings, complex numbers and dates were read as
  coordinates; any layout and int or float dtype is read alike, no rows answer no rows);
- a fuzz of every query with hostile arguments (NaN, infinities, 1e308, -0.0, huge ints, wrong
  dtypes, non-contiguous and empty arrays, wrong shapes, strings, None), batches of cases in
  a subprocess with a time limit: each call answers inside the valid range (entities of the
  world, fractions in [0, 1], finite points and normals) or raises ``ValueError`` /
  ``TypeError`` whose message starts with the name of one of its hostile arguments, and
  leaves the world as it was, bit for bit.

Whatever could hang runs in a subprocess with a timeout (``run_cases`` / ``run_script``), so a
regression fails instead of freezing the suite.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import re
import subprocess
import sys
import textwrap
import time
from decimal import Decimal
from fractions import Fraction

import esper
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ecsphys as ep
from ecsphys.limits import MAX_COORD
from ecsphys.mask import Mask
from ecsphys.queries.world_queries import Hit, RayHits
from ecsphys.shapes import Shape

M = MAX_COORD
BEYOND = math.nextafter(MAX_COORD, math.inf)
TESTS = os.path.dirname(os.path.abspath(__file__))
QUERIES = ("query_point", "raycast", "raycast_all", "query_region", "cast_shape",
           "raycast_many")


def body(shape, pos, kind=ep.STATIC, vel=(0.0, 0.0), **collider):
    return esper.create_entity(ep.Position(*pos), ep.Velocity(*vel),
                               ep.Collider(kind, **collider), ep.Geometry(shape))


def build_scene(broadphase: str = "grid") -> ep.Physics:
    """Every shape kind near the origin, a moving body, a sensor, and bodies at the corners
    of the valid range (in the current esper world); stepped three times."""
    physics = ep.Physics(fixed_dt=1 / 60, broadphase=broadphase)
    pixels = np.zeros((5, 5), dtype=bool)
    pixels[1:4, 1:4] = True
    pixels[0, 0] = True
    body(ep.Circle(1), (0, 0))
    body(ep.Rect(2, 1), (5, 0))
    body(ep.Segment((0, 0), (3, 1)), (-6, 2))
    body(ep.Polygon([(0, 0), (2, 0), (0, 2)]), (2, 6))
    body(ep.OrientedRect(2, 1, 30), (-5, -1))
    body(Mask(pixels, scale=0.5), (-4, -4))
    body(ep.TileMap(["#..#", "####"], 1.0), (10, -6))
    body(ep.Compound([ep.Circle(0.5), ep.Rect(1, 1, offset=(1, 0))]), (-3, 5))
    body(ep.Circle(0.5), (0, 3), ep.ACTIVE, vel=(1, 0))
    body(ep.Rect(1, 1), (3, -3), sensor=True)
    for x, y in ((M, M), (-M, -M), (M, -M), (-M, M)):
        body(ep.Circle(1), (x, y))
        body(ep.Rect(1, 1), (x * 0.999999, y * 0.999999), ep.ACTIVE)
    for _ in range(3):
        esper.process(1 / 60)
    return physics


def frozen(physics: ep.Physics) -> tuple[bytes, ...]:
    """The world's bits: rows, entities, positions, velocities, interned shapes."""
    t = physics.table
    n = t.n
    return (bytes(t.entity[:n]), t.pos[:n].tobytes(), t.vel[:n].tobytes(),
            repr((t.store.leaves, len(t.store))).encode())


def finite(*values: float) -> bool:
    return all(math.isfinite(v) for v in values)


# ------------------------------------------------------------ checking an answer


def _hit_problem(h: object, entities: set[int]) -> str | None:
    if not isinstance(h, Hit):
        return f"not a Hit: {h!r}"
    if type(h.entity) is not int or h.entity not in entities:
        return f"entity {h.entity!r} is no body"
    if not (finite(h.fraction, *h.point, *h.normal) and 0.0 <= h.fraction <= 1.0):
        return f"out of range: {h!r}"
    return None


def answer_problem(name: str, answer: object, entities: set[int]) -> str | None:
    """None if ``answer`` of query ``name`` is inside the valid range, else what is wrong."""
    if name in ("query_point", "query_region"):
        if not isinstance(answer, list) or any(type(e) is not int or e not in entities
                                               for e in answer):
            return f"not a list of entities: {answer!r}"
        return None if answer == sorted(set(answer)) else f"not sorted: {answer!r}"
    if name in ("raycast", "cast_shape"):
        return None if answer is None else _hit_problem(answer, entities)
    if name == "raycast_all":
        if not isinstance(answer, list):
            return f"not a list: {answer!r}"
        for h in answer:
            if (p := _hit_problem(h, entities)) is not None:
                return p
        keys = [(h.fraction, h.entity) for h in answer]
        return None if keys == sorted(keys) else f"not in order: {answer!r}"
    assert name == "raycast_many"
    if not isinstance(answer, RayHits):
        return f"not RayHits: {answer!r}"
    n = answer.entity.shape[0]
    shapes = [a.shape for a in answer]
    if shapes != [(n,), (n,), (n, 2), (n, 2), (n,)]:
        return f"shapes {shapes}"
    if not (np.isfinite(answer.point).all() and np.isfinite(answer.normal).all()
            and ((answer.fraction >= 0.0) & (answer.fraction <= 1.0)).all()):
        return f"out of range: {answer!r}"
    if not all(e == -1 or e in entities for e in answer.entity.tolist()):
        return f"entities {answer.entity!r}"
    return None if (answer.hit == (answer.entity >= 0)).all() else f"hit {answer.hit!r}"


# ------------------------------------------------------------ cases in a subprocess


def _worker() -> None:
    """Run the pickled ``(broadphase, cases)`` from stdin against `build_scene`, each case
    ``(query, args, kwargs, hostile)``; write one JSON line an outcome as each ends."""
    broadphase, cases = pickle.load(sys.stdin.buffer)
    esper.switch_world("worker")
    physics = build_scene(broadphase)
    entities = set(physics.table.entity[:physics.table.n].tolist())
    before = frozen(physics)
    for name, args, kwargs, _ in cases:
        t0 = time.perf_counter()
        try:
            answer = getattr(physics, name)(*args, **kwargs)
        except (ValueError, TypeError) as e:
            out = {"kind": "refused", "error": type(e).__name__, "message": str(e)}
        except Exception as e:  # noqa: BLE001 - reported: any other exception is a failure
            out = {"kind": "error", "error": type(e).__name__, "message": str(e)}
        else:
            out = {"kind": "answered", "problem": answer_problem(name, answer, entities)}
        out["seconds"] = time.perf_counter() - t0
        out["changed"] = frozen(physics) != before
        print("CASE", json.dumps(out), flush=True)


def _outcomes(stdout: bytes | None) -> list[dict]:
    text = (stdout or b"").decode(errors="replace")
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("CASE ")]


def run_cases(cases: list, broadphase: str = "grid", timeout: float = 60.0) -> list[dict]:
    """The outcomes of ``cases`` run by `_worker` in a subprocess; a case that does not
    return within ``timeout`` (all of them together) or a crash fails the test, naming it."""
    code = f"import sys; sys.path.insert(0, {TESTS!r}); import test_query_inputs as T; T._worker()"
    try:
        done = subprocess.run([sys.executable, "-c", code], input=pickle.dumps((broadphase, cases)),
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        k = len(_outcomes(e.stdout))
        pytest.fail(f"hang: case {k} of {len(cases)} did not return within {timeout} s: "
                    f"{cases[k][:3]!r}")
    got = _outcomes(done.stdout)
    if done.returncode != 0:
        k = len(got)
        pytest.fail(f"crash (exit {done.returncode}) in case {k} of {len(cases)}: "
                    f"{cases[k][:3] if k < len(cases) else None!r}\n"
                    f"{done.stderr.decode(errors='replace')[-3000:]}")
    assert len(got) == len(cases)
    return got


def named(message: str, names: set[str]) -> bool:
    """Whether the message's subject (before its first "must" / "may") is one of ``names``
    (``start.x``, ``starts[3]``, ``starts and ends`` ...)."""
    subject = re.split(r" (?:must|may) ", message, maxsplit=1)[0]
    return any(re.search(rf"(?<![\w.]){re.escape(n)}\b", subject) for n in names)


def check_outcomes(cases: list, outcomes: list[dict], slow: float = 5.0) -> dict[str, int]:
    """Every case answered in range (when it has no hostile argument) or was refused naming
    one of its hostile arguments; the world never changed. Returns the tally."""
    tally = {"cases": len(cases), "answers": 0, "refusals": 0}
    for (name, args, kwargs, hostile), out in zip(cases, outcomes, strict=True):
        what = f"{name}(*{args!r}, **{kwargs!r}) [hostile: {sorted(hostile)}] -> {out}"
        assert not out["changed"], "the world changed: " + what
        assert out["seconds"] < slow, "slow: " + what
        assert out["kind"] != "error", "wrong exception: " + what
        if out["kind"] == "answered":
            assert not hostile, "answered a hostile argument: " + what
            assert out["problem"] is None, what
            tally["answers"] += 1
        else:
            assert hostile, "refused valid arguments: " + what
            assert named(out["message"], hostile), "refused without naming it: " + what
            tally["refusals"] += 1
    return tally


def case(name: str, *args, hostile=(), **kwargs) -> tuple:
    return (name, args, kwargs, set(hostile))


# ------------------------------------------------------------ what hung or answered NaN


def test_rays_beyond_the_range_are_refused_not_walked():
    far = (1e308, -1e308)
    cases = [
        case("raycast", (-10, 10), far, hostile={"end"}),  # crossed the mask: never returned
        case("raycast_all", (-10, 10), far, hostile={"end"}),
        case("raycast_all", (0, 0), (1e308, 1e308), hostile={"end"}),  # NaN hits
        case("raycast_all", (-1e308, 0), (1e308, 0), hostile={"start", "end"}),
        case("cast_shape", ep.Circle(1), (0, 0), far, hostile={"end"}),
        case("raycast_many", np.zeros((3, 2)), np.tile(far, (3, 1)), hostile={"ends"}),
        case("raycast", (0, 1e300), (0, 0), hostile={"start"}),
    ]
    outcomes = run_cases(cases, timeout=60)
    check_outcomes(cases, outcomes)
    for out in outcomes:
        assert out["error"] == "ValueError" and "1e+09" in out["message"], out
    assert outcomes[0]["message"] == "end.x must be in [-1e+09, 1e+09], got 1e+308"
    assert outcomes[5]["message"].startswith("ends[0] must be finite and in [-1e+09, 1e+09]")


def test_coordinates_beyond_max_coord_are_refused_naming_them():
    cases = [
        case("query_point", BEYOND, 0, hostile={"x"}),
        case("query_point", 0, -1e308, hostile={"y"}),
        case("query_point", 2**70, 0, hostile={"x"}),
        case("raycast", (BEYOND, 0), (0, 0), hostile={"start"}),
        case("raycast", (0, 0), (0, -BEYOND), hostile={"end"}),
        case("raycast_all", (0, 1e300), (0, 0), hostile={"start"}),
        case("query_region", ep.Circle(1), (-1e10, 0), hostile={"position"}),
        case("cast_shape", ep.Circle(1), (0, 0), (2e9, 0), hostile={"end"}),
        case("cast_shape", Mask(np.ones((2, 2), bool)), (0, 1e18), (0, 0), hostile={"start"}),
        case("raycast_many", [[0, 0], [BEYOND, 0]], [[1, 1], [1, 1]], hostile={"starts"}),
        case("raycast_many", [[0, 0]], [[1, -1e10]], hostile={"ends"}),
        # the edge itself is inside
        case("query_point", M, M),
        case("raycast", (-M, M), (M, -M)),
        case("raycast_all", (-M, M), (M, -M)),
        case("cast_shape", ep.Circle(0.5), (-M, 0), (M, 0)),
        case("raycast_many", [[M, -M]], [[-M, M]]),
    ]
    outcomes = run_cases(cases)
    check_outcomes(cases, outcomes)
    fields = ["x", "y", "x", r"start\.x", r"end\.y", r"start\.y", r"position\.x", r"end\.x",
              r"start\.y", r"starts\[1\]", r"ends\[0\]"]
    for field, out in zip(fields, outcomes, strict=False):
        assert out["error"] == "ValueError" and re.match(field + " ", out["message"]), out


def test_raycast_many_takes_arrays_of_real_coordinates_only():
    bad = [
        (np.array([[True, False]]), "TypeError"),
        ([["1", "2"]], "TypeError"),
        (np.array([[1 + 1j, 0]]), "TypeError"),
        (np.array([["2020-01-01", "2020-01-02"]], dtype="datetime64[D]"), "TypeError"),
        (np.array([[1, None]], dtype=object), "TypeError"),
        ([[2**1030, 0]], "ValueError"),
        ([[2**70, 0]], "ValueError"),
        (None, "TypeError"),
        ("ab", "TypeError"),
        (5.0, "ValueError"),
        ([[]], "ValueError"),
        (np.zeros((1, 2, 2)), "ValueError"),
        (np.zeros((1, 3)), "ValueError"),
        ([[1, 2], [3]], "ValueError"),
        (np.array([[np.nan, 0]]), "ValueError"),
        (np.array([[0, -np.inf]]), "ValueError"),
        (np.array([[1e300, 0]], dtype=np.longdouble), "ValueError"),
    ]
    cases, errors = [], []
    for value, error in bad:
        cases.append(case("raycast_many", value, np.zeros((1, 2)), hostile={"starts"}))
        cases.append(case("raycast_many", np.zeros((1, 2)), value, hostile={"ends"}))
        errors += [error, error]
    outcomes = run_cases(cases)
    check_outcomes(cases, outcomes)
    assert [o["error"] for o in outcomes] == errors


def test_an_endless_exclude_is_refused():
    cases = [case("raycast", (0, 0), (1, 1), exclude=__import__("itertools").count(),
                  hostile={"exclude"})]
    out = run_cases(cases, timeout=60)[0]
    assert out["error"] == "ValueError" and "at most 1000000" in out["message"], out


# ------------------------------------------------------------ the longest walks in range


EDGE_WORLD = """
import time
import esper, numpy as np, ecsphys as ep
esper.switch_world("edge")
physics = ep.Physics(fixed_dt=1 / 60, broadphase={broadphase!r})
M = 1e9
# statics and movers at the four corners of the valid range: the index spans all of it
for x, y in ((M, M), (-M, -M), (M, -M), (-M, M)):
    esper.create_entity(ep.Position(x, y), ep.Velocity(0, 0), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.Rect(2, 2)))
    esper.create_entity(ep.Position(x * 0.999999, y * 0.99), ep.Velocity(0, 0),
                        ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(1)))
esper.process(1 / 60)
{moved}
t0 = time.perf_counter()
{attempt}
print("seconds:", time.perf_counter() - t0)
"""

LONGEST = """
# 100 rays from the middle to near a corner, passing nothing, and 100 along the diagonal
# from corner to corner, hitting the far one: the whole length is walked (about a second a
# ray before)
rng = np.random.default_rng(1)
ends = np.column_stack((np.full(100, M - 10), -M + rng.uniform(5, 50, 100)))
many = physics.raycast_many(np.zeros((100, 2)), ends)
assert not many.hit.any(), many.entity
diag = physics.raycast_many(np.tile([-M + 3, M - 3.5], (100, 1)),
                            np.tile([M - 0.5, -M + 0.5], (100, 1)))
assert diag.hit.all() and (diag.fraction > 0.999).all(), diag
assert physics.raycast((0, 0), (M - 10, -M + 5)) is None
assert physics.raycast_all((0, 0), (M - 10, -M + 5)) == []
assert physics.cast_shape(ep.Circle(0.5), (0, 0), (M - 10, -M + 5)) is None
"""
# the 203 queries of LONGEST: about 0.2 s here (1 ms a ray at most), 200 s and more before;
# room for a loaded machine and the sanitizer build
LONGEST_SECONDS = 3.0


def run_script(template: str, timeout: float, **fmt) -> tuple[str, float]:
    code = textwrap.dedent(template).format(**fmt)
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hang: no answer within {timeout} s")
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, float(re.search(r"seconds: (\S+)", done.stdout).group(1))


@pytest.mark.parametrize("broadphase", ["grid", "sweep", "quadtree"])
def test_the_longest_rays_in_range_answer_in_milliseconds(broadphase):
    out, seconds = run_script(EDGE_WORLD, 120, broadphase=broadphase, moved="",
                              attempt=textwrap.dedent(LONGEST))
    assert seconds < LONGEST_SECONDS, out


@pytest.mark.parametrize("broadphase", ["grid", "brute"])
def test_long_rays_past_many_escaped_bodies_test_each_once(broadphase):
    # 3,000 bodies moved by the game since the step (or all of them, with no index) are
    # tested on their own: once a ray, not once for each of its 4,096 chunks
    moved = """
    rng = np.random.default_rng(2)
    crowd = [esper.create_entity(ep.Position(x, y), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                                 ep.Geometry(ep.Circle(1)))
             for x, y in rng.uniform(-M / 2, M / 2, (3000, 2))]
    esper.process(1 / 60)
    for e in crowd:
        esper.component_for_entity(e, ep.Position).y += 3.0  # out of their swept boxes
    assert physics.queries.escaped >= 3000
    """
    out, seconds = run_script(EDGE_WORLD, 120, broadphase=broadphase,
                              moved=textwrap.dedent(moved), attempt=textwrap.dedent(LONGEST))
    assert seconds < LONGEST_SECONDS, out


MASK_WORLD = """
import time
import esper, numpy as np, ecsphys as ep
esper.switch_world("masks")
physics = ep.Physics(fixed_dt=1 / 60)
{scene}
esper.process(1 / 60)
t0 = time.perf_counter()
{attempt}
print("seconds:", time.perf_counter() - t0)
"""


def test_a_mask_of_tiny_pixels_cast_a_long_way_answers():
    # the halving after the sampling went down to a thousandth of a pixel (1e-9 here),
    # finer than a fraction resolves over 2e9: it never ended
    scene = """
    wall = esper.create_entity(ep.Position(9e8 + 0.123, 0), ep.Collider(ep.STATIC),
                               ep.Geometry(ep.Rect(1, 1)))
    """
    attempt = """
    m = ep.Mask(np.ones((4, 4), bool), scale=1e-6)
    hit = physics.cast_shape(m, (-1e9, 0), (1e9, 0))
    assert hit is not None and hit.entity == wall, hit
    # it stops where the mask's right side (2e-6 from its centre) meets the wall's left side
    want = (9e8 + 0.123 - 0.5 - 2e-6 + 1e9) / 2e9
    assert abs(hit.fraction - want) * 2e9 < 1e-6, (hit, want)
    assert hit.normal == (-1.0, 0.0)
    """
    out, seconds = run_script(MASK_WORLD, 60, scene=textwrap.dedent(scene),
                              attempt=textwrap.dedent(attempt))
    assert seconds < 1.0, out


def test_a_mask_cast_past_many_bodies_costs_per_body_not_per_pixel_of_the_move():
    # the mask's box grazes 1,000 boxes its pixels never touch: each of them used to be
    # sampled 100,000 times along the whole move (about 5 s here)
    scene = """
    for i in range(1000):
        esper.create_entity(ep.Position(i * 10.0, -3.0), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(1, 1)))
    end = esper.create_entity(ep.Position(10_050.0, 3.5), ep.Collider(ep.STATIC),
                              ep.Geometry(ep.Rect(1, 1)))
    """
    attempt = """
    pixels = np.zeros((8, 8), bool)
    pixels[0, :] = True  # the top row (y 3 to 4): the box reaches down to -4
    m = ep.Mask(pixels)
    hit = physics.cast_shape(m, (-100, 0), (20_000, 0))
    assert hit is not None and hit.entity == end and hit.normal == (-1.0, 0.0), hit
    # stopped where the mask's right side (4 from its centre) meets the box at 10,049.5
    assert abs(-100 + 20_100 * hit.fraction + 4 - 10_049.5) < 1e-3, hit
    far = physics.cast_shape(m, (-1e9, 0), (1e9, 0))
    assert far.entity == end and abs(-1e9 + 2e9 * far.fraction + 4 - 10_049.5) < 1e-3, far
    assert physics.cast_shape(m, (-100, 0), (10_040, 0)) is None
    """
    out, seconds = run_script(MASK_WORLD, 120, scene=textwrap.dedent(scene),
                              attempt=textwrap.dedent(attempt))
    assert seconds < 1.0, out


# ------------------------------------------------------------ wrong exceptions (in process)


@pytest.fixture
def scene(world):
    return build_scene()


def test_a_ray_to_1e308_answered_nan_and_is_refused(world):
    # (a world without masks or tile maps: there it did not hang, it answered NaN)
    physics = ep.Physics()
    body(ep.Circle(1), (0, 0))
    body(ep.Circle(1), (5, -5))
    esper.process(1 / 60)
    with pytest.raises(ValueError, match=r"end\.x must be in \[-1e\+09, 1e\+09\], got 1e\+308"):
        physics.raycast_all((-10, 10), (1e308, -1e308))
    hits = physics.raycast_all((-10, 10), (10, -10))
    assert len(hits) == 2 and all(_hit_problem(h, {1, 2}) is None for h in hits)


@pytest.mark.parametrize("exclude, error", [
    (2**70, ValueError),
    (2**63, ValueError),
    (-1, ValueError),
    (np.uint64(2**64 - 1), ValueError),
    ([1, 2**64], ValueError),
    ({-5}, ValueError),
    (np.array([1, -2]), ValueError),
    (np.array([2**64 - 1], dtype=np.uint64), ValueError),
    (np.array([1.0]), TypeError),
    ("12", TypeError),
    (None, TypeError),
    ([None], TypeError),
    (b"\x01", TypeError),
    ([True], TypeError),
    (range(2_000_000), ValueError),  # more than MAX_EXCLUDE
])
def test_exclude_out_of_the_entity_range_is_refused_naming_it(scene, exclude, error):
    before = frozen(scene)
    for call in (lambda: scene.query_point(0, 0, exclude=exclude),
                 lambda: scene.raycast((0, 0), (1, 1), exclude=exclude),
                 lambda: scene.raycast_many([[0, 0]], [[1, 1]], exclude=exclude)):
        with pytest.raises(error, match="^exclude "):
            call()
    assert frozen(scene) == before


def test_exclude_takes_any_entity_in_range(scene):
    a = scene.query_point(0, 0)
    assert a
    assert scene.query_point(0, 0, exclude=2**63 - 1) == a
    assert scene.query_point(0, 0, exclude=0) == a
    assert scene.query_point(0, 0, exclude=np.uint64(a[0])) == []
    assert scene.query_point(0, 0, exclude=np.array(a, dtype=np.int32)) == []
    assert scene.query_point(0, 0, exclude=(e for e in a)) == []
    assert scene.query_point(0, 0, exclude={a[0]: "x"}) == []
    assert scene.query_point(0, 0, exclude=np.zeros(0, dtype=np.uint8)) == a


@pytest.mark.parametrize("shape", [Shape(), Shape, "circle", None, 1.0, ep.TileMap(["#"], 1.0),
                                   ep.Circle, Mask])
def test_only_a_concrete_shape_is_a_query_shape(scene, shape):
    with pytest.raises(TypeError, match="^shape must be a Circle"):
        scene.query_region(shape, (0, 0))
    with pytest.raises(TypeError, match="^shape must be a Circle"):
        scene.cast_shape(shape, (0, 0), (1, 0))


def test_raycast_many_reads_any_layout_and_real_dtype_alike(scene):
    rng = np.random.default_rng(4)
    starts = rng.uniform(-8, 8, (6, 2))
    ends = rng.uniform(-8, 8, (6, 2))
    want = scene.raycast_many(starts, ends)
    assert want.hit.any()
    wide = np.zeros((6, 4))
    wide[:, ::2] = starts
    readonly = starts.copy()
    readonly.setflags(write=False)
    for s in (wide[:, ::2], np.asfortranarray(starts), starts.tolist(), readonly,
              np.array(starts.tolist(), dtype=object)):
        got = scene.raycast_many(s, ends)
        for a, b in zip(got, want, strict=True):
            assert np.array_equal(a, b)
    ints = scene.raycast_many(np.round(starts).astype(np.int16), np.round(ends).astype(np.int64))
    wants = scene.raycast_many(np.round(starts), np.round(ends))
    for a, b in zip(ints, wants, strict=True):
        assert np.array_equal(a, b)
    f32 = scene.raycast_many(starts.astype(np.float32), ends.astype(np.float32))
    want32 = scene.raycast_many(starts.astype(np.float32).astype(float),
                                ends.astype(np.float32).astype(float))
    for a, b in zip(f32, want32, strict=True):
        assert np.array_equal(a, b)
    # no rays: empty answers
    for nothing in (np.zeros((0, 2)), [], np.zeros((0, 2), dtype=np.int8)):
        none = scene.raycast_many(nothing, np.zeros((0, 2)), ignore=[])
        assert [a.shape for a in none] == [(0,), (0,), (0, 2), (0, 2), (0,)]


@pytest.mark.parametrize("ignore", [np.array([2**64 - 1], dtype=np.uint64), [2**70], [-2],
                                    np.array([1.0]), ["a"], [None], np.array([True]), [1, 2],
                                    "a", 5])
def test_raycast_many_ignore_is_entities_or_minus_one(scene, ignore):
    with pytest.raises(ValueError, match="^ignore must be 1 entities"):
        scene.raycast_many([[0, 0]], [[1, 1]], ignore=ignore)


def test_raycast_many_ignore_minus_one_is_none(scene):
    first = scene.raycast_many([[-3, 0]], [[3, 0]])
    assert first.hit[0]
    same = scene.raycast_many([[-3, 0]], [[3, 0]], ignore=np.array([-1], dtype=np.int8))
    assert same.entity[0] == first.entity[0]
    other = scene.raycast_many([[-3, 0]], [[3, 0]], ignore=np.array(first.entity, np.uint32))
    assert other.entity[0] != first.entity[0]


def test_numbers_of_every_real_kind_are_coordinates(scene):
    hit = scene.raycast((Fraction(-3), np.float32(0)), (np.int64(3), -0.0))
    assert hit == scene.raycast((-3.0, 0.0), (3.0, 0.0))
    assert scene.query_point(np.float16(0), Fraction(1, 2)) == scene.query_point(0.0, 0.5)
    with pytest.raises(TypeError, match=r"^start\.x"):
        scene.raycast((True, 0), (1, 1))
    with pytest.raises(TypeError, match="^x "):
        scene.query_point(1j, 0)
    with pytest.raises(TypeError, match="^y "):
        scene.query_point(0, Decimal(1))


# ------------------------------------------------------------ the fuzz


nan, inf = math.nan, math.inf
ONE_IN_20 = st.sampled_from(range(20))  # (uniform: floats(0, 1) draws its edges far more)
GOOD_NUMBERS = st.one_of(
    st.floats(-60.0, 60.0),
    st.integers(-60, 60),
    st.sampled_from([0.0, -0.0, M, -M, 5e-324, -5e-324, 1e-300, M * 0.999999, -M + 0.5,
                     np.float32(1.5), np.int64(-3), Fraction(1, 3), np.float16(2),
                     np.uint8(7), np.float64(-0.0), 10**9, -(10**9)]),
)
BAD_NUMBERS = st.sampled_from([nan, inf, -inf, 1e308, -1e308, BEYOND, -BEYOND, 2**70,
                               -(2**1100), 1e10, np.float64(nan), np.float32(inf),
                               np.int64(2**62), -5e9, "1", None, True, np.bool_(False), 1j,
                               [1], b"x", Decimal(1), (1.0,)])


@st.composite
def numbers(draw, bad_share: float = 0.15) -> tuple[object, bool]:
    """(a number, whether it is hostile)."""
    if draw(ONE_IN_20) < bad_share * 20:
        return draw(BAD_NUMBERS), True
    return draw(GOOD_NUMBERS), False


@st.composite
def pairs(draw) -> tuple[object, bool]:
    kind = draw(st.integers(0, 11))
    if kind == 0:  # not a pair at all
        return draw(st.sampled_from([None, "ab", 5.0, (1.0,), (1.0, 2.0, 3.0), {"x": 1},
                                     np.zeros((2, 1)), [], b"xy", np.float64(1)])), True
    (x, bx), (y, by) = draw(numbers(0.1)), draw(numbers(0.1))
    wrap = draw(st.sampled_from(["tuple", "tuple", "list", "array"]))
    if wrap == "list":
        return [x, y], bx or by
    if wrap == "array" and not (bx or by) and all(isinstance(v, (int, float, np.number))
                                                  for v in (x, y)):
        return np.array([x, y], dtype=np.float64), False
    return (x, y), bx or by


def _mask_pixels(side: int) -> np.ndarray:
    px = np.zeros((side, side), dtype=bool)
    px[::2, 1::2] = True
    px[0, 0] = True
    return px


GOOD_SHAPES = st.one_of(
    st.builds(ep.Circle, st.floats(0.05, 5.0)),
    st.builds(ep.Rect, st.floats(0.05, 5.0), st.floats(0.05, 5.0)),
    st.builds(ep.OrientedRect, st.floats(0.1, 4.0), st.floats(0.1, 4.0), st.floats(-180, 180)),
    st.just(ep.Segment((0, 0), (2, 1))),
    st.just(ep.Polygon([(0, 0), (1, 0), (0, 1)])),
    st.just(ep.Compound([ep.Circle(0.5), ep.Rect(1, 1, offset=(1, 0))])),
    st.builds(lambda side, s: Mask(_mask_pixels(side), scale=s), st.integers(1, 6),
              st.sampled_from([1e-6, 0.01, 0.5, 1.0, 3.0])),
    st.sampled_from([ep.Circle(1e6), ep.Rect(1e7, 1e-6)]),
)
BAD_SHAPES = st.one_of(
    st.builds(Shape),  # (built when drawn: Shape() cannot be hashed, a sampled value is)
    st.sampled_from([Shape, ep.TileMap(["#"], 1.0), "circle", None, 1.0, ep.Circle, Mask,
                     (1, 2)]))
GOOD_MASKS = st.sampled_from([ep.ALL, ep.ALL, 0, 1, 2, 3, np.int64(5), np.uint32(ep.ALL)])
BAD_MASKS = st.sampled_from([-1, ep.ALL + 1, 2**70, 1.5, "wall", None, True, ["a"], b"1",
                             np.uint64(2**64 - 1), np.int8(-1)])
GOOD_EXCLUDES = st.sampled_from([(), 1, 3, [1, 2], {3}, np.array([1, 2]), 10**9, 2**63 - 1,
                                 frozenset(), np.int32(4), range(5), [], np.array([], int),
                                 (1, 2)])
BAD_EXCLUDES = st.sampled_from([-1, 2**63, 2**70, 1.5, "a", None, [None], [True],
                                np.uint64(2**64 - 1), np.array([1.5]), [1, "a"], np.array([-3]),
                                b"ab", [2**64], {-1: 0}])
GOOD_SENSORS = st.sampled_from([True, False, np.bool_(True)])
BAD_SENSORS = st.sampled_from([1, 0, None, "yes", np.int8(1), 1.0])


@st.composite
def chosen(draw, good, bad, share: float = 0.1) -> tuple[object, bool]:
    if draw(ONE_IN_20) < share * 20:
        return draw(bad), True
    return draw(good), False


@st.composite
def coordinate_arrays(draw, n: int) -> tuple[object, bool]:
    """(n, 2) coordinates in some layout, or something hostile."""
    kind = draw(st.integers(0, 15))
    vals = np.array([[float(draw(GOOD_NUMBERS)) for _ in range(2)] for _ in range(n)],
                    dtype=np.float64).reshape(n, 2)
    if kind == 0:
        return vals.tolist(), False
    if kind == 1:
        wide = np.zeros((n, 4))
        wide[:, 1::2] = vals
        return wide[:, 1::2], False  # not contiguous
    if kind == 2:
        return np.asfortranarray(vals), False
    if kind == 3:
        return np.clip(np.round(vals), -100, 100).astype(draw(st.sampled_from(
            [np.int8, np.int32, np.int64]))), False
    if kind == 4:
        return vals.astype(np.float32), False
    if kind == 5 and n:  # a hostile number in some row
        bad = draw(st.sampled_from([nan, inf, -inf, 1e308, -1e308, BEYOND, 1e10]))
        vals[draw(st.integers(0, n - 1)), draw(st.integers(0, 1))] = bad
        return vals, True
    if kind == 6:
        shapes = [np.zeros((n, 3)), np.zeros((1, n, 2)), [[2**70, 0]] * max(n, 1)]
        if n:
            shapes += [[], np.zeros((n,))]  # (no rays, when n is 0)
        return draw(st.sampled_from([None, "ab", 5.0, [[1, 2], [3]], b"xx", *shapes])), True
    if kind == 7:
        dtype = draw(st.sampled_from([np.bool_, np.complex128, "U8", "datetime64[D]"]))
        return np.zeros((n, 2), dtype=dtype), True
    return vals, False


@st.composite
def ignores(draw, n: int) -> tuple[object, bool]:
    kind = draw(st.integers(0, 7))
    if kind <= 3:
        return None, False
    if kind == 4:
        return np.array(draw(st.lists(st.sampled_from([-1, 1, 2, 3, 10**9, 2**63 - 1]),
                                      min_size=n, max_size=n)), dtype=np.int64), False
    if kind == 5:
        return [-1] * n, False
    bad = draw(st.sampled_from(["length", "float", "uint64", "minus2", "str"]))
    if bad == "length":
        return [1] * (n + 1), True
    if bad == "float":
        return np.ones(n, dtype=np.float64) if n else [1.5], True
    if bad == "uint64":
        return np.full(max(n, 1), 2**64 - 1, dtype=np.uint64), True
    if bad == "minus2":
        return [-2] * max(n, 1), True
    return "ab", True


@st.composite
def query_cases(draw) -> tuple:
    """One query with arguments drawn from good and hostile values, and which were hostile."""
    name = draw(st.sampled_from(QUERIES))
    hostile: set[str] = set()
    args: list[object] = []

    def arg(argname: str, drawn: tuple[object, bool]) -> object:
        value, bad = drawn
        if bad:
            hostile.add(argname)
        return value

    if name == "query_point":
        args = [arg("x", draw(numbers())), arg("y", draw(numbers()))]
    elif name in ("raycast", "raycast_all"):
        args = [arg("start", draw(pairs())), arg("end", draw(pairs()))]
    elif name == "query_region":
        args = [arg("shape", draw(chosen(GOOD_SHAPES, BAD_SHAPES))),
                arg("position", draw(pairs()))]
    elif name == "cast_shape":
        args = [arg("shape", draw(chosen(GOOD_SHAPES, BAD_SHAPES))),
                arg("start", draw(pairs())), arg("end", draw(pairs()))]
    kwargs: dict[str, object] = {}
    if name == "raycast_many":
        n = draw(st.integers(0, 5))
        args = [arg("starts", draw(coordinate_arrays(n))), arg("ends", draw(coordinate_arrays(n)))]
        if draw(st.integers(0, 9)) == 0:  # one more end than starts
            args[1] = np.zeros((n + 1, 2))
            hostile |= {"starts", "ends"}
        if draw(st.booleans()):
            kwargs["ignore"] = arg("ignore", draw(ignores(n)))
    for key, good, bad in (("mask", GOOD_MASKS, BAD_MASKS),
                           ("exclude", GOOD_EXCLUDES, BAD_EXCLUDES),
                           ("sensors", GOOD_SENSORS, BAD_SENSORS)):
        if draw(st.booleans()):
            kwargs[key] = arg(key, draw(chosen(good, bad)))
    return (name, tuple(args), kwargs, hostile)


@settings(max_examples=5, deadline=None)
@given(st.sampled_from(["grid", "sweep", "quadtree", "brute"]),
       st.lists(query_cases(), min_size=80, max_size=80))
def test_fuzz_every_query_answers_in_range_or_refuses_naming_the_argument(broadphase, cases):
    check_outcomes(cases, run_cases(cases, broadphase, timeout=90))
