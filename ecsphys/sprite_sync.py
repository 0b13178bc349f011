"""Sprites that follow bodies: each entity's pyglet sprite drawn where its body is.

Guarantees:
- every entity holding a `BodySprite` that is a body of the `Physics` has its sprite placed,
  at each ``update()``, at the body's interpolated position (``physics.alpha``: what
  ``physics.interpolated_position`` answers) plus the component's ``offset``, mapped to the
  screen by ``screen = world * scale + offset``, the debug view's transform (a `SpriteSync`
  and a `DebugDraw` given the same ``scale`` and ``offset`` line up to the pixel);
- the point of the sprite's image that sits there is its *anchor*: the image's centre by
  default (whatever the image's own ``anchor_x`` / ``anchor_y``), or a pixel of the image
  counted from its bottom-left corner; the sprite's own ``scale`` is kept and honoured;
- where the body's shape is an `OrientedRect` the sprite is turned by its angle about the
  anchor (ecsphys turns counter-clockwise, pyglet clockwise: ``rotation = -angle``); other
  sprites keep the rotation the game gives them, turned about the anchor too;
- after every ``update()`` the sprites drawn are exactly those of the living bodies holding
  a `BodySprite`, whatever the order of creates, deletes and updates before it: a
  BodySprite hides its sprite when it is made, and only a sync placing it on its body shows
  it again, so a body made and deleted before any update saw it is never drawn; an entity
  awaiting a deferred ``delete_entity`` is hidden at once; a sprite whose entity is not a
  body (not adopted yet, or no Position) is hidden until it is one. The sync shows only what
  it or a BodySprite hid: a sprite the game hides (``visible = False``) before making its
  BodySprite, or while it is drawn, stays hidden;
- a `BodySprite` owns its sprite: when it leaves (its entity deleted, the component removed
  or replaced by one with another sprite, or the world cleared with ``clear_database``,
  which hands the old entities' ids to new ones) the next ``update()`` deletes the pyglet
  sprite, so nothing leaks; the sprite of a BodySprite no sync saw stays hidden, and pyglet
  frees it with the sprite;
- cost: the positions come from one NumPy pass over the body table's ``prev_pos`` / ``pos``
  columns and are written straight into the batch's vertex data, one NumPy write per vertex
  domain (per texture): no Python call per sprite per frame; a frame in which nothing moved
  writes nothing. Whether a sprite got new vertex data (another image, group or batch, or
  deleted) is known without looking at the sprites: the domains' allocators, made watched
  ones, log the starts they free or move, and only the sprites at those starts are looked
  at. A change costs the sprites it touches, not the sprites: each domain's sprites are kept
  slot by slot (one joins at the end, one leaves by swap-remove, an entity -> slot dict),
  and after a layout change of the body table one NumPy compare finds the sprites whose row
  moved (a few NumPy passes over the run, no Python per sprite); a frame with one spawn
  and one delete costs less than two quiet ones (``benchmarks/bench_sprite_churn.py``). At a
  layout change the oriented rects' angles are read again (a Python look per oriented rect)
  and the sprites waiting for their body are looked at again;
- the sync owns the sprites' vertex positions (and rotations, for oriented rects): a game's
  write to them is put right at the next update (``z``, the depth, is the game's and kept);
  the Python-side ``sprite.x``, ``sprite.y``, ``sprite.position`` (and ``rotation``) keep what
  the game last set, not where the sprite is drawn (ask ``screen_position(entity)``). A
  sprite whose vertex data is not laid out as pyglet 2.1's sprite shader has it (a custom
  shader program) is placed through the Sprite API instead, a Python call each, and keeps
  those attributes true.

This module imports pyglet; the core never does.
"""

from __future__ import annotations

import ctypes
import math
import operator
import weakref
from typing import Any

import esper
import numpy as np
import pyglet
from pyglet.graphics.allocation import Allocator

from .limits import MAX_SIZE, check_bool, check_positive, check_vec
from .physics import ESPER_LOCK, Physics
from .shapes import OrientedRect
from .systems.adopt import WatchedSet

_VL = operator.attrgetter("_vertex_list")
_START = operator.attrgetter("start")
_DOMAIN = operator.attrgetter("domain")
_ORIENTED = OrientedRect.type_code
#: the per-vertex attributes of pyglet's sprite shader the fast path writes or reads, with
#: their float counts
_LAYOUT = {"translate": 3, "rotation": 1, "position": 3, "scale": 2}
_CORNERS = np.arange(4)
_FIRST = operator.itemgetter(0)


