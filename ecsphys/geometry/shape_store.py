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
- a `TileMap` is its merged edges as one-sided segment leaves, preceded by a *header* leaf
  just before its range (``first - 1``: kind TILEMAP; columns, rows and the start of its cell
  index in ``cells``; tile size and origin) and one tile's square (``first - 2``), and
  indexed by grid unit: ``cells[base + 2 * (up * (columns + 1) + col)]`` and the entry after
  it are the slots (leaf less ``first``; -1 none) of the edges over the unit right of and the
  unit above grid point (up, col), rows counted from the bottom, so the leaves on the sides of
  a tile (bottom, top, left, right) and the leaves near a box are found from the few tiles it
  covers; the header's last column is where the tiles' kinds are in ``cells`` (``up *
  columns + col``, 0 empty);
- a map with shaped kinds (slopes, half tiles: ``TileMap.tile_shapes``) also has each kind's
  polygon around a tile's centre as a leaf, a shape table in ``cells`` (its place in the
  header's LF_HX, -1.0 without one) and, after its main slots, the slots of the edges that
  are not whole grid units, listed per tile (shape_data.pxd, tile_edges.pyx);
- a map's range has room for edges to come: its live edges in the order of a fresh layout,
  every other leaf a copy of a live edge with no live edge between the two, so a routine that
  walks the whole range and keeps the first of equal answers answers as over the edges alone;
  the count is 0 while no edge is left;
- a map whose tiles changed (``TileMap.version``) is taken tile by tile
  (``TileMap.changes_since``, compiled in ``tile_edges``): only the edges on the grid lines
  around the changed tiles, the leaves they move through and the index entries of the units
  along them are written again, and its range stays where it is, so every reader sees what a
  fresh layout of the same tiles shows it. It is laid out afresh when its edges outgrow their
  room or leave most of a large one unused (a new range), or when more than about a
  sixteenth of its tiles changed at once (in place);
- a `Mask` leaf keeps its packed rows in ``bits`` (its first word and words per row in the
  leaf: kind, width, height, first word, words per row; scale, centre, half extents);
- arrays only grow while shapes are added (``clear()`` empties the store); the compiled code
  holds raw pointers into them only for the length of one call.
- arrays of 1 MB or more (a big tile map's) are mapped on their own and backed by huge pages
  where the system has them (Linux), so the scattered writes of a dug tile do not each wait
  for a page-table walk; smaller ones are plain NumPy arrays.
"""

from __future__ import annotations

import mmap

import numpy as np

from ..mask import Mask
from ..shapes import Circle, Compound, Polygon, Rect, Shape
from ..tilemap import TileMap
from .tile_edges import TileEdges, index_size, room_fits

LI_STRIDE = 5  # kind, nv, nf, v0, f0
LF_STRIDE = 9  # radius, cx, cy, hx, hy, x0, y0, x1, y1
TILEMAP = 6  # the kind of a tile map's header leaf (shape_data.pxd)
_HASH_MASK = (1 << 63) - 1
#: arrays at least this big get a mapping of their own, backed by huge pages where the system
#: has them (``_zeros``)
_HUGE_BYTES = 1 << 20


def _zeros(shape: int | tuple[int, ...], dtype: type) -> np.ndarray:
    """A zeroed array; one of ``_HUGE_BYTES`` or more is mapped on its own and the system
    asked to back it with huge pages (Linux: ``MADV_HUGEPAGE``). A dug tile rewrites a few
    leaves at scattered places of a big map's range, and with small pages each place costs
    a walk of the page tables as well as the cache miss (the step right after a dig is
    when they are cold)."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape)) * dt.itemsize
    if n < _HUGE_BYTES or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.zeros(shape, dtype=dt)
    mapped = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)  # zero-filled
    mapped.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(mapped, dtype=dt).reshape(shape)  # (writable; the array keeps it)


