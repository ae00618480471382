"""A random walker that steers away from obstacles seen by its range rays (Braitenberg-style)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from controllers.library.avoider_compiled import avoid
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
        p = self.params
        turn, vx, vy = avoid(self._angles, self._read(), *self.propose(), self._half_fov, self._safe, p.turn_rate, dt)
        self.robot.turn(turn)
        self._vx = vx
        self._vy = vy
        self.robot.set_velocity(vx, vy if self._sideways else 0.0, 0.0)
