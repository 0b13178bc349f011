# cython: embedsignature=True
"""Tile burial: a body whose centre is inside a solid tile leaves it the short way.

Guarantees (`out_of_tiles`, called by the push apart for a body and a tile map row):
- a body whose centre (of its box), or for a compound the centre of one of its parts' boxes,
  lies inside a solid tile (a tile was built on it, or it was placed there; in a shaped
  tile, inside its polygon) moves out the short way by a side of that tile that is open (the
  tile beyond it empty, shaped, or outside the map), or by a face of a shaped tile's polygon
  inside its square (a slope, a half tile's top: the short way out is along its normal),
  where its box overlaps no solid tile, its box a skin beyond that side or face, and loses
  its velocity into the tiles (`momentum.impulse` against the map). Whether a box overlaps a
  tile is asked of the tile's shape: its polygon for a shaped tile, else its square;
- it never leaves through other solid tiles, nor into them (a body resting on a floor when a
  tile is built on it goes up or sideways, never down through or into the floor); only a
  body with no such side goes to the nearest side of the nearest empty tile straight up,
  down, left or right where its box is clear (up to 64 tiles away), and one with none of
  those either to the nearest of them, clear or not;
- a part whose centre is outside the tiles is left to the tiles' edges (the contacts).
"""

from libc.math cimport INFINITY, fabs

from ..geometry.shape_data cimport (
    COMPOUND, LF_STRIDE, LF_X0, LF_X1, LF_Y0, LF_Y1, LI_F0, LI_NF, LI_STRIDE, Body, TileGrid,
    grid_tile, shape_leaf, tile_grid, tile_range,
)
from .momentum cimport impulse
from .slide_context cimport Ctx


cdef inline double _box_low(double nx, double ny, double x0, double y0, double x1,
                            double y1) noexcept nogil:
    """How far the box reaches against the direction (nx, ny): the least projection of its
    corners on it."""
    return nx * (x0 if nx > 0.0 else x1) + ny * (y0 if ny > 0.0 else y1)


cdef bint _polygon_clear(const TileGrid* g, int leaf, double cx, double cy, double x0,
                         double y0, double x1, double y1, double e) noexcept nogil:
    """The box does not overlap the polygon of leaf ``leaf`` placed at the tile centre
    (cx, cy) by more than ``e``: apart along one of the polygon's faces or the box's axes (the
    leaf's own bounds)."""
    cdef const double* lf = g.store.lf + leaf * LF_STRIDE
    cdef const int* li = g.store.li + leaf * LI_STRIDE
    cdef const double* f = g.store.faces + 3 * li[LI_F0]
    cdef int k
    if (cx + lf[LF_X1] <= x0 + e or x1 - e <= cx + lf[LF_X0]
            or cy + lf[LF_Y1] <= y0 + e or y1 - e <= cy + lf[LF_Y0]):
        return True
    for k in range(li[LI_NF]):
        if (_box_low(f[3 * k], f[3 * k + 1], x0, y0, x1, y1)
                >= f[3 * k + 2] + f[3 * k] * cx + f[3 * k + 1] * cy - e):
            return True
    return False


cdef bint box_clear(const TileGrid* g, double x0, double y0, double x1, double y1) noexcept nogil:
    """No solid tile overlaps the box (shrunk by a hair: touching is clear): its square, or
    for a shaped tile its polygon; a box over more than 4,096 tiles counts as clear (the
    check would cost more than it saves)."""
    cdef double e = 1e-9 * g.size
    cdef int c0, c1, u0, u1, u, col, kind, leaf, mask
    tile_range(g, x0 + e, y0 + e, x1 - e, y1 - e, &c0, &c1, &u0, &u1)
    if c0 > c1 or u0 > u1:
        return True
    if (<long> (c1 - c0 + 1)) * (u1 - u0 + 1) > 4096:
        return True
    for u in range(u0, u1 + 1):
        for col in range(c0, c1 + 1):
            kind = g.kind[u * g.cols + col]
            if kind <= 0:
                continue
            leaf = shape_leaf(g.table, kind, &mask) if g.table != NULL else -1
            if leaf < 0 or not _polygon_clear(
                    g, leaf, g.ox + (col + 0.5) * g.size, g.oy + (u + 0.5) * g.size,
                    x0, y0, x1, y1, e):
                return False
    return True


cdef inline int _kind_at(const TileGrid* g, int u, int col) noexcept nogil:
    """The kind of tile (u, col); 0 (empty) outside the map."""
    if u < 0 or u >= g.rows or col < 0 or col >= g.cols:
        return 0
    return g.kind[u * g.cols + col]


cdef inline bint _square_at(const TileGrid* g, int u, int col) noexcept nogil:
    """Tile (u, col) is a solid square (no way through it); outside the map, an empty tile
    and a shaped one (`box_clear` then asks its polygon) are not."""
    cdef int kind = _kind_at(g, u, col), mask
    if kind <= 0:
        return False
    return g.table == NULL or shape_leaf(g.table, kind, &mask) < 0


