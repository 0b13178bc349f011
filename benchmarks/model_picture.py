"""What the model is, in a picture: the same two scenes in ecsphys and in pymunk.

- ``heap``: 30 square crates (1 x 1, mass 1, friction 0.6) poured into a box of static floor
  and walls 8 wide: dropped one above another (1.05 apart) at random places across the box;
- ``tower``: 5 such crates stacked, each 0.3 to the right of the one below, so the tower's
  centre of mass is beyond the bottom crate's edge.

Each scene runs 5 s at dt 1/60, gravity (0, -9.8). ecsphys crates are PASSIVE ``Rect``s; they
never rotate (ecsphys has no angular velocity, torque or moment of inertia), so its tower
stands and its crates stay upright where they land. pymunk's are ``Poly.create_box`` bodies
that tip, topple and pack. The picture shows the final states side by side, each panel
titled with the height of its heap (the top of the highest crate above the floor).

    python -m benchmarks.model_picture --out docs/model.png
"""

from __future__ import annotations

import argparse
import itertools

import esper
import numpy as np
import pymunk
from matplotlib.figure import Figure
from matplotlib.patches import Polygon, Rectangle

import ecsphys as ep

DT = 1 / 60
SECONDS = 5.0
GRAVITY = (0.0, -9.8)
FRICTION = 0.6
CRATE = 1.0  # side of a crate
WIDTH = 8.0  # inside of the heap's box
WALL = 1.0  # thickness of the floor and walls

_worlds = itertools.count()


def heap_crates(n: int = 30, seed: int = 0) -> list[tuple[float, float]]:
    """``n`` crate centres, one above another, each at a random place across the box."""
    rng = np.random.default_rng(seed)
    return [(rng.uniform(CRATE / 2, WIDTH - CRATE / 2), 1.0 + 1.05 * k) for k in range(n)]


def tower_crates(offset: float = 0.3) -> list[tuple[float, float]]:
    """5 crates resting on each other, each ``offset`` to the right of the one below."""
    return [(WIDTH / 2 - 1.0 + offset * k, CRATE / 2 + CRATE * k) for k in range(5)]


def statics() -> list[tuple[float, float, float, float]]:
    """The floor and walls as (centre x, centre y, width, height); the floor's top is y = 0."""
    h = 13.0
    return [(WIDTH / 2, -WALL / 2, WIDTH + 2 * WALL, WALL),
            (-WALL / 2, h / 2, WALL, h), (WIDTH + WALL / 2, h / 2, WALL, h)]


def run_ecsphys(crates: list[tuple[float, float]]) -> list[np.ndarray]:
    """The crates' corners (4 x 2 each) after SECONDS in ecsphys."""
    previous = esper.current_world
    world = f"model-{next(_worlds)}"
    esper.switch_world(world)
    physics = ep.Physics(fixed_dt=DT)
    for cx, cy, w, h in statics():
        esper.create_entity(ep.Position(cx, cy), ep.Collider(ep.STATIC, friction=FRICTION),
                            ep.Geometry(ep.Rect(w, h)))
    positions = [ep.Position(x, y) for x, y in crates]
    for pos in positions:
        esper.create_entity(pos, ep.Velocity(0, 0), ep.AccelerationMap(gravity=GRAVITY),
                            ep.Collider(ep.PASSIVE, mass=1.0, friction=FRICTION),
                            ep.Geometry(ep.Rect(CRATE, CRATE)))
    for _ in range(round(SECONDS / DT)):
        physics.step(DT)
    half = CRATE / 2
    square = np.array([(-half, -half), (half, -half), (half, half), (-half, half)])
    out = [square + (pos.x, pos.y) for pos in positions]
    physics.remove()
    esper.switch_world(previous)
    esper.delete_world(world)
    return out


def run_pymunk(crates: list[tuple[float, float]]) -> list[np.ndarray]:
    """The crates' corners (4 x 2 each) after SECONDS in pymunk."""
    space = pymunk.Space()
    space.gravity = GRAVITY
    for cx, cy, w, h in statics():
        box = pymunk.Poly(space.static_body, [(cx - w / 2, cy - h / 2), (cx + w / 2, cy - h / 2),
                                              (cx + w / 2, cy + h / 2), (cx - w / 2, cy + h / 2)])
        box.friction = FRICTION
        space.add(box)
    shapes = []
    for x, y in crates:
        body = pymunk.Body(1.0, pymunk.moment_for_box(1.0, (CRATE, CRATE)))
        body.position = (x, y)
        shape = pymunk.Poly.create_box(body, (CRATE, CRATE))
        shape.friction = FRICTION
        space.add(body, shape)
        shapes.append(shape)
    for _ in range(round(SECONDS / DT)):
        space.step(DT)
    return [np.array([s.body.local_to_world(v) for v in s.get_vertices()]) for s in shapes]


def height(corners: list[np.ndarray]) -> float:
    """The top of the highest crate above the floor (y = 0)."""
    return max(float(c[:, 1].max()) for c in corners)


def draw(out: str) -> dict[str, float]:
    """Run both scenes in both engines, save the picture to ``out``; the heights by panel."""
    fig = Figure(figsize=(10, 5), dpi=100)
    axes = fig.subplots(1, 4, sharey=True)
    heights: dict[str, float] = {}
    panels = itertools.product(("heap", "tower"), ("ecsphys", "pymunk"))
    for ax, (scene, engine) in zip(axes, panels, strict=True):
        crates = heap_crates() if scene == "heap" else tower_crates()
        corners = run_ecsphys(crates) if engine == "ecsphys" else run_pymunk(crates)
        heights[f"{engine} {scene}"] = h = height(corners)
        for cx, cy, w, hh in statics():
            ax.add_patch(Rectangle((cx - w / 2, cy - hh / 2), w, hh, color="0.6"))
        colour = "tab:orange" if engine == "ecsphys" else "tab:blue"
        for c in corners:
            ax.add_patch(Polygon(c, closed=True, facecolor=colour, edgecolor="k", lw=0.8))
        ax.axhline(h, color="k", lw=0.6, ls="--")
        ax.set_xlim(-WALL, WIDTH + WALL)
        ax.set_ylim(-WALL, 13.0)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_title(f"{engine}, {scene}\nheight {h:.2f}", fontsize=10)
    fig.suptitle("Crates 1 x 1 after 5 s: ecsphys bodies never rotate, pymunk's tip and pack",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(out)
    return heights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/model.png", help="the PNG to write")
    args = parser.parse_args()
    for panel, h in draw(args.out).items():
        print(f"{panel}: height {h:.2f}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