class BodySprite:
    """The component that draws an entity with a pyglet sprite at its body's position.

    Parameters:
        sprite: the ``pyglet.sprite.Sprite`` (in the batch the game draws); the component
            owns it: the sync deletes it when the component or its entity goes. Making the
            component hides the sprite until a sync places it on its body.
        anchor: the point of the image that sits on the body: ``"center"`` (default) or an
            ``(x, y)`` pixel of the image from its bottom-left corner, before the sprite's
            scale (``(w / 2, 0)``: the bottom middle, for a character's feet).
        offset: where that point sits relative to the body's position, in world units (not
            turned with the body).
    """

    __slots__ = ("_sprite", "_anchor", "_offset")

    def __init__(self, sprite: pyglet.sprite.Sprite, anchor: str | tuple[float, float] = "center",
                 offset: tuple[float, float] = (0.0, 0.0)) -> None:
        if not isinstance(sprite, pyglet.sprite.Sprite):
            raise TypeError(f"BodySprite.sprite must be a pyglet.sprite.Sprite, got {sprite!r}")
        if isinstance(anchor, str):
            if anchor != "center":
                raise ValueError(f"BodySprite.anchor must be 'center' or an (x, y) pixel, "
                                 f"got {anchor!r}")
            self._anchor: str | tuple[float, float] = anchor
        else:
            self._anchor = check_vec("BodySprite.anchor", anchor, MAX_SIZE)
        self._offset = check_vec("BodySprite.offset", offset, MAX_SIZE)
        self._sprite = sprite
        # hidden until a sync places it on its body (shown then): a sprite whose entity goes
        # before any sync saw it is never drawn where no body is
        _veil(sprite)

    @property
    def sprite(self) -> pyglet.sprite.Sprite:
        """The sprite (read-only: give the entity a new BodySprite to draw it with another;
        change the sprite's image, colour or scale freely)."""
        return self._sprite

    @property
    def anchor(self) -> str | tuple[float, float]:
        """``"center"`` or the image pixel that sits on the body (read-only)."""
        return self._anchor

    @property
    def offset(self) -> tuple[float, float]:
        """Where the anchor sits relative to the body, in world units (read-only)."""
        return self._offset

    def __repr__(self) -> str:
        extra = "" if self.anchor == "center" else f", anchor={self.anchor!r}"
        extra += "" if self.offset == (0.0, 0.0) else f", offset={self.offset!r}"
        return f"BodySprite({self.sprite!r}{extra})"


def _float_view(buffer: Any, count: int) -> np.ndarray:
    """A buffer's CPU-side store as an ``(n, count)`` float32 array (no copy)."""
    return np.frombuffer(buffer.data, dtype=np.float32).reshape(-1, count)


def _fast_buffers(domain: Any) -> dict[str, Any] | None:
    """The domain's attribute buffers of the sprite shader if the fast path can write them
    (CPU-backed float arrays of the expected widths), else None."""
    try:
        buffers = {name: domain.attrib_name_buffers[name] for name in _LAYOUT}
        for name, count in _LAYOUT.items():
            buf = buffers[name]
            if buf.c_type is not ctypes.c_float or buf.count != count \
                    or buf.stride != 4 * count or not isinstance(buf.data_ptr, int) \
                    or not callable(getattr(buf, "invalidate_region", None)):
                return None
            _float_view(buf, count)
        return buffers
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


class _WatchedAllocator(Allocator):
    """A vertex domain's allocator that notes the starts of the vertex lists it frees or
    moves in the logs of the runs watching it (``watchers``: run id -> log): pyglet gives a
    sprite new vertex data (a new texture, group or batch, or deleted) only by freeing its
    old vertex list, so a run whose log holds none of its starts holds its sprites where
    they were."""

    __slots__ = ("watchers",)

    def realloc(self, start: int, size: int, new_size: int) -> int:
        for log in self.watchers.values():
            log.append(start)
        return super().realloc(start, size, new_size)

    def dealloc(self, start: int, size: int) -> None:
        for log in self.watchers.values():
            log.append(start)
        super().dealloc(start, size)


def _watch(domain: Any) -> _WatchedAllocator | None:
    """The domain's allocator, made a watched one (same state) if it is pyglet's own; None
    if it is something else (then the sprites are checked one by one every frame)."""
    found = domain.allocator
    if isinstance(found, _WatchedAllocator):
        return found
    if type(found) is not Allocator:
        return None
    watched = _WatchedAllocator(found.capacity)
    watched.starts, watched.sizes, watched.watchers = found.starts, found.sizes, {}
    domain.allocator = watched
    return watched


#: a run's per-sprite columns: NumPy dtype and the shape of one sprite's entry
_COLUMNS: dict[str, tuple[Any, tuple[int, ...]]] = {
    "ents": (np.int64, ()), "rows": (np.intp, ()), "first": (np.intp, ()),
    "verts": (np.intp, (4,)), "offsets": (np.float64, (2,)), "anchors": (np.float64, (2,)),
    "centred": (np.bool_, ()), "oriented": (np.bool_, ()), "angles": (np.float64, ()),
    "lever": (np.float64, (2,)),
}
_IOTA = np.arange(1 << 16, dtype=np.intp)  # 0, 1, 2, ... (grown when a table outgrows it)


def _iota(n: int) -> np.ndarray:
    """``0 .. n-1``, a view of one kept array (no allocation per call)."""
    global _IOTA
    if n > len(_IOTA):
        _IOTA = np.arange(2 * n, dtype=np.intp)
    return _IOTA[:n]


