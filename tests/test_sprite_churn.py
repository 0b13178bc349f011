"""SpriteSync under churn: whatever the order of creates, deletes, updates and steps, after
every update the sprites drawn are exactly those of the living bodies holding a BodySprite,
each at its body's interpolated position; nothing leaks.

A seeded random sequence of operations (bodies and non-bodies made with a BodySprite; deletes,
immediate and deferred; steps with and without esper's deferred deletions; the component
removed, replaced, given to an entity that had none; Position removed and given back; a
sprite's image, group or visibility changed, the sprite deleted by the game; an oriented
rect's shape replaced; the Sprite API path switched on and off; ``clear_database``, which
makes esper count entity ids from 1 again) keeps every sprite it ever made; after each
update the drawn ones (a vertex list whose corners are not the zeros pyglet writes for a
hidden sprite) are compared with what the esper components and the body table say, and each
drawn anchor with the body's interpolated position, read back from the vertex data. The
default run plays seeds 0 and 1 with each allocator; ``-m slow`` adds seeds 2 and 3.
"""

from __future__ import annotations

import math
import random

import esper
import numpy as np
import pytest

pyglet = pytest.importorskip("pyglet")
pyglet.options["headless"] = True

import ecsphys as ep  # noqa: E402

W, H, SCALE, OFFSET = 64, 64, 8.0, (3.0, -2.0)


def _image(w: int, h: int, level: int) -> pyglet.image.ImageData:
    rgba = np.full((h, w, 4), level, dtype=np.uint8)
    return pyglet.image.ImageData(w, h, "RGBA", rgba.tobytes())


def drawn_anchor(sprite, anchor) -> tuple[float, float] | None:  # type: ignore[no-untyped-def]
    """Where the sprite's vertex data puts the anchor on the screen (as pyglet's sprite
    shader does: corners scaled, turned by -rotation, translated); None if not drawn."""
    vl = sprite._vertex_list
    if vl is None:
        return None
    pos = np.asarray(vl.position[:], dtype=np.float64).reshape(4, 3)
    if not pos.any():  # pyglet hides a sprite by zeroing its corners
        return None
    tx, ty = vl.translate[0], vl.translate[1]
    sx, sy = vl.scale[0], vl.scale[1]
    turn = -math.radians(vl.rotation[0])
    (x1, y1), (x2, y2) = pos[0, :2], pos[2, :2]
    ax, ay = ((x2 - x1) / 2, (y2 - y1) / 2) if anchor == "center" else anchor
    px, py = (x1 + ax) * sx, (y1 + ay) * sy
    c, s = math.cos(turn), math.sin(turn)
    return tx + px * c - py * s, ty + px * s + py * c


