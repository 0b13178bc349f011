"""World queries on hand-built scenes: exact corners and edges, rays starting inside, zero-length
rays, shape casts, tile maps and masks, filters, what a query sees between steps, bad input,
and the broadphase's ``find`` against brute force. (Random scenes against a brute-force scan
are in test_queries_oracle.py.)"""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ecsphys as ep
from ecsphys import geometry
from ecsphys.broadphase import Grid, QuadTree, SweepAndPrune
from ecsphys.mask import Mask

BROADPHASES = ["grid", "sweep", "quadtree", "brute"]


def body(shape, pos, kind=ep.STATIC, **collider):
    return esper.create_entity(ep.Position(*pos), ep.Velocity(0, 0),
                               ep.Collider(kind, **collider), ep.Geometry(shape))


@pytest.fixture(params=BROADPHASES)
def physics(world, request):
    return ep.Physics(fixed_dt=1 / 60, broadphase=request.param)


def step():
    esper.process(1 / 60)


# ------------------------------------------------------------ rays: corners, edges, inside


def test_ray_through_a_corner_hits_it_exactly(physics):
    box = body(ep.Rect(2, 2), (0, 0))
    step()
    hit = physics.raycast((-2, -2), (2, 2))
    assert hit.entity == box
    assert hit.fraction == 0.25
    assert hit.point == (-1.0, -1.0)
    nx, ny = hit.normal
    assert math.hypot(nx, ny) == pytest.approx(1.0)
    assert nx * 4 + ny * 4 < 0  # it faces the ray


def test_ray_along_an_edge_touches_it_and_a_hair_above_misses(physics):
    box = body(ep.Rect(2, 2), (0, 0))
    step()
    hit = physics.raycast((-2, 1), (2, 1))  # along the top edge y = 1
    assert hit is not None and hit.entity == box and hit.fraction == 0.25
    assert physics.raycast((-2, 1.0000001), (2, 1.0000001)) is None


def test_ray_along_a_segment_hits_where_it_first_reaches_it(physics):
    seg = body(ep.Segment((0, 0), (1, 0)), (0, 0))
    step()
    hit = physics.raycast((-2, 0), (2, 0))
    assert (hit.entity, hit.fraction, hit.point) == (seg, 0.5, (0.0, 0.0))


def test_ray_starting_inside_hits_at_zero_facing_back(physics):
    inner = body(ep.Circle(1), (0, 0))
    outer = body(ep.Rect(1, 1), (3, 0))
    step()
    hit = physics.raycast((0.2, 0), (5, 0))
    assert hit == ep.Hit(inner, (0.2, 0.0), (-1.0, -0.0), 0.0)
    # leaving the caster out, the next body is hit
    hit = physics.raycast((0.2, 0), (5, 0), exclude={inner})
    assert hit.entity == outer and hit.point == pytest.approx((2.5, 0.0))
    assert hit.normal == pytest.approx((-1.0, 0.0))


def test_zero_length_ray_is_a_point_test(physics):
    a = body(ep.Circle(1), (0, 0))
    b = body(ep.Rect(1, 1), (0.5, 0))
    step()
    assert physics.raycast((0.5, 0), (0.5, 0)) == ep.Hit(min(a, b), (0.5, 0.0), (0.0, 0.0), 0.0)
    assert [h.entity for h in physics.raycast_all((0.5, 0), (0.5, 0))] == sorted([a, b])
    assert physics.raycast((5, 5), (5, 5)) is None


def test_first_hit_and_all_hits_in_order(physics):
    walls = [body(ep.Rect(0.5, 4), (x, 0)) for x in (6, 2, 4)]
    step()
    hit = physics.raycast((0, 0), (10, 0))
    assert hit.entity == walls[1] and hit.fraction == pytest.approx(0.175)
    hits = physics.raycast_all((0, 0), (10, 0))
    assert [h.entity for h in hits] == [walls[1], walls[2], walls[0]]
    assert [h.fraction for h in hits] == pytest.approx([0.175, 0.375, 0.575])
    # backwards
    assert physics.raycast((10, 0), (0, 0)).entity == walls[0]


