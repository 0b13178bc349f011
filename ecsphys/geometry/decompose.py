"""Convex decomposition: split a simple (possibly concave) outline into convex Polygons.

Guarantees: ``convex_decompose(points)`` returns convex ``Polygon`` pieces that exactly tile
the outline (union equals it, interiors disjoint), at most ``n - 2`` of them and a single
piece for a convex outline. Method: the outline is triangulated by mapbox-earcut (a
maintained ear-clipping library), then Hertel-Mehlhorn: a diagonal between two pieces is
removed whenever the piece they make is convex (at most four times the minimum number of
pieces); a removal looks only at the diagonal's two ends, so an outline of thousands of
points decomposes in milliseconds. Vertices collinear with their neighbours are dropped
first. Raises ``ValueError`` for fewer than three points, zero area or a self-intersecting
outline (every pair of edges is tested, with NumPy), and when the triangles do not tile
the outline. mapbox-earcut is imported at the first decomposition, not with ecsphys.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..shapes import Polygon, check_vec

Vec = tuple[float, float]

#: edges of the outline tested against every other edge in blocks of this many (memory:
#: a few arrays of BLOCK x n floats)
_BLOCK = 256


def _cross(o: Vec, a: Vec, b: Vec) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _first_crossing(pts: np.ndarray) -> tuple[int, int] | None:
    """The first pair of edges ``(i, j)``, ``i < j``, not neighbours, whose closed segments
    share a point (as ``shapes._segments_cross`` decides it for one pair), or None: the
    pairs whose boxes meet, found block by block, then tested exactly."""
    n = len(pts)
    p, q = pts, np.roll(pts, -1, axis=0)  # edge k runs p[k] -> q[k]
    lo, hi = np.minimum(p, q), np.maximum(p, q)

    def cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return ((a[:, 0] - o[:, 0]) * (b[:, 1] - o[:, 1])
                - (a[:, 1] - o[:, 1]) * (b[:, 0] - o[:, 0]))

    def on(a: np.ndarray, b: np.ndarray, x: np.ndarray, d: np.ndarray) -> np.ndarray:
        return ((d == 0) & (np.minimum(a[:, 0], b[:, 0]) <= x[:, 0])
                & (x[:, 0] <= np.maximum(a[:, 0], b[:, 0]))
                & (np.minimum(a[:, 1], b[:, 1]) <= x[:, 1])
                & (x[:, 1] <= np.maximum(a[:, 1], b[:, 1])))

    j = np.arange(n)[None, :]
    for start in range(0, n, _BLOCK):
        i = np.arange(start, min(start + _BLOCK, n))[:, None]
        near = ((lo[i, 0] <= hi[None, :, 0]) & (lo[None, :, 0] <= hi[i, 0])
                & (lo[i, 1] <= hi[None, :, 1]) & (lo[None, :, 1] <= hi[i, 1])
                & (j > i + 1) & ~((i == 0) & (j == n - 1)))
        a, b = np.nonzero(near)
        if not len(a):
            continue
        a = a + start
        p1, p2, q1, q2 = p[a], q[a], p[b], q[b]
        d1, d2 = cross(q1, q2, p1), cross(q1, q2, p2)
        d3, d4 = cross(p1, p2, q1), cross(p1, p2, q2)
        hit = ((((d1 > 0) & (d2 < 0)) | ((d1 < 0) & (d2 > 0)))
               & (((d3 > 0) & (d4 < 0)) | ((d3 < 0) & (d4 > 0))))
        hit |= (on(q1, q2, p1, d1) | on(q1, q2, p2, d2) | on(p1, p2, q1, d3)
                | on(p1, p2, q2, d4))
        if hit.any():
            k = int(np.flatnonzero(hit)[0])  # (pairs in (i, j) order: the first)
            return int(a[k]), int(b[k])
    return None


def _clean_outline(points: Iterable[Iterable[float]]) -> list[Vec]:
    pts = [check_vec(f"convex_decompose.points[{i}]", p) for i, p in enumerate(points)]
    dedup: list[Vec] = []
    for p in pts:
        if not dedup or dedup[-1] != p:
            dedup.append(p)
    if len(dedup) > 1 and dedup[0] == dedup[-1]:
        dedup.pop()
    if len(dedup) < 3:
        raise ValueError(f"convex_decompose needs at least 3 points, got {len(dedup)}: {pts!r}")
    n = len(dedup)
    crossing = _first_crossing(np.array(dedup, dtype=np.float64))
    if crossing is not None:
        raise ValueError(f"convex_decompose.points are self-intersecting: edge {crossing[0]} "
                         f"crosses edge {crossing[1]}")
    area = sum(
        dedup[i][0] * dedup[(i + 1) % n][1] - dedup[(i + 1) % n][0] * dedup[i][1] for i in range(n)
    )
    if area == 0:
        raise ValueError(f"convex_decompose.points have zero area: {pts!r}")
    if area < 0:
        dedup.reverse()
    out = [p for i, p in enumerate(dedup) if _cross(dedup[i - 1], p, dedup[(i + 1) % n]) != 0]
    if len(out) < 3:
        raise ValueError(f"convex_decompose.points have zero area: {pts!r}")
    return out


def _triangles(pts: list[Vec]) -> list[list[int]]:
    """mapbox-earcut's triangles of the counter-clockwise outline ``pts``, each
    counter-clockwise; ValueError when they do not tile it (n - 2 triangles of positive
    area whose areas add up to the outline's)."""
    import mapbox_earcut  # (here: a game that never decomposes never loads it)

    n = len(pts)
    arr = np.array(pts, dtype=np.float64)
    idx = mapbox_earcut.triangulate_float64(arr, np.array([n], dtype=np.uint32))
    tris = idx.reshape(-1, 3).astype(np.int64).tolist()
    out: list[list[int]] = []
    total = 0.0
    for a, b, c in tris:
        twice = _cross(pts[a], pts[b], pts[c])
        if twice < 0:
            b, c, twice = c, b, -twice
        if twice > 0:
            out.append([a, b, c])
            total += twice
    x, y = arr[:, 0], arr[:, 1]
    outline = float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))
    if len(out) != n - 2 or abs(total - outline) > 1e-9 * abs(outline):
        raise ValueError(f"convex_decompose could not triangulate the outline of {n} points "
                         f"(it is not simple)")
    return out