class Game:
    """The world under test, every sprite it ever made, and the random operations."""

    def __init__(self, seed: int) -> None:
        from ecsphys.sprite_sync import SpriteSync

        self.rng = random.Random(seed)
        self.physics = ep.Physics(fixed_dt=1 / 60, sleep_after=None)
        self.batch = pyglet.graphics.Batch()
        self.images = [_image(6, 4, 120), _image(8, 8, 200), _image(5, 7, 90)]
        self.sync = SpriteSync(self.physics, scale=SCALE, offset=OFFSET)
        self.made: list = []  # (sprite, BodySprite) of every component made
        self.hidden: set[int] = set()  # id() of the sprites the game hid itself
        self.updates = 0

    # ------------------------------------------------------------ the model

    def expected(self, hidden: bool = True) -> dict[int, object]:
        """id(sprite) -> entity, for the sprites that should be drawn: held by a living
        entity (not deleted, not awaiting a deferred delete) that is a body of the physics,
        and not deleted by the game (nor hidden by it, with ``hidden``)."""
        from ecsphys.sprite_sync import BodySprite

        out = {}
        row_of = self.physics.table.row_of
        for e, comps in esper._entities.items():
            comp = comps.get(BodySprite)
            if comp is None or e in esper._dead_entities or e not in row_of:
                continue
            if comp.sprite._vertex_list is not None \
                    and not (hidden and id(comp.sprite) in self.hidden):
                out[id(comp.sprite)] = e
        return out

    def check(self) -> None:
        from ecsphys.sprite_sync import BodySprite

        want = self.expected()
        drawn = {}
        for sprite, comp in self.made:
            at = drawn_anchor(sprite, comp.anchor)
            if at is not None:
                drawn[id(sprite)] = at
        assert drawn.keys() == want.keys(), (
            f"update {self.updates}: drawn but no living body: "
            f"{len(drawn.keys() - want.keys())}, a body's sprite not drawn: "
            f"{len(want.keys() - drawn.keys())}")
        for key, e in want.items():
            comp = esper.component_for_entity(e, BodySprite)
            x, y = self.physics.interpolated_position(e)
            goal = self.sync.world_to_screen(x + comp.offset[0], y + comp.offset[1])
            got = drawn[key]
            assert abs(got[0] - goal[0]) < 2e-3 and abs(got[1] - goal[1]) < 2e-3, (e, got, goal)
        assert self.sync.sprite_count == len(self.expected(hidden=False))

    # ------------------------------------------------------------ operations

    def component(self):  # type: ignore[no-untyped-def]
        from ecsphys.sprite_sync import BodySprite

        rng = self.rng
        sprite = pyglet.sprite.Sprite(rng.choice(self.images), batch=self.batch)
        if rng.random() < 0.2:
            sprite.scale = rng.choice((0.5, 2.0))
        if rng.random() < 0.2:
            sprite.rotation = rng.uniform(-90, 90)
        kw = {}
        if rng.random() < 0.25:
            kw["anchor"] = (rng.uniform(0, 4), rng.uniform(0, 4))
        if rng.random() < 0.25:
            kw["offset"] = (rng.uniform(-1, 1), rng.uniform(-1, 1))
        comp = BodySprite(sprite, **kw)
        self.made.append((sprite, comp))
        return comp

    def body_parts(self) -> list:
        rng = self.rng
        shape = (ep.OrientedRect(1.0, 0.5, rng.uniform(0, 90)) if rng.random() < 0.3
                 else ep.Circle(0.5))
        return [ep.Position(rng.uniform(0, 6), rng.uniform(0, 6)),
                ep.Velocity(rng.uniform(-3, 3), rng.uniform(-3, 3)),
                ep.Collider(ep.ACTIVE, sensor=True), ep.Geometry(shape)]

    def living(self) -> list[int]:
        return [e for e in esper._entities if e not in esper._dead_entities]

    def op(self) -> None:
        from ecsphys.sprite_sync import BodySprite

        rng = self.rng
        living = self.living()
        pick = rng.random()
        if pick < 0.22 or not living:
            esper.create_entity(*self.body_parts(), self.component())
        elif pick < 0.25:
            esper.create_entity(self.component())  # never a body
        elif pick < 0.33:
            esper.delete_entity(rng.choice(living), immediate=True)
        elif pick < 0.40:
            esper.delete_entity(rng.choice(living))  # deferred
        elif pick < 0.55:
            self.updates += 1
            self.sync.update()
            self.check()
        elif pick < 0.62:
            esper.process(1 / 60 * rng.choice((0.5, 1.0, 1.7)))  # deferred deletes carried out
        elif pick < 0.68:
            self.physics.advance(1 / 60 * rng.choice((0.4, 1.0, 2.2)))
        elif pick < 0.72:
            e = rng.choice(living)
            if esper.has_component(e, BodySprite):
                esper.remove_component(e, BodySprite)
        elif pick < 0.76:
            esper.add_component(rng.choice(living), self.component())  # new or replacing
        elif pick < 0.78:
            e = rng.choice(living)
            old = esper.try_component(e, BodySprite)
            if old is not None:  # the same sprite in a new component
                comp = BodySprite(old.sprite, anchor=old.anchor, offset=old.offset)
                self.made.append((old.sprite, comp))
                esper.add_component(e, comp)
        elif pick < 0.81:
            e = rng.choice(living)
            if esper.has_component(e, ep.Position):
                esper.remove_component(e, ep.Position)
            else:
                esper.add_component(e, ep.Position(rng.uniform(0, 6), rng.uniform(0, 6)))
        elif pick < 0.86:
            comp = esper.try_component(rng.choice(living), BodySprite)
            if comp is not None and comp.sprite._vertex_list is not None:
                sprite = comp.sprite
                what = rng.random()
                if what < 0.4:
                    sprite.image = rng.choice(self.images)  # another texture: another domain
                elif what < 0.7:
                    sprite.group = pyglet.graphics.Group(order=rng.randrange(3))
                elif what < 0.85:
                    sprite.scale = rng.choice((0.5, 1.0, 3.0))
                else:
                    sprite.delete()  # by the game
        elif pick < 0.89:
            e = rng.choice(living)
            if esper.has_component(e, ep.Geometry):
                esper.add_component(e, ep.Geometry(
                    ep.OrientedRect(1.0, 0.5, rng.uniform(0, 90)) if rng.random() < 0.6
                    else ep.Circle(0.4)))
        elif pick < 0.895:
            # the game hides a drawn sprite of a body, or shows one it hid (kept so by the
            # sync; a sprite the sync holds hidden is the sync's to show)
            bodies = self.expected(hidden=False)
            for sprite, comp in self.made:
                if id(sprite) in self.hidden and id(sprite) in bodies and rng.random() < 0.5:
                    sprite.visible = True
                    self.hidden.discard(id(sprite))
                    break
                if id(sprite) in bodies and drawn_anchor(sprite, comp.anchor) is not None \
                        and rng.random() < 0.1:
                    sprite.visible = False
                    self.hidden.add(id(sprite))
                    break
        elif pick < 0.90:
            self.sync.vectorised = not self.sync.vectorised
        elif pick < 0.905:
            esper.clear_database()  # a level restart: ids count from 1 again
        else:
            # a body made and deleted before any update sees it
            e = esper.create_entity(*self.body_parts(), self.component())
            if rng.random() < 0.5:
                esper.process(1 / 60)  # (adopted by the physics first)
            esper.delete_entity(e, immediate=rng.random() < 0.5)


