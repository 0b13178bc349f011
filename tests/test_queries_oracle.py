"""World queries against a brute-force oracle: every body, the public shape-level functions.

What these tests show: on random scenes (every shape kind, tile maps and pixel masks
included; STATIC, PASSIVE and ACTIVE bodies, sensors, layers, velocities and gravity, bodies
without a Collider) stepped a few frames with each broadphase, ``query_point``, ``raycast``,
``raycast_all``, ``query_region``, ``cast_shape`` and ``raycast_many`` answer exactly (same
entities, fractions, normals and points, bit for bit) what a scan over every body with
``geometry.point_in``, ``geometry.raycast``, ``geometry.overlaps`` and
``geometry.time_of_impact`` answers (a region against a tile map: ``geometry.overlaps``
with each of its solid tiles' squares, so a region inside the solid or holding the whole
map finds it):

- after the steps; after the game moved bodies (static ones too, near and far), replaced
  shapes and changed layers, sensors and kinds, without a step; after another step; after
  bodies were deleted and a step ran (they are gone, the rest still answer right);
- with filters: layer masks (0 and ALL included), sets of excluded entities (and a single
  one, and ones that do not exist), sensors seen or not; bodies without a Collider never;
- rays that start inside bodies, zero-length rays (a point test: fraction 0, normal (0, 0),
  the lowest entity), rays far outside the scene and long ones across it, exact ties (the
  lowest entity wins; ``raycast_all`` is sorted by fraction, then entity);
- ``raycast_many`` is ``raycast`` in a loop with ``exclude | {ignore[i]}``;
- crowds (pushes, platforms of infinite mass carrying bodies past their swept boxes), static
  twins made first and last (exact ties between entities far apart, rows reordered by
  deletions), scenes far from the origin (1e7: a coordinate's rounding exceeds
  TOUCH_TOLERANCE), many small bodies under long rays and casts (many march chunks);
- layer names as masks when the physics has `Layers`;
- a ray shorter than about 1.5e-162 (its length squared underflows) is still a ray, not a
  point test.

The thing under test is the candidate search (the step's index, bodies moved since it,
filters), not the geometry: both sides use the same compiled routines.
"""

from __future__ import annotations

import itertools
import math

import esper
import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ecsphys as ep
from ecsphys import geometry
from ecsphys.mask import Mask
from ecsphys.queries.world_queries import Hit

DT = 1 / 60
BROADPHASES = ("grid", "sweep", "quadtree", "brute")
ALL = ep.ALL
NOBODY = 10**9  # an entity that does not exist (exclude must accept it)

_worlds = itertools.count()


# ------------------------------------------------------------------ strategies

# quarter units give exact ties (two bodies met at the same fraction); floats the rest
coord = st.one_of(st.integers(-160, 160).map(lambda q: q / 4),
                  st.floats(-40.0, 40.0, allow_nan=False, allow_infinity=False))
size = st.one_of(st.integers(1, 24).map(lambda q: q / 4),
                 st.floats(0.2, 6.0, allow_nan=False, allow_infinity=False))
small = st.integers(-8, 8).map(lambda q: q / 4)
offset = st.one_of(st.just((0.0, 0.0)), st.tuples(small, small))


def _polygon(n: int, r: float, rot: float, sx: float, sy: float,
             off: tuple[float, float]) -> ep.Shape:
    """A regular n-gon stretched by (sx, sy) and turned: convex."""
    pts = [(r * sx * math.cos(rot + 2 * math.pi * k / n),
            r * sy * math.sin(rot + 2 * math.pi * k / n)) for k in range(n)]
    try:
        return ep.Polygon(pts, offset=off)
    except ValueError:
        return ep.Polygon([(0.0, 0.0), (r, 0.0), (0.0, r)], offset=off)


@st.composite
def masks(draw, max_side: int = 6) -> Mask:
    px = draw(hnp.arrays(np.bool_, st.tuples(st.integers(1, max_side),
                                             st.integers(1, max_side))))
    if not px.any():
        px[0, 0] = True
    scale = draw(st.sampled_from([0.25, 0.5, 1.0, 1.5]))
    return Mask(px, scale=scale, offset=draw(offset))


@st.composite
def leaves(draw, with_mask: bool = True) -> ep.Shape:
    kinds = ["circle", "rect", "orect", "segment", "polygon"] + (["mask"] if with_mask else [])
    kind = draw(st.sampled_from(kinds))
    off = draw(offset)
    if kind == "circle":
        return ep.Circle(draw(size) / 2 + 0.1, offset=off)
    if kind == "rect":
        return ep.Rect(draw(size), draw(size), offset=off)
    if kind == "orect":
        return ep.OrientedRect(draw(size), draw(size), draw(st.integers(-180, 180)), offset=off)
    if kind == "segment":
        p1 = draw(st.tuples(small, small))
        d = draw(st.tuples(size, st.floats(-6.0, 6.0)))
        if draw(st.booleans()):
            d = (d[0], 0.0)  # axis-aligned: rays along it, exact ties
        return ep.Segment(p1, (p1[0] + d[0], p1[1] + d[1]), offset=off)
    if kind == "polygon":
        return _polygon(draw(st.integers(3, 7)), draw(size) / 2 + 0.2,
                        draw(st.floats(0.0, 2 * math.pi)), draw(st.floats(0.5, 1.5)),
                        draw(st.floats(0.5, 1.5)), off)
    return draw(masks())


