"""DebugDraw: one of each shape kind drawn where the physics has it (pixel probes, EGL)."""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest

pyglet = pytest.importorskip("pyglet")
pyglet.options["headless"] = True

import ecsphys as ep  # noqa: E402

W, H, SCALE = 400, 300, 20.0
BG = (0, 0, 0)


def render(window, draw) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The frame as an (H, W, 3) array, row 0 at the bottom (GL's y)."""
    from ecsphys.debug_draw import DebugDraw

    assert isinstance(draw, DebugDraw)
    window.switch_to()
    pyglet.gl.glClearColor(0, 0, 0, 1)
    window.clear()
    draw.update()
    draw.batch.draw()
    img = pyglet.image.get_buffer_manager().get_color_buffer().get_image_data()
    data = np.frombuffer(img.get_data("RGB", W * 3), dtype=np.uint8)
    return data.reshape(H, W, 3)


def px(frame: np.ndarray, draw, x: float, y: float) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    sx, sy = draw.world_to_screen(x, y)
    return tuple(int(v) for v in frame[int(round(sy)), int(round(sx))])


def close(got: tuple[int, ...], want: tuple[int, ...], tol: int = 8) -> bool:
    """Colours equal up to the renderer's dithering."""
    return all(abs(a - b) <= tol for a, b in zip(got, want, strict=False))


SHAPES = {  # entity position, shape, world points inside, world points outside
    "circle": ((3, 3), ep.Circle(1.5), [(3, 3), (4.2, 3), (3, 1.7)], [(4.3, 4.3), (3, 4.8)]),
    "rect": ((9, 3), ep.Rect(3, 1.5), [(9, 3), (10.3, 3.6)], [(9, 4.2), (10.8, 3)]),
    "oriented": ((15, 3), ep.OrientedRect(4, 1, 45), [(15, 3), (16.2, 4.2)],
                 [(16.2, 1.8), (13.8, 4.2)]),
    "segment": ((3, 10), ep.Segment((-2, -1), (2, 1)), [(3, 10), (4, 10.5)], [(3, 11), (4, 9.5)]),
    "polygon": ((9, 10), ep.Polygon([(-2, -1.5), (2, -1.5), (0, 2)]), [(9, 10), (10.5, 8.8)],
                [(10.5, 11), (7.5, 11)]),
    "compound": ((15, 10), ep.Compound([ep.Circle(1, offset=(-1.5, 0)),
                                        ep.Rect(1.5, 3, offset=(1.5, 0))]),
                 [(13.5, 10), (16.5, 11.2)], [(15, 11.5), (15, 8.5), (17.5, 10)]),
}


def test_every_shape_kind_is_drawn_where_it_is(window, world) -> None:  # type: ignore[no-untyped-def]
    from ecsphys.debug_draw import KIND_COLORS, DebugDraw

    physics = ep.Physics(fixed_dt=1 / 60)
    for (x, y), shape, _, _ in SHAPES.values():
        esper.create_entity(ep.Position(x, y), ep.Collider(ep.STATIC), ep.Geometry(shape))
    physics.step()
    draw = DebugDraw(physics, scale=SCALE, flashes=False)
    frame = render(window, draw)
    static = KIND_COLORS[int(ep.STATIC)][:3]
    for name, (_, _, inside, outside) in SHAPES.items():
        for x, y in inside:
            assert close(px(frame, draw, x, y), static), (name, "inside", x, y)
        for x, y in outside:
            assert px(frame, draw, x, y) == BG, (name, "outside", x, y)
    assert draw.body_count == len(SHAPES)


def test_kind_colors_interpolation_and_no_new_shapes_per_frame(window, world) -> None:  # type: ignore[no-untyped-def]
    from ecsphys.debug_draw import KIND_COLORS, SENSOR_COLOR, DebugDraw

    physics = ep.Physics(fixed_dt=1 / 60)
    ball = esper.create_entity(ep.Position(2, 5), ep.Velocity(60, 0), ep.Collider(ep.ACTIVE),
                               ep.Geometry(ep.Circle(0.5)))
    esper.create_entity(ep.Position(2, 2), ep.Collider(ep.PASSIVE), ep.Geometry(ep.Rect(1, 1)))
    esper.create_entity(ep.Position(8, 2), ep.Collider(ep.STATIC, sensor=True),
                        ep.Geometry(ep.Rect(2, 2)))
    draw = DebugDraw(physics, scale=SCALE, offset=(10, 0), flashes=False)
    esper.process(1 / 60 * 1.5)  # one step of 1 unit, alpha 0.5: drawn half a unit back
    assert physics.alpha == pytest.approx(0.5)
    frame = render(window, draw)
    items = [item for body in draw._rows for item, _, _ in body.items]

    def near(color: tuple[int, ...], want: tuple[int, ...], tol: int = 40) -> bool:
        return all(abs(a - b) <= tol for a, b in zip(color, want, strict=False))

    assert px(frame, draw, 2.5, 5) != BG  # the ball, interpolated to x = 2.5
    assert px(frame, draw, 3.3, 5) == BG  # not at its step position's far side (x = 3.5)
    assert near(px(frame, draw, 2.5, 5), KIND_COLORS[int(ep.ACTIVE)][:3], 60)
    assert near(px(frame, draw, 2, 2), KIND_COLORS[int(ep.PASSIVE)][:3], 60)
    assert px(frame, draw, 8, 2) != BG and px(frame, draw, 8, 2)[1] > px(frame, draw, 8, 2)[0]
    assert SENSOR_COLOR[1] > SENSOR_COLOR[0]
    for _ in range(5):
        esper.process(1 / 60)
        render(window, draw)
    assert [item for body in draw._rows for item, _, _ in body.items] == items  # moved, not made
    x, _ = physics.interpolated_position(ball)
    assert px(render(window, draw), draw, x, 5) != BG
    esper.delete_entity(ball, immediate=True)
    esper.process(1 / 60)
    render(window, draw)
    assert draw.body_count == 2


def test_toggles_and_transform(window, world) -> None:  # type: ignore[no-untyped-def]
    from ecsphys.debug_draw import DebugDraw

    physics = ep.Physics(fixed_dt=1 / 60)
    esper.create_entity(ep.Position(5, 5), ep.Collider(ep.STATIC),
                        ep.Geometry(ep.OrientedRect(4, 1, 45)))
    esper.create_entity(ep.Position(14, 2), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(4, 1)))
    esper.create_entity(ep.Position(14, 4), ep.Velocity(0, -30), ep.Collider(ep.ACTIVE),
                        ep.Geometry(ep.Circle(0.5)))
    draw = DebugDraw(physics, scale=SCALE, aabbs=True, contacts=True, flashes=True)
    assert draw.screen_to_world(*draw.world_to_screen(1.25, -3.5)) == (1.25, -3.5)
    for _ in range(20):
        esper.process(1 / 60)
    frame = render(window, draw)
    corner = 5 + math.sqrt(2) * 2.5 / 2 * 0.999  # the oriented rect's AABB corner
    sx, sy = draw.world_to_screen(corner, corner)
    assert frame[int(sy) - 1: int(sy) + 2, int(sx) - 1: int(sx) + 2].max() > 0  # AABB line
    assert len(physics.contact_set) >= 1
    assert draw._shown_contacts >= 1
    draw.aabbs = draw.contacts = draw.colliders = draw.flashes = False
    assert render(window, draw).max() == 0  # every layer hidden: nothing drawn
    draw.colliders = True
    assert render(window, draw).max() > 0
    draw.delete()
    assert render(window, draw) is not None


