"""`ecsphys.state.id_sets` gives what ``np.unique`` / ``np.union1d`` give on integer ids."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ecsphys.state.id_sets import union_ids, unique_ids

ids = st.lists(st.integers(-(2**62), 2**62), max_size=40)


@given(ids, ids)
def test_unique_and_union_are_numpys(a, b):
    ua, ub = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    got = unique_ids(ua)
    assert got.dtype == np.int64 and np.array_equal(got, np.unique(ua))
    got = union_ids(ua, ub)
    assert got.dtype == np.int64 and np.array_equal(got, np.union1d(ua, ub))


def test_any_shape_and_lists():
    assert unique_ids(np.array([[3, 1], [3, 2]])).tolist() == [1, 2, 3]
    assert unique_ids([]).tolist() == [] and unique_ids([5]).tolist() == [5]
    assert union_ids([2, 2], np.array([1], dtype=np.int32)).tolist() == [1, 2]
