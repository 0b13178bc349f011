"""PASSIVE bodies pushed into other bodies: crates side by side, stacked, pushed from both sides,
pushed into a thin wall, and the platformer scene's own crates.

A crate at rest on a floor has almost no move of its own (its velocity is carried by the floor:
zero), so the broadphase finds its pairs only within that tiny move. When a player pushes it,
the response hands it a share of the player's move (``_share_push``), and the pushed crate must
still be stopped by whatever it meets on the way (another crate, a wall), at every step.
All shapes here are axis-aligned rects, so overlaps are measured exactly from the positions.
"""

from __future__ import annotations

import itertools
import sys
import types
from pathlib import Path

import esper
import numpy as np
import pytest

import ecsphys as ep

G = (0.0, -30.0)  # the platformer's gravity
TOL = 1e-3  # the deepest overlap allowed at the end of any step
CRATE = 1.6  # crate side, as in the platformer


def body(kind, x, y, w, h, vx=0.0, vy=0.0, gravity=None, **collider):
    comps = [ep.Position(x, y), ep.Velocity(vx, vy), ep.Collider(kind, **collider),
             ep.Geometry(ep.Rect(w, h))]
    if gravity is not None:
        comps.append(ep.AccelerationMap(gravity=gravity))
    return esper.create_entity(*comps), (w, h)


def xy(e):
    p = esper.component_for_entity(e, ep.Position)
    return np.array([p.x, p.y])


def walk(e, vx):
    esper.component_for_entity(e, ep.Velocity).x = vx


def deepest(bodies):
    """The deepest overlap among axis-aligned rects ``[(entity, (w, h)), ...]`` and its pair."""
    worst, pair = 0.0, None
    for (e1, (w1, h1)), (e2, (w2, h2)) in itertools.combinations(bodies, 2):
        d = np.abs(xy(e1) - xy(e2))
        depth = min((w1 + w2) / 2 - d[0], (h1 + h2) / 2 - d[1])
        if depth > worst:
            worst, pair = depth, (e1, e2)
    return worst, pair


def floor():
    return body(ep.STATIC, 0.0, -0.5, 200.0, 1.0)  # top at y = 0


def crate(x, y=CRATE / 2 + 1e-4):
    return body(ep.PASSIVE, x, y, CRATE, CRATE, gravity=G)


def player(x, h=1.8):
    return body(ep.ACTIVE, x, h / 2 + 1e-4, 0.9, h, gravity=G)


# ------------------------------------------------------------------ side by side


@pytest.mark.parametrize("speed", [8.0, 12.0])
def test_player_pushing_a_crate_into_another_never_overlaps_them(world, speed):
    """A player walks right, pushes crate A into crate B: whatever the gap between the crates,
    they never overlap by more than TOL at the end of any step, and B ends up pushed too."""
    gaps = np.round(np.arange(0.30, 0.70, 0.03), 2)
    bad = {}
    for gap in gaps:
        esper.switch_world(f"{world}-{speed}-{gap}")
        try:
            physics = ep.Physics(fixed_dt=1 / 60)
            ground = floor()
            p = player(-2.0)
            a = crate(0.0)
            b = crate(CRATE + gap)
            bodies = [ground, p, a, b]
            for step in range(45):
                walk(p[0], speed)
                physics.step()
                depth, pair = deepest(bodies)
                if depth > TOL:
                    bad[gap] = (step, round(depth, 4), pair)
                    break
            else:
                assert xy(b[0])[0] > CRATE + gap + 0.1, (gap, "B was not pushed")
                assert xy(b[0])[0] - xy(a[0])[0] >= CRATE - TOL
        finally:
            esper.switch_world(world)
    assert not bad, f"crates overlapping (gap: (step, depth, pair)): {bad}"


