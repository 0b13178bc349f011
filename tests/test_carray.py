"""The raw-pointer hand-over of the compiled def layers (``state/carray.pxd``) refuses what
it cannot read as it is: another dtype, a non-contiguous view, a length that does not match;
nothing is converted silently. And the step's contact rows in C memory
(``systems/contact_rows``): made from columns (each checked), diffed in place."""

from __future__ import annotations

import types

import numpy as np
import pytest

from ecsphys.systems.contact_rows import ContactRows, diff
from ecsphys.systems.integrate import keep_in_limits


def _table(n: int = 3, **columns: np.ndarray) -> types.SimpleNamespace:
    pos = np.zeros((n, 2))
    vel = np.zeros((n, 2))
    return types.SimpleNamespace(n=n, **{"pos": pos, "vel": vel, **columns})


def test_a_column_of_another_dtype_is_refused():
    for name in ("pos", "vel"):
        bad = _table(**{name: np.zeros((3, 2), dtype=np.float32)})
        with pytest.raises(ValueError, match="expected a contiguous array of kind 'f'"):
            keep_in_limits(bad)


def test_a_strided_view_and_a_short_column_are_refused():
    with pytest.raises(ValueError, match="strided view"):
        keep_in_limits(_table(pos=np.zeros((6, 2))[::2]))
    with pytest.raises(ValueError, match="holds 2 rows, not 3"):
        keep_in_limits(_table(vel=np.zeros((2, 2))))


def test_columns_are_read_in_place():
    t = _table(pos=np.array([[1e12, 0.0], [0.0, -1e12], [1.0, 2.0]]))
    keep_in_limits(t)  # written through the pointer: the caller's array changes
    assert t.pos[0, 0] < 1e12 and t.pos[1, 1] > -1e12 and t.pos[2].tolist() == [1.0, 2.0]


def _rows(keys: list[int], tiles: list[int] | None = None, *, duration: float | None = None,
          layer: int = 1) -> ContactRows:
    n = len(keys)
    k = np.array(keys, dtype=np.int64)
    cols = {
        "keys": k, "a": k >> 32, "b": k & 0xFFFFFFFF, "layer_a": np.full(n, layer),
        "layer_b": np.full(n, layer), "tile": np.array(tiles or [-1] * n, dtype=np.int64),
        "tile_kind": np.zeros(n, dtype=np.int64), "normal": np.zeros((n, 2)),
        "point": np.zeros((n, 2)), "depth": np.zeros(n), "toi": np.full(n, np.inf),
        "speed": np.zeros(n), "sensor": np.zeros(n, dtype=np.bool_),
    }
    if duration is not None:
        cols.update(duration=np.full(n, duration), steps=np.arange(n),
                    history_layer_a=np.full(n, 7), history_layer_b=np.full(n, 8))
    return ContactRows.from_columns(n, cols)


def _key(a: int, b: int) -> int:
    return (a << 32) | b


def test_the_diff_carries_kept_rows_on_and_starts_new_ones():
    prev = _rows([_key(1, 2), _key(1, 3), _key(2, 5)], duration=0.5)
    cur = _rows([_key(1, 2), _key(1, 4), _key(2, 5)], layer=2)
    diff(prev, cur, None, 0.25)
    assert cur.array("kept").tolist() == [True, False, True]
    assert cur.array("present").tolist() == [True, False, True]
    assert cur.array("duration").tolist() == [0.75, 0.0, 0.75]
    assert cur.array("steps").tolist() == [1, 0, 3]  # the previous counts (0, 2) plus one
    # kept pairs keep the layers they began with; a new one takes its layers now
    assert cur.array("history_layer_a").tolist() == [7, 2, 7]
    assert cur.array("history_layer_b").tolist() == [8, 2, 8]


def test_the_diff_tells_tiles_apart_and_forced_pairs_start_again():
    prev = _rows([_key(1, 2), _key(1, 2)], [4, 9], duration=1.0)
    cur = _rows([_key(1, 2), _key(1, 2)], [4, 5])
    diff(prev, cur, None, 0.5)
    assert cur.array("kept").tolist() == [True, False]
    assert cur.array("present").tolist() == [True, False]
    again = _rows([_key(1, 2), _key(1, 2)], [4, 5])
    diff(prev, again, np.array([True, False]), 0.5)
    assert again.array("kept").tolist() == [False, False]


def test_bad_columns_and_flags_are_refused_naming_them():
    prev = _rows([_key(1, 2)], duration=0.0)
    with pytest.raises(ValueError, match="forced needs one row per previous pair"):
        diff(prev, _rows([_key(1, 2)]), np.zeros(3, dtype=np.bool_), 0.1)
    with pytest.raises(ValueError, match="'depth' needs 2 rows, got 3"):
        ContactRows.from_columns(2, {"depth": np.zeros(3)})
    with pytest.raises(ValueError, match="column 'keys' missing"):
        ContactRows.from_columns(0, {"depth": np.zeros(0)})
    with pytest.raises(ValueError, match="no contact column named 'colour'"):
        ContactRows.from_columns(0, {"colour": np.zeros(0)})
    with pytest.raises(ValueError, match="no history yet"):
        _rows([_key(1, 2)]).array("duration")
    with pytest.raises(ValueError, match="no history to carry on"):
        diff(_rows([_key(1, 2)]), _rows([_key(1, 2)]), None, 0.1)


def test_empty_rows_diff_to_empty():
    cur = _rows([])
    diff(_rows([], duration=0.0), cur, None, 0.1)
    assert len(cur) == 0 and cur.array("kept").size == 0 and cur.array("present").size == 0
    assert cur.array("normal").shape == (0, 2)