def test_equal_fractions_go_to_the_lowest_entity(physics):
    a = body(ep.Rect(1, 1), (3, 0))
    b = body(ep.Rect(1, 1), (3, 0))
    step()
    assert physics.raycast((0, 0), (6, 0)).entity == min(a, b)
    assert physics.raycast((6, 0), (0, 0)).entity == min(a, b)


def test_long_rays_far_from_the_origin(physics):
    far = body(ep.Circle(1), (1e6, -2e6))
    body(ep.Rect(1, 1), (0, 0))
    step()
    hit = physics.raycast((1e6 - 5000, -2e6), (1e6 + 5000, -2e6))
    assert hit.entity == far
    assert hit.point == pytest.approx((1e6 - 1, -2e6))
    # a ray that misses the whole world
    assert physics.raycast((-1e7, 5e6), (1e7, 5e6)) is None


# ------------------------------------------------------------ shapes in motion


def test_cast_shape_stops_where_the_circle_first_touches(physics):
    wall = body(ep.Rect(1, 4), (5, 0))
    step()
    hit = physics.cast_shape(ep.Circle(0.5), (0, 0), (10, 0))
    assert hit.entity == wall
    assert hit.fraction == pytest.approx(0.4, abs=1e-9)
    assert hit.point == pytest.approx((4.5, 0.0), abs=1e-9)
    assert hit.normal == pytest.approx((-1.0, 0.0))
    assert physics.cast_shape(ep.Circle(0.5), (0, 3), (10, 3)) is None


def test_cast_shape_never_passes_a_thin_wall(physics):
    wall = body(ep.Segment((0, -1), (0, 1)), (5, 0))
    step()
    for shape in (ep.Rect(0.1, 0.1), ep.OrientedRect(0.2, 0.05, 33), ep.Circle(0.01),
                  ep.Polygon([(0, 0), (0.1, 0), (0, 0.1)])):
        hit = physics.cast_shape(shape, (0, 0.3), (1000, 0.3))
        assert hit is not None and hit.entity == wall, shape
        assert hit.fraction < 0.0051


def test_cast_shape_touching_at_the_start(physics):
    floor = body(ep.Rect(20, 1), (0, -0.5))  # top at y = 0
    step()
    crate = ep.Rect(1, 1)
    # resting on the floor: sliding along it or lifting off is no hit
    assert physics.cast_shape(crate, (0, 0.5), (5, 0.5)) is None
    assert physics.cast_shape(crate, (0, 0.5), (0, 3)) is None
    # moving into it is a hit at once
    hit = physics.cast_shape(crate, (0, 0.5), (1, 0))
    assert hit.entity == floor and hit.fraction == 0.0


def test_query_region_selection_box_and_blast_radius(physics):
    inside = body(ep.Circle(0.5), (1, 1))
    edge = body(ep.Rect(1, 1), (3.5, 0))  # its left side touches x = 3
    outside = body(ep.Circle(0.5), (10, 10))
    step()
    selected = physics.query_region(ep.Rect(6, 6), (0, 0))
    assert selected == sorted([inside, edge])
    assert outside not in physics.query_region(ep.Circle(5), (2, 2))
    assert physics.query_region(ep.Circle(5), (2, 2)) == sorted([inside, edge])
    assert physics.query_region(ep.Circle(1), (10, 12)) == []
    assert physics.query_region(ep.Circle(1), (10, 11.5)) == [outside]


@pytest.mark.parametrize("region", [
    ep.Circle(0.3), ep.Rect(0.5, 0.4), ep.OrientedRect(0.6, 0.3, 0.4),
    ep.Segment((-0.2, -0.1), (0.2, 0.1)), ep.Polygon([(-0.3, -0.2), (0.3, -0.2), (0, 0.3)]),
    ep.Compound([ep.Circle(0.2), ep.Rect(0.3, 0.3)], offset=(0.1, 0.0)),
    Mask(np.eye(4, dtype=bool), 0.1)])
