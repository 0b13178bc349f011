"""Contact events as games see them: the `BodyContact` value and the `EventHandlers` registry.

Guarantees:
- a `BodyContact` is a plain value of Python numbers: ``a < b`` (entity ids), ``normal`` a unit
  tuple from ``a`` to ``b``, ``depth`` the penetration (``>= -contact_offset``), ``point`` a
  world point, ``duration`` the seconds since the pair's touch (``0.0`` on the touch itself),
  ``steps`` the fixed steps since the touch, ``sensor`` True where either side is a sensor,
  ``speed`` the approach speed along the normal (units per second) of the impact of the
  pair in that step (``0.0`` in a step where the pair only touched: resting, or overlapping
  sensors without a crossing). A pair that met during the step and ends it apart has
  ``depth == 0.0`` and the impact's ``normal`` and ``point``;
- `EventHandlers` keeps STRONG references (a lambda stays registered, unlike
  ``esper.set_handler``), works as a plain call and as a decorator (bare or with filters) and
  returns the handler; removing compares with ``==`` so a bound method given again is found;
- filters: ``entity=e`` matches pairs with ``e`` on either side; ``layers=(x, y)`` matches pairs
  where one side's layer has a bit of ``x`` and the other side's a bit of ``y`` (either order);
  both given: both must match. Layers may be names when the registry has a `Layers`;
- bad arguments raise ``TypeError`` / ``ValueError`` naming the argument and the value, and
  register nothing;
- registering an equal handler with equal filters for the same event again is a no-op; a
  handler removed while events are being delivered receives none of the remaining ones.

The events system (`ecsphys.systems.events.EventsSystem`) reads the registry once per step and
delivers to the handlers in registration order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from .components import ALL
from .layers import Layers

#: The events, in the order they are delivered within a step.
EVENTS = ("separate", "touch", "keep_touching")

#: The esper event name of each event (``esper.dispatch_event(ESPER_NAMES[event], contact)``).
ESPER_NAMES = {"touch": "on_touch", "keep_touching": "on_keep_touching",
               "separate": "on_separate"}

Vec = tuple[float, float]
Handler = Callable[["BodyContact"], Any]
LayerFilter = tuple["int | str", "int | str"]
F = TypeVar("F", bound=Callable[..., Any])


class BodyContact:
    """One touching pair of bodies, as handed to event handlers and returned by polling.

    >>> c = BodyContact(3, 7, (1.0, 0.0), 0.01, (0.5, 0.0), 0.0, 0, False)
    >>> c.other(3), c.other(7)
    (7, 3)
    >>> c.normal_from(7)
    (-1.0, -0.0)
    >>> c
    BodyContact(a=3, b=7, normal=(1, 0), depth=0.01, point=(0.5, 0), duration=0, steps=0)
    """

    __slots__ = ("a", "b", "normal", "depth", "point", "duration", "steps", "sensor", "speed",
                 "tile", "tile_kind")

    a: int
    b: int
    normal: Vec
    depth: float
    point: Vec
    duration: float
    steps: int
    sensor: bool
    #: approach speed of this step's impact along the normal (units/s); 0.0 without one
    speed: float
    #: with a `TileMap` on one side: the ``(row, col)`` of the tile touched (a body touching
    #: several tiles of a map has a contact per tile) and its kind; else None and 0
    tile: tuple[int, int] | None
    tile_kind: int

    def __init__(self, a: int, b: int, normal: Vec, depth: float, point: Vec,
                 duration: float, steps: int, sensor: bool, speed: float = 0.0,
                 tile: tuple[int, int] | None = None, tile_kind: int = 0) -> None:
        self.a = a
        self.b = b
        self.normal = normal
        self.depth = depth
        self.point = point
        self.duration = duration
        self.steps = steps
        self.sensor = sensor
        self.speed = speed
        self.tile = tile
        self.tile_kind = tile_kind

    def other(self, entity: int) -> int:
        """The other side of the pair; ``ValueError`` if ``entity`` is not in the pair."""
        if entity == self.a:
            return self.b
        if entity == self.b:
            return self.a
        raise ValueError(f"entity {entity!r} is not in the pair ({self.a}, {self.b})")

    def normal_from(self, entity: int) -> Vec:
        """The normal pointing from ``entity``'s side to the other; ``ValueError`` if not in it."""
        if entity == self.a:
            return self.normal
        if entity == self.b:
            return (-self.normal[0], -self.normal[1])
        raise ValueError(f"entity {entity!r} is not in the pair ({self.a}, {self.b})")

    @property
    def pair(self) -> tuple[int, int]:
        """``(a, b)``."""
        return (self.a, self.b)

    def _fields(self) -> tuple[object, ...]:
        return (self.a, self.b, self.normal, self.depth, self.point, self.duration, self.steps,
                self.sensor, self.speed, self.tile, self.tile_kind)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BodyContact):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable slots: not hashable

    def __repr__(self) -> str:
        def g(x: float) -> str:
            return f"{x:.6g}"

        nx, ny = self.normal
        px, py = self.point
        sensor = ", sensor=True" if self.sensor else ""
        speed = f", speed={g(self.speed)}" if self.speed else ""
        tile = "" if self.tile is None else f", tile={self.tile}, tile_kind={self.tile_kind}"
        return (f"BodyContact(a={self.a}, b={self.b}, normal=({g(nx)}, {g(ny)}), "
                f"depth={g(self.depth)}, point=({g(px)}, {g(py)}), "
                f"duration={g(self.duration)}, steps={self.steps}{speed}{tile}{sensor})")


