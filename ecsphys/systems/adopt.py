"""Keeps the body table in step with esper: adopts new bodies, releases gone ones.

Guarantees:
- a body is an entity with a ``Position`` and a ``Velocity`` or a ``Collider``; an entity
  with a Collider and a Geometry collides;
- a sync costs what changed since the last one, not the size of the world: the sets in
  which esper keeps the entities of each body component type (and of each shape type) are
  replaced by `WatchedSet` s, which note every entity esper adds to them or discards from
  them (``create_entity``, ``add_component`` including a replaced component,
  ``remove_component``, ``delete_entity`` and the deferred deletions), so the sync looks at
  those entities only. With nothing noted it costs a few dictionary look-ups. When esper drops
  a watched set (its last entity went) and later makes a plain one, every entity in the new
  set is looked at and the set is watched again;
- entities that appeared, vanished or had a component added, removed or replaced are
  re-adopted, in entity order (releases first); the others are left alone. Collider/Geometry
  changes are noted in ``table.changed`` for the events system;
- a body holding a shape as a component of its own (``create_entity(..., Circle(0.5))``
  instead of ``Geometry(Circle(0.5))``) and no Geometry is a mistake that would make a body
  without a boundary pass through everything: the sync raises ``TypeError`` naming the entity,
  the shape and the fix, adopts nothing, and looks again at the next sync;
- a world cleared with ``esper.clear_database()`` (a level restarting: esper counts entity ids
  from 1 again, so the new level's entities take the old level's ids) is forgotten before
  anything of the new level is adopted: every old body is released, and ``on_clear`` (the
  physics) drops the old pairs and their undelivered events without a ``separate`` (it would
  name entities of the new level); the new level's pairs ``touch`` afresh. The clear is seen
  by esper's entity counter being another object than at the last sync;
- a body with a Collider and no Geometry collides with nothing (it passes through walls): when
  the sync adopts one, it warns once for that entity (`MissingGeometryWarning`, naming it and
  the missing Geometry, pointing at the game's call into the physics); not an error, as the
  game may add the Geometry later. An entity warns again only after it was gone, or after it
  had a Geometry and lost it;
- ``release()`` gives esper plain sets back (a Physics taken out of its world).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterable

import esper

from ..components import AccelerationMap, Collider, Geometry, Position, Velocity
from ..shapes import Shape
from ..state.body_table import BodyTable

_TYPES = (Position, Velocity, AccelerationMap, Collider, Geometry)


class MissingGeometryWarning(UserWarning):
    """A body has a Collider and no Geometry: it collides with nothing until it gets one."""


class WatchedSet(set):  # type: ignore[type-arg]
    """esper's set of the entities that hold one component type, noting in ``log`` every
    entity added to it or discarded from it (esper calls only ``add`` and ``discard`` on it),
    and in ``emptied[0]`` that it became empty (esper then drops it from its world)."""

    __slots__ = ("log", "emptied")

    def __init__(self, entities: Iterable[int], log: set[int],
                 emptied: list[bool] | None = None) -> None:
        super().__init__(entities)
        self.log = log
        self.emptied = emptied if emptied is not None else [False]

    def add(self, entity: int) -> None:
        set.add(self, entity)
        self.log.add(entity)

    def discard(self, entity: int) -> None:
        set.discard(self, entity)
        self.log.add(entity)
        if not self:
            self.emptied[0] = True


def _shape_types() -> list[type]:
    """Every shape class (a bare shape component is looked for among these)."""
    out: list[type] = []
    stack: list[type] = [Shape]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in out:
                out.append(sub)
                stack.append(sub)
    return out


class AdoptSystem(esper.Processor):
    """Adopts entities into the body table (stage 0 of the step).

    Parameters:
        table: the body table.
        on_clear: called when the esper world was cleared (see the module docstring), before
            the new bodies are adopted; the sync itself releases the old bodies after it.
    """

    def __init__(self, table: BodyTable, on_clear: Callable[[], None] | None = None) -> None:
        self.table = table
        self.on_clear = on_clear
        # esper's entity counter of this world: clear_database replaces it
        self._counter: object = esper._entity_count
        self._warned: set[int] = set()  # bodies warned about a Collider without Geometry
        #: the entities esper added to or discarded from a watched set since the last sync
        self._log: set[int] = set()
        #: the watched sets, by component type, as installed in esper's world
        self._watched: dict[type, WatchedSet] = {}
        #: set by a watched set that became empty: esper may have dropped it since
        self._emptied: list[bool] = [False]
        self._full = True  # the next sync reads the whole world (the first one)
        self.syncs = 0  # how many syncs looked at some entity (tests and diagnostics)
        self.full_syncs = 0  # how many of them read the whole world
        self.looked = 0  # how many entities the last sync looked at

    def process(self, dt: float = 0.0) -> None:
        # (`Physics` skips the call when `idle` holds: its test is repeated inline there)
        components = esper._components  # the current world's {type: entities}
        if esper._entity_count is not self._counter:  # the world was cleared: a new level
            self._clear()
        log = self._log
        if self._emptied[0]:  # esper drops an emptied set, and may have made a plain one
            self._emptied[0] = False
            for kind, watched in self._watched.items():
                found = components.get(kind)
                if found is not watched:
                    if found is not None:
                        log.update(found)
                    components[kind] = self._watched[kind] = WatchedSet(
                        found or (), log, self._emptied)
        if not log and not self._full:
            self.looked = 0
            return
        self.syncs += 1
        if self._full:
            self._watch(components)
            # every entity of the world, and every body the table holds
            entities: Iterable[int] = list(esper._entities.keys() | self.table.row_of.keys())
        else:
            entities = sorted(log)
        log.clear()
        self.looked = len(entities)
        try:
            self._sync(entities)
        except BaseException:
            log.update(entities)  # looked at again at the next sync
            raise
        if self._full:
            self.full_syncs += 1
            self._full = False

    @property
    def idle(self) -> bool:
        """Nothing to adopt: no entity logged since the last sync, no full read pending, no
        watched set dropped by esper and the world not cleared (``process`` would return at
        once). `Physics` tests the same inline before it calls ``process``."""
        return not (self._log or self._full or self._emptied[0]
                    or esper._entity_count is not self._counter)

    def release(self) -> None:
        """Put plain sets back in esper's world (call with that world current)."""
        components = esper._components
        for kind, watched in self._watched.items():
            if components.get(kind) is watched:
                components[kind] = set(watched)
        self._watched.clear()
        self._full = True

    def _watch(self, components: dict[type, set[int]]) -> None:
        """Watch the sets of every body component and shape type (made empty if missing)."""
        for kind in (*_TYPES, *_shape_types()):
            found = components.get(kind)
            if not isinstance(found, WatchedSet) or found.log is not self._log:
                components[kind] = self._watched[kind] = WatchedSet(found or (), self._log,
                                                                    self._emptied)

    def _clear(self) -> None:
        if self.on_clear is not None:
            self.on_clear()
        self.table.clear()
        self.table.changed.clear()
        self._warned.clear()
        self._log.clear()
        self._watched.clear()  # esper's dictionary was emptied: nothing of ours is in it
        self._counter = esper._entity_count
        self._full = True

    def _sync(self, entities: Iterable[int]) -> None:
        table = self.table
        db = esper._entities
        row_of = table.row_of
        gone: list[int] = []
        new: list[int] = []
        dirty: list[int] = []
        collision_dirty: set[int] = set()
        found: dict[int, tuple] = {}
        no_geometry: list[int] = []
        for e in entities:
            held = db.get(e)
            row = row_of.get(e)
            if held is None:
                if row is not None:
                    gone.append(e)
                continue
            comps = (held.get(Position), held.get(Velocity), held.get(AccelerationMap),
                     held.get(Collider), held.get(Geometry))
            wanted = comps[0] is not None and (comps[1] is not None or comps[3] is not None)
            if not wanted:
                if row is not None:
                    gone.append(e)
                continue
            if comps[4] is None:
                _check_bare_shape(e, held)
                if comps[3] is not None:
                    no_geometry.append(e)
            found[e] = comps
            if row is None:
                new.append(e)
                continue
            old = table.comps[row]
            if any(a is not b for a, b in zip(old, comps, strict=True)):
                dirty.append(e)
                if old[3] is not comps[3] or old[4] is not comps[4]:
                    collision_dirty.add(e)
        for e in sorted(gone):
            table.remove(e)
        dirty.sort()
        for e in dirty:
            table.remove(e)
        added = sorted(new + dirty)
        if len(added) > 8:  # a level loading: each column written once
            table.add_many(added, [found[e] for e in added])
        else:
            for e in added:
                table.add(e, found[e])
        table.changed |= collision_dirty
        warned = self._warned
        warned.difference_update(gone)
        # one that got its Geometry (or lost its Collider) may warn again later
        warned.difference_update(e for e in found if e not in no_geometry)
        fresh = set(added)
        for e in sorted(no_geometry):
            if e in fresh and e not in warned:
                warned.add(e)
                warnings.warn(
                    f"entity {e} has a Collider and no Geometry: it collides with nothing (it "
                    f"passes through walls) until it gets one, e.g. "
                    f"esper.add_component({e}, Geometry(Circle(0.5)))",
                    MissingGeometryWarning, stacklevel=_game_stacklevel())


def _game_stacklevel() -> int:
    """The ``stacklevel`` of the game's call into the physics (``esper.process``,
    ``physics.step``...): the first frame outside ecsphys and esper, seen from the caller."""
    frame = sys._getframe(1)  # the function that calls warnings.warn: stacklevel 1
    level = 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").partition(".")[0] \
            in ("ecsphys", "esper"):
        frame = frame.f_back
        level += 1
    return level


def _check_bare_shape(entity: int, held: dict[type, object]) -> None:
    """``TypeError`` if body ``entity`` (which has no Geometry) holds a shape as a component
    of its own."""
    for kind, shape in held.items():
        if isinstance(kind, type) and issubclass(kind, Shape):
            raise TypeError(
                f"entity {entity} has the shape {shape!r} as a component of its own, and no "
                f"Geometry: a body's shape goes inside a Geometry component, e.g. "
                f"esper.create_entity(Position(...), Collider(...), Geometry({shape!r})) "
                f"or esper.add_component({entity}, Geometry({shape!r})) (and remove the bare "
                f"{kind.__name__})")
