# The C view of shapes: what every compiled geometry routine reads.
#
# Guarantees:
# - a shape is a range of *leaves* in a `ShapeStore` (ecsphys/geometry/shape_store.py): one
#   leaf for a Circle, Rect, OrientedRect, Segment or Polygon, one per part for a Compound
#   (the part's offset baked into its leaf);
# - a leaf's numbers are relative to its body's position, the shape's offset included:
#   circle centre (cx, cy) and radius; rect / oriented rect centre and half extents (hx, hy);
#   for every leaf but a circle its counter-clockwise vertices `v` (nv of them, x y pairs)
#   and faces `f` (nf of them: outward unit normal and support, nx ny s); a segment has 2
#   vertices and 4 faces (both normals, both directions); its bounds x0 y0 x1 y1; and `hash`,
#   which orders two leaves of one kind at one position (a same-kind pair is computed in one
#   canonical order, so swapping the arguments flips the result exactly);
# - a TILEMAP body is a group like a COMPOUND whose leaves are found by tile: `near_init` /
#   `near_next` give the leaves of any body that may lie within a box (every leaf of a
#   compound or a single shape; for a tile map those on the sides of the tiles the box
#   covers, possibly more than once: callers keep the best, so repeats do not matter);
#   `near_body` those that may meet another body, without the one-sided edges of a tile map
#   that body's centre is behind; a tile's leaves come in the order of its sides (bottom,
#   top, left, right), each side's edge once;
# - a tile map's index in `cells` (from its header leaf's LI_V0; its tile kinds from LI_F0,
#   a kind per tile, rows from the bottom) is its *unit index*: per grid point (up, col),
#   up 0 .. rows and col 0 .. cols, two entries, the slot (leaf less the map's first) of the
#   edge over the unit to the point's right (unit col of horizontal grid line up) and over
#   the unit above it (unit up of vertical line col), -1 for none: a tile's sides are its
#   lower-left point's two, the bottom of the point above and the left of the one to the
#   right (ecsphys/geometry/tile_edges.pyx keeps it);
# - a tile map with shaped kinds (slopes, half tiles) has a *shape table* in `cells` at its
#   header's LF_HX (-1.0: none): how many kinds, where its extra edges' entries are (`xat`:
#   per tile, the start of its list in `plist` or -1; a list: a count, then piece ids;
#   `pedge`: per piece its edge; `xpos`: per edge its slot, ecsphys/geometry/tile_extras.pyx),
#   then per kind, sorted: the kind, the leaf of its polygon around a tile's centre and its
#   side mask (ecsphys/geometry/tile_shapes.pxd). A tile's extra edges come after its four
#   sides; a point in a shaped tile's square but outside its polygon is not solid;
# - a `Store` holds raw pointers into the ShapeStore's NumPy arrays: valid while no shape is
#   added (no Python runs between taking it and the end of the compiled call).

from libc.stdint cimport int64_t, uint64_t

cdef enum:
    CIRCLE = 0
    RECT = 1
    ORECT = 2
    SEGMENT = 3
    POLYGON = 4
    COMPOUND = 5
    TILEMAP = 6          # a group of segment leaves indexed by tile (header leaf: first - 1)
    MASK = 7             # packed pixel rows: nv = width, nf = height, bits, words per row

# columns of ShapeStore.leaf_i (int32) and ShapeStore.leaf_f (float64), per leaf
cdef enum:
    LI_KIND = 0
    LI_NV = 1
    LI_NF = 2
    LI_V0 = 3
    LI_F0 = 4
    LI_STRIDE = 5
    LF_RADIUS = 0
    LF_CX = 1
    LF_CY = 2
    LF_HX = 3
    LF_HY = 4
    LF_X0 = 5
    LF_Y0 = 6
    LF_X1 = 7
    LF_Y1 = 8
    LF_STRIDE = 9

cdef struct Leaf:
    int kind
    int nv
    int nf
    const double* v     # nv * 2
    const double* f     # nf * 3
    double radius
    double cx
    double cy
    double hx
    double hy
    double x0
    double y0
    double x1
    double y1
    int64_t hash
    const uint64_t* bits  # a mask's packed rows (MASK leaves only)
    int words             # a mask's words per row

cdef struct Store:
    const int* li        # leaves * LI_STRIDE
    const double* lf     # leaves * LF_STRIDE
    const int64_t* lh    # leaves
    const double* verts  # vertices * 2
    const double* faces  # faces * 3
    const int* cells     # the tile maps' indexes (ShapeStore.cells)
    const uint64_t* bits # the masks' packed rows (ShapeStore.bits)

