"""Debug drawing: pyglet shapes for every collider, its AABB, contacts and touch flashes.

Guarantees:
- every adopted body with a Collider and a Geometry is drawn, whatever its shape kind (Circle,
  Rect, OrientedRect, Segment, Polygon, Compound; a TileMap as its solid tiles, dimmed, under
  its collision edges; a Mask as its set pixels), at its interpolated position
  (``physics.alpha``), coloured by kind: static, passive, active, or sensor;
- pyglet shapes are made once per body and moved afterwards: a frame allocates nothing for a
  body that keeps its shape, and only bodies that moved by more than ``move_threshold``
  pixels are touched in Python, so resting piles cost almost nothing;
- each layer (colliders, AABBs, contacts, flashes) is a pyglet ``Group`` whose visibility is
  a toggle; a hidden layer is not updated either;
- sleeping bodies (``physics.is_sleeping``) are drawn dimmed, at ``SLEEP_DIM`` of their
  colour's opacity, while the ``sleepers`` toggle is on (the default); a body that wakes is
  drawn in its normal colour again at the next ``update()``. Only the bodies whose sleep
  state changed since the last frame are touched in Python (one NumPy comparison of the
  ``asleep`` column finds them; none at all while nothing sleeps or is drawn dimmed);
- a world-to-screen transform ``screen = world * scale + offset`` lets scenes work in world
  units; ``screen_to_world`` inverts it (for the mouse).

Contacts and flashes come from ``physics.contact_set`` (the last step's touching pairs): a
pair that appears since the last drawn step flashes white (touch), a pair that disappears
flashes red (separate). Drawing samples once per frame, so when one frame runs several fixed
steps, a pair that touches and separates inside that frame is not flashed.

This is the only module of ecsphys that imports pyglet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyglet
from pyglet import shapes as pshapes

from .components import ACTIVE, PASSIVE, STATIC
from .mask import Mask
from .physics import Physics
from .shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment, Shape
from .tilemap import TileMap

Color = tuple[int, int, int, int]

#: Fill colours by collider kind (RGBA); sensors use ``SENSOR_COLOR`` whatever their kind.
KIND_COLORS: dict[int, Color] = {
    int(STATIC): (110, 120, 140, 255),
    int(PASSIVE): (235, 165, 60, 230),
    int(ACTIVE): (70, 165, 250, 230),
}
SENSOR_COLOR: Color = (90, 220, 110, 120)
#: Sleeping bodies are drawn at this fraction of their colour's opacity (``sleepers`` toggle).
SLEEP_DIM = 0.5
#: Width of the darker outline of rects and oriented rects, in pixels.
OUTLINE_PX = 1.0
AABB_COLOR: Color = (250, 250, 250, 90)
CONTACT_COLOR: Color = (255, 60, 60, 255)
NORMAL_COLOR: Color = (255, 230, 60, 255)
TOUCH_FLASH: tuple[int, int, int] = (255, 255, 255)
SEPARATE_FLASH: tuple[int, int, int] = (255, 70, 70)
#: Flash rings alive at once (a pool, reused oldest first) and new ones per step and event.
MAX_FLASHES = 128
MAX_NEW_FLASHES = 24


#: Fill colours of a TileMap's tile kinds 2, 3, ... (kind 1 takes the body's colour).
TILE_KIND_COLORS: tuple[Color, ...] = (
    (230, 90, 80, 255), (240, 200, 70, 255), (90, 200, 230, 255), (190, 110, 230, 255),
    (120, 220, 120, 255),
)


def outline_of(color: Color) -> Color:
    """The outline colour of a fill: the same hue, darker, as opaque as the fill (pyglet
    wants one opacity for both)."""
    r, g, b, a = color
    return (r * 11 // 20, g * 11 // 20, b * 11 // 20, a)


class _MaskItem:
    """A mask's set pixels as a sprite in the body's colour; ``position`` (x, y) is the
    sprite's lower-left corner, as pyglet shapes are placed."""

    def __init__(self, mask: Mask, color: Color, scale: float, batch: Any, group: Any) -> None:
        w, h = mask.size
        rgba = np.zeros((h, w, 4), dtype=np.uint8)
        rgba[mask.pixels[::-1]] = color  # pyglet's rows go up
        texture = pyglet.image.ImageData(w, h, "RGBA", rgba.tobytes()).get_texture()
        gl = pyglet.gl
        gl.glBindTexture(texture.target, texture.id)  # crisp pixels, not blurred ones
        gl.glTexParameteri(texture.target, gl.GL_TEXTURE_MAG_FILTER, gl.GL_NEAREST)
        gl.glTexParameteri(texture.target, gl.GL_TEXTURE_MIN_FILTER, gl.GL_NEAREST)
        self.sprite = pyglet.sprite.Sprite(texture, batch=batch, group=group)
        self.sprite.scale = mask.scale * scale
        ox, oy = mask.offset
        self._at = ((ox - w * mask.scale / 2) * scale, (oy - h * mask.scale / 2) * scale)
        self.sprite.position = (*self._at, 0.0)

    @property
    def position(self) -> tuple[float, float]:
        return (self.sprite.x, self.sprite.y)

    @position.setter
    def position(self, xy: tuple[float, float]) -> None:
        self.sprite.position = (xy[0], xy[1], 0.0)

    @property
    def opacity(self) -> int:
        return int(self.sprite.opacity)

    @opacity.setter
    def opacity(self, value: int) -> None:
        self.sprite.opacity = value

    def delete(self) -> None:
        self.sprite.delete()


