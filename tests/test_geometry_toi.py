"""Shapes in motion: time of impact for every pair, the analytic circle cases, the binary
impact search against a fine linear search, and thin walls that must never be tunnelled."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_geometry_oracle import KINDS, STRATEGIES, gap, point_gap, segments

from ecsphys.geometry import (
    REACH,
    TOUCH_TOLERANCE,
    binary_impact_search,
    contact,
    overlaps,
    time_of_impact,
    toi_circle_circle,
    toi_circle_rect,
    toi_circle_segment,
    toi_rect_rect,
)
from ecsphys.geometry.contact import ON_TOLERANCE, PARALLEL_TOLERANCE
from ecsphys.shapes import Circle, Compound, OrientedRect, Polygon, Rect, Segment

PAIRS = list(itertools.product(KINDS, KINDS))
move = st.tuples(st.floats(-8, 8), st.floats(-8, 8))
place = st.tuples(st.floats(-4, 4), st.floats(-4, 4))


def at(p: tuple[float, float], m: tuple[float, float], t: float) -> tuple[float, float]:
    return (p[0] + m[0] * t, p[1] + m[1] * t)


@pytest.mark.parametrize(("ka", "kb"), PAIRS, ids=[f"{a.__name__}-{b.__name__}" for a, b in PAIRS])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_time_of_impact_is_the_first_touch(ka: type, kb: type, data: st.DataObject) -> None:
    a = data.draw(STRATEGIES[ka], "a")
    b = data.draw(STRATEGIES[kb], "b")
    pa, pb = data.draw(place, "pa"), data.draw(place, "pb")
    ma = data.draw(move, "move_a")
    mb = data.draw(st.one_of(st.just((0.0, 0.0)), move), "move_b")
    hit = time_of_impact(a, pa, ma, b, pb, mb)
    start = contact(a, pa, b, pb)
    rel = (ma[0] - mb[0], ma[1] - mb[1])
    if start is not None and (ka is Compound or kb is Compound):
        return  # the start rule applies per part pair: see test_compound_start_rule_per_part
    if start is not None:
        approaching = start.normal[0] * rel[0] + start.normal[1] * rel[1] > 0
        if ka is Circle and kb is Circle:
            ca, cb = at(pa, a.offset, 1.0), at(pb, b.offset, 1.0)
            if math.dist(ca, cb) <= ON_TOLERANCE:
                approaching = False  # coincident centres: every relative motion separates
        for circle, pc, seg, ps in ((a, pa, b, pb), (b, pb, a, pa)):
            if (
                isinstance(circle, Circle)
                and isinstance(seg, Segment)
                and point_gap(seg, ps, at(pc, circle.offset, 1.0)) <= ON_TOLERANCE
            ):
                # centre on the segment (a tolerance: a denormal off counts as on): the
                # contact normal is a convention, and any motion across the segment approaches
                ux, uy = seg.p2[0] - seg.p1[0], seg.p2[1] - seg.p1[1]
                cross = ux * rel[1] - uy * rel[0]
                approaching = abs(cross) > PARALLEL_TOLERANCE * math.hypot(ux, uy) * math.hypot(
                    *rel
                )
        assert (hit is not None) == approaching
        if hit is not None:
            assert hit[0] == 0.0
            assert hit[1].normal[0] * rel[0] + hit[1].normal[1] * rel[1] > 0  # into the move
        return
    samples = [i / 100 for i in range(101)]
    if hit is None:
        assert all(gap(a, at(pa, ma, s), b, at(pb, mb, s)) > -1e-7 for s in samples)
        return
    t, c = hit
    assert 0.0 <= t <= 1.0
    qa, qb = at(pa, ma, t), at(pb, mb, t)
    assert abs(gap(a, qa, b, qb)) <= 1e-6  # touching at t
    assert all(gap(a, at(pa, ma, s), b, at(pb, mb, s)) > -1e-7 for s in samples if s < t)
    assert math.isclose(math.hypot(*c.normal), 1.0, rel_tol=1e-9)
    assert -TOUCH_TOLERANCE <= c.depth <= 1e-6
    # the contact is where the shapes are at t
    assert gap(a, qa, Circle(1e-3), c.point) <= 1e-6
    assert gap(b, qb, Circle(1e-3), c.point) <= 1e-6
    # the normal points from a to b: pushing b along it separates them
    pushed = (qb[0] + c.normal[0] * 1e-3, qb[1] + c.normal[1] * 1e-3)
    assert not overlaps(a, qa, b, pushed) or gap(a, qa, b, pushed) > -1e-6


centre = st.tuples(st.floats(-3, 3), st.floats(-3, 3))
radius = st.floats(0.1, 2)


@settings(max_examples=300, deadline=None)
@given(centre, radius, move, centre, radius, move)
def test_toi_circle_circle_is_exact(ca, ra, ma, cb, rb, mb) -> None:
    hit = toi_circle_circle(ca, ra, ma, cb, rb, mb)

    def dist(t: float) -> float:
        return math.dist(at(ca, ma, t), at(cb, mb, t)) - ra - rb

    if dist(0) <= TOUCH_TOLERANCE:
        return
    if hit is None:
        # the closest approach over [0, 1] stays apart
        assert all(dist(i / 400) > -1e-9 for i in range(401))
        return
    t, n = hit
    assert abs(dist(t)) <= 1e-9
    pa, pb = at(ca, ma, t), at(cb, mb, t)
    assert n == pytest.approx(((pb[0] - pa[0]) / (ra + rb), (pb[1] - pa[1]) / (ra + rb)))
    assert all(dist(i / 400) > -1e-9 for i in range(401) if i / 400 < t)


@settings(max_examples=500, deadline=None)
@given(centre, radius, move, centre, radius, st.booleans())
def test_toi_circle_circle_finds_nothing_for_a_centre_leaving(ca, ra, ma, cb, rb, touching):
    # circle_circle_toi answers these first, before any square root (geometry/impact.pxd):
    # a circle whose centre moves away from a resting circle's, or along its side, meets it
    # never, whether they start apart, touching or overlapping
    if touching:  # (start exactly touching, or overlapping, where most resting pairs are)
        d = math.dist(ca, cb)
        assume(d > 1e-6)
        k = (ra + rb) * 0.999 / d
        cb = (ca[0] + (cb[0] - ca[0]) * k, ca[1] + (cb[1] - ca[1]) * k)
    px, py = ca[0] - cb[0], ca[1] - cb[1]
    leaving = px * ma[0] + py * ma[1] >= 0.0
    hit = toi_circle_circle(ca, ra, ma, cb, rb)
    if leaving:
        assert hit is None
    # and the other way: a centre moving in while they overlap is met at once
    inward = (-ma[0], -ma[1])
    if touching and (ma[0] or ma[1]) and px * inward[0] + py * inward[1] < 0.0:
        got = toi_circle_circle(ca, ra, inward, cb, rb)
        assert got is not None and got[0] == 0.0


@settings(max_examples=300, deadline=None)
@given(st.tuples(st.floats(-4, 4), st.floats(-4, 4)), st.floats(0.1, 2), move, segments())
def test_toi_circle_segment_is_exact(c, r, m, seg) -> None:
    p1, p2 = seg._verts
    hit = toi_circle_segment(c, r, m, p1, p2)
    circle = Circle(r)
    if contact(circle, c, seg, (0, 0)) is not None:
        return
    if hit is None:
        assert all(gap(circle, at(c, m, i / 200), seg, (0, 0)) > -1e-9 for i in range(201))
        return
    t, n = hit
    q = at(c, m, t)
    assert abs(gap(circle, q, seg, (0, 0))) <= 1e-9
    cc = contact(circle, q, seg, (0, 0))
    assert cc is not None and cc.normal == pytest.approx(n, abs=1e-6)


@settings(max_examples=300, deadline=None)
@given(st.tuples(st.floats(-4, 4), st.floats(-4, 4)), st.floats(0.1, 2), move, STRATEGIES[Rect])
def test_toi_circle_rect_is_exact(c, r, m, rect) -> None:
    hit = toi_circle_rect(c, r, m, rect.offset, rect.half_extents)
    circle = Circle(r)
    if contact(circle, c, rect, (0, 0)) is not None:
        return
    if hit is None:
        assert all(gap(circle, at(c, m, i / 200), rect, (0, 0)) > -1e-9 for i in range(201))
        return
    t, n = hit
    q = at(c, m, t)
    assert abs(gap(circle, q, rect, (0, 0))) <= 1e-9
    assert all(
        gap(circle, at(c, m, i / 200), rect, (0, 0)) > -1e-9 for i in range(201) if i / 200 < t
    )
    cc = contact(circle, q, rect, (0, 0))
    assert cc is not None and cc.normal == pytest.approx(n, abs=1e-6)


def test_known_analytic_times() -> None:
    assert toi_circle_circle((0, 0), 1, (10, 0), (5, 0), 1) == (0.3, (1.0, 0.0))
    assert toi_circle_circle((0, 0), 1, (5, 0), (5, 0), 1, (-5, 0)) == (0.3, (1.0, 0.0))
    assert toi_circle_circle((0, 0), 1, (10, 0), (5, 3), 1) is None
    assert toi_circle_segment((0, 0), 1, (10, 0), (5, -1), (5, 1)) == (0.4, (1.0, 0.0))
    t, n = toi_circle_rect((0, 0), 1, (10, 10), (5, 5), (1, 1))
    assert t == pytest.approx((4 - math.sqrt(0.5)) / 10)
    assert n == pytest.approx((math.sqrt(0.5), math.sqrt(0.5)))
    # the corner region of the grown box is not enough: the corner circle is missed
    assert toi_circle_rect((0, 1.95), 0.1, (10, 0), (5, 0), (1, 1)) is None


def test_touching_at_start_impacts_only_when_approaching() -> None:
    wall = Rect(2, 2)
    ball = Circle(1)
    assert time_of_impact(ball, (-2, 0), (1, 0), wall, (0, 0))[0] == 0.0  # type: ignore[index]
    assert time_of_impact(ball, (-2, 0), (-1, 0), wall, (0, 0)) is None  # separating
    assert time_of_impact(ball, (-2, 0), (0, 1), wall, (0, 0)) is None  # sliding along
    box = OrientedRect(1, 1, 0)
    assert time_of_impact(box, (-1.5, 0), (1, 0), wall, (0, 0))[0] == 0.0  # type: ignore[index]
    assert time_of_impact(box, (-1.4, 0), (-1, 0), wall, (0, 0)) is None


def test_compound_start_rule_per_part() -> None:
    pair = Compound([Circle(1), Circle(1, offset=(0, 1))])
    # the bar touches both circles; moving up it approaches the upper one: impact at 0
    hit = time_of_impact(Segment((0, 0), (1, 0)), (0, 0.5), (0, 1), pair, (0, 0))
    assert hit is not None and hit[0] == 0.0 and hit[1].normal == pytest.approx((0, 1))
    # moving far right it separates from both parts
    assert time_of_impact(Segment((0, 0), (1, 0)), (0, 0.5), (5, 0), pair, (0, 0)) is None
    # a part not touched at the start can still be hit later
    hit = time_of_impact(
        Circle(0.5), (0, -1.2), (0, -4), Compound([Circle(1), Rect(1, 1, offset=(0, -4))]), (0, 0)
    )
    assert hit is not None and hit[0] == pytest.approx((4 - 0.5 - 0.5 - 1.2) / 4)


@st.composite
def crossings(draw: st.DrawFn):
    """A thin wall and a thin mover whose path goes straight through the wall."""
    wall = draw(segments())
    (x1, y1), (x2, y2) = wall._verts
    u = draw(st.floats(0.05, 0.95))
    wx, wy = x1 + (x2 - x1) * u, y1 + (y2 - y1) * u
    ang = draw(st.floats(0, 2 * math.pi))
    dx, dy = math.cos(ang), math.sin(ang)
    ex, ey = (x2 - x1), (y2 - y1)
    assume(abs(dx * ey - dy * ex) > 0.05 * math.hypot(ex, ey))  # not along the wall
    before, after = draw(st.floats(0.01, 20)), draw(st.floats(0.01, 20))
    length = draw(st.floats(1e-3, 0.2))
    kind = draw(st.sampled_from(["segment", "sliver"]))
    spin = draw(st.floats(0, 360))
    if kind == "segment":
        c, s = math.cos(math.radians(spin)), math.sin(math.radians(spin))
        mover = Segment((-c * length / 2, -s * length / 2), (c * length / 2, s * length / 2))
    else:
        mover = OrientedRect(length, 1e-4, spin)
    start = (wx - dx * before, wy - dy * before)
    return wall, mover, start, (dx * (before + after), dy * (before + after))


@settings(max_examples=400, deadline=None)
@given(crossings())
def test_thin_mover_never_tunnels_through_thin_wall(case) -> None:
    wall, mover, start, m = case
    assume(contact(mover, start, wall, (0, 0)) is None)
    hit = time_of_impact(mover, start, m, wall, (0, 0))
    assert hit is not None
    assert binary_impact_search(mover, start, m, wall, (0, 0)) is not None
    # from the wall's point of view (the wall moves) the answer is the same time, up to the
    # search's tolerance: that is TOUCH_TOLERANCE in *distance*, so in t it is
    # TOUCH_TOLERANCE / |m| (a slow move of 0.02 allows 5e-8); both answers touch, with
    # nothing of the wall crossed before either
    hit2 = time_of_impact(wall, (0, 0), (-m[0], -m[1]), mover, start)
    assert hit2 is not None
    speed = math.hypot(*m)
    assert abs(hit2[0] - hit[0]) * speed <= 2 * TOUCH_TOLERANCE
    for t in (hit[0], hit2[0]):
        assert -1e-12 <= gap(mover, at(start, m, t), wall, (0, 0)) <= 2 * TOUCH_TOLERANCE


CONVEX = [Rect, OrientedRect, Segment, Polygon]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(CONVEX).flatmap(lambda k: STRATEGIES[k]),
    st.sampled_from(CONVEX).flatmap(lambda k: STRATEGIES[k]),
    place,
    place,
    move,
)
def test_binary_search_agrees_with_fine_linear_search(a, b, pa, pb, m) -> None:
    assume(not overlaps(a, pa, b, pb))
    steps = 1000
    t_lin = next(
        (i / steps for i in range(steps + 1) if overlaps(a, at(pa, m, i / steps), b, pb)), None
    )
    leaf = binary_impact_search(a, pa, m, b, pb)
    hit = time_of_impact(a, pa, m, b, pb)
    if t_lin is not None:
        assert leaf is not None and leaf[0] <= t_lin
        assert hit is not None and hit[0] <= t_lin
        # within the search's tolerance of the linear answer: a step, unless they graze
        assert hit[0] >= t_lin - 1 / steps - 1e-9 or abs(gap(a, at(pa, m, hit[0]), b, pb)) <= 1e-6
    if hit is not None:
        assert abs(gap(a, at(pa, m, hit[0]), b, pb)) <= 1e-6
        assert (leaf is not None) and leaf[0] <= hit[0] <= leaf[1]
    else:
        assert leaf is None and t_lin is None


def test_binary_search_leaf_is_short() -> None:
    box = OrientedRect(1, 1, 10)
    leaf = binary_impact_search(box, (0, 0), (100, 0), Rect(1, 10), (50, 0))
    assert leaf is not None
    t0, t1 = leaf
    assert (t1 - t0) * 100 < 0.25  # max(size / 4, 1/32) with size ~ 1
    assert t0 <= (50 - 0.5 - box.bounds()[2]) / 100 <= t1


# --- start conventions: coincident circles, a circle centre on a segment --------------------


@pytest.mark.parametrize("off", [0.0, 5e-324, 2.6e-203, 1e-12, 0.9 * ON_TOLERANCE])
@pytest.mark.parametrize("mv", [(0.0, 1.0), (-3.0, 0.5), (1e-300, 0.0), (0.0, 0.0)])
def test_coincident_circles_always_separate(off: float, mv: tuple[float, float]) -> None:
    """Every relative move separates coincident centres, also a denormal or up to
    ON_TOLERANCE apart."""
    assert toi_circle_circle((0.0, off), 1.0, mv, (0.0, 0.0), 0.5) is None
    assert time_of_impact(Circle(1.0), (0.0, off), mv, Circle(0.5), (0.0, 0.0)) is None
    assert time_of_impact(Circle(0.5), (0.0, 0.0), (0.0, 0.0), Circle(1.0), (0.0, off), mv) is None


@pytest.mark.parametrize("off", [0.0, 5e-324, 2.6e-203, -2.6e-203, 1e-12, -0.9 * ON_TOLERANCE])
@pytest.mark.parametrize(
    ("mv", "approaches"),
    [((0.0, 1.0), True), ((0.0, -1.0), True), ((3.0, -0.2), True), ((2.0, 0.0), False),
     ((-1e-20, 0.0), False), ((0.0, 0.0), False)],
)  # fmt: skip
def test_circle_centre_on_segment_approaches_unless_parallel(
    off: float, mv: tuple[float, float], approaches: bool
) -> None:
    """A centre on a segment (within ON_TOLERANCE: a denormal off counts as on) approaches
    under every move across the segment, normal facing the move; in both orders."""
    seg, circle = Segment((0.0, 0.0), (1.0, 0.0)), Circle(1.0)
    for hit in (  # a moves by mv in each: the normal (a to b) must point into mv
        time_of_impact(circle, (0.5, off), mv, seg, (0.0, 0.0)),
        time_of_impact(seg, (0.0, 0.0), mv, circle, (0.5, off)),
        time_of_impact(seg, (0.0, -off), mv, circle, (0.5, 0.0)),
        time_of_impact(seg, (0.0, -off), (0.0, 0.0), circle, (0.5, 0.0), (-mv[0], -mv[1])),
    ):
        assert (hit is not None) == approaches
        if hit is not None:
            assert hit[0] == 0.0
            assert hit[1].normal[0] * mv[0] + hit[1].normal[1] * mv[1] > 0
    s = toi_circle_segment((0.5, off), 1.0, mv, (0.0, 0.0), (1.0, 0.0))
    assert (s is not None) == approaches
    if s is not None:
        assert s[0] == 0.0
        assert s[1] == pytest.approx((0.0, math.copysign(1.0, mv[1])), abs=1e-12)


def test_circle_on_a_point_segment_separates() -> None:
    """A zero-length segment under the centre is a point: like coincident circles."""
    assert toi_circle_segment((1.0, 1.0), 1.0, (0.0, 1.0), (1.0, 1.0), (1.0, 1.0)) is None


# --- rect-rect: exact slab method ---------------------------------------------------------


def test_rect_rect_known_times() -> None:
    hit = time_of_impact(Rect(2, 2), (0, 0), (10, 0), Rect(2, 2), (5, 0))
    assert hit is not None
    assert hit[0] == pytest.approx(0.3 - REACH / 10, abs=1e-15)
    assert hit[1].normal == (1.0, 0.0) and -TOUCH_TOLERANCE <= hit[1].depth <= 0.0
    # both moving; b's offset counts
    hit = time_of_impact(Rect(2, 2), (0, 0), (5, 0), Rect(2, 2, offset=(1, 0)), (4, 0), (-5, 0))
    assert hit is not None and hit[0] == pytest.approx(0.3, abs=1e-9)
    assert time_of_impact(Rect(2, 2), (0, 0), (10, 0), Rect(2, 2), (5, 3)) is None
    # a corner touch, then sliding along with zero overlap (a graze the search must not skip)
    hit = time_of_impact(Rect(1, 1), (1, 0), (3.7e-232, 1), Rect(1, 1.375), (0, 2))
    assert hit is not None and hit[0] == pytest.approx(0.8125, abs=1e-8)
    assert toi_rect_rect((0, 0), (1, 1), (10, 0), (5, 0), (1, 1)) == pytest.approx(0.3, abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(STRATEGIES[Rect], STRATEGIES[Rect], place, place, move)
def test_rect_rect_exact_agrees_with_binary_search(a, b, pa, pb, m) -> None:
    """The slab time of impact lies in the leaf the seed's binary impact search finds."""
    assume(contact(a, pa, b, pb) is None)
    exact = time_of_impact(a, pa, m, b, pb)
    leaf = binary_impact_search(a, pa, m, b, pb)
    ca, cb = at(pa, a.offset, 1.0), at(pb, b.offset, 1.0)

    def grown(e: float) -> float | None:
        ha, hb = a.half_extents, b.half_extents
        return toi_rect_rect(ca, (ha[0] + e, ha[1] + e), m, cb, hb)

    if (grown(-2 * TOUCH_TOLERANCE) is None) != (grown(2 * TOUCH_TOLERANCE) is None):
        return  # they come within the tolerance but no closer: a graze, either answer is right
    assert (exact is None) == (leaf is None)
    if exact is None or leaf is None:
        return
    t, c = exact
    assert 0.0 <= t <= 1.0
    assert -TOUCH_TOLERANCE <= c.depth <= 0.0
    assert -1e-12 <= gap(a, at(pa, m, t), b, pb) <= 2 * TOUCH_TOLERANCE
    # the first touch lies in the first leaf that touches (to the tolerance in distance)
    slack = 4 * TOUCH_TOLERANCE / max(math.hypot(*m), 1e-300)
    assert leaf[0] - slack <= t <= leaf[1] + slack
