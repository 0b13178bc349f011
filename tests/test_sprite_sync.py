"""SpriteSync: each body's sprite drawn at its interpolated position, to the pixel (EGL).

Sprites are solid images of colours of their own; a frame is read back and each colour's
pixels are compared with where the body's interpolated position (and the transform) says
the sprite's anchor is.
"""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

pyglet = pytest.importorskip("pyglet")
pyglet.options["headless"] = True

import ecsphys as ep  # noqa: E402

W, H, SCALE, OFFSET = 400, 300, 20.0, (10.0, 5.0)
RED, GREEN, BLUE, YELLOW = (250, 40, 40), (40, 250, 40), (40, 40, 250), (250, 250, 40)
CYAN, MAGENTA = (40, 250, 250), (250, 40, 250)


def image(w: int, h: int, rgb: tuple[int, int, int], right: tuple[int, int, int] | None = None,
          band: int = 0) -> pyglet.image.ImageData:
    """A solid ``w`` x ``h`` image made with NumPy; ``right``: its last ``band`` columns in
    another colour (to see which way it turned)."""
    rgba = np.zeros((h, w, 4), dtype=np.uint8)
    rgba[:, :] = (*rgb, 255)
    if right is not None:
        rgba[:, w - band:] = (*right, 255)
    return pyglet.image.ImageData(w, h, "RGBA", rgba.tobytes())


