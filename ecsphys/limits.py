"""The valid range of the numbers a game gives ecsphys, and the checks that enforce it.

Guarantees:
- every number a game hands over (component fields, shape sizes, Physics settings, a frame's
  dt) is checked where it comes in against the ranges below; a value outside raises
  ``ValueError`` (``TypeError`` for a non-number) naming the field and the value, and changes
  nothing;
- inside those ranges no arithmetic of a step can overflow: positions, moves, squared
  distances and grid cell indices all stay far from the float64 range, so the compiled step
  never sees an infinity or a NaN from valid input;
- the step keeps every body inside them: a velocity is clamped to ``MAX_SPEED`` per axis when
  it is integrated, and a body that reaches ``MAX_COORD`` stops there (its velocity that way
  set to zero).

The ranges (world units, seconds, and pixel and tile counts), as Box2D documents its own:

======================  ======================================================================
``MAX_COORD``           1e9: ``|x|`` and ``|y|`` of positions (and tile map origins)
``MIN_SIZE``            1e-6: the smallest radius, width, height, tile or pixel size
``MAX_SIZE``            1e7: the largest of those, and how far a shape may reach from
                        its body's position (offsets and vertices included)
``MAX_SPEED``           1e7 per axis: velocities
``MAX_ACCEL``           1e9 per axis: each named acceleration and their sum
``MIN_MASS``            1e-9 ... ``MAX_MASS`` 1e12, or ``math.inf`` (never pushed; an
                        ACTIVE collider's only: a moving platform)
``MIN_DT``              1e-6 ... ``MAX_DT`` 1.0: a step's length (``fixed_dt``, ``step(dt)``);
                        with ``fixed_dt=None`` a longer frame runs one step of ``MAX_DT``
``MAX_MASK_SIDE``       16384 pixels: a mask's width and height (``Mask(pixels)``, and
                        the images ``Mask.from_file`` reads: refused before decoding)
``MAX_MASK_PIXELS``     2**26 (67,108,864; 8192 x 8192): a mask's width times height
``MAX_TILEMAP_SIDE``    16384 tiles: a tile map's rows and its columns
``MAX_TILES``           2**22 (4,194,304; 2048 x 2048): a tile map's rows times columns
======================  ======================================================================

The counts bound what one shape costs before any of it is made: a mask at the limit is 64 MB
of pixels (decoding its image takes up to 256 MB of RGBA); a tile map at the limit builds in
seconds (its worst case, a 2048 x 2048 checkerboard: 8.4 million edges, 8 s and 1.7 GB).

A game in pixels fits as well as one in metres: a 1e9 world is a million screens wide.
"""

from __future__ import annotations

import math
import numbers

Vec = tuple[float, float]

MAX_COORD = 1e9
MIN_SIZE = 1e-6
MAX_SIZE = 1e7
MAX_SPEED = 1e7
MAX_ACCEL = 1e9
MIN_MASS = 1e-9
MAX_MASS = 1e12
MIN_DT = 1e-6
MAX_DT = 1.0
MAX_MASK_SIDE = 16384
MAX_MASK_PIXELS = 2**26
MAX_TILEMAP_SIDE = 16384
MAX_TILES = 2**22
MAX_TILE_SHAPES = 4096  # shaped tile kinds in one TileMap
MAX_TILE_SHAPE_POINTS = 16  # points of one tile shape (geometry/tile_shapes.pxd's table width)


def check_finite(name: str, value: object) -> float:
    """Return ``value`` as a float; raise if it is not a finite real number.

    Raises ``TypeError`` for non-numbers (and bools) and ``ValueError`` for NaN, infinities and
    integers beyond the float range, naming the field ``name`` and the value.
    """
    kind = type(value)
    if kind is float:  # the common case first: no ABC check
        if value - value == 0.0:  # finite (NaN and infinities give NaN)
            return value  # type: ignore[return-value]
        raise ValueError(f"{name} must be finite, got {value!r}")
    if kind is not int and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    try:
        f = float(value)
    except (OverflowError, ValueError, TypeError):
        raise ValueError(f"{name} must be finite, got {_short(value)}") from None
    if not math.isfinite(f):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return f


def check_range(name: str, value: object, low: float, high: float) -> float:
    """``check_finite``, and ``low <= value <= high``."""
    if type(value) is float and value - value == 0.0 and low <= value <= high:
        return value  # the common case: a finite float in range (NaN fails every test)
    f = check_finite(name, value)
    if not low <= f <= high:
        raise ValueError(f"{name} must be in [{low:g}, {high:g}], got {value!r}")
    return f


