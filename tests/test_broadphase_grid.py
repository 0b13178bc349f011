"""The grid's fast paths against brute force: cell choice, levels for large boxes, statics scanned
from their side or looked up in levels of their own, the dense and sparse cell tables, the pair
sort, and work memory reused across calls (through the public interface)."""

from __future__ import annotations

import numpy as np
import pytest

from ecsphys.broadphase import BruteForce, Grid, QuadTree, SweepAndPrune


def assert_matches_brute(grid: Grid, lo, hi, slo=None, shi=None) -> None:
    oracle = BruteForce()
    if slo is not None:
        grid.set_static(slo, shi)
        oracle.set_static(slo, shi)
    got, want = grid.query(lo, hi), oracle.query(lo, hi)
    for g, w, name in zip(got, want, ("di", "dj", "sk", "sl"), strict=True):
        assert g.dtype == np.int64
        np.testing.assert_array_equal(g, w, err_msg=name)


def rain(n: int, rng: np.random.Generator, spacing: float = 2.5, radius: float = 1.0):
    """Circles of one radius on a jittered lattice, swept by random moves, in a walled box."""
    cols = int(np.ceil(np.sqrt(n)))
    ij = np.arange(n)
    c = np.column_stack((ij % cols + 0.5, ij // cols + 0.5)) * spacing
    c += rng.uniform(-0.4, 0.4, c.shape)
    reach = radius + 0.01 + rng.uniform(0.0, 0.3, (n, 1))
    side = cols * spacing
    slo = np.array([[-2.0, -2.0], [-2.0, side], [-2.0, 0.0], [side, 0.0]])
    shi = np.array([[side + 2, 0.0], [side + 2, side + 2], [0.0, side], [side + 2, side]])
    return c - reach, c + reach, slo, shi


def test_similar_boxes_get_a_cell_that_fits_them_all():
    rng = np.random.default_rng(0)
    lo, hi, slo, shi = rain(3000, rng)
    g = Grid()
    assert_matches_brute(g, lo, hi, slo, shi)
    ext = np.max(hi - lo)
    assert g.cell_size is not None and 0.99 * g.cell_size >= ext
    assert g.cell_size < 1.05 * ext
    # the boxes grow a little each step (falling bodies): the cell follows, no box is large
    for _ in range(5):
        lo, hi = lo - 0.05, hi + 0.05
        assert_matches_brute(g, lo, hi, slo, shi)
        assert 0.99 * g.cell_size >= np.max(hi - lo)


def test_statics_scan_the_dynamic_cells_when_few():
    rng = np.random.default_rng(1)
    lo, hi, slo, shi = rain(3000, rng)
    lo[::500] -= 9.0  # a few large dynamic boxes too: looked up in the static index
    hi[::500] += 9.0
    g = Grid()
    assert_matches_brute(g, lo, hi, slo, shi)
    assert g.last_static_scan
    sk = g.query(lo, hi)[2]
    assert np.isin(np.arange(0, 3000, 500), sk).any()  # a large box meets a wall
    # exact touches between statics and binned boxes
    lo, hi = np.round(lo), np.round(hi)
    assert_matches_brute(g, lo, hi, np.round(slo), np.round(shi))
    assert g.last_static_scan


def test_statics_covering_many_cells_are_looked_up_per_dynamic_box():
    rng = np.random.default_rng(2)
    c = rng.uniform(0, 300, (400, 2))  # sparse: far more cells than boxes
    lo, hi = c - 1.0, c + 1.0
    slo = np.array([[-10.0, -10.0], [20.0, 20.0]])  # one static covers the whole scene
    shi = np.array([[400.0, 400.0], [21.0, 21.0]])
    g = Grid()
    assert_matches_brute(g, lo, hi, slo, shi)
    assert not g.last_static_scan


def test_many_statics_are_looked_up_per_dynamic_box():
    rng = np.random.default_rng(3)
    lo, hi, _, _ = rain(400, rng)
    tiles = rng.uniform(0, 50, (300, 2))
    g = Grid()
    assert_matches_brute(g, lo, hi, tiles, tiles + 1.0)
    assert not g.last_static_scan


@pytest.mark.parametrize("giants", [3, 90])
def test_a_few_or_many_giants_among_similar_boxes(giants):
    rng = np.random.default_rng(4)
    lo, hi, slo, shi = rain(2500, rng)
    k = rng.choice(2500, giants, replace=False)
    lo[k] -= rng.uniform(5, 40, (giants, 1))
    hi[k] += rng.uniform(5, 40, (giants, 1))
    g = Grid()
    assert_matches_brute(g, lo, hi, slo, shi)
    median = np.median(np.max(hi - lo, axis=1))
    assert g.cell_size is not None and g.cell_size <= 3.1 * median  # not sized by the giants
    assert g.last_levels >= 2  # the giants sit in coarser levels of their own
    # and cost little: a few candidates per box or pair found, not every cell per giant per box
    assert g.last_candidates < 6 * (len(lo) + len(g.query(lo, hi)[0]))


def test_sparse_scene_with_more_than_65536_cells():
    # keys between 2**16 and 2**32 (two radix passes), binary search instead of a start table
    rng = np.random.default_rng(5)
    c = rng.uniform(0, 1500, (600, 2))
    c[:200] = rng.uniform(0, 20, (200, 2))  # and a dense corner with overlaps
    lo, hi = c - 1.0, c + 1.0
    assert_matches_brute(Grid(), lo, hi, np.array([[0.0, 0.0]]), np.array([[5.0, 5.0]]))


def test_sparse_scene_with_many_boxes_radix_sorts_the_cells():
    # thousands of boxes over a huge area: no dense cell table, the cells are radix sorted
    rng = np.random.default_rng(6)
    c = rng.uniform(0, 1e5, (6000, 2))
    c[:3000] = rng.uniform(0, 60, (3000, 2))  # a dense corner with overlaps
    lo, hi = c - 1.0, c + 1.0
    slo = np.array([[0.0, 0.0], [5e4, 5e4]])
    assert_matches_brute(Grid(), lo, hi, slo, slo + 30.0)


def test_a_box_overlapping_hundreds_of_others_sorts_its_pairs():
    # box 0 (the lowest id) overlaps 600 others: a long run of one first id in the pair sort
    rng = np.random.default_rng(7)
    lo, hi, slo, shi = rain(2000, rng)
    lo[0], hi[0] = lo[:600].min(axis=0), hi[:600].max(axis=0)
    for bp in (Grid(), SweepAndPrune(), QuadTree()):
        assert_matches_brute(bp, lo, hi, slo, shi)


@pytest.mark.parametrize("make", [Grid, SweepAndPrune, QuadTree])
def test_work_memory_reused_across_calls_of_any_size(make):
    # big, small, empty, big again: buffers kept from call to call must never leak old pairs
    rng = np.random.default_rng(8)
    bp = make()
    lo, hi, slo, shi = rain(3000, rng)
    bp.set_static(slo, shi)
    for k in (3000, 40, 0, 1, 2500, 3000):
        assert_matches_brute(bp, lo[:k], hi[:k], slo, shi)


@pytest.fixture
def small_tests():
    """Sets the grid's threshold for testing every pair; puts it back after the test."""
    from ecsphys.broadphase import grid as grid_module

    before = grid_module.small_tests()
    yield grid_module.small_tests
    grid_module.small_tests(before)


def test_a_few_boxes_tested_pair_by_pair_give_the_cells_pairs_and_finds(small_tests):
    rng = np.random.default_rng(21)
    few, cells, oracle = Grid(), Grid(), BruteForce()
    for round_ in range(150):
        # few statics: tested pair by pair; many: looked up in their cells
        n, m = int(rng.integers(0, 40)), int(rng.choice([rng.integers(0, 12), 150]))
        lo = rng.uniform(-15, 15, (n, 2))
        hi = lo + rng.exponential(rng.choice([0.3, 2.0, 8.0]), (n, 2))
        if n and round_ % 7 == 0:
            hi[0] = lo[0]  # a point box
        if n > 2 and round_ % 5 == 0:  # boxes that only touch (closed boxes: a pair)
            size = hi[1] - lo[1]
            lo[1] = hi[2]
            hi[1] = lo[1] + size
        slo = rng.uniform(-15, 15, (m, 2))
        shi = slo + rng.exponential(rng.choice([0.5, 4.0, 20.0]), (m, 2))
        for index in (few, cells, oracle):
            index.set_static(slo, shi)
        if m > 2:  # static ids out of the index, and one moved
            few.remove_static([1])
            cells.remove_static([1])
            oracle.remove_static([1])
            box_lo, box_hi = slo[2:3] + 1.5, shi[2:3] + 1.5
            assert few.update_static([2], box_lo, box_hi)
            assert cells.update_static([2], box_lo, box_hi)
            oracle.update_static([2], box_lo, box_hi)
        small_tests(1e9)
        got = few.query(lo, hi)
        small_tests(0)
        want = cells.query(lo, hi)
        for g, w, c, name in zip(got, want, oracle.query(lo, hi), ("di", "dj", "sk", "sl"),
                                 strict=True):
            np.testing.assert_array_equal(g, w, err_msg=name)  # same pairs, same order
            np.testing.assert_array_equal(g, c, err_msg=name)
        for _ in range(5):
            q0 = rng.uniform(-20, 20, 2)
            q1 = q0 + rng.exponential(rng.choice([0.1, 3.0, 30.0]), 2)
            ids_f, st_f = few.find_box(q0, q1)
            ids_c, st_c = cells.find_box(q0, q1)
            assert sorted(ids_f[~st_f].tolist()) == sorted(ids_c[~st_c].tolist())
            assert sorted(ids_f[st_f].tolist()) == sorted(ids_c[st_c].tolist())
            want_d = [i for i in range(n) if (lo[i] <= q1).all() and (q0 <= hi[i]).all()]
            assert sorted(ids_f[~st_f].tolist()) == want_d
        ids, st = few.find_box((np.nan, 0.0), (1.0, 1.0))  # a box with a NaN finds nothing
        assert len(ids) == 0


def test_a_grid_switches_between_few_boxes_and_cells_as_the_count_changes():
    # the default threshold: ten boxes go pair by pair, a thousand through the cells; the
    # finds after each run see that run's boxes
    rng = np.random.default_rng(22)
    g, oracle = Grid(), BruteForce()
    lo1, hi1, slo, shi = rain(1000, rng)
    g.set_static(slo, shi)
    oracle.set_static(slo, shi)
    for n in (10, 1000, 3, 1000, 12):
        lo, hi = lo1[:n], hi1[:n]
        for got, want in zip(g.query(lo, hi), oracle.query(lo, hi), strict=True):
            np.testing.assert_array_equal(got, want)
        assert (g.last_levels == 0) == (n < 100)
        q0, q1 = lo[n // 2] - 1.0, hi[n // 2] + 1.0
        ids, st = g.find_box(q0, q1)
        want_d = [i for i in range(n) if (lo[i] <= q1).all() and (q0 <= hi[i]).all()]
        assert sorted(ids[~st].tolist()) == want_d
    assert g.cell_size is not None  # picked by the runs with cells


def test_the_few_box_threshold_refuses_a_negative_or_nan_value(small_tests):
    before = small_tests()
    for bad in (-1, float("nan")):
        with pytest.raises(ValueError, match=r"small_tests must be a number >= 0, got"):
            small_tests(bad)
        assert small_tests() == before  # unchanged
