"""Property tests for bad input everywhere a game can give it (issue: reliability).

Three families of properties, each checked with hypothesis on 1,000 examples (a frame's dt on
400, which draw every outcome the 1,000 drew; derandomized, see conftest.py), over values that
mix valid ones, the edges of `ecsphys.limits` and just beyond them (``math.nextafter``),
subnormals, 1e308, infinities, NaN, integers beyond the float range, bools, strings, None,
NumPy scalars and arrays, and sequences of the wrong length:

1. constructors (components, shapes, tile maps, masks, Physics settings) either succeed with
   every field inside its documented range, or raise exactly ``ValueError`` / ``TypeError``
   whose message names a field that was given a bad value, and that value;
2. a write to an adopted component either succeeds (and the steps after it stay finite and in
   range) or raises such an error and changes nothing: the body table and the components are
   as before, and the world steps bit for bit as a twin world that never saw the write;
3. a frame's dt (``esper.process``, ``Physics.advance``, ``Physics.step``) is refused with an
   error naming ``dt`` (changing nothing), or runs at most ``max_steps_per_frame`` steps that
   keep every body finite and inside ``MAX_COORD`` / ``MAX_SPEED``.

The hand-written regressions these grew from are in test_reliability_inputs.py.

Each property computes what the documented checks (``limits.check_*``) must answer for each
field on its own (an "oracle" per field: OK, ValueError or TypeError), and accepts an error
only if it is of exactly the type a bad field allows and its message names that field and its
value; any other exception type (OverflowError, ZeroDivisionError, IndexError,
NotImplementedError, NumPy errors...) fails the property.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import numbers
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Any, NamedTuple

import esper
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ecsphys as ep
from ecsphys.limits import (
    MAX_ACCEL,
    MAX_COORD,
    MAX_DT,
    MAX_MASS,
    MAX_SIZE,
    MAX_SPEED,
    MIN_DT,
    MIN_MASS,
    MIN_SIZE,
)
from ecsphys.mask import Mask
from ecsphys.physics import MAX_SLIDES, MAX_STEPS_PER_FRAME

EXAMPLES = settings(max_examples=1000, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

INF, NAN = math.inf, math.nan
OK = "ok"
ANY = object()  # a field whose value the message need not repeat (a computed total)
ALL_BITS = 0xFFFFFFFF


def up(x: float) -> float:
    return math.nextafter(x, INF)


def down(x: float) -> float:
    return math.nextafter(x, -INF)


# ------------------------------------------------------------------ the oracle of each field


class Field(NamedTuple):
    """A field of a call: its name as messages give it, the outcomes its value allows
    (``OK``, ``ValueError``, ``TypeError``, ``KeyError``) and the value."""

    name: str
    allowed: frozenset[Any]
    value: object


def real_verdict(value: object, low: float, high: float) -> frozenset[Any]:
    """What ``limits.check_range(name, value, low, high)`` must do: a number (no bool) that
    is finite as a float and inside ``[low, high]`` is OK; another number a ValueError;
    anything else a TypeError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return frozenset({TypeError})
    try:
        f = float(value)
    except OverflowError:
        return frozenset({ValueError})
    if not math.isfinite(f) or not low <= f <= high:
        return frozenset({ValueError})
    return frozenset({OK})


def scalar(name: str, value: object, low: float = -INF, high: float = INF) -> Field:
    return Field(name, real_verdict(value, low, high), value)


def vec_fields(name: str, value: object, limit: float = INF) -> list[Field]:
    """What ``limits.check_vec(name, value, limit)`` must do, as fields: the pair itself
    (TypeError if no sequence, ValueError if not two items) or its two coordinates."""
    if isinstance(value, (str, bytes)):
        return [Field(name, frozenset({TypeError}), value)]
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        return [Field(name, frozenset({TypeError}), value)]
    if len(items) != 2:
        return [Field(name, frozenset({ValueError}), value)]
    return [scalar(f"{name}.x", items[0], -limit, limit),
            scalar(f"{name}.y", items[1], -limit, limit)]


def valid(fields: list[Field]) -> bool:
    return all(OK in f.allowed for f in fields)


def surely_valid(fields: list[Field]) -> bool:
    return all(f.allowed == {OK} for f in fields)


def floats_of(fields: list[Field]) -> tuple[float, ...]:
    return tuple(float(f.value) for f in fields)  # type: ignore[arg-type]


def names_value(message: str, value: object) -> bool:
    """Whether ``message`` shows ``value`` (its repr, the repr of it as a float, or the
    repr cut short as ``limits`` cuts a long one)."""
    if value is ANY:
        return True
    texts = [repr(value)]
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        with contextlib.suppress(OverflowError, ValueError):
            texts.append(repr(float(value)))
    return any(t in message or (len(t) > 80 and t[:60] in message) for t in texts)


def check_error(exc: BaseException, fields: list[Field], *, prefixes: tuple[str, ...] = (),
                reach: str | None = None, reach_allowed: bool = False) -> None:
    """``exc`` must be exactly ValueError or TypeError (KeyError where a field allows it) and
    name a field whose value allows that error, and the value; or, if ``prefixes`` are given
    (families whose rules are not modelled field by field), name one of them; or be the
    shape's reach error (``reach``: the family's name) when ``reach_allowed``."""
    kind = type(exc)
    message = str(exc)
    assert kind in (ValueError, TypeError, KeyError), (
        f"{kind.__name__} is not a ValueError or TypeError: {message!r}")
    for f in fields:
        if kind in f.allowed and f.name in message and names_value(message, f.value):
            return
    if kind in (ValueError, TypeError) and any(p in message for p in prefixes):
        return
    if reach is not None and kind is ValueError and f"{reach} must reach at most" in message:
        assert reach_allowed, f"reach error for a shape that fits: {message!r}"
        return
    bad = [(f.name, sorted(map(str, f.allowed)), f.value) for f in fields if f.allowed != {OK}]
    raise AssertionError(f"{kind.__name__}({message!r}) names none of the bad fields {bad}"
                         + (f" nor {prefixes}" if prefixes else ""))


def expect(call: Any, fields: list[Field], *, prefixes: tuple[str, ...] = (),
           reach: str | None = None, reach_of: Any = None, reach_unknown: bool = False) -> Any:
    """Run ``call``: it must succeed only if every field allows OK (and the shape fits:
    ``reach_of()`` at most MAX_SIZE), else raise as `check_error` accepts (a reach error
    only if ``reach_of()`` is beyond MAX_SIZE, or ``reach_unknown``: the test cannot tell).
    Returns the result, or None after an accepted error."""
    try:
        result = call()
    except Exception as exc:  # noqa: BLE001 - the type is what is checked
        reach_allowed = reach_unknown
        if reach_of is not None and valid(fields):
            reach_allowed = reach_of() > MAX_SIZE * (1 - 1e-9)
        check_error(exc, fields, prefixes=prefixes, reach=reach, reach_allowed=reach_allowed)
        return None
    bad = [(f.name, f.value) for f in fields if OK not in f.allowed]
    assert not bad, f"accepted the bad values {bad}"
    if reach_of is not None:
        assert reach_of() <= MAX_SIZE * (1 + 1e-9), f"accepted a shape reaching {reach_of()}"
    return result


# ------------------------------------------------------------------ values, good and bad


def edges(*bounds: float) -> list[float]:
    """0, -0.0 and each bound, just inside and just beyond it, both signs."""
    out: list[float] = [0, 0.0, -0.0]
    for b in bounds:
        for v in (b, up(b), down(b)):
            out += [v, -v]
    return out


SPECIAL = [5e-324, -5e-324, 1e-323, 2.2250738585072014e-308, 1e-300, 0.5, 1, 1.0, -1.0, 7,
           1e308, -1e308, sys.float_info.max, -sys.float_info.max, INF, -INF, NAN, -NAN]
HUGE_INTS = [10**400, -(10**400), 2**53 + 1, 2**63, 2**64, -(2**63) - 1, 2**1024]
NUMPY = [np.float64(1.5), np.float64(NAN), np.float64(INF), np.float64(-1e308), np.float32(1.5),
         np.float32(-INF), np.float16(65504), np.int64(7), np.int64(-(2**63)),
         np.uint64(2**64 - 1), np.int8(-3), np.longdouble("1e4000"), np.float64(5e-324)]
