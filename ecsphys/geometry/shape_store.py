"""The shape store: shapes packed into flat NumPy arrays that the compiled routines read.

Guarantees:
- ``intern(shape)`` returns ``(first, count, key)``: the shape's range of leaves, one leaf for a
  Circle, Rect, OrientedRect, Segment or Polygon, one per part for a Compound (nested groups
  flattened, each part's offset baked into its leaf), and the hash that orders two
  shapes of one kind at one position; equal shapes share one range, so a
  scene of ten thousand equal balls stores one leaf;
- a leaf's numbers are relative to its body's position, the shape's offset included (the
  layout is declared in ``shape_data.pxd``): circle centre and radius, rect centre and half
  extents, the counter-clockwise vertices and faces (outward unit normal, support) of every
  leaf but a circle, its bounds and a hash;
- a `TileMap` is its merged edges as segment leaves, preceded by a *header* leaf just before
  its range (``first - 1``: kind TILEMAP; columns, rows and the start of its cell index in
  ``cells``; tile size and origin) and indexed by tile: ``cells[base + k]`` ..
  ``cells[base + k + 1]`` (``k = up_row * columns + col``, rows counted from the bottom) are
  the positions in ``cells`` of the leaves that lie on the sides of tile k, so the leaves
  near a box are found from the few tiles it covers; the header's last column is where the
  tiles' kinds follow in ``cells`` (same order, 0 empty);
- arrays only grow while shapes are added (``clear()`` empties the store); the compiled code
  holds raw pointers into them only for the length of one call.
"""

from __future__ import annotations

import numpy as np

from ..shapes import Circle, Compound, Rect, Shape
from ..tilemap import TileMap

LI_STRIDE = 5  # kind, nv, nf, v0, f0
LF_STRIDE = 9  # radius, cx, cy, hx, hy, x0, y0, x1, y1
TILEMAP = 6  # the kind of a tile map's header leaf (shape_data.pxd)
_HASH_MASK = (1 << 63) - 1


def _key(h: int) -> int:
    """A Python hash as the int64 key (``Py_hash_t`` is 64 bits here; folded if wider), so
    keys order like the hashes themselves."""
    return h if -(1 << 63) <= h < (1 << 63) else h & _HASH_MASK


