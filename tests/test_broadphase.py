"""Broadphase tests: every broadphase returns exactly the brute-force pairs, in contract form."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ecsphys.broadphase import (
    BruteForce,
    Grid,
    QuadTree,
    SweepAndPrune,
    make_broadphase,
)

FACTORIES = {
    "grid": lambda: Grid(),
    "grid_small_cells": lambda: Grid(cell_size=0.7, static_cell_size=0.5),
    "grid_big_cells": lambda: Grid(cell_size=25.0),
    "sweep": lambda: SweepAndPrune(),
    "quadtree": lambda: QuadTree(),
    "quadtree_tiny": lambda: QuadTree(capacity=1, max_depth=4),
}


def boxes_from(c: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return c - r, c + r


def random_scene(
    rng: np.random.Generator, n: int, m: int, scale: float = 20.0, offset: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mixed sizes (some boxes much bigger than a cell), negative coordinates, statics."""
    c = rng.uniform(-scale, scale, (n, 2)) + offset
    r = rng.uniform(0.2, 2.0, (n, 2))
    r[rng.random(n) < 0.1] *= 8
    cs = rng.uniform(-scale, scale, (m, 2)) + offset
    rs = rng.uniform(0.1, 3.0, (m, 2))
    rs[rng.random(m) < 0.1] *= 20
    return (*boxes_from(c, r), *boxes_from(cs, rs))


def check_contract(out: tuple[np.ndarray, ...], n: int, m: int) -> None:
    di, dj, sk, sl = out
    for a in out:
        assert isinstance(a, np.ndarray) and a.dtype == np.int64 and a.ndim == 1
    assert di.shape == dj.shape and sk.shape == sl.shape
    assert np.all(di < dj)
    assert np.all((di >= 0) & (dj < n))
    assert np.all((sk >= 0) & (sk < n) & (sl >= 0) & (sl < m))
    kd = di * (n + 1) + dj
    ks = sk * (m + 1) + sl
    assert np.all(np.diff(kd) > 0), "dynamic pairs not strictly sorted / unique"
    assert np.all(np.diff(ks) > 0), "static pairs not strictly sorted / unique"


def assert_same(bp, oracle: BruteForce, lo, hi, m: int) -> None:
    got = bp.query(lo, hi)
    want = oracle.query(lo, hi)
    check_contract(got, lo.shape[0], m)
    for g, w, name in zip(got, want, ("di", "dj", "sk", "sl"), strict=True):
        np.testing.assert_array_equal(g, w, err_msg=name)


def brute_reference(lo, hi, slo, shi):
    """Plain Python double loop: checks the vectorised oracle itself."""
    n, m = len(lo), len(slo)

    def ov(a0, a1, b0, b1):
        return a0[0] <= b1[0] and b0[0] <= a1[0] and a0[1] <= b1[1] and b0[1] <= a1[1]

    dd = [(i, j) for i in range(n) for j in range(i + 1, n) if ov(lo[i], hi[i], lo[j], hi[j])]
    ds = [(i, j) for i in range(n) for j in range(m) if ov(lo[i], hi[i], slo[j], shi[j])]
    return dd, ds


def test_brute_force_matches_python_loop():
    rng = np.random.default_rng(0)
    lo, hi, slo, shi = random_scene(rng, 120, 30)
    lo, hi = np.round(lo), np.round(hi)  # exact touches
    b = BruteForce()
    b.set_static(slo, shi)
    di, dj, sk, sl = b.query(lo, hi)
    dd, ds = brute_reference(lo, hi, slo, shi)
    assert list(zip(di.tolist(), dj.tolist(), strict=True)) == dd
    assert list(zip(sk.tolist(), sl.tolist(), strict=True)) == ds


def test_brute_force_chunks(monkeypatch):
    import ecsphys.broadphase.base as base

    rng = np.random.default_rng(1)
    lo, hi, slo, shi = random_scene(rng, 200, 40)
    b = BruteForce()
    b.set_static(slo, shi)
    want = b.query(lo, hi)
    monkeypatch.setattr(base, "CHUNK_ELEMENTS", 97)
    got = b.query(lo, hi)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("offset", [0.0, -1e4, 1e6])
