"""Many rooms: independent physics worlds run side by side, in this process, on a local process
pool or on Ray actors, with the same bits everywhere.

Guarantees:
- A room is one esper world of its own with its own `Physics`, made by the game's ``build``
  function: ``build(room_id, seed) -> Physics``, a module-level function (so it pickles by
  name) that makes the Physics and the room's entities in the esper world that is current when
  it is called (a fresh world, named for the room). Room ``i`` of ``Rooms(build, n, seed=s)``
  is built with ``build(i, s + i)``.
- ``Rooms.run(steps, inputs)`` advances every room by ``steps`` fixed steps. Before each step
  the game's ``act(physics, room_id, step, action)`` (module-level, optional) runs with the
  room's world current; ``action`` is the room's entry of ``inputs[room_id]`` for that step
  (a picklable sequence of ``steps`` actions), or None. The batch returns one `RoomResult` a
  room: its state as arrays (``physics.arrays(*arrays)``), its touch and separate counts
  (since the room began), the batch's events as a list if asked (``events="list"``), and the
  room's state as bytes (a pickled ``physics.snapshot()`` with the room's counters).
- Results are bit-identical whatever the engine (``"inline"``, ``"process"``, ``"ray"``), the
  number of workers and wherever a room ran: a room depends on its id, its seed and its
  inputs only. Rooms move between workers as state bytes: the coordinator keeps each room's
  last state, and a worker that does not hold the room at that state rebuilds it there
  (``build``, then ``physics.restore``) and goes on with the same bits as a room never moved
  (``Rooms.move``, ``Rooms.rebalance``). A worker lost (its process died, its actor was
  killed), in a batch or between batches, is replaced and its rooms rerun the batch from their
  last state (once a batch: lost again, its rooms' results carry a `RoomError`).
- An exception raised in a room's code (``build``, ``act``, a handler, a step) comes back as
  that room's ``RoomResult.error``, a `RoomError` naming the room with the traceback's text;
  the other rooms go on and finish, and the failed room stays at its state before the batch.
- Arguments are checked before anything runs: ``ValueError`` / ``TypeError`` naming the field
  and the value (room counts and ids, steps, inputs, engine names, workers, fields).

Moving a room rebuilds it from its snapshot, which restores the bodies ``build`` made: a room
that is to move keeps the entities ``build`` made (``act`` changes their components: positions,
velocities, accelerations, colliders, shapes, tiles) and keeps any game state it needs in them;
game state held elsewhere (a Python counter in ``build``'s closure) starts again on a rebuild.

Engines: ``"process"`` (default) runs each worker as a process of its own (a one-process
``concurrent.futures.ProcessPoolExecutor``, started by ``forkserver`` where the platform has it,
else ``spawn``, never ``fork``: a forked child would inherit the parent's esper worlds, its
current world and a held ``ESPER_LOCK``), one worker per core by default. ``"ray"`` runs the
workers as Ray actors (``pip install "ecsphys[ray]"``; ``ray.init()`` locally unless Ray is
initialised already, or ``ray.init(address=...)`` to join a cluster). ``"inline"`` runs them in
this process, one room after another (tests, debugging).
"""

from __future__ import annotations

import importlib
import itertools
import multiprocessing
import os
import pickle
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import esper
import numpy as np

from .physics import ESPER_LOCK, Physics

__all__ = ["ENGINES", "RoomError", "RoomResult", "Rooms"]

#: The engines a `Rooms` runs on.
ENGINES = ("process", "ray", "inline")
#: The fields ``Rooms(arrays=...)`` may ask for (those of ``physics.arrays``).
ARRAY_FIELDS = ("entity", "position", "velocity", "sleeping", "kind")
#: What ``Rooms(events=...)`` may be.
EVENT_MODES = ("counts", "list", None)
#: The most rooms, workers and steps a batch may have (beyond: a typo, not a game).
MAX_ROOMS = 1_000_000
MAX_WORKERS = 4096
MAX_STEPS = 10_000_000
_STATE_FORMAT = 1
_RAY_MISSING = 'engine="ray" needs Ray: pip install "ecsphys[ray]"'