def test_boxes_side_by_side_show_an_outline_between_them(window, world) -> None:  # type: ignore[no-untyped-def]
    """Two passive crates touching are drawn as two boxes: a darker seam where they meet."""
    from ecsphys.debug_draw import KIND_COLORS, DebugDraw

    physics = ep.Physics(fixed_dt=1 / 60)
    for x in (4.0, 6.0):  # 2 wide each: they meet at x = 5
        esper.create_entity(ep.Position(x, 5), ep.Collider(ep.PASSIVE), ep.Geometry(ep.Rect(2, 2)))
    physics.step()
    draw = DebugDraw(physics, scale=SCALE, flashes=False)
    frame = render(window, draw)
    fill = KIND_COLORS[int(ep.PASSIVE)][:3]
    middle = px(frame, draw, 4.0, 5.0)
    assert close(middle, fill, 40) and close(px(frame, draw, 6.0, 5.0), fill, 40)
    seam = [px(frame, draw, 5.0 + dx / SCALE, 5.0) for dx in (-1.5, -0.5, 0.5, 1.5)]
    darker = [c for c in seam if all(s < 0.85 * m for s, m in zip(c, middle, strict=True))]
    assert darker and all(c != BG for c in seam), (seam, middle)  # a seam, not a gap


def test_a_tile_map_is_drawn_as_its_tiles_and_redrawn_when_dug(window, world) -> None:  # type: ignore[no-untyped-def]
    """Solid tiles dimmed, their outline in the static colour, empty tiles not drawn; a tile
    dug or built shows at the next frame."""
    from ecsphys.debug_draw import DebugDraw

    physics = ep.Physics(fixed_dt=1 / 60)
    level = ep.TileMap(["#...", "##.#"], 2.0)  # tiles 2 units (40 px) wide
    esper.create_entity(ep.Position(2, 2), ep.Collider(ep.STATIC), ep.Geometry(level))
    physics.step()
    draw = DebugDraw(physics, scale=SCALE, flashes=False, aabbs=False)
    frame = render(window, draw)
    fill = px(frame, draw, 3, 5)  # the middle of tile (0, 0): x 2..4, y 4..6
    assert fill != BG and max(fill) < 100  # dimmed
    assert px(frame, draw, 7, 5) == BG  # tile (0, 2) is empty
    assert px(frame, draw, 7, 3) == BG  # so is tile (1, 2)
    assert px(frame, draw, 9, 3) != BG  # tile (1, 3) is solid
    level[0, 0] = 0  # dig
    level[1, 2] = 5  # build
    physics.step()
    frame = render(window, draw)
    assert px(frame, draw, 3, 5) == BG
    assert px(frame, draw, 7, 3) != BG