def test_random_scenes_match_brute_force(name, offset):
    rng = np.random.default_rng(zlib.crc32(f"{name}{offset}".encode()))
    for trial in range(6):
        n, m = int(rng.integers(0, 400)), int(rng.integers(0, 60))
        lo, hi, slo, shi = random_scene(rng, n, m, offset=offset)
        if trial % 2:
            lo, hi, slo, shi = (np.round(a) for a in (lo, hi, slo, shi))  # exact touches
        bp, oracle = FACTORIES[name](), BruteForce()
        bp.set_static(slo, shi)
        oracle.set_static(slo, shi)
        for _step in range(4):
            assert_same(bp, oracle, lo, hi, m)
            # move slightly, then delete a few (ids 0..n-1 again) or add a few
            d = rng.normal(0, 0.2, lo.shape)
            lo, hi = lo + d, hi + d
            k = max(0, len(lo) + int(rng.integers(-6, 4)))
            if k <= len(lo):
                lo, hi = lo[:k], hi[:k]
            else:
                extra_lo, extra_hi, _, _ = random_scene(rng, k - len(lo), 0, offset=offset)
                lo, hi = np.vstack([lo, extra_lo]), np.vstack([hi, extra_hi])


@pytest.mark.parametrize("name", FACTORIES)
def test_far_apart_bodies(name):
    # bodies both near the origin and a million units away: sparse key tables
    rng = np.random.default_rng(5)
    c = np.vstack([rng.uniform(-5, 5, (50, 2)), rng.uniform(-5, 5, (50, 2)) + [1e6, -1e6]])
    lo, hi = boxes_from(c, rng.uniform(0.3, 1.5, (100, 1)))
    slo, shi = boxes_from(np.array([[0.0, -6.0], [1e6, -1e6 - 6]]), np.array([[10.0, 1.0]]))
    bp, oracle = FACTORIES[name](), BruteForce()
    bp.set_static(slo, shi)
    oracle.set_static(slo, shi)
    assert_same(bp, oracle, lo, hi, 2)


@pytest.mark.parametrize("name", FACTORIES)
def test_touching_and_duplicates(name):
    # a lattice of unit boxes touching exactly at edges and corners, plus exact duplicates
    g = np.stack(np.meshgrid(np.arange(-5, 5.0), np.arange(-5, 5.0)), -1).reshape(-1, 2)
    lo = np.vstack([g, g[:7], g[:7]])
    hi = lo + 1.0
    slo = np.array([[-6.0, -6.0], [-6.0, 5.0], [2.0, 2.0]])
    shi = np.array([[5.0, -5.0], [5.0, 6.0], [3.0, 3.0]])  # touching the lattice
    bp, oracle = FACTORIES[name](), BruteForce()
    bp.set_static(slo, shi)
    oracle.set_static(slo, shi)
    assert_same(bp, oracle, lo, hi, 3)
    di, dj, _, _ = oracle.query(lo, hi)
    assert len(di) > 0


@pytest.mark.parametrize("name", FACTORIES)
def test_empty_and_single(name):
    bp = FACTORIES[name]()
    empty = np.empty((0, 2))
    for out in (bp.query(empty, empty), bp.query([[0.0, 0.0]], [[1.0, 1.0]])):
        check_contract(out, 1, 0)
        assert all(a.size == 0 for a in out)
    bp.set_static([[0.5, 0.5]], [[2.0, 2.0]])
    di, dj, sk, sl = bp.query([[0.0, 0.0]], [[1.0, 1.0]])
    assert di.size == 0 and sk.tolist() == [0] and sl.tolist() == [0]
    out = bp.query(empty, empty)
    check_contract(out, 0, 1)
    assert all(a.size == 0 for a in out)
    bp.set_static(empty, empty)
    assert all(a.size == 0 for a in bp.query([[0.0, 0.0]], [[1.0, 1.0]]))


@pytest.mark.parametrize("name", FACTORIES)
def test_zero_size_boxes(name):
    # points (zero extent) and all boxes at one position
    lo = np.array([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [2.0, 2.0]])
    bp, oracle = FACTORIES[name](), BruteForce()
    assert_same(bp, oracle, lo, lo.copy(), 0)
    lo = np.zeros((30, 2))
    assert_same(bp, oracle, lo, lo + 1.0, 0)


def test_grid_many_large_boxes_use_coarser_levels():
    # nearly every box is larger than the requested cell: they go to coarser grid levels
    rng = np.random.default_rng(7)
    lo, hi, slo, shi = random_scene(rng, 1500, 20, scale=60)
    bp, oracle = Grid(cell_size=1.0), BruteForce()
    bp.set_static(slo, shi)
    oracle.set_static(slo, shi)
    assert_same(bp, oracle, lo, hi, 20)
    assert bp.last_levels >= 3
    # no blow-up from the small cell: a few candidates per box or pair found
    assert bp.last_candidates < 6 * (len(lo) + len(bp.query(lo, hi)[0]))


