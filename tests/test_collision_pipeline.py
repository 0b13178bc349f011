"""The collision pipeline through Physics: broadphase choices, game-rule filtering, statics."""

from __future__ import annotations

import esper
import numpy as np
import pytest

import ecsphys as ep

BROADPHASES = ["grid", "sweep", "quadtree", "brute"]


def random_scene(seed: int):
    rng = np.random.default_rng(seed)
    ents = []
    for _ in range(12):  # statics of mixed sizes, some far away, negative coordinates
        x, y = rng.uniform(-60, 60, 2)
        shape = ep.Rect(*rng.uniform(0.5, 15, 2)) if rng.random() < 0.7 else ep.Circle(
            rng.uniform(0.5, 6))
        ents.append(esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC),
                                        ep.Geometry(shape)))
    esper.create_entity(ep.Position(1e5, -1e5), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(2, 2)))
    for i in range(250):
        x, y = rng.uniform(-50, 50, 2)
        r = rng.uniform(0.2, 4.0) if i % 10 else rng.uniform(8, 14)  # some bigger than cells
        kind = ep.ACTIVE if i % 3 else ep.PASSIVE
        shape = ep.Circle(r) if i % 4 else ep.Rect(r * 1.5, r)
        ents.append(esper.create_entity(
            ep.Position(x, y), ep.Velocity(*rng.uniform(-20, 20, 2)), ep.Collider(kind),
            ep.Geometry(shape), ep.AccelerationMap(gravity=(0, -9.8))))
    return ents


def run(name: str, world: str, steps: int = 20):
    esper.switch_world(f"{world}-{name}")
    physics = ep.Physics(fixed_dt=1 / 60, broadphase=name)
    ents = random_scene(7)
    out = []
    for step in range(steps):
        if step == 8:
            for e in ents[20::7]:
                esper.delete_entity(e)
        physics.step()
        cs = physics.contact_set
        xy = [esper.component_for_entity(e, ep.Position).xy for e in ents[:40]
              if esper.entity_exists(e)]
        out.append((cs.keys.tolist(), physics.stats["tested_pairs"], xy))
    return out


def test_every_broadphase_gives_the_same_simulation_as_brute_force(world):
    reference = run("brute", world)
    assert sum(len(k) for k, _, _ in reference) > 50  # the scene really collides
    for name in BROADPHASES[:-1]:
        result = run(name, world)
        for (keys, tested, xy), (rkeys, rtested, rxy) in zip(result, reference, strict=True):
            assert keys == rkeys
            assert tested == rtested
            np.testing.assert_allclose(np.array(xy), np.array(rxy), atol=1e-9)
    esper.switch_world(world)


def test_bad_broadphase_name_raises_and_registers_nothing(world):
    with pytest.raises(ValueError, match="bad"):
        ep.Physics(broadphase="bad")
    assert esper._processors == []
    with pytest.raises(ValueError, match="cell_size must be positive, got -1"):
        ep.Physics(cell_size=-1)


def invaders(world_name: str, filtered: bool):
    """Player, aliens, player missiles, alien missiles and walls, all in one crowded spot."""
    esper.switch_world(world_name)
    L = ep.Layers("player", "alien", "player_missile", "alien_missile", "wall")
    physics = ep.Physics(fixed_dt=1 / 60, layers=L)
    masks = {
        "player": L.mask("alien_missile", "wall"),
        "alien": L.mask("player_missile", "wall"),
        "player_missile": L.mask("alien", "wall"),
        "alien_missile": L.mask("player", "wall"),
        "wall": L.mask("player", "alien", "player_missile", "alien_missile"),
    }
    rng = np.random.default_rng(3)
    layer_of = {}
    for kind, count in (("player", 3), ("alien", 30), ("player_missile", 20),
                        ("alien_missile", 20), ("wall", 4)):
        for _ in range(count):
            col = ep.Collider(ep.STATIC if kind == "wall" else ep.ACTIVE, layer=L.bit(kind),
                              mask=masks[kind] if filtered else ep.ALL, sensor=kind != "wall")
            e = esper.create_entity(ep.Position(*rng.uniform(-6, 6, 2)), ep.Velocity(0, 0),
                                    col, ep.Geometry(ep.Circle(1.0)))
            layer_of[e] = kind
    physics.step()
    t = physics.table
    bp = physics._broadphase
    kinds = {tuple(sorted((layer_of[int(t.entity[a])], layer_of[int(t.entity[b])])))
             for a, b in zip(bp.ra, bp.rb, strict=True)}
    return physics.stats["tested_pairs"], kinds


