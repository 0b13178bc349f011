"""Determinism across processes: the same scene built twice, in two separate Python processes
(with different string-hash seeds), gives bit-identical positions, velocities and event
sequences after 600 steps.

Each process runs `_SCRIPT` and prints SHA-256 hashes of the raw bytes of the position and
velocity arrays (float64, in entity order) and of the event sequence (every touch and separate
event in order: step, entities, sensor flag and the raw float64 bytes of normal, depth, point
and duration), with counts showing the scene did something. Scenes:

- ``rain``: bodies of every shape (Circle, Rect, OrientedRect, Polygon, Compound), ACTIVE and
  PASSIVE, with gravity, falling into a walled box past static sensor zones, with a few moving
  sensors crossing the box;
- ``crowd``: agents with ``slide="tangent"`` steered through a gap in a wall;
- ``pile``: balls and boxes dropped into a walled box fall asleep (sleeping is on by
  default); at step 400 a rock dropped on the pile wakes it, and it falls asleep again: the
  steps the bodies fell asleep and woke (``physics.stats["sleeping"]`` step by step) are
  hashed too.

A third test checks the comparison is not vacuous: one body started one ulp away changes the
hash. The two processes of a test run at once; the whole file takes about 4 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

_SCRIPT = r'''
import hashlib, json, math, struct, sys

import esper
import numpy as np

import ecsphys as ep

scene, steps, nudge = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "nudge"
esper.switch_world("determinism")
physics = ep.Physics(fixed_dt=1 / 60)
log = bytearray()
counts = {"touch": 0, "separate": 0, "sensor": 0}


def record(kind):
    def handler(c):
        counts[kind] += 1
        counts["sensor"] += c.sensor
        log.extend(struct.pack("<Bqqq?6d", kind == "touch", physics.steps, c.a, c.b, c.sensor,
                               *c.normal, c.depth, *c.point, c.duration))
    return handler


physics.on_touch(record("touch"))
physics.on_separate(record("separate"))


def static(x, y, shape, sensor=False):
    esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC, sensor=sensor),
                        ep.Geometry(shape))


def body(kind, x, y, shape, vx=0.0, vy=0.0, gravity=True, **collider):
    comps = [ep.Position(x, y), ep.Velocity(vx, vy), ep.Collider(kind, **collider),
             ep.Geometry(shape)]
    if gravity:
        comps.append(ep.AccelerationMap(gravity=(0.0, -9.8)))
    return esper.create_entity(*comps)


rng = np.random.default_rng(12345)
bodies = []
if scene == "rain":
    w, h = 30.0, 60.0
    for x, y, sw, sh in ((w / 2, -0.5, w + 2, 1), (-0.5, h / 2, 1, h), (w + 0.5, h / 2, 1, h)):
        static(x, y, ep.Rect(sw, sh))
    static(w / 2, 12.0, ep.Rect(w, 2.0), sensor=True)  # zones the rain falls through
    static(w / 4, 30.0, ep.Circle(3.0), sensor=True)
    shapes = [
        ep.Circle(0.5), ep.Circle(0.35, offset=(0.1, 0.0)), ep.Rect(0.9, 0.6),
        ep.OrientedRect(1.0, 0.5, 30.0), ep.OrientedRect(0.8, 0.8, -55.0),
        ep.Polygon([(-0.5, -0.4), (0.5, -0.4), (0.0, 0.5)]),
        ep.Polygon([(-0.4, -0.3), (0.4, -0.4), (0.5, 0.2), (0.0, 0.5), (-0.5, 0.2)]),
        ep.Compound([ep.Circle(0.3, offset=(-0.3, 0.0)), ep.Rect(0.5, 0.5, offset=(0.3, 0.0))]),
        ep.Compound([ep.OrientedRect(0.9, 0.3, 45.0), ep.OrientedRect(0.9, 0.3, -45.0)]),
    ]
    for i in range(240):
        x = 1.5 + (i % 18) * 1.5 + rng.uniform(-0.2, 0.2)
        if nudge and i == 100:
            x = math.nextafter(x, math.inf)  # one ulp: the hashes must see it
        y = 16.0 + (i // 18) * 1.5 + rng.uniform(-0.2, 0.2)
        kind = ep.ACTIVE if i % 3 else ep.PASSIVE
        bodies.append(body(kind, x, y, shapes[i % len(shapes)], *rng.uniform(-3, 3, 2),
                           mass=float(rng.uniform(0.5, 2.0)),
                           restitution=0.3 if i % 7 == 0 else 0.0))
    for k in range(4):  # sensors crossing the box sideways, no gravity
        bodies.append(body(ep.ACTIVE, 2.0, 5.0 + 10.0 * k, ep.Rect(1.0, 1.0), 2.5, 0.0,
                           gravity=False, sensor=True))
elif scene == "crowd":
    static(0.0, 12.0, ep.Rect(1.0, 20.0))  # wall above the gap: y from 2 to 22
    static(0.0, -12.0, ep.Rect(1.0, 20.0))  # below: y from -22 to -2
    for i in range(150):
        x = -3.0 - (i // 10) * 0.9 + rng.uniform(-0.02, 0.02)
        y = ((i % 10) - 4.5) * 0.9 + rng.uniform(-0.02, 0.02)
        bodies.append(body(ep.ACTIVE, x, y, ep.Circle(0.4), gravity=False, slide="tangent"))
elif scene == "pile":
    static(0.0, -0.5, ep.Rect(12.0, 1.0))
    static(-4.5, 10.0, ep.Rect(1.0, 22.0))
    static(4.5, 10.0, ep.Rect(1.0, 22.0))
    for i in range(42):
        x = -3.4 + (i % 7) * 1.1 + rng.uniform(-0.05, 0.05)
        shape = ep.Circle(0.5) if i % 3 else ep.Rect(0.9, 0.9)
        bodies.append(body(ep.ACTIVE if i % 5 else ep.PASSIVE, x, 0.6 + (i // 7) * 1.15,
                           shape, rng.uniform(-1, 1), 0.0))
else:
    raise SystemExit(f"unknown scene {scene!r}")

goal = (40.0, 0.0)
ROCK = 700 if scene == "pile" else 400  # the pile's rock falls then (it sleeps by then)
sleeping = []  # the pile: bodies asleep after each step
for step in range(steps):
    if scene == "pile" and step == ROCK:
        top = max(esper.component_for_entity(e, ep.Position).y for e in bodies)
        bodies.append(body(ep.ACTIVE, 0.3, top + 2.0, ep.Circle(1.0), 0.0, -20.0, mass=20.0))
    if scene == "crowd":
        for e in bodies:
            p = esper.component_for_entity(e, ep.Position)
            dx, dy = goal[0] - p.x, goal[1] - p.y
            d = max(math.hypot(dx, dy), 1e-9)
            esper.component_for_entity(e, ep.Velocity).xy = (3.0 * dx / d, 3.0 * dy / d)
    physics.step()
    sleeping.append(physics.stats["sleeping"])

pos = np.array([esper.component_for_entity(e, ep.Position).xy for e in bodies], np.float64)
vel = np.array([esper.component_for_entity(e, ep.Velocity).xy for e in bodies], np.float64)
print(json.dumps({
    "positions": hashlib.sha256(pos.tobytes()).hexdigest(),
    "velocities": hashlib.sha256(vel.tobytes()).hexdigest(),
    "events": hashlib.sha256(bytes(log)).hexdigest(),
    "counts": counts,
    "sleeping": hashlib.sha256(np.array(sleeping, np.int64).tobytes()).hexdigest(),
    "asleep_before_rock": max(sleeping[:ROCK]),
    "asleep_after_rock": min(sleeping[ROCK:]),
    "asleep_at_end": sleeping[-1],
    "bodies": len(bodies),
    "finite": bool(np.isfinite(pos).all() and np.isfinite(vel).all()),
    "moving": int((np.abs(vel) > 1e-6).any(axis=1).sum()),
    "mean_x": float(pos[:, 0].mean()),
    "mean_y": float(pos[:, 1].mean()),
}))
'''

STEPS = 600
#: the pile runs longer: it sleeps by about 600 steps (a body still creeping over it keeps
#: its island awake), the rock falls at 700, and the pile sleeps again before the end
STEPS_OF = {"pile": 1200}


def _run_twice(scene: str, nudge_second: bool = False) -> tuple[dict, dict]:
    """Run the scene in two processes at once (different PYTHONHASHSEED); their reports.
    ``nudge_second``: the second process moves one body's start by one ulp."""
    procs = []
    for seed, nudge in (("1", "no"), ("2", "nudge" if nudge_second else "no")):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        procs.append(subprocess.Popen(
            [sys.executable, "-c", _SCRIPT, scene, str(STEPS_OF.get(scene, STEPS)), nudge],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        outs.append(json.loads(out))
    return outs[0], outs[1]


@pytest.mark.parametrize("scene", ["rain", "crowd", "pile"])
def test_same_scene_in_two_processes_is_bit_identical(scene):
    first, second = _run_twice(scene)
    for key in ("positions", "velocities", "events"):
        assert first[key] == second[key], f"{scene}: {key} differ between processes"
    assert first == second
    # the scene did something worth comparing
    assert first["finite"]
    counts = first["counts"]
    assert counts["touch"] > 50 and counts["separate"] > 0
    if scene == "rain":
        assert counts["sensor"] > 20  # the zones and the moving sensors saw bodies
        assert first["mean_y"] < 16.0  # the rain fell
    elif scene == "crowd":
        assert first["mean_x"] > 0.5  # the crowd went through the gap
    else:  # the pile fell asleep, the rock woke it, and it fell asleep again
        assert first["asleep_before_rock"] == first["bodies"] - 1  # all but the rock
        assert first["asleep_after_rock"] < first["bodies"] // 2
        assert first["asleep_at_end"] == first["bodies"]  # the rock sleeps too


def test_the_hashes_see_a_one_ulp_change():
    """The comparison is not vacuous: one body starting one ulp to the right changes the
    positions' hash after 600 steps."""
    first, second = _run_twice("rain", nudge_second=True)
    assert first["positions"] != second["positions"]
