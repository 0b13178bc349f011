"""Physics: wires the step's systems into an esper world, runs the fixed step, holds callbacks.

Guarantees:
- ``Physics(...)`` registers one esper processor in the esper world that is current when it is
  made; ``esper.process(dt)`` in that world advances it. The processor runs the stages of one
  step in order (adopt, integrate, broadphase, response, narrowphase, ground, events), as
  many fixed steps as the frame's ``dt`` holds (an accumulator, capped at
  ``max_steps_per_frame``), and sets ``alpha`` (in [0, 1)) for interpolated drawing. With
  ``fixed_dt=None`` it steps once per frame with the frame's ``dt``.
- A step is three calls: adoption (what the game created, deleted or changed since the last
  step), one compiled call for every stage from integration to the world's limits
  (`ecsphys.systems.step`), then the events (the game's handlers).
- Each Physics has its own body table: several esper worlds, each with its own Physics, never
  see each other's bodies.
- Bad arguments raise ``ValueError`` / ``TypeError`` naming the argument and the value, and
  leave the world unchanged.
- Threads: esper keeps one current world for all threads. Every part of a Physics that needs
  its world current (a step with its events, a frame's sync, ``sync``, ``remove``) holds
  ``ESPER_LOCK`` while it switches to its world and back, so two threads may each step their
  own world with ``step`` / ``advance`` at the same time: those parts run one at a time (they
  serialise), and give the bits they give in one thread. ``esper.process`` runs in one thread
  at a time: a Physics processor that finds another thread in a step or in ``esper.process``
  raises ``RuntimeError`` (`_EsperGate`).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import esper
import numpy as np

from .events import BodyContact, EventHandlers
from .ground import Ground
from .layers import Layers
from .limits import (
    MAX_DT,
    MAX_SIZE,
    MAX_SPEED,
    MIN_DT,
    check_direction,
    check_finite,
    check_int,
    check_range,
    check_size,
)
from .queries.world_queries import WorldQueries
from .state import snapshot
from .state.arrays import StateArrays
from .state.body_table import BodyTable
from .state.contact_set import ContactSet
from .state.snapshot import Snapshot
from .systems.adopt import AdoptSystem
from .systems.broadphase import BroadphaseSystem, PairFilter
from .systems.events import EventsSystem
from .systems.integrate import IntegrateSystem
from .systems.narrowphase import SEPARATION_FACTOR, NarrowphaseSystem, contact_set_of
from .systems.response import ResponseSystem
from .systems.sleep import take_requests
from .systems.step import Step

_perf_counter = time.perf_counter
_get_ident = threading.get_ident

_PROCESS_IN_THREADS = (
    "esper keeps one current world for all threads, so esper.process may run in one thread at "
    "a time; step each world with physics.step() or physics.advance(dt) from its own thread "
    "instead (see Physics.step: Threads)")


class _EsperGate:
    """The lock around esper's current world, which is one for all threads.

    ``lock`` (``ESPER_LOCK``, reentrant) is held by every part of a Physics that switches to
    its world (a step and its events, syncs, ``remove``) and by game code in ``in_world``, so
    those parts of different threads run one at a time. ``esper.process`` cannot hold it
    (esper runs the game's own processors too), so its Physics processor refuses to run while
    another thread holds the lock or is in its own ``esper.process``, and a step refuses while
    another thread is in ``esper.process``: ``RuntimeError`` saying to step each world with
    ``physics.step()`` / ``advance()``. (Seen where the two overlap in a Physics.)
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._guard = threading.Lock()
        #: thread -> how deep it is in Physics processors (run by esper.process)
        self._processing: dict[int, int] = {}

    def _check(self, me: int) -> None:
        p = self._processing
        if p and (len(p) > 1 or me not in p):
            raise RuntimeError(f"esper.process is running in another thread: {_PROCESS_IN_THREADS}")

    def enter(self) -> None:
        """Take the lock (after another thread's step); RuntimeError if another thread is in
        ``esper.process``."""
        me = _get_ident()
        self._check(me)
        self.lock.acquire()
        try:
            self._check(me)
        except RuntimeError:
            self.lock.release()
            raise

    def leave(self) -> None:
        self.lock.release()

    def enter_process(self) -> None:
        """Take the lock for a Physics processor; RuntimeError if another thread holds it or is
        in ``esper.process``."""
        me = _get_ident()
        with self._guard:
            self._check(me)
            if not self.lock.acquire(blocking=False):
                raise RuntimeError(
                    f"esper.process called while another thread steps a world or uses esper: "
                    f"{_PROCESS_IN_THREADS}")
            self._processing[me] = self._processing.get(me, 0) + 1

    def leave_process(self) -> None:
        me = _get_ident()
        with self._guard:
            depth = self._processing[me] - 1
            if depth:
                self._processing[me] = depth
            else:
                del self._processing[me]
        self.lock.release()


_GATE = _EsperGate()

#: The lock a Physics holds while it makes its esper world current (a step and its events,
#: syncs): game code that calls esper's module functions in a thread while other threads step
#: holds it too (``with ESPER_LOCK:`` or ``with physics.in_world():``), as esper's current world
#: is one for all threads. Reentrant.
ESPER_LOCK = _GATE.lock
_LOCK_ACQUIRE = ESPER_LOCK.acquire


class PhysicsProcessor(esper.Processor):
    """The esper processor of a `Physics`: ``process(dt)`` advances it by one frame.

    ``RuntimeError`` if another thread is in ``esper.process`` or steps a world at the same
    time (esper's current world is one for all threads: see `Physics.step`)."""

    def __init__(self, physics: Physics) -> None:
        self.physics = physics

    def process(self, dt: float, *args: Any, **kwargs: Any) -> None:
        _GATE.enter_process()  # (holds ESPER_LOCK: the frame runs without taking it again)
        try:
            self.physics._advance(_frame_dt(dt))
        finally:
            _GATE.leave_process()


def _frame_dt(value: object) -> float:
    """A frame's ``dt``, checked: a finite float >= 0 (ValueError / TypeError naming it)."""
    if type(value) is float and 0.0 <= value < math.inf:  # (the common case: no call)
        return value
    dt = check_finite("dt", value)
    if dt < 0.0:
        raise ValueError(f"dt must be >= 0, got {value!r}")
    return dt


_REENTERED = (
    "Physics.step called while a step is running (esper.process or physics.step from inside "
    "an event handler or filter_pair): the step would run inside itself; let the frame "
    "finish, or defer the call to after esper.process")


def _check_fixed_dt(value: object) -> float | None:
    if value is None:
        return None
    dt = check_finite("fixed_dt", value)
    if dt <= 0.0:
        raise ValueError(f"fixed_dt must be positive or None, got {value!r}")
    return check_range("fixed_dt", dt, MIN_DT, MAX_DT)


#: The most steps a frame may run, and slide passes a step may make (settings beyond are
#: refused: a frame of ten thousand steps is a frozen game).
MAX_STEPS_PER_FRAME = 10_000
MAX_SLIDES = 1_000


class Physics:
    """The physics of one esper world.

    >>> import esper, ecsphys as ep
    >>> esper.switch_world("doctest-physics")
    >>> physics = ep.Physics(fixed_dt=1/60)
    >>> ball = esper.create_entity(ep.Position(0, 10), ep.Velocity(1, 0),
    ...                            ep.AccelerationMap(gravity=(0, -9.8)),
    ...                            ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
    >>> esper.process(1/30)          # two fixed steps
    >>> physics.steps
    2
    >>> round(esper.component_for_entity(ball, ep.Position).x, 4)
    0.0333

    Spatial queries: ``query_point``, ``query_region``, ``raycast``, ``raycast_all``,
    ``raycast_many`` and ``cast_shape`` (see `ecsphys.queries.WorldQueries`).

    Parameters:
        fixed_dt: the fixed step in seconds (``limits.MIN_DT`` to ``MAX_DT``: 1e-6 to 1), or
            None to step once per frame with its dt (a frame longer than ``MAX_DT`` runs one
            step of ``MAX_DT``, one shorter than ``MIN_DT`` none).
        max_steps_per_frame: cap on fixed steps per frame; time beyond it is dropped, so a
            long stall does not freeze the game catching up.
        priority: the esper processor priority (higher runs first).
        broadphase: ``"grid"`` (default), ``"sweep"``, ``"quadtree"`` or ``"brute"``.
        cell_size: the grid's cell size (None: chosen from the typical body size).
        contact_offset: bodies closer than this start touching (events, contacts); a pair
            already touching stops only beyond ``separation_offset``, twice as far
            (hysteresis, so resting pairs do not flicker).
        max_slides: slide passes per step for a blocked move (see the response system).
        layers: optional `Layers`, so handlers can filter by layer names.
        up: "up" for bodies without acceleration (a body with gravity: against it), for
            floors, walls and ceilings (`ground`), riders and ``stop_on_slope``.
        floor_max_angle: degrees (0 to 90, default 45): a contact whose normal is within
            this angle of "up" is a floor, one within it of "down" a ceiling.
        floor_snap: how far (world units, default 0.1) a ``stop_on_slope`` body that stood
            on a floor is moved down to one it finds, while not moving up (so it follows a
            slope down, or steps down a ledge, instead of flying off).
        bounce_threshold: impacts slower than this (world units per second, default 0.5)
            do not bounce whatever the restitution, nor do those slower than what the two
            bodies' accelerations add along the normal in two steps (a body resting on
            another meets it at about one step of gravity every step): resting piles stay
            at rest, and a resting pair's ``contact.speed`` reads 0.
        sleep_after: seconds (default 0.5; None: never) a body must rest before it may sleep;
            an island (bodies linked by contacts, static bodies and bodies of infinite mass
            not linking) falls asleep when all its bodies have rested that long. A sleeper
            is not integrated, keeps its position bit for bit and reads a velocity of
            exactly 0; it is a fixed partner to the bodies still awake, and its island wakes
            in the step an awake body can reach it, and in the next step when the game
            writes its Position, Velocity, AccelerationMap, Collider or Geometry (a write of
            what it has, a velocity of (0, 0) or the same acceleration total, wakes
            nothing), changes or deletes a body it touches, digs a tile near it or calls
            ``wake``. See ``ecsphys.systems.sleep``.
        sleep_speed: world units per second (default 0.05): a body rests in a step when its
            speed is at most this, or twice what one step of its acceleration adds if that
            is more, and it moved at most that speed times the step.
    """

    def __init__(
        self,
        fixed_dt: float | None = 1 / 60,
        *,
        max_steps_per_frame: int = 8,
        priority: int = 0,
        broadphase: str = "grid",
        cell_size: float | None = None,
        contact_offset: float = 0.01,
        max_slides: int = 4,
        layers: Layers | None = None,
        up: tuple[float, float] = (0.0, 1.0),
        floor_max_angle: float = 45.0,
        floor_snap: float = 0.1,
        bounce_threshold: float = 0.5,
        sleep_after: float | None = 0.5,
        sleep_speed: float = 0.05,
    ) -> None:
        self.fixed_dt = _check_fixed_dt(fixed_dt)
        self.max_steps_per_frame = check_int("max_steps_per_frame", max_steps_per_frame, 1,
                                             MAX_STEPS_PER_FRAME)
        check_int("priority", priority, -(2**31), 2**31 - 1)
        self.contact_offset = check_range("contact_offset", contact_offset, 0.0, MAX_SIZE)
        self.max_slides = check_int("max_slides", max_slides, 1, MAX_SLIDES)
        if layers is not None and not isinstance(layers, Layers):
            raise TypeError(f"layers must be a Layers, got {layers!r}")
        self.layers = layers
        self.up = check_direction("up", up)
        self.floor_max_angle = check_finite("floor_max_angle", floor_max_angle)
        if not 0.0 <= self.floor_max_angle <= 90.0:
            raise ValueError(f"floor_max_angle must be in [0, 90] degrees, got "
                             f"{floor_max_angle!r}")
        self.floor_snap = check_range("floor_snap", floor_snap, 0.0, MAX_SIZE)
        self.bounce_threshold = check_range("bounce_threshold", bounce_threshold, 0.0,
                                            MAX_SPEED)
        self.sleep_after = (None if sleep_after is None
                            else check_range("sleep_after", sleep_after, 0.0, 1e9))
        self.sleep_speed = check_range("sleep_speed", sleep_speed, 0.0, MAX_SPEED)
        options: dict[str, object] = {}
        if cell_size is not None:
            cell = check_size("cell_size", cell_size)
            if broadphase != "grid":
                raise ValueError(f"cell_size is an option of the grid, not of {broadphase!r}")
            options["cell_size"] = cell
        self.world = esper.current_world
        for proc in esper._processors:  # one Physics per world: a second one would double-step
            if isinstance(proc, PhysicsProcessor):
                raise ValueError(f"esper world {self.world!r} already has a Physics")
        self.table = BodyTable()
        self._arrays = StateArrays(self.table)
        self._stepping = False  # a step is running (re-entering it is refused)
        self._reserved = -1  # the most bodies the response's buffers were reserved for
        self.accumulator = 0.0
        self.alpha = 0.0
        self.steps = 0
        self.time = 0.0
        self.last_dt = 0.0
        self._t_adopt = 0.0  # when the last step began and ended (see `timings`)
        self._t_end: float | None = None
        self._adopt = AdoptSystem(self.table, on_clear=self._forget_pairs)
        self._integrate = IntegrateSystem(self.table)
        #: a pair already touching stops only when its shapes are apart by more than this
        #: (hysteresis: resting pairs must not flicker); new pairs touch within contact_offset
        self.separation_offset = SEPARATION_FACTOR * self.contact_offset
        # the swept boxes reach the separation offset: a touching pair stays a candidate
        self._broadphase = BroadphaseSystem(
            self.table, broadphase, contact_offset=self.separation_offset, **options)
        self._response = ResponseSystem(
            self.table, max_slides=self.max_slides, contact_offset=self.contact_offset,
            up=self.up, floor_max_angle=self.floor_max_angle, floor_snap=self.floor_snap,
            bounce_threshold=self.bounce_threshold)
        self._narrowphase = NarrowphaseSystem(
            self.table, contact_offset=self.contact_offset,
            separation_offset=self.separation_offset)
        self._step = Step(self.table, self._broadphase, self._response, self._narrowphase,
                          self.up, self.floor_max_angle)
        self._step.sleep_after = -1.0 if self.sleep_after is None else self.sleep_after
        self._step.sleep_speed = self.sleep_speed
        self.handlers = EventHandlers(layers)
        self._events = EventsSystem(self.table, self.handlers, self._narrowphase)
        self._step.woke = self._events.woke
        self._step.woke_late = self._events.woke_late
        #: Register event callbacks (strong references; usable as decorators; optional
        #: ``entity=`` and ``layers=`` filters). See `ecsphys.events.EventHandlers`.
        self.on_touch = self.handlers.on_touch
        self.on_keep_touching = self.handlers.on_keep_touching
        self.on_separate = self.handlers.on_separate
        self.remove_handler = self.handlers.remove_handler
        self.queries = WorldQueries(self.table, self._broadphase, layers)
        #: Spatial queries (see `ecsphys.queries.WorldQueries`): what is at a point, in a
        #: region, along a ray (first, all, many at once), in the way of a moving shape.
        self.query_point = self.queries.query_point
        self.query_region = self.queries.query_region
        self.raycast = self.queries.raycast
        self.raycast_all = self.queries.raycast_all
        self.raycast_many = self.queries.raycast_many
        self.cast_shape = self.queries.cast_shape
        self.processor = PhysicsProcessor(self)
        esper.add_processor(self.processor, priority)

    # ------------------------------------------------------------ stepping

    def sync(self) -> None:
        """Bring the body table up to date with the esper world now, as the next step would:
        esper carries out the deletions it deferred, and entities made, deleted or changed
        since the last step are adopted or released. Does nothing while a step runs (from an
        event handler: the table is the step's)."""
        if self._stepping:
            return
        _GATE.enter()
        previous = esper.current_world
        esper.switch_world(self.world)
        try:
            esper.clear_dead_entities()
            self._sync_bodies()
        finally:
            esper.switch_world(previous)
            _GATE.leave()

    @contextmanager
    def in_world(self) -> Iterator[None]:
        """``with physics.in_world():`` makes this physics' esper world current for the block
        and holds ``ESPER_LOCK`` (no other thread's step switches worlds meanwhile), then puts
        back the world that was current: for game code that calls esper's module functions
        (``esper.create_entity``, ``component_for_entity``...) in a thread while other threads
        step their worlds. ``RuntimeError`` if another thread is in ``esper.process``."""
        _GATE.enter()
        previous = esper.current_world
        try:
            if previous != self.world:
                esper.switch_world(self.world)
            yield
        finally:
            if esper.current_world != previous:
                esper.switch_world(previous)
            _GATE.leave()

    def _sync_bodies(self) -> None:
        """Adopt what the game created, deleted or changed (`AdoptSystem`), and make room for
        the bodies in the response's buffers now rather than in the next step."""
        self._adopt.process()
        n = self.table.n
        if n > self._reserved:  # (never shrinks: a call only when the table grew)
            self._response.reserve(n)
            self._reserved = n

    def _take_wakes(self, keep_statics: bool = False) -> np.ndarray | None:
        """Apply the wake requests the game's changes made (`systems.sleep.take_requests`);
        returns the flags of the STATIC bodies changed (for the step's wake pass), or keeps
        those requests for the next step (``keep_statics``)."""
        t = self.table
        statics = [e for e in t.wake_requests
                   if e in t.row_of and t.kind[t.row_of[e]] == 0] if keep_statics else []
        ev = self._events
        forced = take_requests(t, self.separation_offset, ev.partners, ev.woke)
        t.wake_requests.update(statics)
        return forced

    def is_sleeping(self, entity: int) -> bool:
        """Whether ``entity``'s body sleeps (see ``sleep_after``); False for a STATIC body.
        ``KeyError`` naming the entity if it is not a body of this Physics."""
        return bool(self.table.asleep[self._row(entity)])

    def wake(self, entity: int) -> None:
        """Wake ``entity``'s island and the sleepers touching it (a STATIC body: the
        sleepers touching it), now; an awake body starts resting afresh (its rest time is
        0). ``KeyError`` naming the entity if it is not a body of this Physics."""
        t = self.table
        t._wake_request(self._row(entity))
        if t.wake_requests:
            self._take_wakes(keep_statics=True)

    def advance(self, frame_dt: float) -> int:
        """Advance by one frame of ``frame_dt`` seconds; returns the number of steps run.

        Steps this physics' own world, whatever world is current; safe from a thread that owns
        the world while other threads advance theirs (see ``step``: Threads)."""
        dt = _frame_dt(frame_dt)
        _GATE.enter()  # (the whole frame: its steps run inside it)
        try:
            return self._advance(dt)
        finally:
            _GATE.leave()

    def _advance(self, dt: float) -> int:
        """A frame of ``dt`` (checked) with ``ESPER_LOCK`` held: the sync, then the steps
        (in this world when it is current: no switch, and the first step does not sync
        again, as nothing ran since)."""
        previous = esper.current_world
        here = previous == self.world
        if here:
            self._sync_bodies()  # deletions are seen even in a frame with no step
        else:  # advanced from another world's code: the sync reads this Physics's world
            esper.switch_world(self.world)
            try:
                self._sync_bodies()
            finally:
                esper.switch_world(previous)
        if self.fixed_dt is None:
            # a long stall runs one step of MAX_DT; a frame shorter than MIN_DT runs none
            ran = dt >= MIN_DT
            if ran:
                if here:
                    self._step_here(min(dt, MAX_DT), True)
                else:
                    self.step(min(dt, MAX_DT))
            self.alpha = 0.0
            return 1 if ran else 0
        fixed = self.fixed_dt
        self.accumulator += dt
        cap = self.max_steps_per_frame
        if self.accumulator >= fixed * (cap + 1):  # time beyond the cap is dropped
            self.accumulator = fixed * cap + math.fmod(self.accumulator, fixed)
        # Tolerate float error: 1/30 holds two steps of 1/60 even if the sum rounds down.
        count = min(int(math.floor(self.accumulator / fixed + 1e-9)), cap)
        for k in range(count):
            # taken off first: a handler that raises must not leave the step to run again
            self.accumulator = max(self.accumulator - fixed, 0.0)
            if here and esper.current_world == previous:  # (a handler may switch worlds)
                self._step_here(fixed, k == 0)
            else:
                self.step(fixed)
        if self.accumulator < fixed * 1e-9:
            self.accumulator = 0.0
        self.alpha = min(self.accumulator / fixed, math.nextafter(1.0, 0.0))
        return count

    def step(self, dt: float | None = None) -> None:
        """Run exactly one step of ``dt`` seconds (default: ``fixed_dt``).

        The step runs in this physics' esper world: called while another world is current,
        it switches to it and back (two of esper's ``switch_world``, about a microsecond: a
        game steps the world that is current).

        Threads: esper keeps one current world for all threads, so the step holds
        ``ecsphys.physics.ESPER_LOCK`` from the switch to its world to the switch back, its
        events (the handlers) included. Two threads may each own a world and step it with
        ``step`` / ``advance`` at the same time, with the bits each gives alone; the locked
        part serialises (one world steps at a time: threads give no speed-up, they keep
        worlds apart). Game code that calls esper's own functions in such a thread does so
        in ``with physics.in_world():`` (and makes its world and Physics in ``with
        ESPER_LOCK:``, as ``Physics()`` reads the current world). ``esper.process`` is for
        one thread at a time: a Physics processor run by it while another thread steps or
        runs ``esper.process`` raises ``RuntimeError``, as does a step while another thread
        is in ``esper.process``."""
        if dt is None:
            if self.fixed_dt is None:
                raise ValueError("dt must be given when fixed_dt is None")
            dt = self.fixed_dt
        if type(dt) is not float or not MIN_DT <= dt <= MAX_DT:  # (a float in range is valid)
            dt = check_finite("dt", dt)
            if dt <= 0.0:
                raise ValueError(f"dt must be positive, got {dt!r}")
            check_range("dt", dt, MIN_DT, MAX_DT)
        if self._stepping:
            raise RuntimeError(_REENTERED)
        if _GATE._processing:  # (a thread is in esper.process: the gate's checks)
            _GATE.enter()
        else:  # (the common case: the lock, no call of the gate's own)
            _LOCK_ACQUIRE()
            if _GATE._processing:  # (a thread entered esper.process meanwhile)
                ESPER_LOCK.release()
                _GATE.enter()
        previous = esper.current_world
        switched = previous != self.world
        if switched:
            esper.switch_world(self.world)
        self._stepping = True
        try:
            self._run_step(dt)
        finally:
            self._stepping = False
            if switched:
                esper.switch_world(previous)
            ESPER_LOCK.release()

    def _step_here(self, dt: float, synced: bool) -> None:
        """`step` from a frame (``ESPER_LOCK`` held, this world current, ``dt`` valid);
        ``synced``: the frame synced just before (nothing ran since)."""
        if self._stepping:
            raise RuntimeError(_REENTERED)
        self._stepping = True
        try:
            self._run_step(dt, synced)
        finally:
            self._stepping = False

    def _run_step(self, dt: float, synced: bool = False) -> None:
        t0 = _perf_counter()
        if esper._dead_entities:  # (the world's deferred deletions; a set, usually empty)
            esper.clear_dead_entities()
            synced = False
        t = self.table
        if not synced:
            ad = self._adopt  # (`AdoptSystem.idle`'s test inline: a call less in most steps)
            if ad._log or ad._full or ad._emptied[0] or esper._entity_count is not ad._counter:
                self._sync_bodies()
            else:
                ad.looked = 0
        if t.reordered:  # the rows in the order the last step's rows give (not the syncs')
            t.canonical()
        if t.tilemaps:
            t.refresh_tilemaps()  # tiles dug or built since the last step
        forced = self._take_wakes() if t.wake_requests or t.wake_islands or (
            t.sleepers and t.tile_regions) else None
        rows = None if forced is not None else self._step.quiet()  # everything asleep
        quiet = rows is not None
        if not quiet:
            rows = self._step.run(dt, forced)  # integrate .. limits: one compiled call
        self._t_adopt = t0
        self.steps += 1
        self.time += dt
        self.last_dt = dt
        # last: handlers may raise, delete entities or add components; the step is complete
        try:
            if quiet:
                self._events.quiet(rows, t.changed, dt)
            else:
                self._events.process(rows, t.changed, dt)
        finally:
            self._t_end = _perf_counter()

    @property
    def timings(self) -> dict[str, float]:
        """Milliseconds each stage took in the last step (diagnostics): ``adopt+integrate``,
        ``broadphase``, ``response``, ``narrowphase`` (with ground and limits), ``events``
        and the whole ``step``."""
        if self._t_end is None:
            return {}
        t0, t5 = self._t_adopt, self._t_end
        _, t1, t2, t3, t4 = self._step.times
        return {
            "adopt+integrate": (t1 - t0) * 1e3, "broadphase": (t2 - t1) * 1e3,
            "response": (t3 - t2) * 1e3, "narrowphase": (t4 - t3) * 1e3,
            "events": (t5 - t4) * 1e3, "step": (t5 - t0) * 1e3,
        }

    # ------------------------------------------------------------ rules

    @property
    def filter_pair(self) -> PairFilter | None:
        """Optional ``fn(entity_a, entity_b) -> bool`` that vetoes candidate pairs.

        For game rules masks cannot express. It is a Python call per candidate pair each step:
        slower than layers and masks, so prefer those where they fit. Setting it wakes every
        sleeping body at the next step (the new rules may part or join sleeping pairs); a
        function that changes its answers later should ``wake`` the bodies concerned.
        """
        return self._broadphase.filter_pair

    @filter_pair.setter
    def filter_pair(self, fn: PairFilter | None) -> None:
        if fn is not None and not callable(fn):
            raise TypeError(f"filter_pair must be callable or None, got {fn!r}")
        self._broadphase.filter_pair = fn
        t = self.table
        if t.sleepers:  # its answers may part or join sleeping pairs: every island wakes
            n = t.n
            t.wake_islands.update(t.entity[:n][t.asleep[:n] == 1].tolist())

    # ------------------------------------------------------------ reading

    @property
    def stats(self) -> dict[str, int]:
        """Counts of the last step: ``bodies``; ``box_pairs`` (swept boxes overlapping);
        ``tested_pairs`` (left after layers, masks and ``filter_pair``: the exact tests run);
        ``contacts`` (touching pairs); ``slide_passes``; ``static_rebuilds`` (so far);
        ``sleeping`` (bodies asleep now)."""
        return {
            "bodies": self.table.n,
            "box_pairs": self._broadphase.box_pairs,
            "tested_pairs": len(self._broadphase.ra),
            "contacts": len(self._narrowphase.rows) + len(self._events.sleeping),
            "slide_passes": self._response.passes,
            "static_rebuilds": self._broadphase.static_rebuilds,
            "sleeping": self.table.sleepers,
        }

    def touching(self, entity: int) -> list[int]:
        """The entities touching ``entity`` after the last step, sorted. ``KeyError`` naming
        the entity if it is not a body of this Physics (as ``contacts_of``, ``ground`` and
        ``interpolated_position``: a misspelt or deleted entity is no silent ``[]``)."""
        self._row(entity)
        return self._events.touching(entity)

    def ground(self, entity: int) -> Ground:
        """What ``entity`` stood on, touched and hit its head on at the end of the last step:
        ``on_floor``, ``on_wall``, ``on_ceiling``, the floor's normal, velocity and entity
        (see `ecsphys.ground.Ground`). ``KeyError`` naming the entity if it is not a body of
        this Physics."""
        row = self._row(entity)
        t = self.table
        return Ground.from_row(int(t.ground[row]), t.floor_n[row], t.floor_v[row],
                               int(t.floor_entity[row]))

    def _row(self, entity: int) -> int:
        row = self.table.row_of.get(entity)
        if row is None:
            raise KeyError(
                f"entity {entity!r} is not a body of this Physics: a body has a Position and a "
                f"Velocity or a Collider, and is adopted at the next esper.process / step")
        return row

    def contacts(self) -> list[BodyContact]:
        """Every touching pair of the last step, as contact objects (with durations)."""
        return self._events.contacts()

    def contacts_of(self, entity: int) -> list[BodyContact]:
        """The last step's contacts that involve ``entity``. ``KeyError`` naming the entity if
        it is not a body of this Physics (see ``touching``)."""
        self._row(entity)
        return self._events.contacts_of(entity)

    @property
    def contact_set(self) -> ContactSet:
        """The columns of the last step's touching pairs (the sleeping ones too, met in no
        impact), in ``(a, b)`` order; made once per step."""
        return contact_set_of(self._events.all_rows(self._narrowphase.rows))

    @property
    def body_count(self) -> int:
        """How many bodies are adopted now."""
        return self.table.n

    def interpolated_position(self, entity: int) -> tuple[float, float]:
        """Where to draw ``entity`` now: between its last two step positions by ``alpha``.

        ``KeyError`` naming the entity if it is not a body of this Physics (no Position, or
        neither Velocity nor Collider, or not adopted yet: bodies are adopted at the next
        ``esper.process``)."""
        row = self._row(entity)
        prev = self.table.prev_pos[row]
        cur = self.table.pos[row]
        a = self.alpha
        return (float(prev[0] + (cur[0] - prev[0]) * a), float(prev[1] + (cur[1] - prev[1]) * a))

    def interpolated_positions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(entities, positions)`` of all bodies, positions interpolated by ``alpha``."""
        t = self.table
        n = t.n
        return t.entity[:n].copy(), t.prev_pos[:n] + (t.pos[:n] - t.prev_pos[:n]) * self.alpha

    def arrays(self, *fields: str) -> np.ndarray | tuple[np.ndarray, ...]:
        """Fresh NumPy arrays (copies) of every body, in ascending entity order: one array for
        one field, a tuple in the order asked for several. Fields: ``"entity"`` (int64),
        ``"position"`` and ``"velocity"`` (``(n, 2)`` float64), ``"sleeping"`` (bool, as
        ``is_sleeping``), ``"kind"`` (int64: STATIC 0, PASSIVE 1, ACTIVE 2; a body without a
        Collider reads ACTIVE). Adopts what the game created or deleted since the last step
        first (as ``sync``), without stepping; O(n) NumPy (see `ecsphys.state.arrays`).
        ``ValueError`` naming an unknown field (or none given) and the known ones, ``TypeError``
        for a field that is not a str.

        >>> import esper, ecsphys as ep
        >>> esper.switch_world("doctest-arrays")
        >>> physics = ep.Physics()
        >>> b = esper.create_entity(ep.Position(2, 0), ep.Velocity(1, 0))
        >>> a = esper.create_entity(ep.Position(1, 0), ep.Collider(ep.STATIC),
        ...                        ep.Geometry(ep.Rect(1, 1)))
        >>> physics.arrays("entity", "kind")
        (array([1, 2]), array([2, 0]))
        """
        self.sync()
        return self._arrays.read(fields)

    def set_arrays(self, entities: Any, *, position: Any = None, velocity: Any = None) -> None:
        """Write the positions and / or velocities (``(k, 2)`` arrays) of ``entities`` (``k``
        distinct bodies) in one call: bit for bit what ``Position.xy = ...`` and
        ``Velocity.xy = ...`` on each entity's components do (the components read the new
        values; a sleeper wakes when moved or given a velocity other than (0, 0), not when
        written what it has). Checked as component writes are (finite, within
        ``limits.MAX_COORD`` / ``MAX_SPEED``), all before anything is written: ``ValueError`` /
        ``TypeError`` naming the field, the entity and the value, and nothing changes.
        Adopts what the game created or deleted since the last step first (as ``sync``)."""
        self.sync()
        self._arrays.write(entities, position, velocity)

    def snapshot(self) -> Snapshot:
        """The whole physics state now, as a plain value that pickles (see
        `ecsphys.state.snapshot`): restore it to rewind, replay or roll back."""
        return snapshot.take(self)

    def restore(self, saved: Snapshot) -> None:
        """Put back a state ``snapshot()`` returned; stepping again with the same inputs gives
        the same bits. ``ValueError`` naming the entities if the world's bodies are not those
        of the snapshot (then nothing changes)."""
        snapshot.restore(self, saved)

    def remove(self) -> None:
        """Take this Physics out of its esper world; adopted components keep their values."""
        _GATE.enter()
        previous = esper.current_world
        esper.switch_world(self.world)
        try:
            if self.processor in esper._processors:
                esper._processors.remove(self.processor)
                esper._processors_dict.pop(PhysicsProcessor, None)
            self._adopt.release()
        finally:
            esper.switch_world(previous)
            _GATE.leave()
        self.table.clear()
        self._forget_pairs()

    def _forget_pairs(self) -> None:
        """Drop the touching pairs and undelivered events without events (``remove``, and a
        world cleared with ``esper.clear_database``: see `ecsphys.systems.adopt`)."""
        self._events.reset()
        self._narrowphase.reset()

    def __repr__(self) -> str:
        return (f"Physics(fixed_dt={self.fixed_dt!r}, world={self.world!r}, "
                f"bodies={self.table.n}, steps={self.steps})")


Handler = Callable[..., Any]