@pytest.mark.parametrize("seed", [0, 1, *(pytest.param(s, marks=pytest.mark.slow) for s in (2, 3))])
@pytest.mark.parametrize("allocator", ["watched", "plain"])
def test_after_every_update_exactly_the_living_bodies_sprites_are_drawn_on_them(
        window, world, seed, allocator, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``plain``: the domains' allocators are left as they are (as with an allocator of the
    game's own): the sprites are looked at one by one every frame instead of by the log."""
    if allocator == "plain":
        monkeypatch.setattr("ecsphys.sprite_sync._watch", lambda domain: None)
    game = Game(seed)
    for _ in range(2500):
        game.op()
    game.sync.update()
    game.check()
    assert game.updates > 300


def test_a_body_made_and_deleted_between_updates_never_shows(window, world) -> None:  # type: ignore[no-untyped-def]
    """The case that leaked: the sync never saw the entity, so never owned its sprite."""
    from ecsphys.sprite_sync import BodySprite, SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    batch = pyglet.graphics.Batch()
    sync = SpriteSync(physics, scale=SCALE, offset=OFFSET)
    sync.update()
    sprites = []
    for immediate in (True, False):
        sprite = pyglet.sprite.Sprite(_image(8, 8, 200), batch=batch)
        sprites.append(sprite)
        e = esper.create_entity(ep.Position(1, 1), ep.Velocity(0, 0),
                                ep.Collider(ep.ACTIVE), ep.Geometry(ep.Circle(0.5)),
                                BodySprite(sprite))
        esper.process(1 / 60)
        esper.delete_entity(e, immediate=immediate)
        esper.process(1 / 60)
        sync.update()
    esper.clear_database()
    kept = pyglet.sprite.Sprite(_image(8, 8, 200), batch=batch)
    esper.create_entity(ep.Position(1, 1), ep.Velocity(0, 0), BodySprite(kept))
    sprites.append(kept)
    esper.clear_database()  # before any update saw it
    sync.update()
    assert all(drawn_anchor(s, "center") is None for s in sprites)
    assert sync.sprite_count == 0 and len(sync) == 0


def test_one_spawn_and_one_delete_cost_the_sprites_they_touch(window, world) -> None:  # type: ignore[no-untyped-def]
    """A churn frame keeps the run's slots: no rebuild of the draw list (the rows of the
    others stay a run of the table, so their positions are still read as slices)."""
    from ecsphys.sprite_sync import BodySprite, SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60, sleep_after=None)
    batch = pyglet.graphics.Batch()
    img = _image(8, 8, 200)

    def ball(x: float) -> int:
        return esper.create_entity(ep.Position(x, 0), ep.Velocity(1, 0),
                                   ep.Collider(ep.ACTIVE, sensor=True),
                                   ep.Geometry(ep.Circle(0.5)),
                                   BodySprite(pyglet.sprite.Sprite(img, batch=batch)))

    ents = [ball(2.0 * i) for i in range(200)]
    sync = SpriteSync(physics, scale=SCALE)
    physics.advance(1 / 60)
    sync.update()
    (run,) = sync._runs.values()
    for k in range(20):
        esper.delete_entity(ents.pop(0), immediate=True)
        ents.append(ball(2.0 * (200 + k)))
        physics.advance(1 / 60)
        sync.update()
        assert list(sync._runs.values()) == [run] and run.n == 200
        assert run.span is not None
    for e in ents:
        x, y = physics.interpolated_position(e)
        comp = esper.component_for_entity(e, BodySprite)
        got = drawn_anchor(comp.sprite, "center")
        assert got is not None and abs(got[0] - x * SCALE) < 1e-3 and abs(got[1] - y * SCALE) < 1e-3


def test_a_level_cleared_halved_and_loaded_again(window, world) -> None:  # type: ignore[no-untyped-def]
    """Many sprites joining or leaving at once (a level loaded, half of it deleted, the
    world cleared and loaded again with the same entity ids) are taken in as a batch: the
    drawn sprites and their places are checked as in the random sequence."""
    game = Game(7)

    def load(k: int) -> list[int]:
        return [esper.create_entity(*game.body_parts(), game.component()) for _ in range(k)]

    first = load(120)
    esper.process(1 / 60)
    game.sync.update()
    game.check()
    assert game.sync.sprite_count == 120
    for e in first[::2]:
        esper.delete_entity(e, immediate=True)
    game.physics.advance(1.3 / 60)
    game.sync.update()
    game.check()
    assert game.sync.sprite_count == 60
    esper.clear_database()
    again = load(150)
    assert set(again) & set(first)  # ids counted from 1 again
    esper.process(1 / 60)
    game.sync.update()
    game.check()
    assert game.sync.sprite_count == 150