def _set_opacity(item: Any, alpha: int) -> None:
    """Set a drawn item's opacity: a bordered rectangle's border too (its ``opacity`` would
    leave the border opaque; its ``color`` with an alpha sets both)."""
    if isinstance(item, pshapes.BorderedRectangle):
        item.color = (*item.color[:3], alpha)
    else:
        item.opacity = alpha


def _tile_versions(table: Any) -> dict[int, int]:
    """The version of each tile map body's map (entity -> version)."""
    return {e: watch.tilemap.version for e, watch in table.tilemaps.items()}


@dataclass
class _Body:
    """The pyglet shapes of one body: each with its position relative to the body, in px."""

    shape: Shape | None
    kind: int
    sensor: bool
    items: list[tuple[Any, float, float]] = field(default_factory=list)
    box: Any = None
    #: a TileMap's version when drawn (its tiles change in place), -1 for other shapes
    version: int = -1
    box_at: tuple[float, float] = (0.0, 0.0)
    #: each item's opacity as made (the undimmed one)
    alphas: list[int] = field(default_factory=list)

    def dim(self, dimmed: bool) -> None:
        """Draw the items at ``SLEEP_DIM`` of their opacity (asleep) or at their own."""
        for (item, _, _), alpha in zip(self.items, self.alphas, strict=True):
            _set_opacity(item, round(alpha * SLEEP_DIM) if dimmed else alpha)

    def delete(self) -> None:
        for item, _, _ in self.items:
            item.delete()
        if self.box is not None:
            self.box.delete()
        self.items.clear()
        self.box = None


