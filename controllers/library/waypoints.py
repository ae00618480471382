"""`WaypointFlyer`: a quadrotor that takes off and visits a list of points in position mode."""

from __future__ import annotations

import math
from dataclasses import dataclass

from controllers import Controller


class WaypointFlyer(Controller):
    """Fly to each waypoint (offsets from the start, metres) in turn; a waypoint counts as reached
    within `tolerance` metres. Records `waypoint` (its index) at each arrival."""

    @dataclass(frozen=True)
    class Params:
        waypoints: tuple[tuple[float, float, float], ...] = ((0.0, 0.0, 2.0), (3.0, 0.0, 2.0), (3.0, 3.0, 2.0))
        tolerance: float = 0.2
        loop: bool = False

        def __post_init__(self) -> None:
            if not self.waypoints:
                raise ValueError("give at least one waypoint")
            if self.tolerance <= 0:
                raise ValueError(f"tolerance must be > 0 m, got {self.tolerance}")

    period = 0.1

    def setup(self) -> None:
        self.home = self.robot.position
        self.index = 0
        self.reached = 0
        self._go()

    def _go(self) -> None:
        x, y, z = self.params.waypoints[self.index]
        here = self.robot.position
        heading = math.atan2(self.home[1] + y - here[1], self.home[0] + x - here[0]) if (x or y) else self.robot.heading
        self.robot.fly("position", self.home[0] + x, self.home[1] + y, z, heading)

    def step(self) -> None:
        if self.index >= len(self.params.waypoints):
            return
        x, y, z = self.params.waypoints[self.index]
        p = self.robot.position
        if math.dist((float(p[0]), float(p[1]), float(p[2])), (self.home[0] + x, self.home[1] + y, z)) < self.params.tolerance:
            self.record("waypoint", self.index)
            self.reached += 1
            self.index += 1
            if self.index == len(self.params.waypoints) and self.params.loop:
                self.index = 0
            if self.index < len(self.params.waypoints):
                self._go()
