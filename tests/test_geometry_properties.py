"""Properties of the public geometry API against shapely, for every ordered pair of kinds.

Adds to test_geometry_pairs / _distance / _toi: overlap decided at the 1e-9 touching tolerance
(placements pushed to gaps around it), distances at large coordinates, the contact depth as a
translation (moving ``b`` by it touches, by less overlaps), time of impact checked at 200
sample times with both shapes moving, and fast small movers against 0.1-thick walls.
Only the public API and its documented conventions are used, so the tests hold for any
implementation (Python or compiled).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import shapely
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from test_geometry_oracle import (
    KINDS,
    STRATEGIES,
    cores,
    gap,
    point_gap,
    pos,
    primitive_depth,
    world_verts,
)

from ecsphys.geometry import contact, distance, overlaps, time_of_impact
from ecsphys.shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment

PAIRS = list(itertools.product(KINDS, KINDS))
IDS = [f"{a.__name__}-{b.__name__}" for a, b in PAIRS]
pairs = pytest.mark.parametrize(("ka", "kb"), PAIRS, ids=IDS)
TOL = 1e-9  # TOUCH_TOLERANCE, the documented value (not imported: a changed one must fail)
TOUCH = 2 * TOL  # "within the touch tolerance", with room for rounding
shift = st.tuples(st.floats(-6, 6), st.floats(-6, 6))
move = st.tuples(st.floats(-8, 8), st.floats(-8, 8))


def at(p, m, t):
    return (p[0] + m[0] * t, p[1] + m[1] * t)


def leaves(s, p):
    """The primitive parts of ``s`` at body position ``p``, each with its own position."""
    if isinstance(s, Compound):
        return [(q, (p[0] + dx, p[1] + dy)) for q, dx, dy in s.parts]
    return [(s, p)]


def leaf_pairs(a, pa, b, pb):
    return [(x, px, y, py) for x, px in leaves(a, pa) for y, py in leaves(b, pb)]


def overlap_area(x, px, y, py) -> float:
    """Area of the intersection of two primitives (circles as inscribed 128-gons: never more).
    Snapped to a 1e-12 grid: GEOS's plain overlay can answer a whole polygon for two that
    share an edge (GEOS 3.14.1)."""
    ((gx, rx),), ((gy, ry),) = cores(x, px), cores(y, py)
    sx = gx.buffer(rx, quad_segs=32) if rx else gx
    sy = gy.buffer(ry, quad_segs=32) if ry else gy
    return shapely.intersection(sx, sy, grid_size=1e-12).area


def intersect(x, px, y, py) -> bool:
    """Shapely: the primitives share a point (GEOS's distance of two polygons that overlap
    along a nearly parallel edge can be 2e-17, not 0: ``intersects`` is exact there)."""
    ((gx, rx),), ((gy, ry),) = cores(x, px), cores(y, py)
    return shapely.distance(gx, gy) < rx + ry if rx or ry else shapely.intersects(gx, gy)


def inner_point(data, s, label):
    """A point of ``s`` relative to its body (a random part, a random point of it)."""
    part, dx, dy = data.draw(st.sampled_from(s.parts), label) if isinstance(s, Compound) else (
        s, 0.0, 0.0)
    if isinstance(part, Circle):
        rho, ang = data.draw(st.tuples(st.floats(0, 0.99), st.floats(0, 2 * math.pi)), label)
        ox, oy = part.offset
        return (ox + dx + rho * part.radius * math.cos(ang),
                oy + dy + rho * part.radius * math.sin(ang))
    verts = world_verts(part)
    w = data.draw(st.lists(st.floats(0.01, 1), min_size=len(verts), max_size=len(verts)), label)
    return (dx + sum(wi * x for wi, (x, _) in zip(w, verts, strict=True)) / sum(w),
            dy + sum(wi * y for wi, (_, y) in zip(w, verts, strict=True)) / sum(w))


def gaps_along(x, px, mx, y, py, my, times) -> np.ndarray:
    """Shapely gaps of primitives ``x`` and ``y`` moving by ``mx`` and ``my``, at ``times``."""
    ((gx, rx),), ((gy, ry),) = cores(x, px), cores(y, py)

    def moved(g, m):
        k = shapely.get_num_coordinates(g)
        offs = np.repeat(np.outer(times, m), k, axis=0)
        return shapely.transform(np.array([g] * len(times), dtype=object), lambda c: c + offs)

    return shapely.distance(moved(gx, mx), moved(gy, my)) - rx - ry


@pairs
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_overlap_is_shapely_at_the_touch_tolerance(ka, kb, data) -> None:
    """overlaps() is shapely's gap <= 1e-9 (gaps pushed around the tolerance), as contact()."""
    a, b = data.draw(STRATEGIES[ka], "a"), data.draw(STRATEGIES[kb], "b")
    pa, d = data.draw(pos, "pa"), data.draw(shift, "shift")
    pb = at(pa, d, 1.0)
    target = data.draw(st.sampled_from([None, -1e-10, 0.0, 1e-10, 4e-10, 3e-9, 1e-8, 1e-6]),
                       "target gap")
    s = distance(a, pa, b, pb)
    if target is not None and s.distance > 0.0:  # move b along the normal to that gap
        pb = at(pb, s.normal, target - s.distance)
    g = gap(a, pa, b, pb)
    assume(not 0.5 * TOL < g < TOUCH)  # rounding decides
    hit = overlaps(a, pa, b, pb)
    event(f"overlaps={hit}, gap {'< 1e-8' if abs(g) < 1e-8 else 'beyond'}")
    assert hit == (g <= TOL), f"shapely gap {g}"
    assert (contact(a, pa, b, pb) is not None) == hit
    assert overlaps(b, pb, a, pa) == hit


