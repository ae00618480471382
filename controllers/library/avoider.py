"""A random walker that steers away from obstacles seen by its range rays (Braitenberg-style)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from controllers.library.avoider_compiled import clear_ahead
from controllers.library.random_walk import RandomWalk


class ObstacleAvoider(RandomWalk):
    """Random walk (see RandomWalk) that vets each proposed move: when a ray within `front_deg` of the
    proposed direction of travel (the walk also moves sideways) sees something closer than
    `safe_distance`, it stops and turns toward the side with more room. Needs a `range` sensor."""

    @dataclass(frozen=True)
    class Params(RandomWalk.Params):
        safe_distance: float = 1.0
        front_deg: float = 90.0
        turn_rate: float = 1.5  # rad/s while avoiding

        def __post_init__(self) -> None:
            super().__post_init__()
            if self.safe_distance <= 0 or not 0 < self.front_deg <= 180 or self.turn_rate <= 0:
                raise ValueError("safe_distance and turn_rate must be > 0 and front_deg within (0, 180]")

    def setup(self) -> None:
        super().setup()
        sensor = self.robot.sensors.get("range")
        if sensor is None:
            raise RuntimeError("ObstacleAvoider needs a range sensor: add `sensors: {range: {}}` to its group")
        self._angles = sensor.angles
        self._read = sensor.read  # what robot.ranges() reads, without looking the sensor up each step
        self._half_fov = math.radians(self.params.front_deg) / 2
        self._safe = self.params.safe_distance
        self._sideways = self.robot.moves_sideways
        self._last_step: float | None = None

    def step(self) -> None:
        now = self.now
        dt = now - self._last_step if self._last_step is not None else 0.0  # the actual period, whatever the scenario set
        self._last_step = now
        robot = self.robot
        d = self._read()
        turn, vx, vy = self.propose()
        # where the proposed move would take it, measured from the heading the rays were cast along
        travel = turn + (math.atan2(vy, vx) if (vx or vy) else 0.0)
        if clear_ahead(self._angles, d, travel, self._half_fov, self._safe):
            robot.turn(turn)
            self._vx, self._vy = vx, vy
            robot.set_velocity(vx, vy if self._sideways else 0.0, 0.0)
            return
        left = _relative(self._angles, travel) > 0
        left_room = d[left].mean() if left.any() else 0.0
        right_room = d[~left].mean() if (~left).any() else 0.0
        direction = 1.0 if left_room >= right_room else -1.0
        robot.turn(direction * self.params.turn_rate * dt)
        self._vx, self._vy = 0.0, 0.0
        robot.set_velocity(0.0, 0.0, 0.0)


def _relative(angles: np.ndarray, travel: float) -> np.ndarray:
    """Each ray's angle from the direction of travel, within [-pi, pi)."""
    return np.remainder(angles - travel + math.pi, 2 * math.pi) - math.pi