class HandlerEntry:
    """One registration: the handler, its filters and whether it is still registered."""

    __slots__ = ("fn", "entity", "layers", "active")

    def __init__(self, fn: Handler, entity: int | None, layers: tuple[int, int] | None) -> None:
        self.fn = fn
        self.entity = entity
        self.layers = layers
        self.active = True

    def same(self, fn: object, entity: int | None, layers: tuple[int, int] | None) -> bool:
        """Whether this registration is of ``fn`` (compared with ``==``) with these filters."""
        return self.fn == fn and self.entity == entity and self.layers == layers

    def __repr__(self) -> str:
        return f"HandlerEntry({self.fn!r}, entity={self.entity!r}, layers={self.layers!r})"


def _check_entity(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"entity must be an int entity id, got {value!r}")
    entity = int(value)  # type: ignore[call-overload]
    if entity < 0:
        raise ValueError(f"entity must be >= 0, got {value!r}")
    return entity


class EventHandlers:
    """The handlers of touch / keep_touching / separate events of one `Physics`.

    >>> h = EventHandlers(Layers("player", "enemy"))
    >>> @h.on_touch(layers=("player", "enemy"))
    ... def hit(contact):
    ...     pass
    >>> h.on_separate(lambda c: None, entity=5) is not None
    True
    >>> h.count(), h.remove_handler(hit), h.count()
    (2, 1, 1)

    Parameters:
        layers: the game's named layers, so filters may name them (``layers=("player", "coin")``).
    """

    def __init__(self, layers: Layers | None = None) -> None:
        if layers is not None and not isinstance(layers, Layers):
            raise TypeError(f"layers must be a Layers or None, got {layers!r}")
        self.layers = layers
        self._entries: dict[str, list[HandlerEntry]] = {e: [] for e in EVENTS}
        #: bumped on every add / remove, so readers may cache a snapshot.
        self.version = 0
        #: how many registrations there are, all events together (kept with every change)
        self.registered = 0

    # ---------------------------------------------------------------- registering

    @overload
    def on_touch(self, fn: F, *, entity: int | None = ...,
                 layers: LayerFilter | None = ...) -> F: ...
    @overload
    def on_touch(self, fn: None = ..., *, entity: int | None = ...,
                 layers: LayerFilter | None = ...) -> Callable[[F], F]: ...
    def on_touch(self, fn: Any = None, *, entity: int | None = None,
                 layers: LayerFilter | None = None) -> Any:
        """Call ``fn(contact)`` when a pair starts touching; usable as a decorator."""
        return self._register("touch", fn, entity, layers)

    @overload
    def on_keep_touching(self, fn: F, *, entity: int | None = ...,
                         layers: LayerFilter | None = ...) -> F: ...
    @overload
    def on_keep_touching(self, fn: None = ..., *, entity: int | None = ...,
                         layers: LayerFilter | None = ...) -> Callable[[F], F]: ...
    def on_keep_touching(self, fn: Any = None, *, entity: int | None = None,
                         layers: LayerFilter | None = None) -> Any:
        """Call ``fn(contact)`` every step a pair stays touching after its touch step
        (``contact.duration`` and ``contact.steps`` grow); usable as a decorator."""
        return self._register("keep_touching", fn, entity, layers)

    @overload
    def on_separate(self, fn: F, *, entity: int | None = ...,
                    layers: LayerFilter | None = ...) -> F: ...
    @overload
    def on_separate(self, fn: None = ..., *, entity: int | None = ...,
                    layers: LayerFilter | None = ...) -> Callable[[F], F]: ...
    def on_separate(self, fn: Any = None, *, entity: int | None = None,
                    layers: LayerFilter | None = None) -> Any:
        """Call ``fn(contact)`` when a pair stops touching (also when a side is deleted, loses
        its collider or changes it); the contact is the pair's last known one. Usable as a
        decorator."""
        return self._register("separate", fn, entity, layers)

    def add(self, event: str, fn: F, *, entity: int | None = None,
            layers: LayerFilter | None = None) -> F:
        """Register ``fn`` for ``event`` (``"touch"``, ``"keep_touching"``, ``"separate"``, or
        the esper names ``"on_touch"`` ...); returns ``fn``."""
        name = self._event_name(event)
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {fn!r}")
        self._add(name, fn, _check_entity(entity), self._check_layers(layers))
        return fn

    def remove_handler(self, fn: object, event: str | None = None) -> int:
        """Unregister every registration of ``fn`` (compared with ``==``, so a bound method
        given again is found) for ``event``, or for all events when ``event`` is None.
        Returns how many registrations were removed (0 if none: not an error)."""
        names = EVENTS if event is None else (self._event_name(event),)
        removed = 0
        for name in names:
            keep: list[HandlerEntry] = []
            for entry in self._entries[name]:
                if entry.fn == fn:
                    entry.active = False
                    removed += 1
                else:
                    keep.append(entry)
            self._entries[name] = keep
        if removed:
            self.version += 1
            self.registered -= removed
        return removed

    def clear(self) -> None:
        """Unregister every handler."""
        for name in EVENTS:
            for entry in self._entries[name]:
                entry.active = False
            self._entries[name] = []
        self.version += 1
        self.registered = 0

    # ---------------------------------------------------------------- reading

    def entries(self, event: str) -> tuple[HandlerEntry, ...]:
        """A snapshot of the registrations of ``event``, in registration order."""
        return tuple(self._entries[self._event_name(event)])

    def count(self, event: str | None = None) -> int:
        """How many registrations ``event`` has (all events when None)."""
        names = EVENTS if event is None else (self._event_name(event),)
        return sum(len(self._entries[n]) for n in names)

    def __repr__(self) -> str:
        counts = ", ".join(f"{n}={len(self._entries[n])}" for n in EVENTS)
        return f"EventHandlers({counts})"

    # ---------------------------------------------------------------- helpers

    def _register(self, name: str, fn: Any, entity: object, layers: object) -> Any:
        # Filters are checked now, so a bad decorator fails where it is written.
        ent = _check_entity(entity)
        lay = self._check_layers(layers)
        if fn is None:
            def decorator(f: F) -> F:
                if not callable(f):
                    raise TypeError(f"fn must be callable, got {f!r}")
                self._add(name, f, ent, lay)
                return f
            return decorator
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {fn!r}")
        self._add(name, fn, ent, lay)
        return fn

    def _add(self, name: str, fn: Handler, entity: int | None,
             layers: tuple[int, int] | None) -> None:
        entries = self._entries[name]
        if any(e.same(fn, entity, layers) for e in entries):
            return
        # A new list, so a snapshot taken during delivery is never changed under it.
        self._entries[name] = [*entries, HandlerEntry(fn, entity, layers)]
        self.version += 1
        self.registered += 1

    @staticmethod
    def _event_name(event: object) -> str:
        if isinstance(event, str):
            name = event[3:] if event.startswith("on_") else event
            if name in EVENTS:
                return name
        raise ValueError(f"event must be one of {EVENTS}, got {event!r}")

    def _check_layers(self, value: object) -> tuple[int, int] | None:
        if value is None:
            return None
        if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
            raise TypeError(f"layers must be a pair (x, y) of layer bits or names, got {value!r}")
        if len(value) != 2:
            raise ValueError(f"layers must be a pair (x, y) of layer bits or names, got {value!r}")
        return (self._layer_bits(value[0], value), self._layer_bits(value[1], value))

    def _layer_bits(self, item: object, whole: object) -> int:
        if isinstance(item, str):
            if self.layers is None:
                raise ValueError(f"layers {whole!r} names a layer, but this Physics has no "
                                 f"Layers; give bits or pass layers=Layers(...) to Physics")
            return self.layers.bit(item)
        if isinstance(item, bool) or not hasattr(item, "__index__"):
            raise TypeError(f"layers must hold layer bits (int) or names, got {whole!r}")
        bits = int(item)  # type: ignore[call-overload]
        if bits <= 0 or bits > ALL:
            raise ValueError(f"layers bits must be in 1 .. 0xFFFFFFFF, got {whole!r}")
        return bits