Build = Callable[[int, int], Physics]
Act = Callable[[Physics, int, int, Any], None]


# ---------------------------------------------------------------- results


class RoomError(Exception):
    """An exception raised in a room's code (``build``, ``act``, a handler, a step), as it comes
    back from any engine: ``room_id`` and ``details`` (the traceback's text)."""

    def __init__(self, room_id: int, details: str) -> None:
        super().__init__(room_id, details)
        self.room_id = room_id
        self.details = details

    def __str__(self) -> str:
        return f"room {self.room_id} failed:\n{self.details}"


@dataclass(eq=False)
class RoomResult:
    """What one room's batch gave back.

    ``steps``, ``touches`` and ``separations`` count since the room began; ``events`` holds
    the batch's events as ``(step, "touch" | "separate", a, b)`` with ``events="list"`` (empty
    otherwise); ``arrays`` maps each field asked for to ``physics.arrays(field)``; ``state`` is
    the room's state as bytes (rebuild anywhere from it); ``error`` is a `RoomError` when the
    room's code raised (then the rest is the room's state before the batch, and ``arrays`` is
    empty). ``worker`` and ``seconds`` say where it ran and how long its batch took (they vary
    from run to run; the rest does not)."""

    room_id: int
    steps: int
    touches: int
    separations: int
    events: list[tuple[int, str, int, int]]
    arrays: dict[str, np.ndarray]
    state: bytes
    error: RoomError | None = None
    worker: int = -1
    seconds: float = 0.0

    def snapshot(self) -> Any:
        """The room's physics snapshot (`ecsphys.state.snapshot.Snapshot`) from ``state``
        (None if the room never finished a batch)."""
        return pickle.loads(self.state)[1] if self.state else None


# ---------------------------------------------------------------- the worker side


@dataclass
class _Task:
    room_id: int
    seed: int
    version: int  # batches the room has run when this one starts
    state: bytes | None  # None: build afresh (version 0) or use the copy held at ``version``
    steps: int
    actions: Sequence[Any] | None
    drop: tuple[int, ...] = ()  # rooms that moved away from this worker


@dataclass
class _Live:
    world: str
    physics: Physics
    version: int
    steps: int = 0
    touches: int = 0
    separations: int = 0
    events: list[tuple[int, str, int, int]] = field(default_factory=list)


@dataclass
class _Failed:
    error: Exception  # what submitting a chunk raised


_hosts = itertools.count()


