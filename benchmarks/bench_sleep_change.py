"""What one ball falling asleep, or one ball woken, costs among many sleepers, against a quiet step.

Guarantees: per size ``N`` (``--field``), one field built once: ``N`` balls (radius 0.5,
ACTIVE, gravity (0, -9.8), ``sleep_after=0.5``, dt 1/60) placed exactly at rest on a static
floor (their centres at y = 0.5, the floor's top at y = 0, zero velocity), 3 units apart so
each is its own island, stepped until all are asleep. Then ``--windows`` windows (after one
untimed warm-up window that pays the world's one-off costs), each in this order:
- ``fall-asleep``: one more ball is placed at rest on the floor in the field's middle slot,
  left free (half a spacing from the balls beside it; created and adopted with
  ``physics.sync()``, untimed), the world is stepped
  until that ball falls asleep (``physics.is_sleeping`` turns True: 30 steps of 1/60 after
  ``sleep_after``), and exactly that step is timed;
- ``after``: the step right after it (everything asleep, but still paying for the change);
- ``quiet``: steps in which nothing moves and nothing changes, every body asleep: the
  ``QUIET_AFTER``-th step after it alone (read by the physics' clock, below), then the
  ``QUIET_RUN`` steps after that timed as one and divided by ``QUIET_RUN`` (a
  ``time.process_time`` call costs about 1.6 us here, half of a quiet step: one around a
  single quiet step would add that to the denominator); the sleeper count and the new
  ball's position are checked not to change;
- ``wake``: ``physics.wake`` on one ball of the field (a different one each window) and the
  step after it, timed together (the game's own wake, without a rock; see
  `benchmarks.bench_wake` for the wake by an impact); it must wake that ball and no other;
  then, untimed, that ball falls asleep again and the new ball is deleted (so every window
  starts from the same field of ``N`` sleepers).
So the event steps and the quiet steps of the same world alternate within each window, and
load from other processes hits them alike. Times are CPU time (``time.process_time`` around
``physics.step()``, around ``physics.wake`` + ``physics.step()``, and around the quiet run),
with the garbage collector off during a window; the first table shows the median of each
over the windows, in ms, and the ratios fall-asleep / quiet, after / quiet and wake / quiet.
The second shows the same steps by ``physics.timings["step"]`` (wall-clock ms measured inside
the step, so without ``Physics.step``'s own call; the wake's step without the ``wake()``
call; the quiet step alone), medians again. A cost that grows with the sleepers the change
leaves alone shows as a ratio that grows with ``N``.

    python -m benchmarks.bench_sleep_change [--field 1000,10000,50000] [--windows 40]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import statistics
import time
from collections.abc import Callable
from typing import Any

import esper

import ecsphys as ep

from . import scenes as S

RADIUS = 0.5
SPACING = 3.0  # between the centres of neighbouring field balls (each its own island)
FIRST_X = 5.0  # the first field ball's x
GAP = 0.5  # the new ball sits in the field's middle slot, left free, a fraction of the way
# along it (inside the field: a spawn beyond the statics' extent lays the grid out again,
# a cost of its own that `benchmarks.bench_first_step` and the spawn scenes measure)
QUIET_AFTER = 5  # the first quiet step: this many steps after the one in which the ball slept
QUIET_RUN = 20  # quiet steps timed as one (time.process_time itself costs about 1.6 us)
MAX_REST_STEPS = 120  # a ball placed at rest must fall asleep within this many steps
QUIET_ALONE = 5  # quiet steps then timed one by one, as the fall-asleep step is
KINDS = ("fall-asleep", "after", "quiet", "quiet alone", "wake")
OWN = tuple(f"own {k}" for k in KINDS)  # the same steps by physics.timings["step"]

_fields = itertools.count()


def _cpu_ms(fn: Callable[[], Any]) -> float:
    """CPU ms of ``fn()`` (``time.process_time``)."""
    t0 = time.process_time()
    fn()
    return (time.process_time() - t0) * 1e3


class SleepingField:
    """``n`` balls resting apart on a floor, all asleep, in their own esper world (which is
    the current world while the field lives, as a game's is)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.world = f"bench-sleep-change-{next(_fields)}"
        self._previous = esper.current_world
        esper.switch_world(self.world)
        self.physics = ep.Physics(fixed_dt=S.DT, sleep_after=S.SLEEP_TIME)
        self.shape = ep.Circle(RADIUS)
        self.new_x = FIRST_X + SPACING * (n // 2 + GAP)
        left, right = FIRST_X - 15.0, FIRST_X + SPACING * n + 15.0
        esper.create_entity(ep.Position((left + right) / 2, -1.0), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(right - left, 2.0)))
        self.balls = [self._ball(FIRST_X + SPACING * (i + (i >= n // 2))) for i in range(n)]
        for _ in range(MAX_REST_STEPS):
            self.physics.step()
            if self.sleeping() == n:
                break
        else:
            raise RuntimeError(f"the field did not fall asleep: {self.sleeping()} of {n}")
        for _ in range(QUIET_AFTER):  # the steps that follow the field's falling asleep
            self.physics.step()

    def _ball(self, x: float) -> int:
        """A ball at rest on the floor at ``x`` (its centre at y = RADIUS, the floor's top
        at 0), not yet adopted."""
        return esper.create_entity(ep.Position(x, RADIUS), ep.Velocity(0.0, 0.0),
                                   ep.Collider(ep.ACTIVE), ep.Geometry(self.shape),
                                   ep.AccelerationMap(gravity=S.GRAVITY))

    def sleeping(self) -> int:
        return self.physics.stats["sleeping"]

    def _rest_until_asleep(self, ball: int) -> tuple[float, float, float, float]:
        """Step until ``ball`` falls asleep, then up to the step before the ``QUIET_AFTER``-th
        after it: the CPU ms of the step in which it fell asleep and of the step after, then
        the same two steps' ``physics.timings["step"]``; every step timed alike."""
        physics = self.physics
        for _ in range(MAX_REST_STEPS):
            ms = _cpu_ms(physics.step)
            if physics.is_sleeping(ball):
                break
        else:
            raise RuntimeError("the ball placed at rest did not fall asleep")
        own = physics.timings["step"]
        asleep = self.sleeping()
        after = _cpu_ms(physics.step)
        own_after = physics.timings["step"]
        for _ in range(QUIET_AFTER - 2):
            _cpu_ms(physics.step)
        if self.sleeping() != asleep:
            raise RuntimeError("the field changed in the steps after the ball fell asleep")
        return ms, after, own, own_after

    def _quiet(self, new: int) -> tuple[float, float, float, float]:
        """The ``QUIET_AFTER``-th step after the new ball fell asleep, the ``QUIET_RUN``
        after it and the ``QUIET_ALONE`` after those, checked to change nothing: (CPU ms per
        step of the run, timed as one, ``physics.timings["step"]`` of the first, and the
        median CPU ms and ``physics.timings["step"]`` of the steps timed one by one: each
        after a ``time.process_time`` call, as the fall-asleep step is, whose system call
        leaves the caches colder than a run of steps does)."""
        physics, t = self.physics, self.physics.table
        where = t.pos[t.row_of[new]].copy()
        physics.step()
        own = physics.timings["step"]

        def run() -> None:
            for _ in range(QUIET_RUN):
                physics.step()

        cpu = _cpu_ms(run) / QUIET_RUN
        alone, own_alone = [], []
        for _ in range(QUIET_ALONE):
            alone.append(_cpu_ms(physics.step))
            own_alone.append(physics.timings["step"])
        if self.sleeping() != self.n + 1 or (t.pos[t.row_of[new]] != where).any():
            raise RuntimeError("a quiet step changed something")
        return cpu, own, statistics.median(alone), statistics.median(own_alone)

    def window(self, w: int) -> dict[str, float]:
        """One window (see the module notes): the CPU ms of each kind (`KINDS`), and each
        kind's ``physics.timings["step"]`` under ``"own " + kind``."""
        physics, n = self.physics, self.n
        if self.sleeping() != n:
            raise RuntimeError(f"the field is not asleep: {self.sleeping()} of {n}")
        new = self._ball(self.new_x)
        physics.sync()  # adopted now, outside the timed steps
        gc.collect()
        gc.disable()
        try:
            fall, after, own_fall, own_after = self._rest_until_asleep(new)
            if self.sleeping() != n + 1:
                raise RuntimeError("a ball other than the new one fell asleep or woke")
            quiet, own_quiet, alone, own_alone = self._quiet(new)
            woken = self.balls[(n // 2 + 7919 * w) % n]

            def wake_and_step() -> None:
                physics.wake(woken)
                physics.step()

            wake = _cpu_ms(wake_and_step)
            own_wake = physics.timings["step"]
            if physics.is_sleeping(woken) or self.sleeping() != n:
                raise RuntimeError(f"the wake woke {n + 1 - self.sleeping()} balls, "
                                   f"the one asked for {'not ' * physics.is_sleeping(woken)}"
                                   "among them")
            self._rest_until_asleep(woken)
        finally:
            gc.enable()
        esper.delete_entity(new, immediate=True)
        physics.sync()
        for _ in range(QUIET_AFTER):
            physics.step()
        return {"fall-asleep": fall, "after": after, "quiet": quiet, "quiet alone": alone,
                "wake": wake, "own fall-asleep": own_fall, "own after": own_after,
                "own quiet": own_quiet, "own quiet alone": own_alone,
                "own wake": own_wake}

    def close(self) -> None:
        self.physics.remove()
        esper.switch_world("default")
        esper.delete_world(self.world)
        esper.switch_world(self._previous if self._previous != self.world else "default")


def measure(n: int, windows: int) -> dict[str, float]:
    """Median CPU ms of each kind over ``windows`` windows of a field of ``n`` sleepers
    (after one untimed warm-up window)."""
    field = SleepingField(n)
    try:
        field.window(-1)  # warm-up: the world's first fall-asleep, wake and delete
        got: dict[str, list[float]] = {k: [] for k in KINDS + OWN}
        for w in range(windows):
            for kind, ms in field.window(w).items():
                got[kind].append(ms)
    finally:
        field.close()
    return {k: statistics.median(v) for k, v in got.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--field", default="1000,10000,50000",
                    help="sleeping fields of separate balls, comma separated")
    ap.add_argument("--windows", type=int, default=40, help="timed windows per size")
    args = ap.parse_args(argv)
    if args.windows < 1:
        ap.error("--windows must be at least 1")
    sizes = [int(x) for x in args.field.split(",")]
    got: dict[int, dict[str, float]] = {}
    print("CPU ms (time.process_time) of the step in which one ball falls asleep, the step "
          f"after it, a quiet step (the mean of {QUIET_RUN} timed as one, from the "
          f"{QUIET_AFTER + 1}th step after), and "
          "physics.wake(one ball) + the next step, among N sleepers (median of "
          f"{args.windows} windows each)")
    print("| N asleep | fall-asleep | step after | wake | quiet | quiet alone "
          "| fall-asleep / quiet | fall-asleep / quiet alone | after / quiet | wake / quiet |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        m = got[n] = measure(n, args.windows)
        q, qa = m["quiet"], m["quiet alone"]
        print(f"| {n} | {m['fall-asleep']:.4f} | {m['after']:.4f} | {m['wake']:.4f} | "
              f"{q:.4f} | {qa:.4f} | {m['fall-asleep'] / q:.0f}x | "
              f"{m['fall-asleep'] / qa:.0f}x | {m['after'] / q:.0f}x | "
              f"{m['wake'] / q:.0f}x |", flush=True)
    print()
    print('The same steps by the physics\' own clock (physics.timings["step"]: wall ms inside '
          "the step; the wake's step without the wake() call; the quiet step the "
          f"{QUIET_AFTER}th after, alone)")
    print("| N asleep | fall-asleep | step after | wake's step | quiet | quiet alone "
          "| fall-asleep / quiet | fall-asleep / quiet alone | after / quiet | wake / quiet |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        m = got[n]
        q, qa = m["own quiet"], m["own quiet alone"]
        print(f"| {n} | {m['own fall-asleep']:.4f} | {m['own after']:.4f} | "
              f"{m['own wake']:.4f} | {q:.4f} | {qa:.4f} | {m['own fall-asleep'] / q:.0f}x | "
              f"{m['own fall-asleep'] / qa:.0f}x | {m['own after'] / q:.0f}x | "
              f"{m['own wake'] / q:.0f}x |")


if __name__ == "__main__":
    main()