def test_query_region_finds_a_tile_map_from_inside_its_solid_and_around_it(physics, region):
    # a region wholly inside solid tiles meets no edge, yet lies in the map (query_point
    # there found it, query_region did not); one holding the whole map finds it too (its
    # centre behind every edge); one in a dug tile, in an empty row or off the map does not
    tm = ep.TileMap(["#####", "#####", "##.##", "#####", "....."], 1.0)
    whole = ep.TileMap(["##", "##"], 0.5)
    level = body(tm, (0, 0))
    small = body(whole, (20, 20))
    step()
    assert physics.query_point(1.5, 3.5) == [level]
    assert physics.query_region(region, (1.5, 3.5)) == [level]  # inside the solid
    assert physics.query_region(region, (2.5, 2.5)) == []  # in the dug tile's middle
    assert physics.query_region(region, (2.5, 0.5)) == []  # in the empty bottom row
    assert physics.query_region(region, (-3.0, 2.5)) == []  # off the map
    assert physics.query_region(ep.Rect(2, 2), (20.5, 20.5)) == [small]  # holds it all
    tm[1, 1] = 0  # dug: the region there is in an empty tile now
    step()
    assert physics.query_region(region, (1.5, 3.5)) == []


def test_query_shapes_do_not_grow_the_store(physics):
    body(ep.Circle(0.5), (0, 0))
    step()
    store = physics.table.store
    before = (store.leaves, store.nverts, store.nfaces, len(store))
    for r in np.linspace(0.1, 3, 200):
        physics.query_region(ep.Circle(float(r)), (0, 0))
        physics.cast_shape(ep.Polygon([(0, 0), (float(r), 0), (0, 1)]), (-5, 0), (5, 0))
    assert (store.leaves, store.nverts, store.nfaces, len(store)) == before
    # a query shape equal to a body's shape is used in place and stays
    assert physics.query_region(ep.Circle(0.5), (0.9, 0)) != []
    assert (store.leaves, len(store)) == before[::3]


# ------------------------------------------------------------ tile maps and masks


def test_tile_map_rays_and_points(physics):
    level = body(ep.TileMap(["#..#", "....", "####"], 1.0), (0, 0))  # rows from the top
    step()
    hit = physics.raycast((2, 2.5), (2, -5))  # down the open column onto the floor y = 1
    assert hit.entity == level and hit.point == pytest.approx((2.0, 1.0))
    assert hit.normal == pytest.approx((0.0, 1.0))
    hit = physics.raycast((1.5, 2.5), (10, 2.5))  # right, into the top-right tile
    assert hit.point == pytest.approx((3.0, 2.5)) and hit.normal == pytest.approx((-1.0, 0))
    assert physics.query_point(0.5, 0.5) == [level]  # inside a solid tile
    assert physics.query_point(2.0, 1.5) == []  # in the open
    assert physics.query_region(ep.Circle(0.3), (2, 1.5)) == []
    assert physics.query_region(ep.Circle(0.6), (2, 1.5)) == [level]


@settings(max_examples=150)
@given(seed=st.integers(0, 2**32 - 1), length=st.sampled_from([0.5, 3.0, 40.0, 400.0]))
def test_rays_through_a_tile_map_match_the_edges_one_by_one(seed, length):
    """A tile map's ray walks the map a few tiles at a time: the hit is the first of its edges,
    tested one by one (bit for bit), for short and very long rays; a ray that starts in a solid
    tile hits at once, as point_in says it is inside."""
    rng = np.random.default_rng(seed)
    solid = rng.random((rng.integers(1, 30), rng.integers(1, 30))) < 0.3
    solid[0, 0] = True  # a map has a solid tile
    tm = ep.TileMap(solid.astype(int), float(rng.choice([0.5, 1.0, 2.0])),
                    origin=tuple(rng.uniform(-10, 10, 2)))
    x0, y0, x1, y1 = tm.bounds()
    edges = [ep.Segment(p0, p1) for p0, p1, _face in tm.edges]  # the oracle's, made once
    for _ in range(10):
        o = rng.uniform((x0 - 3, y0 - 3), (x1 + 3, y1 + 3))
        d = rng.normal(size=2)
        d *= length / np.linalg.norm(d)
        got = geometry.raycast(tm, (0.0, 0.0), tuple(o), tuple(d), 1.0)
        cell = tm.cell_at(*o)
        if cell is not None and tm[cell]:  # starts inside: t = 0, the normal facing back
            assert got[0] == 0.0 and got[1] == pytest.approx(tuple(-d / np.linalg.norm(d)))
            continue
        best = None
        for edge in edges:
            hit = geometry.raycast(edge, (0.0, 0.0), tuple(o), tuple(d), 1.0)
            if hit is not None and (best is None or hit[0] < best[0]):
                best = hit
        if best is None:
            assert got is None
        else:
            assert got is not None and got[0] == best[0], (got, best)