class RoomHost:
    """One worker: holds its rooms alive between batches, each in an esper world of its own,
    and runs their batches (``run``). Made in the worker's process (or actor) by the engine."""

    def __init__(self, build: Build, act: Act | None, arrays: tuple[str, ...],
                 events: str | None, index: int) -> None:
        self.build = build
        self.act = act
        self.fields = arrays
        self.events = events
        self.index = index
        self.tag = f"ecsphys.rooms/{os.getpid()}/{next(_hosts)}"
        self.rooms: dict[int, _Live] = {}

    def run_many(self, tasks: list[_Task]) -> list[RoomResult]:
        """Run the batches of several rooms, one after another (see ``run``)."""
        return [self.run(task) for task in tasks]

    def run(self, task: _Task) -> RoomResult:
        """Run one room's batch; never raises for the room's own errors (see `RoomError`)."""
        for gone in task.drop:
            self._drop(gone)
        t0 = time.perf_counter()
        rid = task.room_id
        try:
            live = self.rooms.get(rid)
            if live is None or live.version != task.version:
                self._drop(rid)
                live = self._make(task)
            live.events = []
            self._steps(live, task)
            live.version += 1
            state = self._state(live)
            arrays = {}
            if self.fields:
                got = live.physics.arrays(*self.fields)
                got = got if isinstance(got, tuple) else (got,)
                arrays = dict(zip(self.fields, got, strict=True))
            return RoomResult(rid, live.steps, live.touches, live.separations, live.events,
                              arrays, state, None, self.index, time.perf_counter() - t0)
        except Exception:
            self._drop(rid)
            error = RoomError(rid, traceback.format_exc())
            return RoomResult(rid, -1, -1, -1, [], {}, b"", error, self.index,
                              time.perf_counter() - t0)

    def _make(self, task: _Task) -> _Live:
        """Build the room in a fresh world, then restore its state if it has one."""
        world = f"{self.tag}/{task.room_id}"
        with ESPER_LOCK:
            previous = esper.current_world
            if world in esper.list_worlds() and world != previous:
                esper.delete_world(world)
            esper.switch_world(world)
            try:
                physics = self.build(task.room_id, task.seed)
                if not isinstance(physics, Physics) or physics.world != world:
                    raise TypeError(f"build must return the Physics it made in the current "
                                    f"esper world, got {physics!r}")
            except BaseException:
                esper.switch_world(previous)
                esper.delete_world(world)  # nothing of a failed build stays
                raise
            esper.switch_world(previous)
        live = _Live(world, physics, 0)
        if self.events is not None:
            physics.on_touch(lambda c: self._seen(live, "touch", c))
            physics.on_separate(lambda c: self._seen(live, "separate", c))
        if task.state is not None:
            fmt, snap, steps, touches, separations, version = pickle.loads(task.state)
            if fmt != _STATE_FORMAT or version != task.version:
                raise ValueError(f"room state is of format {fmt!r}, version {version!r}: "
                                 f"expected {_STATE_FORMAT}, {task.version}")
            physics.restore(snap)
            live.steps, live.touches, live.separations = steps, touches, separations
            live.version = version
        elif task.version != 0:
            raise ValueError(f"room {task.room_id} is not held here at version {task.version} "
                             f"and no state was sent")
        self.rooms[task.room_id] = live
        return live

    def _seen(self, live: _Live, name: str, contact: Any) -> None:
        if name == "touch":
            live.touches += 1
        else:
            live.separations += 1
        if self.events == "list":
            live.events.append((live.steps, name, contact.a, contact.b))

    def _steps(self, live: _Live, task: _Task) -> None:
        physics, act, rid = live.physics, self.act, task.room_id
        for k in range(task.steps):
            if act is not None:
                action = None if task.actions is None else task.actions[k]
                with physics.in_world():
                    act(physics, rid, live.steps, action)
            physics.step()
            live.steps += 1

    def _state(self, live: _Live) -> bytes:
        """The room's state as bytes (the same state gives the same bytes in every process:
        shapes pickle without their cached hash, `ecsphys.shapes`)."""
        return pickle.dumps((_STATE_FORMAT, live.physics.snapshot(), live.steps, live.touches,
                             live.separations, live.version), protocol=pickle.HIGHEST_PROTOCOL)

    def _drop(self, room_id: int) -> None:
        live = self.rooms.pop(room_id, None)
        if live is None:
            return
        with ESPER_LOCK:
            if esper.current_world != live.world and live.world in esper.list_worlds():
                esper.delete_world(live.world)


_HOST: RoomHost | None = None  # the process engine's worker, in its own process


def _start_host(build: Build, act: Act | None, arrays: tuple[str, ...], events: str | None,
                index: int) -> None:
    global _HOST
    _HOST = RoomHost(build, act, arrays, events, index)


def _host_run(tasks: list[_Task]) -> list[RoomResult]:
    assert _HOST is not None
    return _HOST.run_many(tasks)


# ---------------------------------------------------------------- engines