FRACTIONS = [Fraction(1, 3), Fraction(10**400, 7), -Fraction(10**400, 7), Fraction(0)]
WRONG = [True, False, None, "1", "", "nan", b"1", [], (), [1.0], [1.0, 2.0], {}, complex(1, 0),
         Decimal("1.5"), np.bool_(True), np.array(1.0), np.array([1.0]), np.array([1.0, 2.0]),
         object(), np.str_("1")]


def numbers_near(*bounds: float) -> st.SearchStrategy[Any]:
    """Numbers around ``bounds`` (valid ones, edges, beyond) and values of the wrong type."""
    high = max(bounds)
    return st.one_of(
        st.sampled_from(edges(*bounds)),
        st.sampled_from(SPECIAL + HUGE_INTS + NUMPY + FRACTIONS),
        st.sampled_from(WRONG),
        st.floats(),
        st.floats(-2 * high, 2 * high),
        st.floats(-9, 9).map(lambda e: 10.0**e),  # every scale, valid sizes included
        st.integers(-2 * int(high) - 2, 2 * int(high) + 2),
        st.floats(width=32).map(np.float32),
    )


BAD_VECS = [None, 1.0, 0, "ab", "", b"xy", [], (), [1.0], (1.0, 2.0, 3.0), {"x": 1.0, "y": 2.0},
            np.zeros(3), np.zeros((2, 2)), np.array(1.0), np.array([[1.0], [2.0]]), range(2),
            complex(1, 2), True, (None, None), ("1", "2"), [np.nan, 0.0], (0.0, INF)]
TINY_DIRS = [(5e-324, 5e-324), (5e-324, 1e-323), (-5e-324, 5e-324), (1e-320, 5e-324),
             (1e-310, -1e-310), (5e-324, 0.0), (0.0, -5e-324), (1e-300, 1e-300), (1e308, 1e308),
             (-1e308, 1e308), (sys.float_info.max, 0.0), (0.0, 0.0), (-0.0, 0.0)]


def vecs(*bounds: float) -> st.SearchStrategy[Any]:
    """(x, y) pairs near ``bounds``, as tuples, lists and arrays, and wrong pairs."""
    n = numbers_near(*bounds)
    small = st.floats(-10, 10)
    return st.one_of(
        st.tuples(n, n),
        st.lists(n, min_size=2, max_size=2),
        st.tuples(st.floats(), st.floats()).map(np.array),
        st.tuples(small, small),
        st.sampled_from(BAD_VECS + TINY_DIRS),
    )


# ------------------------------------------------------------------ esper worlds

_names = itertools.count()


@contextlib.contextmanager
def fresh_world() -> Any:
    """A new esper world for one example, deleted after it."""
    previous = esper.current_world
    name = f"reliability-prop-{next(_names)}"
    esper.switch_world(name)
    try:
        yield name
    finally:
        esper.switch_world(previous)
        esper.delete_world(name)


def assert_in_range(physics: ep.Physics) -> None:
    """Every body finite and inside the world's limits."""
    t = physics.table
    pos, vel = t.column("pos"), t.column("vel")
    assert np.isfinite(pos).all() and np.isfinite(vel).all(), (pos, vel)
    assert (np.abs(pos) <= MAX_COORD).all(), pos
    assert (np.abs(vel) <= MAX_SPEED).all(), vel


def bits(a: np.ndarray) -> tuple[Any, ...]:
    """An array as exactly comparable bits (-0.0 and NaN included)."""
    a = np.ascontiguousarray(a)
    return (a.dtype.str, a.shape, a.tobytes())


# ================================================================== 1. constructors


@EXAMPLES
@given(cls=st.sampled_from([ep.Position, ep.Velocity]),
       x=numbers_near(MAX_COORD, MAX_SPEED), y=numbers_near(MAX_COORD, MAX_SPEED))
def test_position_and_velocity_constructors(cls, x, y):
    limit = MAX_COORD if cls is ep.Position else MAX_SPEED
    name = cls.__name__
    fields = [scalar(f"{name}.x", x, -limit, limit), scalar(f"{name}.y", y, -limit, limit)]
    v = expect(lambda: cls(x, y), fields)
    if v is not None:
        assert v.xy == floats_of(fields)
        assert all(type(c) is float and abs(c) <= limit for c in (v.x, v.y, *v.xy))


@EXAMPLES
@given(named=st.dictionaries(st.sampled_from(["gravity", "wind", "thrust", "", "ü", "a b"]),
                             vecs(MAX_ACCEL, 1.0), max_size=4))
def test_acceleration_map_constructor(named):
    fields: list[Field] = []
    for name, value in named.items():
        fields += vec_fields(f"AccelerationMap[{name!r}]", value, MAX_ACCEL)
    total = None
    if surely_valid(fields):
        pairs = [tuple(float(c) for c in v) for v in named.values()]
        total = (math.fsum(p[0] for p in pairs) + 0.0, math.fsum(p[1] for p in pairs) + 0.0)
        over = not (abs(total[0]) <= MAX_ACCEL and abs(total[1]) <= MAX_ACCEL)
        fields.append(Field("AccelerationMap total", frozenset({ValueError if over else OK}),
                            ANY))
    acc = expect(lambda: ep.AccelerationMap(**named), fields)
    if acc is not None:
        assert total is not None and acc.total == total
        assert all(type(c) is float and math.isfinite(c) for c in acc.total)
        assert set(acc) == set(named)
        for value in acc.values():
            assert all(type(c) is float and abs(c) <= MAX_ACCEL for c in value)


KINDS = [ep.STATIC, ep.PASSIVE, ep.ACTIVE, "static", "Active", "PASSIVE", "kinematic", "",
         "ACTIVE ", b"ACTIVE", 0, 1, 2, 2.0, None, True, ep.ColliderKind, np.str_("active")]
BIT_VALUES = [0, 1, 5, ALL_BITS, ALL_BITS + 1, -1, 2**31, 2**63, 10**400, True, False, 1.0, "1",
              None, np.int64(1), np.uint32(5), np.int64(-1), np.uint64(2**40)]
FLAGS = [True, False, np.bool_(True), np.bool_(False), 0, 1, None, "True", 1.0,
         np.array([True]), np.array(True)]
SLIDES = ["project", "tangent", "Project", "", "slide", None, 0, b"project",
          np.str_("tangent"), np.array(["project"]), ["project"]]


def kind_field(value: object) -> Field:
    ok = isinstance(value, ep.ColliderKind) or (
        isinstance(value, str) and value.upper() in ep.ColliderKind.__members__)
    if ok:
        return Field("Collider.kind", frozenset({OK}), value)
    if isinstance(value, str):
        return Field("Collider.kind", frozenset({ValueError}), value)
    return Field("Collider.kind", frozenset({ValueError, TypeError}), value)


def resolved_kind(value: object) -> ep.ColliderKind | None:
    """The collider kind ``value`` names, or None if it names none."""
    if isinstance(value, ep.ColliderKind):
        return value
    if isinstance(value, str) and value.upper() in ep.ColliderKind.__members__:
        return ep.ColliderKind[value.upper()]
    return None


