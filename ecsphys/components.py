"""The components games put on entities: Position, Velocity, AccelerationMap, Collider, Geometry.

Guarantees:
- every component validates its input at construction and on every write, raising
  ``ValueError`` / ``TypeError`` that names the field and the value; a failed write changes
  nothing;
- before a `Physics` adopts the entity a component holds its own values; once adopted, it is
  a view onto its row of the body table (``pos.x`` reads and writes the table), so user code and
  the systems share one copy; when the entity or component goes, the component takes back the
  row's last values and holds them;
- reads return plain Python floats and tuples, never NumPy scalars or arrays.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from .limits import (
    MAX_ACCEL,
    MAX_COORD,
    MAX_MASS,
    MAX_SPEED,
    MIN_MASS,
    Vec,
    check_bool,
    check_direction,
    check_finite,
    check_positive,
    check_range,
    check_vec,
    fast_vec,
)
from .shapes import Shape

if TYPE_CHECKING:
    from .state.body_table import BodyTable

#: Every layer bit set: a mask that collides with everything.
ALL = 0xFFFFFFFF
_MAX_LAYER = ALL


class ColliderKind(IntEnum):
    """How a collider moves: never (STATIC), only when pushed or by gravity (PASSIVE), or by
    input / AI (ACTIVE)."""

    STATIC = 0
    PASSIVE = 1
    ACTIVE = 2


#: Never moves: walls, floors, tiles (``ColliderKind.STATIC``).
STATIC = ColliderKind.STATIC
#: Moved only by its accelerations and by pushes, or carried: crates (``ColliderKind.PASSIVE``).
PASSIVE = ColliderKind.PASSIVE
#: Moved by the game (input, AI), sliding around what it meets (``ColliderKind.ACTIVE``).
ACTIVE = ColliderKind.ACTIVE

#: Friction of a Collider that does not say: none (as pymunk; Box2D uses 0.6).
DEFAULT_FRICTION = 0.0

#: The response modes of ACTIVE bodies (see `Collider`).
SLIDE_MODES = ("project", "tangent")

#: Why a STATIC or PASSIVE collider may not have infinite mass (the end of the refusals).
_INFINITE_MASS = ("infinite mass is for ACTIVE bodies (a moving platform, lift or door, moved "
                  "only by its own velocity)")


class _Bindable:
    """A component that may be bound to a row of a body table."""

    __slots__ = ("_table", "_row")
    _table: BodyTable | None
    _row: int

    def _bind(self, table: BodyTable, row: int) -> None:
        self._table = table
        self._row = row

    def _unbind(self) -> None:
        self._table = None
        self._row = -1


class _VectorView(_Bindable):
    """Shared code of Position and Velocity: an (x, y) pair, own or a view on a table column;
    each coordinate within ``_limit`` of 0 (``limits.MAX_COORD``, ``limits.MAX_SPEED``)."""

    __slots__ = ("_x", "_y")
    _column: str = ""
    _limit: float = MAX_COORD

    def __init__(self, x: float = 0.0, y: float = 0.0) -> None:
        self._x = self._check("x", x)
        self._y = self._check("y", y)
        self._table = None
        self._row = -1

    def _check(self, axis: str, value: object) -> float:
        lim = self._limit
        kind = type(value)
        if kind is float and -lim <= value <= lim:  # (finite limit: NaN and inf fail)
            return value  # type: ignore[return-value]
        if kind is int and -lim <= value <= lim:  # type: ignore[operator]
            return float(value)  # type: ignore[arg-type]
        return check_range(f"{type(self).__name__}.{axis}", value, -lim, lim)

    def _array(self) -> Any:
        return getattr(self._table, self._column)

    @property
    def x(self) -> float:
        """The x coordinate (read and written through to the body table once adopted)."""
        if self._table is None:
            return self._x
        return float(getattr(self._table, self._column)[self._row, 0])

    @x.setter
    def x(self, value: float) -> None:
        v = self._check("x", value)
        if self._table is None:
            self._x = v
        else:
            self._array()[self._row, 0] = v
            self._written()

    @property
    def y(self) -> float:
        """The y coordinate (read and written through to the body table once adopted)."""
        if self._table is None:
            return self._y
        return float(getattr(self._table, self._column)[self._row, 1])

    @y.setter
    def y(self, value: float) -> None:
        v = self._check("y", value)
        if self._table is None:
            self._y = v
        else:
            self._array()[self._row, 1] = v
            self._written()

    @property
    def xy(self) -> Vec:
        """Both coordinates as a tuple."""
        if self._table is None:
            return (self._x, self._y)
        a = getattr(self._table, self._column)[self._row]
        return (float(a[0]), float(a[1]))

    @xy.setter
    def xy(self, value: Vec) -> None:
        x, y = check_vec(type(self).__name__, value, self._limit)
        if self._table is None:
            self._x, self._y = x, y
        else:
            a = self._array()
            a[self._row, 0] = x
            a[self._row, 1] = y
            self._written()

    def _written(self) -> None:
        """Called after a write through to the table."""

    def _unbind(self) -> None:
        if self._table is not None:
            self._x, self._y = self.xy
        super()._unbind()

    def __iter__(self) -> Iterator[float]:
        return iter(self.xy)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.xy == other.xy  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        x, y = self.xy
        return f"{type(self).__name__}({x!r}, {y!r})"


class Position(_VectorView):
    """World position of the body's centre (the shape's offset is relative to it); each
    coordinate within ``limits.MAX_COORD`` (1e9) of 0.

    >>> p = Position(1, 2)
    >>> p.x += 0.5
    >>> p
    Position(1.5, 2.0)
    """

    __slots__ = ()
    _column = "pos"

    def _written(self) -> None:
        assert self._table is not None
        self._table.position_written(self._row)


class Velocity(_VectorView):
    """Displacement per second; each coordinate within ``limits.MAX_SPEED`` (1e7) of 0."""

    __slots__ = ()
    _column = "vel"
    _limit = MAX_SPEED

    def _written(self) -> None:
        assert self._table is not None
        self._table.velocity_written(self._row)


class AccelerationMap(_Bindable):
    """Named accelerations kept apart and summed: gravity, wind, thrust...

    Mapping-like: ``acc["wind"] = (1, 0)``, ``del acc["wind"]``, ``"gravity" in acc``,
    iteration over names, ``acc.total`` the sum.

    >>> acc = AccelerationMap(gravity=(0, -9.8), wind=(1, 0))
    >>> acc.total
    (1.0, -9.8)
    >>> del acc["wind"]
    >>> acc
    AccelerationMap(gravity=(0.0, -9.8))
    """

    __slots__ = ("_named", "_total")

    def __init__(self, **named: Vec) -> None:
        checked = {name: self._check(name, v) for name, v in named.items()}
        self._total = self._sum(checked)
        self._named: dict[str, Vec] = checked
        self._table = None
        self._row = -1

    @staticmethod
    def _check(name: str, value: object) -> Vec:
        fast = fast_vec(value, MAX_ACCEL)
        if fast is not None:
            return fast
        return check_vec(f"AccelerationMap[{name!r}]", value, MAX_ACCEL)

    @staticmethod
    def _sum(named: dict[str, Vec]) -> Vec:
        """The total of ``named``; ValueError if it is beyond ``limits.MAX_ACCEL``."""
        if len(named) <= 2:  # one or two terms: IEEE addition is already the exact sum rounded
            tx = ty = 0.0
            for vx, vy in named.values():
                tx += vx
                ty += vy
        else:
            tx = math.fsum(v[0] for v in named.values()) + 0.0
            ty = math.fsum(v[1] for v in named.values()) + 0.0
        if not (abs(tx) <= MAX_ACCEL and abs(ty) <= MAX_ACCEL):
            raise ValueError(f"AccelerationMap total must be within {MAX_ACCEL:g} on each axis, "
                             f"got {(tx, ty)!r} from {named!r}")
        return (tx, ty)

    def _update(self) -> None:
        old = self._total
        self._total = self._sum(self._named)
        if self._table is not None:
            self._table.acc[self._row] = self._total
            if self._total != old:  # (a sleeper wakes for a new total, not for the same)
                self._table.acceleration_changed(self._row)

    @property
    def total(self) -> Vec:
        """The sum of all named accelerations."""
        return self._total

    def __getitem__(self, name: str) -> Vec:
        return self._named[name]

    def __setitem__(self, name: str, value: Vec) -> None:
        if not isinstance(name, str):
            raise TypeError(f"AccelerationMap name must be a str, got {name!r}")
        named = dict(self._named)
        named[name] = self._check(name, value)
        self._sum(named)  # checked before anything changes
        self._named = named
        self._update()

    def __delitem__(self, name: str) -> None:
        del self._named[name]
        self._update()

    def __contains__(self, name: object) -> bool:
        return name in self._named

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._named))

    def __len__(self) -> int:
        return len(self._named)

    def get(self, name: str, default: Vec | None = None) -> Vec | None:
        """The acceleration named ``name``, or ``default`` if there is none."""
        return self._named.get(name, default)

    def items(self) -> list[tuple[str, Vec]]:
        """The ``(name, (ax, ay))`` pairs, in the order they were added."""
        return list(self._named.items())

    def keys(self) -> list[str]:
        """The names, in the order they were added."""
        return list(self._named)

    def values(self) -> list[Vec]:
        """The accelerations, in the order they were added."""
        return list(self._named.values())

    def clear(self) -> None:
        """Remove every named acceleration (``total`` becomes (0, 0))."""
        self._named.clear()
        self._update()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AccelerationMap):
            return NotImplemented
        return self._named == other._named

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._named.items())
        return f"AccelerationMap({inner})"


def _check_bits(name: str, value: object, *, allow_zero: bool) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int bit mask, got {value!r}")
    low = 0 if allow_zero else 1
    if not low <= value <= _MAX_LAYER:
        raise ValueError(f"{name} must be a bit mask in [{low}, {_MAX_LAYER:#x}], got {value!r}")
    return value


def _check_kind(value: object) -> ColliderKind:
    if isinstance(value, ColliderKind):
        return value
    if isinstance(value, str) and value.upper() in ColliderKind.__members__:
        return ColliderKind[value.upper()]
    raise ValueError(f"Collider.kind must be STATIC, PASSIVE or ACTIVE, got {value!r}")


class Collider(_Bindable):
    """What kind of collider a body is and how it responds.

    - ``kind``: ``STATIC`` (never moves), ``PASSIVE`` (moved by gravity and pushes) or
      ``ACTIVE`` (moved by input or AI, responds with the sphere slide).
    - ``layer`` / ``mask``: bit masks; a pair is tested only if each side's layer is in the
      other's mask.
    - ``sensor``: events only, no response.
    - ``mass`` (> 0), ``restitution`` (in [0, 1]): for momentum exchange. ``mass=math.inf``
      makes a body that is never pushed and whose velocity no impact changes: an ACTIVE
      one, a moving platform, elevator, door or piston, moving only by its own velocity and
      pushing every finite-mass body it meets out of its way (one caught between it and a
      wall stops it: the push ends at that body). Infinite mass is for ACTIVE colliders
      only: on a STATIC or PASSIVE one (in the constructor, or written to ``mass`` or
      ``kind`` later) it is a ``ValueError`` that changes nothing; to make a platform
      STATIC or PASSIVE, give it a finite mass first.
    - ``friction`` (>= 0, default 0: frictionless, as pymunk; Box2D's default is 0.6): at
      each impact the tangential velocity of the pair is reduced by at most friction times
      the normal impulse (Coulomb), the two sides' values combined as their geometric mean,
      so one side's 0 makes the pair frictionless. A crate of friction 0.5 on a floor of 0.5
      slides ``v**2 / (2 * 0.5 * g)`` before it stops.
    - ``slide``: ``"project"`` (default; the rest of a blocked move is projected on the tangent)
      or ``"tangent"`` (the rest carried at full length along the tangent: top-down crowds).
    - ``stop_on_slope``: a character that stands still on a slope up to the physics'
      ``floor_max_angle`` when gravity is all that pushes it into the floor (no creep), walks
      along slopes at the horizontal speed the game sets, and snaps down to the floor within
      ``floor_snap`` while walking down a slope or over a step (not while moving up: jumps).
    - ``one_way``: ``None`` or a direction (``(0, 1)``: up): the body is solid only for bodies
      that meet it moving against that direction (landing on top); they pass through it
      from below and from the sides, and a body that overlaps it is never pushed out.
      Touch events still report a body passing through it (they follow the shapes).

    Fields may be changed at any time; an adopted collider passes the change to the physics.
    """

    __slots__ = ("_kind", "_layer", "_mask", "_sensor", "_mass", "_restitution", "_slide",
                 "_friction", "_stop_on_slope", "_one_way")

    def __init__(
        self,
        kind: ColliderKind | str,
        layer: int = 1,
        mask: int = ALL,
        sensor: bool = False,
        mass: float = 1.0,
        restitution: float = 0.0,
        slide: str = "project",
        friction: float = DEFAULT_FRICTION,
        stop_on_slope: bool = False,
        one_way: tuple[float, float] | None = None,
    ) -> None:
        self._table = None
        self._row = -1
        self._kind = _check_kind(kind)
        self._layer = _check_bits("Collider.layer", layer, allow_zero=False)
        self._mask = _check_bits("Collider.mask", mask, allow_zero=True)
        self._sensor = self._check_sensor(sensor)
        self._mass = self._check_mass(mass, self._kind)
        self._restitution = self._check_restitution(restitution)
        self._slide = self._check_slide(slide)
        self._friction = self._check_friction(friction)
        self._stop_on_slope = self._check_flag("Collider.stop_on_slope", stop_on_slope)
        self._one_way = self._check_one_way(one_way)

    @staticmethod
    def _check_sensor(value: object) -> bool:
        return Collider._check_flag("Collider.sensor", value)

    @staticmethod
    def _check_flag(name: str, value: object) -> bool:
        return check_bool(name, value)

    @staticmethod
    def _check_mass(value: object, kind: ColliderKind) -> float:
        """The mass ``value`` for a collider of ``kind``: in [MIN_MASS, MAX_MASS], or
        ``math.inf`` on an ACTIVE one."""
        if type(value) is float and MIN_MASS <= value <= MAX_MASS:  # the common case
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value == math.inf:
            if kind != ColliderKind.ACTIVE:
                raise ValueError(
                    f"Collider.mass must be finite for a {kind.name} collider, got {value!r}: "
                    f"{_INFINITE_MASS}")
            return math.inf
        return check_range("Collider.mass", check_positive("Collider.mass", value), MIN_MASS,
                           MAX_MASS)

    @staticmethod
    def _check_friction(value: object) -> float:
        f = check_finite("Collider.friction", value)
        if f < 0.0:
            raise ValueError(f"Collider.friction must be >= 0, got {value!r}")
        return f

    @staticmethod
    def _check_one_way(value: object) -> Vec | None:
        if value is None:
            return None
        try:
            return check_direction("Collider.one_way", value)
        except ValueError as e:
            raise ValueError(f"{e} (or None: solid both ways)") from None

    @staticmethod
    def _check_restitution(value: object) -> float:
        r = check_finite("Collider.restitution", value)
        if not 0.0 <= r <= 1.0:
            raise ValueError(f"Collider.restitution must be in [0, 1], got {value!r}")
        return r

    @staticmethod
    def _check_slide(value: object) -> str:
        if not isinstance(value, str):
            raise TypeError(f"Collider.slide must be one of {SLIDE_MODES}, got {value!r}")
        if value not in SLIDE_MODES:
            raise ValueError(f"Collider.slide must be one of {SLIDE_MODES}, got {value!r}")
        return str(value)

    def _changed(self) -> None:
        if self._table is not None:
            self._table.collider_changed(self._row, self)

    @property
    def kind(self) -> ColliderKind:
        """`STATIC`, `PASSIVE` or `ACTIVE` (set: the enum or its name as a string)."""
        return self._kind

    @kind.setter
    def kind(self, value: ColliderKind | str) -> None:
        kind = _check_kind(value)
        if self._mass == math.inf and kind != ColliderKind.ACTIVE:
            raise ValueError(
                f"Collider.kind must be ACTIVE while Collider.mass is inf, got {value!r}: "
                f"{_INFINITE_MASS}; give the collider a finite mass first")
        self._kind = kind
        self._changed()

    @property
    def layer(self) -> int:
        """The layer bits of this body (not 0); a pair is tested only if each side's layer
        has a bit of the other's ``mask``."""
        return self._layer

    @layer.setter
    def layer(self, value: int) -> None:
        self._layer = _check_bits("Collider.layer", value, allow_zero=False)
        self._changed()

    @property
    def mask(self) -> int:
        """The layer bits this body collides with (0: none, `ALL`: every layer)."""
        return self._mask

    @mask.setter
    def mask(self, value: int) -> None:
        self._mask = _check_bits("Collider.mask", value, allow_zero=True)
        self._changed()

    @property
    def sensor(self) -> bool:
        """True: events only, no response (triggers, pickups)."""
        return self._sensor

    @sensor.setter
    def sensor(self, value: bool) -> None:
        self._sensor = self._check_sensor(value)
        self._changed()

    @property
    def mass(self) -> float:
        """In [1e-9, 1e12], or ``math.inf`` on an ACTIVE body (never pushed)."""
        return self._mass

    @mass.setter
    def mass(self, value: float) -> None:
        self._mass = self._check_mass(value, self._kind)
        self._changed()

    @property
    def restitution(self) -> float:
        """Bounciness in [0, 1]; a pair bounces by the larger of its two."""
        return self._restitution

    @restitution.setter
    def restitution(self, value: float) -> None:
        self._restitution = self._check_restitution(value)
        self._changed()

    @property
    def slide(self) -> str:
        """``"project"`` (side views) or ``"tangent"`` (top-down crowds)."""
        return self._slide

    @slide.setter
    def slide(self, value: str) -> None:
        self._slide = self._check_slide(value)
        self._changed()

    @property
    def friction(self) -> float:
        """Coulomb friction (>= 0); a pair uses the geometric mean of its two."""
        return self._friction

    @friction.setter
    def friction(self, value: float) -> None:
        self._friction = self._check_friction(value)
        self._changed()

    @property
    def stop_on_slope(self) -> bool:
        """True: a character that stands still on slopes and follows them down."""
        return self._stop_on_slope

    @stop_on_slope.setter
    def stop_on_slope(self, value: bool) -> None:
        self._stop_on_slope = self._check_flag("Collider.stop_on_slope", value)
        self._changed()

    @property
    def one_way(self) -> Vec | None:
        """The unit direction bodies must move against to meet it (None: solid both ways)."""
        return self._one_way

    @one_way.setter
    def one_way(self, value: tuple[float, float] | None) -> None:
        self._one_way = self._check_one_way(value)
        self._changed()

    def _fields(self) -> tuple[object, ...]:
        return (self._kind, self._layer, self._mask, self._sensor, self._mass,
                self._restitution, self._slide, self._friction, self._stop_on_slope,
                self._one_way)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Collider):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = [self._kind.name]
        defaults = {"layer": 1, "mask": ALL, "sensor": False, "mass": 1.0,
                    "restitution": 0.0, "slide": "project", "friction": DEFAULT_FRICTION,
                    "stop_on_slope": False, "one_way": None}
        for name, default in defaults.items():
            value = getattr(self, name)
            if value != default:
                parts.append(f"{name}={value:#x}" if name in ("layer", "mask")
                             else f"{name}={value!r}")
        return f"Collider({', '.join(parts)})"


class Geometry(_Bindable):
    """The collision boundary of a body: a shape value relative to its `Position`.

    The shape may be replaced (``geo.shape = Circle(2)``); shapes themselves are immutable.
    """

    __slots__ = ("_shape",)

    def __init__(self, shape: Shape) -> None:
        self._table = None
        self._row = -1
        self._shape = self._check(shape)

    @staticmethod
    def _check(shape: object) -> Shape:
        if not isinstance(shape, Shape) or shape.type_code < 0:  # the base class is no shape
            raise TypeError(f"Geometry.shape must be a shape (Circle, Rect...), got {shape!r}")
        return shape

    @property
    def shape(self) -> Shape:
        """The shape (an immutable value); assign another one to change the body's boundary."""
        return self._shape

    @shape.setter
    def shape(self, value: Shape) -> None:
        shape = self._check(value)
        if self._table is not None:  # refuses a shape the step cannot take before writing
            self._table.geometry_changed(self._row, shape)
        self._shape = shape

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Geometry):
            return NotImplemented
        return self._shape == other._shape

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Geometry({self._shape!r})"