class DebugDraw:
    """Draws the colliders of one `Physics` into a pyglet ``Batch``.

    Call ``update()`` once a frame (after ``esper.process``), then draw the batch (or call
    ``draw()``). Toggles: ``colliders``, ``aabbs``, ``contacts``, ``flashes``, ``sleepers``
    (bools; ``sleepers``: sleeping bodies drawn dimmed, on by default, so a pile that fell
    asleep, or a body that should be moving and is not, shows at a glance).

    Parameters:
        physics: the Physics whose bodies are drawn.
        batch: the pyglet Batch to draw into (a new one if None; see ``batch``).
        scale: pixels per world unit.
        offset: the screen position (px) of the world origin.
        max_contacts: at most this many contacts are drawn (the first ones of the set).
        flash_time: seconds (of simulated time) a touch / separate flash lasts.
        move_threshold: bodies that moved less than this many pixels are not re-placed.
    """

    def __init__(
        self,
        physics: Physics,
        batch: pyglet.graphics.Batch | None = None,
        *,
        scale: float = 1.0,
        offset: tuple[float, float] = (0.0, 0.0),
        colliders: bool = True,
        aabbs: bool = False,
        contacts: bool = False,
        flashes: bool = True,
        sleepers: bool = True,
        max_contacts: int = 2000,
        flash_time: float = 0.3,
        move_threshold: float = 0.25,
    ) -> None:
        if not isinstance(physics, Physics):
            raise TypeError(f"physics must be a Physics, got {physics!r}")
        if not (scale > 0 and math.isfinite(scale)):
            raise ValueError(f"scale must be positive and finite, got {scale!r}")
        self.physics = physics
        self.batch = batch if batch is not None else pyglet.graphics.Batch()
        self.scale = float(scale)
        self.offset = (float(offset[0]), float(offset[1]))
        self.max_contacts = max_contacts
        self.flash_time = flash_time
        self.move_threshold = move_threshold
        self._groups = {name: pyglet.graphics.Group(order=i) for i, name in
                        enumerate(("colliders", "aabbs", "contacts", "flashes"))}
        self.colliders, self.aabbs, self.contacts, self.flashes = (
            colliders, aabbs, contacts, flashes)
        self._bodies: dict[int, _Body] = {}
        self._rows: list[_Body] = []
        self._ents = np.zeros(0, dtype=np.int64)
        self._tile_versions: dict[int, int] = {}
        self._drawn = np.zeros((0, 2))
        self._kinds = np.zeros(0, dtype=np.int8)
        self._sensors = np.zeros(0, dtype=np.bool_)
        self._collides = np.zeros(0, dtype=np.bool_)
        self._shapes: list[Shape | None] = []
        self._sleepers = bool(sleepers)
        self._dimmed = np.zeros(0, dtype=np.uint8)  # per row: drawn dimmed (1) or not (0)
        self._n_dimmed = 0
        self._points: list[pshapes.Circle] = []
        self._normals: list[pshapes.Line] = []
        self._shown_contacts = 0
        self._flash_pool: list[tuple[pshapes.Arc, float]] = []
        self._flash_next = 0
        self._seen_step = -1
        self._last_keys = np.zeros(0, dtype=np.int64)
        self._last_points = np.zeros((0, 2))

    # ------------------------------------------------------------ toggles and transform

    def _toggle(name: str) -> property:  # type: ignore[misc]  # noqa: N805
        def get(self: DebugDraw) -> bool:
            return self._groups[name].visible

        def put(self: DebugDraw, value: bool) -> None:
            self._groups[name].visible = bool(value)

        return property(get, put, doc=f"Whether the {name} layer is drawn (and updated).")

    colliders = _toggle("colliders")
    aabbs = _toggle("aabbs")
    contacts = _toggle("contacts")
    flashes = _toggle("flashes")
    del _toggle

    @property
    def sleepers(self) -> bool:
        """Whether sleeping bodies are drawn dimmed (at ``SLEEP_DIM`` of their opacity); off,
        they are drawn as awake ones. Takes effect at the next ``update()``."""
        return self._sleepers

    @sleepers.setter
    def sleepers(self, value: bool) -> None:
        self._sleepers = bool(value)

    def world_to_screen(self, x: float, y: float) -> tuple[float, float]:
        """The screen pixel of the world point ``(x, y)``."""
        return (x * self.scale + self.offset[0], y * self.scale + self.offset[1])

    def screen_to_world(self, x: float, y: float) -> tuple[float, float]:
        """The world point under the screen pixel ``(x, y)``."""
        return ((x - self.offset[0]) / self.scale, (y - self.offset[1]) / self.scale)

    def set_view(self, scale: float, offset: tuple[float, float]) -> None:
        """Change the transform; every body's shapes are made again at the new scale."""
        self.scale = float(scale)
        self.offset = (float(offset[0]), float(offset[1]))
        for body in self._bodies.values():
            body.delete()
        self._bodies.clear()
        self._ents = np.zeros(0, dtype=np.int64)

    # ------------------------------------------------------------ per frame

    def update(self) -> None:
        """Bring the drawing up to date with the physics (call once a frame)."""
        ents, pos = self.physics.interpolated_positions()
        screen = pos * self.scale
        screen += self.offset
        if self._structure_changed(ents):
            self._resync(ents)
        if self.colliders or self.aabbs:
            self._place(screen)
        if self.colliders:
            self._dim_sleepers()
        if self.contacts:
            self._update_contacts()
        else:
            self._hide_contacts(0)
        self._update_flashes()

    def draw(self) -> None:
        """Draw the batch (for callers that let DebugDraw own it)."""
        self.batch.draw()

    def delete(self) -> None:
        """Free every pyglet shape this DebugDraw made."""
        self.set_view(self.scale, self.offset)
        for item in (*self._points, *self._normals, *(f for f, _ in self._flash_pool)):
            item.delete()
        self._points.clear()
        self._normals.clear()
        self._flash_pool.clear()

    # ------------------------------------------------------------ bodies

    def _structure_changed(self, ents: np.ndarray) -> bool:
        if len(ents) != len(self._ents) or not np.array_equal(ents, self._ents):
            return True
        t = self.physics.table
        n = t.n
        if not (np.array_equal(t.kind[:n], self._kinds) and np.array_equal(t.sensor[:n],
                self._sensors) and np.array_equal(t.collides[:n], self._collides)):
            return True
        if self._tile_versions != _tile_versions(t):  # tiles dug or built in place
            return True
        return any(a is not b for a, b in zip(t.shapes, self._shapes, strict=True))

    def _resync(self, ents: np.ndarray) -> None:
        t = self.physics.table
        n = t.n
        old_row = {int(e): i for i, e in enumerate(self._ents.tolist())}
        drawn = np.full((n, 2), np.nan)
        dimmed = np.zeros(n, dtype=np.uint8)
        alive: dict[int, _Body] = {}
        rows: list[_Body] = []
        for i, e in enumerate(ents.tolist()):
            shape = t.shapes[i] if t.collides[i] else None
            kind, sensor = int(t.kind[i]), bool(t.sensor[i])
            body = self._bodies.pop(e, None)
            if body is not None and (body.shape is not shape or body.kind != kind
                                     or body.sensor != sensor
                                     or body.version != getattr(shape, "version", -1)):
                body.delete()
                body = None
            if body is None:
                body = self._make_body(shape, kind, sensor)
            elif e in old_row:
                drawn[i] = self._drawn[old_row[e]]
                dimmed[i] = self._dimmed[old_row[e]]
            alive[e] = body
            rows.append(body)
        for body in self._bodies.values():
            body.delete()
        self._bodies = alive
        self._rows = rows
        self._ents = ents.copy()
        self._drawn = drawn
        self._dimmed = dimmed
        self._n_dimmed = int(np.count_nonzero(dimmed))
        self._kinds = t.kind[:n].copy()
        self._sensors = t.sensor[:n].copy()
        self._collides = t.collides[:n].copy()
        self._shapes = list(t.shapes[:n])
        self._tile_versions = _tile_versions(t)

    def _place(self, screen: np.ndarray) -> None:
        moved = np.abs(screen - self._drawn).max(axis=1) > self.move_threshold
        moved |= np.isnan(self._drawn[:, 0])
        idx = np.flatnonzero(moved)
        if len(idx) == 0:
            return
        rows = self._rows
        for i, (x, y) in zip(idx.tolist(), screen[idx].tolist(), strict=True):
            body = rows[i]
            for item, lx, ly in body.items:
                item.position = (x + lx, y + ly)
            if body.box is not None:
                body.box.position = (x + body.box_at[0], y + body.box_at[1])
        self._drawn[idx] = screen[idx]

    def _dim_sleepers(self) -> None:
        """Dim the bodies that fell asleep since the last frame and undim those that woke
        (all of them when the toggle changed): Python touches only those rows."""
        t = self.physics.table
        if not self._n_dimmed and not (t.sleepers and self._sleepers):
            return
        n = t.n
        want = t.asleep[:n] if self._sleepers else np.zeros(n, dtype=np.uint8)
        changed = np.flatnonzero(want != self._dimmed)
        if len(changed) == 0:
            return
        rows = self._rows
        for i, asleep in zip(changed.tolist(), want[changed].tolist(), strict=True):
            rows[i].dim(bool(asleep))
        self._dimmed[changed] = want[changed]
        self._n_dimmed = int(np.count_nonzero(self._dimmed))

    def _make_body(self, shape: Shape | None, kind: int, sensor: bool) -> _Body:
        body = _Body(shape, kind, sensor)
        if shape is None:
            return body
        body.version = getattr(shape, "version", -1)
        color = SENSOR_COLOR if sensor else KIND_COLORS[kind]
        if isinstance(shape, TileMap):  # its solid tiles, dimmed, under its edges
            body.items.extend(self._tile_fill(shape, color))
        parts = shape.parts if isinstance(shape, Compound) else ((shape, 0.0, 0.0),)
        for part, dx, dy in parts:
            item = self._make_item(part, color)
            # Items are made with the body at the screen origin: their position is the offset.
            x, y = item.position
            body.items.append((item, x + dx * self.scale, y + dy * self.scale))
        x0, y0, x1, y1 = (v * self.scale for v in shape.bounds())
        body.box = pshapes.Box(0, 0, max(x1 - x0, 1.0), max(y1 - y0, 1.0), thickness=1,
                               color=AABB_COLOR, batch=self.batch, group=self._groups["aabbs"])
        body.box_at = (x0, y0)
        body.alphas = [int(item.opacity) for item, _, _ in body.items]
        return body

    def _tile_fill(self, tm: TileMap, color: Color) -> list[tuple[Any, float, float]]:
        """One dim rectangle per run of square tiles of one kind in a row, and one polygon
        per shaped tile, placed relative to the body: kind 1 in the body's colour, other
        kinds in colours of their own."""
        s = self.scale
        size = tm.tile_size * s
        ox, oy = tm.origin[0] * s, tm.origin[1] * s
        rows = tm.shape[0]
        out = []
        shaped = tm.tile_shapes
        for row, line in enumerate(tm.grid.tolist()):
            y = oy + (rows - 1 - row) * size
            c0 = 0
            for c1 in range(1, len(line) + 1):
                if c1 < len(line) and line[c1] == line[c0] and line[c0] not in shaped:
                    continue
                kind = line[c0]
                if kind:
                    r, g, b, _ = color if kind == 1 else TILE_KIND_COLORS[
                        (kind - 2) % len(TILE_KIND_COLORS)]
                    if kind in shaped:  # a slope, a half tile: its polygon
                        points = [(u * size, v * size) for u, v in shaped[kind]]
                        item = pshapes.Polygon(*points, color=(r, g, b, 60), batch=self.batch,
                                               group=self._groups["colliders"])
                        px, py = item.position  # (a polygon is placed by its first point)
                        out.append((item, px + ox + c0 * size, py + y))
                    else:
                        item = pshapes.Rectangle(0, 0, (c1 - c0) * size, size,
                                                 color=(r, g, b, 60), batch=self.batch,
                                                 group=self._groups["colliders"])
                        out.append((item, ox + c0 * size, y))
                c0 = c1
        return out

    def _make_item(self, shape: Shape, color: Color) -> Any:
        """One pyglet shape for a leaf shape, placed as if the body were at the origin."""
        s = self.scale
        kw: dict[str, Any] = {"color": color, "batch": self.batch,
                              "group": self._groups["colliders"]}
        ox, oy = shape.offset[0] * s, shape.offset[1] * s
        if isinstance(shape, Circle):
            r = shape.radius * s
            return pshapes.Circle(ox, oy, r, segments=max(8, min(64, int(r * 0.9))), **kw)
        if isinstance(shape, (Rect, OrientedRect)):
            # outlined, so boxes side by side (a row of crates, tiles) show as separate boxes
            w, h = shape.width * s, shape.height * s
            item = pshapes.BorderedRectangle(ox, oy, w, h, border=OUTLINE_PX,
                                             border_color=outline_of(color), **kw)
            item.anchor_position = (w / 2, h / 2)
            if isinstance(shape, Rect):
                return item
            item.anchor_position = (w / 2, h / 2)
            item.rotation = -shape.angle  # pyglet turns clockwise, ecsphys counter-clockwise
            return item
        if isinstance(shape, Segment):
            (x1, y1), (x2, y2) = shape._verts  # type: ignore[attr-defined]
            return pshapes.Line(x1 * s, y1 * s, x2 * s, y2 * s, thickness=2.0, **kw)
        if isinstance(shape, Polygon):
            verts = shape._verts  # type: ignore[attr-defined]
            return pshapes.Polygon(*((x * s, y * s) for x, y in verts), **kw)
        if isinstance(shape, Mask):
            return _MaskItem(shape, color, s, self.batch, self._groups["colliders"])
        # Unknown kinds are drawn as their bounding box.
        x0, y0, x1, y1 = (v * s for v in shape.bounds())
        return pshapes.Rectangle(x0, y0, max(x1 - x0, 1.0), max(y1 - y0, 1.0), **kw)

    # ------------------------------------------------------------ contacts and flashes

    def _update_contacts(self) -> None:
        cs = self.physics.contact_set
        count = min(len(cs), self.max_contacts)
        group = self._groups["contacts"]
        while len(self._points) < count:
            self._points.append(pshapes.Circle(0, 0, 3, segments=8, color=CONTACT_COLOR,
                                               batch=self.batch, group=group))
            self._normals.append(pshapes.Line(0, 0, 1, 1, thickness=2, color=NORMAL_COLOR,
                                              batch=self.batch, group=group))
        pts = cs.point[:count] * self.scale + self.offset
        ends = pts + cs.normal[:count] * 14.0
        for i, ((x, y), (x2, y2)) in enumerate(zip(pts.tolist(), ends.tolist(), strict=True)):
            point, line = self._points[i], self._normals[i]
            point.position = (x, y)
            point.visible = True
            line.position = (x, y)
            line.x2, line.y2 = x2, y2
            line.visible = True
        self._hide_contacts(count)

    def _hide_contacts(self, count: int) -> None:
        for i in range(count, self._shown_contacts):
            self._points[i].visible = False
            self._normals[i].visible = False
        self._shown_contacts = count

    def _update_flashes(self) -> None:
        physics = self.physics
        now = physics.time
        if physics.steps != self._seen_step:
            self._seen_step = physics.steps
            cs = physics.contact_set
            keys = cs.keys
            if self.flashes:
                new = ~np.isin(keys, self._last_keys)
                gone = ~np.isin(self._last_keys, keys)
                for x, y in cs.point[new][:MAX_NEW_FLASHES].tolist():
                    self._flash(x, y, TOUCH_FLASH, now)
                for x, y in self._last_points[gone][:MAX_NEW_FLASHES].tolist():
                    self._flash(x, y, SEPARATE_FLASH, now)
            self._last_keys = keys
            self._last_points = cs.point.copy()
        if not self.flashes:
            return
        for item, born in self._flash_pool:
            if not item.visible:
                continue
            left = 1.0 - (now - born) / self.flash_time
            if left <= 0.0:
                item.visible = False
            else:
                item.opacity = int(255 * left)  # fading only: moving an Arc's radius is slow

    def _flash(self, x: float, y: float, rgb: tuple[int, int, int], now: float) -> None:
        sx, sy = self.world_to_screen(x, y)
        if len(self._flash_pool) < MAX_FLASHES:
            arc = pshapes.Arc(sx, sy, 7, segments=16, thickness=2, color=(*rgb, 255),
                              batch=self.batch, group=self._groups["flashes"])
            self._flash_pool.append((arc, now))
            return
        i = self._flash_next
        self._flash_next = (i + 1) % len(self._flash_pool)
        arc = self._flash_pool[i][0]
        arc.position = (sx, sy)
        arc.color = (*rgb, 255)
        arc.visible = True
        self._flash_pool[i] = (arc, now)

    # ------------------------------------------------------------ reading

    @property
    def body_count(self) -> int:
        """How many bodies are drawn."""
        return len(self._rows)

    def __repr__(self) -> str:
        return (f"DebugDraw(bodies={len(self._rows)}, scale={self.scale!r}, "
                f"offset={self.offset!r})")