def test_a_mask_is_drawn_as_its_pixels(window, world) -> None:  # type: ignore[no-untyped-def]
    from ecsphys.debug_draw import KIND_COLORS, DebugDraw
    from ecsphys.mask import Mask

    physics = ep.Physics(fixed_dt=1 / 60)
    ring = np.ones((10, 10), dtype=bool)
    ring[3:7, 3:7] = False  # a square hole in the middle
    ring[0, :5] = False  # and the top-left of the top row missing
    esper.create_entity(ep.Position(6, 6), ep.Collider(ep.STATIC),
                        ep.Geometry(Mask(ring, scale=0.5)))  # 5 x 5 units, x and y 3.5 .. 8.5
    physics.step()
    draw = DebugDraw(physics, scale=SCALE, flashes=False)
    frame = render(window, draw)
    static = KIND_COLORS[int(ep.STATIC)][:3]
    assert close(px(frame, draw, 3.75, 3.75), static)  # the bottom-left pixel
    assert close(px(frame, draw, 8.25, 8.25), static)  # the top-right one
    assert px(frame, draw, 6.0, 6.0) == BG  # the hole
    assert px(frame, draw, 3.75, 8.25) == BG  # the missing top-left pixel
    assert px(frame, draw, 9.0, 6.0) == BG  # outside


