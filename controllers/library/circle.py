"""Hover-and-circle for a group of quadrotors: gym-pybullet-drones' `pid` example as one of ours.

Each vehicle climbs to its own height (`height` plus `height_step` per vehicle, so they stack like
gym's drones) and then follows a moving position setpoint around a circle of `radius` that passes
through its start, one lap per `period_s`; the setpoint moves at every controller tick, as gym's
target does at every control step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from controllers import GroupController


class CircleGroup(GroupController):
    """Every quadrotor of the group circles its own centre, `radius` metres along -x of its start."""

    @dataclass(frozen=True)
    class Params:
        radius: float = 0.3
        period_s: float = 10.0
        height: float = 0.5
        height_step: float = 0.05
        hover_s: float = 2.0
        """Seconds of climbing and holding at the start before the circling begins."""

        def __post_init__(self) -> None:
            if self.radius <= 0 or self.period_s <= 0 or self.height <= 0 or self.hover_s < 0:
                raise ValueError("radius, period_s and height must be > 0 and hover_s >= 0")

    period = 0.02

    def setup(self) -> None:
        g = self.group
        p = self.params
        start = g.positions()
        self._centre = start[:, :2] - np.array([p.radius, 0.0])
        self._z = p.height + p.height_step * np.arange(g.n)
        g.fly("position", start[:, 0], start[:, 1], self._z, 0.0)

    def step(self) -> None:
        p = self.params
        t = self.now - p.hover_s
        if t < 0:
            return
        angle = 2.0 * math.pi * t / p.period_s
        x = self._centre[:, 0] + p.radius * math.cos(angle)
        y = self._centre[:, 1] + p.radius * math.sin(angle)
        self.group.fly("position", x, y, self._z, 0.0)
