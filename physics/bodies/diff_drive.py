"""Differential-drive ground robots: two wheels on one axle, no sideways motion.

Commands are a forward speed v (m/s) and a turn rate w (rad/s), or equivalently the two wheel
speeds (v -/+ w * wheel_base / 2). Each step the commanded wheel speeds are approached at most at
the robot's acceleration, itself capped by what ground friction can give (mu * g), and clipped to
the maximum wheel speed; the pose then moves along the exact arc of constant (v, w) for the step.
A heading command (the SimpleBee `turn` / `set_heading`) becomes a turn rate proportional to the
heading error, so generic controllers drive these robots too. All arrays hold every robot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from physics.kinematic import kernels

G = 9.81


@dataclass(frozen=True)
class DriveSpec:
    """Wheel base (m), top wheel speed (m/s), acceleration (m/s^2), ground friction coefficient."""

    wheel_base: float = 0.3
    """The distance between the wheels (m)."""
    max_wheel_speed: float = 1.0
    """The fastest a wheel turns, as ground speed (m/s)."""
    max_accel: float = 2.0
    """The most a wheel's speed changes per second (m/s²)."""
    friction: float = 0.8
    """The wheels' friction coefficient on the ground (pybullet)."""
    heading_gain: float = 3.0
    """Turn rate per radian of heading error when the robot is steered by heading commands (1/s)."""

    def __post_init__(self) -> None:
        if min(self.wheel_base, self.max_wheel_speed, self.max_accel, self.friction, self.heading_gain) <= 0:
            raise ValueError("wheel_base, max_wheel_speed, max_accel, friction and heading_gain must be > 0")
        if self.wheel_base > 100 or self.max_wheel_speed > 1000 or max(self.max_accel, self.friction, self.heading_gain) > 1e4:
            raise ValueError("wheel_base must be at most 100 m, max_wheel_speed 1,000 m/s, and max_accel, friction and "
                             f"heading_gain 1e4; got {self.wheel_base:g}, {self.max_wheel_speed:g}, {self.max_accel:g}, "
                             f"{self.friction:g}, {self.heading_gain:g}")


class DriveCommands:
    """Wheel commands written by controllers, held until the world's next latch."""

    def __init__(self) -> None:
        self._one: dict[int, tuple[float, float] | None] = {}  # robot -> (v, w); None: generic commands again
        self._many: list[tuple[np.ndarray, np.ndarray | None, np.ndarray | None]] = []

    def drive(self, i: int, v: float | None, w: float = 0.0) -> None:
        self._one[i] = None if v is None else (float(v), float(w))

    def drive_many(self, robots: np.ndarray, v: np.ndarray | None, w: np.ndarray | None) -> None:
        self._many.append((robots, None if v is None else np.array(v, dtype=np.float64),
                           None if w is None else np.array(w, dtype=np.float64)))

    def take(self) -> list[tuple[int, float | None, float]]:
        """The pending commands as (robot, v, w) in the order `apply` applies them (v None: generic
        commands again), handed to an engine that latches them itself (cosim.fused_engine); none are left."""
        out: list[tuple[int, float | None, float]] = [(i, None, 0.0) if c is None else (i, *c) for i, c in self._one.items()]
        for robots, v, w in self._many:
            vs = [None] * len(robots) if v is None else np.broadcast_to(v, (len(robots),)).tolist()
            ws = [0.0] * len(robots) if w is None else np.broadcast_to(w, (len(robots),)).tolist()
            out.extend(zip(np.asarray(robots).tolist(), vs, ws))
        self._one.clear()
        self._many.clear()
        return out

    def apply(self, bank: DiffDriveBank, slot: np.ndarray) -> None:
        """Hand the pending commands to the bank (rows by `slot[robot]`), in the order given."""
        for i, cmd in self._one.items():
            k = int(slot[i])
            if cmd is None:
                bank.steer_by_heading[k] = True
            else:
                bank.drive(k, *cmd)
        self._one.clear()
        for robots, v, w in self._many:
            k = slot[robots]
            if v is None:
                bank.steer_by_heading[k] = True
            else:
                bank.drive_many(k, v, w)
        self._many.clear()


class DiffDriveBank:
    """Wheel speeds and poses of N differential-drive robots; `step` integrates them."""

    def __init__(self, specs: list[DriveSpec], positions: np.ndarray, headings: np.ndarray) -> None:
        self.n = len(specs)
        self.base = np.array([s.wheel_base for s in specs])
        self.max_wheel = np.array([s.max_wheel_speed for s in specs])
        self.accel = np.array([min(s.max_accel, s.friction * G) for s in specs])
        self.heading_gain = np.array([s.heading_gain for s in specs])
        self.pos = np.array(positions, dtype=float).reshape(self.n, 3)
        self.heading = np.array(headings, dtype=float)
        self.wheels = np.zeros((self.n, 2))  # left, right (m/s)
        self.cmd_wheels = np.zeros((self.n, 2))
        self.steer_by_heading = np.zeros(self.n, dtype=bool)
        self.cmd_speed = np.zeros(self.n)
        self.cmd_heading = self.heading.copy()

    def drive(self, i: int, v: float, w: float) -> None:
        """Forward speed v and turn rate w (counter-clockwise)."""
        half = 0.5 * self.base[i] * w
        self.cmd_wheels[i] = (v - half, v + half)
        self.steer_by_heading[i] = False

    def drive_many(self, k: np.ndarray, v: np.ndarray, w: np.ndarray) -> None:
        """`drive` for rows k at once (the same arithmetic, so the same wheel commands)."""
        half = 0.5 * self.base[k] * w
        self.cmd_wheels[k, 0] = v - half
        self.cmd_wheels[k, 1] = v + half
        self.steer_by_heading[k] = False

    def steer(self, speeds: np.ndarray, headings: np.ndarray, which: np.ndarray) -> None:
        """Generic commands for robots in `which`: forward speed and a heading to turn to."""
        self.cmd_speed[which] = speeds[which]
        self.cmd_heading[which] = headings[which]
        self.steer_by_heading[which] = True

    @property
    def speed(self) -> np.ndarray:
        """Forward speed of each robot (m/s): the mean of its wheels."""
        return self.wheels.mean(axis=1)

    def ramp(self, dt: float, alive: np.ndarray) -> None:
        """Only the wheels: toward their targets (heading steering, top speed, zero for the dead)
        within the acceleration limit, for a world whose bodies move themselves on motorised wheels."""
        kernels.drive_wheels(dt, np.ascontiguousarray(alive, dtype=np.bool_), self.cmd_wheels, self.steer_by_heading,
                             self.cmd_speed, self.cmd_heading, self.heading, self.base, self.heading_gain, self.max_wheel,
                             self.accel, self.wheels)

    def step(self, dt: float, alive: np.ndarray) -> None:
        """Wheels toward their targets within the acceleration limit, then an exact arc."""
        kernels.drive_step(dt, np.ascontiguousarray(alive, dtype=np.bool_), self.cmd_wheels, self.steer_by_heading,
                           self.cmd_speed, self.cmd_heading, self.base, self.heading_gain, self.max_wheel, self.accel,
                           self.wheels, self.pos, self.heading)
