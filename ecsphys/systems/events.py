"""Turns each step's touching pairs into touch / keep_touching / separate events (stage 5).

Guarantees:
- events are computed exactly once per ``process`` call (once per fixed step) by diffing this
  step's sorted pair keys against the previous step's: a new pair gives ``touch``, a kept pair
  ``keep_touching`` (``duration`` grows by ``dt``, ``steps`` by 1), a vanished pair ``separate``
  carrying its last known contact (normal, depth, point, speed, duration, steps). A deleted
  entity's pairs vanish from the contacts, so they separate. What touches is the
  narrowphase's decision (its `ContactSet`): a pair that met during the step is in it even if
  it ends the step apart, so an impact gives its ``touch`` in the step of the impact and, if
  the pair is apart then, its ``separate`` in the next step; a pair already touching stays in
  it up to the wider separation offset (hysteresis), so a resting pair does not flicker;
- ``contact.speed`` is the approach speed of the step's impact (units per second along the
  normal; ``0.0`` in a step where the pair only touched);
- a pair of the previous step with an entity in ``changed`` (collider kind / layer / mask /
  sensor changed, Collider or Geometry replaced or removed) ends with a ``separate`` this step
  and, if it still touches, starts again with a ``touch``; ``changed`` is cleared when read;
- deterministic order: within a step all ``separate`` first, then ``touch``, then
  ``keep_touching``, each sorted by ``(a, b)``; per event, esper's bus first (each handler
  ``esper.set_handler("on_touch", ...)`` holds, called as ``esper.dispatch_event`` would, in
  esper's order), then the registry's matching handlers in registration order. The same
  input sequence gives the same event sequence;
- every delivered ``touch`` is followed by exactly one ``separate`` (for a handler, as long as
  it stays registered; filters see the layers the pair had when it touched); a handler that
  raises keeps the event from no other handler, esper's included;
- the pairs of sleeping bodies go on touching: their rows leave the step's rows for the
  sleeping contacts (`systems.sleeping_contacts`) in the step after they fall asleep, and
  cost nothing per step there; ``touching``, ``contacts`` and ``keep_touching`` read them
  with the step's pairs, in one ``(a, b)`` order, their durations and steps counted on
  from when they fell asleep (built only when someone reads or listens). When a side wakes
  (`woke`) the rows come back into the last step's rows, so the next diff keeps the pair
  with its history if it still touches, or separates it;
- a quiet step (every body asleep, nothing changed) keeps every pair; with nobody listening
  it costs no work per pair (the sleeping contacts' clock goes on);
- nobody listening costs no Python work per pair: filters are NumPy masks over the pair
  columns, and `BodyContact` objects are built only for events somebody receives;
- the new state is committed before any handler runs. An exception in a handler propagates out
  of ``process``; the deliveries not yet made are made at the start of the next ``process``
  call, before that step's events. Handlers may add or remove handlers, delete entities, or
  change components while being called: a removed handler gets no further events, an added
  one gets events from the next step on, and changes show in the next step.

Algorithm: ``keys`` are ``a << 32 | b`` (sorted, unique). One compiled merge of the previous
step's rows with this step's (`contact_rows.diff`, in C memory: the narrowphase's
`ContactRows` are read where they lie) gives which current rows existed before (kept,
carrying duration / steps / layers over) and which previous rows are still there; the rest are
touches and separates. NumPy columns of the pairs are made only when someone listens, polls
or takes a snapshot. Layers of new pairs come with the contact set (the narrowphase reads them
from the body table) and are kept with the pair, so a separate can be filtered by layer even
after a side has left the table.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any

import esper
import numpy as np

from ..events import ESPER_NAMES, BodyContact, EventHandlers, HandlerEntry
from ..state.body_table import BodyTable
from ..state.contact_set import ContactSet
from ..state.id_sets import unique_ids
from .contact_rows import ContactRows, diff, merge, pick
from .sleep import dormant_rows, still_pairs
from .sleeping_contacts import SleepingContacts

#: esper's event names for the three events (looked up in ``esper.event_registry``)
_ESPER_EVENT_NAMES = tuple(ESPER_NAMES.values())

#: Below this many new entities, layers are looked up with the table's dict; above, vectorised.
_DICT_LOOKUP_MAX = 128

#: A side of a pair key (``a << 32 | b``) is below this: the entities the sleeping contacts
#: look up by side (larger ones, never seen in practice, take the pass over every row).
_KEY_SIDE = 1 << 31


def _fit_keys(entities: np.ndarray) -> bool:
    """Whether ``entities`` (ascending) can be looked up by side in the sleeping contacts:
    none, or every one in ``[0, _KEY_SIDE)``."""
    return not len(entities) or bool(entities[0] >= 0 and entities[-1] < _KEY_SIDE)


class _Pairs:
    """The touching pairs of one step as columns (sorted by key), with their history."""

    __slots__ = ("keys", "a", "b", "normal", "depth", "point", "sensor", "duration", "steps",
                 "layer_a", "layer_b", "speed", "tile", "tile_kind")

    def __init__(self, keys: np.ndarray, a: np.ndarray, b: np.ndarray, normal: np.ndarray,
                 depth: np.ndarray, point: np.ndarray, sensor: np.ndarray,
                 duration: np.ndarray, steps: np.ndarray, layer_a: np.ndarray,
                 layer_b: np.ndarray, speed: np.ndarray | None = None,
                 tile: np.ndarray | None = None, tile_kind: np.ndarray | None = None) -> None:
        self.keys = keys
        self.a = a
        self.b = b
        self.normal = normal
        self.depth = depth
        self.point = point
        self.sensor = sensor
        self.duration = duration
        self.steps = steps
        self.layer_a = layer_a
        self.layer_b = layer_b
        self.speed = np.zeros(len(keys)) if speed is None else speed
        self.tile = np.full(len(keys), -1, dtype=np.int64) if tile is None else tile
        self.tile_kind = np.zeros(len(keys), dtype=np.int64) if tile_kind is None else tile_kind

    @classmethod
    def of(cls, rows: ContactRows) -> _Pairs:
        """The pairs of ``rows`` (which have their history) as NumPy columns, made once and
        kept with the rows."""
        made = rows.cached_pairs
        if made is None:
            col = rows.array
            made = cls(col("keys"), col("a"), col("b"), col("normal"), col("depth"),
                       col("point"), col("sensor"), col("duration"), col("steps"),
                       col("history_layer_a"), col("history_layer_b"), col("speed"),
                       col("tile"), col("tile_kind"))
            rows.cached_pairs = made
        return made

    def rows(self, toi: np.ndarray | None = None,
             index: np.ndarray | None = None) -> ContactRows:
        """These pairs as `ContactRows` with their history (for the compiled diff); ``toi``
        (default inf) and ``index`` (default 0) per row where given (the stamps of the
        sleeping contacts)."""
        n = len(self.keys)
        extra = {} if index is None else {"index": index}
        return ContactRows.from_columns(n, {**extra,
            "keys": self.keys, "a": self.a, "b": self.b, "layer_a": self.layer_a,
            "layer_b": self.layer_b, "tile": self.tile, "tile_kind": self.tile_kind,
            "normal": np.asarray(self.normal, dtype=np.float64).reshape(n, 2),
            "point": np.asarray(self.point, dtype=np.float64).reshape(n, 2),
            "depth": self.depth, "toi": np.full(n, np.inf) if toi is None else toi,
            "speed": self.speed,
            "sensor": self.sensor, "duration": self.duration, "steps": self.steps,
            "history_layer_a": self.layer_a, "history_layer_b": self.layer_b})

    @classmethod
    def empty(cls) -> _Pairs:
        i = np.zeros(0, dtype=np.int64)
        f = np.zeros(0, dtype=np.float64)
        v = np.zeros((0, 2), dtype=np.float64)
        return cls(i, i, i, v, f, v, np.zeros(0, dtype=np.bool_), f, i, i, i)

    def __len__(self) -> int:
        return len(self.keys)


_Target = tuple[Callable[[BodyContact], Any], "HandlerEntry | None", "list[bool] | None"]


class _Batch:
    """The events of one kind somebody receives: the source pairs, the selected rows, and for
    each target (esper's bus or a handler entry) which of those rows it gets (None: all)."""

    __slots__ = ("event", "src", "sel", "targets")

    def __init__(self, event: str, src: _Pairs, sel: np.ndarray,
                 targets: list[tuple[HandlerEntry | None, np.ndarray | None]]) -> None:
        self.event = event
        self.src = src
        self.sel = sel
        self.targets = targets

    def columns(self) -> tuple[list[Any], ...]:
        """The selected rows as Python lists (``tolist`` is the fast way to Python numbers);
        normals and points as lists of tuples."""
        src, sel = self.src, self.sel
        normal = src.normal[sel]
        point = src.point[sel]
        return (src.a[sel].tolist(), src.b[sel].tolist(),
                list(zip(normal[:, 0].tolist(), normal[:, 1].tolist(), strict=True)),
                src.depth[sel].tolist(),
                list(zip(point[:, 0].tolist(), point[:, 1].tolist(), strict=True)),
                src.duration[sel].tolist(), src.steps[sel].tolist(), src.sensor[sel].tolist(),
                src.speed[sel].tolist(), _tiles(src.tile[sel]), src.tile_kind[sel].tolist())


def _call_ref(ref: Callable[[], Callable[[BodyContact], Any] | None],
              contact: BodyContact) -> None:
    """Call the handler esper holds by weak reference ``ref``, if it is still alive."""
    fn = ref()
    if fn is not None:
        fn(contact)


class _Deliveries:
    """The deliveries of one step, in order, resumable: when a handler raises, ``run`` records
    where it stopped (the contact, the next target) and re-raises; the next ``run`` goes on
    from there. A contact is built once, for all its targets."""

    __slots__ = ("batches", "batch", "row", "target", "contact", "prepared")

    def __init__(self, batches: list[_Batch]) -> None:
        self.batches = batches
        self.batch = 0
        self.row = 0
        self.target = 0
        self.contact: BodyContact | None = None
        self.prepared: tuple[tuple[list[Any], ...], list[_Target]] | None = None

    def _prepare(self, batch: _Batch) -> tuple[tuple[list[Any], ...], list[_Target]]:
        # esper's bus is one target per handler esper holds now (as esper.dispatch_event would
        # call them), so a handler that raises does not keep the event from the others
        targets: list[_Target] = []
        for entry, mk in batch.targets:
            rows = None if mk is None else mk.tolist()
            if entry is None:
                for ref in list(esper.event_registry.get(ESPER_NAMES[batch.event], ())):
                    targets.append((partial(_call_ref, ref), None, rows))
            else:
                targets.append((entry.fn, entry, rows))
        return batch.columns(), targets

    def run(self) -> None:
        """Make the remaining deliveries; a handler's exception propagates (see class doc)."""
        make = BodyContact
        while self.batch < len(self.batches):
            if self.prepared is None:
                self.prepared = self._prepare(self.batches[self.batch])
            cols, targets = self.prepared
            if not targets:  # esper's handlers went away since the batch was made
                self.batch += 1
                self.prepared = None
                continue
            a, b, normal, depth, point, duration, steps, sensor, speed, tile, kind = cols
            start = self.row
            if self.contact is not None:  # resume a contact part-way through its targets
                contact = self.contact
                for k in range(self.target, len(targets)):
                    fn, entry, mk = targets[k]
                    if (mk is None or mk[start]) and (entry is None or entry.active):
                        self.target = k + 1  # if fn raises, go on after it
                        fn(contact)
                self.contact = None
                self.target = 0
                start += 1
            contact = None
            target = targets[0]
            i = start
            try:
                for i in range(start, len(a)):
                    contact = None
                    contact = make(a[i], b[i], normal[i], depth[i], point[i], duration[i],
                                   steps[i], sensor[i], speed[i], tile[i], kind[i])
                    for target in targets:
                        fn, entry, mk = target
                        if (mk is None or mk[i]) and (entry is None or entry.active):
                            fn(contact)
            except BaseException:
                self.row = i
                if contact is None:  # failed before any call for row i
                    self.target = 0
                else:  # the call to ``target`` raised: go on with the next target
                    self.contact = contact
                    self.target = next(k for k, t in enumerate(targets) if t is target) + 1
                raise
            self.batch += 1
            self.row = self.target = 0
            self.contact = None
            self.prepared = None


class EventsSystem(esper.Processor):
    """Stage 5 of the step: contact events from this step's `ContactSet` (see module docstring).

    Parameters:
        table: the body table (layers of the entities of new pairs).
        handlers: the registry whose handlers receive the events besides esper's bus.
        narrowphase: the `NarrowphaseSystem` whose ``rows`` are the last step's (its
            hysteresis reads them): sleeping pairs that wake come back into them too, and a
            quiet step's rows that go to the sleeping contacts leave them (None: no
            narrowphase, a test's events alone).
    """

    def __init__(self, table: BodyTable, handlers: EventHandlers,
                 narrowphase: Any = None) -> None:
        self.table = table
        self.handlers = handlers
        self.narrowphase = narrowphase
        #: the rows of pairs asleep since before the last step (see the module notes)
        self.sleeping = SleepingContacts()
        self._all: tuple[ContactRows, int, ContactRows] | None = None  # `all_rows`, kept
        self._rows = _no_rows()
        self._pending: deque[_Deliveries] = deque()
        self._delivering = False
        self.steps = 0  # how many steps were processed (diagnostics)

    # ---------------------------------------------------------------- the step

    def process(self, contacts: ContactSet | ContactRows, changed: set[int], dt: float) -> None:  # type: ignore[override]
        """Diff ``contacts`` (this step's final touching pairs) against the previous step's,
        commit, then deliver pending and new events. Clears ``changed``. Exceptions raised by
        handlers propagate (see the module docstring for what happens to the rest)."""
        if (not changed and not self._pending and type(contacts) is ContactRows
                and not self.handlers.registered and not esper.event_registry):
            # nobody listens and nothing changed: the diff alone (the pairs' history), the
            # last step's sleeping pairs into the store, its clock on (one compiled call)
            self.sleeping.advance(self._rows, contacts, dt)
            self._rows = contacts
            self.steps += 1
            return
        plan = self._commit(contacts, changed, dt)
        if plan is not None:
            self._pending.append(plan)
        self.deliver_pending()

    def quiet(self, contacts: ContactRows, changed: set[int], dt: float) -> None:
        """A quiet step (`systems.step.Step.quiet`: every body asleep, nothing changed):
        ``contacts`` are the last step's pairs again, every one kept. The first quiet step
        moves them to the sleeping contacts (they are all sleeping pairs); with nobody
        listening and nothing pending a quiet step then costs nothing per pair; otherwise as
        ``process``."""
        rows = self._rows
        if contacts is rows and rows.ndormant:
            rest = self.sleeping.absorb_rest(rows)
            self._rows = contacts = rest
            if self.narrowphase is not None:
                self.narrowphase.rows = rest
        if (changed or self._pending or contacts is not self._rows or self.handlers.registered
                or (esper.event_registry and self._listened())):
            self.process(contacts, changed, dt)
            return
        self.sleeping.tick(dt)
        self.steps += 1

    def woke(self, table: BodyTable, rows_woken: np.ndarray | None = None,
             gone: list[int] | None = None) -> None:
        """The table's sleep state changed (islands woke, a body left, a snapshot was
        restored, a step was put back): the last step's rows are marked again
        (`systems.sleep.dormant_rows`), and the sleeping contacts whose pair no longer
        sleeps come back into them (and into the narrowphase's), marked `WOKEN`.

        ``rows_woken`` (and ``gone``): the change was only that these rows woke (and these
        entities left the table): their contacts are found by entity
        (`SleepingContacts.release_of`), at a cost per body, not per sleeping contact; a
        wake of most of the store reads every row."""
        rows = self._rows
        narrow = self.narrowphase
        dormant_rows(table, rows)
        if narrow is not None and narrow.rows is not rows:
            dormant_rows(table, narrow.rows)
        store = self.sleeping
        if not len(store):
            return
        ents = None
        if rows_woken is not None and 8 * (len(rows_woken) + len(gone or ())) < len(store):
            if len(rows_woken) == 1 and not gone:  # (one body woke: nothing to sort)
                ents = table.entity[rows_woken]
            else:
                ents = unique_ids(np.concatenate((table.entity[rows_woken],
                                                  np.asarray(gone or (), dtype=np.int64))))
        if not table.sleepers:  # (a pile woke whole: every sleeping pair ends)
            woken = store.release_all()
        elif ents is not None and _fit_keys(ents):
            woken = store.release_of(ents)
        else:
            a, b = store.ends()
            woken = store.release(~still_pairs(table, a, b))
        if woken is None:
            return
        merged = merge(rows, woken) if len(rows) else woken
        self._rows = merged
        if narrow is not None:
            narrow.rows = merged if narrow.rows is rows else merge(narrow.rows, woken)

    def woke_late(self, table: BodyTable, rows_woken: np.ndarray) -> None:
        """Islands woke after the step found its contacts (sleepers struck in the response):
        as `woke`, but the pairs of the last step that fell asleep with it (still in the last
        step's rows, marked `DORMANT`) go to the sleeping contacts first, so that every
        sleeping pair of the woken bodies comes back into this step's rows as well as the
        last step's (their bodies did not move: they still touch), kept with its history."""
        rows = self._rows
        narrow = self.narrowphase
        if rows.ndormant:
            rest = self.sleeping.absorb_rest(rows)
            self._rows = rest
            if narrow is not None and narrow.rows is rows:
                narrow.rows = rest
        self.woke(table, rows_woken)

    def partners(self, entities: np.ndarray) -> np.ndarray:
        """The entities touching one of ``entities`` (int64, ascending, each once) after the
        last step, as an array (repeats possible): in the last step's rows, and among the
        sleeping contacts, found by entity when ``entities`` are few beside them."""
        rows = self.narrowphase.rows if self.narrowphase is not None else self._rows
        sides = [(rows.array("a"), rows.array("b"))] if len(rows) else []
        parts = [np.zeros(0, dtype=np.int64)]
        store = self.sleeping
        if len(store):
            if 8 * len(entities) < len(store) and len(entities) and _fit_keys(entities):
                parts.append(store.partners_of(entities))
            else:
                sides.append(store.ends())
        for a, b in sides:
            parts += [b[np.isin(a, entities)], a[np.isin(b, entities)]]
        return np.concatenate(parts)

    def all_rows(self, rows: ContactRows | None = None) -> ContactRows:
        """The last step's rows (or ``rows``: the narrowphase's, for ``contact_set``) and the
        sleeping contacts (brought up to now), in one ``(key, tile)`` order (made once per
        step, then kept)."""
        rows = self._rows if rows is None else rows
        store = self.sleeping
        if not len(store):
            return rows
        made = self._all
        if made is None or made[0] is not rows or made[1] != store.version:
            made = (rows, store.version, merge(rows, store.now()))
            self._all = made
        return made[2]

    def deliver_pending(self) -> None:
        """Deliver the events left over by a handler that raised (``process`` calls this)."""
        if self._delivering:  # called from inside a handler: the outer loop carries on
            return
        self._delivering = True
        try:
            pending = self._pending
            while pending:
                pending[0].run()
                pending.popleft()
        finally:
            self._delivering = False

    @property
    def has_pending(self) -> bool:
        """Whether deliveries are waiting (a handler raised during the last ``process``)."""
        return bool(self._pending)

    @property
    def _pairs(self) -> _Pairs:
        """Every touching pair after the last step (the sleeping ones too) as NumPy columns
        (made on first use, then kept)."""
        return _Pairs.of(self.all_rows())

    @property
    def step_pairs(self) -> _Pairs:
        """The last step's own rows as NumPy columns, without the sleeping contacts (a
        snapshot saves those apart: `sleeping_state`)."""
        return _Pairs.of(self._rows)

    def _commit(self, contacts: ContactSet | ContactRows, changed: set[int],
                dt: float) -> _Deliveries | None:
        """Diff, store the new pairs, and return the step's deliveries (None: nobody listens).

        The narrowphase's `ContactRows` are diffed where they lie and kept as they are (each
        step makes new ones); a `ContactSet` made by hand is copied into rows first (its
        missing layers looked up in the table). The diff itself is one compiled merge
        (`contact_rows.diff`)."""
        prev = self._rows
        cur = contacts if type(contacts) is ContactRows else self._rows_of(contacts)
        forced = None
        if changed:
            if len(prev):
                ch = np.fromiter(changed, dtype=np.int64, count=len(changed))
                forced = np.isin(prev.array("a"), ch) | np.isin(prev.array("b"), ch)
            changed.clear()
        diff(prev, cur, forced, dt)
        self.sleeping.absorb(prev)
        self.sleeping.tick(dt)
        self._rows = cur
        self.steps += 1

        # What somebody receives, decided now with vectorised masks (only for listened events).
        if not self._listened():
            return None
        kept = cur.array("kept")
        present = cur.array("present")
        held, held_kept = cur, kept
        if len(self.sleeping) and self._heard("keep_touching"):  # the sleeping pairs too
            held = self._sleeping_heard(cur)
            held_kept = held.array("kept")
        batches: list[_Batch] = []
        for event, source, rows, invert in (("separate", prev, present, True),
                                            ("touch", cur, kept, True),
                                            ("keep_touching", held, held_kept, False)):
            batch = self._batch(event, source, rows, invert)
            if batch is not None:
                batches.append(batch)
        return _Deliveries(batches) if batches else None

    def _rows_of(self, contacts: ContactSet) -> ContactRows:
        """A hand-made `ContactSet` as `ContactRows` (every column checked and converted)."""
        if contacts.layer_a is not None and contacts.layer_b is not None:
            return ContactRows.from_contact_set(contacts)
        m = len(contacts)  # a set made without layers: the table's
        looked = self._layers_of(np.concatenate((np.asarray(contacts.a, dtype=np.int64),
                                                 np.asarray(contacts.b, dtype=np.int64))))
        return ContactRows.from_contact_set(contacts, looked[:m], looked[m:])

    def _listened(self) -> bool:
        """Whether any handler is registered, here or on esper's bus."""
        if self.handlers.registered:
            return True
        registry = esper.event_registry
        if not registry:
            return False
        return any(registry.get(name) for name in _ESPER_EVENT_NAMES)

    def _sleeping_heard(self, cur: ContactRows) -> ContactRows:
        """``cur`` with the sleeping pairs keep-touching handlers may receive, brought up to
        now: all of them, or, when every listener names an entity (``entity=``: the body in
        the lava), only the pairs of those entities."""
        entries = self.handlers.entries("keep_touching")
        if esper.event_registry.get(ESPER_NAMES["keep_touching"]) or any(
                e.entity is None for e in entries):
            return self.all_rows()
        wanted = np.array(sorted({e.entity for e in entries}), dtype=np.int64)
        mine = self._sleeping_of(wanted)
        if not len(mine):
            return cur
        return merge(cur, mine)

    def _sleeping_of(self, entities: np.ndarray) -> ContactRows:
        """The sleeping contacts of ``entities`` (int64, ascending, each once), brought up to
        now: found by entity (`SleepingContacts.now_for`), or, for ids beyond a key's side,
        by a look at every row."""
        store = self.sleeping
        if not _fit_keys(entities):
            a, b = store.ends()
            return store.now_of(np.isin(a, entities) | np.isin(b, entities))
        return store.now_for(entities)

    def _heard(self, event: str) -> bool:
        """Whether anybody (esper's bus or a handler) receives ``event``."""
        return bool(esper.event_registry.get(ESPER_NAMES[event])
                    or self.handlers.entries(event))

    def _batch(self, event: str, source: ContactRows, rows: np.ndarray,
               invert: bool = False) -> _Batch | None:
        """The rows (bool mask over ``src``, or its complement with ``invert``) of ``event``
        that somebody receives, or None."""
        listeners: list[HandlerEntry | None] = []
        if esper.event_registry.get(ESPER_NAMES[event]):
            listeners.append(None)  # esper's bus: every row
        listeners.extend(self.handlers.entries(event))
        if not listeners:
            return None
        sel = np.flatnonzero(~rows if invert else rows)
        if not len(sel):
            return None
        src = _Pairs.of(source)
        a = src.a[sel]
        b = src.b[sel]
        masks = [None if entry is None else _filter_mask(entry, a, b, src, sel)
                 for entry in listeners]
        keep: np.ndarray | None = None
        if all(mk is not None for mk in masks):
            keep = np.logical_or.reduce([mk for mk in masks if mk is not None])
            if not keep.any():
                return None
            sel = sel[keep]
        targets: list[tuple[HandlerEntry | None, np.ndarray | None]] = []
        for entry, mk in zip(listeners, masks, strict=True):
            if mk is not None and keep is not None:
                mk = mk[keep]
            if mk is not None and mk.all():
                mk = None
            if mk is None or mk.any():
                targets.append((entry, mk))
        return _Batch(event, src, sel, targets)

    def _layers_of(self, entities: np.ndarray) -> np.ndarray:
        """The collider layer of each entity (0 for one not in the table)."""
        t = self.table
        if len(entities) <= _DICT_LOOKUP_MAX:
            row_of = t.row_of
            layer = t.layer
            return np.array([int(layer[row_of[e]]) if e in row_of else 0
                             for e in entities.tolist()], dtype=np.int64)
        n = t.n
        ents = t.entity[:n]
        order = np.argsort(ents, kind="stable")
        sorted_ents = ents[order]
        pos = np.searchsorted(sorted_ents, entities)
        np.minimum(pos, max(n - 1, 0), out=pos)
        out = np.zeros(len(entities), dtype=np.int64)
        if n:
            hit = sorted_ents[pos] == entities
            out[hit] = t.layer[order[pos[hit]]]
        return out

    # ---------------------------------------------------------------- polling

    def touching(self, entity: int) -> list[int]:
        """The entities touching ``entity`` after the last step, sorted (the sleeping pairs
        read from their sides alone: no duration is worked out)."""
        p = _Pairs.of(self._rows)
        parts = [p.b[p.a == entity], p.a[p.b == entity]]
        if len(self.sleeping):
            mine = self._sleeping_of(np.array([entity], dtype=np.int64))
            parts += [mine.array("b"), mine.array("a")]
        return [int(e) for e in unique_ids(np.concatenate(parts)) if e != entity]

    def contacts(self) -> list[BodyContact]:
        """Every touching pair after the last step, sorted by ``(a, b)``, with durations."""
        p = self._pairs
        return self._contacts(p, np.ones(len(p), dtype=np.bool_))

    def contacts_of(self, entity: int) -> list[BodyContact]:
        """The touching pairs of ``entity`` after the last step, sorted by ``(a, b)`` (only
        its own sleeping pairs are brought up to now)."""
        rows = self._rows
        p = _Pairs.of(rows)
        mine = (p.a == entity) | (p.b == entity)
        if len(self.sleeping):
            asleep = self._sleeping_of(np.array([entity], dtype=np.int64))
            if len(asleep):
                both = merge(pick(rows, mine), asleep)
                return self._contacts(_Pairs.of(both), np.ones(len(both), dtype=np.bool_))
        return self._contacts(p, mine)

    def is_touching(self, a: int, b: int) -> bool:
        """Whether ``a`` and ``b`` touched after the last step."""
        if a > b:
            a, b = b, a
        key = (a << 32) | b
        keys = [_Pairs.of(self._rows).keys]
        if len(self.sleeping):
            keys.append(self.sleeping.keys())
        for k in keys:
            i = int(np.searchsorted(k, key))
            if i < len(k) and int(k[i]) == key:
                return True
        return False

    @staticmethod
    def _contacts(p: _Pairs, rows: np.ndarray) -> list[BodyContact]:
        sel = np.flatnonzero(rows)
        a, b = p.a[sel].tolist(), p.b[sel].tolist()
        n, pt = p.normal[sel].tolist(), p.point[sel].tolist()
        d, dur = p.depth[sel].tolist(), p.duration[sel].tolist()
        st, se = p.steps[sel].tolist(), p.sensor[sel].tolist()
        sp = p.speed[sel].tolist()
        tiles, kinds = _tiles(p.tile[sel]), p.tile_kind[sel].tolist()
        return [BodyContact(a[i], b[i], (n[i][0], n[i][1]), d[i], (pt[i][0], pt[i][1]),
                            dur[i], st[i], se[i], sp[i], tiles[i], kinds[i])
                for i in range(len(sel))]

    def __len__(self) -> int:
        return len(self._rows) + len(self.sleeping)

    def sleeping_state(self) -> SleepingState:
        """The sleeping contacts as a plain value (for a snapshot; see `SleepingState`)."""
        rows, clock, count = self.sleeping.state()
        return SleepingState(_Pairs.of(rows), rows.array("toi"), rows.array("index"),
                             clock, count)

    def restore_pairs(self, pairs: _Pairs, sleeping: SleepingState | None = None) -> None:
        """Take ``pairs`` as the touching pairs of the last step and ``sleeping`` as the
        sleeping contacts (a restored snapshot, checked; None: none); the deliveries still
        pending are dropped. The caller marks the rows then (`woke`)."""
        rows = pairs.rows()
        rows.cached_pairs = pairs
        self._rows = rows
        if sleeping is None:
            self.sleeping.clear()
        else:
            self.sleeping.restore(sleeping.pairs.rows(sleeping.entered, sleeping.entered_steps),
                                  sleeping.clock, sleeping.count)
        self._pending.clear()

    def reset(self) -> None:
        """Forget every pair and pending delivery, without events (a fresh start)."""
        self._rows = _no_rows()
        self.sleeping.clear()
        self._pending.clear()


class SleepingState:
    """The sleeping contacts as a snapshot holds them: ``pairs`` their rows (durations and
    steps when each came in), ``entered`` / ``entered_steps`` the clock and step count then,
    and the clock now (``clock`` seconds, ``count`` steps). A plain value: it pickles."""

    __slots__ = ("pairs", "entered", "entered_steps", "clock", "count")

    def __init__(self, pairs: _Pairs, entered: np.ndarray, entered_steps: np.ndarray,
                 clock: float, count: int) -> None:
        self.pairs = pairs
        self.entered = entered
        self.entered_steps = entered_steps
        self.clock = clock
        self.count = count

    def __getstate__(self) -> tuple[Any, ...]:
        return (self.pairs, self.entered, self.entered_steps, self.clock, self.count)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.pairs, self.entered, self.entered_steps, self.clock, self.count = state


def _no_rows() -> ContactRows:
    """No pairs, with their (empty) history: what a fresh start diffs against."""
    return _Pairs.empty().rows()


def _tiles(tile: np.ndarray) -> list[tuple[int, int] | None]:
    """``(row, col)`` of each ``row << 32 | col`` (None for -1: no tile)."""
    rows = (tile >> 32).tolist()
    cols = (tile & 0xFFFFFFFF).tolist()
    return [None if t < 0 else (r, c) for t, r, c in zip(tile.tolist(), rows, cols, strict=True)]


def _filter_mask(entry: HandlerEntry, a: np.ndarray, b: np.ndarray, src: _Pairs,
                 sel: np.ndarray) -> np.ndarray | None:
    """Which of the rows ``sel`` pass ``entry``'s filters (None: all of them)."""
    mask: np.ndarray | None = None
    if entry.entity is not None:
        mask = (a == entry.entity) | (b == entry.entity)
    if entry.layers is not None:
        x, y = entry.layers
        la = src.layer_a[sel]
        lb = src.layer_b[sel]
        lm = (((la & x) != 0) & ((lb & y) != 0)) | (((la & y) != 0) & ((lb & x) != 0))
        mask = lm if mask is None else mask & lm
    return mask