# A shape placed at a body position: leaves [first, first + count) of the store.
cdef struct Body:
    int first
    int count
    int kind             # the shape's kind (COMPOUND for a group)
    double px
    double py
    double x0            # bounds relative to (px, py)
    double y0
    double x1
    double y1
    int64_t hash

# The contact of two shapes: unit normal from the first to the second, depth (>= -tol:
# touching within tol counts), a world point on or between the touching boundaries.
cdef struct CContact:
    double nx
    double ny
    double depth
    double px
    double py

# How two shapes lie apart: distance (0 when touching), unit normal from a to b, closest
# world points on a and on b.
cdef struct CSeparation:
    double distance
    double nx
    double ny
    double ax
    double ay
    double bx
    double by

cdef inline Leaf leaf_at(const Store* s, int i) noexcept nogil:
    cdef Leaf out
    cdef const int* li = s.li + i * LI_STRIDE
    cdef const double* lf = s.lf + i * LF_STRIDE
    out.kind = li[LI_KIND]
    out.nv = li[LI_NV]
    out.nf = li[LI_NF]
    out.v = s.verts + 2 * li[LI_V0]
    out.f = s.faces + 3 * li[LI_F0]
    out.radius = lf[LF_RADIUS]
    out.cx = lf[LF_CX]
    out.cy = lf[LF_CY]
    out.hx = lf[LF_HX]
    out.hy = lf[LF_HY]
    out.x0 = lf[LF_X0]
    out.y0 = lf[LF_Y0]
    out.x1 = lf[LF_X1]
    out.y1 = lf[LF_Y1]
    out.hash = s.lh[i]
    out.bits = s.bits + li[LI_V0]
    out.words = li[LI_F0]
    return out

# A body made of one leaf of the store (a part of a compound, on its own).
cdef inline Body leaf_body(const Store* s, int i, double px, double py) noexcept nogil:
    cdef Body b
    cdef const double* lf = s.lf + i * LF_STRIDE
    b.first = i
    b.count = 1
    b.kind = s.li[i * LI_STRIDE + LI_KIND]
    b.px = px
    b.py = py
    b.x0 = lf[LF_X0]
    b.y0 = lf[LF_Y0]
    b.x1 = lf[LF_X1]
    b.y1 = lf[LF_Y1]
    b.hash = s.lh[i]
    return b

# The Store view of a Python ShapeStore (pointers into its arrays).
cdef Store store_of(object store) except *

# The Body of a Python shape at (px, py), its leaves interned in `store`.
cdef Body body_of(object store, object shape, double px, double py) except *

# For the public functions: shapes a at pos_a and b at pos_b interned in the public store
# into *ba and *bb, and the store's pointers. TypeError `"{what} X against Y"` unless both
# are shapes; positions must be (x, y) pairs.
cdef Store public_pair(object a, object pos_a, object b, object pos_b, Body* ba, Body* bb,
                       str what) except *

cdef inline bint is_group(int kind) noexcept nogil:
    """A body of several leaves (a compound or a tile map)."""
    return kind == COMPOUND or kind == TILEMAP

# The leaves of a body that may lie within a box (see the guarantees at the top).
cdef struct Near:
    int i                # a plain range: the next leaf, and the end
    int end
    bint tiled
    const int* units     # the tile map's unit index (see the guarantees at the top)
    int first            # the tile map's first leaf (slot 0)
    int cols
    int c0               # the tiles covered: columns c0 .. c1, rows r .. r1 (from the bottom)
    int c1
    int c
    int r
    int r1
    int k                # the current tile's leaves: first + e[k] .. first + e[kend - 1]
    int kend
    int e[4]
    const int* xat       # per tile, where its pieces are listed in xl (NULL: none)
    const int* xl
    const int* xedge     # per piece its edge, per edge its slot
    const int* xslot
    const int* xp        # the current tile's pieces: xp[0 .. xn - 1], xk taken
    int xn
    int xk
    bint facing          # skip the edges the viewer (vx, vy) is behind (`near_facing`)
    const int* li
    const double* faces
    double vx            # relative to the group's position
    double vy

cdef inline int _tile_of(double v, int n) noexcept nogil:
    """Tile index of a coordinate in tile units, clamped to 0 .. n - 1 (NaN: 0)."""
    if not v >= 0.0:
        return 0
    if v >= n - 1:
        return n - 1
    return <int> v

