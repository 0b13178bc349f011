"""Spatial queries against a Physics world: points, rays, regions and shape casts.

Guarantees:
- ``query_point``, ``raycast``, ``raycast_all``, ``query_region``, ``cast_shape`` and
  ``raycast_many`` (reached as ``physics.query_point(...)`` and so on) see every body with a
  Collider and a Geometry that the physics has adopted, at its position and with its shape as
  they are now in the body table: after the last step, with the positions and shapes a game
  wrote since. Entities created since the last step are seen from the next step on (they are
  adopted then); deleted ones until it.
- They read the index the step's broadphase built (no second index): a body the index does not
  cover where it is now (moved by the game or pushed past its swept box) is tested on its own;
  the exact tests are the step's compiled geometry (``point_in``, ``raycast``, ``overlap``,
  ``time_of_impact``), so a query agrees with what the step would do. Every shape kind is
  seen, tile maps and pixel masks included.
- Filters: ``mask`` (layer bits, or layer names when the physics has `Layers`) keeps bodies
  whose layer meets it; sensors only with ``sensors=True``; ``exclude`` skips entities.
- Answers are deterministic: lists of entities are sorted; the first hit is the smallest
  fraction, the lowest entity among equal fractions; ``raycast_all`` is sorted by fraction,
  then entity.
- A ray that starts inside (or on) a shape hits it at fraction 0 with the normal facing back
  along the ray; a zero-length ray is a point test (fraction 0, normal (0, 0)). A shape cast
  hits what it touches first as the step's time of impact decides: a body it already
  overlaps at the start is hit at fraction 0 only if the move goes into it.
- Every argument is checked before anything runs, and bad input raises ``TypeError`` /
  ``ValueError`` naming the argument and the value, and changes nothing: coordinates (``x``,
  ``y``, ``start``, ``end``, ``position``, each row of ``starts`` / ``ends``) must be real
  numbers within ``limits.MAX_COORD`` (1e9) of the origin (NaN, infinities and 1e308 are
  refused); the arrays of ``raycast_many`` real numbers (ints or floats of any dtype and
  layout, not bools, strings, complex numbers or dates) of shape (n, 2), n >= 0 (no rays,
  ``[]`` too: empty answers); ``exclude`` an entity or an iterable of at most
  ``MAX_EXCLUDE`` entities, ``ignore`` n entities or -1: ints in [0, ``MAX_ENTITY``]
  (2**63 - 1); ``mask`` layer bits in [0, ALL] or layer names; ``sensors`` a bool; ``shape``
  a concrete shape (Circle, Rect, OrientedRect, Segment, Polygon, Compound or Mask; not a
  TileMap, not the ``Shape`` base).
- Bounded cost: inside that range no query runs for as long as its input says. A ray or a
  cast is marched in at most 4,096 chunks, each asking the step's index for the boxes near
  it (the grid's index walks only rows that hold boxes; the bodies it does not cover are
  tested once a ray, not once a chunk), so the longest ray across a world that spans the
  whole range answers in milliseconds; ``raycast_many`` costs at most that per ray. A pixel
  mask's time of impact samples only the part of the move near each body (at most 100,000
  samples a body, see ``geometry/impact.pyx``), so a long mask cast costs per body near its
  path, not per pixel of the move.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from itertools import islice
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..components import ALL
from ..limits import MAX_COORD, _short, check_range, check_vec
from ..mask import Mask as PixelMask
from ..shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment, Shape, Vec
from ..state.id_sets import unique_ids
from ..tilemap import TileMap
from .world_query import WorldQuery

if TYPE_CHECKING:
    from ..layers import Layers
    from ..state.body_table import BodyTable
    from ..systems.broadphase import BroadphaseSystem

Mask = int | str | Iterable[str]


class Hit(NamedTuple):
    """Where a ray or a moving shape first meets a body.

    ``point``: for a ray, the point on the ray; for a shape cast, the contact point with the
    shape moved to ``start + (end - start) * fraction``. ``normal``: the unit normal of the
    surface hit, facing the ray or the moving shape ((0, 0) for a zero-length ray).
    ``fraction``: in [0, 1] along start to end.
    """

    entity: int
    point: Vec
    normal: Vec
    fraction: float


class RayHits(NamedTuple):
    """The answers of ``raycast_many``, one row per ray: ``hit`` (bool), ``entity`` (int64, -1
    for none), ``point`` ((n, 2): the end for none), ``normal`` ((n, 2): (0, 0) for none) and
    ``fraction`` (1.0 for none)."""

    hit: np.ndarray
    entity: np.ndarray
    point: np.ndarray
    normal: np.ndarray
    fraction: np.ndarray


#: The entities a query may name (``exclude``, ``ignore``): esper's ids, int64 in the table.
MAX_ENTITY = 2**63 - 1
#: At most this many entities in one ``exclude`` (an endless iterator is refused, not read).
MAX_EXCLUDE = 1_000_000

_NO_ENTITIES = np.zeros(0, dtype=np.int64)
_SHAPES = (Circle, Rect, OrientedRect, Segment, Polygon, Compound, PixelMask)
_M, _LO = MAX_COORD, -MAX_COORD


def _coord(name: str, value: object, _lo: float = _LO, _hi: float = _M) -> float:
    """A coordinate: a real number within MAX_COORD of 0 (a quick path for floats)."""
    if type(value) is float and _lo <= value <= _hi:
        return value
    return check_range(name, value, _lo, _hi)


def _vec(name: str, value: object, _lo: float = _LO, _hi: float = _M) -> Vec:
    """``check_vec`` within MAX_COORD, with quick paths for a tuple of two floats in range
    (NumPy's too)."""
    if type(value) is tuple and len(value) == 2:
        x, y = value
        if type(x) is float and type(y) is float and _lo <= x <= _hi and _lo <= y <= _hi:
            return value  # type: ignore[return-value]
        if isinstance(x, float) and isinstance(y, float) and _lo <= x <= _hi and _lo <= y <= _hi:
            return (float(x), float(y))
    return check_vec(name, value, _hi)


def _check_points(name: str, value: object) -> np.ndarray:
    """An (n, 2) array of coordinates as a C-contiguous float64 array (copied when needed):
    real numbers of any int or float dtype, in range."""
    if value is None or isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"{name} must be an (n, 2) array of numbers, got {_short(value)}")
    try:
        a = np.asarray(value)
    except (TypeError, ValueError, OverflowError):  # ragged rows, and the like
        raise ValueError(f"{name} must be an (n, 2) array of numbers, got "
                         f"{_short(value)}") from None
    kind = a.dtype.kind
    if kind == "O":  # Python objects: numbers NumPy could not type (huge ints), or anything
        for v in a.flat:
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"{name} must hold real numbers, got {_short(v)} in "
                                f"{_short(value)}")
        try:
            a = a.astype(np.float64)
        except (OverflowError, ValueError, TypeError):
            raise ValueError(f"{name} must hold finite numbers, got {_short(value)}") from None
    elif kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers (ints or floats), got dtype "
                        f"{a.dtype} in {_short(value)}")
    if a.shape == (0,):  # an empty list: no rays
        a = a.reshape(0, 2)
    if a.ndim != 2 or a.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2), got shape {a.shape}")
    a = np.ascontiguousarray(a, dtype=np.float64)
    ok = np.abs(a) <= _M  # (False for NaN)
    if not ok.all():
        bad = int(np.flatnonzero(~ok.all(axis=1))[0])
        raise ValueError(f"{name}[{bad}] must be finite and in [{-_M:g}, {_M:g}], got "
                         f"{tuple(a[bad].tolist())!r}")
    return a