def infinite(value: object) -> bool:
    """Whether ``value`` is a number that is infinite as a float (beyond the float range)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return False
    try:
        return float(value) == INF
    except OverflowError:
        return False


def bits_field(name: str, value: object, low: int) -> Field:
    if isinstance(value, np.integer):  # NumPy ints: refused as no int, or taken if in range
        inside = low <= int(value) <= ALL_BITS
        return Field(name, frozenset({TypeError, OK if inside else ValueError}), value)
    if isinstance(value, bool) or not isinstance(value, int):
        return Field(name, frozenset({TypeError}), value)
    return Field(name, frozenset({OK if low <= value <= ALL_BITS else ValueError}), value)


def flag_field(name: str, value: object) -> Field:
    ok = isinstance(value, (bool, np.bool_))
    return Field(name, frozenset({OK if ok else TypeError}), value)


def mass_field(value: object) -> Field:
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        with contextlib.suppress(OverflowError):
            if float(value) == INF:  # "or math.inf": NumPy's own infinities may be refused
                exact = isinstance(value, (int, float))
                return Field("Collider.mass",
                             frozenset({OK} if exact else {OK, ValueError}), value)
    return scalar("Collider.mass", value, MIN_MASS, MAX_MASS)


def slide_field(value: object) -> Field:
    if not isinstance(value, str):
        return Field("Collider.slide", frozenset({TypeError}), value)
    return Field("Collider.slide",
                 frozenset({OK if value in ("project", "tangent") else ValueError}), value)


def direction_fields(name: str, value: object, *, none_ok: bool) -> list[Field]:
    """A direction: a pair of finite numbers whose length is neither 0 nor infinite."""
    if value is None and none_ok:
        return [Field(name, frozenset({OK}), value)]
    fields = vec_fields(name, value)
    if surely_valid(fields):
        length = math.hypot(*floats_of(fields))
        if length == 0.0 or not math.isfinite(length):
            fields.append(Field(name, frozenset({ValueError}), value))
    return fields


def collider_fields(kw: dict[str, Any]) -> list[Field]:
    """The fields of ``Collider(**kw)``; infinite mass is an ACTIVE collider's only: with
    another kind the mass is refused."""
    fields = [kind_field(kw["kind"])]
    kind = resolved_kind(kw["kind"])
    checks = {
        "layer": lambda v: [bits_field("Collider.layer", v, 1)],
        "mask": lambda v: [bits_field("Collider.mask", v, 0)],
        "sensor": lambda v: [flag_field("Collider.sensor", v)],
        "mass": lambda v: [mass_field(v)],
        "restitution": lambda v: [scalar("Collider.restitution", v, 0.0, 1.0)],
        "slide": lambda v: [slide_field(v)],
        "friction": lambda v: [scalar("Collider.friction", v, 0.0, INF)],
        "stop_on_slope": lambda v: [flag_field("Collider.stop_on_slope", v)],
        "one_way": lambda v: direction_fields("Collider.one_way", v, none_ok=True),
    }
    for name, value in kw.items():
        if name == "mass" and kind not in (None, ep.ACTIVE) and infinite(value):
            fields.append(Field("Collider.mass", frozenset({ValueError}), value))
        elif name != "kind":
            fields += checks[name](value)
    return fields


COLLIDER_VALUES = {
    "layer": st.one_of(st.sampled_from(BIT_VALUES), st.integers(-3, 2**33)),
    "mask": st.one_of(st.sampled_from(BIT_VALUES), st.integers(-3, 2**33)),
    "sensor": st.sampled_from(FLAGS),
    "mass": st.one_of(numbers_near(MIN_MASS, MAX_MASS), st.sampled_from([INF, np.float32(INF)])),
    "restitution": numbers_near(1.0),
    "slide": st.one_of(st.sampled_from(SLIDES), st.text(max_size=8)),
    "friction": numbers_near(1.0, 1e308),
    "stop_on_slope": st.sampled_from(FLAGS),
    "one_way": st.one_of(st.none(), vecs(1.0), st.sampled_from(TINY_DIRS)),
}


GOOD_COLLIDER = {"layer": [1, 4, ALL_BITS], "mask": [0, 5, ALL_BITS], "sensor": [False, True],
                 "mass": [1.0, MIN_MASS, MAX_MASS, INF], "restitution": [0.0, 0.5, 1],
                 "slide": ["project", "tangent"], "friction": [0.0, 0.5, 1e308],
                 "stop_on_slope": [False, True], "one_way": [None, (0, 1), (1, 1)]}


@st.composite
def keywords(draw: Any, wild: dict[str, Any], good: dict[str, list[Any]]) -> dict[str, Any]:
    """Keyword arguments: valid ones with one of them (or none) wild, so that each wild value
    is tried on its own and the settings it leaves are used; or all of them wild."""
    if draw(st.integers(0, 3)) == 0:
        return draw(st.fixed_dictionaries({}, optional=wild))
    kw = draw(st.fixed_dictionaries(
        {}, optional={name: st.sampled_from(values) for name, values in good.items()}))
    name = draw(st.sampled_from([None, *wild]))
    if name is not None:
        kw[name] = draw(wild[name])
    return kw


def assert_collider_in_range(c: ep.Collider) -> None:
    assert isinstance(c.kind, ep.ColliderKind)
    assert 1 <= c.layer <= ALL_BITS and 0 <= c.mask <= ALL_BITS
    assert type(c.sensor) is bool and type(c.stop_on_slope) is bool
    assert type(c.mass) is float and (c.mass == INF or MIN_MASS <= c.mass <= MAX_MASS)
    assert type(c.restitution) is float and 0.0 <= c.restitution <= 1.0
    assert type(c.friction) is float and math.isfinite(c.friction) and c.friction >= 0.0
    assert c.slide in ("project", "tangent") and type(c.slide) is str
    if c.one_way is not None:
        assert all(type(v) is float for v in c.one_way)
        # a direction is stored as a unit vector, whatever its length was
        assert math.hypot(*c.one_way) == pytest.approx(1.0, abs=1e-12), c.one_way


@EXAMPLES
@given(kw=keywords({"kind": st.one_of(st.sampled_from(KINDS), st.text(max_size=8)),
                    **COLLIDER_VALUES},
                   {"kind": [ep.STATIC, ep.PASSIVE, ep.ACTIVE, "active"], **GOOD_COLLIDER}))
def test_collider_constructor(kw):
    kw = {"kind": ep.ACTIVE, **kw}
    col = expect(lambda: ep.Collider(**kw), collider_fields(kw))
    if col is not None:
        assert_collider_in_range(col)


def assert_shape_in_range(shape: ep.Shape) -> None:
    """Bounds finite and within MAX_SIZE of the body, a bounding circle that holds them."""
    x0, y0, x1, y1 = shape.bounds()
    assert all(type(v) is float and math.isfinite(v) for v in (x0, y0, x1, y1))
    assert x0 <= x1 and y0 <= y1
    assert max(-x0, -y0, x1, y1) <= MAX_SIZE, shape.bounds()
    cx, cy, r = shape.bounding_circle()
    assert all(math.isfinite(v) for v in (cx, cy, r)) and r >= 0
    if isinstance(shape, ep.Rect):  # its circle holds its corners (up to their rounding)
        slack = 1e-15 * max(abs(x0), abs(y0), abs(x1), abs(y1))
        for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
            assert math.hypot(x - cx, y - cy) <= r * (1 + 1e-9) + slack
    assert ep.Geometry(shape).shape is shape
    hash(shape)


def assert_convex_in_range(shape: Any) -> None:
    """The precomputed outline of a convex shape: finite vertices inside the bounds, unit
    face normals."""
    x0, y0, x1, y1 = shape.bounds()
    for x, y in shape._verts:
        assert x0 <= x <= x1 and y0 <= y <= y1
    for nx, ny, support in shape._faces:
        assert math.isfinite(support)
        assert abs(math.hypot(nx, ny) - 1.0) <= 1e-9


def offset_of(fields: list[Field]) -> tuple[float, float]:
    return floats_of(fields[-2:])  # type: ignore[return-value]


SIZE = (MIN_SIZE, MAX_SIZE)


@EXAMPLES
@given(radius=numbers_near(*SIZE), offset=st.one_of(st.just((0.0, 0.0)), vecs(MAX_SIZE, 1.0)))
def test_circle_constructor(radius, offset):
    fields = [scalar("Circle.radius", radius, *SIZE)] + vec_fields("Circle.offset", offset,
                                                                     MAX_SIZE)

    def reach() -> float:
        r = float(radius)
        ox, oy = offset_of(fields)
        return max(r - ox, r - oy, ox + r, oy + r)

    c = expect(lambda: ep.Circle(radius, offset=offset), fields, reach="Circle", reach_of=reach)
    if c is not None:
        assert c.radius == float(radius) and type(c.radius) is float
        assert c.offset == offset_of(fields)
        assert_shape_in_range(c)


@EXAMPLES
@given(width=numbers_near(*SIZE), height=numbers_near(*SIZE),
       offset=st.one_of(st.just((0.0, 0.0)), vecs(MAX_SIZE, 1.0)))
def test_rect_constructor(width, height, offset):
    fields = ([scalar("Rect.width", width, *SIZE), scalar("Rect.height", height, *SIZE)]
              + vec_fields("Rect.offset", offset, MAX_SIZE))

    def reach() -> float:
        hw, hh = float(width) / 2, float(height) / 2
        ox, oy = offset_of(fields)
        return max(hw - ox, hh - oy, ox + hw, oy + hh)

    r = expect(lambda: ep.Rect(width, height, offset=offset), fields, reach="Rect",
               reach_of=reach)
    if r is not None:
        assert (r.width, r.height) == (float(width), float(height))
        assert_shape_in_range(r)
        assert_convex_in_range(r)


@EXAMPLES
@given(width=numbers_near(*SIZE, 1.0), height=numbers_near(*SIZE, 1.0),
       scale=st.one_of(numbers_near(0.8, 1e300), vecs(0.8, 1e300)),
       anchor=st.one_of(st.just((0.5, 0.5)), vecs(1.0, 1e300)))
def test_rect_from_sprite(width, height, scale, anchor):
    # the sprite's sizes are only positive; the box it makes is checked as any Rect, so an
    # error names "Rect.from_sprite ..." or the Rect field the arguments made bad
    r = expect(lambda: ep.Rect.from_sprite(width, height, scale=scale, anchor=anchor), [],
               prefixes=("Rect.from_sprite", "Rect.width", "Rect.height", "Rect.offset",
                         "Rect must reach at most"))
    if r is not None:
        assert_shape_in_range(r)
        assert_convex_in_range(r)


@EXAMPLES
@given(width=numbers_near(*SIZE), height=numbers_near(*SIZE),
       angle=st.one_of(numbers_near(360.0, 1e308), st.floats(-720, 720)),
       offset=st.one_of(st.just((0.0, 0.0)), vecs(MAX_SIZE, 1.0)))
def test_oriented_rect_constructor(width, height, angle, offset):
    fields = ([scalar("OrientedRect.width", width, *SIZE),
               scalar("OrientedRect.height", height, *SIZE),
               scalar("OrientedRect.angle", angle)]
              + vec_fields("OrientedRect.offset", offset, MAX_SIZE))

    def reach() -> float:
        ox, oy = offset_of(fields)
        a = math.radians(float(angle))
        c, s = math.cos(a), math.sin(a)
        hw, hh = float(width) / 2, float(height) / 2
        ex, ey = abs(hw * c) + abs(hh * s), abs(hw * s) + abs(hh * c)
        return max(ex - ox, ey - oy, ox + ex, oy + ey)

    r = expect(lambda: ep.OrientedRect(width, height, angle, offset=offset), fields,
               reach="OrientedRect", reach_of=reach)
    if r is not None:
        assert (r.width, r.height, r.angle) == (float(width), float(height), float(angle))
        assert_shape_in_range(r)
        assert_convex_in_range(r)
        for x, y in r.corners:  # a rectangle: its corners at half the diagonal from its centre
            d = math.hypot(x - r.offset[0], y - r.offset[1])
            assert math.isclose(d, math.hypot(r.width, r.height) / 2, rel_tol=1e-9,
                                abs_tol=1e-9 * max(1.0, *map(abs, r.offset)))


@EXAMPLES
@given(p1=vecs(MAX_SIZE, MIN_SIZE, 1.0), p2=vecs(MAX_SIZE, MIN_SIZE, 1.0),
       offset=st.one_of(st.just((0.0, 0.0)), vecs(MAX_SIZE, 1.0)),
       near=st.sampled_from([None, 0.0, MIN_SIZE, down(MIN_SIZE), up(MIN_SIZE), 5e-324]))
def test_segment_constructor(p1, p2, offset, near):
    if near is not None and isinstance(p1, tuple) and surely_valid(vec_fields("p", p1)):
        p2 = (float(p1[0]) + near, float(p1[1]))  # zero, tiny and just-long-enough segments
    fields = (vec_fields("Segment.p1", p1, MAX_SIZE) + vec_fields("Segment.p2", p2, MAX_SIZE)
              + vec_fields("Segment.offset", offset, MAX_SIZE))
    if surely_valid(fields[:4]):
        (ax, ay, bx, by) = floats_of(fields[:4])
        short = not math.hypot(bx - ax, by - ay) >= MIN_SIZE
        fields.append(Field("Segment.p2 must differ", frozenset({ValueError if short else OK}),
                            ANY))

    def reach() -> float:
        ax, ay, bx, by, ox, oy = floats_of(fields[:6])
        xs, ys = (ax + ox, bx + ox), (ay + oy, by + oy)
        return max(-min(xs), -min(ys), max(xs), max(ys))

    s = expect(lambda: ep.Segment(p1, p2, offset=offset), fields, reach="Segment",
               reach_of=reach)
    if s is not None:
        assert s.length >= MIN_SIZE * (1 - 1e-12)
        assert_shape_in_range(s)
        assert_convex_in_range(s)


# --- polygons: good outlines (regular polygons of every size, either winding), the same
# made degenerate (a point repeated, a collinear point added, squashed flat, a point pulled in
# to make it concave, two points swapped to make it cross itself), and wild point lists


def regular(n: int, r: float, cx: float, cy: float, turn: float, cw: bool) -> list[Any]:
    pts = [(cx + r * math.cos(turn + 2 * math.pi * k / n),
            cy + r * math.sin(turn + 2 * math.pi * k / n)) for k in range(n)]
    return pts[::-1] if cw else pts


@st.composite
def polygons(draw: Any) -> tuple[Any, bool]:
    """``(points, good)``: good is True for an outline that must be accepted (with an offset
    that keeps it within reach), a convex regular polygon around the body of radius 1e-6 ..
    5e6."""
    n = draw(st.integers(3, 8))
    r = 10.0 ** draw(st.floats(-5.9, math.log10(5e6)))
    cx, cy = draw(st.floats(-1, 1)) * r, draw(st.floats(-1, 1)) * r
    pts = regular(n, r, cx, cy, draw(st.floats(0, 7)), draw(st.booleans()))
    how = draw(st.sampled_from(["good", "good", "good", "array", "repeat", "collinear", "flat",
                                "concave", "cross", "scale", "tiny", "wild", "grid", "junk"]))
    if how == "good":
        return pts, True
    if how == "array":
        return np.array(pts), True
    if how == "repeat":
        i = draw(st.integers(0, n - 1))
        return pts[: i + 1] + [pts[i]] + pts[i + 1:], False
    if how == "collinear":
        i = draw(st.integers(0, n - 1))
        (ax, ay), (bx, by) = pts[i], pts[(i + 1) % n]
        return pts[: i + 1] + [((ax + bx) / 2, (ay + by) / 2)] + pts[i + 1:], False
    if how == "flat":
        return [(x, cy) for x, _ in pts], False
    if how == "concave":
        i = draw(st.integers(0, n - 1))
        x, y = pts[i]
        pts[i] = (cx + (x - cx) * 0.1, cy + (y - cy) * 0.1)
        return pts, False
    if how == "cross" and n >= 4:
        pts[0], pts[1] = pts[1], pts[0]
        return pts, False
    if how == "scale":  # tiny, subnormal and huge outlines
        k = draw(st.sampled_from([1e-300, 5e-324, 1e-12, 1e-7, 1e300, 2.0, 3e6]))
        return [(x * k, y * k) for x, y in pts], False
    if how == "tiny":  # far smaller than MIN_SIZE (and than an offset's rounding error)
        k = 10.0 ** draw(st.floats(-13, -6)) / r
        return [(x * k, y * k) for x, y in pts], False
    if how == "grid":  # small integer points: collinear, repeated, concave, crossing, good
        coord = st.integers(-2, 2)
        return draw(st.lists(st.tuples(coord, coord), max_size=7)), False
    if how == "junk":
        return draw(st.sampled_from([[], [(0, 0)], [(0, 0), (1, 0)], None, 1, "abc",
                                     [(0, 0), (1, 0), (1, 0)], np.zeros((3, 2)),
                                     np.array([[0, 0], [1, 0], [0, 1]]), np.zeros((3, 3)),
                                     [(0, 0), (1, 0), (0, 1), None], iter([(0, 0)])])), False
    return draw(st.lists(vecs(MAX_SIZE, 1.0), max_size=6)), False


@EXAMPLES
@given(outline=polygons(), offset=st.one_of(
    st.just((0.0, 0.0)), st.just((0.0, 0.0)), vecs(MAX_SIZE, 1.0),
    st.sampled_from([(1.0, 0.0), (1.0, 1.0), (-3e6, 1e-3), (1e6, 1e6)])))
def test_polygon_constructor(outline, offset):
    points, good = outline
    fields: list[Field] = []
    try:
        raw = list(points)
    except TypeError:
        fields.append(Field("Polygon.points", frozenset({TypeError}), points))
        raw = None
    if raw is not None:
        for i, p in enumerate(raw):
            fields += vec_fields(f"Polygon.points[{i}]", p, MAX_SIZE)
        if isinstance(points, type(iter([]))):
            points = iter(raw)  # the oracle read the iterator: give the call the same points
    # Points whose coordinates are all valid may still make no outline (too few, repeated,
    # collinear, concave, crossing, too small: messages name Polygon.points), whatever the
    # offset; a good outline is accepted whenever its offset is valid and keeps it in reach.
    prefixes = ("Polygon.points",) if raw is not None and valid(fields) else ()
    fields += vec_fields("Polygon.offset", offset, MAX_SIZE)

    def reach() -> float:
        ox, oy = offset_of(fields)
        return max(max(-(float(x) + ox), -(float(y) + oy), float(x) + ox, float(y) + oy)
                   for x, y in raw or [(0.0, 0.0)])

    poly = expect(lambda: ep.Polygon(points, offset=offset), fields, prefixes=prefixes,
                  reach="Polygon", reach_of=reach)
    if good and surely_valid(fields) and reach() <= MAX_SIZE * (1 - 1e-9):
        assert poly is not None, f"refused a good convex outline {raw!r}"
    if poly is None:
        return
    pts = poly.points
    assert len(pts) >= 3 and all(type(c) is float for p in pts for c in p)
    n = len(pts)
    for i in range(n):  # stored counter-clockwise and convex: every turn to the left
        (ax, ay), (bx, by), (cx, cy) = pts[i - 1], pts[i], pts[(i + 1) % n]
        assert (bx - ax) * (cy - by) - (by - ay) * (cx - bx) > 0, pts
    assert sorted(pts) == sorted((float(x), float(y)) for x, y in raw)
    x0, y0, x1, y1 = poly.bounds()
    assert max(x1 - x0, y1 - y0) >= MIN_SIZE
    assert_shape_in_range(poly)
    assert_convex_in_range(poly)


# --- groups of shapes

GOOD_SHAPES = [ep.Circle(0.5), ep.Rect(1, 2, offset=(3, 0)), ep.OrientedRect(1, 1, 30),
               ep.Segment((0, 0), (1, 0)), ep.Polygon([(0, 0), (1, 0), (0, 1)]),
               ep.Circle(MAX_SIZE / 2, offset=(MAX_SIZE / 2, 0)), ep.Circle(MIN_SIZE),
               ep.Rect(MAX_SIZE, MIN_SIZE), ep.Compound([ep.Circle(1), ep.Rect(1, 1)]),
               ep.TileMap(["#.", ".#"], 1.0), Mask([[1, 0], [1, 1]], scale=0.5),
               ep.Segment((-MAX_SIZE, 0), (MAX_SIZE, 0))]
_deep: ep.Shape = ep.Circle(1)
for _ in range(60):
    _deep = ep.Compound([_deep], offset=(0.25, 0))
GOOD_SHAPES.append(_deep)
NOT_SHAPES = [None, 1, "circle", ep.Circle, ep.Geometry(ep.Circle(1)), [ep.Circle(1)],
              (0.0, 1.0), np.array([1.0])]
# the Shape base class is no shape; built per example (hypothesis hashes sampled values, and
# hashing a bare Shape raises NotImplementedError)
SHAPES_OR_NOT = st.one_of(st.sampled_from(GOOD_SHAPES + NOT_SHAPES), st.builds(ep.Shape))


def shape_field(name: str, value: object) -> Field:
    """A shape: an instance of a shape kind (the `Shape` base class is none)."""
    ok = isinstance(value, ep.Shape) and value.type_code >= 0
    return Field(name, frozenset({OK} if ok else {TypeError, ValueError}), value)


def group_reach(shapes: list[ep.Shape], ox: float, oy: float) -> float:
    reach = 0.0
    for s in shapes:
        parts = s.parts if isinstance(s, ep.Compound) else ((s, 0.0, 0.0),)
        for p, dx, dy in parts:
            x0, y0, x1, y1 = p.bounds()
            reach = max(reach, -(x0 + dx + ox), -(y0 + dy + oy), x1 + dx + ox, y1 + dy + oy)
    return reach


@EXAMPLES
@given(shapes=st.one_of(
           st.lists(st.sampled_from(GOOD_SHAPES), max_size=4),
           st.lists(SHAPES_OR_NOT, max_size=4),
           st.sampled_from([None, 1, ep.Circle(1), "abc", (), 2.5])),
       offset=st.one_of(st.just((0.0, 0.0)), vecs(MAX_SIZE, 1.0)))
def test_compound_constructor(shapes, offset):
    fields: list[Field] = []
    items: list[Any] | None = None
    if isinstance(shapes, (list, tuple, str)):
        items = list(shapes)
        if not items:  # the message shows the items as a tuple
            fields.append(Field("Compound.shapes", frozenset({ValueError}), ANY))
        fields += [shape_field(f"Compound.shapes[{i}]", s) for i, s in enumerate(items)]
    else:
        fields.append(Field("Compound.shapes", frozenset({TypeError}), shapes))
    fields += vec_fields("Compound.offset", offset, MAX_SIZE)

    def reach() -> float:
        return group_reach(items or [], *offset_of(fields))

    c = expect(lambda: ep.Compound(shapes, offset=offset), fields, reach="Compound",
               reach_of=reach)
    if c is None:
        return
    assert_shape_in_range(c)
    hx0, hy0, hx1, hy1 = c.hull
    cx, cy, cr = c.hull_circle
    for part, dx, dy in c.parts:
        assert not isinstance(part, ep.Compound)  # flattened, tile maps included
        x0, y0, x1, y1 = part.bounds()
        assert hx0 <= x0 + dx and hy0 <= y0 + dy and x1 + dx <= hx1 and y1 + dy <= hy1
        px, py, pr = part.bounding_circle()
        assert math.hypot(px + dx - cx, py + dy - cy) + pr <= cr * (1 + 1e-9) + 1e-9


@EXAMPLES
@given(value=st.one_of(SHAPES_OR_NOT, st.sampled_from([1.5, ep.Compound, object()])))
def test_geometry_constructor(value):
    g = expect(lambda: ep.Geometry(value), [shape_field("Geometry.shape", value)])
    if g is not None:
        assert g.shape is value


# --- tile maps and masks: grids given as arrays of every dtype and shape, lists, text


@st.composite
def grids(draw: Any, text: bool) -> tuple[Any, np.ndarray | None]:
    """``(grid, solid)``: solid is the expected solid cells (row 0 on top) when the grid is
    a good one, else None."""
    how = draw(st.sampled_from(["array", "list", "text", "str", "numpy", "junk"] if text else
                               ["array", "list", "numpy", "numpy", "junk"]))
    if how in ("array", "list", "text", "str"):
        rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 5))
        kinds = draw(hnp.arrays(np.int64, (rows, cols), elements=st.integers(0, 3)))
        if text and not kinds.any():
            kinds[draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))] = 1
        solid = kinds != 0
        if how == "array":
            dtype = draw(st.sampled_from([np.bool_, np.int8, np.uint8, np.int32, np.int64,
                                          np.uint64, np.float64, np.float32]))
            return kinds.astype(dtype), solid
        if how == "list":
            return kinds.tolist(), solid
        lines = ["".join(".#ab"[k] for k in row) for row in kinds.tolist()]
        return (lines if how == "text" else "\n".join(lines)), solid
    if how == "numpy":  # any dtype and shape, any values: good when a map or mask takes it
        dtype = draw(st.sampled_from([np.bool_, np.int8, np.int64, np.uint64, np.float64,
                                      np.complex128, np.float16]))
        shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
        arr = draw(hnp.arrays(dtype, shape))
        good = arr.ndim == 2 and arr.size > 0
        if text:  # tile kinds: bools, or ints from 0 to 2**31 - 1
            good = good and (arr.dtype == np.bool_ or (
                arr.dtype.kind in "iu" and 0 <= arr.min() and arr.max() <= 2**31 - 1))
        else:  # pixels: bools or numbers, set where not 0
            good = good and arr.dtype.kind in "biuf"
        with np.errstate(invalid="ignore"):
            return arr, (np.asarray(arr != 0) if good else None)
    return draw(st.sampled_from([
        None, 1, 1.5, "", "\n", "...", [], [[]], [""], ["", ""], {"a": 1}, ["#", 1],
        [[1, 2], [3]], [["#"]], [[None]], [[10**400]], [[-1, 1]], [[2**31]], [[2**63]],
        [[NAN]], [[True, False]], [[1j]], b"#", np.array([[1, 0]], dtype=object),
        ["#", "##", ""], "#\n\n#", np.array(["#"]), np.ones((2, 2, 2))])), None


@EXAMPLES
@given(grid=grids(text=True), tile_size=numbers_near(*SIZE, 1.0),
       origin=st.one_of(st.just((0.0, 0.0)), vecs(MAX_SIZE, 1.0)))
def test_tilemap_constructor(grid, tile_size, origin):
    value, solid = grid
    fields = ([scalar("TileMap.tile_size", tile_size, *SIZE)]
              + vec_fields("TileMap.origin", origin, MAX_SIZE))
    good = solid is not None and bool(solid.any())
    if solid is None:  # junk is refused naming the grid (or accepted: some junk is a map)
        fields.append(Field("TileMap.grid", frozenset({ValueError, TypeError, OK}), ANY))
    elif not good:  # a map without a solid tile
        fields.append(Field("TileMap.grid", frozenset({ValueError}), ANY))

    def reach() -> float:  # from the origin, the grid's size up and right
        ox, oy = floats_of(fields[1:3])
        rows, cols = solid.shape
        return max(-ox, -oy, ox + cols * float(tile_size), oy + rows * float(tile_size))

    tm = expect(lambda: ep.TileMap(value, tile_size, origin=origin), fields,
                prefixes=("TileMap.grid",), reach="TileMap",
                reach_of=reach if good else None, reach_unknown=solid is None)
    if tm is None:
        return
    rows, cols = tm.shape
    assert type(rows) is int and type(cols) is int and rows >= 1 and cols >= 1
    if good:
        assert tm.shape == solid.shape and ((tm.grid != 0) == solid).all()
    assert type(tm.tile_size) is float and MIN_SIZE <= tm.tile_size <= MAX_SIZE
    ox, oy = tm.origin
    assert tm.bounds() == (ox, oy, ox + cols * tm.tile_size, oy + rows * tm.tile_size)
    assert_shape_in_range(tm)
    x0, y0, x1, y1 = tm.bounds()
    assert tm.edges  # a solid tile has an outline
    for (ax, ay), (bx, by), facing in tm.edges:
        assert facing in ep.TileMap.FACINGS
        assert x0 <= min(ax, bx) <= max(ax, bx) <= x1 and y0 <= min(ay, by) <= max(ay, by) <= y1


@EXAMPLES
@given(pixels=grids(text=False), scale=numbers_near(*SIZE, 1.0),
       offset=st.one_of(st.just((0.0, 0.0)), vecs(MAX_SIZE, 1.0)))
def test_mask_constructor(pixels, scale, offset):
    value, solid = pixels
    fields = [scalar("Mask.scale", scale, *SIZE)] + vec_fields("Mask.offset", offset, MAX_SIZE)
    good = solid is not None
    if not good:
        fields.append(Field("Mask.pixels", frozenset({ValueError, TypeError, OK}), ANY))
    reach = None
    if good and valid(fields):

        def reach() -> float:  # centred on the body plus offset: half the size each way
            ox, oy = offset_of(fields)
            hw, hh = solid.shape[1] * float(scale) / 2, solid.shape[0] * float(scale) / 2
            return max(hw - ox, hh - oy, ox + hw, oy + hh)

    m = expect(lambda: Mask(value, scale=scale, offset=offset), fields,
               prefixes=("Mask.pixels",), reach="Mask", reach_of=reach, reach_unknown=not good)
    if m is None:
        return
    w, h = m.size
    if good:
        assert (h, w) == solid.shape and m.count == int(solid.sum())
        assert (m.pixels == solid).all()
    assert m.bits.shape == (h, -(-w // 64)) and m.bits.dtype == np.dtype("<u8")
    assert type(m.scale) is float and MIN_SIZE <= m.scale <= MAX_SIZE
    assert_shape_in_range(m)


# --- Physics settings

INTS = [0, 1, 2, 8, -1, -(2**31), -(2**31) - 1, 2**31, 2**63, 10**400, True, False, 1.0, 8.0,
        np.int64(4), "8", None, NAN]
BROADPHASES = ["grid", "sweep", "quadtree", "brute", "GRID", "", None, 1, "bvh", ["grid"]]
PHYSICS_VALUES = {
    "fixed_dt": st.one_of(st.none(), numbers_near(MIN_DT, MAX_DT, 1 / 60)),
    "max_steps_per_frame": st.one_of(st.sampled_from(INTS), st.integers(-2, 50)),
    "priority": st.one_of(st.sampled_from(INTS), st.integers(-(2**32), 2**32)),
    "broadphase": st.sampled_from(BROADPHASES),
    "cell_size": st.one_of(st.none(), numbers_near(*SIZE, 1.0)),
    "contact_offset": numbers_near(MAX_SIZE, 0.01),
    "max_slides": st.one_of(st.sampled_from(INTS), st.integers(-2, 20)),
    "layers": st.sampled_from([None, ep.Layers("a", "b"), "a", 1, ep.Layers]),
    "up": st.one_of(vecs(1.0), st.sampled_from(TINY_DIRS)),
    "floor_max_angle": numbers_near(90.0, 45.0),
    "floor_snap": numbers_near(MAX_SIZE, 0.1),
}

GOOD_PHYSICS = {
    "fixed_dt": [None, 1 / 60, MIN_DT, MAX_DT], "max_steps_per_frame": [1, 8, 100],
    "priority": [0, -5, 2**31 - 1], "broadphase": ["grid", "sweep", "quadtree", "brute"],
    "contact_offset": [0.0, 0.01, 1.0], "max_slides": [1, 4, 16],
    "layers": [None, ep.Layers("a")], "up": [(0, 1), (1, 0), (0, -2), (3, 4)],
    "floor_max_angle": [0, 45.0, 90], "floor_snap": [0, 0.1, 5.0],
}


def int_field(name: str, value: object, low: int, high: int) -> Field:
    if isinstance(value, np.integer):
        ok = low <= int(value) <= high
        return Field(name, frozenset({TypeError, OK if ok else ValueError}), value)
    if isinstance(value, bool) or not isinstance(value, int):
        return Field(name, frozenset({TypeError}), value)
    return Field(name, frozenset({OK if low <= value <= high else ValueError}), value)


def physics_fields(kw: dict[str, Any]) -> list[Field]:
    fields: list[Field] = []
    for name, value in kw.items():
        if name == "fixed_dt":
            if value is not None:
                fields.append(scalar("fixed_dt", value, MIN_DT, MAX_DT))
        elif name in ("max_steps_per_frame", "max_slides"):
            high = MAX_STEPS_PER_FRAME if name == "max_steps_per_frame" else MAX_SLIDES
            fields.append(int_field(name, value, 1, high))
        elif name == "priority":
            fields.append(int_field(name, value, -(2**31), 2**31 - 1))
        elif name == "broadphase":
            ok = isinstance(value, str) and value in ("grid", "sweep", "quadtree", "brute")
            fields.append(Field("broadphase", frozenset(
                {OK} if ok else {ValueError, TypeError}), value))
        elif name == "cell_size":
            if value is not None:
                field = scalar("cell_size", value, *SIZE)
                if kw.get("broadphase", "grid") != "grid":  # an option of the grid only
                    field = Field("cell_size", frozenset({ValueError, TypeError}), ANY)
                fields.append(field)
        elif name in ("contact_offset", "floor_snap"):
            fields.append(scalar(name, value, 0.0, MAX_SIZE))
        elif name == "floor_max_angle":
            fields.append(scalar(name, value, 0.0, 90.0))
        elif name == "layers":
            ok = value is None or isinstance(value, ep.Layers)
            fields.append(Field("layers", frozenset({OK if ok else TypeError}), value))
        elif name == "up":
            fields += direction_fields("up", value, none_ok=False)
    return fields


@EXAMPLES
@given(kw=keywords(PHYSICS_VALUES, GOOD_PHYSICS))
def test_physics_constructor(kw):
    with fresh_world():
        physics = expect(lambda: ep.Physics(**kw), physics_fields(kw))
        if physics is None:
            # a refused Physics registers nothing: the world takes one afterwards
            assert not esper._processors
            ep.Physics()
            return
        fixed = physics.fixed_dt
        assert fixed is None or (type(fixed) is float and MIN_DT <= fixed <= MAX_DT)
        assert math.hypot(*physics.up) == pytest.approx(1.0, abs=1e-12), (
            physics.up)
        assert 0.0 <= physics.contact_offset <= MAX_SIZE
        assert 0.0 <= physics.floor_max_angle <= 90.0
        assert 0.0 <= physics.floor_snap <= MAX_SIZE
        # the settings are usable: a world with a falling ball over a floor steps with them
        esper.create_entity(ep.Position(0, 1), ep.Velocity(1, 0), ep.Collider(ep.ACTIVE),
                            ep.AccelerationMap(gravity=(0, -9.8)), ep.Geometry(ep.Circle(0.5)))
        esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(10, 1)))
        frame = fixed if fixed is not None else 1 / 60
        for _ in range(3):
            esper.process(frame)
        assert physics.steps == 3
        assert_in_range(physics)


# ================================================================== 2. setters


def build_world(kind_a: ep.ColliderKind) -> tuple[ep.Physics, list[tuple[Any, ...]], list[int]]:
    """A small world stepped once: a ball (ACTIVE or PASSIVE) with two named accelerations,
    a box it is about to meet and a static floor, each with all five components."""
    physics = ep.Physics(fixed_dt=1 / 60)
    bodies = [
        (ep.Position(0, 0), ep.Velocity(2, 0),
         ep.AccelerationMap(gravity=(0, -9.8), wind=(1, 0)), ep.Collider(kind_a),
         ep.Geometry(ep.Circle(0.5))),
        (ep.Position(1.4, 0), ep.Velocity(-1, 0), ep.AccelerationMap(gravity=(0, -9.8)),
         ep.Collider(ep.PASSIVE, mass=2.0, friction=0.5), ep.Geometry(ep.Rect(1, 1))),
        (ep.Position(0, -1.2), ep.Velocity(0, 0), ep.AccelerationMap(),
         ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(20, 1))),
    ]
    entities = [esper.create_entity(*comps) for comps in bodies]
    esper.process(1 / 60)
    return physics, bodies, entities


TABLE_COLUMNS = ("entity", "pos", "prev_pos", "vel", "acc", "kind", "layer", "mask", "sensor",
                 "collides", "mass", "inv_mass", "restitution", "slide", "friction",
                 "stop_slope", "one_way", "shape_code", "shape_hash", "leaf0", "nleaf", "lo",
                 "hi", "ground", "floor_n", "floor_v", "floor_entity", "carrier")


def world_state(physics: ep.Physics, bodies: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """Everything a write could change: the table's columns and rows, what changed since the
    events last looked, and what each component reads."""
    t = physics.table
    columns = tuple(bits(t.column(name)) for name in TABLE_COLUMNS)
    comps = tuple((pos.xy, vel.xy, acc.items(), acc.total, col._fields(), geo.shape)
                  for pos, vel, acc, col, geo in bodies)
    return (columns, t.n, dict(t.row_of), list(t.shapes), set(t.changed), comps,
            physics.steps)


def motion(physics: ep.Physics) -> tuple[Any, ...]:
    t = physics.table
    return bits(t.column("entity")), bits(t.column("pos")), bits(t.column("vel"))


ACC_NAMES = ["gravity", "wind", "gust", "", 1, None, ("a",), b"gravity"]
COLLIDER_WRITES = {"kind": st.sampled_from(KINDS), **COLLIDER_VALUES}
# one branch per kind of write (hypothesis picks branches about evenly)
WRITES = st.one_of(
    st.tuples(st.just("pos"), st.sampled_from(["x", "y"]), numbers_near(MAX_COORD, 3.0)),
    st.tuples(st.just("pos"), st.just("xy"), vecs(MAX_COORD, 3.0)),
    st.tuples(st.just("vel"), st.sampled_from(["x", "y"]), numbers_near(MAX_SPEED, 3.0)),
    st.tuples(st.just("vel"), st.just("xy"), vecs(MAX_SPEED, 3.0)),
    st.tuples(st.just("acc"), st.sampled_from(ACC_NAMES), st.one_of(vecs(MAX_ACCEL, 9.8),
        st.sampled_from([(0, -MAX_ACCEL), (0, MAX_ACCEL), (MAX_ACCEL, 0), (0, -6e8),
                         (NAN, 0), (0, INF)]))),
    st.tuples(st.just("acc_del"), st.sampled_from(["gravity", "wind", "gust", 1]), st.none()),
    st.sampled_from(sorted(COLLIDER_WRITES)).flatmap(
        lambda name: st.tuples(st.just("col"), st.just(name), COLLIDER_WRITES[name])),
    st.tuples(st.just("geo"), st.just("shape"), SHAPES_OR_NOT),
)


def write_fields(write: tuple[str, Any, Any], comps: tuple[Any, ...]) -> list[Field]:
    what, attr, value = write
    pos, vel, acc, col, geo = comps
    if what in ("pos", "vel"):
        cls, limit = ("Position", MAX_COORD) if what == "pos" else ("Velocity", MAX_SPEED)
        if attr == "xy":
            return vec_fields(cls, value, limit)
        return [scalar(f"{cls}.{attr}", value, -limit, limit)]
    if what == "acc":
        if not isinstance(attr, str):
            return [Field("AccelerationMap name", frozenset({TypeError}), attr)]
        fields = vec_fields(f"AccelerationMap[{attr!r}]", value, MAX_ACCEL)
        if surely_valid(fields):
            named = dict(acc.items())
            named[attr] = floats_of(fields)
            tx = math.fsum(v[0] for v in named.values())
            ty = math.fsum(v[1] for v in named.values())
            over = not (abs(tx) <= MAX_ACCEL and abs(ty) <= MAX_ACCEL)
            fields.append(Field("AccelerationMap total",
                                frozenset({ValueError if over else OK}), ANY))
        return fields
    if what == "acc_del":  # a mapping: a missing name is a KeyError
        return [Field(repr(attr), frozenset({OK} if attr in acc else {KeyError}), attr)]
    if what == "col":
        if attr == "kind":  # infinite mass is an ACTIVE collider's only
            kind = resolved_kind(value)
            if kind not in (None, ep.ACTIVE) and col.mass == INF:
                return [Field("Collider.kind", frozenset({ValueError}), value)]
            return [kind_field(value)]
        fields = collider_fields({"kind": col.kind, attr: value})
        return fields[1:]
    return [shape_field("Geometry.shape", value)]


def apply(write: tuple[str, Any, Any], comps: tuple[Any, ...]) -> None:
    what, attr, value = write
    pos, vel, acc, col, geo = comps
    if what == "pos":
        setattr(pos, attr, value)
    elif what == "vel":
        setattr(vel, attr, value)
    elif what == "acc":
        acc[attr] = value
    elif what == "acc_del":
        del acc[attr]
    elif what == "col":
        setattr(col, attr, value)
    else:
        geo.shape = value


@EXAMPLES
@given(kind_a=st.sampled_from([ep.ACTIVE, ep.PASSIVE]), target=st.integers(0, 2),
       write=WRITES, steps=st.integers(1, 4))
def test_a_write_to_an_adopted_component_is_taken_or_changes_nothing(kind_a, target, write,
                                                                      steps):
    with fresh_world():
        physics, bodies, entities = build_world(kind_a)
        comps = bodies[target]
        fields = write_fields(write, comps)
        before = world_state(physics, bodies)
        label = f"{write[0]}.{write[1] if write[0] in ('pos', 'vel', 'col') else '[name]'}"
        try:
            apply(write, comps)
        except Exception as exc:  # noqa: BLE001 - the type is what is checked
            event(f"{label}: refused ({type(exc).__name__})")
            check_error(exc, fields)
            assert world_state(physics, bodies) == before, "a refused write changed the world"
            for _ in range(steps):
                esper.process(1 / 60)
            after = motion(physics)
            with fresh_world():  # the same world, never written to
                twin, _, _ = build_world(kind_a)
                for _ in range(steps):
                    esper.process(1 / 60)
                assert motion(twin) == after, "a refused write changed the steps after it"
            return
        event(f"{label}: taken")
        bad = [(f.name, f.value) for f in fields if OK not in f.allowed]
        assert not bad, f"accepted the bad write {bad}"
        what, attr, value = write
        pos, vel, acc, col, geo = comps
        if what in ("pos", "vel") and attr != "xy":
            assert getattr(pos if what == "pos" else vel, attr) == float(value)
        if what == "col":
            assert_collider_in_range(col)
        row = physics.table.row_of[entities[target]]
        assert physics.table.column("pos")[row].tolist() == list(pos.xy)
        assert physics.table.column("vel")[row].tolist() == list(vel.xy)
        assert physics.table.column("acc")[row].tolist() == list(acc.total)
        for _ in range(steps):
            esper.process(1 / 60)
            assert_in_range(physics)
        assert physics.steps == 1 + steps


# ================================================================== 3. the step

DT_VALUES = [0, 0.0, -0.0, -1e-9, -1, -INF, NAN, INF, 10.0, 1e308, 5e-324, 1e-7, MIN_DT,
             down(MIN_DT), 1.0, up(1.0), 1 / 60, 1 / 30, 0.5, 10**400, True, False, None,
             "0.016", np.float64(1 / 60), np.float32(0.016), np.int64(1), np.float64(NAN),
             Fraction(1, 60), Decimal("0.01"), np.array(0.016), np.array([0.016]), [],
             3.0, 0.1, 1 / 120]
BODY_SHAPES = [ep.Circle(0.5), ep.Rect(1, 1), ep.Rect(20, 1), ep.OrientedRect(2, 1, 30),
               ep.Segment((-3, 0), (3, 0)), ep.Polygon([(0, 0), (1, 0), (0, 1)]),
               ep.Compound([ep.Circle(0.5), ep.Rect(1, 1, offset=(1, 0))]),
               ep.TileMap(["#..#", "####"], 1.0, origin=(-2, -2)), Mask([[1, 1], [0, 1]]),
               ep.Circle(MAX_SIZE / 10)]
EDGE_POSITIONS = [(MAX_COORD, 0.0), (-MAX_COORD, MAX_COORD), (down(MAX_COORD), -MAX_COORD)]
EDGE_VELOCITIES = [(MAX_SPEED, 0.0), (-MAX_SPEED, MAX_SPEED), (0.0, 0.0), (5e-324, -5e-324)]

BODIES = st.tuples(
    st.sampled_from([ep.STATIC, ep.PASSIVE, ep.ACTIVE, ep.ACTIVE]),
    st.one_of(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), st.sampled_from(EDGE_POSITIONS)),
    st.one_of(st.tuples(st.floats(-20, 20), st.floats(-20, 20)),
              st.sampled_from(EDGE_VELOCITIES)),
    st.sampled_from([None, (0, -9.8), (0, -MAX_ACCEL), (MAX_ACCEL, MAX_ACCEL)]),
    st.sampled_from(BODY_SHAPES),
    st.sampled_from([1.0, MIN_MASS, MAX_MASS, INF]),
).map(lambda b: b if b[0] == ep.ACTIVE or b[5] != INF else (*b[:5], 1.0))  # inf: ACTIVE only


def dt_fields(mode: str, dt: object, fixed: float | None) -> list[Field]:
    """What a frame's dt must do: ``step(dt)`` takes one step's length (``MIN_DT`` ..
    ``MAX_DT``; None: ``fixed_dt``); a frame (``advance``, ``esper.process``) any finite
    dt >= 0; with ``fixed_dt=None`` a frame is one step of ``min(dt, MAX_DT)``, and a frame
    shorter than ``MIN_DT`` runs none."""
    if mode == "step":
        if dt is None:
            return [Field("dt", frozenset({ValueError} if fixed is None else {OK}), ANY)]
        return [scalar("dt", dt, MIN_DT, MAX_DT)]
    return [scalar("dt", dt, 0.0, INF)]


@settings(EXAMPLES, max_examples=400)  # (400 draw all eleven outcomes the 1,000 drew)
@given(fixed=st.sampled_from([1 / 60, 1 / 30, 1 / 240, 0.1, 1.0, MIN_DT, None]),
       cap=st.integers(1, 10), bodies=st.lists(BODIES, min_size=2, max_size=5),
       frames=st.lists(st.tuples(st.sampled_from(["process", "advance", "step"]),
                                 st.one_of(st.sampled_from(DT_VALUES), st.floats(),
                                           st.floats(0, 20))),
                       min_size=1, max_size=3))
def test_a_frame_dt_is_refused_or_steps_within_the_cap(fixed, cap, bodies, frames):
    with fresh_world():
        physics = ep.Physics(fixed_dt=fixed, max_steps_per_frame=cap)
        for kind, pos, vel, acc, shape, mass in bodies:
            comps = [ep.Position(*pos), ep.Velocity(*vel), ep.Collider(kind, mass=mass),
                     ep.Geometry(shape)]
            if acc is not None:
                comps.append(ep.AccelerationMap(gravity=acc))
            esper.create_entity(*comps)
        esper.process(0.0)  # adopts the bodies, runs no step
        assert physics.steps == 0 and physics.body_count == len(bodies)
        for mode, dt in frames:
            steps, time = physics.steps, physics.time
            clock = (physics.accumulator, physics.alpha, physics.last_dt)
            moving = motion(physics)
            call = {"process": esper.process, "advance": physics.advance,
                    "step": physics.step}[mode]
            fields = dt_fields(mode, dt, fixed)
            try:
                ran = call(dt)
            except Exception as exc:  # noqa: BLE001 - the type is what is checked
                event(f"{mode}: refused ({type(exc).__name__})")
                check_error(exc, fields)
                assert physics.steps == steps and physics.time == time
                assert (physics.accumulator, physics.alpha, physics.last_dt) == clock
                assert motion(physics) == moving, "a refused dt moved the bodies"
                continue
            assert valid(fields), f"{mode}({dt!r}) was not refused"
            done = physics.steps - steps
            event(f"{mode}: {'capped' if done == cap and mode != 'step' else 'ran'}")
            if mode == "step":
                length = fixed if dt is None else float(dt)  # type: ignore[arg-type]
                assert done == 1 and physics.last_dt == length
            else:
                assert 0 <= done <= cap
                if mode == "advance":
                    assert ran == done
                frame = float(dt)  # type: ignore[arg-type]
                if fixed is None:
                    assert done == (1 if frame >= MIN_DT else 0)
                    if done:
                        assert physics.last_dt == min(frame, MAX_DT)
                else:
                    if frame >= fixed * (cap + 1):  # the cap holds: the rest is dropped
                        assert done == cap
                    assert 0.0 <= physics.accumulator < fixed * (1 + 1e-6)
                assert 0.0 <= physics.alpha < 1.0
            assert physics.time >= time and math.isfinite(physics.time)
            assert_in_range(physics)