cdef inline void near_init(Near* it, const Store* s, const Body* b, double x0, double y0,
                           double x1, double y1) noexcept nogil:
    """Start the leaves of ``b`` that may lie within the world box ``x0 .. x1, y0 .. y1``."""
    cdef const int* li
    cdef const double* lf
    cdef double size, ox, oy
    cdef int rows
    it.tiled = b.kind == TILEMAP
    it.facing = False
    it.c = it.c0 = it.c1 = it.r = it.r1 = it.k = it.kend = it.cols = it.first = 0
    it.i = it.end = 0
    it.units = NULL
    it.xat = it.xl = it.xp = it.xedge = it.xslot = NULL
    it.xn = it.xk = 0
    it.li = NULL
    it.faces = NULL
    it.vx = it.vy = 0.0
    if not it.tiled:
        it.i = b.first
        it.end = b.first + b.count
        return
    li = s.li + (b.first - 1) * LI_STRIDE
    lf = s.lf + (b.first - 1) * LF_STRIDE
    size = lf[LF_RADIUS]
    ox = b.px + lf[LF_CX]
    oy = b.py + lf[LF_CY]
    it.cols = li[LI_NV]
    rows = li[LI_NF]
    it.units = s.cells + li[LI_V0]
    if lf[LF_HX] >= 0.0:  # shaped kinds: extra edges listed per tile
        it.xat = s.cells + s.cells[<int> lf[LF_HX] + 1]
        it.xl = s.cells + s.cells[<int> lf[LF_HX] + 2]
        it.xedge = s.cells + s.cells[<int> lf[LF_HX] + 3]
        it.xslot = s.cells + s.cells[<int> lf[LF_HX] + 4]
    it.first = b.first
    it.k = it.kend = 0
    x0 = (x0 - ox) / size
    x1 = (x1 - ox) / size
    y0 = (y0 - oy) / size
    y1 = (y1 - oy) / size
    if x1 < 0.0 or y1 < 0.0 or x0 > it.cols or y0 > rows:  # beyond the map
        it.r = 1
        it.r1 = 0
        return
    it.c0 = _tile_of(x0, it.cols)
    it.c1 = _tile_of(x1, it.cols)
    it.r = _tile_of(y0, rows)
    it.r1 = _tile_of(y1, rows)
    if not x1 >= x0 or not y1 >= y0:  # NaN: the whole map
        it.c0, it.c1, it.r, it.r1 = 0, it.cols - 1, 0, rows - 1
    it.c = it.c0 - 1

cdef inline void near_facing(Near* it, const Store* s, const Body* b, double cx,
                             double cy) noexcept nogil:
    """From now on skip the edges of tile map ``b`` that the world point (cx, cy) is behind
    (on their closed side, beyond rounding): a body centred there cannot meet them. Tile map
    edges are one-sided segments whose first face points to the open side."""
    if b.kind != TILEMAP:
        return
    it.facing = True
    it.li = s.li
    it.faces = s.faces
    it.vx = cx - b.px
    it.vy = cy - b.py

cdef inline void near_body(Near* it, const Store* s, const Body* group, const Body* other,
                           double grow) noexcept nogil:
    """The leaves of ``group`` that may meet ``other`` within ``grow``: near its box grown by
    ``grow``, without the tile map edges its centre is behind."""
    near_init(it, s, group, other.px + other.x0 - grow, other.py + other.y0 - grow,
              other.px + other.x1 + grow, other.py + other.y1 + grow)
    near_facing(it, s, group, other.px + (other.x0 + other.x1) * 0.5,
                other.py + (other.y0 + other.y1) * 0.5)

cdef inline int _near_raw(Near* it) noexcept nogil:
    cdef const int* p
    cdef int w, n
    if not it.tiled:
        if it.i < it.end:
            it.i += 1
            return it.i - 1
        return -1
    while it.k >= it.kend and it.xk >= it.xn:
        if it.r > it.r1:
            return -1
        it.c += 1
        if it.c > it.c1:
            it.c = it.c0
            it.r += 1
            if it.r > it.r1:
                return -1
        w = it.cols + 1
        p = it.units + 2 * (it.r * w + it.c)  # the tile's lower-left grid point
        n = 0
        if p[0] >= 0:  # bottom
            it.e[n] = p[0]
            n += 1
        if p[2 * w] >= 0:  # top: the bottom of the point above
            it.e[n] = p[2 * w]
            n += 1
        if p[1] >= 0:  # left
            it.e[n] = p[1]
            n += 1
        if p[3] >= 0:  # right: the left of the point to the right
            it.e[n] = p[3]
            n += 1
        it.k = 0
        it.kend = n
        it.xn = it.xk = 0
        if it.xat != NULL:
            n = it.xat[it.r * it.cols + it.c]
            if n >= 0:
                it.xp = it.xl + n + 1
                it.xn = it.xl[n]
    if it.k < it.kend:
        it.k += 1
        return it.first + it.e[it.k - 1]
    it.xk += 1
    return it.first + it.xslot[it.xedge[it.xp[it.xk - 1]]]

