"""A random walker that steers away from obstacles seen by its range rays (Braitenberg-style)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from controllers.random_walk import RandomWalk


class ObstacleAvoider(RandomWalk):
    """Random walk (see RandomWalk); when a ray within `front_deg` of the heading sees something
    closer than `safe_distance`, it stops advancing and turns toward the side with more room.
    Needs a `range` sensor on its group."""

    @dataclass(frozen=True)
    class Params(RandomWalk.Params):
        safe_distance: float = 1.0
        front_deg: float = 60.0
        turn_rate: float = 1.5  # rad/s while avoiding

        def __post_init__(self) -> None:
            super().__post_init__()
            if self.safe_distance <= 0 or not 0 < self.front_deg <= 180 or self.turn_rate <= 0:
                raise ValueError("safe_distance and turn_rate must be > 0 and front_deg within (0, 180]")

    def setup(self) -> None:
        super().setup()
        opts = self.robot.sensors["range"]._opt if "range" in self.robot.sensors else None
        if opts is None:
            raise RuntimeError("ObstacleAvoider needs a range sensor: add `sensors: {range: {}}` to its group")
        rel = np.remainder(opts.angles() + math.pi, 2 * math.pi) - math.pi
        self._front = np.abs(rel) <= math.radians(self.params.front_deg) / 2
        self._left = rel > 0
        self._period_s = type(self).period or 0.1

    def step(self) -> None:
        d = self.robot.ranges()
        if d[self._front].min() >= self.params.safe_distance:
            super().step()
            return
        left_room = d[self._left].mean() if self._left.any() else 0.0
        right_room = d[~self._left].mean() if (~self._left).any() else 0.0
        direction = 1.0 if left_room >= right_room else -1.0
        self.robot.turn(direction * self.params.turn_rate * self._period_s)
        self._vx, self._vy = 0.0, 0.0
        self.robot.set_velocity(0.0, 0.0, 0.0)
