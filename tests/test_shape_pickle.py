"""Shapes pickle without their cached hash: a shape hashed in one process and loaded in
another (whose str hashes differ) is found in sets and dicts there, and the same shape
pickles to the same bytes in every process (what rooms and snapshots moved between workers
compare)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np

import ecsphys as ep
from ecsphys.mask import Mask

SHAPES = [ep.Circle(0.4), ep.Rect(1, 2, offset=(0.5, 0)), ep.OrientedRect(1, 0.5, 30),
          ep.Segment((0, 0), (1, 1)), ep.Polygon([(0, 0), (1, 0), (0, 1)]),
          ep.Compound([ep.Circle(0.2), ep.Rect(0.3, 0.3)], offset=(0.1, 0)),
          Mask(np.eye(3, dtype=bool), 0.5)]

DUMP = """
import pickle, sys
import numpy as np
import ecsphys as ep
from ecsphys.mask import Mask
shapes = [ep.Circle(0.4), ep.Rect(1, 2, offset=(0.5, 0)), ep.OrientedRect(1, 0.5, 30),
          ep.Segment((0, 0), (1, 1)), ep.Polygon([(0, 0), (1, 0), (0, 1)]),
          ep.Compound([ep.Circle(0.2), ep.Rect(0.3, 0.3)], offset=(0.1, 0)),
          Mask(np.eye(3, dtype=bool), 0.5)]
for s in shapes:
    hash(s)
sys.stdout.buffer.write(pickle.dumps(shapes))
"""


def _dumped(seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run([sys.executable, "-c", DUMP], env=env, capture_output=True,
                          check=True).stdout


def test_a_shape_hashed_elsewhere_is_found_here_and_pickles_to_the_same_bytes():
    one, two = _dumped("1"), _dumped("2")
    assert one == two  # the same bytes whatever the process's str hashes
    loaded = pickle.loads(one)
    assert loaded == SHAPES
    for shape, here in zip(loaded, SHAPES, strict=True):
        assert shape in {here} and here in {shape}
        assert hash(shape) == hash(here)
        assert {here: 1}[shape] == 1