cdef inline int near_next(Near* it) noexcept nogil:
    """The next leaf index, or -1 when done."""
    cdef int i = _near_raw(it)
    cdef const double* f
    while it.facing and i >= 0:
        f = it.faces + 3 * it.li[i * LI_STRIDE + LI_F0]
        if f[0] * it.vx + f[1] * it.vy >= f[2] - 1e-9:
            return i
        i = _near_raw(it)
    return i

cdef inline int shape_leaf(const int* table, int kind, int* mask) noexcept nogil:
    """The leaf of a shaped kind's polygon in a shape table (see the guarantees at the top)
    and its side mask into *mask; -1 (and a square's mask) for a kind without a shape."""
    cdef int lo = 0, hi = table[0], mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if table[5 + 3 * mid] < kind:
            lo = mid + 1
        else:
            hi = mid
    if lo < table[0] and table[5 + 3 * lo] == kind:
        mask[0] = table[7 + 3 * lo]
        return table[6 + 3 * lo]
    mask[0] = 255
    return -1

cdef inline bint in_shape(const Store* s, int leaf, double x, double y) noexcept nogil:
    """The point (x, y), relative to a tile's centre, is in (or on) the polygon of leaf
    ``leaf`` (a shaped kind's, around the tile's centre)."""
    cdef const int* li = s.li + leaf * LI_STRIDE
    cdef const double* f = s.faces + 3 * li[LI_F0]
    cdef int k
    for k in range(li[LI_NF]):
        if f[3 * k] * x + f[3 * k + 1] * y > f[3 * k + 2] + 1e-12:
            return False
    return True

cdef inline int tile_kind_at(const Store* s, const Body* b, double x, double y) noexcept nogil:
    """The kind of the tile of tile map ``b`` under the world point (x, y): 0 for an empty
    tile or a point outside a shaped tile's polygon, -1 outside the map (a point on a shared
    side belongs to the tile above / right)."""
    cdef const int* li = s.li + (b.first - 1) * LI_STRIDE
    cdef const double* lf = s.lf + (b.first - 1) * LF_STRIDE
    cdef double u = (x - b.px - lf[LF_CX]) / lf[LF_RADIUS]
    cdef double v = (y - b.py - lf[LF_CY]) / lf[LF_RADIUS]
    cdef int cols = li[LI_NV]
    cdef int rows = li[LI_NF]
    cdef int kind, leaf, mask
    if not (u >= 0.0 and v >= 0.0 and u < cols and v < rows):
        return -1
    kind = s.cells[li[LI_F0] + (<int> v) * cols + (<int> u)]
    if kind > 0 and lf[LF_HX] >= 0.0:
        leaf = shape_leaf(s.cells + <int> lf[LF_HX], kind, &mask)
        if leaf >= 0 and not in_shape(s, leaf, (u - (<int> u) - 0.5) * lf[LF_RADIUS],
                                      (v - (<int> v) - 0.5) * lf[LF_RADIUS]):
            return 0
    return kind

# A tile map's grid as its header leaf says: tile (up, col) has its lower-left corner at
# (ox + col * size, oy + up * size) in the world, rows counted from the bottom (up); its
# square is leaf `square` placed at the tile's centre.
cdef struct TileGrid:
    double size
    double ox
    double oy
    int cols
    int rows
    const int* kind      # per tile (up * cols + col): 0 empty
    int square           # the leaf of one tile's square around the origin
    const int* table     # the shape table (NULL: every kind a square)
    const Store* store

cdef inline TileGrid tile_grid(const Store* s, const Body* b) noexcept nogil:
    """The grid of tile map ``b`` (placed at its body position)."""
    cdef const int* li = s.li + (b.first - 1) * LI_STRIDE
    cdef const double* lf = s.lf + (b.first - 1) * LF_STRIDE
    cdef TileGrid g
    g.size = lf[LF_RADIUS]
    g.ox = b.px + lf[LF_CX]
    g.oy = b.py + lf[LF_CY]
    g.cols = li[LI_NV]
    g.rows = li[LI_NF]
    g.kind = s.cells + li[LI_F0]
    g.square = b.first - 2
    g.table = s.cells + <int> lf[LF_HX] if lf[LF_HX] >= 0.0 else NULL
    g.store = s
    return g

