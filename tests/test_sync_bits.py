"""Issue 45, item 8: the bits depend on the world, not on when it was synced.

"Two identical worlds with churn (a ball out and one in each frame, coins replaced from
``on_touch``): one calls ``physics.snapshot()`` after every frame and never restores; 3 of 40
balls differ from the other world by step 10. ``esper.process(0.0)`` after each frame does the
same. Adoption order decides the rows, and the step's results depend on the rows."

The promise ("What to build"): the step's results depend only on the bodies, their
components and the order of their creation (entity ids), never on whether a snapshot was
taken, how many frames without a step ran, or when new bodies were adopted.

Three copies of one game run side by side, each in an esper world of its own (esper is
module-level: each world is made current while its frame runs):

- ``plain``: the game's frame (a ball deleted and one made, then ``esper.process(dt)``, one
  fixed step) and nothing else;
- ``snapshot``: the same frame, then ``physics.snapshot()`` (never restored: a rollback game
  takes one every frame);
- ``process0``: the same frame, then ``esper.process(0.0)`` (a frame without a step).

The coins are static sensors; a coin that a ball touches is deleted from the ``on_touch``
handler and a new one made there, so bodies are made and deleted both by the game between
frames and by handlers inside the step. After every frame the position and velocity of every
body, by entity id, must be bit-identical across the three worlds (and the same entities
alive), with sleeping off (``sleep_after=None``) and on (the default).
"""

from __future__ import annotations

import itertools
import struct

import esper
import numpy as np
import pytest

import ecsphys as ep

DT = 1 / 60
BALLS = 40
COINS = 8
STEPS = 200
MODES = ("plain", "snapshot", "process0")

_names = itertools.count()


class Game:
    """One copy of the game in esper world ``name``; ``mode`` is what it does after each frame
    (see the module docstring). Two generators, seeded alike in every copy: one for the
    game's churn, one for the coins the handler makes."""

    def __init__(self, name: str, mode: str, sleep_after: float | None, seed: int) -> None:
        self.name = name
        self.mode = mode
        esper.switch_world(name)
        esper.clear_database()
        self.physics = ep.Physics(fixed_dt=DT, sleep_after=sleep_after)
        self.rng = np.random.default_rng(seed)
        self.coin_rng = np.random.default_rng(seed + 1000)
        esper.create_entity(ep.Position(0, -0.5), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.Rect(24, 1)))
        for x in (-12.5, 12.5):
            esper.create_entity(ep.Position(x, 8), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.Rect(1, 18)))
        self.balls = [self._ball() for _ in range(BALLS)]
        self.coins: set[int] = set()
        for _ in range(COINS):
            self._coin()
        self.picked = 0
        self.physics.on_touch(self._touch)

    def _ball(self) -> int:
        r = self.rng
        kind = ep.PASSIVE if r.random() < 0.5 else ep.ACTIVE
        return esper.create_entity(
            ep.Position(float(r.uniform(-11, 11)), float(r.uniform(1, 14))),
            ep.Velocity(float(r.uniform(-4, 4)), float(r.uniform(-2, 2))),
            ep.Collider(kind, restitution=0.3), ep.Geometry(ep.Circle(float(r.uniform(0.3, 0.6)))),
            ep.AccelerationMap(gravity=(0, -9.8)))

    def _coin(self) -> None:
        r = self.coin_rng
        e = esper.create_entity(ep.Position(float(r.uniform(-11, 11)), float(r.uniform(0.5, 6))),
                                ep.Collider(ep.STATIC, sensor=True), ep.Geometry(ep.Circle(0.4)))
        self.coins.add(e)

    def _touch(self, contact) -> None:  # type: ignore[no-untyped-def]
        for coin in (contact.a, contact.b):
            if coin in self.coins:  # picked up: replaced from the handler
                self.coins.discard(coin)
                esper.delete_entity(coin)
                self._coin()
                self.picked += 1
                return

    def frame(self) -> None:
        """The game's frame: a ball out, one in, one fixed step; then the mode's extra."""
        esper.switch_world(self.name)
        gone = self.balls.pop(int(self.rng.integers(len(self.balls))))
        esper.delete_entity(gone)
        self.balls.append(self._ball())
        esper.process(DT)
        if self.mode == "snapshot":
            self.physics.snapshot()
        elif self.mode == "process0":
            esper.process(0.0)

    def state(self) -> dict[int, bytes]:
        """Every live body's position and velocity, bit for bit, by entity."""
        esper.switch_world(self.name)
        return {e: struct.pack("<4d", *p.xy, *v.xy)
                for e, (p, v) in esper.get_components(ep.Position, ep.Velocity)
                if esper.entity_exists(e)}


def _readable(bits: bytes | None) -> str:
    if bits is None:
        return "absent"
    px, py, vx, vy = struct.unpack("<4d", bits)
    return f"pos ({px!r}, {py!r}) vel ({vx!r}, {vy!r})"


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("sleep_after", [None, 0.5], ids=["sleep-off", "sleep-on"])
def test_a_snapshot_or_an_empty_frame_after_each_frame_changes_no_bit(sleep_after, seed):
    previous = esper.current_world
    tag = next(_names)
    names = {mode: f"sync-bits-{tag}-{mode}" for mode in MODES}
    try:
        games = {mode: Game(names[mode], mode, sleep_after, seed) for mode in MODES}
        for step in range(1, STEPS + 1):
            for game in games.values():
                game.frame()
            want = games["plain"].state()
            found = []
            for mode in ("snapshot", "process0"):
                got = games[mode].state()
                differ = sorted(e for e in want.keys() | got.keys() if want.get(e) != got.get(e))
                if differ:
                    e = differ[0]
                    found.append(
                        f"{mode!r} after each frame: {len(differ)} of {len(want)} bodies differ "
                        f"(entities {differ[:8]}); entity {e}: plain {_readable(want.get(e))}, "
                        f"{mode} {_readable(got.get(e))}")
            if found:
                pytest.fail(f"step {step}: the world that only steps and the one that runs "
                            + "; the one that runs ".join(found))
        assert games["plain"].picked > 20  # handlers replaced coins all along
    finally:
        esper.switch_world(previous)
        for name in names.values():
            if name in esper.list_worlds() and name != previous:
                esper.delete_world(name)
