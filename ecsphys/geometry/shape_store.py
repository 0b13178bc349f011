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
- a `Mask` leaf keeps its packed rows in ``bits`` (its first word and words per row in the
  leaf: kind, width, height, first word, words per row; scale, centre, half extents);
- arrays only grow while shapes are added (``clear()`` empties the store); the compiled code
  holds raw pointers into them only for the length of one call.
"""

from __future__ import annotations

import numpy as np

from ..mask import Mask
from ..shapes import Circle, Compound, Rect, Segment, Shape
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
        #: the masks' packed rows (uint64 words)
        self.nbits = 0
        self.bits = np.zeros(capacity, dtype=np.uint64)
        #: tile map -> (its version interned, (first, count, key), edge room, cells start,
        #: index room): a map's region is written again in place when its tiles change
        self._maps: dict[TileMap, tuple[int, tuple[int, int, int], int, int, int]] = {}

    def __len__(self) -> int:
        return len(self._ranges)

    def clear(self) -> None:
        """Forget every shape (ranges handed out before are no longer valid)."""
        self._ranges.clear()
        self._maps.clear()
        self.leaves = self.nverts = self.nfaces = self.ncells = self.nbits = 0

    def intern(self, shape: Shape) -> tuple[int, int, int]:
        """``(first, count, key)`` of ``shape`` (its leaf range and ordering hash), adding it
        if it is new.

        Raises ``TypeError`` for anything that is not a shape."""
        if isinstance(shape, TileMap):
            return self._tilemap(shape)
        found = self._ranges.get(shape)
        if found is not None:
            return found
        if not isinstance(shape, Shape):
            raise TypeError(f"expected a shape (Circle, Rect, ...), got {shape!r}")
        first = self.leaves
        if isinstance(shape, Compound):
            for part, dx, dy in shape.parts:
                self._add_leaf(part, dx, dy, hash((part, dx, dy)))
        else:
            self._add_leaf(shape, 0.0, 0.0, hash(shape))
        found = (first, self.leaves - first, _key(hash(shape)))
        self._ranges[shape] = found
        return found

    def lend(self, shape: Shape) -> tuple[tuple[int, int, int], tuple[int, ...] | None]:
        """``(range, mark)``: the range of ``shape`` as ``intern`` gives it, and a mark for
        ``give_back`` (None when the shape was interned already): a shape used for one call
        (a query's shape) need not stay. Nothing may be interned between the two."""
        if isinstance(shape, TileMap):
            raise TypeError(f"a TileMap cannot be lent, got {shape!r}")
        found = self._ranges.get(shape)
        if found is not None:
            return found, None
        mark = (self.leaves, self.nverts, self.nfaces, self.nbits)
        return self.intern(shape), mark

    def give_back(self, shape: Shape, mark: tuple[int, ...] | None) -> None:
        """Forget ``shape`` lent with ``mark`` and free its room (nothing if mark is None)."""
        if mark is None:
            return
        del self._ranges[shape]
        self.leaves, self.nverts, self.nfaces, self.nbits = mark

    # ---------------------------------------------------------------- packing

    def _tilemap(self, tm: TileMap) -> tuple[int, int, int]:
        """The range of tile map ``tm``, written again in place if its tiles changed since
        (a fresh region only when it outgrew its room)."""
        slot = self._maps.get(tm)
        if slot is not None and slot[0] == tm.version:
            return slot[1]
        edges = tm.edge_array()
        count = len(edges)
        rows, cols = tm.shape
        n = rows * cols
        entries = 2 * int(np.abs(edges[:, 2] - edges[:, 0]).sum()
                          + np.abs(edges[:, 3] - edges[:, 1]).sum())
        if slot is None or count > slot[2] or entries > slot[4]:
            cap_e, cap_c = count + count // 2 + 16, entries + entries // 2 + 64
            square, cells = self._reserve(cap_e + 2, 2 * n + 1 + cap_c)
        else:
            square, cap_e, cells, cap_c = slot[1][0] - 2, slot[2], slot[3], slot[4]
        first = square + 2
        self._write_square(tm, square)
        starts_at = cells + n
        self._write_edges(tm, edges, first)
        self._write_index(tm, edges, first, cells, starts_at)
        self.leaf_i[square + 1] = (TILEMAP, cols, rows, starts_at, cells)
        x0, y0, x1, y1 = tm.bounds()
        self.leaf_f[square + 1] = (tm.tile_size, *tm.origin, 0.0, 0.0, x0, y0, x1, y1)
        self.leaf_h[square + 1] = 0
        found = (first, count, 0)
        self._maps[tm] = (tm.version, found, cap_e, cells, cap_c)
        return found

    def _reserve(self, leaves: int, cells: int) -> tuple[int, int]:
        """Room for ``leaves`` leaves (2 vertices and 4 faces each) and ``cells`` index
        entries at the end of the arrays; returns where both start."""
        first, at = self.leaves, self.ncells
        self._grow(first + leaves, self.nverts + 2 * leaves, self.nfaces + 4 * leaves)
        if at + cells > len(self.cells):
            self.version += 1
            new = np.zeros(max(at + cells, 2 * len(self.cells)), dtype=np.intc)
            new[:at] = self.cells[:at]
            self.cells = new
        # the leaves' vertex and face ranges are fixed: 2 and 4 per leaf, in order
        self.leaf_i[first : first + leaves, 3] = self.nverts + 2 * np.arange(leaves)
        self.leaf_i[first : first + leaves, 4] = self.nfaces + 4 * np.arange(leaves)
        self.leaves += leaves
        self.nverts += 2 * leaves
        self.nfaces += 4 * leaves
        self.ncells += cells
        return first, at

    def _write_square(self, tm: TileMap, i: int) -> None:
        """Leaf i: a tile's square centred on its body (placed on a tile by its position);
        it takes the vertex room of leaf i + 1 too (the header, which has no vertices)."""
        h = tm.tile_size / 2
        v0, f0 = int(self.leaf_i[i, 3]), int(self.leaf_i[i, 4])
        self.verts[v0 : v0 + 4] = ((-h, -h), (h, -h), (h, h), (-h, h))
        self.faces[f0 : f0 + 4] = ((0.0, -1.0, h), (1.0, 0.0, h), (0.0, 1.0, h), (-1.0, 0.0, h))
        self.leaf_i[i, :3] = (Rect.type_code, 4, 4)
        self.leaf_f[i] = (0.0, 0.0, 0.0, h, h, -h, -h, h, h)
        self.leaf_h[i] = 0

    def _write_edges(self, tm: TileMap, edges: np.ndarray, first: int) -> None:
        """The edges as one-sided segment leaves ``first ...`` (vectorised): the first face
        of each points to its open side."""
        count = len(edges)
        if not count:
            return
        size = tm.tile_size
        ox, oy = tm.origin
        p = edges[:, :4].astype(np.float64) * size + (ox, oy, ox, oy)
        # up and left edges run backwards, so the normal on the right of p1 -> p2 is open
        back = (edges[:, 4] == 0) | (edges[:, 4] == 2)
        p[back] = p[back][:, [2, 3, 0, 1]]
        d = p[:, 2:] - p[:, :2]
        d /= np.hypot(d[:, 0], d[:, 1])[:, None]
        nrm = np.column_stack((d[:, 1], -d[:, 0]))
        leaves = slice(first, first + count)
        v0 = self.leaf_i[leaves, 3]
        f0 = self.leaf_i[leaves, 4]
        self.verts[v0] = p[:, :2]
        self.verts[v0 + 1] = p[:, 2:]
        support = (nrm * p[:, :2]).sum(axis=1)
        self.faces[f0, :2] = nrm
        self.faces[f0, 2] = support
        self.faces[f0 + 1, :2] = -nrm
        self.faces[f0 + 1, 2] = -support
        self.faces[f0 + 2, :2] = d
        self.faces[f0 + 2, 2] = (d * p[:, 2:]).sum(axis=1)
        self.faces[f0 + 3, :2] = -d
        self.faces[f0 + 3, 2] = -(d * p[:, :2]).sum(axis=1)
        self.leaf_i[leaves, 0] = Segment.type_code
        self.leaf_i[leaves, 1] = 2
        self.leaf_i[leaves, 2] = 4
        self.leaf_f[leaves] = 0.0
        self.leaf_f[leaves, 5:7] = np.minimum(p[:, :2], p[:, 2:])
        self.leaf_f[leaves, 7:9] = np.maximum(p[:, :2], p[:, 2:])
        # an order for two leaves of one kind at one position: from the edge's grid numbers
        e = edges.astype(np.int64)
        self.leaf_h[leaves] = (((e[:, 0] * 1_000_003 + e[:, 1]) * 1_000_003 + e[:, 2])
                               * 1_000_003 + e[:, 3]) * 4 + e[:, 4]

    def _write_index(self, tm: TileMap, edges: np.ndarray, first: int, cells: int,
                     starts_at: int) -> None:
        """The tiles' kinds (rows from the bottom) at ``cells``, then at ``starts_at`` each
        tile's list of edges: an edge is listed on the tiles on both sides of it."""
        rows, cols = tm.shape
        n = rows * cols
        self.cells[cells : cells + n] = np.flipud(tm.grid).ravel()
        tiles: list[np.ndarray] = []
        owners: list[np.ndarray] = []
        for k, (x0, y0, x1, y1, _) in enumerate(edges.tolist()):
            if y0 == y1:  # horizontal: the tiles below and above the line, columns x0 .. x1-1
                cs = np.arange(x0, x1)
                for r in (y0 - 1, y0):
                    if 0 <= r < rows:
                        tiles.append(r * cols + cs)
                        owners.append(np.full(len(cs), first + k))
            else:  # vertical: the tiles left and right of it, rows y0 .. y1-1
                rs = np.arange(y0, y1)
                for c in (x0 - 1, x0):
                    if 0 <= c < cols:
                        tiles.append(rs * cols + c)
                        owners.append(np.full(len(rs), first + k))
        tile = np.concatenate(tiles) if tiles else np.zeros(0, dtype=np.int64)
        owner = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)
        order = np.argsort(tile, kind="stable")
        counts = np.bincount(tile, minlength=n)
        entries = starts_at + n + 1
        self.cells[starts_at:entries] = entries + np.concatenate(([0], np.cumsum(counts)))
        self.cells[entries : entries + len(owner)] = owner[order]

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

    def _add_mask(self, mask: Mask, dx: float, dy: float, h: int) -> None:
        """A mask leaf: its packed rows appended to ``bits``; (MASK, width, height, first
        word, words per row) and (scale, centre, half extents, bounds)."""
        rows, words = mask.bits.shape
        at = self.nbits
        if at + rows * words > len(self.bits):
            self.version += 1
            new = np.zeros(max(at + rows * words, 2 * len(self.bits)), dtype=np.uint64)
            new[:at] = self.bits[:at]
            self.bits = new
        self.bits[at : at + rows * words] = mask.bits.ravel()
        self.nbits = at + rows * words
        i = self.leaves
        self._grow(i + 1, self.nverts, self.nfaces)
        w, hgt = mask.size
        x0, y0, x1, y1 = mask.bounds()
        ox, oy = mask.offset
        self.leaf_i[i] = (Mask.type_code, w, hgt, at, words)
        self.leaf_f[i] = (mask.scale, ox + dx, oy + dy, w * mask.scale / 2, hgt * mask.scale / 2,
                          x0 + dx, y0 + dy, x1 + dx, y1 + dy)
        self.leaf_h[i] = _key(h)
        self.leaves = i + 1

    def _add_leaf(self, shape: Shape, dx: float, dy: float, h: int) -> None:
        if isinstance(shape, Mask):
            self._add_mask(shape, dx, dy, h)
            return
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