cdef inline int tile_leaf(const TileGrid* g, int kind) noexcept nogil:
    """The leaf of a solid kind's shape around a tile's centre: its polygon, or the square."""
    cdef int mask, leaf
    if g.table == NULL:
        return g.square
    leaf = shape_leaf(g.table, kind, &mask)
    return g.square if leaf < 0 else leaf

cdef inline int tile_mask(const TileGrid* g, int kind) noexcept nogil:
    """A kind's side mask (tile_shapes.pxd): 0 empty, 255 a square."""
    cdef int mask = 255
    if kind <= 0:
        return 0
    if g.table != NULL:
        shape_leaf(g.table, kind, &mask)
    return mask

cdef inline int grid_tile(const TileGrid* g, double x, double y, int* u,
                          int* col) noexcept nogil:
    """The kind of grid g's tile under the world point (x, y) (0: empty), its row from the
    bottom and column into *u and *col; -1 outside the grid (a point on a shared side
    belongs to the tile above / right)."""
    cdef double fu = (y - g.oy) / g.size
    cdef double fx = (x - g.ox) / g.size
    cdef int kind, leaf, mask
    if not (fx >= 0.0 and fu >= 0.0 and fx < g.cols and fu < g.rows):
        return -1
    u[0] = <int> fu
    col[0] = <int> fx
    kind = g.kind[u[0] * g.cols + col[0]]
    if kind > 0 and g.table != NULL:
        leaf = shape_leaf(g.table, kind, &mask)
        if leaf >= 0 and not in_shape(g.store, leaf, (fx - col[0] - 0.5) * g.size,
                                      (fu - u[0] - 0.5) * g.size):
            return 0
    return kind

cdef inline bint tile_open(const TileGrid* g, int u, int col) noexcept nogil:
    """Tile (u, col) is solid and has an open side (an empty or outside neighbour; a shaped
    tile always has one, a square one where a shaped neighbour leaves its side uncovered)."""
    cdef const int* k = g.kind
    if k[u * g.cols + col] <= 0:
        return False
    if (u == 0 or u == g.rows - 1 or col == 0 or col == g.cols - 1
            or k[(u - 1) * g.cols + col] <= 0 or k[(u + 1) * g.cols + col] <= 0
            or k[u * g.cols + col - 1] <= 0 or k[u * g.cols + col + 1] <= 0):
        return True
    if g.table == NULL:
        return False
    return (tile_mask(g, k[u * g.cols + col]) != 255
            or not tile_mask(g, k[(u - 1) * g.cols + col]) & 2      # below: its top full
            or not tile_mask(g, k[(u + 1) * g.cols + col]) & 1      # above: its bottom
            or not tile_mask(g, k[u * g.cols + col - 1]) & 8        # left: its right
            or not tile_mask(g, k[u * g.cols + col + 1]) & 4)       # right: its left

cdef inline void tile_range(const TileGrid* g, double x0, double y0, double x1, double y1,
                            int* c0, int* c1, int* u0, int* u1) noexcept nogil:
    """The tiles a world box covers: columns c0 .. c1, rows (from the bottom) u0 .. u1; empty
    (c0 > c1) when the box is beyond the map."""
    x0 = (x0 - g.ox) / g.size
    x1 = (x1 - g.ox) / g.size
    y0 = (y0 - g.oy) / g.size
    y1 = (y1 - g.oy) / g.size
    if not (x1 >= 0.0 and y1 >= 0.0 and x0 <= g.cols and y0 <= g.rows):
        c0[0], c1[0], u0[0], u1[0] = 1, 0, 1, 0
        return
    c0[0] = _tile_of(x0, g.cols)
    c1[0] = _tile_of(x1, g.cols)
    u0[0] = _tile_of(y0, g.rows)
    u1[0] = _tile_of(y1, g.rows)


cdef extern from *:
    """
    /* geometry.contact.TOUCH_TOLERANCE (and ON_TOLERANCE, the same) for the inline routines
       of the .pxd files (impact, manifold, distance); impact.pyx refuses to import if they
       differ */
    #define ECSPHYS_TOUCH_TOLERANCE 1e-9
    """
    const double ECSPHYS_TOUCH_TOLERANCE
