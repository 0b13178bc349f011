"""The raw-pointer hand-over of the compiled def layers (``state/carray.pxd``) refuses what
it cannot read as it is: another dtype, a non-contiguous view, a length that does not match;
nothing is converted silently."""

from __future__ import annotations

import numpy as np
import pytest

from ecsphys.systems.pair_diff import diff


def _args(m: int = 3, pn: int = 2) -> list[object]:
    i = lambda n: np.arange(n, dtype=np.int64)  # noqa: E731
    return [i(pn), i(pn), np.zeros(pn), i(pn), i(pn), i(pn), i(m), i(m), i(m), i(m), None, 0.5]


def test_the_diff_reads_its_columns_in_place():
    duration, steps, la, lb, kept, present = diff(*_args())
    assert kept.tolist() == [True, True, False]
    assert present.tolist() == [True, True]
    assert duration.tolist() == [0.5, 0.5, 0.0]
    assert steps.tolist() == [1, 2, 0]  # the previous counts (0, 1) plus one


@pytest.mark.parametrize("column", range(10))
def test_a_column_of_another_dtype_is_refused(column):
    args = _args()
    args[column] = np.asarray(args[column]).astype(np.float32)
    with pytest.raises(ValueError, match="expected a contiguous array of kind"):
        diff(*args)


def test_a_strided_view_and_a_wrong_length_are_refused():
    args = _args()
    args[6] = np.arange(6, dtype=np.int64)[::2]  # not contiguous
    with pytest.raises(ValueError, match="contiguous"):
        diff(*args)
    args = _args()
    args[7] = np.arange(4, dtype=np.int64)
    with pytest.raises(ValueError, match="one row per pair"):
        diff(*args)
    args = _args()
    args[10] = np.zeros(5, dtype=np.bool_)
    with pytest.raises(ValueError, match="forced needs one row per previous pair"):
        diff(*args)


def test_empty_columns_are_read_as_empty():
    out = diff(*_args(0, 0))
    assert [len(c) for c in out] == [0] * 6
