"""Integrates accelerations into velocities and velocities into this step's desired moves.

Guarantees: for PASSIVE and ACTIVE bodies, semi-implicit Euler over all bodies at once:
``v += a_total * dt`` then ``move = v * dt``; STATIC bodies get a zero move and keep their
velocity untouched. Nothing is written to the positions here.
"""

from __future__ import annotations

import esper
import numpy as np

from ..body_table import BodyTable
from ..components import STATIC


class IntegrateSystem(esper.Processor):
    """Stage 1 of the step: velocities and desired moves of all bodies."""

    def __init__(self, table: BodyTable) -> None:
        self.table = table

    def process(self, dt: float) -> None:
        t = self.table
        n = t.n
        if n == 0:
            return
        moving = (t.kind[:n] != STATIC)[:, None]
        vel = t.vel[:n]
        # v += a * dt, only where moving (in place, no n-sized temporaries but the mask).
        np.multiply(t.acc[:n], dt, out=t.move[:n])
        np.add(vel, t.move[:n], out=vel, where=moving)
        np.multiply(vel, dt, out=t.move[:n])
        np.multiply(t.move[:n], moving, out=t.move[:n])