def render(window, sync, batch, *extra) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The frame as an (H, W, 3) array, row 0 at the bottom (GL's y)."""
    window.switch_to()
    pyglet.gl.glClearColor(0, 0, 0, 1)
    window.clear()
    sync.update()
    batch.draw()
    for other in extra:
        other.update()
        other.batch.draw()
    img = pyglet.image.get_buffer_manager().get_color_buffer().get_image_data()
    data = np.frombuffer(img.get_data("RGBA", W * 4), dtype=np.uint8)  # its own format: fast
    return data.reshape(H, W, 4)[:, :, :3]


def where(frame: np.ndarray, rgb: tuple[int, int, int]) -> np.ndarray:
    """The (x, y) pixel centres of ``rgb``'s pixels."""
    ys, xs = np.nonzero(np.all(np.abs(frame.astype(int) - rgb) <= 6, axis=2))
    return np.column_stack([xs + 0.5, ys + 0.5])


def box_centre(frame: np.ndarray, rgb: tuple[int, int, int]) -> tuple[float, float]:
    """The centre of the box around ``rgb``'s pixels (pixel edges, not centres)."""
    pts = where(frame, rgb)
    assert len(pts), f"no {rgb} pixels in the frame"
    lo, hi = pts.min(axis=0) - 0.5, pts.max(axis=0) + 0.5
    return float((lo[0] + hi[0]) / 2), float((lo[1] + hi[1]) / 2)


def near(got: tuple[float, float], want: tuple[float, float], tol: float = 0.6) -> bool:
    """Within ``tol`` px: a sprite edge falls on the pixel whose centre it covers, so the box
    of its pixels is off by at most half a pixel."""
    return abs(got[0] - want[0]) <= tol and abs(got[1] - want[1]) <= tol


def sprite_body(batch, x: float, y: float, img, shape=None, velocity=(0.0, 0.0), **kw):  # type: ignore[no-untyped-def]
    from ecsphys.sprite_sync import BodySprite

    sprite = pyglet.sprite.Sprite(img, batch=batch)
    return esper.create_entity(
        ep.Position(x, y), ep.Velocity(*velocity), ep.Collider(ep.ACTIVE, sensor=True),
        ep.Geometry(shape or ep.Circle(0.5)), BodySprite(sprite, **kw)), sprite


def test_each_sprite_stands_on_its_body_to_the_pixel(window, world) -> None:  # type: ignore[no-untyped-def]
    """Images anchored anywhere, scaled sprites, a pixel anchor with an offset: each
    sprite's anchor on its body's screen position."""
    from ecsphys.sprite_sync import SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    batch = pyglet.graphics.Batch()
    plain, _ = sprite_body(batch, 2.3, 3.1, image(16, 10, RED))  # image anchored bottom-left
    centred_img = image(11, 7, GREEN)
    centred_img.anchor_x, centred_img.anchor_y = 5, 3  # the game centred the image itself
    centred, _ = sprite_body(batch, 6.72, 8.4, centred_img)
    scaled, sprite = sprite_body(batch, 11.05, 3.55, image(8, 6, BLUE))
    sprite.scale = 2.5  # a 20 x 15 px sprite
    feet, _ = sprite_body(batch, 15.5, 9.25, image(12, 20, YELLOW), anchor=(6, 0),
                          offset=(0.0, -0.5))  # its bottom middle 0.5 below the body
    sync = SpriteSync(physics, scale=SCALE, offset=OFFSET)
    esper.process(1 / 60)
    frame = render(window, sync, batch)
    for entity, rgb, (w, h) in ((plain, RED, (16, 10)), (centred, GREEN, (11, 7)),
                                (scaled, BLUE, (20, 15))):
        want = sync.world_to_screen(*physics.interpolated_position(entity))
        assert near(box_centre(frame, rgb), want), (rgb, box_centre(frame, rgb), want)
        pts = where(frame, rgb)
        assert np.ptp(pts[:, 0]) + 1 == w and np.ptp(pts[:, 1]) + 1 == h  # its whole size
    fx, fy = sync.screen_position(feet)
    x, y = physics.interpolated_position(feet)
    assert (fx, fy) == sync.world_to_screen(x, y - 0.5)
    assert near(box_centre(frame, YELLOW), (fx, fy + 10))  # 20 px tall, standing on it
    assert sync.sprite_count == 4 and len(sync) == 4


def test_a_sprite_covers_its_rect_where_the_debug_view_draws_it(window, world) -> None:  # type: ignore[no-untyped-def]
    """Same scale and offset: a 2 x 1 rect's 40 x 20 px sprite and the debug view's fill
    cover the same pixels."""
    from ecsphys.debug_draw import DebugDraw
    from ecsphys.sprite_sync import SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    batch = pyglet.graphics.Batch()
    body, _ = sprite_body(batch, 7.33, 4.61, image(40, 20, RED), shape=ep.Rect(2, 1),
                          velocity=(3.0, 1.0))
    sync = SpriteSync(physics, scale=SCALE, offset=OFFSET)
    esper.process(1.3 / 60)
    sprite_px = where(render(window, sync, batch), RED)
    debug = DebugDraw(physics, scale=SCALE, offset=OFFSET, flashes=False)
    empty = pyglet.graphics.Batch()
    debug_frame = render(window, sync, empty, debug)
    drawn = np.column_stack(np.nonzero(debug_frame.max(axis=2) > 0)[::-1]) + 0.5
    assert len(sprite_px) == 800
    assert sprite_px.min(axis=0).tolist() == drawn.min(axis=0).tolist()
    assert sprite_px.max(axis=0).tolist() == drawn.max(axis=0).tolist()
    assert sync.screen_position(body) == debug.world_to_screen(
        *physics.interpolated_position(body))


def test_an_oriented_rect_turns_its_sprite_counter_clockwise(window, world) -> None:  # type: ignore[no-untyped-def]
    """A 40 x 10 px sprite with a green right end on an OrientedRect at 30 degrees: the end
    is up and to the right, where the angle (counter-clockwise) puts it; turned again when
    the shape is replaced."""
    from ecsphys.sprite_sync import SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    batch = pyglet.graphics.Batch()
    bar, _ = sprite_body(batch, 9.3, 7.1, image(40, 10, RED, GREEN, 6),
                         shape=ep.OrientedRect(2, 0.5, 30))
    plain, round_sprite = sprite_body(batch, 3.0, 3.0, image(10, 10, BLUE))
    round_sprite.rotation = 90  # a game's own turn of a sprite on a circle: kept
    sync = SpriteSync(physics, scale=SCALE, offset=OFFSET)
    esper.process(1 / 60)
    frame = render(window, sync, batch)
    cx, cy = sync.world_to_screen(*physics.interpolated_position(bar))
    for angle in (30.0, -60.0):
        end = np.radians(angle)
        want = (cx + 17 * math.cos(end), cy + 17 * math.sin(end))  # the end's middle: 17 px out
        got = where(frame, GREEN).mean(axis=0)
        assert abs(got[0] - want[0]) < 1.0 and abs(got[1] - want[1]) < 1.0, (angle, got, want)
        assert (got[1] > cy) == (angle > 0)  # up for counter-clockwise, down for clockwise
        whole = np.vstack([where(frame, RED), where(frame, GREEN)])
        middle = (whole.min(axis=0) + whole.max(axis=0)) / 2
        assert abs(middle[0] - cx) < 1.0 and abs(middle[1] - cy) < 1.0  # about its centre
        esper.component_for_entity(bar, ep.Geometry).shape = ep.OrientedRect(2, 0.5, -60)
        esper.process(1 / 60)
        frame = render(window, sync, batch)
    assert near(box_centre(frame, BLUE), sync.world_to_screen(3.0, 3.0))  # about its centre
    assert round_sprite.rotation == 90


def test_between_steps_a_sprite_is_drawn_at_the_interpolated_position(window, world) -> None:  # type: ignore[no-untyped-def]
    from ecsphys.sprite_sync import SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    batch = pyglet.graphics.Batch()
    ball, _ = sprite_body(batch, 3.0, 6.0, image(10, 10, CYAN), velocity=(60.0, 0.0))
    sync = SpriteSync(physics, scale=SCALE, offset=OFFSET)
    esper.process(1.5 / 60)  # one step of 1 unit (20 px), half of the next
    assert physics.alpha == pytest.approx(0.5)
    frame = render(window, sync, batch)
    want = sync.world_to_screen(*physics.interpolated_position(ball))
    last = sync.world_to_screen(*esper.component_for_entity(ball, ep.Position).xy)
    assert near(box_centre(frame, CYAN), want)
    assert abs(box_centre(frame, CYAN)[0] - last[0]) > 9  # half a step (10 px) behind


def test_as_an_esper_processor_after_the_physics(window, world) -> None:  # type: ignore[no-untyped-def]
    from ecsphys.sprite_sync import SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    batch = pyglet.graphics.Batch()
    ball, _ = sprite_body(batch, 3.0, 6.0, image(10, 10, CYAN), velocity=(30.0, 0.0))
    sync = SpriteSync(physics, scale=SCALE, offset=OFFSET)
    esper.add_processor(sync, priority=-1)  # esper runs the physics (priority 0) first
    for _ in range(3):
        esper.process(1.25 / 60)
    window.switch_to()
    pyglet.gl.glClearColor(0, 0, 0, 1)
    window.clear()
    batch.draw()  # no update by hand: the processor placed the sprite
    img = pyglet.image.get_buffer_manager().get_color_buffer().get_image_data()
    frame = np.frombuffer(img.get_data("RGBA", W * 4), dtype=np.uint8).reshape(H, W, 4)
    want = sync.world_to_screen(*physics.interpolated_position(ball))
    assert near(box_centre(frame[:, :, :3], CYAN), want)


def test_deleted_entities_and_removed_components_leave_the_frame(window, world) -> None:  # type: ignore[no-untyped-def]
    from ecsphys.sprite_sync import BodySprite, SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    batch = pyglet.graphics.Batch()
    doomed, doomed_sprite = sprite_body(batch, 3.0, 3.0, image(10, 10, RED))
    stripped, stripped_sprite = sprite_body(batch, 8.0, 3.0, image(10, 10, GREEN))
    kept, _ = sprite_body(batch, 13.0, 3.0, image(10, 10, BLUE))
    sync = SpriteSync(physics, scale=SCALE, offset=OFFSET)
    esper.process(1 / 60)
    frame = render(window, sync, batch)
    assert all(len(where(frame, c)) == 100 for c in (RED, GREEN, BLUE))
    esper.delete_entity(doomed)
    esper.remove_component(stripped, BodySprite)
    esper.process(1 / 60)
    frame = render(window, sync, batch)
    assert len(where(frame, RED)) == 0 and len(where(frame, GREEN)) == 0
    assert len(where(frame, BLUE)) == 100
    assert doomed_sprite._vertex_list is None and stripped_sprite._vertex_list is None  # freed
    assert len(sync) == 1 and sync.sprite_count == 1
    # a new entity is hidden until the physics adopts it, then drawn on its body
    late, _ = sprite_body(batch, 5.0, 9.0, image(10, 10, MAGENTA))
    assert len(where(render(window, sync, batch), MAGENTA)) == 0
    esper.process(1 / 60)
    frame = render(window, sync, batch)
    assert near(box_centre(frame, MAGENTA),
                sync.world_to_screen(*physics.interpolated_position(late)))
    esper.remove_component(late, ep.Position)  # no longer a body: hidden, kept
    esper.process(1 / 60)
    assert len(where(render(window, sync, batch), MAGENTA)) == 0 and len(sync) == 2
    esper.add_component(late, ep.Position(12.0, 9.0))  # a body again: shown where it is
    esper.process(1 / 60)
    frame = render(window, sync, batch)
    assert near(box_centre(frame, MAGENTA),
                sync.world_to_screen(*physics.interpolated_position(late)))
    esper.clear_database()  # a level restart: every sprite goes
    esper.process(1 / 60)
    assert render(window, sync, batch).max() == 0 and len(sync) == 0


def test_a_sprite_given_another_image_group_or_batch_is_still_placed(window, world) -> None:  # type: ignore[no-untyped-def]
    """A new texture makes the sprite a new vertex list; a new group moves it in the batch's
    vertex data: the next update finds it either way."""
    from ecsphys.sprite_sync import SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    batch = pyglet.graphics.Batch()
    ball, sprite = sprite_body(batch, 6.0, 6.0, image(10, 10, RED), velocity=(6.0, 3.0))
    others = [sprite_body(batch, 2.0 + i, 12.0, image(4, 4, BLUE))[1] for i in range(3)]
    sync = SpriteSync(physics, scale=SCALE, offset=OFFSET)
    esper.process(1 / 60)
    render(window, sync, batch)
    for change in ("image", "group", "delete other", "nothing"):
        if change == "image":
            sprite.image = image(14, 6, GREEN)
        elif change == "group":
            sprite.group = pyglet.graphics.Group(order=3)
        elif change == "delete other":
            others[0].delete()
        esper.process(1 / 60)
        frame = render(window, sync, batch)
        want = sync.world_to_screen(*physics.interpolated_position(ball))
        assert near(box_centre(frame, GREEN), want), (change, box_centre(frame, GREEN), want)
        assert len(where(frame, GREEN)) == 14 * 6
    assert sync.sprite_count == 3  # the one the game deleted is no longer placed


def test_a_resting_sprite_the_game_moved_is_put_back_and_keeps_its_depth(window, world) -> None:  # type: ignore[no-untyped-def]
    """A frame where no body moves writes nothing, unless the game wrote the sprite's
    position (``x``, or ``z``, which pyglet writes with the sprite's old x and y)."""
    from ecsphys.sprite_sync import SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    batch = pyglet.graphics.Batch()
    crate, sprite = sprite_body(batch, 7.5, 6.5, image(10, 10, RED))
    sync = SpriteSync(physics, scale=SCALE, offset=OFFSET)
    esper.process(1 / 60)
    want = sync.world_to_screen(7.5, 6.5)
    assert near(box_centre(render(window, sync, batch), RED), want)
    for write in ("z", "x"):
        esper.process(1 / 60)
        if write == "z":
            sprite.z = 0.5
        else:
            sprite.x = 30.0
        assert near(box_centre(render(window, sync, batch), RED), want), write
    assert sprite.z == 0.5 and sprite._vertex_list.translate[2] == 0.5  # depth is the game's


def test_the_sprite_api_path_places_sprites_where_the_fast_one_does(window, world) -> None:  # type: ignore[no-untyped-def]
    from ecsphys.sprite_sync import SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    batch = pyglet.graphics.Batch()
    sprite_body(batch, 3.3, 3.7, image(16, 10, RED), velocity=(5.0, 2.0))
    sprite_body(batch, 9.3, 7.1, image(40, 10, BLUE, GREEN, 6), shape=ep.OrientedRect(2, 1, 25))
    _, scaled = sprite_body(batch, 14.2, 4.4, image(6, 8, YELLOW), anchor=(3, 0))
    scaled.scale = 2.0
    fast = SpriteSync(physics, scale=SCALE, offset=OFFSET)
    esper.process(1.4 / 60)
    want = render(window, fast, batch)
    fast.delete()
    slow = SpriteSync(physics, scale=SCALE, offset=OFFSET, vectorised=False)
    got = render(window, slow, batch)
    runs = slow._runs.values()  # every sprite on the Sprite API path
    assert all(run.buffers is None for run in runs) and sum(run.n for run in runs) == 3
    for rgb in (RED, BLUE, GREEN, YELLOW):
        assert near(box_centre(got, rgb), box_centre(want, rgb), 0.01), rgb


def test_bad_arguments_name_the_field(world) -> None:
    from ecsphys.sprite_sync import BodySprite, SpriteSync

    physics = ep.Physics(fixed_dt=1 / 60)
    sprite = pyglet.sprite.Sprite(image(4, 4, RED))
    with pytest.raises(TypeError, match="BodySprite.sprite"):
        BodySprite("hero.png")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="BodySprite.anchor.*'middle'"):
        BodySprite(sprite, anchor="middle")
    with pytest.raises(ValueError, match="BodySprite.anchor.x"):
        BodySprite(sprite, anchor=(math.nan, 0))
    with pytest.raises(TypeError, match="BodySprite.offset"):
        BodySprite(sprite, offset="up")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="BodySprite.offset"):
        BodySprite(sprite, offset=(1, 2, 3))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="physics"):
        SpriteSync("physics")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scale.*0"):
        SpriteSync(physics, scale=0)
    with pytest.raises(ValueError, match="scale.*nan"):
        SpriteSync(physics, scale=math.nan)
    with pytest.raises(ValueError, match="offset"):
        SpriteSync(physics, offset=(1,))  # type: ignore[arg-type]
    sync = SpriteSync(physics, scale=2)
    with pytest.raises(ValueError, match="offset.y"):
        sync.set_view(3, (0, math.inf))
    assert sync.scale == 2.0  # a refused view changes nothing
    with pytest.raises(KeyError):
        sync.screen_position(12345)
    sprite.delete()


@pytest.mark.parametrize("case", ["moving", "resting", "spawn"])
def test_the_sprite_benchmark_times_each_variant_every_frame(window, case) -> None:  # type: ignore[no-untyped-def]
    from benchmarks.bench_sprites import run_case

    for vectorised in (True, False):
        times = run_case(case, 50, 4, vectorised=vectorised)
        assert times.keys() == {"debug view", "sprites (NumPy)" if vectorised
                                else "sprites (Sprite API)"}
        assert all(len(v) == 4 and min(v) > 0 for v in times.values())
