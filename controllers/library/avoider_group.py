"""The obstacle avoider as a group controller: `ObstacleAvoider`'s rule for the whole group in one
compiled call per tick (avoider_compiled.group_rule), instead of a Python call per robot.

Each robot draws its walk from the stream its per-robot `ObstacleAvoider` would use, and both apply
the one compiled rule (avoider_compiled.avoid): with the per-robot steps pinned to phase 0 (the
group's ticks), the two give bit-identical trajectories (tests/controllers/library/test_avoider_group.py).
"""

from __future__ import annotations

import math

import numpy as np

from controllers.library.avoider import ObstacleAvoider
from controllers.library.avoider_compiled import group_rule
from controllers.library.random_walk_group import RandomWalkGroup


class ObstacleAvoiderGroup(RandomWalkGroup):
    """`ObstacleAvoider` for every robot of the group; needs a `range` sensor with the same rays on
    every robot."""

    Params = ObstacleAvoider.Params

    def setup(self) -> None:
        super().setup()
        fans = [robot.get("range") for robot in self.group.sensors]
        if not fans or any(f is None for f in fans):
            raise RuntimeError("ObstacleAvoiderGroup needs a range sensor: add `sensors: {range: {}}` to its group")
        self._angles = np.asarray(fans[0].angles, dtype=np.float64)
        if any(not np.array_equal(f.angles, self._angles) for f in fans):
            raise RuntimeError("ObstacleAvoiderGroup needs the same range rays on every robot of its group")
        self._half_fov = math.radians(self.params.front_deg) / 2
        self._last_step: float | None = None

    def step(self) -> None:
        g = self.group
        p = self.params
        now = self.now
        dt = now - self._last_step if self._last_step is not None else 0.0
        self._last_step = now
        d = g.read("range")
        turn, self.vx, self.vy = group_rule(self._angles, d, *self.propose(), self._half_fov, p.safe_distance,
                                           p.turn_rate, dt)
        g.turn(turn)
        g.set_velocity(self.vx, self.vy if g.moves_sideways else 0.0, 0.0)
