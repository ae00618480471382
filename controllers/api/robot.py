"""`Robot`: the body a controller commands, the same for a simulated robot, a MAVLink-flown vehicle
and a ghost twin of a real vehicle.

State is the last physics tick's (or the last telemetry's); velocities are body frame (x forward,
y left, z up) in m/s, angles in radians, positions in metres in the arena frame. A command takes
effect at the first physics tick at or after the call. A body or sensor the robot does not have
raises an error that says so: nothing is accepted and ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Robot(Protocol):
    """Pose, commands and sensors of one robot."""

    id: int
    sensors: Mapping[str, Any]
    """The robot's sensors by name (compass, range, gps, imu, bump, battery)."""

    # -- state --------------------------------------------------------------------------------
    @property
    def position(self) -> np.ndarray: ...
    @property
    def velocity(self) -> np.ndarray: ...
    @property
    def heading(self) -> float: ...
    @property
    def pose(self) -> tuple[np.ndarray, float]: ...
    @property
    def alive(self) -> bool: ...
    @property
    def attitude(self) -> tuple[float, float, float]:
        """Roll, pitch, yaw (rad) of a quadrotor or a vehicle."""
    @property
    def desired_velocity(self) -> tuple[float, float, float]: ...
    @property
    def moves_sideways(self) -> bool:
        """Whether set_velocity's vy moves this body (False on a left and a right wheel, which refuse it)."""
    @property
    def battery_j(self) -> float:
        """Energy left in joules (inf without a battery model)."""

    # -- commands -----------------------------------------------------------------------------
    def set_velocity(self, vx: float, vy: float = 0.0, vz: float = 0.0) -> None: ...
    def turn(self, angle: float) -> None: ...
    def set_heading(self, heading: float) -> None: ...
    def hover(self) -> None: ...
    def fly(self, mode: str, a: float, b: float, c: float, d: float | None = None) -> None:
        """Quadrotor modes: attitude, speed_vertical, speed_altitude, speed_altitude_heading, position."""
    def drive(self, v: float, w: float) -> None:
        """Differential drive: forward speed (m/s) and turn rate (rad/s)."""
    def set_wheel_speeds(self, left: float, right: float) -> None: ...

    # -- sensors ------------------------------------------------------------------------------
    def compass(self) -> float: ...
    def ranges(self) -> np.ndarray: ...
    def gps(self) -> np.ndarray: ...
    def imu(self) -> tuple[np.ndarray, np.ndarray]: ...
    def bumped(self) -> bool: ...
    def battery_level(self) -> float: ...