@st.composite
def shapes(draw, with_mask: bool = True) -> ep.Shape:
    """Any shape but a TileMap: a leaf, or a compound of two or three (maybe nested)."""
    if draw(st.integers(0, 5)) > 0:
        return draw(leaves(with_mask))
    parts = draw(st.lists(leaves(with_mask), min_size=2, max_size=3))
    if draw(st.booleans()):
        parts[0] = ep.Compound([parts[0], draw(leaves(with_mask))], offset=draw(offset))
    return ep.Compound(parts, offset=draw(offset))


@st.composite
def tilemaps(draw) -> ep.TileMap:
    grid = draw(hnp.arrays(np.bool_, st.tuples(st.integers(2, 5), st.integers(2, 8))))
    if not grid.any():
        grid[-1, :] = True
    size_ = draw(st.sampled_from([0.5, 1.0, 2.0, 2.5]))
    return ep.TileMap(grid, size_, origin=draw(st.tuples(small, small)))


@st.composite
def bodies(draw) -> dict:
    kind = draw(st.sampled_from([ep.STATIC, ep.PASSIVE, ep.ACTIVE]))
    return {
        "shape": draw(shapes()),
        "pos": (draw(coord), draw(coord)),
        "kind": kind,
        "layer": draw(st.sampled_from([1, 1, 2, 4, 3, 6, 8])),
        "mask": draw(st.sampled_from([ALL, ALL, 1, 6, 0])),
        "sensor": draw(st.integers(0, 5)) == 0,
        "vel": (draw(st.floats(-20, 20)), draw(st.floats(-20, 20))),
        "gravity": draw(st.booleans()),
        # an ACTIVE body of infinite mass is a platform: it pushes and carries the others
        "mass": math.inf if kind == ep.ACTIVE and draw(st.integers(0, 7)) == 0 else 1.0,
    }


