"""What a body stands on: the answer of ``Physics.ground(entity)``.

Guarantees: a `Ground` is an immutable value read from the last step's contacts
(``systems/ground.pyx`` classifies them): ``on_floor`` / ``on_wall`` / ``on_ceiling``, and
for the most level floor its surface normal (pointing up out of it), its velocity and its
entity; without a floor the normal and velocity are ``(0.0, 0.0)`` and the entity ``None``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: bits of the body table's ``ground`` column (as ``table_view.pxd``)
FLOOR, WALL, CEILING = 1, 2, 4
#: a row adopted since the last step (nothing classified yet; the response looks for the
#: moving platform it stands on at the start of its first step)
NEW = 8
#: a contact of the last step holds the body up (the other side lies against its
#: acceleration, however steep the contact): what a body needs to fall asleep
SUPPORT = 16


class Ground(NamedTuple):
    """What a body touched at the end of the last step, classified by "up".

    >>> Ground.from_row(FLOOR | WALL, np.array([0.0, 1.0]), np.array([2.0, 0.0]), 7)
    Ground(on_floor=True, on_wall=True, on_ceiling=False, floor_normal=(0.0, 1.0), \
floor_velocity=(2.0, 0.0), floor_entity=7)
    """

    on_floor: bool
    on_wall: bool
    on_ceiling: bool
    floor_normal: tuple[float, float]
    floor_velocity: tuple[float, float]
    floor_entity: int | None

    @classmethod
    def from_row(cls, flags: int, normal: np.ndarray, velocity: np.ndarray,
                 entity: int) -> Ground:
        """The Ground of one row of the body table's ground columns."""
        return cls(bool(flags & FLOOR), bool(flags & WALL), bool(flags & CEILING),
                   (float(normal[0]), float(normal[1])),
                   (float(velocity[0]), float(velocity[1])), entity if entity >= 0 else None)