def test_layers_and_masks_test_only_the_allowed_kinds_of_pair(world):
    unfiltered_count, unfiltered_kinds = invaders(world + "-all", filtered=False)
    count, kinds = invaders(world + "-rules", filtered=True)
    esper.switch_world(world)
    allowed = {("alien_missile", "player"), ("player", "wall"), ("alien", "player_missile"),
               ("alien", "wall"), ("player_missile", "wall"), ("alien_missile", "wall")}
    assert kinds <= allowed
    assert ("alien", "alien") in unfiltered_kinds  # without rules they would be tested
    assert ("alien", "player_missile") in kinds
    assert count < unfiltered_count / 2


def test_filter_pair_hook_vetoes_pairs(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    a = esper.create_entity(ep.Position(0, 0), ep.Velocity(1, 0), ep.Collider(ep.ACTIVE),
                            ep.Geometry(ep.Circle(1)))
    b = esper.create_entity(ep.Position(1.5, 0), ep.Collider(ep.STATIC), ep.Geometry(ep.Circle(1)))
    seen = []

    def no_ghosts(x: int, y: int) -> bool:
        seen.append((x, y))
        return False

    physics.filter_pair = no_ghosts
    for _ in range(60):
        physics.step()
    assert seen and seen[0] == (a, b)
    assert esper.component_for_entity(a, ep.Position).x == pytest.approx(1.0)  # passed through
    assert physics.touching(a) == []
    physics.filter_pair = None
    with pytest.raises(TypeError, match="filter_pair must be callable"):
        physics.filter_pair = 3


def test_statics_are_indexed_once_and_single_changes_update_the_index(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    walls = [esper.create_entity(ep.Position(i * 3.0, 0), ep.Collider(ep.STATIC),
                                 ep.Geometry(ep.Rect(2, 2))) for i in range(10)]
    balls = [esper.create_entity(ep.Position(i * 3.0, 2.5), ep.Velocity(0, -2),
                                 ep.AccelerationMap(gravity=(0, -9.8)),
                                 ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)))
             for i in range(10)]
    physics.step()
    assert physics.stats["static_rebuilds"] == 1
    for _ in range(30):
        physics.step()
    esper.delete_entity(balls[3])  # dynamic changes do not touch the static index
    esper.add_component(balls[4], ep.AccelerationMap(gravity=(0, -1)))
    for _ in range(5):
        physics.step()
    assert physics.stats["static_rebuilds"] == 1
    # single static changes update the index in place, and the step sees them
    esper.component_for_entity(walls[0], ep.Position).x = -10.0  # a static moved
    extra = esper.create_entity(ep.Position(100, 0), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.Rect(1, 1)))
    esper.delete_entity(walls[5])
    for _ in range(30):
        physics.step()
    assert physics.stats["static_rebuilds"] == 1
    pos = lambda e: esper.component_for_entity(e, ep.Position).xy  # noqa: E731
    assert pos(balls[0])[1] < 0.5 and pos(balls[5])[1] < 0.5  # their walls went: they fell
    assert pos(balls[6])[1] == pytest.approx(1.5, abs=0.02)
    assert physics.touching(balls[6]) == [walls[6]]
    assert extra in physics.query_point(100.0, 0.0)


def test_contacts_and_contacts_of(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    floor = esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.Rect(20, 1)))
    ball = esper.create_entity(ep.Position(0, 1.0), ep.Velocity(0, -1), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(0.5)))
    physics.step()
    (c,) = physics.contacts()
    assert (c.a, c.b) == (floor, ball)
    assert c.normal == pytest.approx((0.0, 1.0))
    assert c.other(ball) == floor
    assert physics.contacts_of(ball) == [c]
    with pytest.raises(KeyError, match="entity 12345 is not a body"):
        physics.contacts_of(12345)