def test_masks_answer_by_pixels(physics):
    pixels = np.zeros((8, 8), dtype=bool)
    pixels[:, :4] = True  # the left half is solid
    sprite = body(Mask(pixels), (0, 0))  # 8 x 8 pixels centred on the origin
    step()
    assert physics.query_point(-2, 0) == [sprite]
    assert physics.query_point(2, 0) == []
    hit = physics.raycast((3.5, 0.5), (-10, 0.5))
    assert hit.entity == sprite and hit.point[0] == pytest.approx(0.0, abs=1e-9)


# ------------------------------------------------------------ filters


def test_layers_sensors_and_exclude(world):
    layers = ep.Layers("wall", "enemy", "pickup")
    physics = ep.Physics(layers=layers)
    wall = body(ep.Rect(1, 4), (5, 0), layer=layers.wall)
    enemy = body(ep.Circle(0.5), (3, 0), ep.ACTIVE, layer=layers.enemy)
    zone = body(ep.Circle(1), (1, 0), sensor=True, layer=layers.pickup)
    step()
    assert physics.raycast((0, 0), (10, 0)).entity == enemy
    assert physics.raycast((0, 0), (10, 0), sensors=True).entity == zone
    assert physics.raycast((0, 0), (10, 0), mask=layers.wall).entity == wall
    assert physics.raycast((0, 0), (10, 0), mask="wall").entity == wall
    assert physics.raycast((0, 0), (10, 0), mask=("wall", "pickup"), sensors=True).entity == zone
    assert physics.raycast((0, 0), (10, 0), exclude=enemy).entity == wall
    assert physics.raycast((0, 0), (10, 0), exclude=[enemy, wall]) is None
    assert physics.query_point(1, 0) == []
    assert physics.query_point(1, 0, sensors=True) == [zone]
    assert physics.query_region(ep.Rect(20, 20), (0, 0), mask=0) == []


def test_bodies_without_a_collider_are_not_seen(world):
    physics = ep.Physics()
    esper.create_entity(ep.Position(0, 0), ep.Velocity(0, 0), ep.Geometry(ep.Circle(1)))
    step()
    assert physics.query_point(0, 0) == []
    assert physics.raycast((-5, 0), (5, 0)) is None


def test_raycast_many_matches_single_rays_with_ignore(physics):
    rng = np.random.default_rng(7)
    agents = [body(ep.Circle(0.4), tuple(rng.uniform(-10, 10, 2)), ep.ACTIVE) for _ in range(30)]
    for _ in range(20):
        body(ep.Rect(*rng.uniform(0.5, 3, 2)), tuple(rng.uniform(-10, 10, 2)))
    step()
    pos = np.array([esper.component_for_entity(a, ep.Position).xy for a in agents])
    target = np.tile([[0.0, 0.0]], (len(agents), 1))
    hits = physics.raycast_many(pos, target, ignore=agents)
    for i, a in enumerate(agents):
        one = physics.raycast(tuple(pos[i]), (0, 0), exclude=a)
        if one is None:
            assert not hits.hit[i] and hits.entity[i] == -1 and hits.fraction[i] == 1.0
            assert tuple(hits.point[i]) == (0.0, 0.0) and tuple(hits.normal[i]) == (0, 0)
        else:
            assert hits.hit[i] and hits.entity[i] == one.entity
            assert hits.fraction[i] == one.fraction
            assert tuple(hits.point[i]) == pytest.approx(one.point, abs=1e-12)
            assert tuple(hits.normal[i]) == one.normal
    assert physics.raycast_many(np.zeros((0, 2)), np.zeros((0, 2))).hit.shape == (0,)


