# cython: embedsignature=True
"""Tile burial: a body whose centre is inside a solid tile leaves it the short way.

Guarantees (`out_of_tiles`, called by the push apart for a body and a tile map row):
- a body whose centre (of its box), or for a compound the centre of one of its parts' boxes,
  lies inside a solid tile (a tile was built on it, or it was placed there) moves out the
  short way by a side of that tile that is open (the tile beyond it empty, or outside the
  map) and where its box overlaps no solid tile, its box a skin beyond that side, and loses
  its velocity into the tiles (`momentum.impulse` against the map);
- it never leaves through other solid tiles, nor into them (a body resting on a floor when a
  tile is built on it goes up or sideways, never down through or into the floor); only a
  body with no such side goes to the nearest side of the nearest empty tile straight up,
  down, left or right where its box is clear (up to 64 tiles away), and one with none of
  those either to the nearest of them, clear or not;
- a part whose centre is outside the tiles is left to the tiles' edges (the contacts).
"""

from libc.math cimport INFINITY

from ..geometry.shape_data cimport (
    COMPOUND, LF_STRIDE, LF_X0, LF_X1, LF_Y0, LF_Y1, Body, TileGrid, grid_tile, tile_grid,
    tile_range,
)
from .momentum cimport impulse
from .slide_context cimport Ctx


cdef bint box_clear(const TileGrid* g, double x0, double y0, double x1, double y1) noexcept nogil:
    """No solid tile's square overlaps the box (shrunk by a hair: touching is clear); a box
    over more than 4,096 tiles counts as clear (the check would cost more than it saves)."""
    cdef double e = 1e-9 * g.size
    cdef int c0, c1, u0, u1, u, col
    tile_range(g, x0 + e, y0 + e, x1 - e, y1 - e, &c0, &c1, &u0, &u1)
    if c0 > c1 or u0 > u1:
        return True
    if (<long> (c1 - c0 + 1)) * (u1 - u0 + 1) > 4096:
        return True
    for u in range(u0, u1 + 1):
        for col in range(c0, c1 + 1):
            if g.kind[u * g.cols + col] > 0:
                return False
    return True


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
    short way by a side of that tile that is open (the tile beyond it empty, or outside the
    map) and where its box overlaps no solid tile, its box a skin beyond that side, and take
    away its velocity into the tiles. It never leaves through other solid tiles, nor into
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
    cdef int k, side, reach = 1, attempt
    cdef bint clear = True
    # an open side where the box is clear (reach 1), then beyond solid tiles where it is
    # clear (reach 64), then the nearest of those, clear or not
    for attempt in range(3):
        if best < INFINITY:
            break
        reach = 1 if attempt == 0 else 64
        clear = attempt < 2
        for side in range(4):
            for k in range(1, reach + 1):
                if side == 0:    # up
                    if u + k < g.rows and g.kind[(u + k) * g.cols + col] > 0:
                        continue
                    d = g.oy + (u + k) * g.size - (b.py + b.y0) + c.skin
                elif side == 1:  # down
                    if u - k >= 0 and g.kind[(u - k) * g.cols + col] > 0:
                        continue
                    d = (b.py + b.y1) - (g.oy + (u - k + 1) * g.size) + c.skin
                elif side == 2:  # left
                    if col - k >= 0 and g.kind[u * g.cols + col - k] > 0:
                        continue
                    d = (b.px + b.x1) - (g.ox + (col - k + 1) * g.size) + c.skin
                else:            # right
                    if col + k < g.cols and g.kind[u * g.cols + col + k] > 0:
                        continue
                    d = g.ox + (col + k) * g.size - (b.px + b.x0) + c.skin
                sx = -1.0 if side == 2 else (1.0 if side == 3 else 0.0)
                sy = 1.0 if side == 0 else (-1.0 if side == 1 else 0.0)
                if d < best and (not clear or box_clear(
                        &g, b.px + b.x0 + sx * d, b.py + b.y0 + sy * d,
                        b.px + b.x1 + sx * d, b.py + b.y1 + sy * d)):
                    best = d
                    bx = sx
                    by = sy
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
