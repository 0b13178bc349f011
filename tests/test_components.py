"""Components: values, validation, mapping behaviour, readable reprs."""

from __future__ import annotations

import math
import random
import re

import pytest

import ecsphys as ep


def test_position_and_velocity_hold_their_values():
    p = ep.Position(1, 2)
    assert (p.x, p.y) == (1.0, 2.0)
    assert isinstance(p.x, float)
    p.x += 0.5
    assert p == ep.Position(1.5, 2)
    assert repr(p) == "Position(1.5, 2.0)"
    assert tuple(ep.Velocity(3, -4)) == (3.0, -4.0)
    assert ep.Position(0, 0) != ep.Velocity(0, 0)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_coordinates_are_rejected_naming_the_field(bad):
    with pytest.raises(ValueError, match=r"Position\.x must be finite, got nan|inf"):
        ep.Position(bad, 0)
    with pytest.raises(ValueError, match=r"Velocity\.y"):
        ep.Velocity(0, bad)
    p = ep.Position(1, 1)
    with pytest.raises(ValueError, match=r"Position\.y"):
        p.y = bad
    assert p == ep.Position(1, 1)  # the failed write changed nothing


def test_wrong_types_are_rejected():
    with pytest.raises(TypeError, match=r"Position\.x must be a number, got 'a'"):
        ep.Position("a", 0)
    with pytest.raises(TypeError, match="got True"):
        ep.Position(True, 0)


def test_acceleration_map_is_mapping_like_and_sums():
    acc = ep.AccelerationMap(gravity=(0, -9.8), wind=(1, 0))
    assert acc.total == (1.0, -9.8)
    assert acc["wind"] == (1.0, 0.0)
    assert set(acc) == {"gravity", "wind"} and len(acc) == 2 and "gravity" in acc
    acc["thrust"] = (0, 20)
    assert acc.total == pytest.approx((1.0, 10.2))
    del acc["wind"]
    del acc["thrust"]
    assert acc.total == (0.0, -9.8)
    assert repr(acc) == "AccelerationMap(gravity=(0.0, -9.8))"
    assert acc.get("missing") is None
    with pytest.raises(KeyError):
        del acc["missing"]
    with pytest.raises(ValueError, match=r"AccelerationMap\['wind'\]\.x must be finite"):
        acc["wind"] = (math.nan, 0)
    assert "wind" not in acc and acc.total == (0.0, -9.8)
    with pytest.raises(ValueError, match=r"\(x, y\) pair"):
        ep.AccelerationMap(gravity=(1, 2, 3))


def test_collider_fields_defaults_and_validation():
    c = ep.Collider(ep.ACTIVE)
    assert (c.kind, c.layer, c.mask, c.sensor, c.mass, c.restitution, c.slide) == (
        ep.ACTIVE, 1, ep.ALL, False, 1.0, 0.0, "project")
    assert ep.Collider("static").kind is ep.STATIC
    assert ep.ColliderKind.PASSIVE is ep.PASSIVE
    assert repr(ep.Collider(ep.PASSIVE, mass=2.0)) == "Collider(PASSIVE, mass=2.0)"
    assert ep.Collider(ep.ACTIVE, layer=2) == ep.Collider(ep.ACTIVE, layer=2)
    with pytest.raises(ValueError, match="kind must be STATIC, PASSIVE or ACTIVE, got .x."):
        ep.Collider("x")
    with pytest.raises(ValueError, match=r"Collider\.mass must be positive, got 0"):
        ep.Collider(ep.PASSIVE, mass=0)
    with pytest.raises(ValueError, match=r"Collider\.mass must be positive, got -1"):
        ep.Collider(ep.PASSIVE, mass=-1)
    with pytest.raises(ValueError, match=r"Collider\.restitution"):
        ep.Collider(ep.PASSIVE, restitution=1.5)
    with pytest.raises(ValueError, match=r"Collider\.slide must be one of"):
        ep.Collider(ep.ACTIVE, slide="bounce")
    with pytest.raises(ValueError, match=r"Collider\.layer"):
        ep.Collider(ep.ACTIVE, layer=0)
    with pytest.raises(TypeError, match=r"Collider\.sensor must be a bool"):
        ep.Collider(ep.ACTIVE, sensor=1)
    with pytest.raises(ValueError, match=r"Collider\.mass"):
        c.mass = math.nan
    assert c.mass == 1.0


def test_geometry_and_shapes_validate():
    g = ep.Geometry(ep.Circle(0.5))
    assert g.shape == ep.Circle(0.5) and repr(g) == "Geometry(Circle(0.5))"
    assert ep.Rect(4, 2, offset=(1, 0)).bounds() == (-1.0, -1.0, 3.0, 1.0)
    with pytest.raises(ValueError, match=r"Circle\.radius must be positive, got 0"):
        ep.Circle(0)
    with pytest.raises(ValueError, match=r"Rect\.width must be positive, got -2"):
        ep.Rect(-2, 1)
    with pytest.raises(ValueError, match=r"Rect\.height must be finite, got nan"):
        ep.Rect(1, math.nan)
    with pytest.raises(TypeError, match=r"Geometry\.shape must be a shape"):
        ep.Geometry("circle")
    with pytest.raises(AttributeError, match="immutable"):
        ep.Circle(1).radius = 2  # type: ignore[misc]


@pytest.mark.parametrize("make, field", [
    (lambda v: ep.Position(v, 0.0), "Position.x"),
    (lambda v: ep.Velocity(0.0, v), "Velocity.y"),
    (lambda v: ep.AccelerationMap(g=(v, 0.0)), "AccelerationMap['g']"),
    (lambda v: ep.AccelerationMap(g=(0, v)), "AccelerationMap['g']"),
    (lambda v: ep.Collider(ep.PASSIVE, mass=v), "Collider.mass"),  # (inf: ACTIVE only)
    (lambda v: ep.Circle(0.5, offset=(v, 0.0)), "Circle.offset"),
])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e300, -1e300, 2**2000, True,
                                   "1", None])
def test_the_quick_checks_refuse_what_the_full_ones_refuse(make, field, value):
    """The constructors' fast paths (a plain float or int in range) let nothing else through:
    NaN, infinities, out-of-range and huge values, bools and non-numbers still raise, naming
    the field."""
    with pytest.raises((ValueError, TypeError), match=re.escape(field)):
        make(value)


def test_two_accelerations_sum_as_exactly_as_fsum():
    rng = random.Random(5)
    for _ in range(2000):
        a = (rng.uniform(-1e3, 1e3) * 10 ** rng.randint(-20, 3), rng.choice([0.0, -0.0, 1.5]))
        b = (-a[0] if rng.random() < 0.2 else rng.uniform(-1e3, 1e3), rng.choice([0.0, -0.0]))
        got = ep.AccelerationMap(a=a, b=b).total
        want = (math.fsum([a[0], b[0]]) + 0.0, math.fsum([a[1], b[1]]) + 0.0)
        assert got == want and math.copysign(1.0, got[1]) == math.copysign(1.0, want[1])
        assert ep.AccelerationMap(a=a).total == (a[0] + 0.0, a[1] + 0.0)