def test_line_of_sight_past_walls_and_other_guards(physics):
    player = body(ep.Circle(0.5), (0, 0), ep.ACTIVE)
    body(ep.Rect(1, 6), (5, 0))  # a wall on the right
    guards = [body(ep.Circle(0.5), xy, ep.ACTIVE)
              for xy in [(10, 0), (-10, 0), (0, 10), (10, 10), (-4, 0)]]
    step()
    eyes = np.array([esper.component_for_entity(g, ep.Position).xy for g in guards])
    rays = physics.raycast_many(eyes, np.zeros_like(eyes), ignore=guards)
    sees = [g for i, g in enumerate(guards) if rays.entity[i] == player]
    # (10, 0) is behind the wall, (-10, 0) behind the guard at (-4, 0)
    assert sees == [guards[2], guards[3], guards[4]]


# ------------------------------------------------------------ what a query sees, and when


def test_positions_written_since_the_step_are_seen(physics):
    ball = body(ep.Circle(0.5), (0, 0), ep.ACTIVE)
    wall = body(ep.Rect(1, 1), (0, 5))
    step()
    esper.component_for_entity(ball, ep.Position).xy = (20, 20)
    esper.component_for_entity(wall, ep.Position).xy = (-20, 0)
    assert physics.query_point(0, 0) == []
    assert physics.query_point(20, 20) == [ball]
    assert physics.query_point(-20, 0) == [wall]
    assert physics.raycast((0, -10), (0, 10)) is None
    esper.component_for_entity(ball, ep.Geometry).shape = ep.Circle(3)
    assert physics.query_point(22.5, 20) == [ball]
    step()  # the index catches up; the answers stay
    assert physics.query_point(20, 20) == [ball] and physics.query_point(-20, 0) == [wall]
    # the compiled indexes cover both again; the brute force has no index (all on their own)
    assert physics.queries.escaped == (2 if physics._broadphase.name == "brute" else 0)


def test_bodies_are_seen_from_the_step_that_adopts_them_until_the_one_after_deletion(physics):
    a = body(ep.Circle(1), (0, 0))
    assert physics.query_point(0, 0) == []  # not adopted before the first step
    step()
    assert physics.query_point(0, 0) == [a]
    b = body(ep.Circle(1), (0.5, 0))
    assert physics.query_point(0.5, 0) == [a]
    step()
    assert physics.query_point(0.5, 0) == sorted([a, b])
    esper.delete_entity(a, immediate=True)
    assert physics.query_point(0.5, 0) == sorted([a, b])  # until the next step
    step()
    assert physics.query_point(0.5, 0) == [b]


def test_moving_bodies_are_found_where_the_step_left_them(physics):
    rng = np.random.default_rng(3)
    balls = [esper.create_entity(ep.Position(*rng.uniform(-5, 5, 2)),
                                 ep.Velocity(*rng.uniform(-30, 30, 2)),
                                 ep.AccelerationMap(g=(0, -9.8)), ep.Collider(ep.PASSIVE),
                                 ep.Geometry(ep.Circle(0.3))) for _ in range(40)]
    for x0, y0, x1, y1 in [(-8, -8, 8, -7), (-8, 7, 8, 8), (-8, -8, -7, 8), (7, -8, 8, 8)]:
        body(ep.Rect(x1 - x0, y1 - y0), ((x0 + x1) / 2, (y0 + y1) / 2))
    for _ in range(30):
        step()
        for b in balls:
            x, y = esper.component_for_entity(b, ep.Position).xy
            assert b in physics.query_point(x, y)
            assert b in physics.query_region(ep.Circle(0.01), (x + 0.3, y))


# ------------------------------------------------------------ bad input


