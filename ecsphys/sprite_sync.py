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
- a `BodySprite` owns its sprite: when it leaves (its entity deleted, the component removed
  or replaced by one with another sprite) the next ``update()`` deletes the pyglet sprite,
  so nothing leaks; a sprite whose entity is not a body (not adopted yet, or no Position)
  is hidden until it is one;
- cost: the positions come from one NumPy pass over the body table's ``prev_pos`` / ``pos``
  columns and are written straight into the batch's vertex data, one NumPy write per vertex
  domain (per texture): no Python call per sprite per frame; a frame in which nothing moved
  writes nothing. Whether a sprite got new vertex data (another image, group or batch, or
  deleted) is known without looking at the sprites: the domains' allocators, made counting
  ones, tell whether any vertex list was made, freed or moved there (then three C-level
  passes over the sprites look which). What changes the set of sprites (components added or
  removed, bodies adopted or released) costs a Python pass over the sprites at the next
  update, as the debug view's resync does; a shape replaced costs a look at the oriented
  rects only;
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
from typing import Any

import esper
import numpy as np
import pyglet
from pyglet.graphics.allocation import Allocator

from .limits import MAX_SIZE, check_bool, check_positive, check_vec
from .physics import Physics
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


class BodySprite:
    """The component that draws an entity with a pyglet sprite at its body's position.

    Parameters:
        sprite: the ``pyglet.sprite.Sprite`` (in the batch the game draws); the component
            owns it: the sync deletes it when the component or its entity goes.
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
    """A vertex domain's allocator that counts the vertex lists made, freed and moved in it
    (``changes``): pyglet gives a sprite new vertex data (a new texture, group or batch, or
    deleted) only through these, so a domain whose count stands still holds the sprites
    where they were."""

    __slots__ = ("changes",)

    def alloc(self, size: int) -> int:
        self.changes += 1
        return super().alloc(size)

    def realloc(self, start: int, size: int, new_size: int) -> int:
        self.changes += 1
        return super().realloc(start, size, new_size)

    def dealloc(self, start: int, size: int) -> None:
        self.changes += 1
        super().dealloc(start, size)


def _watch(domain: Any) -> _WatchedAllocator | None:
    """The domain's allocator, made a counting one (same state) if it is pyglet's own; None
    if it is something else (then the sprites are checked one by one every frame)."""
    found = domain.allocator
    if isinstance(found, _WatchedAllocator):
        return found
    if type(found) is not Allocator:
        return None
    watched = _WatchedAllocator(found.capacity)
    watched.starts, watched.sizes, watched.changes = found.starts, found.sizes, 0
    domain.allocator = watched
    return watched


class _Run:
    """The sprites of one vertex domain (one texture), placed by one NumPy write.

    ``sel``: their places in the draw list; ``first``: their first vertices (``verts``: all
    four of each, ``lo`` .. ``hi`` the span). Kept between frames: ``lever``, each sprite's
    translation from its anchor to where pyglet puts the image's own anchor, made from the
    vertex data (image corners, scale, rotation) as it was in ``shape`` (byte copies of the
    spans), and ``placed``, the span of translations as last written with ``xy``: a frame
    in which no sprite moved, turned, rescaled or was written by the game writes nothing.
    """

    __slots__ = ("domain", "buffers", "allocator", "seen", "sel", "first", "verts", "lo", "hi",
                 "turned", "turned_verts", "centred", "anchors", "lever", "shape", "placed",
                 "xy")

    def __init__(self, domain: Any, buffers: dict[str, Any], sel: list[int], first: list[int],
                 sync: SpriteSync) -> None:
        self.domain = domain
        self.buffers = buffers
        self.allocator = _watch(domain)
        self.seen = self.allocator.changes if self.allocator is not None else -1
        idx = np.asarray(sel, dtype=np.intp)
        # the whole draw list in order (one texture): a slice, so reading it copies nothing
        whole = len(idx) == len(sync._comps) and bool(np.all(idx == np.arange(len(idx))))
        self.sel: np.ndarray | slice = slice(0, len(idx)) if whole else idx
        self.first = np.asarray(first, dtype=np.intp)
        self.verts = (self.first[:, None] + _CORNERS).ravel()
        self.lo, self.hi = int(self.first.min()), int(self.first.max()) + 4
        turned = np.flatnonzero(sync._oriented[idx])  # places in this run
        self.turned = idx[turned]  # places in the draw list
        self.turned_verts = (self.first[turned][:, None] + _CORNERS).ravel()
        self.centred = sync._centred[idx]
        self.anchors = sync._anchors[idx]
        self.lever: np.ndarray | None = None
        self.shape: tuple[bytes | None, ...] = ()
        self.placed: bytes | None = None
        self.xy: bytes | None = None

    def still(self) -> bool:
        """Whether no vertex list of this domain was made, freed or moved since the run was
        made or last checked (False if that cannot be known)."""
        return (self.allocator is not None and self.domain.allocator is self.allocator
                and self.allocator.changes == self.seen)

    def _span(self, name: str) -> bytes | None:
        """A copy of the run's span of one attribute's CPU-side store (a few C calls, no
        NumPy); None if the span is not inside the buffer."""
        buf = self.buffers[name]
        stride = buf.stride
        if self.hi * stride > ctypes.sizeof(buf.data):
            return None
        return ctypes.string_at(buf.data_ptr + self.lo * stride, (self.hi - self.lo) * stride)

    def write(self, screen: np.ndarray, turns: np.ndarray | None) -> None:
        """Put each sprite's anchor on its screen point (``screen``: one row per sprite of the
        run), turning the oriented ones to ``turns`` (pyglet degrees) first."""
        bufs = self.buffers
        lo, hi = self.lo, self.hi
        if turns is not None:
            rotation = _float_view(bufs["rotation"], 1)
            want = np.repeat(turns, 4).astype(np.float32)
            if not np.array_equal(rotation[self.turned_verts, 0], want):
                rotation[self.turned_verts, 0] = want
                bufs["rotation"].invalidate_region(lo, hi - lo)
        shape = (self._span("rotation"), self._span("position"), self._span("scale"))
        if self.lever is None or None in shape or shape != self.shape:
            self.lever = self._levers(_float_view(bufs["rotation"], 1),
                                      _float_view(bufs["position"], 3),
                                      _float_view(bufs["scale"], 2))
            self.shape = shape
        xy = screen - self.lever
        xy_bytes = xy.tobytes()
        if xy_bytes == self.xy and self.placed is not None \
                and self._span("translate") == self.placed:
            return  # nothing moved: nothing to write, nothing to send to the GPU
        translate = _float_view(bufs["translate"], 3)
        translate[self.verts, :2] = np.repeat(xy, 4, axis=0)
        bufs["translate"].invalidate_region(lo, hi - lo)
        self.xy = xy_bytes
        self.placed = self._span("translate")

    def _levers(self, rotation: np.ndarray, corners: np.ndarray,
                scale: np.ndarray) -> np.ndarray:
        """Per sprite: the anchor's place relative to the translation, on the screen (the
        image's corners are relative to its own anchor; scaled, then turned clockwise)."""
        first = self.first
        low = corners[first, :2].astype(np.float64)  # the image's bottom-left corner
        high = corners[first + 2, :2]  # its top-right one
        anchor = np.where(self.centred[:, None], (high - low) * 0.5, self.anchors)
        d = (anchor + low) * scale[first]
        turn = np.radians(rotation[first, 0].astype(np.float64))
        c, s = np.cos(turn), np.sin(turn)
        return np.column_stack([d[:, 0] * c + d[:, 1] * s, d[:, 1] * c - d[:, 0] * s])


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
        self._hidden: set[int] = set()  # entities whose sprite this sync hid
        self._waiting: list[int] = []  # entities with a BodySprite that are no body
        self._log: set[int] = set()  # entities esper added to / took from the watched set
        self._watched: WatchedSet | None = None
        self._counter: object = None  # esper's entity counter (clear_database replaces it)
        self._dirty = True
        self._layout = -1
        # the draw list: the placed sprites, their entities, rows and shapes' turns
        self._comps: list[BodySprite] = []
        self._sprites: list[pyglet.sprite.Sprite] = []
        self._vls: list[Any] = []
        self._starts: list[int] = []
        self._domains: list[Any] = []
        self._ents = np.zeros(0, dtype=np.int64)
        self._rows = np.zeros(0, dtype=np.intp)
        self._span: slice | None = None  # the rows, when they are a run of the table
        self._angles = np.zeros(0)
        self._oriented = np.zeros(0, dtype=np.bool_)
        self._offsets = np.zeros((0, 2))
        self._anchors = np.zeros((0, 2))
        self._centred = np.zeros(0, dtype=np.bool_)
        self._runs: list[_Run] = []
        self._slow: list[int] = []

    @property
    def vectorised(self) -> bool:
        """Whether sprites are placed by NumPy writes into their vertex data (True) or one
        Sprite API call each (False); switching takes effect at once."""
        return self._vectorised

    @vectorised.setter
    def vectorised(self, value: bool) -> None:
        self._vectorised = check_bool("vectorised", value)
        self._group_runs()

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
        """Bring every sprite to its body (call once a frame, after the physics)."""
        physics = self.physics
        previous = esper.current_world
        switched = previous != physics.world
        if switched:
            esper.switch_world(physics.world)
        try:
            self._follow_components()
            t = physics.table
            if self._dirty or self._sprites_changed():
                self._rebuild()
            elif t.layout_version != self._layout:
                if self._rows_hold():
                    self._turn_again()
                else:
                    self._rebuild()
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
        previous = esper.current_world
        esper.switch_world(self.physics.world)
        try:
            components = esper._components
            if self._watched is not None and components.get(BodySprite) is self._watched:
                components[BodySprite] = set(self._watched)
        finally:
            esper.switch_world(previous)
        self._watched = None
        self._items.clear()
        self._hidden.clear()
        self._dirty = True

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
        for e in sorted(log):
            held = db.get(e)
            new = held.get(BodySprite) if held is not None else None
            old = items.get(e)
            if new is old:
                continue
            if old is not None:
                if new is None or new.sprite is not old.sprite:
                    _delete_sprite(old.sprite)
                del items[e]
                self._hidden.discard(e)
            if new is not None:
                if not isinstance(new, BodySprite):
                    raise TypeError(f"entity {e}'s BodySprite component is a "
                                    f"{type(new).__name__}, not a BodySprite")
                items[e] = new
            self._dirty = True
        log.clear()

    def _sprites_changed(self) -> bool:
        """Whether a placed sprite got another vertex list (a new texture, or deleted) or
        its vertex list moved (another group or batch). Nothing to look at while no vertex
        list of the sprites' domains was made, freed or moved (counted by the domains'
        allocators); otherwise three C-level passes over the sprites, no Python per sprite."""
        if all(run.still() for run in self._runs):
            return False
        vls = list(map(_VL, self._sprites))
        if (vls != self._vls or list(map(_DOMAIN, vls)) != self._domains
                or list(map(_START, vls)) != self._starts):
            return True
        for run in self._runs:  # others' vertex lists came and went: ours stand
            if run.allocator is not None:
                run.seen = run.allocator.changes
        return False

    def _rows_hold(self) -> bool:
        """After a layout change: whether every placed entity keeps its row, and no waiting
        entity became a body (then only the shapes' turns need reading again)."""
        t = self.physics.table
        row_of = t.row_of
        if any(e in row_of for e in self._waiting):
            return False
        rows = self._rows
        return len(rows) == 0 or (int(rows.max()) < t.n
                                  and np.array_equal(t.entity[rows], self._ents))

    def _turn_again(self) -> None:
        """Read the oriented rects' angles again (a shape was replaced)."""
        t = self.physics.table
        oriented = t.shape_code[self._rows] == _ORIENTED
        if not np.array_equal(oriented, self._oriented):
            self._rebuild()
            return
        shapes = t.shapes
        idx = np.flatnonzero(oriented)
        self._angles[idx] = [shapes[r].angle for r in self._rows[idx].tolist()]
        self._layout = t.layout_version

    def _rebuild(self) -> None:
        """Make the draw list again: the placed sprites, their rows, anchors and domains."""
        t = self.physics.table
        row_of = t.row_of
        comps: list[BodySprite] = []
        rows: list[int] = []
        ents: list[int] = []
        waiting: list[int] = []
        hidden = self._hidden
        for e in sorted(self._items):
            comp = self._items[e]
            sprite = comp.sprite
            if getattr(sprite, "_vertex_list", None) is None:  # deleted by the game
                continue
            row = row_of.get(e)
            if row is None:
                waiting.append(e)
                if sprite.visible:
                    sprite.visible = False
                    hidden.add(e)
                continue
            if e in hidden:
                hidden.discard(e)
                sprite.visible = True
            comps.append(comp)
            rows.append(row)
            ents.append(e)
        order = sorted(range(len(rows)), key=rows.__getitem__)  # table order: fewer gathers
        comps = [comps[i] for i in order]
        rows = [rows[i] for i in order]
        ents = [ents[i] for i in order]
        self._comps = comps
        old_sprites = self._sprites
        self._sprites = [c.sprite for c in comps]
        self._vls = list(map(_VL, self._sprites))
        self._starts = list(map(_START, self._vls))
        self._domains = list(map(_DOMAIN, self._vls))
        self._waiting = waiting
        self._ents = np.asarray(ents, dtype=np.int64)
        self._rows = np.asarray(rows, dtype=np.intp)
        self._span = (slice(rows[0], rows[-1] + 1) if rows and rows[-1] - rows[0] + 1 == len(rows)
                      else None)
        was_turned = {id(s) for s, o in zip(old_sprites, self._oriented, strict=True) if o}
        self._oriented = t.shape_code[self._rows] == _ORIENTED
        for comp, turned in zip(comps, self._oriented.tolist(), strict=True):
            if not turned and id(comp.sprite) in was_turned:  # no longer an oriented rect:
                comp.sprite.rotation = comp.sprite.rotation  # the game's turn back
        self._angles = np.zeros(len(rows))
        shapes = t.shapes
        idx = np.flatnonzero(self._oriented)
        self._angles[idx] = [shapes[r].angle for r in self._rows[idx].tolist()]
        self._offsets = np.array([c.offset for c in comps], dtype=np.float64).reshape(-1, 2)
        self._centred = np.array([c.anchor == "center" for c in comps], dtype=np.bool_)
        self._anchors = np.array([(0.0, 0.0) if c.anchor == "center" else c.anchor
                                  for c in comps], dtype=np.float64).reshape(-1, 2)
        self._group_runs()
        self._layout = t.layout_version
        self._dirty = False

    def _group_runs(self) -> None:
        """Sort the placed sprites by vertex domain; a domain the fast path cannot write (or
        ``vectorised=False``) sends its sprites to the slow list."""
        by_domain: dict[int, tuple[Any, list[int], list[int]]] = {}
        slow: list[int] = []
        for i, (vl, domain, start) in enumerate(zip(self._vls, self._domains, self._starts,
                                                     strict=True)):
            if not self._vectorised or getattr(vl, "count", 4) != 4:
                slow.append(i)
                continue
            entry = by_domain.get(id(domain))
            if entry is None:
                entry = by_domain[id(domain)] = (domain, [], [])
            entry[1].append(i)
            entry[2].append(start)
        runs = []
        for domain, sel, first in by_domain.values():
            buffers = _fast_buffers(domain)
            if buffers is None:
                slow.extend(sel)
            else:
                runs.append(_Run(domain, buffers, sel, first, self))
        self._runs = runs
        self._slow = sorted(slow)

    # ------------------------------------------------------------ placing

    def _place(self) -> None:
        """Write every placed sprite's position (and an oriented rect's turn)."""
        rows = self._rows
        if len(rows) == 0:
            return
        t = self.physics.table
        n = t.n
        span = self._span
        if span is not None:  # the rows are a run of the table: slices, no gather
            prev = t.prev_pos[span]
            world = t.pos[span] - prev
            world *= self.physics.alpha
            world += prev
        elif 4 * len(rows) >= n:  # most bodies have sprites: whole columns, then one gather
            prev = t.prev_pos[:n]
            world = t.pos[:n] - prev
            world *= self.physics.alpha
            world += prev
            world = world[rows]
        else:
            prev = t.prev_pos[rows]
            world = t.pos[rows] - prev
            world *= self.physics.alpha
            world += prev
        world += self._offsets
        screen = world * self.scale
        screen += self.offset
        for run in self._runs:
            turns = -self._angles[run.turned] if len(run.turned) else None
            run.write(screen[run.sel], turns)
        if self._slow:
            for i, (x, y) in zip(self._slow, screen[self._slow].tolist(), strict=True):
                self._place_one(i, x, y)

    def _place_one(self, i: int, x: float, y: float) -> None:
        """One sprite through the Sprite API (the slow path)."""
        comp = self._comps[i]
        sprite = comp.sprite
        if sprite._vertex_list is None:  # deleted by the game: dropped at the next rebuild
            return
        if self._oriented[i]:
            sprite.rotation = -float(self._angles[i])
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

    # ------------------------------------------------------------ reading

    @property
    def sprite_count(self) -> int:
        """How many sprites the last update placed."""
        return len(self._comps)

    def __len__(self) -> int:
        """How many BodySprites the sync follows (placed or waiting for their body)."""
        return len(self._items)

    def __repr__(self) -> str:
        return (f"SpriteSync(sprites={len(self._comps)}, scale={self.scale!r}, "
                f"offset={self.offset!r})")


def _delete_sprite(sprite: pyglet.sprite.Sprite) -> None:
    """Free a sprite's vertex data (once: the game may have deleted it already)."""
    if getattr(sprite, "_vertex_list", None) is not None:
        sprite.delete()
