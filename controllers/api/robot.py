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
    def position(self) -> np.ndarray:
        """Where the robot is: a property, (x, y, z) in metres in the arena frame (z up), a copy."""
    @property
    def velocity(self) -> np.ndarray:
        """How it moves: a property, (vx, vy, vz) in m/s in the arena frame (not the body's), a copy."""
    @property
    def heading(self) -> float:
        """Where it faces: a property, radians counter-clockwise from the arena's +x (a quadrotor's yaw)."""
    @property
    def pose(self) -> tuple[np.ndarray, float]:
        """`position` and `heading` read together: a property, ((x, y, z) m, heading rad)."""
    @property
    def alive(self) -> bool:
        """Whether it still runs: a property; a dead robot stops (a quadrotor falls) and sends nothing."""
    @property
    def attitude(self) -> tuple[float, float, float]:
        """Roll, pitch, yaw (rad) of a quadrotor or a vehicle."""
    @property
    def desired_velocity(self) -> tuple[float, float, float]:
        """The last `set_velocity` command: a property, (vx, vy, vz) in m/s in the body frame."""
    @property
    def moves_sideways(self) -> bool:
        """Whether set_velocity's vy moves this body (False on a left and a right wheel, which refuse it)."""
    @property
    def battery_j(self) -> float:
        """Energy left in joules (inf without a battery model)."""

    # -- commands -----------------------------------------------------------------------------
    def set_velocity(self, vx: float, vy: float = 0.0, vz: float = 0.0) -> None:
        """Move at a velocity in the body frame, capped at the robot's `max_speed`.

        A point robot moves at it; a quadrotor flies it as ground speed and vertical speed, holding
        its heading; a wheeled robot drives it (a left and a right wheel refuse `vy`, wheels refuse
        `vz`). A MAVLink vehicle receives it as a velocity setpoint.

        Args:
            vx: forward speed (m/s).
            vy: leftward speed (m/s).
            vz: upward speed (m/s).

        Raises:
            ValueError: a value that is not finite, or a component the body cannot move along.
        """
    def turn(self, angle: float) -> None:
        """Rotate the heading by `angle` radians, counter-clockwise seen from above (a quadrotor yaws)."""
    def set_heading(self, heading: float) -> None:
        """Face `heading` (radians counter-clockwise from the arena's +x); a quadrotor yaws to it."""
    def hover(self) -> None:
        """Stop: a zero velocity command (a quadrotor holds the point where it is, a MAVLink vehicle holds)."""
    def fly(self, mode: str, a: float, b: float, c: float, d: float | None = None) -> None:
        """Quadrotor modes: attitude, speed_vertical, speed_altitude, speed_altitude_heading, position."""
    def drive(self, v: float, w: float) -> None:
        """Differential drive: forward speed (m/s) and turn rate (rad/s)."""
    def set_wheel_speeds(self, left: float, right: float) -> None:
        """A differential-drive robot's wheel surface speeds (m/s, forward positive); other bodies refuse it."""

    # -- sensors ------------------------------------------------------------------------------
    def compass(self) -> float:
        """The `compass` sensor's noisy heading, radians in (-pi, pi]; without the sensor, an error says so."""
    def ranges(self) -> np.ndarray:
        """The `range` sensor's readings in metres, one per ray in the sensor's order (its `max_range`
        where nothing is hit); without the sensor, an error says so."""
    def gps(self) -> np.ndarray:
        """The `gps` sensor's fix, (x, y, z) in metres in the arena frame, with its noise and rate
        (`robot.sensors['gps'].geodetic()` gives latitude, longitude, altitude); without it, an error."""
    def imu(self) -> tuple[np.ndarray, np.ndarray]:
        """The `imu` sensor's (accelerometer m/s^2, gyroscope rad/s), body frame; without it, an error."""
    def bumped(self) -> bool:
        """Whether the `bump` sensor touched something during the last physics step."""
    def battery_level(self) -> float:
        """The `battery` sensor's charge left, a fraction of capacity 0..1 (with its noise and rate)."""