@pytest.mark.parametrize("call, error, match", [
    (lambda p: p.query_point(math.nan, 0), ValueError, "x"),
    (lambda p: p.query_point(0, math.inf), ValueError, "y"),
    (lambda p: p.query_point("a", 0), TypeError, "x"),
    (lambda p: p.raycast((math.nan, 0), (1, 1)), ValueError, "start.x"),
    (lambda p: p.raycast((0, 0), (1, math.inf)), ValueError, "end.y"),
    (lambda p: p.raycast((0, 0), (1, 1, 1)), ValueError, "end"),
    (lambda p: p.raycast_all(0, (1, 1)), TypeError, "start"),
    (lambda p: p.query_region(ep.Circle(1), (0, math.nan)), ValueError, "position.y"),
    (lambda p: p.query_region("circle", (0, 0)), TypeError, "shape"),
    (lambda p: p.query_region(ep.TileMap(["#"], 1.0), (0, 0)), TypeError, "shape"),
    (lambda p: p.cast_shape(ep.Circle(1), (0, 0), (math.nan, 0)), ValueError, "end.x"),
    (lambda p: p.query_point(0, 0, mask=-1), ValueError, "mask"),
    (lambda p: p.query_point(0, 0, mask=1.5), TypeError, "mask"),
    (lambda p: p.query_point(0, 0, mask="wall"), TypeError, "layers"),
    (lambda p: p.query_point(0, 0, exclude=["a"]), TypeError, "exclude"),
    (lambda p: p.query_point(0, 0, exclude=1.5), TypeError, "exclude"),
    (lambda p: p.query_point(0, 0, sensors=1), TypeError, "sensors"),
    (lambda p: p.raycast_many([[0, 0]], [[1, 1], [2, 2]]), ValueError, "same shape"),
    (lambda p: p.raycast_many([[0, 0, 0]], [[1, 1, 1]]), ValueError, "starts"),
    (lambda p: p.raycast_many([[0, 0]], [[math.nan, 1]]), ValueError, r"ends\[0\]"),
    (lambda p: p.raycast_many([[0, 0]], [[1, 1]], ignore=[1, 2]), ValueError, "ignore"),
    (lambda p: p.raycast_many([[0, 0]], [[1, 1]], ignore=[1.5]), ValueError, "ignore"),
])
def test_bad_input_is_refused_naming_it(world, call, error, match):
    physics = ep.Physics()
    body(ep.Circle(1), (0, 0))
    step()
    store = physics.table.store
    before = (store.leaves, len(store))
    with pytest.raises(error, match=match):
        call(physics)
    assert (store.leaves, len(store)) == before
    assert physics.query_point(0, 0) != []


# ------------------------------------------------------------ the broadphase's find


@pytest.mark.parametrize("cls", [Grid, SweepAndPrune, QuadTree])
def test_find_box_matches_brute_force(cls):
    rng = np.random.default_rng(11)
    for _ in range(60):
        n, m = rng.integers(0, 50, 2)
        dlo = rng.uniform(-20, 20, (n, 2))
        dhi = dlo + rng.exponential(rng.choice([0.5, 3.0]), (n, 2))
        slo = rng.uniform(-20, 20, (m, 2))
        shi = slo + rng.exponential(rng.choice([0.5, 3.0, 15.0]), (m, 2))
        index = cls()
        index.set_static(slo, shi)
        index.query(dlo, dhi)
        assert index.n_last == n
        for _ in range(10):
            q0 = rng.uniform(-25, 25, 2)
            q1 = q0 + rng.exponential(rng.choice([0.1, 2.0, 20.0]), 2)
            ids, static = index.find_box(q0, q1)
            want_d = [i for i in range(n) if (dlo[i] <= q1).all() and (q0 <= dhi[i]).all()]
            want_s = [i for i in range(m) if (slo[i] <= q1).all() and (q0 <= shi[i]).all()]
            assert sorted(ids[~static].tolist()) == want_d  # each once
            assert sorted(ids[static].tolist()) == want_s
        index.query(np.zeros((0, 2)), np.zeros((0, 2)))  # an empty run: no dynamic box left
        ids, static = index.find_box((-100, -100), (100, 100))
        assert not (~static).any() and sorted(ids.tolist()) == list(range(m))
