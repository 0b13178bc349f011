# A body buried in a tile map's solid tile (see tile_burial.pyx for the guarantees).

from .slide_context cimport Ctx


cdef bint out_of_tiles(Ctx* c, int r, int m) noexcept nogil
