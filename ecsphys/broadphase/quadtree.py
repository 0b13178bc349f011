"""Quad tree broadphase: boxes pushed down a region quad tree to its leaves, pairs within leaves.

Guarantees:
- Exact: returns every overlapping (closed-box) dynamic-dynamic pair with ``di < dj`` and every
  overlapping dynamic-static pair, each once, sorted lexicographically, as int64 arrays.
- A real quad tree: a node holding more than ``capacity`` boxes splits into four quadrants at
  its centre, down to ``max_depth``. A box goes into every child it touches (left if
  ``lo_x < mid``, right if ``hi_x >= mid``; same for y), so boxes live in leaves only. A pair
  met in several shared leaves is reported only from the leaf holding the lower-left corner
  of the pair's intersection (the reference-point rule), so each pair comes out once.
- Memory is bounded: a node splits only if that duplicates at most half of its boxes (many
  boxes spanning the centre stop the split), so copies grow at most 1.5x per level.
- Built level by level with NumPy (no per-box Python loop). The dynamic tree is rebuilt on
  every ``query``; the static tree once per ``set_static``, and ``query`` pushes the dynamic
  boxes down it the same way.
- Typically slower than ``Grid``; it adapts to very uneven densities without a cell size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import PairArrays, as_boxes, empty_pairs, range_overlaps, sorted_pairs

__all__ = ["QuadTree"]


def _cols(lo: np.ndarray, hi: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, ...]:
    return lo[:, 0][idx], lo[:, 1][idx], hi[:, 0][idx], hi[:, 1][idx]


def _four(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per-child values: ``b`` of the parent where ``mask``, else ``a`` (4 children each)."""
    return np.where(mask, np.repeat(b, 4), np.repeat(a, 4))


def _sides(
    lx: np.ndarray, ly: np.ndarray, hx: np.ndarray, hy: np.ndarray, mx: np.ndarray, my: np.ndarray
) -> list[np.ndarray]:
    """Masks of the four quadrants (q = 2*top + right) each box touches."""
    left, right = lx < mx, hx >= mx
    bottom, top = ly < my, hy >= my
    return [left & bottom, right & bottom, left & top, right & top]


@dataclass
class _Tree:
    """A built quad tree: node table plus leaf memberships sorted by leaf."""

    mx: np.ndarray  # node centre x
    my: np.ndarray  # node centre y
    child: np.ndarray  # id of the first of 4 children, -1 for a leaf
    rx0: np.ndarray  # leaf region [rx0, rx1) x [ry0, ry1) for the reference-point rule
    rx1: np.ndarray
    ry0: np.ndarray
    ry1: np.ndarray
    item: np.ndarray  # memberships sorted by leaf: box id
    leaf: np.ndarray  # memberships sorted by leaf: leaf node id
    starts: np.ndarray  # starts[node] .. starts[node + 1]: memberships of leaf `node`
    depth: int


