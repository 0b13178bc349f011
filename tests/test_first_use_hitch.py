"""The first sleep, wake, restore and query with ``exclude`` of a process import nothing
more: no ``numpy.ma`` (which ``np.unique`` and ``np.union1d`` import at their first call,
15 to 80 ms: a hitch in the first step that put a body to sleep or woke one), checked in a
fresh interpreter that runs them all."""

from __future__ import annotations

import subprocess
import sys

SCENE = """
import sys
import esper
import ecsphys as ep

esper.switch_world("hitch")
physics = ep.Physics(fixed_dt=1 / 60, sleep_after=0.25)
esper.create_entity(ep.Position(0, -0.5), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(20, 1)))
balls = [esper.create_entity(ep.Position(x, 0.5), ep.Velocity(0, 0),
                             ep.AccelerationMap(gravity=(0, -9.8)), ep.Collider(ep.ACTIVE),
                             ep.Geometry(ep.Circle(0.5))) for x in (-3.0, 0.0, 3.0)]
for _ in range(60):
    physics.step()
assert all(physics.is_sleeping(b) for b in balls), "the balls did not fall asleep"
snap = physics.snapshot()
physics.wake(balls[0])
physics.step()
assert not physics.is_sleeping(balls[0])
physics.restore(snap)
assert physics.query_region(ep.Rect(20, 2), (0, 1), exclude=[balls[1], balls[1]]) == \\
    sorted([1, balls[0], balls[2]])
assert physics.touching(balls[2]) == [1]
loaded = sorted(m for m in sys.modules if m == "numpy.ma" or m.startswith("numpy.ma."))
assert not loaded, loaded
"""


def test_first_sleep_wake_restore_and_query_import_no_numpy_ma():
    subprocess.run([sys.executable, "-c", SCENE], check=True)