def test_two_crates_touching_pushed_together_both_move_without_overlap(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    ground = floor()
    p = player(-2.0)
    a = crate(0.0)
    b = crate(CRATE + 1e-4)
    bodies = [ground, p, a, b]
    for step in range(120):
        walk(p[0], 8.0)
        physics.step()
        depth, pair = deepest(bodies)
        assert depth <= TOL, (step, depth, pair)
    assert xy(a[0])[0] > 3.0 and xy(b[0])[0] > 3.0 + CRATE - TOL
    for c in (a, b):
        assert xy(c[0])[1] == pytest.approx(CRATE / 2, abs=0.01)  # still on the floor


def test_two_players_push_crates_into_each_other(world):
    """Two players push two crates towards each other: the crates meet in the middle and stop
    there, both pushed, never overlapping. (Bodies move one at a time, so the side that moves
    first gains a little: the meeting point is the middle to a few hundredths, not exactly.)"""
    physics = ep.Physics(fixed_dt=1 / 60)
    ground = floor()
    left, right = player(-3.0), player(3.0)
    a, b = crate(-1.0), crate(1.0)
    bodies = [ground, left, right, a, b]
    for step in range(120):
        walk(left[0], 4.0)
        walk(right[0], -4.0)
        physics.step()
        depth, pair = deepest(bodies)
        assert depth <= TOL, (step, depth, pair)
    xa, xb = xy(a[0])[0], xy(b[0])[0]
    assert xa > -1.0 + 0.1 and xb < 1.0 - 0.1  # both were pushed
    assert xb - xa == pytest.approx(CRATE, abs=0.01)  # and meet face to face
    assert xa == pytest.approx(-xb, abs=0.05)


# ------------------------------------------------------------------ thin walls


@pytest.mark.parametrize("x0", np.round(np.linspace(0.0, 0.5, 11), 2).tolist())
def test_pushed_crate_never_enters_or_passes_a_thin_wall(world, x0):
    """A fast player pushes a small crate into a thin wall: the crate stops at the wall's face,
    on the player's side, at every step (a pushed crate tunnelling is the crate that vanished)."""
    physics = ep.Physics(fixed_dt=1 / 60)
    ground = floor()
    wall = body(ep.STATIC, 3.0, 5.0, 0.05, 10.0)
    p = body(ep.ACTIVE, x0 - 1.0, 0.5 + 1e-4, 0.9, 1.0, gravity=G)
    c = body(ep.PASSIVE, x0, 0.2 + 1e-4, 0.4, 0.4, gravity=G)
    face = 3.0 - 0.025
    for step in range(40):
        walk(p[0], 60.0)
        physics.step()
        depth, pair = deepest([ground, wall, p, c])
        assert depth <= TOL, (step, depth, pair)
        assert xy(c[0])[0] + 0.2 <= face + TOL, (step, "crate in or past the wall")
    assert xy(c[0])[0] == pytest.approx(face - 0.2, abs=0.01)


# ------------------------------------------------------------------ stacks


def test_crate_stacked_on_a_crate_stays_on_top(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    ground = floor()
    low = crate(0.0)
    top = crate(0.3, CRATE * 1.5 + 2e-4)
    bodies = [ground, low, top]
    for step in range(300):
        physics.step()
        depth, pair = deepest(bodies)
        assert depth <= TOL, (step, depth, pair)
    assert xy(low[0]) == pytest.approx([0.0, CRATE / 2], abs=0.01)
    assert xy(top[0]) == pytest.approx([0.3, CRATE * 1.5], abs=0.01)


def test_crate_dropped_onto_a_crate_lands_on_top(world):
    physics = ep.Physics(fixed_dt=1 / 60)
    ground = floor()
    low = crate(0.0)
    top = crate(0.3, 6.0)
    bodies = [ground, low, top]
    for step in range(200):
        physics.step()
        depth, pair = deepest(bodies)
        assert depth <= TOL, (step, depth, pair)
    assert xy(low[0]) == pytest.approx([0.0, CRATE / 2], abs=0.01)
    assert xy(top[0]) == pytest.approx([0.3, CRATE * 1.5], abs=0.01)


def test_tall_player_pushes_a_stack_of_two_crates(world):
    """A player taller than one crate pushes a stack of two: the stack moves, the top crate
    stays on top, nothing overlaps. (The weight of the top crate must not pin the bottom one
    to the floor: a stack is not a wall.)"""
    physics = ep.Physics(fixed_dt=1 / 60)
    ground = floor()
    p = player(-2.0, h=1.8)  # reaches above the bottom crate's top (1.6)
    low = crate(0.0)
    top = crate(0.0, CRATE * 1.5 + 2e-4)
    bodies = [ground, p, low, top]
    for step in range(120):
        walk(p[0], 4.0)
        physics.step()
        depth, pair = deepest(bodies)
        assert depth <= TOL, (step, depth, pair)
    assert xy(low[0])[0] > 2.0, "the stack did not move"
    assert abs(xy(top[0])[0] - xy(low[0])[0]) < CRATE / 2  # still resting on the bottom crate
    assert xy(top[0])[1] == pytest.approx(CRATE * 1.5, abs=0.01)
    assert xy(low[0])[1] == pytest.approx(CRATE / 2, abs=0.01)


def test_short_player_pushes_the_bottom_crate_of_a_stack(world):
    """A player lower than the bottom crate pushes it: it moves (it is not pinned by the crate
    on it), and the top crate never sinks into it or into the floor."""
    physics = ep.Physics(fixed_dt=1 / 60)
    ground = floor()
    p = player(-2.0, h=1.0)
    low = crate(0.0)
    top = crate(0.0, CRATE * 1.5 + 2e-4)
    bodies = [ground, p, low, top]
    for step in range(60):
        walk(p[0], 4.0)
        physics.step()
        depth, pair = deepest(bodies)
        assert depth <= TOL, (step, depth, pair)
    assert xy(low[0])[0] > 1.0, "the bottom crate of the stack did not move"
    assert xy(p[0])[0] > -1.0


# ------------------------------------------------------------------ the platformer scene

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def platformer_scene():
    """The platformer example's scene, built in the current esper world (no window: a stub
    that takes the key handler), driven by its demo input."""
    pyglet = pytest.importorskip("pyglet")
    pyglet.options["headless"] = True
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    import platformer  # noqa: PLC0415

    app = types.SimpleNamespace(window=types.SimpleNamespace(push_handlers=lambda *a: None))
    return platformer.Platformer(app, None)


def test_platformer_crates_stay_two_separate_crates(world):
    """The scene's two crates: the demo player pushes the first into the second; they never
    overlap (nor the player, nor the ground), and both stay on the ground as two crates."""
    scene = platformer_scene()
    crates = sorted(e for e, (c,) in esper.get_components(ep.Collider) if c.kind == ep.PASSIVE)
    assert len(crates) == 2
    bodies = [(e, (CRATE, CRATE)) for e in crates] + [(scene.player, (0.9, 1.8))]
    moved = False
    for step in range(400):
        scene.update(1 / 60)
        scene.physics.step()
        depth, pair = deepest(bodies)
        assert depth <= TOL, (step, depth, pair)
        for e, (_, h) in bodies:  # the ground (the level's tiles) has its top at y = 2
            assert xy(e)[1] - h / 2 >= 2.0 - TOL, (step, e, xy(e))
        moved = moved or xy(crates[1])[0] > 9.0 + 0.05
    a, b = xy(crates[0]), xy(crates[1])
    assert b[0] - a[0] >= CRATE - TOL  # side by side, not one in the other
    assert a[1] == pytest.approx(2.0 + CRATE / 2, abs=0.01)
    assert b[1] == pytest.approx(2.0 + CRATE / 2, abs=0.01)
    assert moved, "the second crate was never pushed"


# ------------------------------------------------------------------ pairs found by the push


def _push_a_into_b(steps, veto=False):
    """A player walks a crate A into a crate B 0.45 away; returns the physics, A, B and the
    touch events between A and B as (step, ...) and the gap between them after each step."""
    physics = ep.Physics(fixed_dt=1 / 60)
    floor()
    p = player(-1.5)
    a = crate(0.0)
    b = crate(CRATE + 0.45)
    crates = {a[0], b[0]}
    if veto:
        physics.filter_pair = lambda x, y: not ({x, y} <= crates)
    touches, gaps = [], []

    @physics.on_touch
    def on_touch(contact):
        if {contact.a, contact.b} == crates:
            touches.append(physics.steps)

    for _ in range(steps):
        walk(p[0], 10.0)
        physics.step()
        gaps.append(xy(b[0])[0] - xy(a[0])[0] - CRATE)
    return physics, a, b, touches, gaps


def test_pushed_crate_touches_the_next_crate_in_the_step_it_reaches_it(world):
    """The pair found beyond the broadphase's boxes reaches the narrowphase: the touch event
    comes in the step the gap closes to within the contact offset, not a step later."""
    physics, a, b, touches, gaps = _push_a_into_b(40)
    closed = [i + 1 for i, g in enumerate(gaps) if g <= physics.contact_offset]
    assert closed and touches, (gaps, touches)
    assert touches[0] == closed[0]
    assert min(gaps) >= -TOL


def test_filter_pair_vetoes_the_pairs_found_beyond_the_boxes(world):
    """A game rule that lets crates pass through each other holds for pushed crates too."""
    physics, a, b, touches, gaps = _push_a_into_b(40, veto=True)
    assert touches == []
    assert min(gaps) < -0.1  # A went into B's space: nothing stopped it