def _build(lo: np.ndarray, hi: np.ndarray, capacity: int, max_depth: int) -> _Tree:
    n = lo.shape[0]
    x0, x1 = float(lo[:, 0].min()), float(hi[:, 0].max())
    y0, y1 = float(lo[:, 1].min()), float(hi[:, 1].max())
    inf = np.inf
    # per-level node tables (level-local index); bounds b*, regions r*
    bx0, bx1 = np.array([x0]), np.array([x1])
    by0, by1 = np.array([y0]), np.array([y1])
    rx0, rx1 = np.array([-inf]), np.array([inf])
    ry0, ry1 = np.array([-inf]), np.array([inf])
    items = np.arange(n, dtype=np.int64)
    nodes = np.zeros(n, dtype=np.int64)  # level-local
    offset = 0
    t_mx: list[np.ndarray] = []
    t_my: list[np.ndarray] = []
    t_child: list[np.ndarray] = []
    t_r: list[tuple[np.ndarray, ...]] = []
    f_item: list[np.ndarray] = []
    f_leaf: list[np.ndarray] = []
    depth = 0
    while True:
        count_nodes = bx0.size
        mx = (bx0 + bx1) * 0.5
        my = (by0 + by1) * 0.5
        counts = np.bincount(nodes, minlength=count_nodes)
        split = counts > capacity
        if depth >= max_depth:
            split[:] = False
        child = np.full(count_nodes, -1, dtype=np.int64)
        if split.any():
            cand = split[nodes]
            ci, cn = items[cand], nodes[cand]
            lx, ly, hx, hy = _cols(lo, hi, ci)
            quads = _sides(lx, ly, hx, hy, mx[cn], my[cn])
            copies = quads[0].astype(np.int64) + quads[1] + quads[2] + quads[3]
            after = np.bincount(cn, weights=copies, minlength=count_nodes)
            split &= after <= 1.5 * counts
        if split.any():
            nsplit = int(np.count_nonzero(split))
            rank = np.cumsum(split) - 1
            next_offset = offset + count_nodes
            child[split] = next_offset + 4 * rank[split]
        t_mx.append(mx)
        t_my.append(my)
        t_child.append(child)
        t_r.append((rx0, rx1, ry0, ry1))
        stay = ~split[nodes]
        f_item.append(items[stay])
        f_leaf.append(nodes[stay] + offset)
        if not split.any():
            break
        go = ~stay
        ci, cn = items[go], nodes[go]
        lx, ly, hx, hy = _cols(lo, hi, ci)
        quads = _sides(lx, ly, hx, hy, mx[cn], my[cn])
        local_base = 4 * rank[cn]
        new_items = []
        new_nodes = []
        for q in range(4):
            mq = quads[q]
            new_items.append(ci[mq])
            new_nodes.append(local_base[mq] + q)
        items = np.concatenate(new_items)
        nodes = np.concatenate(new_nodes)
        # child geometry, quadrant q = 2*top + right
        sx0, sx1, sy0, sy1 = bx0[split], bx1[split], by0[split], by1[split]
        sr = [r[split] for r in (rx0, rx1, ry0, ry1)]
        smx, smy = mx[split], my[split]
        right = np.tile(np.array([False, True, False, True]), nsplit)  # split s: 4s .. 4s+3
        top = np.tile(np.array([False, False, True, True]), nsplit)
        bx0, bx1 = _four(sx0, smx, right), _four(smx, sx1, right)
        by0, by1 = _four(sy0, smy, top), _four(smy, sy1, top)
        rx0, rx1 = _four(sr[0], smx, right), _four(smx, sr[1], right)
        ry0, ry1 = _four(sr[2], smy, top), _four(smy, sr[3], top)
        offset += count_nodes
        depth += 1
    item = np.concatenate(f_item)
    leaf = np.concatenate(f_leaf)
    order = np.argsort(leaf, kind="stable")
    item, leaf = item[order], leaf[order]
    total_nodes = offset + bx0.size
    starts = np.zeros(total_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(leaf, minlength=total_nodes), out=starts[1:])
    return _Tree(
        mx=np.concatenate(t_mx),
        my=np.concatenate(t_my),
        child=np.concatenate(t_child),
        rx0=np.concatenate([r[0] for r in t_r]),
        rx1=np.concatenate([r[1] for r in t_r]),
        ry0=np.concatenate([r[2] for r in t_r]),
        ry1=np.concatenate([r[3] for r in t_r]),
        item=item,
        leaf=leaf,
        starts=starts,
        depth=depth,
    )