def test_grid_dense_and_sparse_tables_agree():
    rng = np.random.default_rng(8)
    lo, hi, _, _ = random_scene(rng, 300, 0, scale=10)
    far = lo[:3] + 1e7
    lo2, hi2 = np.vstack([lo, far]), np.vstack([hi, far + 1])
    assert_same(Grid(), BruteForce(), lo2, hi2, 0)


@pytest.mark.parametrize("name", FACTORIES)
def test_rebuilds_only_on_set_static(name):
    rng = np.random.default_rng(3)
    lo, hi, slo, shi = random_scene(rng, 50, 10)
    bp = FACTORIES[name]()
    assert bp.rebuilds == 0
    bp.set_static(slo, shi)
    assert bp.rebuilds == 1
    for _ in range(5):
        bp.query(lo, hi)
        lo, hi = lo + 0.1, hi + 0.1
    assert bp.rebuilds == 1
    bp.set_static(slo[:5], shi[:5])
    assert bp.rebuilds == 2
    bp.query(lo, hi)
    assert bp.rebuilds == 2


def test_factory():
    assert isinstance(make_broadphase("grid"), Grid)
    assert isinstance(make_broadphase("sweep"), SweepAndPrune)
    assert isinstance(make_broadphase("quadtree", capacity=4), QuadTree)
    assert isinstance(make_broadphase("brute"), BruteForce)
    assert make_broadphase("grid", cell_size=3.0).cell_size == 3.0
    with pytest.raises(ValueError, match="'octree'"):
        make_broadphase("octree")
    with pytest.raises(ValueError):
        Grid(cell_size=0.0)
    with pytest.raises(ValueError):
        Grid().query(np.zeros((3, 2)), np.zeros((2, 2)))


def test_grid_auto_cell_size_is_stable():
    rng = np.random.default_rng(4)
    c = rng.uniform(0, 100, (2000, 2))
    r = rng.uniform(0.5, 2, (2000, 1))
    g = Grid()
    g.query(*boxes_from(c, r))
    first = g.cell_size
    assert first is not None and 3.0 < first < 5.0
    for _ in range(5):
        c += rng.normal(0, 0.05, c.shape)
        g.query(*boxes_from(c, r))
    assert g.cell_size == first
    g.query(*boxes_from(c, r * 10))  # boxes grew a lot: re-picked
    assert g.cell_size > 3 * first


coord = st.floats(-50, 50, allow_nan=False).map(lambda v: round(v * 2) / 2)  # many exact touches
size = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5, 12.0, 40.0])
box = st.tuples(coord, coord, size, size)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dyn=st.lists(box, max_size=40),
    stat=st.lists(box, max_size=12),
    cell=st.sampled_from([None, 0.5, 3.0]),
)
def test_hypothesis_all_match_brute(dyn, stat, cell):
    def arr(bs):
        a = np.array(bs, dtype=float).reshape(-1, 4)
        return a[:, :2], a[:, :2] + a[:, 2:]

    lo, hi = arr(dyn)
    slo, shi = arr(stat)
    oracle = BruteForce()
    oracle.set_static(slo, shi)
    for bp in (Grid(cell_size=cell), SweepAndPrune(), QuadTree(capacity=2, max_depth=6)):
        bp.set_static(slo, shi)
        assert_same(bp, oracle, lo, hi, len(slo))
        if len(lo) > 3:  # delete some, query again
            assert_same(bp, oracle, lo[:-3], hi[:-3], len(slo))


def test_the_median_of_the_static_cells_is_numpys():
    """The broadphases' median (without NumPy's one-off first-call cost) gives np.median's
    value bit for bit: odd and even counts, tiny and huge values, infinities, NaN."""
    from ecsphys.broadphase.base import median

    rng = np.random.default_rng(7)
    for k in range(1, 12):
        for _ in range(40):
            a = rng.normal(size=k) * rng.choice([1e-300, 1.0, 1e300])
            if rng.random() < 0.15:
                a[rng.integers(k)] = rng.choice([np.nan, np.inf, -np.inf])
            want = float(np.median(a))
            got = median(a)
            assert (np.isnan(want) and np.isnan(got)) or got == want, (a, want, got)
    assert np.isnan(median(np.zeros(0)))