def _entity(name: str, e: object, whole: object) -> int:
    """An entity id: an int (NumPy's too, not a bool) in [0, MAX_ENTITY]."""
    if isinstance(e, bool) or not isinstance(e, (int, np.integer)):
        raise TypeError(f"{name} must hold entities (ints), got {_short(e)} in {_short(whole)}")
    v = int(e)
    if not 0 <= v <= MAX_ENTITY:
        raise ValueError(f"{name} must hold entities (ints in [0, 2**63 - 1]), got "
                         f"{_short(e)} in {_short(whole)}")
    return v


class WorldQueries:
    """The queries of one `Physics` (see the module docstring)."""

    def __init__(self, table: BodyTable, broadphase: BroadphaseSystem,
                 layers: Layers | None = None) -> None:
        self._table = table
        self._broadphase = broadphase
        self._layers = layers
        self._c = WorldQuery()
        self._seen: tuple[int, ...] | None = None

    # ------------------------------------------------------------ checking

    def _mask(self, mask: Mask) -> int:
        if isinstance(mask, (str, list, tuple, set, frozenset)):
            if self._layers is None:
                raise TypeError(f"mask may name layers only when the Physics has layers, got "
                                f"{mask!r}")
            names = (mask,) if isinstance(mask, str) else tuple(mask)
            if not all(isinstance(n, str) for n in names):
                raise TypeError(f"mask must be an int or layer names, got {mask!r}")
            return self._layers.mask(*names)
        if isinstance(mask, bool) or not isinstance(mask, (int, np.integer)):
            raise TypeError(f"mask must be an int (layer bits) or layer names, got {mask!r}")
        if not 0 <= int(mask) <= ALL:
            raise ValueError(f"mask must be in [0, {ALL:#x}], got {mask!r}")
        return int(mask)

    @staticmethod
    def _exclude(exclude: int | Iterable[int]) -> np.ndarray:
        if type(exclude) is int and 0 <= exclude <= MAX_ENTITY:  # one entity, quickly
            return np.array([exclude], dtype=np.int64)
        if isinstance(exclude, (int, np.integer)) and not isinstance(exclude, bool):
            return np.array([_entity("exclude", exclude, exclude)], dtype=np.int64)
        if exclude is None or isinstance(exclude, (str, bytes, bytearray)):
            raise TypeError(f"exclude must be an entity or entities, got {_short(exclude)}")
        if isinstance(exclude, np.ndarray) and exclude.dtype.kind in "iu":
            if exclude.size > MAX_EXCLUDE:
                raise ValueError(f"exclude must hold at most {MAX_EXCLUDE} entities, got "
                                 f"{exclude.size}")
            if exclude.size == 0:
                return _NO_ENTITIES
            lo, hi = int(exclude.min()), int(exclude.max())
            if lo < 0 or hi > MAX_ENTITY:
                _entity("exclude", lo if lo < 0 else hi, exclude)
            return unique_ids(exclude)
        try:
            items = list(islice(exclude, MAX_EXCLUDE + 1))  # type: ignore[call-overload]
        except TypeError:
            raise TypeError(f"exclude must be an entity or entities, got "
                            f"{_short(exclude)}") from None
        if not items:
            return _NO_ENTITIES
        if len(items) > MAX_EXCLUDE:
            raise ValueError(f"exclude must hold at most {MAX_EXCLUDE} entities, got more: "
                             f"{_short(exclude)}")
        return unique_ids(np.array([_entity("exclude", e, exclude) for e in items],
                                   dtype=np.int64))

    @staticmethod
    def _sensors(sensors: object) -> bool:
        if not isinstance(sensors, (bool, np.bool_)):
            raise TypeError(f"sensors must be True or False, got {sensors!r}")
        return bool(sensors)

    @staticmethod
    def _shape(shape: object) -> Shape:
        if isinstance(shape, TileMap) or not isinstance(shape, _SHAPES):
            raise TypeError(f"shape must be a Circle, Rect, OrientedRect, Segment, Polygon, "
                            f"Compound or Mask, got {_short(shape)}")
        return shape

    def _filters(self, mask: Mask, exclude: int | Iterable[int],
                 sensors: object) -> tuple[int, bool, np.ndarray]:
        if type(mask) is int and 0 <= mask <= ALL and type(sensors) is bool:
            if type(exclude) is tuple and not exclude:  # the common case, quickly
                return mask, sensors, _NO_ENTITIES
            return mask, sensors, self._exclude(exclude)
        return self._mask(mask), self._sensors(sensors), self._exclude(exclude)

    def _ready(self) -> BodyTable:
        """Learn the index again if a step ran or the table changed since the last query."""
        t, bp = self._table, self._broadphase
        seen = (bp.runs, t.layout_version, t.static_version, t.pose_version,
                t.columns_version, t.n)
        if seen != self._seen:
            lo, hi = bp._stage.boxes
            self._c.refresh(bp.index, t, bp._dyn, bp.static_rows, lo, hi, bp.static_lo,
                            bp.static_hi)
            self._seen = seen
        return t

    def _spec(self, shape: Shape) -> tuple[tuple, tuple[int, ...] | None]:
        (first, count, key), mark = self._table.store.lend(shape)
        return (first, count, shape.type_code, *shape.bounds(), key), mark

    # ------------------------------------------------------------ the queries

    def query_point(self, x: float, y: float, *, mask: Mask = ALL,
                    exclude: int | Iterable[int] = (), sensors: bool = False) -> list[int]:
        """The entities whose shape contains the point (x, y) (on the boundary counts),
        sorted. What is under the mouse: ``physics.query_point(*mouse_world)``."""
        px, py = _coord("x", x), _coord("y", y)
        m, s, ex = self._filters(mask, exclude, sensors)
        return self._c.point(self._ready(), px, py, m, s, ex)

    def raycast(self, start: Vec, end: Vec, *, mask: Mask = ALL,
                exclude: int | Iterable[int] = (), sensors: bool = False) -> Hit | None:
        """The first body the segment from ``start`` to ``end`` meets, as a `Hit`, or None.
        Can the enemy see the player: ``raycast(eye, player_pos, exclude=enemy, mask=walls)
        is None``."""
        (ox, oy), (ex_, ey) = _vec("start", start), _vec("end", end)
        m, s, ex = self._filters(mask, exclude, sensors)
        found = self._c.ray(self._ready(), ox, oy, ex_, ey, m, s, ex)
        if found is None:
            return None
        entity, t, nx, ny = found
        return Hit(int(entity), (ox + (ex_ - ox) * t, oy + (ey - oy) * t), (nx, ny), t)

    def raycast_all(self, start: Vec, end: Vec, *, mask: Mask = ALL,
                    exclude: int | Iterable[int] = (), sensors: bool = False) -> list[Hit]:
        """Every body the segment meets, each once (where it first meets it), sorted by
        fraction, then entity: what a piercing shot passes through."""
        (ox, oy), (ex_, ey) = _vec("start", start), _vec("end", end)
        m, s, ex = self._filters(mask, exclude, sensors)
        ent, frac, nrm = self._c.ray_all(self._ready(), ox, oy, ex_, ey, m, s, ex)
        dx, dy = ex_ - ox, ey - oy
        return [Hit(int(e), (ox + dx * float(t), oy + dy * float(t)), (float(n[0]), float(n[1])),
                    float(t)) for e, t, n in zip(ent, frac, nrm, strict=True)]

    def query_region(self, shape: Shape, position: Vec = (0.0, 0.0), *, mask: Mask = ALL,
                     exclude: int | Iterable[int] = (), sensors: bool = False) -> list[int]:
        """The entities whose shape overlaps (or touches) ``shape`` placed at ``position``,
        sorted: a selection box (a Rect), a blast radius (a Circle), any shape but a TileMap."""
        shape = self._shape(shape)
        px, py = _vec("position", position)
        m, s, ex = self._filters(mask, exclude, sensors)
        t = self._ready()
        spec, mark = self._spec(shape)
        try:
            return self._c.region(t, spec, px, py, m, s, ex)
        finally:
            t.store.give_back(shape, mark)

    def cast_shape(self, shape: Shape, start: Vec, end: Vec, *, mask: Mask = ALL,
                   exclude: int | Iterable[int] = (), sensors: bool = False) -> Hit | None:
        """Would ``shape`` moved from ``start`` to ``end`` hit something, and where first: a
        `Hit` (``fraction`` of the move at first touch, the contact point, the normal of the
        surface hit), or None. Uses the step's time of impact, so nothing thin is passed
        through; the caster itself is best left out with ``exclude``."""
        shape = self._shape(shape)
        (ox, oy), (ex_, ey) = _vec("start", start), _vec("end", end)
        m, s, ex = self._filters(mask, exclude, sensors)
        t = self._ready()
        spec, mark = self._spec(shape)
        try:
            found = self._c.cast(t, spec, ox, oy, ex_, ey, m, s, ex)
        finally:
            t.store.give_back(shape, mark)
        if found is None:
            return None
        entity, frac, nx, ny, px, py = found
        return Hit(int(entity), (px, py), (nx, ny), frac)

    def raycast_many(self, starts: object, ends: object, *, mask: Mask = ALL,
                     exclude: int | Iterable[int] = (), ignore: object = None,
                     sensors: bool = False) -> RayHits:
        """``raycast`` for many segments in one compiled call: ``starts`` and ``ends`` are
        (n, 2) arrays; ``ignore`` (optional, n entities, -1 for none) is one more entity each
        ray skips, such as the agent looking. Returns `RayHits` arrays; line of sight for
        hundreds of agents a frame."""
        s0 = _check_points("starts", starts)
        s1 = _check_points("ends", ends)
        if s0.shape != s1.shape:
            raise ValueError(f"starts and ends must have the same shape, got {s0.shape} and "
                             f"{s1.shape}")
        n = s0.shape[0]
        if ignore is None:
            ig = np.full(n, -1, dtype=np.int64)
        else:
            ig = self._ignore(ignore, n)
        m, s, ex = self._filters(mask, exclude, sensors)
        entity = np.empty(n, dtype=np.int64)
        fraction = np.empty(n, dtype=np.float64)
        point = np.empty((n, 2), dtype=np.float64)
        normal = np.empty((n, 2), dtype=np.float64)
        self._c.ray_many(self._ready(), s0, s1, m, s, ex, ig, entity, fraction, point, normal)
        return RayHits(entity >= 0, entity, point, normal, fraction)

    @staticmethod
    def _ignore(ignore: object, n: int) -> np.ndarray:
        """``raycast_many``'s ignore: n entities (ints in [0, MAX_ENTITY]) or -1, as int64."""
        want = f"ignore must be {n} entities (ints, -1 for none)"
        try:
            ig = np.asarray(ignore)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{want}, got {_short(ignore)}") from None
        if ig.shape != (n,):
            raise ValueError(f"{want}, got shape {ig.shape}: {_short(ignore)}")
        if ig.size == 0:
            return np.zeros(0, dtype=np.int64)
        if ig.dtype.kind == "O" and all(isinstance(v, (int, np.integer))
                                        and not isinstance(v, bool) for v in ig):
            lo, hi = min(int(v) for v in ig), max(int(v) for v in ig)
        elif ig.dtype.kind in "iu":
            lo, hi = int(ig.min()), int(ig.max())
        else:
            raise ValueError(f"{want}, got dtype {ig.dtype}: {_short(ignore)}")
        if lo < -1 or hi > MAX_ENTITY:
            raise ValueError(f"{want}, got {lo if lo < -1 else hi} in {_short(ignore)}")
        return np.ascontiguousarray(ig, dtype=np.int64)

    @property
    def escaped(self) -> int:
        """How many bodies the step's index does not cover where they are now (each query
        tests them on its own; diagnostics)."""
        self._ready()
        return int(self._c.escaped)


__all__ = ["MAX_ENTITY", "MAX_EXCLUDE", "Hit", "RayHits", "WorldQueries"]
