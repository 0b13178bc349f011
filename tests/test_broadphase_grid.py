"""The grid's fast paths against brute force: cell choice, large boxes, statics scanned from their
side, radix cell sorts, the range kernel and the scratch buffers."""

from __future__ import annotations

import numpy as np
import pytest

from ecsphys.broadphase import BruteForce, Grid
from ecsphys.broadphase import _ranges as ranges
from ecsphys.broadphase._bins import _cell_order
from ecsphys.broadphase._scratch import Scratch


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
    assert (g._nested is not None) == (giants > 64)


def test_sparse_scene_with_more_than_65536_cells():
    # keys between 2**16 and 2**32 (two radix passes), binary search instead of a start table
    rng = np.random.default_rng(5)
    c = rng.uniform(0, 1500, (600, 2))
    c[:200] = rng.uniform(0, 20, (200, 2))  # and a dense corner with overlaps
    lo, hi = c - 1.0, c + 1.0
    assert_matches_brute(Grid(), lo, hi, np.array([[0.0, 0.0]]), np.array([[5.0, 5.0]]))


@pytest.mark.parametrize("kmax", [100, 60_000, 3_000_000, 1 << 40])
def test_cell_order_is_a_stable_sort(kmax):
    rng = np.random.default_rng(kmax % 1000)
    keys = rng.integers(0, kmax + 1, 5000).astype(np.int64)
    keys[:50] = keys[50:100]  # ties
    got = _cell_order(keys, kmax, Scratch())
    np.testing.assert_array_equal(got, np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("offset_passes", [False, True])
@pytest.mark.parametrize("long_ranges", [False, True])
def test_range_pairs_matches_a_double_loop(monkeypatch, long_ranges, offset_passes):
    if offset_passes:  # sorted by length, one pass per offset, then the flat tail
        monkeypatch.setattr(ranges, "OFFSET_MIN_RANGES", 0)
        monkeypatch.setattr(ranges, "OFFSET_MIN_ROWS", 64)
    rng = np.random.default_rng(6)
    n = 600
    c = rng.uniform(0, 30, (n, 2))
    lo, hi = np.round(c - rng.uniform(0.2, 2, (n, 2))), np.round(c + 1)  # exact touches
    low, high = ranges.pack(lo, hi)
    nr = 700
    owner = rng.integers(0, n, nr)
    start = rng.integers(0, n, nr)
    count = rng.integers(0, 6, nr)
    if long_ranges:  # a few long ranges: the flat tail, in several chunks
        count[:20] = rng.integers(50, 300, 20)
        monkeypatch.setattr(ranges, "CHUNK", 256)
    count = np.minimum(count, n - start)
    i, j, tested = ranges.range_pairs(high, owner, low, start, count, Scratch(), "t")
    want = []
    for r in range(nr):
        a = owner[r]
        for b in range(start[r], start[r] + count[r]):
            if (lo[a] <= hi[b]).all() and (lo[b] <= hi[a]).all():
                want.append((a, b, r))
    assert tested == count.sum()
    assert sorted(zip(i.tolist(), j.tolist(), strict=True)) == sorted((a, b) for a, b, _ in want)


def test_range_pairs_with_nothing_to_test():
    low, high = ranges.pack(np.zeros((3, 2)), np.ones((3, 2)))
    z = np.zeros(4, dtype=np.int64)
    i, j, tested = ranges.range_pairs(high, z, low, z, z, Scratch(), "t")
    assert i.size == j.size == tested == 0


def test_scratch_reuses_and_grows():
    s = Scratch()
    a = s.get("x", 10)
    b = s.get("x", 8, np.float64, 2)
    assert b.shape == (8, 2) and np.shares_memory(a, b)
    c = s.get("x", 1000)
    assert c.shape == (1000,) and not np.shares_memory(a, c)
    assert s.get("x", 5, np.int64).dtype == np.int64
    r = s.arange(7)
    np.testing.assert_array_equal(r, np.arange(7))
    with pytest.raises(ValueError):
        r[0] = 3