@pairs
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_distance_is_shapely_at_any_coordinates(ka, kb, data) -> None:
    """distance() of shapes apart is shapely's, at closest points on the shapes, also far out."""
    a, b = data.draw(STRATEGIES[ka], "a"), data.draw(STRATEGIES[kb], "b")
    base = data.draw(st.sampled_from([(0.0, 0.0), (1e3, -2e3), (-3e4, 7e4)]), "base")
    pa = at(base, data.draw(pos, "pa"), 1.0)
    pb = at(pa, data.draw(shift, "shift"), 1.0)
    acc = 1e-9 + 1e-14 * max(abs(base[0]), abs(base[1]))
    s, r = distance(a, pa, b, pb), distance(b, pb, a, pa)
    assert (s.distance == 0.0) == (r.distance == 0.0) == overlaps(a, pa, b, pb)
    assume(s.distance > 0.0)
    assert s.distance == pytest.approx(gap(a, pa, b, pb), abs=acc)
    nacc = 1e-9 + 4 * acc / s.distance  # a direction is as good as its length allows
    for sep, x, px, y, py in ((s, a, pa, b, pb), (r, b, pb, a, pa)):
        assert math.hypot(*sep.normal) == pytest.approx(1.0, abs=1e-12)
        assert abs(point_gap(x, px, sep.point_a)) <= acc  # on the shapes
        assert abs(point_gap(y, py, sep.point_b)) <= acc
        (ax, ay), (bx, by) = sep.point_a, sep.point_b
        assert math.hypot(bx - ax, by - ay) == pytest.approx(sep.distance, abs=acc)
        unit = ((bx - ax) / sep.distance, (by - ay) / sep.distance)
        assert unit == pytest.approx(sep.normal, abs=nacc)  # from point_a to point_b
    assert r.distance == pytest.approx(s.distance, abs=acc)
    assert r.normal == pytest.approx((-s.normal[0], -s.normal[1]), abs=nacc)


@pairs
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_contact_depth_is_a_translation(ka, kb, data) -> None:
    """b moved by normal * depth touches a, by normal * (depth - 1e-3) overlaps; swap flips."""
    a, b = data.draw(STRATEGIES[ka], "a"), data.draw(STRATEGIES[kb], "b")
    pa = data.draw(pos, "pa")
    qa, qb = inner_point(data, a, "point of a"), inner_point(data, b, "point of b")
    pb = (pa[0] + qa[0] - qb[0], pa[1] + qa[1] - qb[1])  # the shapes share a point
    assume(not (a == b and pa == pb))  # a shape on itself: no order to swap
    c = contact(a, pa, b, pb)
    assert c is not None, "shapes sharing a point must be in contact"
    (nx, ny), depth = c.normal, c.depth
    assert math.hypot(nx, ny) == pytest.approx(1.0, abs=1e-12)
    assert depth >= -TOL
    assert contact(b, pb, a, pa) == c.flipped()
    # no deeper than the shortest move of b's box out of a's box along an axis
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = (
        shapely.union_all([g.buffer(r) if r else g for g, r in cores(s, p)]).bounds
        for s, p in ((a, pa), (b, pb))
    )
    assert depth <= min(ax1 - bx0, bx1 - ax0, ay1 - by0, by1 - ay0) + 1e-9
    # pushed out by the depth: the part pair it came from (any, for compounds) touches
    out = at(pb, c.normal, depth)
    touching = [
        (gap(x, px, y, py), primitive_depth(x, px, y, py), overlap_area(x, px, y, py))
        for x, px, y, py in leaf_pairs(a, pa, b, out)
    ]
    assert any(g <= 1e-6 and abs(sd) <= 1e-6 and ar <= 1e-6 for g, sd, ar in touching), touching
    event(f"depth > 2e-3: {depth > 2e-3}")
    if depth > 2e-3:
        near = at(pb, c.normal, depth - 1e-3)
        assert any(intersect(*lp) for lp in leaf_pairs(a, pa, b, near))
        assert overlaps(a, pa, b, near)