class _Run:
    """The sprites of one vertex domain (one texture), placed by one NumPy write (or, with
    ``buffers`` None, one Sprite API call each: the slow path).

    Kept slot by slot: slot ``i < n`` of every column is one sprite (its entity, table row,
    first vertex ``first`` and all four ``verts``, offset, anchor, turn); a sprite joins at
    the end and leaves by swap-remove (the last slot moves into its place), so a change
    costs the sprites it touches, not the run; many at once join by one NumPy fill and
    leave by one compaction. ``slot_of``: entity -> slot; ``slot_at``: first vertex ->
    entity (to read the allocator's log of freed starts); ``span``: the rows as a slice of
    the table when they are one, in slot order. Kept between frames: ``lever``, each
    sprite's translation from its anchor to where pyglet puts the image's own anchor, made
    from the vertex data (image corners, scale, rotation) as it was in ``shape`` (byte
    copies of the span ``lo`` .. ``hi`` of the run's vertices: a change there recomputes
    the levers of the sprites whose vertices changed; the slots from ``stale`` on joined
    since the last write and get theirs made), and ``placed``, the span of translations as
    last written with ``xy``: a frame in which no sprite moved, turned, rescaled or was
    written by the game writes nothing.
    """

    def __init__(self, domain: Any, buffers: dict[str, Any] | None) -> None:
        self.domain = domain
        self.buffers = buffers
        self.allocator = _watch(domain)
        self.freed: list[int] = []  # starts the domain freed or moved since the last look
        if self.allocator is not None:
            self.allocator.watchers[id(self)] = self.freed
        self.n = 0
        self.comps: list[BodySprite] = []
        self.sprites: list[pyglet.sprite.Sprite] = []
        self.vls: list[Any] = []
        self.slot_of: dict[int, int] = {}
        self.slot_at: dict[int, int] = {}
        for name, (dtype, shape) in _COLUMNS.items():
            setattr(self, name, np.zeros((16, *shape), dtype=dtype))
        self.dirty = True  # span / turned to work out again
        self.stale = -1  # the slots from here on need their lever (-1: none)
        self.bounds = False  # lo / hi to work out again (a sprite at an end left)
        self.n_turned = 0  # how many sprites stand on oriented rects
        self.lo = self.hi = 0
        self.span: slice | None = None  # the rows, when they are a run of the table
        self.span_ok = True  # whether ``span`` is true of the rows now
        self.turned = np.zeros(0, dtype=np.intp)
        self.turned_verts = np.zeros(0, dtype=np.intp)
        self.shape: tuple[bytes | None, ...] = ()
        self.shape_lo = 0
        self.placed: bytes | None = None
        self.xy: bytes | None = None

    def unwatch(self) -> None:
        """Stop reading the domain's freed starts (the run is dropped)."""
        if self.allocator is not None:
            self.allocator.watchers.pop(id(self), None)

    # ------------------------------------------------------------ slots

    def _reserve(self, n: int) -> None:
        """Room for ``n`` sprites in every column."""
        size = len(self.ents)
        if n <= size:
            return
        while size < n:
            size *= 2
        for name in _COLUMNS:
            old = getattr(self, name)
            new = np.zeros((size, *old.shape[1:]), dtype=old.dtype)
            new[:self.n] = old[:self.n]
            setattr(self, name, new)

    def add(self, entity: int, comp: BodySprite, vl: Any, row: int, table: Any) -> None:
        """A sprite joins at the end (its lever is made at the next write)."""
        i = self.n
        self._reserve(i + 1)
        oriented = bool(table.shape_code[row] == _ORIENTED)
        angle = table.shapes[row].angle if oriented else 0.0
        start = vl.start
        self.ents[i] = entity
        self.rows[i] = row
        self.first[i] = start
        self.verts[i] = _CORNERS + start
        self.offsets[i] = comp.offset
        centred = comp.anchor == "center"
        self.centred[i] = centred
        self.anchors[i] = (0.0, 0.0) if centred else comp.anchor
        self.oriented[i] = oriented
        self.angles[i] = angle
        if self.stale < 0:
            self.stale = i
        span = self.span
        if i == 0:
            self.lo, self.hi, self.bounds = start, start + 4, False
            self.span, self.span_ok = slice(row, row + 1), True
        else:
            if self.span_ok and span is not None and row == span.stop \
                    and i == span.stop - span.start:  # the table's next row: still a run
                self.span = slice(span.start, row + 1)
            else:
                self.span_ok = False
            self.lo, self.hi = min(self.lo, start), max(self.hi, start + 4)
        self.n_turned += oriented
        self.comps.append(comp)
        self.sprites.append(comp.sprite)
        self.vls.append(vl)
        self.slot_of[entity] = i
        self.slot_at[start] = entity
        self.n = i + 1
        self.dirty = True

    def unveil(self, sprites: list[pyglet.sprite.Sprite]) -> None:
        """Show again those of ``sprites`` a BodySprite or a sync hid: what ``visible = True``
        does (the image's corners written into the vertex data), in one NumPy write when
        the run's vertex data is laid out as the sprite shader's."""
        veiled = [s for s in sprites if s in _VEILED]
        for sprite in veiled:
            _VEILED.discard(sprite)
        if self.buffers is None or len(veiled) < 16:
            for sprite in veiled:
                sprite.visible = True
            return
        corners = []
        for sprite in veiled:
            sprite._visible = True
            corners.append(sprite._get_vertices())
        starts = np.array([s._vertex_list.start for s in veiled], dtype=np.intp)
        buf = self.buffers["position"]
        _float_view(buf, 3)[(starts[:, None] + _CORNERS).ravel()] = \
            np.array(corners, dtype=np.float32).reshape(-1, 3)
        lo = int(starts.min())
        buf.invalidate_region(lo, int(starts.max()) + 4 - lo)

    def add_many(self, joining: list[tuple[int, int, BodySprite, Any]], table: Any) -> None:
        """Sprites join at the end, ``(row, entity, component, vertex list)`` each, in that
        order (a level loaded: NumPy fills the columns)."""
        i, k = self.n, len(joining)
        self._reserve(i + k)
        rows = [j[0] for j in joining]
        ents = [j[1] for j in joining]
        comps = [j[2] for j in joining]
        vls = [j[3] for j in joining]
        starts = list(map(_START, vls))
        end = i + k
        self.ents[i:end] = ents
        self.rows[i:end] = rows
        self.first[i:end] = starts
        self.verts[i:end] = self.first[i:end, None] + _CORNERS
        self.offsets[i:end] = [c.offset for c in comps]
        centred = [c.anchor == "center" for c in comps]
        self.centred[i:end] = centred
        self.anchors[i:end] = [(0.0, 0.0) if c else comp.anchor
                               for c, comp in zip(centred, comps, strict=True)]
        oriented = table.shape_code[self.rows[i:end]] == _ORIENTED
        self.oriented[i:end] = oriented
        self.angles[i:end] = 0.0
        turned = np.flatnonzero(oriented)
        if len(turned):
            shapes = table.shapes
            self.angles[i + turned] = [shapes[r].angle for r in self.rows[i + turned].tolist()]
        self.n_turned += len(turned)
        if self.stale < 0:
            self.stale = i
        first = self.first[i:end]
        lo, hi = int(first.min()), int(first.max()) + 4
        self.lo, self.hi = (lo, hi) if i == 0 else (min(self.lo, lo), max(self.hi, hi))
        self.bounds = self.bounds and i > 0
        self.span_ok = False
        self.comps.extend(comps)
        self.sprites.extend(c.sprite for c in comps)
        self.vls.extend(vls)
        self.slot_of.update(zip(ents, range(i, end), strict=True))
        self.slot_at.update(zip(starts, ents, strict=True))
        self.n = end
        self.dirty = True

    def remove(self, entity: int) -> None:
        """A sprite leaves: the last slot moves into its place."""
        i = self.slot_of.pop(entity)
        start = int(self.first[i])
        if self.slot_at.get(start) == entity:
            del self.slot_at[start]
        if start == self.lo or start + 4 == self.hi:
            self.bounds = True
        self.n_turned -= bool(self.oriented[i])
        span = self.span
        if self.span_ok and span is not None and i == self.n - 1 \
                and int(self.rows[i]) == span.stop - 1:  # the last row left: still a run
            self.span = slice(span.start, span.stop - 1)
        else:
            self.span_ok = False
        if 0 <= self.stale:  # (sprites join after the others left: not expected)
            self.stale = min(self.stale, i)
        last = self.n - 1
        if i != last:
            for name in _COLUMNS:
                col = getattr(self, name)
                col[i] = col[last]
            self.comps[i] = self.comps[last]
            self.sprites[i] = self.sprites[last]
            self.vls[i] = self.vls[last]
            self.slot_of[int(self.ents[i])] = i
        self.comps.pop()
        self.sprites.pop()
        self.vls.pop()
        self.n = last
        self.dirty = True

    def remove_many(self, entities: list[int]) -> None:
        """Sprites leave; many (a level cleared) are dropped by one compaction that keeps the
        others in their order."""
        if len(entities) < 16:
            for e in entities:
                self.remove(e)
            return
        gone = [self.slot_of.pop(e) for e in entities]
        keep = np.ones(self.n, dtype=np.bool_)
        keep[gone] = False
        kept = np.flatnonzero(keep)
        n = len(kept)
        for name in _COLUMNS:
            col = getattr(self, name)
            col[:n] = col[kept]
        order = kept.tolist()
        self.comps = [self.comps[i] for i in order]
        self.sprites = [self.sprites[i] for i in order]
        self.vls = [self.vls[i] for i in order]
        ents = self.ents[:n].tolist()
        self.slot_of = dict(zip(ents, range(n), strict=True))
        self.slot_at = dict(zip(self.first[:n].tolist(), ents, strict=True))
        self.n = n
        self.n_turned = int(np.count_nonzero(self.oriented[:n]))
        if self.stale >= 0:  # (sprites join after the others left: not expected)
            self.stale = 0
        self.bounds = n > 0
        self.span_ok = False
        self.dirty = True

    def moved_sprites(self) -> list[int]:
        """The entities whose sprite got another vertex list or lost it since the last look:
        those at the starts the domain freed or moved (none noted: none); a domain whose
        allocator is not watched has every sprite looked at (three C-level passes)."""
        if self.allocator is not None and self.domain.allocator is self.allocator:
            if not self.freed:
                return []
            slot_at = self.slot_at
            found = {slot_at[s] for s in self.freed if s in slot_at}
            self.freed.clear()
            return sorted(e for e in found if self._moved(self.slot_of[e]))
        vls = list(map(_VL, self.sprites))
        if vls == self.vls and all(d is self.domain for d in map(_DOMAIN, vls)) \
                and list(map(_START, vls)) == self.first[:self.n].tolist():
            return []
        return sorted(e for e, i in self.slot_of.items() if self._moved(i))

    def _moved(self, i: int) -> bool:
        vl = getattr(self.sprites[i], "_vertex_list", None)
        return (vl is not self.vls[i] or vl.domain is not self.domain
                or vl.start != int(self.first[i]))

    def fix_rows(self, table: Any) -> list[int]:
        """After a layout change: each sprite's row again where the table moved its entity
        (one NumPy pass finds them); returns the entities no longer in the table."""
        n = self.n
        if not n:
            return []
        rows, ents = self.rows[:n], self.ents[:n]
        tn = table.n
        span = self.span if self.span_ok else None
        if span is not None and span.stop <= tn:  # a run of the table: a slice, no gather
            bad = np.flatnonzero(table.entity[span] != ents)
        elif (self.span is not None and self.span.start + n <= tn
              and bool((table.entity[self.span.start:self.span.start + n] == ents).all())):
            # sprites came and went as the table's rows did (its swap-removes are ours):
            # a run of the table still, from where it was
            r0 = self.span.start
            rows[:] = _iota(r0 + n)[r0:]
            self.span, self.span_ok = slice(r0, r0 + n), True
            return []
        elif int(rows.max()) < tn:
            bad = np.flatnonzero(table.entity[rows] != ents)
        else:
            good = rows < tn
            good[good] = table.entity[rows[good]] == ents[good]
            bad = np.flatnonzero(~good)
        if not len(bad):
            return []
        row_of = table.row_of
        lost = []
        for i in bad.tolist():
            row = row_of.get(int(ents[i]))
            if row is None:
                lost.append(int(ents[i]))
            else:
                rows[i] = row
        self.dirty = True
        self.span_ok = False
        return lost

    def reorient(self, table: Any) -> None:
        """After a layout change: which sprites stand on oriented rects, and their angles
        (read again for every oriented rect: a shape may have been replaced)."""
        n = self.n
        if not n:
            return
        rows = self.rows[:n]
        span = self.span if self.span_ok else None
        now = table.shape_code[span if span is not None else rows] == _ORIENTED
        was = self.oriented[:n]
        if (now != was).any():
            for i in np.flatnonzero(was & ~now).tolist():  # no longer an oriented rect:
                sprite = self.sprites[i]
                sprite.rotation = sprite.rotation  # the game's turn back
            was[:] = now
            self.n_turned = int(np.count_nonzero(now))
            self.dirty = True
        if self.n_turned:
            idx = np.flatnonzero(now)
            shapes = table.shapes
            self.angles[idx] = [shapes[r].angle for r in rows[idx].tolist()]

    def refresh(self) -> None:
        """Work out the span, the turned sprites and whether the rows are a run of the
        table again (after sprites came, left or changed row)."""
        n = self.n
        if self.bounds:
            first = self.first[:n]
            self.lo, self.hi = int(first.min()), int(first.max()) + 4
            self.bounds = False
        if self.n_turned:
            turned = np.flatnonzero(self.oriented[:n])
            self.turned = turned
            self.turned_verts = self.verts[turned].ravel()
        elif len(self.turned):
            self.turned = self.turned_verts = np.zeros(0, dtype=np.intp)
        if not self.span_ok:
            rows = self.rows[:n]
            r0 = int(rows[0])
            self.span = (slice(r0, r0 + n) if int(rows[-1]) - r0 == n - 1
                         and np.array_equal(rows, _iota(r0 + n)[r0:]) else None)
            self.span_ok = True
        self.xy = None  # write at least once
        self.dirty = False

    # ------------------------------------------------------------ placing

    def _span(self, name: str) -> bytes | None:
        """A copy of the run's span of one attribute's CPU-side store (a few C calls, no
        NumPy); None if the span is not inside the buffer."""
        assert self.buffers is not None
        buf = self.buffers[name]
        stride = buf.stride
        if self.hi * stride > ctypes.sizeof(buf.data):
            return None
        return ctypes.string_at(buf.data_ptr + self.lo * stride, (self.hi - self.lo) * stride)

    def write(self, screen: np.ndarray, turns: np.ndarray | None) -> None:
        """Put each sprite's anchor on its screen point (``screen``: one row per slot),
        turning the oriented ones to ``turns`` (pyglet degrees) first."""
        bufs = self.buffers
        assert bufs is not None
        lo, hi, n = self.lo, self.hi, self.n
        if turns is not None:
            rotation = _float_view(bufs["rotation"], 1)
            want = np.repeat(turns, 4).astype(np.float32)
            if not np.array_equal(rotation[self.turned_verts, 0], want):
                rotation[self.turned_verts, 0] = want
                bufs["rotation"].invalidate_region(lo, hi - lo)
        shape = (self._span("rotation"), self._span("position"), self._span("scale"))
        idx = None
        if None in shape or shape != self.shape:
            changed = self._changed(shape)
            if self.stale >= 0:
                changed[self.stale:] = True
            idx = np.flatnonzero(changed)
        elif self.stale >= 0:
            idx = _iota(n)[self.stale:]
        if idx is not None:
            if len(idx):
                self.lever[idx] = self._levers(idx, _float_view(bufs["rotation"], 1),
                                               _float_view(bufs["position"], 3),
                                               _float_view(bufs["scale"], 2))
            self.stale = -1
            self.shape, self.shape_lo = shape, lo
        xy = screen - self.lever[:n]
        xy_bytes = xy.tobytes()
        if xy_bytes == self.xy and self.placed is not None \
                and self._span("translate") == self.placed:
            return  # nothing moved: nothing to write, nothing to send to the GPU
        translate = _float_view(bufs["translate"], 3)
        translate[self.verts[:n], :2] = xy[:, None, :]  # each row to its four vertices
        bufs["translate"].invalidate_region(lo, hi - lo)
        self.xy = xy_bytes
        self.placed = self._span("translate")

    def _changed(self, shape: tuple[bytes | None, ...]) -> np.ndarray:
        """Per slot: whether any of its vertices' rotation, corners or scale differ from the
        last copies (a vertex outside the last span counts as changed)."""
        n, lo, hi = self.n, self.lo, self.hi
        old, olo = self.shape, self.shape_lo
        if not old or None in shape or None in old:
            return np.ones(n, dtype=np.bool_)
        changed = np.ones(hi - lo, dtype=np.bool_)
        a, b = max(lo, olo), min(hi, olo + len(old[0]) // 4)  # rotation: 4 bytes a vertex
        if a < b:
            same = np.ones(b - a, dtype=np.bool_)
            for new_b, old_b, count in zip(shape, old, (1, 3, 2), strict=True):
                now = np.frombuffer(new_b, dtype=np.int32).reshape(-1, count)  # type: ignore[arg-type]
                was = np.frombuffer(old_b, dtype=np.int32).reshape(-1, count)  # type: ignore[arg-type]
                same &= (now[a - lo:b - lo] == was[a - olo:b - olo]).all(axis=1)
            changed[a - lo:b - lo] = ~same
        return changed[self.verts[:n] - lo].any(axis=1)

    def _levers(self, idx: np.ndarray, rotation: np.ndarray, corners: np.ndarray,
                scale: np.ndarray) -> np.ndarray:
        """Per sprite of ``idx``: the anchor's place relative to the translation, on the
        screen (the image's corners are relative to its own anchor; scaled, then turned
        clockwise)."""
        if len(idx) <= 8:  # a few sprites joined: plain floats (NumPy calls cost more)
            out = np.empty((len(idx), 2))
            for k, i in enumerate(idx.tolist()):
                f = int(self.first[i])
                lx, ly = corners[f, :2].tolist()
                hx, hy = corners[f + 2, :2].tolist()
                ax, ay = ((hx - lx) * 0.5, (hy - ly) * 0.5) if self.centred[i] \
                    else self.anchors[i].tolist()
                sx, sy = scale[f].tolist()
                dx, dy = (ax + lx) * sx, (ay + ly) * sy
                turn = math.radians(float(rotation[f, 0]))
                c, s = math.cos(turn), math.sin(turn)
                out[k] = (dx * c + dy * s, dy * c - dx * s)
            return out
        first = self.first[idx]
        low = corners[first, :2].astype(np.float64)  # the image's bottom-left corner
        high = corners[first + 2, :2]  # its top-right one
        anchor = np.where(self.centred[idx][:, None], (high - low) * 0.5, self.anchors[idx])
        d = (anchor + low) * scale[first]
        turn = np.radians(rotation[first, 0].astype(np.float64))
        c, s = np.cos(turn), np.sin(turn)
        return np.column_stack([d[:, 0] * c + d[:, 1] * s, d[:, 1] * c - d[:, 0] * s])

    def place_slow(self, screen: np.ndarray) -> None:
        """Every sprite through the Sprite API, a Python call each."""
        for i, (x, y) in enumerate(screen.tolist()):
            comp = self.comps[i]
            sprite = comp.sprite
            if sprite._vertex_list is None:  # deleted by the game: dropped at the next update
                continue
            if self.oriented[i]:
                sprite.rotation = -float(self.angles[i])
            image = sprite.image
            if isinstance(image, pyglet.image.Animation):
                image = image.frames[sprite.frame_index].image
            scale = sprite.scale
            ax, ay = ((image.width / 2, image.height / 2) if comp.anchor == "center"
                      else comp.anchor)
            dx = (ax - image.anchor_x) * scale * sprite.scale_x
            dy = (ay - image.anchor_y) * scale * sprite.scale_y
            turn = math.radians(sprite.rotation)
            c, s = math.cos(turn), math.sin(turn)
            sprite.position = (x - (dx * c + dy * s), y - (dy * c - dx * s), sprite.z)


class SpriteSync(esper.Processor):
    """Moves every `BodySprite` of one `Physics` to its body, once a frame.

    Call ``update()`` once a frame after the physics (after ``esper.process``), then draw the
    batch the sprites are in; or add the sync as an esper processor that runs after the
    physics (``esper.add_processor(sync, priority=-1)``: esper runs higher priorities first).
    One SpriteSync per Physics.

    Parameters:
        physics: the Physics whose bodies the sprites follow.
        scale: pixels per world unit (as `DebugDraw`'s).
        offset: the screen position (px) of the world origin (as `DebugDraw`'s).
        vectorised: write the sprites' vertex data with NumPy (default); False places every
            sprite through the Sprite API, a Python call each (for comparison).
    """

    def __init__(self, physics: Physics, *, scale: float = 1.0,
                 offset: tuple[float, float] = (0.0, 0.0), vectorised: bool = True) -> None:
        if not isinstance(physics, Physics):
            raise TypeError(f"physics must be a Physics, got {physics!r}")
        self.physics = physics
        self.scale = check_positive("scale", scale)
        self.offset = check_vec("offset", offset)
        self._vectorised = check_bool("vectorised", vectorised)
        self._items: dict[int, BodySprite] = {}  # entity -> the component followed
        self._where: dict[int, _Run] = {}  # placed entity -> its run
        self._waiting: set[int] = set()  # followed entities that are no body (hidden)
        self._fresh: set[int] = set()  # followed entities to place (or hide) at this update
        self._log: set[int] = set()  # entities esper added to / took from the watched set
        self._watched: WatchedSet | None = None
        self._counter: object = None  # esper's entity counter (clear_database replaces it)
        self._layout = -1
        self._runs: dict[tuple[int, bool], _Run] = {}  # (id(domain), slow) -> run

    @property
    def vectorised(self) -> bool:
        """Whether sprites are placed by NumPy writes into their vertex data (True) or one
        Sprite API call each (False); switching takes effect at the next update."""
        return self._vectorised

    @vectorised.setter
    def vectorised(self, value: bool) -> None:
        self._vectorised = check_bool("vectorised", value)
        self._fresh.update(self._where)  # every placed sprite into a run of the new kind
        for run in self._runs.values():
            run.unwatch()
        self._runs.clear()
        self._where.clear()

    # ------------------------------------------------------------ transform

    def world_to_screen(self, x: float, y: float) -> tuple[float, float]:
        """The screen pixel of the world point ``(x, y)``."""
        return (x * self.scale + self.offset[0], y * self.scale + self.offset[1])

    def screen_to_world(self, x: float, y: float) -> tuple[float, float]:
        """The world point under the screen pixel ``(x, y)``."""
        return ((x - self.offset[0]) / self.scale, (y - self.offset[1]) / self.scale)

    def set_view(self, scale: float, offset: tuple[float, float]) -> None:
        """Change the transform (as `DebugDraw.set_view`); the next update uses it."""
        scale, offset = check_positive("scale", scale), check_vec("offset", offset)
        self.scale, self.offset = scale, offset

    def screen_position(self, entity: int) -> tuple[float, float]:
        """Where ``entity``'s sprite anchor is drawn now (its body's interpolated position
        plus the component's offset, on the screen). ``KeyError`` if the entity has no
        BodySprite followed by this sync, or is no body."""
        comp = self._items[entity]
        x, y = self.physics.interpolated_position(entity)
        return self.world_to_screen(x + comp.offset[0], y + comp.offset[1])

    # ------------------------------------------------------------ per frame

    def update(self) -> None:
        """Bring every sprite to its body (call once a frame, after the physics). Holds
        ``ecsphys.physics.ESPER_LOCK`` while it reads the physics' world (other threads may
        step theirs meanwhile)."""
        with ESPER_LOCK:
            self._update()

    def _update(self) -> None:
        physics = self.physics
        previous = esper.current_world
        switched = previous != physics.world
        if switched:
            esper.switch_world(physics.world)
        try:
            self._follow_components()
            self._follow_vertex_lists()
            dead = esper._dead_entities
            if dead:  # deleted, deferred: hidden now, dropped when esper deletes them
                for e in sorted(dead & self._where.keys()):
                    self._unplace(e)
                    self._fresh.add(e)
            t = physics.table
            if t.layout_version != self._layout:
                self._follow_rows()
            if self._fresh:
                self._place_fresh()
            self._place()
        finally:
            if switched:
                esper.switch_world(previous)

    def process(self, *args: Any, **kwargs: Any) -> None:
        """As an esper processor: ``update()``."""
        self.update()

    def delete(self) -> None:
        """Stop following: esper gets a plain set of BodySprite holders back (in the physics's
        world); the sprites stay as they are, owned by their components."""
        with ESPER_LOCK:
            previous = esper.current_world
            esper.switch_world(self.physics.world)
            try:
                components = esper._components
                if self._watched is not None and components.get(BodySprite) is self._watched:
                    components[BodySprite] = set(self._watched)
            finally:
                esper.switch_world(previous)
        for run in self._runs.values():
            run.unwatch()
        self._runs.clear()
        self._watched = None
        self._counter = None
        self._items.clear()
        self._where.clear()
        self._waiting.clear()
        self._fresh.clear()
        self._log.clear()

    # ------------------------------------------------------------ which sprites

    def _follow_components(self) -> None:
        """Take in the BodySprites added, removed or replaced since the last update."""
        components = esper._components
        found = components.get(BodySprite)
        log = self._log
        if esper._entity_count is not self._counter or found is not self._watched:
            # the first update, a cleared world, or esper dropped the set (emptied): look at
            # every entity followed and every holder
            log.update(self._items)
            if found is not None:
                log.update(found)
            components[BodySprite] = self._watched = WatchedSet(found or (), log)
            self._counter = esper._entity_count
        if not log:
            return
        db = esper._entities
        items = self._items
        where = self._where
        leaving: dict[_Run, list[int]] = {}
        try:
            self._take_in(sorted(log), db, items, where, leaving)
        finally:
            for run, entities in leaving.items():
                run.remove_many(entities)
        log.clear()

    def _take_in(self, entities: list[int], db: dict[int, dict[type, Any]],
                 items: dict[int, BodySprite], where: dict[int, _Run],
                 leaving: dict[_Run, list[int]]) -> None:
        """Follow each entity's BodySprite as esper holds it now (``leaving``: the placed
        entities whose component went, by run)."""
        for e in entities:
            held = db.get(e)
            new = held.get(BodySprite) if held is not None else None
            old = items.get(e)
            if new is old:
                continue
            if old is not None:
                run = where.pop(e, None)
                if run is not None:
                    leaving.setdefault(run, []).append(e)
                self._waiting.discard(e)
                self._fresh.discard(e)
                if new is None or new.sprite is not old.sprite:
                    _delete_sprite(old.sprite)
                del items[e]
            if new is not None:
                if not isinstance(new, BodySprite):
                    raise TypeError(f"entity {e}'s BodySprite component is a "
                                    f"{type(new).__name__}, not a BodySprite")
                items[e] = new
                self._fresh.add(e)

    def _follow_vertex_lists(self) -> None:
        """Sprites that got another vertex list (a new texture, group or batch) or lost it
        (deleted by the game) since the last update leave their run, to be placed again."""
        for run in self._runs.values():
            for e in run.moved_sprites():
                run.remove(e)
                del self._where[e]
                self._fresh.add(e)

    def _follow_rows(self) -> None:
        """After a layout change: the placed sprites' rows where the table moved them, those
        no longer bodies hidden, the waiting ones looked at again."""
        t = self.physics.table
        for run in self._runs.values():
            for e in run.fix_rows(t):
                run.remove(e)
                del self._where[e]
                self._fresh.add(e)
        for run in self._runs.values():
            run.reorient(t)
        self._fresh |= self._waiting
        self._waiting.clear()
        self._layout = t.layout_version

    def _unplace(self, e: int) -> None:
        run = self._where.pop(e, None)
        if run is not None:
            run.remove(e)

    def _place_fresh(self) -> None:
        """Each entity taken in (or looked at again) joins the run of its sprite's domain
        if it is a living body, shown again if the sync hid it; else it waits, hidden."""
        t = self.physics.table
        row_of = t.row_of
        dead = esper._dead_entities
        items = self._items
        waiting = self._waiting
        where = self._where
        joining: dict[_Run, list[tuple[int, int, BodySprite, Any]]] = {}
        last: tuple[Any, bool, Any] = (None, False, None)  # the last sprite's domain and run
        for e in sorted(self._fresh):
            comp = items.get(e)
            if comp is None:
                continue
            sprite = comp.sprite
            vl = getattr(sprite, "_vertex_list", None)
            if vl is None:  # deleted by the game: nothing to draw
                continue
            row = row_of.get(e)
            if row is None or e in dead:
                waiting.add(e)
                _veil(sprite)
                continue
            domain = vl.domain
            slow = not self._vectorised or getattr(vl, "count", 4) != 4
            if domain is last[0] and slow is last[1]:
                joining[last[2]].append((row, e, comp, vl))
                where[e] = last[2]
                continue
            run = self._runs.get((id(domain), slow))  # a run holds its domain: ids stay
            if run is None:
                buffers = None if slow else _fast_buffers(domain)
                if buffers is None:  # a domain the fast path cannot write
                    run = self._runs.get((id(domain), True))
                if run is None:
                    run = self._runs[(id(domain), buffers is None)] = _Run(domain, buffers)
            joining.setdefault(run, []).append((row, e, comp, vl))
            where[e] = run
            last = (domain, slow, run)
        for run, sprites in joining.items():
            if len(sprites) < 16:
                for row, e, comp, vl in sprites:
                    if comp.sprite in _VEILED:  # hidden by a BodySprite or a sync: shown
                        _VEILED.discard(comp.sprite)
                        comp.sprite.visible = True
                    run.add(e, comp, vl, row, t)
            else:  # many (a level loaded): in table order, so their rows may be a run
                sprites.sort(key=_FIRST)
                run.unveil([comp.sprite for _, _, comp, _ in sprites])
                run.add_many(sprites, t)
        self._fresh.clear()
        for key in [k for k, run in self._runs.items() if run.n == 0]:
            self._runs.pop(key).unwatch()

    # ------------------------------------------------------------ placing

    def _place(self) -> None:
        """Write every placed sprite's position (and an oriented rect's turn)."""
        t = self.physics.table
        tn = t.n
        alpha = self.physics.alpha
        for run in self._runs.values():
            n = run.n
            if not n:
                continue
            if run.dirty:
                run.refresh()
            span = run.span
            if span is not None:  # the rows are a run of the table: slices, no gather
                prev = t.prev_pos[span]
                world = t.pos[span] - prev
                world *= alpha
                world += prev
            else:
                rows = run.rows[:n]
                if 4 * n >= tn:  # most bodies have sprites: whole columns, then one gather
                    prev = t.prev_pos[:tn]
                    world = t.pos[:tn] - prev
                    world *= alpha
                    world += prev
                    world = world[rows]
                else:
                    prev = t.prev_pos[rows]
                    world = t.pos[rows] - prev
                    world *= alpha
                    world += prev
            world += run.offsets[:n]
            screen = world * self.scale
            screen += self.offset
            if run.buffers is None:
                run.place_slow(screen)
            else:
                turns = -run.angles[run.turned] if len(run.turned) else None
                run.write(screen, turns)

    # ------------------------------------------------------------ reading

    @property
    def sprite_count(self) -> int:
        """How many sprites the last update placed."""
        return sum(run.n for run in self._runs.values())

    def __len__(self) -> int:
        """How many BodySprites the sync follows (placed or waiting for their body)."""
        return len(self._items)

    def __repr__(self) -> str:
        return (f"SpriteSync(sprites={self.sprite_count}, scale={self.scale!r}, "
                f"offset={self.offset!r})")


#: the sprites a BodySprite or a sync hid (shown again when a sync places them); a sprite the
#: game hid itself is never in it, and is never shown by a sync
_VEILED: weakref.WeakSet[pyglet.sprite.Sprite] = weakref.WeakSet()


def _veil(sprite: pyglet.sprite.Sprite) -> None:
    """Hide a sprite until a sync places it (if it is drawn now)."""
    if sprite.visible and getattr(sprite, "_vertex_list", None) is not None:
        sprite.visible = False
        _VEILED.add(sprite)


def _delete_sprite(sprite: pyglet.sprite.Sprite) -> None:
    """Free a sprite's vertex data (once: the game may have deleted it already)."""
    if getattr(sprite, "_vertex_list", None) is not None:
        sprite.delete()