def _sleeping_ball(sleep_after: float = 0.25):  # type: ignore[no-untyped-def]
    """A ball fallen to rest on a static floor and asleep: ``(physics, ball)``."""
    physics = ep.Physics(fixed_dt=1 / 60, sleep_after=sleep_after)
    esper.create_entity(ep.Position(10, 1), ep.Collider(ep.STATIC), ep.Geometry(ep.Rect(20, 2)))
    ball = esper.create_entity(ep.Position(5, 3.0), ep.Velocity(0, 0), ep.Collider(ep.ACTIVE),
                               ep.AccelerationMap(gravity=(0, -20)),
                               ep.Geometry(ep.Circle(1.0)))
    for _ in range(120):
        esper.process(1 / 60)
        if physics.is_sleeping(ball):
            break
    assert physics.is_sleeping(ball)
    return physics, ball


def _blend(color: tuple[int, int, int, int], alpha: float) -> tuple[int, ...]:
    """``color`` drawn at opacity ``alpha`` (0..255) over the black background."""
    return tuple(round(c * alpha / 255) for c in color[:3])


def test_a_sleeping_body_is_drawn_dimmed_and_the_toggle_turns_it_off(window, world) -> None:  # type: ignore[no-untyped-def]
    from ecsphys.debug_draw import KIND_COLORS, SLEEP_DIM, DebugDraw

    physics, ball = _sleeping_ball()
    color = KIND_COLORS[int(ep.ACTIVE)]
    normal, dimmed = _blend(color, color[3]), _blend(color, round(color[3] * SLEEP_DIM))
    assert all(a - b > 40 for a, b in zip(normal[1:], dimmed[1:], strict=True))  # tell apart
    x, y = physics.interpolated_position(ball)
    draw = DebugDraw(physics, scale=SCALE, flashes=False)
    assert draw.sleepers  # on by default
    assert close(px(render(window, draw), draw, x, y), dimmed)
    dims = []
    for body in draw._rows:  # count the bodies re-coloured in Python from now on
        body.dim = lambda dimmed, _dim=body.dim: (dims.append(dimmed), _dim(dimmed))
    assert close(px(render(window, draw), draw, x, y), dimmed)  # and stays so,
    assert dims == []  # touching no body while no sleep state changes
    draw.sleepers = False
    assert close(px(render(window, draw), draw, x, y), normal)
    assert dims == [False]  # the sleeper only
    draw.sleepers = True
    assert close(px(render(window, draw), draw, x, y), dimmed)
    floor = px(render(window, draw), draw, 15, 1)  # a static body never sleeps: never dimmed
    assert close(floor, KIND_COLORS[int(ep.STATIC)][:3])
    off = DebugDraw(physics, scale=SCALE, flashes=False, sleepers=False)
    assert close(px(render(window, off), off, x, y), normal)


@pytest.mark.parametrize("how", ["wake", "velocity"])
def test_a_woken_body_is_drawn_in_its_normal_colour_again(window, world, how) -> None:  # type: ignore[no-untyped-def]
    from ecsphys.debug_draw import KIND_COLORS, SLEEP_DIM, DebugDraw

    physics, ball = _sleeping_ball()
    color = KIND_COLORS[int(ep.ACTIVE)]
    normal, dimmed = _blend(color, color[3]), _blend(color, round(color[3] * SLEEP_DIM))
    draw = DebugDraw(physics, scale=SCALE, flashes=False)
    x, y = physics.interpolated_position(ball)
    assert close(px(render(window, draw), draw, x, y), dimmed)
    if how == "wake":
        physics.wake(ball)
    else:  # the game's write wakes it at the next step
        esper.component_for_entity(ball, ep.Velocity).xy = (0.0, 0.5)
        esper.process(1 / 60)
    assert not physics.is_sleeping(ball)
    x, y = physics.interpolated_position(ball)
    assert close(px(render(window, draw), draw, x, y), normal)
    for _ in range(120):  # it rests again and falls asleep again: dimmed again
        esper.process(1 / 60)
    assert physics.is_sleeping(ball)
    x, y = physics.interpolated_position(ball)
    assert close(px(render(window, draw), draw, x, y), dimmed)
