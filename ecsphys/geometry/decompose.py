"""Convex decomposition: split a simple (possibly concave) outline into convex Polygons.

Guarantees: ``convex_decompose(points)`` returns convex ``Polygon`` pieces that exactly tile
the outline (union equals it, interiors disjoint), at most ``n - 2`` of them and a single
piece for a convex outline. Method: ear clipping into triangles, then Hertel-Mehlhorn -
remove a diagonal whenever the two pieces it separates merge into a convex piece (at most
four times the minimum number of pieces). Vertices collinear with their neighbours are
dropped first. Raises ``ValueError`` for fewer than three points, zero area or a
self-intersecting outline.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..shapes import Polygon, _segments_cross, check_vec

Vec = tuple[float, float]


def _cross(o: Vec, a: Vec, b: Vec) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _in_triangle(p: Vec, a: Vec, b: Vec, c: Vec) -> bool:
    return _cross(a, b, p) >= 0 and _cross(b, c, p) >= 0 and _cross(c, a, p) >= 0


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
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue
            if _segments_cross(dedup[i], dedup[(i + 1) % n], dedup[j], dedup[(j + 1) % n]):
                raise ValueError(
                    f"convex_decompose.points are self-intersecting: edge {i} crosses edge {j}"
                )
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


def _ear_clip(pts: list[Vec]) -> list[list[int]]:
    idx = list(range(len(pts)))
    tris: list[list[int]] = []
    while len(idx) > 3:
        m = len(idx)
        for k in range(m):
            i, j, l = idx[k - 1], idx[k], idx[(k + 1) % m]
            a, b, c = pts[i], pts[j], pts[l]
            if _cross(a, b, c) <= 0:
                continue
            if any(_in_triangle(pts[v], a, b, c) for v in idx if v not in (i, j, l)):
                continue
            tris.append([i, j, l])
            del idx[k]
            break
        else:
            raise ValueError("convex_decompose found no ear: the outline is not simple")
    tris.append(idx)
    return tris


def _convex_at(pts: list[Vec], piece: list[int]) -> bool:
    n = len(piece)
    return all(
        _cross(pts[piece[i - 1]], pts[piece[i]], pts[piece[(i + 1) % n]]) > 0 for i in range(n)
    )


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
    pieces = _ear_clip(pts)
    merged = True
    while merged:
        merged = False
        for pi in range(len(pieces)):
            p = pieces[pi]
            for k in range(len(p)):
                a, b = p[k], p[(k + 1) % len(p)]
                for qi in range(len(pieces)):
                    if qi == pi:
                        continue
                    q = pieces[qi]
                    if b in q and q[(q.index(b) + 1) % len(q)] == a:
                        cand = _merge(p, q, a, b)
                        if _convex_at(pts, cand):
                            pieces[pi] = cand
                            del pieces[qi]
                            merged = True
                            break
                if merged:
                    break
            if merged:
                break
    return [Polygon([pts[i] for i in piece]) for piece in pieces]