def _turns_left(pts: list[Vec], piece: list[int], k: int) -> bool:
    """The piece turns strictly left at its ``k``-th vertex."""
    m = len(piece)
    return _cross(pts[piece[k - 1]], pts[piece[k]], pts[piece[(k + 1) % m]]) > 0


def _merge(p: list[int], q: list[int], a: int, b: int) -> list[int]:
    """Join pieces sharing the diagonal: ``p`` runs a->b, ``q`` runs b->a."""
    i = p.index(b)
    rp = p[i:] + p[:i]  # b ... a
    j = q.index(a)
    rq = q[j:] + q[:j]  # a ... b
    return rp + rq[1:-1]


def convex_decompose(points: Iterable[Iterable[float]]) -> list[Polygon]:
    """Split a simple outline (either winding) into convex ``Polygon`` pieces.

    >>> [len(p.points) for p in convex_decompose([(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)])]
    [4, 4]
    """
    pts = _clean_outline(points)
    pieces: dict[int, list[int]] = dict(enumerate(_triangles(pts)))
    owner: dict[tuple[int, int], int] = {}  # directed edge -> the piece it runs along
    for pid, piece in pieces.items():
        for k in range(3):
            owner[(piece[k], piece[(k + 1) % 3])] = pid
    # the diagonals (edges two pieces share), in a fixed order: each removed when the piece
    # the two make is convex; only the angles at the diagonal's ends change
    diagonals = sorted((a, b) for (a, b) in owner if a < b and (b, a) in owner)
    for a, b in diagonals:
        pid, qid = owner[(a, b)], owner[(b, a)]
        cand = _merge(pieces[pid], pieces[qid], a, b)
        at_b = 0  # (cand starts at b; a is where p's run ends)
        at_a = len(pieces[pid]) - 1
        if not (_turns_left(pts, cand, at_b) and _turns_left(pts, cand, at_a)):
            continue
        for k in range(len(pieces[qid])):
            q = pieces[qid]
            owner[(q[k], q[(k + 1) % len(q)])] = pid
        del owner[(a, b)], owner[(b, a)]
        del pieces[qid]
        pieces[pid] = cand
    return [Polygon([pts[i] for i in piece]) for _, piece in sorted(pieces.items())]
