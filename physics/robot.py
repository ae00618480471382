"""A controller's handle on one simulated robot (SimpleBee-style actuation and its sensors)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


class Robot:
    """Pose, velocity and commands of robot `id` in a world; state is the last physics tick's.

    Velocities are in the robot's body frame (x forward, y left, z up), metres per second; angles
    in radians. Commands take effect at the first physics tick at or after the call.
    """

    __slots__ = ("_batteries", "_w", "id", "sensors")

    def __init__(self, world: Any, index: int, sensors: dict[str, Any], batteries: Any = None) -> None:
        self.id = index
        self._w = world
        self.sensors = sensors
        self._batteries = batteries

    @property
    def battery_j(self) -> float:
        """Energy left in joules (inf without a battery)."""
        return float(self._batteries.energy_j[self.id]) if self._batteries is not None else float("inf")

    @property
    def position(self) -> np.ndarray:
        return self._w.position_of(self.id)

    @property
    def pose(self) -> tuple[np.ndarray, float]:
        """(position in metres, heading in radians)."""
        return self._w.position_of(self.id), float(self._w.active_heading[self.id])

    @property
    def velocity(self) -> np.ndarray:
        return self._w.velocity_of(self.id)

    @property
    def heading(self) -> float:
        return float(self._w.active_heading[self.id])

    @property
    def alive(self) -> bool:
        return bool(self._w.alive[self.id])

    @property
    def desired_velocity(self) -> tuple[float, float, float]:
        v = self._w.cmd_vel[self.id]
        return (float(v[0]), float(v[1]), float(v[2]))

    def set_velocity(self, vx: float, vy: float = 0.0, vz: float = 0.0) -> None:
        """Desired body-frame velocity (m/s), capped at the robot's max_speed by the world."""
        self._w.cmd_vel[self.id] = (vx, vy, vz)

    def turn(self, angle: float) -> None:
        """Rotate the heading by `angle` radians (counter-clockwise seen from above)."""
        cmd = self._w.cmd_heading
        cmd[self.id] = math.remainder(float(cmd[self.id]) + angle, 2.0 * math.pi)

    def set_heading(self, heading: float) -> None:
        self._w.cmd_heading[self.id] = math.remainder(heading, 2.0 * math.pi)

    def hover(self) -> None:
        """Hold position: zero velocity command."""
        self._w.cmd_vel[self.id] = (0.0, 0.0, 0.0)

    def ranges(self) -> np.ndarray:
        """Range/IR readings in metres, one per ray (see physics.sensors.RangeOptions); needs a `range` sensor."""
        sensor = self.sensors.get("range")
        if sensor is None:
            raise RuntimeError(f"robot {self.id} has no range sensor; add `sensors: {{range: {{}}}}` to its group")
        return sensor.read()

    def compass(self) -> float:
        """A noisy heading reading, radians in (-pi, pi]; needs a `compass` sensor on the group."""
        sensor = self.sensors.get("compass")
        if sensor is None:
            raise RuntimeError(f"robot {self.id} has no compass; add `sensors: {{compass: {{}}}}` to its group")
        return sensor.read()
