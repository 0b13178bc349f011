# A tile map's extra edges: the outline around shaped tiles that is not whole grid units (a
# slope, a half tile's top, the open part of a partly covered side), kept tile by tile
# (compiled).
#
# Guarantees:
# - `prepare` (the map's kinds, rows from the bottom, and its shaped tiles) then `lay_out`
#   write every extra edge (tile_shapes.pyx: the pieces of the outline, joined along their
#   lines) as a one-sided segment leaf in the `xroom` slots after the map's main room, in the
#   pieces' order (by line, then along it), each free slot a copy of a live edge with no live
#   edge between the two (the nearest before it, or after it), so a routine that walks the
#   whole range and keeps the first of equal answers answers as over the edges alone; and,
#   in `cells`, per tile (`xat`: -1 or where its list is in `plist`) the list of its pieces
#   (a count, then piece ids, in the pieces' order), per piece its edge (`pedge`) and per
#   edge its slot less the map's first leaf (`xpos`): shape_data.pxd's `near_next` reads
#   them after a tile's four sides;
# - `mark(tile)` then `update(kinds)` take a change of the tile's kind: the pieces of the tiles
#   within two steps of a changed one (the only ones a change can alter) are made again,
#   and only those that differ are let go and added; the edges through them are joined
#   again by walking from piece to touching piece along their lines (no pass over the map or
#   its shaped tiles); an edge that changed goes to the slot its order asks for, moving at
#   most SHIFT neighbours; afterwards every reader sees what `lay_out` of the same tiles
#   shows (the same edges, leaves and order; only which free slots copy which edge, and the
#   ids, may differ). `update` answers False, and the map must be laid out again, when an
#   edge finds no free slot within SHIFT, or the ids or lists outgrow their room.
#
# Its growable buffers (`IntBuf`, `PieceBuf`) and the pieces' line order (`same_line`,
# `line_order`) are tile_shapes.pxd's inline helpers, the ones tile_shapes.pyx uses; its
# sorts of plain ints are state/int_sort.pxd's `sort_ints`.

cimport cython
from libc.math cimport fabs, floor, llround, sqrt
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc, qsort

from ..state.int_sort cimport sort_ints
from .tile_shapes cimport (
    IntBuf, Piece, PieceBuf, TileShapes, ipush, line_order, merge_pieces, piece_order,
    piece_push, same_line, write_segment,
)

cdef double EPS = 1e-9     # (tile units) as tile_shapes.pyx joins pieces
cdef double NEAR = 1e-7    # a point this close to a grid line touches the tiles on both sides

cdef enum:
    SHIFT = 32             # an edge with no free slot beside it moves at most this many


cdef void _unique(IntBuf* b) noexcept nogil:
    cdef Py_ssize_t i, m = 0
    sort_ints(b.p, b.n)
    for i in range(b.n):
        if m == 0 or b.p[m - 1] != b.p[i]:
            b.p[m] = b.p[i]
            m += 1
    b.n = m


cdef inline bint _same_piece(const Piece* a, const Piece* b) noexcept nogil:
    return (a.x0 == b.x0 and a.y0 == b.y0 and a.x1 == b.x1 and a.y1 == b.y1
            and same_line(a, b) and a.tile == b.tile)


