"""Crowd: an RTS crowd of active circles (slide="tangent") walks to the clicked goal through a
maze read from a text map (one TileMap entity), sliding around walls and each other.

    python examples/crowd.py [--agents N] [--headless --frames N --screenshot PATH]

Left click: every agent heads for the click. Right click: only the left half of the crowd.
"""

from __future__ import annotations

import argparse

import _scene
import esper
import numpy as np
from pyglet.window import mouse

import ecsphys as ep

MAZE = """\
##############################
#..........#.................#
#..........#.................#
#..........#......#####......#
#..........#..........#......#
#.....................#......#
#.....................#......#
#..........#..........#......#
#######.####....#######......#
#..........#.................#
#..........#.................#
#..........######...####.....#
#............................#
#............................#
#..........#.................#
#..........#.................#
#..........#.................#
##############################"""
TILE = 2.0


class Crowd:
    title = "crowd"
    scale = 16.0
    offset = (0.0, 8.0)

    def __init__(self, app: _scene.App, args: argparse.Namespace) -> None:
        self.app = app
        self.physics = ep.Physics(fixed_dt=1 / 60)
        # the whole maze is one static entity: only the outline of its walls collides
        esper.create_entity(ep.Position(0, 0), ep.Collider(ep.STATIC),
                            ep.Geometry(ep.TileMap(MAZE, TILE)))
        rng = np.random.default_rng(3)
        self.agents = []
        for _ in range(args.agents):  # start in the top-left room
            x, y = rng.uniform(3, 20), rng.uniform(20, 33)
            self.agents.append(esper.create_entity(
                ep.Position(x, y), ep.Velocity(0, 0),
                ep.Collider(ep.ACTIVE, slide="tangent"), ep.Geometry(ep.Circle(0.45))))
        self.goals = {e: (50.0, 5.0) for e in self.agents}  # the bottom-right corner
        self.speed = 4.0

    def update(self, dt: float) -> None:
        """Steer every agent straight at its goal; the slide does the path-finding's job."""
        for e in self.agents:
            pos = esper.component_for_entity(e, ep.Position)
            gx, gy = self.goals[e]
            dx, dy = gx - pos.x, gy - pos.y
            d = (dx * dx + dy * dy) ** 0.5
            v = self.speed * min(1.0, d / 1.5) / max(d, 1e-9)
            esper.component_for_entity(e, ep.Velocity).xy = (dx * v, dy * v)

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        goal = self.app.world_xy(x, y)
        chosen = self.agents if button == mouse.LEFT else self.agents[: len(self.agents) // 2]
        for e in chosen:
            self.goals[e] = goal

    def status(self) -> str:
        return (f"{len(self.agents)} agents, step {self.app.step_ms:.2f} ms; "
                "click: go there (right click: half of them)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agents", type=int, default=120, help="how many agents")


SCENE = Crowd

if __name__ == "__main__":
    _scene.main(Crowd, __doc__, add_arguments)
