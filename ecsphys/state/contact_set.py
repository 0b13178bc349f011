"""The contacts of one step as columns: which pairs touch, and how.

Guarantees:
- pairs are unique, ``a < b`` (entity ids), sorted by ``key = a * 2**32 + b``;
- a pair is in the set when its shapes end the step within the contact offset (a pair that
  touched in the previous step: within the wider separation offset, so resting pairs do not
  flicker), or when it met during the step (a finite ``toi``) even if it ends the step apart;
- ``normal`` is a unit vector from ``a``'s shape to ``b``'s, ``depth`` the penetration
  (``>= -separation_offset``: touching within the skin counts; ``0.0`` for a pair that met
  during the step and ends it beyond its tolerance, whose ``normal`` and ``point`` are then
  the impact's), ``point``
  a world point of contact, ``toi`` the time of impact in [0, 1] of this step's move (``inf``
  if the pair did not hit while moving), ``speed`` the approach speed of that impact along the
  normal (units per second; ``0.0`` where the pair did not hit while moving);
- ``sensor`` is True where either side is a sensor; ``layer_a`` / ``layer_b`` the collider
  layers of the two sides at that step (``None`` where the set was made without them);
- a pair with a `TileMap` has one row per solid tile it touches, in tile order: ``tile`` is
  ``row << 32 | col`` of the tile (``-1`` for a pair without a tile map) and ``tile_kind``
  its kind (``0`` without); rows are unique and sorted by ``(key, tile)``;
- the step's sets are fresh arrays each step (built from the step's contact rows, in C
  memory, the first time someone reads them); treat them as read-only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

KEY_SHIFT = 32


def pair_keys(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int64 keys of entity pairs (``a < b``), ordered like ``(a, b)`` tuples."""
    return (a.astype(np.int64) << KEY_SHIFT) | b.astype(np.int64)


def _empty(shape: tuple[int, ...] = (0,), dtype: type = np.float64) -> np.ndarray:
    return np.zeros(shape, dtype=dtype)


@dataclass
class ContactSet:
    """Columns of contacts between bodies, one row per touching pair (see module docstring)."""

    a: np.ndarray = field(default_factory=lambda: _empty(dtype=np.int64))
    b: np.ndarray = field(default_factory=lambda: _empty(dtype=np.int64))
    normal: np.ndarray = field(default_factory=lambda: _empty((0, 2)))
    depth: np.ndarray = field(default_factory=_empty)
    point: np.ndarray = field(default_factory=lambda: _empty((0, 2)))
    toi: np.ndarray = field(default_factory=_empty)
    sensor: np.ndarray = field(default_factory=lambda: _empty(dtype=np.bool_))
    #: approach speed of the step's impact (0.0 without one); left out: zeros
    speed: np.ndarray = field(default_factory=_empty)
    #: collider layers of each side at the step (None: not known)
    layer_a: np.ndarray | None = None
    layer_b: np.ndarray | None = None
    #: per row: the tile (``row << 32 | col``, -1: none) and its kind (0: none); None: no tiles
    tile: np.ndarray | None = None
    tile_kind: np.ndarray | None = None
    #: the pair keys when the maker already has them (else computed once, on first use)
    _keys: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.speed) == 0 and len(self.a):
            self.speed = np.zeros(len(self.a), dtype=np.float64)

    @property
    def keys(self) -> np.ndarray:
        """``a << 32 | b`` per pair (sorted, as the pairs are)."""
        if self._keys is None or len(self._keys) != len(self.a):
            self._keys = pair_keys(self.a, self.b)
        return self._keys

    def __len__(self) -> int:
        return len(self.a)

    def take(self, index: np.ndarray) -> ContactSet:
        """The rows at ``index`` (an int array or a bool mask), as a new ContactSet."""
        return ContactSet(self.a[index], self.b[index], self.normal[index], self.depth[index],
                          self.point[index], self.toi[index], self.sensor[index],
                          self.speed[index],
                          None if self.layer_a is None else self.layer_a[index],
                          None if self.layer_b is None else self.layer_b[index],
                          None if self.tile is None else self.tile[index],
                          None if self.tile_kind is None else self.tile_kind[index])

    def find(self, a: int, b: int) -> int:
        """Row of the pair (a, b) in either order (its first tile's, with a tile map), or
        -1."""
        if a > b:
            a, b = b, a
        keys = self.keys
        key = (a << KEY_SHIFT) | b
        i = int(np.searchsorted(keys, key))
        return i if i < len(keys) and keys[i] == key else -1