cdef class TileExtras:
    """The extra edges of one tile map (see the module comment)."""

    def __cinit__(self, TileShapes shapes not None, int rows, int cols):
        self.shapes = shapes
        self.rows = rows
        self.cols = cols
        self.n = <Py_ssize_t> rows * cols

    def __dealloc__(self):
        free(self.pc)
        free(self.ec)
        free(self.eref)
        free(self.sl)
        free(self.seen)
        free(self.pfree.p)
        free(self.efree.p)
        free(self.owner.p)
        free(self.changed.p)
        free(self.origins.p)
        free(self.seeds.p)
        free(self.dirty.p)
        free(self.born.p)
        free(self.chain.p)
        free(self.touched.p)
        free(self.fresh.p)
        free(self.merged.p)
        free(self.gen.p)
        free(self.cand.p)
        free(self.gone.p)

    # ------------------------------------------------------------ the def layer

    @property
    def need(self) -> tuple[int, int, int]:
        """What the pieces `prepare` found need: ``(edges, pieces, list entries)``."""
        cdef Py_ssize_t tiles = 0, i
        cdef IntBuf t
        t.p = NULL
        t.n = t.cap = 0
        for i in range(self.fresh.n):
            self.oom |= not ipush(&t, self.fresh.p[i].tile)
        _unique(&t)
        tiles = t.n
        free(t.p)
        return (<int> self.merged.n, <int> self.fresh.n, <int> (self.fresh.n + tiles))

    def place(self, int xroom, int pcap, int ecap, int lcap, int xat, int plist, int pedge,
              int xpos) -> None:
        """Its room: ``xroom`` slots after the main room, ids for ``pcap`` pieces and ``ecap``
        edges, ``lcap`` list entries; where its entries go in ``cells``."""
        if self.xroom != xroom:
            free(self.sl)
            self.sl = <int*> malloc((xroom + 1) * sizeof(int))
        if self.pcap != pcap:
            free(self.pc)
            free(self.seen)
            self.pc = <Piece*> malloc((pcap + 1) * sizeof(Piece))
            self.seen = <int*> malloc((pcap + 1) * sizeof(int))
        if self.ecap != ecap:
            free(self.ec)
            free(self.eref)
            self.ec = <Piece*> malloc((ecap + 1) * sizeof(Piece))
            self.eref = <int*> malloc((ecap + 1) * sizeof(int))
        if self.sl == NULL or self.pc == NULL or self.seen == NULL or self.ec == NULL \
                or self.eref == NULL:
            raise MemoryError("TileExtras: out of memory")
        self.xroom, self.pcap, self.ecap, self.lcap = xroom, pcap, ecap, lcap
        self.xat, self.plist, self.pedge, self.xpos = xat, plist, pedge, xpos

    def slot_table(self) -> list[tuple[int, bool]]:
        """Per slot ``(edge id, live)`` (``(-1, False)`` while no extra edge is live): for
        tests of the slots' order and copies."""
        cdef int k, v
        out = []
        for k in range(self.xroom):
            v = self.sl[k]
            if v >= 0:
                out.append((v, True))
            else:
                out.append((-1 if v == -1 else -2 - v, False))
        return out

    # ------------------------------------------------------------ a layout

    cdef void bind(self, int* cells, double* lf, double* verts, double* faces, int64_t* lh,
                   int first, int room, int v0, int f0, double size, double ox,
                   double oy) noexcept:
        self.cells, self.lf, self.verts, self.faces, self.lh = cells, lf, verts, faces, lh
        self.first, self.room, self.v0, self.f0 = first, room, v0, f0
        self.size, self.ox, self.oy = size, ox, oy

    cdef void prepare(self, const int32_t* kinds, const int32_t* shaped,
                      Py_ssize_t nshaped) noexcept:
        """The pieces around the shaped tiles of ``kinds`` and their edges, for `need` and
        `lay_out`."""
        cdef Py_ssize_t i
        self.fresh.n = 0
        self.owner.n = 0
        self.changed.n = 0
        if not self.shapes.pieces(kinds, self.rows, self.cols, shaped, nshaped, &self.fresh):
            self.oom = True
            return
        for i in range(self.fresh.n):
            self.oom |= not ipush(&self.owner, 0)
        if self.oom or not merge_pieces(&self.fresh, &self.merged, <int32_t*> self.owner.p):
            self.oom = True

    cdef bint lay_out(self) noexcept:
        """Write what `prepare` found (see the module comment); False if it does not fit."""
        cdef Py_ssize_t i, j, k, P = self.fresh.n, E = self.merged.n
        cdef int s, last = -1, t, off = 0, count
        cdef IntBuf pairs
        cdef int64_t* tp
        if self.oom or E > self.xroom or P > self.pcap or E > self.ecap:
            return False
        for i in range(self.n):
            self.cells[self.xat + i] = -1
        self.pfree.n = 0
        for i in range(self.pcap - 1, P - 1, -1):
            self.oom |= not ipush(&self.pfree, <int> i)
        self.efree.n = 0
        for i in range(self.ecap - 1, E - 1, -1):
            self.oom |= not ipush(&self.efree, <int> i)
        for i in range(E):
            self.ec[i] = self.merged.p[i]
            self.eref[i] = 0
        for i in range(P):
            self.pc[i] = self.fresh.p[i]
            self.seen[i] = 0
            self.cells[self.pedge + i] = self.owner.p[i]
            self.eref[self.owner.p[i]] += 1
        # the tiles' lists: (tile, piece) pairs in order of tile, then piece
        tp = <int64_t*> malloc((P + 1) * sizeof(int64_t))
        if tp == NULL:
            self.oom = True
            return False
        for i in range(P):
            tp[i] = ((<int64_t> self.pc[i].tile) << 32) | i
        sort_ints(tp, P)
        i = 0
        while i < P:
            t = <int> (tp[i] >> 32)
            j = i
            while j < P and <int> (tp[j] >> 32) == t:
                j += 1
            count = <int> (j - i)
            if off + 1 + count > self.lcap:
                free(tp)
                return False
            self.cells[self.xat + t] = off
            self.cells[self.plist + off] = count
            for k in range(count):
                self.cells[self.plist + off + 1 + k] = <int> (tp[i + k] & 0xFFFFFFFF)
            off += 1 + count
            i = j
        free(tp)
        self.lused = off
        # the edges spread over the slots, each free slot a copy of the edge before it
        self.xlive = <int> E
        for s in range(self.xroom):
            self.sl[s] = -1
        for i in range(E):
            s = <int> ((i * self.xroom) // E)
            self.sl[s] = <int> i
            self.cells[self.xpos + i] = self.room + s
        if E > 0:
            for s in range(self.xroom):
                if self.sl[s] >= 0:
                    last = self.sl[s]
                else:
                    self.sl[s] = -2 - last
                self._write(s)
        self.clock = 0
        return not self.oom

    cdef void write_copy(self, int slot) noexcept:
        """Leaf ``first + slot`` (a main slot when the map has no main edge) as a copy of the
        first extra edge."""
        self._write_leaf(slot, &self.ec[self._edge_at(0)])

    # ------------------------------------------------------------ leaves

    cdef int _edge_at(self, int s) noexcept:
        """The edge slot s holds, or copies."""
        cdef int v = self.sl[s]
        return v if v >= 0 else -2 - v

    cdef void _write(self, int s) noexcept:
        self._write_leaf(self.room + s, &self.ec[self._edge_at(s)])

    cdef void _write_leaf(self, int slot, const Piece* q) noexcept:
        """Slot ``slot`` (leaf ``first + slot``) holds edge ``q``: a one-sided segment whose
        first face points to its open side, as tile_edges.pyx writes a grid line's."""
        cdef int i = self.first + slot
        cdef double* lf = self.lf + i * 9
        cdef double* v = self.verts + 2 * (self.v0 + 2 * slot)
        cdef double* f = self.faces + 3 * (self.f0 + 4 * slot)
        cdef double ax = q.x0 * self.size + self.ox
        cdef double ay = q.y0 * self.size + self.oy
        cdef double bx = q.x1 * self.size + self.ox
        cdef double by = q.y1 * self.size + self.oy
        write_segment(lf, v, f, ax, ay, bx, by,
                      sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay)))
        self.lh[i] = <int64_t> (((((<uint64_t> q.kx) * 1000003 + <uint64_t> q.ky) * 1000003
                                  + <uint64_t> q.kc) * 1000003)
                                + <uint64_t> llround(q.t0 * 1048576.0))

    # ------------------------------------------------------------ an update

    cdef void mark(self, int32_t tile) noexcept:
        """Tile ``tile`` (up * cols + col) changed kind: its neighbourhood is taken at the next
        `update`."""
        self.oom |= not ipush(&self.changed, tile)

    cdef bint pending(self) noexcept:
        return self.changed.n > 0

    cdef bint update(self, const int32_t* kinds) noexcept:
        """Take the tiles marked since (see the module comment); False: lay the map out
        again."""
        cdef Py_ssize_t i, j
        cdef int c, u, col, du, dc, e, s
        self.origins.n = self.seeds.n = self.dirty.n = self.born.n = self.touched.n = 0
        self.gone.n = 0
        for i in range(self.changed.n):  # the tiles within two steps of a changed one
            c = self.changed.p[i]
            u = c // self.cols
            col = c - u * self.cols
            for du in range(-2, 3):
                for dc in range(-2 + (du if du > 0 else -du), 3 - (du if du > 0 else -du)):
                    if 0 <= u + du < self.rows and 0 <= col + dc < self.cols:
                        self.oom |= not ipush(&self.origins, (u + du) * self.cols + col + dc)
        self.changed.n = 0
        _unique(&self.origins)
        for i in range(self.origins.n):
            if not self._retake(kinds, self.origins.p[i]):
                return False
        if self.oom:
            return False
        for i in range(self.gone.n):  # the pieces that touched one that went
            j = self._touching(&self.gone.p[i], True)
            if j >= 0:
                self.oom |= not ipush(&self.seeds, <int> j)
            j = self._touching(&self.gone.p[i], False)
            if j >= 0:
                self.oom |= not ipush(&self.seeds, <int> j)
        self.clock += 1
        for i in range(self.seeds.n):
            if not self._join(self.seeds.p[i]):
                return False
        _unique(&self.dirty)
        for i in range(self.dirty.n):  # edges left without a piece go
            e = self.dirty.p[i]
            if self.eref[e] == 0:
                self._remove(e)
                self.oom |= not ipush(&self.efree, e)
        for i in range(self.born.n):
            if not self._insert(self.born.p[i]):
                return False
        _unique(&self.touched)
        for i in range(self.touched.n):
            s = self.touched.p[i]
            if self.xlive > 0 and self.sl[s] != -1:
                self._write(s)
        return not self.oom

    cdef bint _retake(self, const int32_t* kinds, int x) noexcept:
        """Make tile x's pieces again; if they differ, let the old ones go (their edges are
        dirty, their neighbours seeds) and add the new ones (seeds)."""
        cdef int g, k, m, o, oldn, pid, e, i
        cdef int u = x // self.cols
        cdef int col = x - u * self.cols
        cdef int gens[5]
        cdef int ng = 0
        cdef bint same
        gens[0] = x
        ng = 1
        if u > 0:
            gens[ng] = x - self.cols
            ng += 1
        if u < self.rows - 1:
            gens[ng] = x + self.cols
            ng += 1
        if col > 0:
            gens[ng] = x - 1
            ng += 1
        if col < self.cols - 1:
            gens[ng] = x + 1
            ng += 1
        self.gen.n = 0
        for k in range(ng):
            g = gens[k]
            if self.shapes.find(kinds[g]) >= 0:
                if not self.shapes.pieces(kinds, self.rows, self.cols, <const int32_t*> &gens[k],
                                          1, &self.gen):
                    self.oom = True
                    return False
        self.cand.n = 0
        for k in range(self.gen.n):
            if self.gen.p[k].tile == x:
                self.oom |= not piece_push(&self.cand, &self.gen.p[k])
        if self.cand.n > 1:
            qsort(self.cand.p, self.cand.n, sizeof(Piece), piece_order)
        o = self.cells[self.xat + x]
        oldn = self.cells[self.plist + o] if o >= 0 else 0
        same = oldn == self.cand.n
        if same:
            for k in range(oldn):
                if not _same_piece(&self.pc[self.cells[self.plist + o + 1 + k]], &self.cand.p[k]):
                    same = False
                    break
        if same:
            return True
        for k in range(oldn):  # the old pieces go
            pid = self.cells[self.plist + o + 1 + k]
            self.oom |= not piece_push(&self.gone, &self.pc[pid])
            e = self.cells[self.pedge + pid]
            self.eref[e] -= 1
            self.oom |= not ipush(&self.dirty, e)
            self.oom |= not ipush(&self.pfree, pid)
        m = <int> self.cand.n
        if m == 0:
            self.cells[self.xat + x] = -1
            return True
        if not (o >= 0 and m <= oldn):  # a list of its own at the end
            if self.lused + 1 + m > self.lcap:
                return False
            o = self.lused
            self.lused += 1 + m
            self.cells[self.xat + x] = o
        self.cells[self.plist + o] = m
        for k in range(m):
            if self.pfree.n == 0:
                return False
            self.pfree.n -= 1
            pid = self.pfree.p[self.pfree.n]
            self.pc[pid] = self.cand.p[k]
            self.seen[pid] = 0
            self.cells[self.pedge + pid] = -1
            self.cells[self.plist + o + 1 + k] = pid
            self.oom |= not ipush(&self.seeds, pid)
        return True

    cdef int _touching(self, const Piece* p, bint before) noexcept:
        """The piece on p's line that ends where p starts (``before``), or starts where p
        ends; -1 if none."""
        cdef double x = p.x0 if before else p.x1
        cdef double y = p.y0 if before else p.y1
        cdef double t = p.t0 if before else p.t1
        cdef int c0 = <int> floor(x - NEAR), c1 = <int> floor(x + NEAR)
        cdef int u0 = <int> floor(y - NEAR), u1 = <int> floor(y + NEAR)
        cdef int u, c, o, k, pid
        cdef const Piece* q
        for u in range(u0, u1 + 1):
            if not 0 <= u < self.rows:
                continue
            for c in range(c0, c1 + 1):
                if not 0 <= c < self.cols:
                    continue
                o = self.cells[self.xat + u * self.cols + c]
                if o < 0:
                    continue
                for k in range(self.cells[self.plist + o]):
                    pid = self.cells[self.plist + o + 1 + k]
                    q = &self.pc[pid]
                    if not same_line(q, p):
                        continue
                    if before and fabs(q.t1 - t) <= EPS and q.t0 < p.t0:
                        return pid
                    if not before and fabs(q.t0 - t) <= EPS and q.t1 > p.t1:
                        return pid
        return -1

    cdef bint _join(self, int seed) noexcept:
        """The edge through piece ``seed``: walked back to its first piece and on to its last;
        a new edge for its pieces unless it is the one they have."""
        cdef int head = seed, p, k, e, same, steps = 0
        cdef Py_ssize_t i
        cdef Piece edge
        if self.seen[seed] == self.clock:
            return True
        p = self._touching(&self.pc[head], True)
        while p >= 0:
            head = p
            steps += 1
            if steps > self.pcap:  # (cannot happen: pieces of a line do not overlap)
                return False
            p = self._touching(&self.pc[head], True)
        self.chain.n = 0
        p = head
        while p >= 0:
            self.oom |= not ipush(&self.chain, p)
            self.seen[p] = self.clock
            if self.chain.n > self.pcap:
                return False
            p = self._touching(&self.pc[p], False)
        edge = self.pc[head]
        p = self.chain.p[self.chain.n - 1]
        edge.x1 = self.pc[p].x1
        edge.y1 = self.pc[p].y1
        edge.t1 = self.pc[p].t1
        e = self.cells[self.pedge + head]
        same = e >= 0 and self.eref[e] == self.chain.n
        if same:
            for i in range(self.chain.n):
                if self.cells[self.pedge + self.chain.p[i]] != e:
                    same = False
                    break
        if same and self.ec[e].t0 == edge.t0 and self.ec[e].t1 == edge.t1:
            return True
        if self.efree.n == 0:
            return False
        self.efree.n -= 1
        e = self.efree.p[self.efree.n]
        self.ec[e] = edge
        self.eref[e] = <int> self.chain.n
        for i in range(self.chain.n):
            p = self.chain.p[i]
            k = self.cells[self.pedge + p]
            if k >= 0:
                self.eref[k] -= 1
                self.oom |= not ipush(&self.dirty, k)
            self.cells[self.pedge + p] = e
        self.oom |= not ipush(&self.born, e)
        return True

    # ------------------------------------------------------------ slots

    cdef int _lower(self, const Piece* key) noexcept:
        """The first slot whose edge (or copy's edge) is not before ``key``."""
        cdef int lo = 0, hi = self.xroom, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if line_order(&self.ec[self._edge_at(mid)], key) < 0:
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef void _place(self, int s, int e) noexcept:
        self.sl[s] = e
        self.cells[self.xpos + e] = self.room + s
        self.oom |= not ipush(&self.touched, s)

    cdef bint _insert(self, int e) noexcept:
        """Edge e into the slot its order asks for (see the module comment)."""
        cdef int p, q, f, k, s
        if self.xlive == 0:  # the first: every slot copies it
            for s in range(self.xroom):
                self.sl[s] = -2 - e
                self.oom |= not ipush(&self.touched, s)
            self._place(0, e)
            self.xlive = 1
            return True
        p = self._lower(&self.ec[e])
        if p > 0 and self.sl[p - 1] < 0:  # a copy just before: it takes its place
            self._place(p - 1, e)
        elif p < self.xroom and self.sl[p] < 0:  # a copy of the edge after it
            self._place(p, e)
        else:
            q = p
            while q < self.xroom and q < p + SHIFT and self.sl[q] >= 0:
                q += 1
            if q < self.xroom and self.sl[q] < 0:  # the edges p .. q - 1 one slot on
                for k in range(q, p, -1):
                    self._place(k, self.sl[k - 1])
                self._place(p, e)
            else:
                f = p - 1
                while f >= 0 and f > p - 1 - SHIFT and self.sl[f] >= 0:
                    f -= 1
                if not (f >= 0 and self.sl[f] < 0):
                    return False
                for k in range(f, p - 1):  # the edges f + 1 .. p - 1 one slot back
                    self._place(k, self.sl[k + 1])
                self._place(p - 1, e)
        self.xlive += 1
        return True

    cdef void _remove(self, int e) noexcept:
        """Edge e leaves its slot: it, and the copies of it, copy the live edge before it
        (or, for the first, the one after it)."""
        cdef int s = self.cells[self.xpos + e] - self.room
        cdef int lo = s - 1, hi = s + 1, k, src
        while lo >= 0 and self.sl[lo] < 0:  # (the copies around it copy it or a neighbour)
            lo -= 1
        while hi < self.xroom and self.sl[hi] < 0:
            hi += 1
        src = self.sl[lo] if lo >= 0 else (self.sl[hi] if hi < self.xroom else -1)
        self.xlive -= 1
        if src < 0:  # no extra edge left
            for k in range(self.xroom):
                self.sl[k] = -1
            return
        for k in range(lo + 1, hi):
            if k == s or self.sl[k] == -2 - e:
                self.sl[k] = -2 - src
                self.oom |= not ipush(&self.touched, k)