def _in_region(tree: _Tree, leaf: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    m = tree.rx0[leaf] <= x
    m &= x < tree.rx1[leaf]
    m &= tree.ry0[leaf] <= y
    m &= y < tree.ry1[leaf]
    return m


class QuadTree:
    """Region quad tree broadphase (node ``capacity``, ``max_depth``)."""

    def __init__(self, capacity: int = 8, max_depth: int = 10) -> None:
        """``capacity``: boxes a node holds before it splits; ``max_depth``: deepest level."""
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity!r}")
        if max_depth < 0:
            raise ValueError(f"max_depth must be non-negative, got {max_depth!r}")
        self.capacity = int(capacity)
        self.max_depth = int(max_depth)
        self.rebuilds: int = 0
        self.last_candidates: int = 0
        """Candidate pairs examined by the last ``query`` (dynamic-dynamic), for benchmarks."""
        self._static: _Tree | None = None
        self._slo = np.empty((0, 2))
        self._shi = np.empty((0, 2))
        self._m = 0

    def set_static(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """Build the static quad tree (ids ``0..m-1``); increments ``rebuilds``."""
        lo, hi = as_boxes(lo, hi)
        self.rebuilds += 1
        self._m = lo.shape[0]
        self._slo, self._shi = lo.copy(), hi.copy()
        self._static = _build(lo, hi, self.capacity, self.max_depth) if self._m else None

    def query(self, lo: np.ndarray, hi: np.ndarray) -> PairArrays:
        """Return ``(di, dj, sk, sl)`` for the dynamic boxes ``lo, hi`` (ids ``0..n-1``)."""
        lo, hi = as_boxes(lo, hi)
        di, dj = self._dynamic_pairs(lo, hi)
        sk, sl = self._static_pairs(lo, hi)
        return di, dj, sk, sl

    def _dynamic_pairs(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = lo.shape[0]
        self.last_candidates = 0
        if n < 2:
            return empty_pairs()
        tree = _build(lo, hi, self.capacity, self.max_depth)
        e = tree.item.size
        cols = _cols(lo, hi, tree.item)
        p = np.arange(e, dtype=np.int64)
        st = (p + 1).reshape(e, 1)
        ct = (tree.starts[tree.leaf + 1] - st[:, 0]).reshape(e, 1)
        i, j, total = range_overlaps(st, ct, cols, cols)
        self.last_candidates = total
        lx, ly = cols[0], cols[1]
        keep = _in_region(tree, tree.leaf[i], np.maximum(lx[i], lx[j]), np.maximum(ly[i], ly[j]))
        a, b = tree.item[i[keep]], tree.item[j[keep]]
        return sorted_pairs(np.minimum(a, b), np.maximum(a, b), n, unique=True)

    def _static_pairs(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tree = self._static
        n = lo.shape[0]
        if tree is None or n == 0:
            return empty_pairs()
        # push every dynamic box down the static tree to the leaves it touches
        dyn = np.arange(n, dtype=np.int64)
        node = np.zeros(n, dtype=np.int64)
        f_dyn: list[np.ndarray] = []
        f_leaf: list[np.ndarray] = []
        for _ in range(tree.depth + 1):
            ch = tree.child[node]
            at_leaf = ch < 0
            f_dyn.append(dyn[at_leaf])
            f_leaf.append(node[at_leaf])
            inner = ~at_leaf
            if not inner.any():
                break
            dyn, node, ch = dyn[inner], node[inner], ch[inner]
            quads = _sides(*_cols(lo, hi, dyn), tree.mx[node], tree.my[node])
            dyn = np.concatenate([dyn[m] for m in quads])
            node = np.concatenate([ch[m] + q for q, m in enumerate(quads)])
        qd = np.concatenate(f_dyn)
        ql = np.concatenate(f_leaf)
        k = qd.size
        if k == 0:
            return empty_pairs()
        s = tree.starts[ql]
        cnt = tree.starts[ql + 1] - s
        scols = _cols(self._slo, self._shi, tree.item)
        i, j, _ = range_overlaps(s.reshape(k, 1), cnt.reshape(k, 1), _cols(lo, hi, qd), scols)
        d = qd[i]
        x = np.maximum(lo[:, 0][d], scols[0][j])
        y = np.maximum(lo[:, 1][d], scols[1][j])
        keep = _in_region(tree, ql[i], x, y)
        return sorted_pairs(d[keep], tree.item[j[keep]], self._m, unique=True)