cdef void _out_by_faces(Ctx* c, const Body* b, const TileGrid* g, int u, int col,
                        double* best, double* bx, double* by) noexcept nogil:
    """The faces of tile (u, col)'s polygon inside its square (a slope, a half tile's top),
    if it has one, as ways out: the move along a face's normal that puts the box a skin
    beyond it, where the box is then clear, when shorter than *best (into *best, *bx, *by)."""
    if g.table == NULL:
        return
    cdef int mask
    cdef int leaf = shape_leaf(g.table, g.kind[u * g.cols + col], &mask)
    if leaf < 0:
        return
    cdef const int* li = g.store.li + leaf * LI_STRIDE
    cdef const double* f = g.store.faces + 3 * li[LI_F0]
    cdef double cx = g.ox + (col + 0.5) * g.size, cy = g.oy + (u + 0.5) * g.size
    cdef double half = 0.5 * g.size, e = 1e-9 * g.size
    cdef double x0 = b.px + b.x0, y0 = b.py + b.y0, x1 = b.px + b.x1, y1 = b.py + b.y1
    cdef double nx, ny, d
    cdef int k
    for k in range(li[LI_NF]):
        nx = f[3 * k]
        ny = f[3 * k + 1]
        if (nx == 0.0 or ny == 0.0) and fabs(f[3 * k + 2] - half) <= e:
            continue  # on the square's side: the sides' own ways out
        d = f[3 * k + 2] + nx * cx + ny * cy + c.skin - _box_low(nx, ny, x0, y0, x1, y1)
        if d < best[0] and box_clear(g, x0 + nx * d, y0 + ny * d, x1 + nx * d, y1 + ny * d):
            best[0] = d
            bx[0] = nx
            by[0] = ny


cdef bint buried_tile(const Ctx* c, const Body* b, const TileGrid* g, int* u, int* col
                      ) noexcept nogil:
    """Body b's centre (of its box) lies in a solid tile of grid g, or, for a compound, the
    centre of one of its parts' boxes does (a dumbbell with one ball built over): that tile
    into *u and *col. A part whose centre is outside the tiles meets their edges instead."""
    cdef int i
    cdef const double* lf
    if grid_tile(g, b.px + (b.x0 + b.x1) * 0.5, b.py + (b.y0 + b.y1) * 0.5, u, col) > 0:
        return True
    if b.kind != COMPOUND:
        return False
    for i in range(b.first, b.first + b.count):
        lf = c.store.lf + i * LF_STRIDE
        if grid_tile(g, b.px + (lf[LF_X0] + lf[LF_X1]) * 0.5,
                     b.py + (lf[LF_Y0] + lf[LF_Y1]) * 0.5, u, col) > 0:
            return True
    return False


cdef bint out_of_tiles(Ctx* c, int r, int m) noexcept nogil:
    """Row r's centre, or the centre of one of its parts, is inside a solid tile of tile map
    row m (a tile was built on it, or it was placed there; `buried_tile`): move it out the
    short way by a side of that tile that is open (the tile beyond it empty, shaped, or
    outside the map) or a face of its polygon inside its square (`_out_by_faces`), where its
    box overlaps no solid tile (`box_clear`), its box a skin beyond that side or face, and
    take away its velocity into the tiles. It never leaves through other solid tiles, nor into
    them (a body resting on a floor when a tile is built on it goes up or sideways, never
    down through or into the floor); only a body with no such side goes to the nearest side
    of the nearest empty tile straight up, down, left or right where its box is clear (up to
    64 tiles away), and one with none of those either to the nearest of them, clear or
    not."""
    cdef Body* b = &c.body[r]
    cdef TileGrid g = tile_grid(&c.store, &c.body[m])
    cdef int u = 0, col = 0
    if not buried_tile(c, b, &g, &u, &col):
        return False
    cdef double best = INFINITY, d = 0.0, nx = 0.0, ny = 0.0, bx = 0.0, by = 0.0
    cdef double sx, sy
    cdef int k, side, reach = 1, attempt, tu, tc
    cdef bint clear = True, fits
    # a face of a shaped tile's polygon or an open side where the box is clear (reach 1),
    # then beyond solid tiles where it is clear (reach 64), then the nearest of those, clear
    # or not
    _out_by_faces(c, b, &g, u, col, &best, &bx, &by)
    for attempt in range(3):
        if attempt and best < INFINITY:
            break
        reach = 1 if attempt == 0 else 64
        clear = attempt < 2
        for side in range(4):
            sx = -1.0 if side == 2 else (1.0 if side == 3 else 0.0)
            sy = 1.0 if side == 0 else (-1.0 if side == 1 else 0.0)
            for k in range(1, reach + 1):
                tu = u + k * <int> sy
                tc = col + k * <int> sx
                if _square_at(&g, tu, tc):
                    continue
                if side == 0:    # up
                    d = g.oy + (u + k) * g.size - (b.py + b.y0) + c.skin
                elif side == 1:  # down
                    d = (b.py + b.y1) - (g.oy + (u - k + 1) * g.size) + c.skin
                elif side == 2:  # left
                    d = (b.px + b.x1) - (g.ox + (col - k + 1) * g.size) + c.skin
                else:            # right
                    d = g.ox + (col + k) * g.size - (b.px + b.x0) + c.skin
                fits = not clear or box_clear(&g, b.px + b.x0 + sx * d, b.py + b.y0 + sy * d,
                                              b.px + b.x1 + sx * d, b.py + b.y1 + sy * d)
                if fits and d < best:
                    best = d
                    bx = sx
                    by = sy
                # an empty tile (or the map's edge) ends the side's search; a shaped tile
                # the box does not fit beside goes on to the tile beyond it
                if fits or _kind_at(&g, tu, tc) <= 0:
                    break
    if best == INFINITY:
        return False
    b.px += bx * best
    b.py += by * best
    # the velocity into the tiles goes (the normal from the body to the map is -(bx, by))
    nx = -bx
    ny = -by
    if r < m:
        impulse(c, r, m, nx, ny)
    else:
        impulse(c, m, r, -nx, -ny)
    return True
