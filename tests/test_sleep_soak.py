"""The churning level soaked with sleeping on: every promise sleeping makes, checked every step.

The level is `tests.test_sleep_events_pairing.Churn` (piles on a floor, a ledge and a tile map;
bodies spawned, dropped, deleted, kicked, re-shaped; tiles dug and built; moving platforms the
game starts and stops; handlers that delete what they touch). Two copies of it run side by
side from one seed, each in its own esper world: the twin only steps; the soaked one, before
every frame, takes ``physics.snapshot()`` and restores it at once (what rollback netcode does
when it rolls back zero frames). Checked after every frame:

- touch and separate alternate for every ``(a, b, tile)`` (`Churn`'s own checks), and every
  ``POLL`` frames the open pairs are ``physics.contacts()``, none listed twice;
- ``restore(snapshot())`` is never refused;
- no sleeper in mid-air: every sleeping body with gravity has a contact;
- the two copies have the same bits: positions, velocities and sleep flags of every body,
  and the same events (a snapshot and a restore change nothing that follows).

The default run soaks 800 frames (seed 3); ``-m slow`` soaks 1,500 frames (seed 7), then
``SOAK_SECONDS`` seconds of wall time (10 minutes) on fresh seeds until the time is up, and
reports the totals.
"""

from __future__ import annotations

import time

import esper
import numpy as np
import pytest

from tests.sleep_scenes import body_state
from tests.test_sleep_events_pairing import Churn

SOAK_SECONDS = 600.0


class Twins:
    """Two copies of the churning level from one seed (see the module notes)."""

    def __init__(self, seed: int, name: str) -> None:
        self.worlds = (f"{name}-soaked", f"{name}-twin")
        self.levels: list[Churn] = []
        for w in self.worlds:
            esper.switch_world(w)
            level = Churn(seed, steps=0)
            level.after_step = lambda level=level: self._midair(level)  # type: ignore[method-assign]
            self.levels.append(level)
        self.frames = self.refused = self.midair = 0
        self.logs: tuple[list, list] = ([], [])
        for level, log in zip(self.levels, self.logs, strict=True):
            level.physics.on_touch(lambda c, log=log: log.append(("t", c.a, c.b, c.tile)))
            level.physics.on_separate(lambda c, log=log: log.append(("s", c.a, c.b, c.tile)))

    def frame(self) -> None:
        """One frame of both copies, then the checks (AssertionError naming what broke)."""
        for i, (w, level) in enumerate(zip(self.worlds, self.levels, strict=True)):
            esper.switch_world(w)
            ph = level.physics
            if i == 0:
                try:
                    ph.restore(ph.snapshot())
                except ValueError as e:
                    self.refused += 1
                    level.fail(f"restore(snapshot()) refused: {e}")
            self.logs[i].clear()
            level.step()
        self.frames += 1
        self._same()

    def _midair(self, level: Churn) -> None:
        """No sleeper with gravity touches nothing (`Churn.after_step`)."""
        ph, t = level.physics, level.physics.table
        n = t.n
        sleepers = np.flatnonzero(t.asleep[:n] & (t.acc[:n] != 0.0).any(axis=1))
        for row in sleepers.tolist():
            e = int(t.entity[row])
            if not ph.contacts_of(e):
                self.midair += 1
                level.fail(f"entity {e} sleeps at {tuple(t.pos[row].tolist())} touching "
                           f"nothing")

    def _same(self) -> None:
        states = []
        for w, level in zip(self.worlds, self.levels, strict=True):
            esper.switch_world(w)
            states.append(body_state(level.physics))
        (ea, pa, va, sa), (eb, pb, vb, sb) = states
        if not (np.array_equal(ea, eb) and np.array_equal(pa, pb) and np.array_equal(va, vb)
                and np.array_equal(sa, sb)):
            differ = np.flatnonzero((pa != pb).any(axis=1) | (va != vb).any(axis=1)
                                    | (sa != sb)) if len(ea) == len(eb) else []
            self.levels[0].fail(f"frame {self.frames}: the soaked copy differs from its twin "
                                f"(entities {ea[differ][:5].tolist()})")
        if self.logs[0] != self.logs[1]:
            self.levels[0].fail(f"frame {self.frames}: events differ from the twin's: "
                                f"{self.logs[0][:4]} vs {self.logs[1][:4]}")

    def teardown(self) -> None:
        for w, level in zip(self.worlds, self.levels, strict=True):
            esper.switch_world(w)
            level.teardown()

    def close(self, previous: str) -> None:
        esper.switch_world(previous)
        for w in self.worlds:
            if w in esper.list_worlds():
                esper.delete_world(w)


def _soak(seed: int, frames: int | None, seconds: float | None) -> Twins:
    previous = esper.current_world
    twins = Twins(seed, f"sleep-soak-{seed}")
    start = time.monotonic()
    try:
        while (frames is None or twins.frames < frames) and (
                seconds is None or time.monotonic() - start < seconds):
            twins.frame()
        twins.teardown()
    finally:
        twins.close(previous)
    return twins


@pytest.mark.parametrize(("seed", "frames", "woke"), [
    (3, 800, 40),  # the default run's: about 840 touches, 270 fell asleep, 63 woke
    pytest.param(7, 1500, 100, marks=pytest.mark.slow),  # 1,350 touches, 500 fell, 103 woke
])
def test_a_churning_sleeping_level_keeps_every_promise_with_a_snapshot_restored_each_frame(
        seed, frames, woke):
    twins = _soak(seed, frames, None)
    soaked = twins.levels[0]
    assert (twins.refused, twins.midair) == (0, 0)
    assert soaked.touches == soaked.separates > 500
    # the soak did what it is for: bodies fell asleep and woke, the platforms worked
    assert soaked.fell > 100 and soaked.woke > woke, (soaked.fell, soaked.woke)
    assert soaked.done["platform"] > 5 and soaked.done["delete"] > 5, dict(soaked.done)


@pytest.mark.slow
def test_a_ten_minute_soak_of_churning_sleeping_levels_keeps_every_promise():
    start = time.monotonic()
    seed, totals = 100, {"frames": 0, "touches": 0, "separates": 0, "fell": 0, "woke": 0}
    while time.monotonic() - start < SOAK_SECONDS:
        twins = _soak(seed, 20_000, SOAK_SECONDS - (time.monotonic() - start))
        soaked = twins.levels[0]
        assert (twins.refused, twins.midair) == (0, 0)
        assert soaked.touches == soaked.separates
        for key, value in (("frames", twins.frames), ("touches", soaked.touches),
                           ("separates", soaked.separates), ("fell", soaked.fell),
                           ("woke", soaked.woke)):
            totals[key] += value
        seed += 1
    print(f"soak: {seed - 100} levels, {totals}")
    assert totals["frames"] > 10_000