class ShapeStore:
    """Interned shapes as leaves (see the module docstring)."""

    def __init__(self, capacity: int = 16) -> None:
        self._ranges: dict[Shape, tuple[int, int, int]] = {}
        #: changes whenever the arrays may have been reallocated
        self.version = 0
        self.leaves = 0
        self.nverts = 0
        self.nfaces = 0
        self.leaf_i = np.zeros((capacity, LI_STRIDE), dtype=np.intc)
        self.leaf_f = np.zeros((capacity, LF_STRIDE), dtype=np.float64)
        self.leaf_h = np.zeros(capacity, dtype=np.int64)
        self.verts = np.zeros((4 * capacity, 2), dtype=np.float64)
        self.faces = np.zeros((4 * capacity, 3), dtype=np.float64)
        self.ncells = 0
        self.cells = np.zeros(capacity, dtype=np.intc)

    def __len__(self) -> int:
        return len(self._ranges)

    def clear(self) -> None:
        """Forget every shape (ranges handed out before are no longer valid)."""
        self._ranges.clear()
        self.leaves = self.nverts = self.nfaces = self.ncells = 0

    def intern(self, shape: Shape) -> tuple[int, int, int]:
        """``(first, count, key)`` of ``shape`` (its leaf range and ordering hash), adding it
        if it is new.

        Raises ``TypeError`` for anything that is not a shape."""
        found = self._ranges.get(shape)
        if found is not None:
            return found
        if not isinstance(shape, Shape):
            raise TypeError(f"expected a shape (Circle, Rect, ...), got {shape!r}")
        tiles_at = self._add_tilemap(shape) if isinstance(shape, TileMap) else -1
        first = self.leaves
        if isinstance(shape, Compound):
            for part, dx, dy in shape.parts:
                self._add_leaf(part, dx, dy, hash((part, dx, dy)))
        else:
            self._add_leaf(shape, 0.0, 0.0, hash(shape))
        count = self.leaves - first
        if tiles_at >= 0:
            self._add_tile_leaves(shape, tiles_at)
        found = (first, count, _key(hash(shape)))
        self._ranges[shape] = found
        return found

    # ---------------------------------------------------------------- packing

    def _add_tile_leaves(self, tm: TileMap, at: int) -> None:
        """A square leaf for each solid tile with an open side (the ones a body can touch),
        after the map's edges; their leaf indices go to ``cells[at ...]`` (-1: none)."""
        rows, cols = tm.shape
        solid = tm.grid != 0
        pad = np.zeros((rows + 2, cols + 2), dtype=np.bool_)
        pad[1:-1, 1:-1] = solid
        buried = pad[:-2, 1:-1] & pad[2:, 1:-1] & pad[1:-1, :-2] & pad[1:-1, 2:]
        open_tiles = solid & ~buried
        size = tm.tile_size
        square = Rect(size, size)
        leaf = np.full((rows, cols), -1, dtype=np.intc)
        for row, col in zip(*np.nonzero(open_tiles), strict=True):
            x0, y0, _, _ = tm.tile_box(int(row), int(col))
            dx, dy = x0 + size / 2, y0 + size / 2
            leaf[row, col] = self.leaves
            self._add_leaf(square, dx, dy, hash((square, dx, dy)))
        self.cells[at : at + rows * cols] = np.flipud(leaf).ravel()

    def _add_tilemap(self, tm: TileMap) -> int:
        """The header leaf of ``tm`` and its tile index (its edges follow as leaves); returns
        where in ``cells`` the tiles' square leaves are to be listed."""
        rows, cols = tm.shape
        size = tm.tile_size
        ox, oy = tm.origin
        first = self.leaves + 1  # the edges' leaves
        # each edge on the sides of the tiles it borders (both sides of its line, in the grid)
        owners: list[np.ndarray] = []
        tiles: list[np.ndarray] = []
        for k, ((x0, y0), (x1, y1), _) in enumerate(tm.edges):
            c0, c1 = round((x0 - ox) / size), round((x1 - ox) / size)
            r0, r1 = round((y0 - oy) / size), round((y1 - oy) / size)
            if r0 == r1:  # horizontal: the tiles below and above the line, columns c0 .. c1-1
                cs = np.arange(c0, c1)
                for r in (r0 - 1, r0):
                    if 0 <= r < rows:
                        tiles.append(r * cols + cs)
                        owners.append(np.full(len(cs), first + k))
            else:  # vertical: the tiles left and right of it, rows r0 .. r1-1
                rs = np.arange(r0, r1)
                for c in (c0 - 1, c0):
                    if 0 <= c < cols:
                        tiles.append(rs * cols + c)
                        owners.append(np.full(len(rs), first + k))
        tile = np.concatenate(tiles)
        owner = np.concatenate(owners)
        order = np.argsort(tile, kind="stable")
        counts = np.bincount(tile, minlength=rows * cols)
        base = self.ncells
        n_index = rows * cols + 1
        kinds_base = base + n_index + len(owner)
        need = kinds_base + 2 * rows * cols  # the kinds, then the tiles' square leaves
        if need > len(self.cells):
            self.version += 1
            new = np.zeros(max(need, 2 * len(self.cells)), dtype=np.intc)
            new[:base] = self.cells[:base]
            self.cells = new
        starts = base + n_index + np.concatenate(([0], np.cumsum(counts)))
        self.cells[base : base + n_index] = starts
        self.cells[base + n_index : kinds_base] = owner[order]
        # tile kinds, rows from the bottom
        self.cells[kinds_base : kinds_base + rows * cols] = np.flipud(tm.grid).ravel()
        self.ncells = need
        i = self.leaves
        self._grow(i + 1, self.nverts, self.nfaces)
        x0, y0, x1, y1 = tm.bounds()
        self.leaf_i[i] = (TILEMAP, cols, rows, base, kinds_base)
        self.leaf_f[i] = (size, ox, oy, 0.0, 0.0, x0, y0, x1, y1)
        self.leaf_h[i] = _key(hash(tm))
        self.leaves = i + 1
        return kinds_base + rows * cols

    def _grow(self, leaves: int, verts: int, faces: int) -> None:
        self.version += 1  # arrays may be reallocated: compiled views must be taken again
        if leaves > len(self.leaf_i):
            cap = max(leaves, 2 * len(self.leaf_i))
            for name in ("leaf_i", "leaf_f", "leaf_h"):
                old = getattr(self, name)
                new = np.zeros((cap, *old.shape[1:]), dtype=old.dtype)
                new[: self.leaves] = old[: self.leaves]
                setattr(self, name, new)
        for name, need, used in (("verts", verts, self.nverts), ("faces", faces, self.nfaces)):
            old = getattr(self, name)
            if need > len(old):
                new = np.zeros((max(need, 2 * len(old)), old.shape[1]), dtype=old.dtype)
                new[:used] = old[:used]
                setattr(self, name, new)

    def _add_leaf(self, shape: Shape, dx: float, dy: float, h: int) -> None:
        verts = getattr(shape, "_verts", ())
        faces = getattr(shape, "_faces", ())
        nv, nf = len(verts), len(faces)
        i = self.leaves
        self._grow(i + 1, self.nverts + nv, self.nfaces + nf)
        v0, f0 = self.nverts, self.nfaces
        if nv:
            self.verts[v0 : v0 + nv] = np.asarray(verts, dtype=np.float64) + (dx, dy)
            f = np.asarray(faces, dtype=np.float64)
            # a face's support moves with the offset along its normal
            self.faces[f0 : f0 + nf, :2] = f[:, :2]
            self.faces[f0 : f0 + nf, 2] = f[:, 2] + f[:, 0] * dx + f[:, 1] * dy
        x0, y0, x1, y1 = shape.bounds()
        ox, oy = shape.offset
        radius = shape.radius if isinstance(shape, Circle) else 0.0
        hx, hy = getattr(shape, "half_extents", (0.0, 0.0))
        self.leaf_i[i] = (shape.type_code, nv, nf, v0, f0)
        self.leaf_f[i] = (radius, ox + dx, oy + dy, hx, hy, x0 + dx, y0 + dy, x1 + dx, y1 + dy)
        self.leaf_h[i] = _key(h)
        self.leaves = i + 1
        self.nverts += nv
        self.nfaces += nf



#: The most leaves the public functions' store keeps before it starts afresh.
PUBLIC_LEAVES = 1 << 16
_public = ShapeStore()


def public_store() -> ShapeStore:
    """The store the public geometry functions (``contact``, ``distance``, ...) intern the
    shapes they are given in; emptied once it holds ``PUBLIC_LEAVES`` leaves, so a game that
    makes new shapes all the time does not grow it without bound. Intern every shape of a
    call before taking the store's pointers (``store_of``)."""
    if _public.leaves >= PUBLIC_LEAVES:
        _public.clear()
    return _public
