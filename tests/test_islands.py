"""Islands for sleeping: the compiled union-find against a plain breadth-first search."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ecsphys.systems.islands import islands


def oracle(n: int, pairs: list[tuple[int, int]], links: list[bool]) -> list[int]:
    """Each row's smallest linked row, by breadth-first search over the linking pairs."""
    near: list[list[int]] = [[] for _ in range(n)]
    for a, b in pairs:
        if links[a] and links[b]:
            near[a].append(b)
            near[b].append(a)
    out = [-1] * n
    for start in range(n):  # ascending: the first row met of an island is its smallest
        if out[start] >= 0:
            continue
        out[start] = start
        todo = deque([start])
        while todo:
            r = todo.popleft()
            for s in near[r]:
                if out[s] < 0:
                    out[s] = start
                    todo.append(s)
    return out


def test_a_chain_joins_and_a_row_that_does_not_link_cuts_it():
    # 0-1-2-3-4 in a chain; row 2 (say a static floor) does not link
    pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (5, 6)]
    links = [True, True, False, True, True, True, True]
    got = islands(7, [p[0] for p in pairs], [p[1] for p in pairs], links)
    assert got.tolist() == [0, 0, 2, 3, 3, 5, 5]
    assert got.dtype == np.int64


def test_two_bodies_on_one_floor_are_two_islands():
    got = islands(3, [0, 0], [1, 2], [False, True, True])
    assert got.tolist() == [0, 1, 2]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))),
             max_size=0 if n == 0 else 80),
    st.lists(st.booleans(), min_size=n, max_size=n))))
def test_matches_a_breadth_first_search_in_any_pair_order(case):
    n, pairs, links = case
    want = oracle(n, pairs, links)
    ra = np.array([p[0] for p in pairs], dtype=np.int64)
    rb = np.array([p[1] for p in pairs], dtype=np.int64)
    assert islands(n, ra, rb, links).tolist() == want
    # the pairs reversed and each pair turned round: the same islands
    assert islands(n, rb[::-1].copy(), ra[::-1].copy(), links).tolist() == want


def test_bad_arguments_name_what_is_wrong():
    with pytest.raises(ValueError, match="pair 1: rows \\(1, 5\\) outside \\[0, 3\\)"):
        islands(3, [0, 1], [1, 5], [True] * 3)
    with pytest.raises(ValueError, match="same length"):
        islands(3, [0, 1], [1], [True] * 3)
    with pytest.raises(ValueError, match="one flag per row \\(3\\), got 2"):
        islands(3, [0], [1], [True] * 2)
    with pytest.raises(ValueError, match="n must be >= 0"):
        islands(-1, [], [], [])