@st.composite
def scenes(draw) -> dict:
    n = draw(st.one_of(st.integers(5, 80), st.sampled_from([20, 40, 80])), label="bodies")
    return {
        "bodies": draw(st.lists(bodies(), min_size=n, max_size=n)),
        # a crowd (positions squeezed together: pushes, carries, bodies leaving their swept
        # boxes) or a spread-out scene
        "squeeze": draw(st.sampled_from([1.0, 1.0, 0.25])),
        # where the scene is: around (0, 0), or far from it (there a coordinate's rounding
        # is larger than TOUCH_TOLERANCE)
        "origin": draw(st.sampled_from([(0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (-2.5e5, 1.25e5),
                                        (1e7, -3e7)])),
        # static twins, one made first and one last: exact ties between far-apart entities
        "twins": draw(st.lists(st.tuples(shapes(), st.tuples(coord, coord),
                                         st.sampled_from([1, 2, 3])), max_size=3)),
        "tilemaps": draw(st.lists(st.tuples(tilemaps(), st.tuples(coord, coord)), max_size=2)),
        # a body with a Position and a Geometry but no Collider: never seen
        "ghosts": draw(st.lists(st.tuples(shapes(), st.tuples(coord, coord)), max_size=2)),
        "steps": draw(st.integers(1, 4)),
    }


masks_q = st.one_of(st.just(ALL), st.sampled_from([ALL, 0, 1, 2, 4, 3, 6, 8, 0xFFFFFFFE]))


# ------------------------------------------------------------------ the world


class Scene:
    """One esper world with a Physics; remembers which entities the physics adopted."""

    def __init__(self, spec: dict, broadphase: str) -> None:
        self.name = f"queries-oracle-{next(_worlds)}"
        self.previous = esper.current_world
        esper.switch_world(self.name)
        self.physics = ep.Physics(fixed_dt=DT, broadphase=broadphase)
        self.pending: set[int] = set()   # created since the last step
        self.adopted: set[int] = set()
        self.tilemap_entities: set[int] = set()
        squeeze = spec.get("squeeze", 1.0)
        twins = spec.get("twins", [])
        self.origin = ox, oy = spec.get("origin", (0.0, 0.0))

        def place(pos):
            return ep.Position(ox + pos[0] * squeeze, oy + pos[1] * squeeze)

        def twin(shape, pos, layer):
            self.pending.add(esper.create_entity(
                place(pos),
                ep.Collider(ep.STATIC, layer=layer), ep.Geometry(shape)))

        for t in twins:
            twin(*t)
        for b in spec["bodies"]:
            comps = [place(b["pos"]),
                     ep.Collider(b["kind"], layer=b["layer"], mask=b["mask"],
                                 sensor=b["sensor"], mass=b.get("mass", 1.0)),
                     ep.Geometry(b["shape"])]
            if b["kind"] != ep.STATIC:
                comps.append(ep.Velocity(*b["vel"]))
                if b["gravity"]:
                    comps.append(ep.AccelerationMap(gravity=(0.0, -9.8)))
            self.pending.add(esper.create_entity(*comps))
        for tm, pos in spec["tilemaps"]:
            e = esper.create_entity(place(pos), ep.Collider(ep.STATIC), ep.Geometry(tm))
            self.pending.add(e)
            self.tilemap_entities.add(e)
        for shape, pos in spec["ghosts"]:
            self.pending.add(esper.create_entity(place(pos), ep.Velocity(1.0, 0.0),
                                                 ep.Geometry(shape)))
        for t in twins:
            twin(*t)

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            before = self.physics.steps
            esper.process(DT)
            assert self.physics.steps == before + 1
            self.adopted |= {e for e in self.pending if esper.entity_exists(e)}
            self.pending.clear()
            self.adopted = {e for e in self.adopted if esper.entity_exists(e)}

    def close(self) -> None:
        esper.switch_world(self.previous if self.previous != self.name else "default")
        esper.delete_world(self.name)

    def entities(self) -> list[int]:
        return sorted(e for e in self.adopted | self.pending if esper.entity_exists(e))

    def colliders(self) -> list[int]:
        return [e for e in self.entities() if esper.has_component(e, ep.Collider)]

    def bodies(self) -> list[tuple[int, ep.Shape, tuple[float, float], int, bool]]:
        """Every adopted body with a Collider and a Geometry, as it is now, by entity."""
        out = []
        for e in sorted(self.adopted):
            if not esper.entity_exists(e):
                continue
            if not (esper.has_component(e, ep.Collider)
                    and esper.has_component(e, ep.Geometry)):
                continue
            col = esper.component_for_entity(e, ep.Collider)
            shape = esper.component_for_entity(e, ep.Geometry).shape
            pos = esper.component_for_entity(e, ep.Position).xy
            out.append((e, shape, pos, col.layer, col.sensor))
        return out

    def points(self) -> list[tuple[float, float]]:
        """Places worth probing: body centres and the corners of their boxes."""
        pts = []
        for _, shape, (x, y), _, _ in self.bodies():
            x0, y0, x1, y1 = shape.bounds()
            pts += [(x, y), (x + x0, y + y0), (x + x1, y + y1), (x + x0, y + y1)]
        return pts or [(0.0, 0.0)]


# ------------------------------------------------------------------ the oracle


def _visible(bodies, mask, exclude, sensors):
    ex = {exclude} if isinstance(exclude, int) else set(exclude)
    return [b for b in bodies
            if (b[3] & mask) != 0 and (sensors or not b[4]) and b[0] not in ex]


def brute_point(bodies, x, y, mask=ALL, exclude=(), sensors=False):
    return sorted(e for e, shape, pos, _, _ in _visible(bodies, mask, exclude, sensors)
                  if geometry.point_in(shape, pos, (x, y)))


def brute_ray_hits(bodies, start, end, mask=ALL, exclude=(), sensors=False):
    """Every body the segment meets, sorted by (fraction, entity)."""
    (ox, oy), (ex, ey) = start, end
    dx, dy = ex - ox, ey - oy
    hits = []
    for e, shape, pos, _, _ in _visible(bodies, mask, exclude, sensors):
        if dx == 0.0 and dy == 0.0:
            if geometry.point_in(shape, pos, (ox, oy)):
                hits.append(Hit(e, (ox + dx * 0.0, oy + dy * 0.0), (0.0, 0.0), 0.0))
            continue
        r = geometry.raycast(shape, pos, (ox, oy), (dx, dy), 1.0)
        if r is not None:
            t, (nx, ny) = r
            hits.append(Hit(e, (ox + dx * t, oy + dy * t), (nx, ny), t))
    hits.sort(key=lambda h: (h.fraction, h.entity))
    return hits


def brute_ray(bodies, start, end, mask=ALL, exclude=(), sensors=False):
    hits = brute_ray_hits(bodies, start, end, mask, exclude, sensors)
    return hits[0] if hits else None


def _region_meets(shape, position, s, pos):
    """``geometry.overlaps``; for a tile map, whether the region meets one of its solid
    tiles' squares (a region inside the solid, or holding the whole map, meets it)."""
    if not isinstance(s, ep.TileMap):
        return geometry.overlaps(shape, position, s, pos)
    for row, col in zip(*np.nonzero(s.grid), strict=True):
        x0, y0, x1, y1 = s.tile_box(int(row), int(col))
        square = ep.Rect(x1 - x0, y1 - y0)
        if geometry.overlaps(shape, position, square,
                             (pos[0] + (x0 + x1) / 2, pos[1] + (y0 + y1) / 2)):
            return True
    return False


def brute_region(bodies, shape, position, mask=ALL, exclude=(), sensors=False):
    return sorted(e for e, s, pos, _, _ in _visible(bodies, mask, exclude, sensors)
                  if _region_meets(shape, position, s, pos))


def brute_cast(bodies, shape, start, end, mask=ALL, exclude=(), sensors=False):
    move = (end[0] - start[0], end[1] - start[1])
    best = None
    for e, s, pos, _, _ in _visible(bodies, mask, exclude, sensors):
        r = geometry.time_of_impact(shape, start, move, s, pos, (0.0, 0.0))
        if r is None:
            continue
        t, c = r
        if best is None or (t, e) < (best.fraction, best.entity):
            best = Hit(e, c.point, (-c.normal[0], -c.normal[1]), t)
    return best


# ------------------------------------------------------------------ drawing queries


def _point(data, scene: Scene, label: str) -> tuple[float, float]:
    choice = data.draw(st.integers(0, 3), label=f"{label} kind")
    ox, oy = scene.origin
    if choice == 0:
        x, y = data.draw(st.tuples(coord, coord), label=label)
        return (ox + x, oy + y)
    if choice == 1:  # far around the scene
        x, y = data.draw(st.tuples(st.floats(-120, 120), st.floats(-120, 120)), label=label)
        return (ox + x, oy + y)
    p = data.draw(st.sampled_from(scene.points()), label=label)
    if choice == 2:
        return p
    jitter = data.draw(st.tuples(st.floats(-0.5, 0.5), st.floats(-0.5, 0.5)), label="jitter")
    return (p[0] + jitter[0], p[1] + jitter[1])


def _segment(data, scene: Scene, label: str):
    start = _point(data, scene, f"{label} start")
    how = data.draw(st.integers(0, 5), label=f"{label} end kind")
    if how == 0:
        return start, start  # zero length: a point test
    if how == 1:  # straight across the whole scene through the start
        ang = data.draw(st.floats(0.0, 2 * math.pi), label=f"{label} angle")
        return ((start[0] - 150 * math.cos(ang), start[1] - 150 * math.sin(ang)),
                (start[0] + 150 * math.cos(ang), start[1] + 150 * math.sin(ang)))
    if how == 2:  # axis-aligned: along faces, exact ties
        d = data.draw(st.sampled_from([(30.0, 0.0), (-30.0, 0.0), (0.0, 30.0), (0.0, -30.0)]),
                      label=f"{label} axis")
        return start, (start[0] + d[0], start[1] + d[1])
    return start, _point(data, scene, f"{label} end")


def _filters(data, scene: Scene, label: str) -> dict:
    ents = scene.entities()
    mask = data.draw(masks_q, label=f"{label} mask")
    sensors = data.draw(st.booleans(), label=f"{label} sensors")
    how = data.draw(st.integers(0, 3), label=f"{label} exclude kind")
    if how == 0:
        exclude: object = ()
    elif how == 1:
        exclude = data.draw(st.sampled_from(ents), label=f"{label} exclude")
    else:
        exclude = data.draw(st.sets(st.sampled_from(ents + [NOBODY]), max_size=6),
                            label=f"{label} exclude")
        if how == 3:
            exclude = sorted(exclude, reverse=True)  # any iterable, any order
    return {"mask": mask, "exclude": exclude, "sensors": sensors}


# ------------------------------------------------------------------ checking every query


def check_queries(data, scene: Scene, rounds: int = 4) -> None:
    """Draw queries of every kind and compare each with the oracle."""
    physics = scene.physics
    bodies = scene.bodies()
    for i in range(rounds):
        f = _filters(data, scene, f"point {i}")
        x, y = _point(data, scene, f"point {i}")
        assert physics.query_point(x, y, **f) == brute_point(bodies, x, y, **f), (x, y, f)

        f = _filters(data, scene, f"ray {i}")
        start, end = _segment(data, scene, f"ray {i}")
        expected = brute_ray_hits(bodies, start, end, **f)
        got = physics.raycast(start, end, **f)
        assert got == (expected[0] if expected else None), (start, end, f)
        assert physics.raycast_all(start, end, **f) == expected, (start, end, f)

        f = _filters(data, scene, f"region {i}")
        shape = data.draw(shapes(), label=f"region {i} shape")
        at = _point(data, scene, f"region {i} at")
        assert physics.query_region(shape, at, **f) == brute_region(bodies, shape, at, **f), (
            shape, at, f)

        f = _filters(data, scene, f"cast {i}")
        shape = data.draw(shapes(), label=f"cast {i} shape")
        start, end = _segment(data, scene, f"cast {i}")
        assert physics.cast_shape(shape, start, end, **f) == brute_cast(
            bodies, shape, start, end, **f), (shape, start, end, f)

    check_raycast_many(data, scene, bodies)


def check_raycast_many(data, scene: Scene, bodies) -> None:
    physics = scene.physics
    n = data.draw(st.integers(0, 8), label="rays")
    segs = [_segment(data, scene, f"many {i}") for i in range(n)]
    ents = scene.entities()
    ignore = [data.draw(st.one_of(st.just(-1), st.sampled_from(ents)), label=f"ignore {i}")
              for i in range(n)]
    f = _filters(data, scene, "many")
    starts = np.array([s for s, _ in segs], dtype=np.float64).reshape(n, 2)
    ends = np.array([e for _, e in segs], dtype=np.float64).reshape(n, 2)
    got = physics.raycast_many(starts, ends, ignore=np.array(ignore, dtype=np.int64), **f)
    ex = {f["exclude"]} if isinstance(f["exclude"], int) else set(f["exclude"])
    for i, (start, end) in enumerate(segs):
        skip = ex | ({ignore[i]} if ignore[i] >= 0 else set())
        one = physics.raycast(start, end, mask=f["mask"], exclude=skip, sensors=f["sensors"])
        assert one == brute_ray(bodies, start, end, f["mask"], skip, f["sensors"]), (
            start, end, skip)
        row = (bool(got.hit[i]), int(got.entity[i]), tuple(got.point[i].tolist()),
               tuple(got.normal[i].tolist()), float(got.fraction[i]))
        if one is None:
            assert row == (False, -1, tuple(end), (0.0, 0.0), 1.0), (i, start, end, skip)
        else:
            assert row == (True, one.entity, one.point, one.normal, one.fraction), (
                i, start, end, skip)


# ------------------------------------------------------------------ the tests


@pytest.mark.parametrize("broadphase", BROADPHASES)
@settings(max_examples=12, deadline=None)
@given(spec=scenes(), data=st.data())
def test_queries_match_brute_force_after_steps(broadphase, spec, data):
    scene = Scene(spec, broadphase)
    try:
        scene.step(spec["steps"])
        note(f"bodies now: {scene.bodies()!r}")
        check_queries(data, scene)
    finally:
        scene.close()


def _probe(scene: Scene, e: int) -> None:
    """Queries right after one write, where the written body is: the cache of what the
    index covers must be learnt again after every kind of write."""
    physics, bodies = scene.physics, scene.bodies()
    x, y = esper.component_for_entity(e, ep.Position).xy
    f = {"sensors": True}
    assert physics.query_point(x, y, **f) == brute_point(bodies, x, y, **f)
    probe = ep.Rect(2.0, 2.0)
    assert physics.query_region(probe, (x, y), **f) == brute_region(bodies, probe, (x, y), **f)
    for start, end in (((x - 50.0, y + 0.25), (x + 50.0, y + 0.25)),
                       ((x + 0.5, y + 50.0), (x + 0.5, y - 50.0))):
        assert physics.raycast_all(start, end, **f) == brute_ray_hits(bodies, start, end, **f)


def _moves(data, scene: Scene) -> None:
    """Teleport, nudge, reshape and relabel some bodies the way a game would, no step (and
    sometimes query between two writes)."""
    ents = scene.colliders() + [e for e in scene.entities()
                                if not esper.has_component(e, ep.Collider)]
    chosen = data.draw(st.lists(st.sampled_from(ents), max_size=12, unique=True),
                       label="moved")
    probing = data.draw(st.booleans(), label="probe after each write")
    for e in chosen:
        _move(data, scene, e)
        if probing:
            _probe(scene, e)


def _move(data, scene: Scene, e: int) -> None:
    """One write a game may make to an adopted entity."""
    pos = esper.component_for_entity(e, ep.Position)
    how = data.draw(st.integers(0, 6), label=f"move {e}")
    ox, oy = scene.origin
    if how == 0:  # far away (out of the index and of the scene's box)
        pos.xy = (ox + data.draw(st.floats(-200, 200)), oy + data.draw(st.floats(-200, 200)))
    elif how == 1:  # a nudge (likely still inside its swept box)
        pos.x = pos.x + data.draw(st.floats(-0.05, 0.05))
    elif how == 2:
        pos.y = oy + data.draw(coord)
    elif how in (3, 4) and esper.has_component(e, ep.Geometry) \
            and e not in scene.tilemap_entities:
        shape = ep.Circle(3) if how == 3 else data.draw(shapes())
        esper.component_for_entity(e, ep.Geometry).shape = shape
    elif how == 5 and esper.has_component(e, ep.Collider):
        col = esper.component_for_entity(e, ep.Collider)
        col.layer = data.draw(st.sampled_from([1, 2, 4, 8]))
        col.sensor = data.draw(st.booleans())
    elif how == 6 and esper.has_component(e, ep.Collider) \
            and e not in scene.tilemap_entities:
        col = esper.component_for_entity(e, ep.Collider)
        kind = data.draw(st.sampled_from([ep.STATIC, ep.PASSIVE, ep.ACTIVE]))
        if kind != ep.ACTIVE and col.mass == math.inf:  # a platform: a finite mass first
            col.mass = 1.0
        col.kind = kind


@pytest.mark.parametrize("broadphase", BROADPHASES)
@settings(max_examples=8, deadline=None)
@given(spec=scenes(), data=st.data())
def test_queries_see_moves_and_new_shapes_without_a_step(broadphase, spec, data):
    scene = Scene(spec, broadphase)
    try:
        scene.step(spec["steps"])
        check_queries(data, scene, rounds=1)  # learns the index, then the table changes
        _moves(data, scene)
        # a body created now is not adopted (nor seen) before the next step
        scene.pending.add(esper.create_entity(ep.Position(*scene.origin), ep.Collider(ep.STATIC),
                                              ep.Geometry(ep.Rect(80, 80))))
        note(f"bodies after the moves: {scene.bodies()!r}")
        check_queries(data, scene, rounds=3)
        scene.step()
        check_queries(data, scene, rounds=2)
        _moves(data, scene)
        check_queries(data, scene, rounds=2)
    finally:
        scene.close()


def test_a_teleported_body_is_escaped_and_still_found():
    """A static body moved far from where the index holds it is tested on its own."""
    for broadphase in BROADPHASES:
        scene = Scene({"bodies": [], "tilemaps": [], "ghosts": [], "steps": 1}, broadphase)
        try:
            walls = [esper.create_entity(ep.Position(4.0 * i, 0.0), ep.Collider(ep.STATIC),
                                         ep.Geometry(ep.Rect(1, 1))) for i in range(10)]
            scene.pending |= set(walls)
            scene.step(2)
            physics = scene.physics
            assert physics.query_point(8.0, 0.0) == [walls[2]]
            esper.component_for_entity(walls[2], ep.Position).xy = (100.0, 50.0)
            esper.component_for_entity(walls[3], ep.Geometry).shape = ep.Circle(3)
            assert physics.queries.escaped >= 2
            assert physics.query_point(8.0, 0.0) == []
            assert physics.query_point(100.0, 50.0) == [walls[2]]
            assert physics.query_point(14.5, 0.0) == [walls[3]]
            hit = physics.raycast((200.0, 50.0), (0.0, 50.0))
            assert hit == Hit(walls[2], (100.5, 50.0), (1.0, 0.0), 99.5 / 200.0)
            bodies = scene.bodies()
            for q in ((8.0, 0.0), (100.0, 50.0), (14.5, 0.0), (12.0, 0.0)):
                assert physics.query_point(*q) == brute_point(bodies, *q)
            for start, end in (((200.0, 50.0), (0.0, 50.0)), ((-5.0, 0.0), (50.0, 0.0)),
                               ((-5.0, 0.0), (150.0, 75.0))):
                assert physics.raycast_all(start, end) == brute_ray_hits(bodies, start, end)
        finally:
            scene.close()


@pytest.mark.filterwarnings("ignore::ecsphys.MissingGeometryWarning")  # Geometry stripped
@pytest.mark.parametrize("broadphase", BROADPHASES)
@settings(max_examples=8, deadline=None)
@given(spec=scenes(), data=st.data())
def test_deleted_bodies_are_gone_after_the_next_step(broadphase, spec, data):
    scene = Scene(spec, broadphase)
    try:
        scene.step(spec["steps"])
        check_queries(data, scene, rounds=1)
        ents = scene.entities()
        gone = data.draw(st.lists(st.sampled_from(ents), min_size=1, unique=True,
                                  max_size=max(1, len(ents) // 2)), label="deleted")
        for e in gone:
            esper.delete_entity(e, immediate=True)
        # and some lose their Collider or Geometry, some ghosts get a Collider
        for e in data.draw(st.lists(st.sampled_from(ents), max_size=4, unique=True),
                           label="stripped"):
            if e in gone:
                continue
            if esper.has_component(e, ep.Collider):
                what = data.draw(st.sampled_from([ep.Collider, ep.Geometry]), label="strip")
                esper.remove_component(e, what)
            else:
                esper.add_component(e, ep.Collider(ep.PASSIVE, sensor=data.draw(st.booleans())))
        scene.step()
        physics = scene.physics
        assert not set(gone) & set(physics.query_point(0.0, 0.0, sensors=True))
        assert not set(gone) & {e for e, *_ in scene.bodies()}
        big = ep.Rect(400, 400)
        seen = physics.query_region(big, scene.origin, sensors=True)
        assert seen == brute_region(scene.bodies(), big, scene.origin, sensors=True)
        assert not set(gone) & set(seen)
        note(f"bodies left: {scene.bodies()!r}")
        check_queries(data, scene, rounds=3)
        # and once more after a move of the survivors
        _moves(data, scene)
        check_queries(data, scene, rounds=1)
    finally:
        scene.close()


@pytest.mark.parametrize("broadphase", BROADPHASES)
@settings(max_examples=6, deadline=None)
@given(spec=scenes(), data=st.data())
def test_filters_pick_the_same_bodies_as_the_oracle(broadphase, spec, data):
    """Every body under one point / one ray / one region, each filter combination."""
    scene = Scene(spec, broadphase)
    try:
        scene.step(spec["steps"])
        bodies = scene.bodies()
        physics = scene.physics
        x, y = _point(data, scene, "point")
        start, end = _segment(data, scene, "ray")
        region = data.draw(shapes(), label="region")
        at = _point(data, scene, "region at")
        ents = scene.entities()
        for mask in (ALL, 0, 1, 2, 4, 6, 8, 1 | 8):
            for sensors in (False, True):
                for exclude in ((), set(ents[::3]), ents[0], [NOBODY]):
                    f = {"mask": mask, "exclude": exclude, "sensors": sensors}
                    assert physics.query_point(x, y, **f) == brute_point(bodies, x, y, **f)
                    assert physics.raycast_all(start, end, **f) == brute_ray_hits(
                        bodies, start, end, **f)
                    assert physics.query_region(region, at, **f) == brute_region(
                        bodies, region, at, **f)
        # a body without a Collider is never seen, whatever the filter; every other one is
        # (but a tile map whose solid tiles hold the region's centre: its edges are one-sided)
        big = ep.Rect(1000, 1000)
        everything = physics.query_region(big, scene.origin, mask=ALL, sensors=True)
        assert everything == brute_region(bodies, big, scene.origin, sensors=True)
        assert set(everything) >= {e for e, *_ in bodies} - scene.tilemap_entities
        assert not set(everything) - {e for e, *_ in bodies}
    finally:
        scene.close()


@pytest.mark.parametrize("broadphase", BROADPHASES)
@settings(max_examples=6, deadline=None)
@given(spec=scenes(), data=st.data())
def test_raycast_many_is_raycast_in_a_loop(broadphase, spec, data):
    scene = Scene(spec, broadphase)
    try:
        scene.step(spec["steps"])
        bodies = scene.bodies()
        for _ in range(3):
            check_raycast_many(data, scene, bodies)
        _moves(data, scene)
        check_raycast_many(data, scene, scene.bodies())
    finally:
        scene.close()


def test_ties_go_to_the_lowest_entity():
    """Two equal walls met at the same fraction, a zero-length ray inside both, a shape cast
    touching both at once: the lowest entity, whatever the broadphase."""
    for broadphase in BROADPHASES:
        scene = Scene({"bodies": [], "tilemaps": [], "ghosts": [], "steps": 1}, broadphase)
        try:
            # created in this order, so b < a; both span y in [-1, 1] at x in [4.5, 5.5]
            b = esper.create_entity(ep.Position(5.0, 0.0), ep.Collider(ep.STATIC),
                                    ep.Geometry(ep.Rect(1, 2)))
            a = esper.create_entity(ep.Position(5.0, 0.0), ep.Velocity(0, 0),
                                    ep.Collider(ep.PASSIVE), ep.Geometry(ep.Rect(1, 2)))
            scene.pending |= {a, b}
            scene.step(2)  # the passive one is pushed out of the wall...
            esper.component_for_entity(a, ep.Position).xy = (5.0, 0.0)  # ...and put back
            physics = scene.physics
            bodies = scene.bodies()
            assert b < a
            hit = physics.raycast((0.0, 0.0), (10.0, 0.0))
            assert hit == Hit(b, (4.5, 0.0), (-1.0, 0.0), 0.45)
            assert hit == brute_ray(bodies, (0.0, 0.0), (10.0, 0.0))
            assert [h.entity for h in physics.raycast_all((0.0, 0.0), (10.0, 0.0))] == [b, a]
            assert physics.raycast((5.0, 0.0), (5.0, 0.0)) == Hit(b, (5.0, 0.0), (0.0, 0.0),
                                                                  0.0)
            assert physics.raycast((5.0, 0.0), (5.0, 0.0), exclude=b) == Hit(
                a, (5.0, 0.0), (0.0, 0.0), 0.0)
            cast = physics.cast_shape(ep.Circle(0.5), (0.0, 0.0), (10.0, 0.0))
            assert cast is not None and cast.entity == b
            assert cast == brute_cast(bodies, ep.Circle(0.5), (0.0, 0.0), (10.0, 0.0))
            many = physics.raycast_many([(0.0, 0.0), (0.0, 0.0)], [(10.0, 0.0), (10.0, 0.0)],
                                        ignore=[-1, b])
            assert many.entity.tolist() == [b, a]
        finally:
            scene.close()


def test_a_ray_too_short_to_square_is_still_a_ray():
    """A ray whose length squared underflows to 0 (|end - start| below about 1.5e-162) is not
    a zero-length ray: ``start != end``, so it is a ray, answered as ``geometry.raycast``
    answers it (starting inside: the normal faces back along it; starting just outside, within
    TOUCH_TOLERANCE, and moving along the face: no hit), not as a point test."""
    for broadphase in BROADPHASES:
        scene = Scene({"bodies": [], "tilemaps": [], "ghosts": [], "steps": 1}, broadphase)
        try:
            box = esper.create_entity(ep.Position(0.0, 0.0), ep.Collider(ep.STATIC),
                                      ep.Geometry(ep.Rect(2, 2)))
            scene.pending.add(box)
            scene.step()
            physics, bodies = scene.physics, scene.bodies()
            for start, end in (((0.0, 0.0), (1e-170, 0.0)),         # inside, along +x
                               ((0.0, 0.0), (1e-300, 1e-300)),
                               ((-1.0 - 5e-10, 0.0), (-1.0 - 5e-10, 1e-170))):  # on the face
                assert start != end
                expected = brute_ray(bodies, start, end)
                assert physics.raycast(start, end) == expected, (broadphase, start, end)
                assert physics.raycast_all(start, end) == brute_ray_hits(bodies, start, end)
                many = physics.raycast_many([start], [end])
                assert int(many.entity[0]) == (expected.entity if expected else -1)
                assert tuple(many.normal[0].tolist()) == (expected.normal if expected
                                                          else (0.0, 0.0))
        finally:
            scene.close()


def test_layer_names_filter_as_their_bits(world):
    """With `Layers`, a mask may name layers: the same bodies as the bits, and as the oracle."""
    layers = ep.Layers("player", "enemy", "wall")
    physics = ep.Physics(fixed_dt=DT, broadphase="grid", layers=layers)
    made = []
    for i, name in enumerate(("player", "enemy", "wall", "wall", "enemy", "player")):
        made.append(esper.create_entity(
            ep.Position(3.0 * i, 0.0), ep.Collider(ep.STATIC, layer=layers.bit(name),
                                                   sensor=i == 4),
            ep.Geometry(ep.Rect(2.5, 2.0) if i % 2 else ep.Circle(1.25))))
    esper.process(DT)
    bodies = []
    for e in made:
        col = esper.component_for_entity(e, ep.Collider)
        bodies.append((e, esper.component_for_entity(e, ep.Geometry).shape,
                       esper.component_for_entity(e, ep.Position).xy, col.layer, col.sensor))
    region = ep.Rect(40.0, 1.0)
    for names in ("wall", ("player", "wall"), ["enemy"], ("enemy", "wall", "player")):
        bits = layers.mask(names) if isinstance(names, str) else layers.mask(*names)
        for sensors in (False, True):
            by_name = {"mask": names, "sensors": sensors}
            by_bits = {"mask": bits, "sensors": sensors}
            expected = brute_region(bodies, region, (7.5, 0.0), **by_bits)
            assert physics.query_region(region, (7.5, 0.0), **by_name) == expected
            assert physics.query_region(region, (7.5, 0.0), **by_bits) == expected
            hits = brute_ray_hits(bodies, (-5.0, 0.5), (30.0, 0.5), **by_bits)
            assert physics.raycast_all((-5.0, 0.5), (30.0, 0.5), **by_name) == hits
            assert physics.raycast((-5.0, 0.5), (30.0, 0.5), **by_name) == (
                hits[0] if hits else None)
            assert physics.query_point(9.0, 0.0, **by_name) == brute_point(
                bodies, 9.0, 0.0, **by_bits)


@st.composite
def sparse_scenes(draw) -> dict:
    """Many small bodies over a large area and a few long ones: a ray or cast crosses many of
    the march's chunks (about four typical bodies long each)."""
    tiny = st.floats(0.02, 0.4)
    far = st.one_of(st.integers(-400, 400).map(lambda q: q / 4), st.floats(-100.0, 100.0))

    @st.composite
    def small_shape(draw):
        k = draw(st.integers(0, 3))
        if k == 0:
            return ep.Circle(draw(tiny))
        if k == 1:
            return ep.Rect(draw(tiny), draw(tiny))
        if k == 2:
            return ep.OrientedRect(draw(tiny), draw(tiny), draw(st.integers(0, 90)))
        return ep.Segment((0.0, 0.0), (draw(tiny), draw(st.floats(-0.4, 0.4))))

    long_shape = st.one_of(
        st.builds(lambda a, b: ep.Segment((-a, 0.0), (a, b)), st.floats(10.0, 60.0),
                  st.floats(-30.0, 30.0)),
        st.builds(ep.Rect, st.floats(10.0, 60.0), st.floats(0.05, 0.5)))
    n = draw(st.integers(40, 160), label="small bodies")
    small_bodies = [{"shape": draw(small_shape()), "pos": (draw(far), draw(far)),
                     "kind": draw(st.sampled_from([ep.STATIC, ep.ACTIVE])),
                     "layer": 1, "mask": ALL, "sensor": False,
                     "vel": (draw(st.floats(-30, 30)), draw(st.floats(-30, 30))),
                     "gravity": False} for _ in range(n)]
    long_bodies = [{"shape": draw(long_shape), "pos": (draw(far), draw(far)),
                    "kind": ep.STATIC, "layer": 1, "mask": ALL, "sensor": False,
                    "vel": (0.0, 0.0), "gravity": False}
                   for _ in range(draw(st.integers(0, 3)))]
    return {"bodies": small_bodies + long_bodies, "tilemaps": [], "ghosts": [],
            "steps": draw(st.integers(1, 3))}


@pytest.mark.parametrize("broadphase", BROADPHASES)
@settings(max_examples=4, deadline=None)
@given(spec=sparse_scenes(), data=st.data())
def test_long_rays_and_casts_over_many_small_bodies(broadphase, spec, data):
    scene = Scene(spec, broadphase)
    try:
        scene.step(spec["steps"])
        bodies, physics = scene.bodies(), scene.physics
        for i in range(6):
            ang = data.draw(st.floats(0.0, 2 * math.pi), label=f"angle {i}")
            c = data.draw(st.sampled_from(scene.points()), label=f"through {i}")
            length = data.draw(st.sampled_from([5.0, 60.0, 300.0]), label=f"length {i}")
            start = (c[0] - length * math.cos(ang), c[1] - length * math.sin(ang))
            end = (c[0] + length * math.cos(ang), c[1] + length * math.sin(ang))
            hits = brute_ray_hits(bodies, start, end)
            assert physics.raycast_all(start, end) == hits, (start, end)
            assert physics.raycast(start, end) == (hits[0] if hits else None), (start, end)
            shape = data.draw(st.sampled_from([ep.Circle(0.05), ep.Rect(0.3, 0.1),
                                               ep.Circle(2.0), ep.Segment((0, 0), (0.5, 0.5))]),
                              label=f"cast {i}")
            assert physics.cast_shape(shape, start, end) == brute_cast(
                bodies, shape, start, end), (shape, start, end)
        ends = [(b[2][0] + 80.0, b[2][1] + 3.0) for b in bodies[:20]]
        starts = [(b[2][0] - 80.0, b[2][1] - 1.0) for b in bodies[:20]]
        got = physics.raycast_many(starts, ends)
        for i, (start, end) in enumerate(zip(starts, ends, strict=True)):
            hit = brute_ray(bodies, start, end)
            assert int(got.entity[i]) == (hit.entity if hit else -1)
            assert float(got.fraction[i]) == (hit.fraction if hit else 1.0)
    finally:
        scene.close()