def check_positive(name: str, value: object) -> float:
    """Return ``value`` as a float; raise ``ValueError`` unless it is finite and > 0."""
    f = check_finite(name, value)
    if f <= 0.0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return f


def check_size(name: str, value: object) -> float:
    """A radius, width, height, tile or pixel size: in [MIN_SIZE, MAX_SIZE]."""
    f = check_finite(name, value)
    if f <= 0.0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    if not MIN_SIZE <= f <= MAX_SIZE:
        raise ValueError(f"{name} must be in [{MIN_SIZE:g}, {MAX_SIZE:g}], got {value!r}")
    return f


def check_vec(name: str, value: object, limit: float = math.inf) -> Vec:
    """Return ``value`` as an ``(x, y)`` tuple of finite floats, each within ``limit`` of 0;
    raise naming ``name`` (``name.x`` / ``name.y`` for a bad coordinate) if not."""
    fast = fast_vec(value, limit)
    if fast is not None:
        return fast
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be an (x, y) pair, got {value!r}")
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{name} must be an (x, y) pair, got {value!r}") from None
    if len(items) != 2:
        raise ValueError(f"{name} must be an (x, y) pair, got {value!r}")
    if limit == math.inf:
        return (check_finite(f"{name}.x", items[0]), check_finite(f"{name}.y", items[1]))
    return (check_range(f"{name}.x", items[0], -limit, limit),
            check_range(f"{name}.y", items[1], -limit, limit))


def fast_vec(value: object, limit: float = math.inf) -> Vec | None:
    """``value`` as `check_vec` returns it when it is plainly valid (a tuple of two finite
    floats, or ints, within ``limit``), else None (then `check_vec` decides and names the
    fault): the common case without building any message."""
    if type(value) is not tuple or len(value) != 2:
        return None
    x, y = value
    if type(x) is not float:
        if type(x) is not int or not -limit <= x <= limit or abs(x) > _FLOAT_INT:
            return None
        x = float(x)
    if type(y) is not float:
        if type(y) is not int or not -limit <= y <= limit or abs(y) > _FLOAT_INT:
            return None
        y = float(y)
    if x - x == 0.0 and y - y == 0.0 and -limit <= x <= limit and -limit <= y <= limit:
        return (x, y)
    return None


#: Ints beyond this are left to the full check (float() of a huge int overflows)
_FLOAT_INT = 2 ** 1000


def check_direction(name: str, value: object) -> Vec:
    """A non-zero ``(x, y)`` direction, returned as a unit vector (exact in length even when
    its coordinates are subnormal); ValueError naming ``name`` for a zero vector."""
    x, y = check_vec(name, value)
    m = max(abs(x), abs(y))
    if m == 0.0:
        raise ValueError(f"{name} must be a non-zero direction, got {value!r}")
    x, y = x / m, y / m  # scaled to about 1 first: no underflow in the length
    length = math.hypot(x, y)
    return (x / length, y / length)


def check_int(name: str, value: object, low: int, high: int) -> int:
    """An int (NumPy's too, not a bool) in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {_short(value)}")
    v = int(value)
    if not low <= v <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {_short(value)}")
    return v


def check_bool(name: str, value: object) -> bool:
    """A flag: True or False (NumPy's bools too), nothing else."""
    if isinstance(value, bool):
        return value
    kind = type(value)
    if kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"):  # NumPy's bool
        return bool(value)
    raise TypeError(f"{name} must be a bool (True or False), got {_short(value)}")


def check_grid(name: str, shape: tuple[int, ...], max_side: int, max_cells: int,
               what: str) -> None:
    """A 2D grid's ``(rows, columns)``: each from 1 to ``max_side`` and their product at most
    ``max_cells``; ``ValueError`` naming ``name``, the shape and the limit if not. Call it with
    the shape an input claims, before anything of that size is made."""
    if len(shape) != 2:
        raise ValueError(f"{name} must be 2D (rows, columns), got shape {shape}")
    rows, cols = (int(n) for n in shape)
    if rows < 1 or cols < 1:
        raise ValueError(f"{name} must have at least one row and column, got {shape}")
    if rows > max_side or cols > max_side:
        raise ValueError(f"{name} is {rows} rows by {cols} columns of {what}: at most "
                         f"{max_side} a side")
    if rows * cols > max_cells:
        raise ValueError(f"{name} is {rows} rows by {cols} columns of {what}: at most "
                         f"{max_cells} {what} in all")


def _short(value: object) -> str:
    """``repr(value)``, cut short (an int of 400 digits, an array)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + "..." + text[-10:]