class _Inline:
    def __init__(self, spec: tuple[Any, ...], workers: int) -> None:
        self.spec = spec
        self.hosts = [RoomHost(*spec, i) for i in range(workers)]

    def submit(self, worker: int, tasks: list[_Task]) -> Any:
        return self.hosts[worker].run_many(tasks)

    def result(self, handle: Any) -> list[RoomResult]:
        return handle  # type: ignore[no-any-return]

    def restart(self, worker: int) -> None:
        self.hosts[worker] = RoomHost(*self.spec, worker)

    def lost(self, exc: BaseException) -> bool:
        return False

    def close(self) -> None:
        for host in self.hosts:
            for rid in list(host.rooms):
                host._drop(rid)


class _Process:
    def __init__(self, spec: tuple[Any, ...], workers: int, start_method: str) -> None:
        self.spec = spec
        self.context = multiprocessing.get_context(start_method)
        self.pools = [self._pool(i) for i in range(workers)]

    def _pool(self, index: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(1, mp_context=self.context, initializer=_start_host,
                                   initargs=(*self.spec, index))

    def submit(self, worker: int, tasks: list[_Task]) -> Future[list[RoomResult]]:
        return self.pools[worker].submit(_host_run, tasks)

    def result(self, handle: Future[list[RoomResult]]) -> list[RoomResult]:
        return handle.result()

    def restart(self, worker: int) -> None:
        self.pools[worker].shutdown(wait=False, cancel_futures=True)
        self.pools[worker] = self._pool(worker)

    def lost(self, exc: BaseException) -> bool:
        return isinstance(exc, BrokenProcessPool)

    def close(self) -> None:
        for pool in self.pools:
            pool.shutdown(wait=True, cancel_futures=True)


class _Ray:
    def __init__(self, spec: tuple[Any, ...], workers: int | None, address: str | None) -> None:
        try:
            ray = importlib.import_module("ray")
        except ImportError as exc:
            raise ImportError(_RAY_MISSING) from exc
        self.ray = ray
        if not ray.is_initialized():
            ray.init(address=address)
        if workers is None:
            workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.workers = workers
        self.spec = spec
        self.remote = ray.remote(num_cpus=1)(RoomHost)
        self.actors = [self._actor(i) for i in range(workers)]

    def _actor(self, index: int) -> Any:
        return self.remote.remote(*self.spec, index)

    def submit(self, worker: int, tasks: list[_Task]) -> Any:
        return self.actors[worker].run_many.remote(tasks)

    def result(self, handle: Any) -> list[RoomResult]:
        return self.ray.get(handle)  # type: ignore[no-any-return]

    def restart(self, worker: int) -> None:
        self.ray.kill(self.actors[worker])
        self.actors[worker] = self._actor(worker)

    def lost(self, exc: BaseException) -> bool:
        return isinstance(exc, self.ray.exceptions.RayActorError)

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []


# ---------------------------------------------------------------- the coordinator


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value!r}")
    return int(value)


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _room_ids(rooms: object) -> list[int]:
    if isinstance(rooms, (int, np.integer)) and not isinstance(rooms, bool):
        return list(range(_check_int("rooms", rooms, 1, MAX_ROOMS)))
    if isinstance(rooms, (str, bytes)) or not isinstance(rooms, Iterable):
        raise TypeError(f"rooms must be a count or an iterable of room ids, got {rooms!r}")
    ids = [_check_int("room id", r, 0, 2**62) for r in rooms]
    if not 1 <= len(ids) <= MAX_ROOMS:
        raise ValueError(f"rooms must hold 1 to {MAX_ROOMS} room ids, got {len(ids)}")
    if len(set(ids)) != len(ids):
        raise ValueError(f"rooms must be distinct ids, got {ids!r}")
    return sorted(ids)


