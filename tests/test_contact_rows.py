"""The step's contacts stay in C memory (``systems/contact_rows``): a world nobody reads the
contacts of makes no NumPy column for them; what a game holds from one step never changes
in the next; reading them late gives what the step found."""

from __future__ import annotations

import esper
import numpy as np

import ecsphys as ep


def _pile(n: int = 12) -> ep.Physics:
    physics = ep.Physics(fixed_dt=1 / 60)
    esper.create_entity(ep.Position(0.0, -1.0), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.Rect(40.0, 2.0)))
    for i in range(n):
        esper.create_entity(ep.Position(-6.0 + i * 1.01, 0.55 + (i % 3) * 1.2),
                            ep.Velocity(0.0, 0.0), ep.AccelerationMap(gravity=(0.0, -9.8)),
                            ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
    return physics


def test_nobody_reading_the_contacts_makes_no_columns(world):
    physics = _pile()
    for _ in range(10):  # landing
        physics.step()
    for _ in range(20):
        physics.step()
        rows = physics._narrowphase.rows
        assert len(rows) > 0  # the pile touches
        assert rows.cached_set is None and rows.cached_pairs is None
    assert physics.stats["contacts"] == len(rows)  # counting them makes none either
    assert rows.cached_set is None and rows.cached_pairs is None
    # reading them builds them once, and they are what the step found
    contacts = physics.contacts()
    assert rows.cached_pairs is not None and len(contacts) == len(rows)
    keys = [(c.a << 32) | c.b for c in contacts]
    assert keys == sorted(keys) and keys == rows.array("keys").tolist()
    assert physics.contact_set is physics.contact_set  # built once per step


def test_a_held_contact_set_does_not_change_with_the_next_steps(world):
    physics = _pile()
    for _ in range(5):
        physics.step()
    held = physics.contact_set
    a, depth, normal = held.a.copy(), held.depth.copy(), held.normal.copy()
    listed = physics.contacts()
    for _ in range(20):
        physics.step()
    assert np.array_equal(held.a, a) and np.array_equal(held.depth, depth)
    assert np.array_equal(held.normal, normal)
    assert physics.contact_set is not held
    # the pairs that stayed touching count their time on
    now = {(c.a, c.b): c for c in physics.contacts()}
    kept = [c for c in listed if (c.a, c.b) in now]
    assert kept and all(now[(c.a, c.b)].duration > c.duration for c in kept)


def test_a_listener_gets_the_same_contacts_as_a_poll(world):
    physics = _pile()
    seen: list[tuple[int, int, float]] = []
    physics.on_keep_touching(lambda c: seen.append((c.a, c.b, c.duration)))
    for _ in range(10):
        seen.clear()
        physics.step()
    polled = [(c.a, c.b, c.duration) for c in physics.contacts()]
    assert seen and sorted(seen) == sorted(p for p in polled if p[2] > 0.0)