@pairs
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_time_of_impact_against_sampled_moves(ka, kb, data) -> None:
    """A hit touches at t and is apart just before; a miss never overlaps at 200 samples."""
    a, b = data.draw(STRATEGIES[ka], "a"), data.draw(STRATEGIES[kb], "b")
    pa = data.draw(pos, "pa")
    pb = at(pa, data.draw(shift, "shift"), 1.0)
    ma = data.draw(move, "move_a")
    mb = data.draw(st.one_of(st.just((0.0, 0.0)), move), "move_b")
    hit = time_of_impact(a, pa, ma, b, pb, mb)
    # the part pairs apart at the start (the start rule decides the others)
    live = [lp for lp in leaf_pairs(a, pa, b, pb) if gap(*lp) > TOUCH]
    event("miss" if hit is None else f"hit at t {'>= 1e-3' if hit[0] >= 1e-3 else '< 1e-3'}")
    if hit is None:
        assume(live)  # touching at the start and not approaching: the start rule's None
        times = np.linspace(0.0, 1.0, 200)
        for x, px, y, py in live:
            g = gaps_along(x, px, ma, y, py, mb, times)
            assert g.min() > 0.0, f"overlap at t={times[g.argmin()]} (gap {g.min()})"
        return
    t, c = hit
    assert 0.0 <= t <= 1.0
    qa, qb = at(pa, ma, t), at(pb, mb, t)
    assert distance(a, qa, b, qb).distance <= TOUCH
    assert gap(a, qa, b, qb) <= TOUCH
    if t == 0.0:  # the start rule: touching, and moving into the contact
        assert contact(a, pa, b, pb) is not None
        rel = (ma[0] - mb[0], ma[1] - mb[1])
        assert c.normal[0] * rel[0] + c.normal[1] * rel[1] > 0.0
    if t >= 1e-3:
        for x, px, y, py in live:
            before = gap(x, at(px, ma, t - 1e-3), y, at(py, mb, t - 1e-3))
            assert before > 0.0, f"already overlapping at t - 1e-3 (gap {before})"


# --- fast small movers against thin walls -----------------------------------------------------

SPEED = 2000 / 60  # 2,000 units/s over one 1/60 s step: 33 units


def _turned(points, deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return [(x * c - y * s, x * s + y * c) for x, y in points]


def _slab(deg):  # 0.1 thick, 20 long, its normal at deg
    return _turned([(-0.05, -10), (0.05, -10), (0.05, 10), (-0.05, 10)], deg)


MOVERS = {
    "circle": Circle(0.05),
    "rect": Rect(0.1, 0.1),
    "polygon": Polygon([(0, 0.06), (-0.05, -0.04), (0.05, -0.04)]),
    "segment": Segment((-0.03, -0.04), (0.03, 0.04)),
}
WALLS = {  # (wall, its normal's angle in degrees)
    "rect": (Rect(0.1, 20), 0.0),
    "orect15": (OrientedRect(0.1, 20, 15), 15.0),
    "orect45": (OrientedRect(0.1, 20, 45), 45.0),
    "orect-70": (OrientedRect(0.1, 20, -70), -70.0),
    "segment": (Segment(*_turned([(0, -10), (0, 10)], 30)), 30.0),
    "polygon": (Polygon(_slab(-20)), -20.0),
    "polygon5": (Polygon([(-0.05, -10), (0.05, -9.8), (0.05, 10), (-0.05, 9.9),
                          (-0.06, 0)]), 0.0),
}


@pytest.mark.parametrize("wall_name", list(WALLS))
@pytest.mark.parametrize("mover_name", list(MOVERS))
def test_fast_small_mover_never_tunnels_a_thin_wall(mover_name, wall_name) -> None:
    """A small shape moving 33 units in a step across a 0.1-thick wall is hit, in both orders."""
    mover, (wall, normal_deg) = MOVERS[mover_name], WALLS[wall_name]
    wall_at = (3.0, -2.0)
    misses = []
    for along, into, frac in itertools.product(
        np.linspace(-6, 6, 17), (0.0, 35.0, -55.0, 180.0, 200.0), (0.06, 0.3, 0.5, 0.77, 0.93)
    ):
        # the mover's body point crosses the wall's mid-line at `along`, at time `frac`
        (cx, cy), = _turned([(0.0, along)], normal_deg)
        cross = (wall_at[0] + cx, wall_at[1] + cy)
        ang = math.radians(normal_deg + into)
        m = (SPEED * math.cos(ang), SPEED * math.sin(ang))
        start = at(cross, m, -frac)
        assert contact(mover, start, wall, wall_at) is None
        for hit in (
            time_of_impact(mover, start, m, wall, wall_at),
            time_of_impact(wall, wall_at, (0.0, 0.0), mover, start, m),
        ):
            if hit is None or not 0.0 < hit[0] <= frac:
                misses.append((along, into, frac, hit and hit[0]))
                continue
            q = at(start, m, hit[0])
            d = distance(mover, q, wall, wall_at).distance
            if d > TOUCH or gap(mover, q, wall, wall_at) > TOUCH:
                misses.append((along, into, frac, hit[0], d))
    assert not misses, misses