class _MapRoom:
    """A tile map in the store: the map (kept, so its id, the key of ``ShapeStore._maps``, is
    not reused) and its compiled copy there (where it is, what it shows)."""

    __slots__ = ("tilemap", "edges")

    def __init__(self, tilemap: TileMap, edges: TileEdges) -> None:
        self.tilemap = tilemap
        self.edges = edges


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
        #: id of a tile map -> where it is: its changed tiles are written again in place
        self._maps: dict[int, _MapRoom] = {}

    def __len__(self) -> int:
        return len(self._ranges)

    def clear(self) -> None:
        """Forget every shape (ranges handed out before are no longer valid; the tile maps'
        compiled copies handed out by ``tile_edges`` are let go: their ``take`` answers
        None)."""
        self._ranges.clear()
        for room in self._maps.values():
            room.edges.detach()
        self._maps.clear()
        self.leaves = self.nverts = self.nfaces = self.ncells = self.nbits = 0

    def intern(self, shape: Shape) -> tuple[int, int, int]:
        """``(first, count, key)`` of ``shape`` (its leaf range and ordering hash), adding it
        if it is new.

        Raises ``TypeError`` for anything that is not a shape."""
        if isinstance(shape, TileMap):
            return self.take_tiles(shape)
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

    def take_tiles(self, tm: TileMap) -> tuple[int, int, int]:
        """The range of tile map ``tm`` (``intern(tm)`` without the look at what the shape
        is, for the step's refresh of its maps): its changed tiles taken in place (compiled,
        see ``tile_edges``), or the whole map laid out again (a fresh region for its leaves
        only when it outgrew its room, or left most of a large one unused). The same tuple as
        before while the range stays."""
        room = self._maps.get(id(tm))
        if room is not None:
            try:  # the changes since, from the map's log (None: too many, or no room)
                found = room.edges.take(self, tm._tiles)
            except BaseException:
                self.forget_tiles(tm)
                raise
            if found is not None:
                return found  # type: ignore[no-any-return]
        try:
            return self._lay_out(tm, room)
        except BaseException:
            self.forget_tiles(tm)
            raise

    def tile_edges(self, tm: TileMap) -> TileEdges | None:
        """The compiled copy of tile map ``tm`` the store holds (None if it holds none): its
        ``take(store, tm._tiles)`` is ``take_tiles`` without the look-up, until it answers
        None (lay the map out again with ``take_tiles``) or the store lets it go."""
        room = self._maps.get(id(tm))
        return None if room is None else room.edges

    def forget_tiles(self, tm: TileMap) -> None:
        """Let go of tile map ``tm``'s copy (after a take or a layout that raised): the map is
        laid out afresh when next asked for; the copy's ``take`` answers None."""
        room = self._maps.pop(id(tm), None)
        if room is not None:
            room.edges.detach()

    def _lay_out(self, tm: TileMap, room: _MapRoom | None) -> tuple[int, int, int]:
        """Lay the whole map out: in its room if the edges fit it (``room_fits``, and the
        extra edges of shaped tiles theirs), else in a fresh one."""
        rows, cols = tm.shape
        edges = room.edges if room is not None else TileEdges(rows, cols)
        table = tm._shape_table
        edges.set_shapes(table)
        count = edges.count_edges(tm.grid)
        if room is None:
            cells = self._reserve_cells(index_size(rows, cols))
        else:
            cells = edges.kinds
        fits = room is not None and room_fits(count, edges.room)
        extras = edges.extras
        xedges = xpieces = xentries = 0
        if extras is not None:
            xedges, xpieces, xentries = extras.need
            if fits and (xedges > extras.xroom or xpieces > extras.pcap
                         or xedges > extras.ecap or xentries > extras.lcap):
                fits = False
        if not fits:
            # a quarter more room than the edges need; twice what they need for a map that
            # outgrew its room (it is being dug into: its edges may keep growing)
            grows = room is not None and count > edges.room // 2
            slots = (2 * count if grows else count + count // 4) + 64
            xroom = 2 * xedges + 16 if extras is not None else 0
            square = self._reserve(slots + xroom + 2)
            self._write_square(tm, square)
            first = square + 2
            n = rows * cols
            self.leaf_i[square + 1] = (TILEMAP, cols, rows, cells + n, cells)
            x0, y0, x1, y1 = tm.bounds()
            shaped = -1.0
            if extras is not None:
                shaped = float(self._place_shapes(tm, edges, xroom, 2 * xpieces + 64,
                                                  2 * xedges + 64, 4 * xentries + 256))
            self.leaf_f[square + 1] = (tm.tile_size, *tm.origin, shaped, 0.0, x0, y0, x1, y1)
            self.leaf_h[square + 1] = 0
        else:
            first, slots = edges.first, edges.room
        edges.lay_out(self, tm.grid, first, slots, cells, tm.tile_size, *tm.origin)
        edges.version = tm.version
        edges.limit = rows * cols // 16 + 64  # (as many as the map's log keeps)
        self._maps[id(tm)] = _MapRoom(tm, edges)
        return edges.found  # type: ignore[no-any-return]

    def _place_shapes(self, tm: TileMap, edges: TileEdges, xroom: int, pcap: int, ecap: int,
                      lcap: int) -> int:
        """The shaped kinds' table of map ``tm`` in ``cells`` (returns where): how many
        kinds, where the extra edges' entries are (per tile, its list of pieces; the lists;
        per piece its edge; per edge its slot: tile_extras.pyx, placed there too), then per
        kind (sorted) its kind, the leaf of its polygon around a tile's centre and its side
        mask (shape_data.pxd reads it)."""
        rows, cols = tm.shape
        kinds = sorted(tm.tile_shapes)
        size = tm.tile_size
        table = tm._shape_table
        leaves = []
        for kind in kinds:  # (interned before the table: interning may grow the arrays)
            if table.side_mask(kind) == 255:
                continue  # (given as the whole square: a square)
            pts = [((x - 0.5) * size, (y - 0.5) * size) for x, y in tm.tile_shapes[kind]]
            leaves.append((kind, self.intern(Polygon(pts))[0]))
        at = self._reserve_cells(5 + 3 * len(leaves))
        xat = self._reserve_cells(rows * cols)
        plist = self._reserve_cells(lcap)
        pedge = self._reserve_cells(pcap)
        xpos = self._reserve_cells(ecap)
        out = [len(leaves), xat, plist, pedge, xpos]
        for kind, leaf in leaves:
            out += [kind, leaf, table.side_mask(kind)]
        self.cells[at : at + len(out)] = out
        edges.extras.place(xroom, pcap, ecap, lcap, xat, plist, pedge, xpos)
        return at

    def _reserve(self, leaves: int) -> int:
        """Room for ``leaves`` leaves (2 vertices and 4 faces each) at the end of the arrays;
        returns where it starts."""
        first = self.leaves
        self._grow(first + leaves, self.nverts + 2 * leaves, self.nfaces + 4 * leaves)
        # the leaves' vertex and face ranges are fixed: 2 and 4 per leaf, in order
        self.leaf_i[first : first + leaves, 3] = self.nverts + 2 * np.arange(leaves)
        self.leaf_i[first : first + leaves, 4] = self.nfaces + 4 * np.arange(leaves)
        self.leaves += leaves
        self.nverts += 2 * leaves
        self.nfaces += 4 * leaves
        return first

    def _reserve_cells(self, cells: int) -> int:
        """Room for ``cells`` index entries at the end of ``cells``; returns where."""
        at = self.ncells
        if at + cells > len(self.cells):
            self.version += 1
            new = _zeros(max(at + cells, 2 * len(self.cells)), dtype=np.intc)
            new[:at] = self.cells[:at]
            self.cells = new
        self.ncells += cells
        return at

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

    def _grow(self, leaves: int, verts: int, faces: int) -> None:
        self.version += 1  # arrays may be reallocated: compiled views must be taken again
        if leaves > len(self.leaf_i):
            cap = max(leaves, 2 * len(self.leaf_i))
            for name in ("leaf_i", "leaf_f", "leaf_h"):
                old = getattr(self, name)
                new = _zeros((cap, *old.shape[1:]), dtype=old.dtype)
                new[: self.leaves] = old[: self.leaves]
                setattr(self, name, new)
        for name, need, used in (("verts", verts, self.nverts), ("faces", faces, self.nfaces)):
            old = getattr(self, name)
            if need > len(old):
                new = _zeros((max(need, 2 * len(old)), old.shape[1]), dtype=old.dtype)
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