class Rooms:
    """Many independent rooms, each an esper world with its own Physics, run on an engine.

    >>> from ecsphys import rooms as rm
    >>> from ecsphys.rooms import _example_build
    >>> with rm.Rooms(_example_build, 3, engine="inline") as rooms:
    ...     done = rooms.run(30)
    >>> [done[i].steps for i in sorted(done)]
    [30, 30, 30]

    Parameters:
        build: ``build(room_id, seed) -> Physics``, module-level (it pickles by name); makes
            the Physics and the entities in the current esper world.
        rooms: how many rooms (ids 0 .. n-1) or their ids (distinct ints >= 0).
        act: optional ``act(physics, room_id, step, action)``, module-level, called before each
            step with the room's world current (``step`` counts from the room's start).
        engine: ``"process"`` (default), ``"ray"`` or ``"inline"``.
        workers: how many workers (default: the cores of this machine for ``"process"``, the
            cluster's CPUs for ``"ray"``, 1 for ``"inline"``).
        seed: room ``i`` is built with ``build(i, seed + i)``.
        arrays: the fields of ``physics.arrays`` each result carries (() for none).
        events: ``"counts"`` (touch and separate counts), ``"list"`` (also the batch's events)
            or None (no handlers, counts stay 0).
        address: Ray's cluster address (``engine="ray"`` only; default: a local Ray, or the
            one ``ray.init`` started). Each Ray worker is an actor that takes one CPU: ask for
            no more workers than the cluster has CPUs free.
        start_method: ``"forkserver"`` or ``"spawn"`` (``engine="process"`` only; default
            forkserver where the platform has it).

    ``ValueError`` / ``TypeError`` naming the argument and its value; ``ImportError`` naming
    the extra when ``engine="ray"`` and Ray is not installed.
    """

    def __init__(self, build: Build, rooms: int | Iterable[int], *, act: Act | None = None,
                 engine: str = "process", workers: int | None = None, seed: int = 0,
                 arrays: Sequence[str] = ("entity", "position", "velocity"),
                 events: str | None = "counts", address: str | None = None,
                 start_method: str | None = None) -> None:
        if not callable(build):
            raise TypeError(f"build must be callable, got {build!r}")
        if act is not None and not callable(act):
            raise TypeError(f"act must be callable or None, got {act!r}")
        if not isinstance(engine, str):
            raise TypeError(f"engine must be a str, got {engine!r}")
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        self.ids = _room_ids(rooms)
        if workers is not None:
            workers = _check_int("workers", workers, 1, MAX_WORKERS)
        self.seed = _check_int("seed", seed, -(2**62), 2**62)
        if isinstance(arrays, str) or not isinstance(arrays, Sequence):
            raise TypeError(f"arrays must be a sequence of field names, got {arrays!r}")
        for name in arrays:
            if name not in ARRAY_FIELDS:
                raise ValueError(f"arrays: unknown field {name!r}, known: {ARRAY_FIELDS}")
        if events not in EVENT_MODES:
            raise ValueError(f"events must be one of {EVENT_MODES}, got {events!r}")
        if address is not None and engine != "ray":
            raise ValueError(f"address is for engine='ray', not {engine!r}")
        if start_method is not None and engine != "process":
            raise ValueError(f"start_method is for engine='process', not {engine!r}")
        methods = multiprocessing.get_all_start_methods()
        if start_method is None:
            start_method = "forkserver" if "forkserver" in methods else "spawn"
        elif start_method not in ("forkserver", "spawn") or start_method not in methods:
            raise ValueError(f"start_method must be 'forkserver' or 'spawn' (where available; "
                             f"never 'fork'), got {start_method!r}")
        if engine != "inline":
            for name, fn in (("build", build), ("act", act)):
                try:
                    pickle.dumps(fn)
                except Exception as exc:
                    raise TypeError(f"{name} must pickle (a module-level function) for "
                                    f"engine={engine!r}, got {fn!r}: {exc}") from exc
        self.engine = engine
        spec = (build, act, tuple(arrays), events)
        self._engine: _Inline | _Process | _Ray
        if engine == "inline":
            self._engine = _Inline(spec, workers or 1)
            self.workers = workers or 1
        elif engine == "process":
            self.workers = workers or _cores()
            self._engine = _Process(spec, self.workers, start_method)
        else:
            self._engine = _Ray(spec, workers, address)
            self.workers = self._engine.workers
        #: room id -> the worker it runs on
        self.placement = {rid: k % self.workers for k, rid in enumerate(self.ids)}
        self._state: dict[int, bytes | None] = dict.fromkeys(self.ids)
        self._version = dict.fromkeys(self.ids, 0)
        self._live: dict[int, int | None] = dict.fromkeys(self.ids)  # worker holding it now
        self._drop: dict[int, list[int]] = {w: [] for w in range(self.workers)}
        self._seconds = dict.fromkeys(self.ids, 0.0)

    # ------------------------------------------------------------ running

    def run(self, steps: int, inputs: Mapping[int, Sequence[Any]] | None = None
            ) -> dict[int, RoomResult]:
        """Advance every room by ``steps`` steps (rooms in parallel across workers); returns
        room id -> `RoomResult`. ``inputs`` maps room ids to a sequence of ``steps`` actions
        each (handed to ``act``; rooms not in it get None). A room whose code raised has its
        ``error`` set and stays at its state before the batch; the others go on."""
        steps = _check_int("steps", steps, 0, MAX_STEPS)
        if inputs is not None:
            if not isinstance(inputs, Mapping):
                raise TypeError(f"inputs must map room ids to actions, got {inputs!r}")
            if self._engine_spec_act() is None:
                raise ValueError("inputs need an act function: Rooms(..., act=...)")
            for rid, actions in inputs.items():
                if rid not in self._state:
                    raise ValueError(f"inputs: no room {rid!r}")
                if isinstance(actions, (str, bytes)) or not isinstance(actions, Sequence):
                    raise TypeError(f"inputs[{rid!r}] must be a sequence of actions, got "
                                    f"{actions!r}")
                if len(actions) != steps:
                    raise ValueError(f"inputs[{rid!r}] must hold {steps} actions (one a step), "
                                     f"got {len(actions)}")
        actions = inputs or {}
        results: dict[int, RoomResult] = {}
        chunks: dict[int, list[int]] = {}
        for rid in self.ids:
            chunks.setdefault(self.placement[rid], []).append(rid)
        # (worker, its rooms, the handle, whether the chunk may still be split room by room)
        pending = [(w, rids, self._submit(w, rids, steps, actions), True)
                   for w, rids in sorted(chunks.items())]
        retried: set[int] = set()
        while pending:
            worker, rids, handle, splittable = pending.pop(0)
            try:
                if isinstance(handle, _Failed):
                    raise handle.error
                got = self._engine.result(handle)
            except Exception as exc:
                lost = self._engine.lost(exc)
                for r in self.ids:  # what the worker held may be gone or half-run
                    if self._live[r] == worker:
                        self._live[r] = None
                if lost and worker not in retried:  # replace it; rerun from the last states
                    retried.add(worker)
                    self._engine.restart(worker)
                    self._drop[worker] = []
                    again = [(rids, splittable)] + [(p[1], p[3]) for p in pending
                                                    if p[0] == worker]
                    pending = [p for p in pending if p[0] != worker]
                    pending.extend((worker, r, self._submit(worker, r, steps, actions), split)
                                   for r, split in again)
                    continue
                if splittable and len(rids) > 1 and not lost:  # find the room it was
                    pending.extend((worker, [r], self._submit(worker, [r], steps, actions),
                                    False) for r in rids)
                    continue
                text = "".join(traceback.format_exception(exc))
                got = [RoomResult(r, -1, -1, -1, [], {}, b"", RoomError(r, text), worker)
                       for r in rids]
            for result in got:
                results[result.room_id] = self._settle(result.room_id, worker, result)
        return {rid: results[rid] for rid in self.ids}

    def _engine_spec_act(self) -> Act | None:
        return self._engine.spec[1]  # type: ignore[no-any-return]

    def _submit(self, worker: int, rids: list[int], steps: int,
                actions: Mapping[int, Sequence[Any]]) -> Any:
        tasks = []
        for rid in rids:
            held = self._live[rid] == worker
            given = actions.get(rid)
            tasks.append(_Task(rid, self.seed + rid, self._version[rid],
                               None if held else self._state[rid], steps,
                               None if given is None else list(given)))
        if tasks:
            tasks[0].drop = tuple(self._drop[worker])
        self._drop[worker] = []
        try:
            return self._engine.submit(worker, tasks)
        except Exception as exc:  # a pool already broken: seen (and handled) as its result
            return _Failed(exc)

    def _settle(self, rid: int, worker: int, result: RoomResult) -> RoomResult:
        if result.error is None:
            self._state[rid] = result.state
            self._version[rid] += 1
            self._live[rid] = worker
            self._seconds[rid] = result.seconds
            return result
        self._live[rid] = None  # the worker dropped it: rebuilt from the last state
        before = self._state[rid]
        if before is not None:
            _, _, steps, touches, separations, _ = pickle.loads(before)
            result.steps, result.touches, result.separations = steps, touches, separations
            result.state = before
        else:
            result.steps = result.touches = result.separations = 0
        return result

    # ------------------------------------------------------------ placement

    def move(self, room_id: int, worker: int) -> None:
        """Run room ``room_id`` on ``worker`` from the next batch on: it is rebuilt there from
        its last state (same bits as if it had stayed)."""
        if room_id not in self.placement:
            raise ValueError(f"room_id: no room {room_id!r}")
        worker = _check_int("worker", worker, 0, self.workers - 1)
        old = self.placement[room_id]
        if old != worker:
            if self._live[room_id] == old:
                self._drop[old].append(room_id)
            self._live[room_id] = None
            self.placement[room_id] = worker

    def rebalance(self) -> dict[int, int]:
        """Spread the rooms over the workers by the time their last batch took (the longest
        first, each to the least loaded worker; ties by room id); returns the new placement.
        Rooms that change worker move as their state (see `move`)."""
        order = sorted(self.ids, key=lambda r: (-self._seconds[r], r))
        load = [0.0] * self.workers
        counts = [0] * self.workers
        for rid in order:
            worker = min(range(self.workers), key=lambda w: (load[w], counts[w], w))
            load[worker] += self._seconds[rid]
            counts[worker] += 1
            self.move(rid, worker)
        return dict(self.placement)

    def state(self, room_id: int) -> bytes | None:
        """The room's last state as bytes (None before its first batch)."""
        if room_id not in self._state:
            raise ValueError(f"room_id: no room {room_id!r}")
        return self._state[room_id]

    # ------------------------------------------------------------ lifetime

    def close(self) -> None:
        """Stop the workers (processes, actors) and drop the rooms' worlds."""
        self._engine.close()

    def __enter__(self) -> Rooms:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"Rooms(rooms={len(self.ids)}, engine={self.engine!r}, "
                f"workers={self.workers})")


def _example_build(room_id: int, seed: int) -> Physics:
    """A tiny room for the doctest: one ball falling onto a floor."""
    from .components import ACTIVE, STATIC, AccelerationMap, Collider, Geometry, Position, Velocity
    from .shapes import Circle, Rect

    physics = Physics(fixed_dt=1 / 60)
    esper.create_entity(Position(0, 0), Collider(STATIC), Geometry(Rect(20, 1)))
    esper.create_entity(Position(seed % 5, 3), Velocity(1, 0),
                        AccelerationMap(gravity=(0, -9.8)), Collider(ACTIVE),
                        Geometry(Circle(0.5)))
    return physics
