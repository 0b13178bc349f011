"""Pong: two active paddles, an active ball with restitution 1, static walls; touch events score.

    python examples/pong.py [--headless --frames N --screenshot PATH]

W/S move the left paddle, Up/Down the right one; untouched paddles follow the ball.
A goal is a sensor behind each paddle: touching it scores for the other side.
"""

from __future__ import annotations

import argparse

import _scene
import esper
from pyglet.window import key

import ecsphys as ep

W, H = 30.0, 20.0


class Pong:
    title = "pong"
    scale = 30.0
    offset = (30.0, 20.0)

    def __init__(self, app: _scene.App, args: argparse.Namespace) -> None:
        self.physics = ep.Physics(fixed_dt=1 / 60)
        self.keys = key.KeyStateHandler()
        app.window.push_handlers(self.keys)
        self.score = [0, 0]
        for y in (-0.5, H + 0.5):
            esper.create_entity(ep.Position(W / 2, y), ep.Collider(ep.STATIC),
                                ep.Geometry(ep.Rect(W + 2, 1)))
        self.goals = [esper.create_entity(ep.Position(x, H / 2),
                                          ep.Collider(ep.STATIC, sensor=True),
                                          ep.Geometry(ep.Rect(1, H)))
                      for x in (-0.5, W + 0.5)]
        self.paddles = [esper.create_entity(ep.Position(x, H / 2), ep.Velocity(0, 0),
                                            ep.Collider(ep.ACTIVE), ep.Geometry(ep.Rect(0.6, 4)))
                        for x in (1.5, W - 1.5)]
        self.ball = esper.create_entity(
            ep.Position(W / 2, H / 2), ep.Velocity(11, 7),
            ep.Collider(ep.ACTIVE, restitution=1.0), ep.Geometry(ep.Circle(0.5)))
        self.physics.on_touch(self.goal, entity=self.ball)

    def goal(self, contact) -> None:  # noqa: ANN001
        """The ball touched something: a goal sensor scores for the far side."""
        other = contact.other(self.ball)
        if other in self.goals:
            self.score[1 - self.goals.index(other)] += 1
            pos = esper.component_for_entity(self.ball, ep.Position)
            vel = esper.component_for_entity(self.ball, ep.Velocity)
            pos.xy = (W / 2, H / 2)
            vel.xy = (-vel.x, vel.y)

    def update(self, dt: float) -> None:
        ball = esper.component_for_entity(self.ball, ep.Position)
        for paddle, (up, down) in zip(self.paddles, ((key.W, key.S), (key.UP, key.DOWN)),
                                      strict=True):
            vel = esper.component_for_entity(paddle, ep.Velocity)
            pos = esper.component_for_entity(paddle, ep.Position)
            steer = self.keys[up] - self.keys[down]
            if not steer:  # follow the ball
                steer = max(-0.6, min(0.6, (ball.y - pos.y) / 2))  # a slow AI
            home = 1.5 if paddle == self.paddles[0] else W - 1.5
            vel.xy = ((home - pos.x) * 10, 12 * steer)  # back to its line if the ball shoved it

    def status(self) -> str:
        return f"score {self.score[0]} : {self.score[1]}"


SCENE = Pong

if __name__ == "__main__":
    _scene.main(Pong, __doc__)
