"""Keeps the body table in step with esper: adopts new bodies, releases gone ones.

Guarantees:
- a body is an entity with a ``Position`` and a ``Velocity`` or a ``Collider``; an entity
  with a Collider and a Geometry collides;
- when nothing was added to or removed from the esper world since the last sync, the sync
  costs one identity check (esper hands back the same cached query list);
- otherwise entities that appeared, vanished or had a component added, removed or replaced
  are re-adopted; the others are left alone. Collider/Geometry changes are noted in
  ``table.changed`` for the events system;
- a body holding a shape as a component of its own (``create_entity(..., Circle(0.5))``
  instead of ``Geometry(Circle(0.5))``) and no Geometry is a mistake that would make a body
  without a boundary pass through everything: the sync raises ``TypeError`` naming the entity,
  the shape and the fix, adopts nothing, and looks again at the next sync;
- a world cleared with ``esper.clear_database()`` (a level restarting: esper counts entity ids
  from 1 again, so the new level's entities take the old level's ids) is forgotten before
  anything of the new level is adopted: every old body is released, and ``on_clear`` (the
  physics) drops the old pairs and their undelivered events without a ``separate`` (it would
  name entities of the new level); the new level's pairs ``touch`` afresh. The clear is seen
  by esper's entity counter being another object than at the last sync, checked only in a
  sync (a clear empties esper's query cache, so a sync follows it);
- a body with a Collider and no Geometry collides with nothing (it passes through walls): when
  the sync adopts one, it warns once for that entity (`MissingGeometryWarning`, naming it and
  the missing Geometry, pointing at the game's call into the physics); not an error, as the
  game may add the Geometry later. An entity warns again only after it was gone, or after it
  had a Geometry and lost it.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

import esper

from ..body_table import BodyTable
from ..components import AccelerationMap, Collider, Geometry, Position, Velocity
from ..shapes import Shape

_TYPES = (Position, Velocity, AccelerationMap, Collider, Geometry)


class MissingGeometryWarning(UserWarning):
    """A body has a Collider and no Geometry: it collides with nothing until it gets one."""


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
        self._seen: object = None
        # esper's entity counter of this world: clear_database replaces it
        self._counter: object = esper._entity_count
        self._warned: set[int] = set()  # bodies warned about a Collider without Geometry
        self.syncs = 0  # how many full syncs ran (tests and diagnostics)

    def process(self, dt: float = 0.0) -> None:
        positions = esper.get_component(Position)
        if positions is self._seen:
            return
        self.syncs += 1
        self._sync(positions)
        self._seen = positions  # after the sync: one that raised is tried again

    def _sync(self, positions: list[tuple[int, Position]]) -> None:
        table = self.table
        if esper._entity_count is not self._counter:  # the world was cleared: a new level
            if self.on_clear is not None:
                self.on_clear()
            table.clear()
            table.changed.clear()
            self._warned.clear()
            self._counter = esper._entity_count
        maps = [dict(positions)] + [dict(esper.get_component(t)) for t in _TYPES[1:]]
        pos_d, vel_d, acc_d, col_d, geo_d = maps
        wanted = pos_d.keys() & (vel_d.keys() | col_d.keys())
        _check_bare_shapes(wanted, geo_d)
        present = table.row_of.keys()
        gone = present - wanted
        new = wanted - present
        kept = present & wanted
        # Entities whose set of components changed, or that got a new instance of one.
        dirty: set[int] = set()
        collision_dirty: set[int] = set()
        for i, d in enumerate(maps):
            changed = (table.has[i] ^ d.keys()) & kept
            changed |= {e for e, c in d.items() if c._table is not table} & kept
            dirty |= changed
            if i >= 3:  # Collider or Geometry: the entity's touching pairs start again
                collision_dirty |= changed
        for e in gone:
            table.remove(e)
        for e in sorted(dirty):
            table.remove(e)
        for e in sorted(new | dirty):
            table.add(e, (pos_d[e], vel_d.get(e), acc_d.get(e), col_d.get(e), geo_d.get(e)))
        table.changed |= collision_dirty
        self._warned -= gone
        self._warned &= col_d.keys() - geo_d.keys()  # one that got its Geometry may warn again
        for e in sorted((new | dirty) & (col_d.keys() - geo_d.keys() - self._warned)):
            self._warned.add(e)
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


def _check_bare_shapes(bodies: set[int], geometry: dict[int, Geometry]) -> None:
    """``TypeError`` if a body without a Geometry holds a shape as a component of its own.

    Cheap: esper indexes entities by component type, so this looks only at the shape types
    some entity holds (usually none), not at every body."""
    components = esper._components  # the current world's {type: entities}
    for kind in list(components):
        if not (isinstance(kind, type) and issubclass(kind, Shape)):
            continue
        for e in sorted(components[kind]):
            if e in bodies and e not in geometry:
                shape = esper.component_for_entity(e, kind)
                raise TypeError(
                    f"entity {e} has the shape {shape!r} as a component of its own, and no "
                    f"Geometry: a body's shape goes inside a Geometry component, e.g. "
                    f"esper.create_entity(Position(...), Collider(...), Geometry({shape!r})) "
                    f"or esper.add_component({e}, Geometry({shape!r})) (and remove the bare "
                    f"{kind.__name__})")
