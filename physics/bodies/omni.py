"""Three-wheeled omnidirectional ground robots: BARAKA's Robertino (paper 001, section 4).

Three Swedish wheels sit at 120 degrees around the centre, at 0.8 of the robot's radius, each
rolling tangentially (grip along its turn, almost none along its axle), so the robot moves in any
direction while it turns. Commands are a body-frame twist: forward and left speed (m/s) and turn
rate (rad/s); `drive(v, w)` is the twist (v, 0, w), and the generic commands (`set_velocity` in
the body frame plus a heading) steer it like the other ground robots. Each step the three wheel
speeds approach their targets together (so the twist keeps its direction), within the
acceleration limit (itself capped by mu * g) and the top wheel speed; in the kinematic world the
pose then follows the exact path of the constant twist.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from physics.bodies.diff_drive import DriveCommands

G = 9.81
WHEEL_AT = 0.8
"""Wheel distance from the centre, as a fraction of the robot's radius."""
ANGLES = np.radians([90.0, 210.0, 330.0])
"""Where the wheels sit around the centre (rad, from the forward axis, counter-clockwise)."""


@dataclass(frozen=True)
class OmniSpec:
    """Top wheel speed (m/s), acceleration (m/s^2), ground friction coefficient, and the turn rate
    per radian of heading error when steered by heading commands (1/s)."""

    max_wheel_speed: float = 0.6
    """The fastest a wheel turns, as ground speed (m/s)."""
    max_accel: float = 1.5
    """The most a wheel's speed changes per second (m/s²)."""
    friction: float = 0.8
    """The wheels' friction coefficient on the ground (pybullet)."""
    heading_gain: float = 3.0
    """The turn rate per radian of heading error when steered by heading commands (1/s)."""

    def __post_init__(self) -> None:
        if min(self.max_wheel_speed, self.max_accel, self.friction, self.heading_gain) <= 0:
            raise ValueError("max_wheel_speed, max_accel, friction and heading_gain must be > 0")
        if self.max_wheel_speed > 1000 or max(self.max_accel, self.friction, self.heading_gain) > 1e4:
            raise ValueError("max_wheel_speed must be at most 1,000 m/s, and max_accel, friction and heading_gain 1e4; "
                             f"got {self.max_wheel_speed:g}, {self.max_accel:g}, {self.friction:g}, {self.heading_gain:g}")


def wheel_matrix(radius: float) -> np.ndarray:
    """(3, 3): wheel surface speeds = M @ (vx, vy, w) for a robot of this radius."""
    reach = WHEEL_AT * radius
    return np.column_stack([-np.sin(ANGLES), np.cos(ANGLES), np.full(3, reach)])


class OmniBank:
    """Wheel speeds and poses of N omni robots; `step` integrates them (kinematic world), `ramp`
    only moves the wheels (a rigid-body world moves the bodies itself)."""

    def __init__(self, specs: list[OmniSpec], radii: list[float], positions: np.ndarray, headings: np.ndarray) -> None:
        self.n = len(specs)
        self.matrix = np.stack([wheel_matrix(r) for r in radii])
        self.inverse = np.linalg.inv(self.matrix)
        self.max_wheel = np.array([s.max_wheel_speed for s in specs])
        self.accel = np.array([min(s.max_accel, s.friction * G) for s in specs])
        self.heading_gain = np.array([s.heading_gain for s in specs])
        self.pos = np.array(positions, dtype=float).reshape(self.n, 3)
        self.heading = np.array(headings, dtype=float)
        self.wheels = np.zeros((self.n, 3))
        self.cmd_twist = np.zeros((self.n, 3))
        self.steer_by_heading = np.zeros(self.n, dtype=bool)
        self.cmd_velocity = np.zeros((self.n, 2))
        self.cmd_heading = self.heading.copy()

    def drive(self, k: int, v: float, w: float) -> None:
        """Forward speed v and turn rate w (no sideways speed)."""
        self.cmd_twist[k] = (v, 0.0, w)
        self.steer_by_heading[k] = False

    def drive_many(self, k: np.ndarray, v: np.ndarray, w: np.ndarray) -> None:
        self.cmd_twist[k, 0] = v
        self.cmd_twist[k, 1] = 0.0
        self.cmd_twist[k, 2] = w
        self.steer_by_heading[k] = False

    def steer(self, velocity: np.ndarray, headings: np.ndarray, which: np.ndarray) -> None:
        """Generic commands for robots in `which`: a body-frame velocity (vx, vy) and a heading to turn to."""
        self.cmd_velocity[which] = velocity[which]
        self.cmd_heading[which] = headings[which]
        self.steer_by_heading[which] = True

    @property
    def twist(self) -> np.ndarray:
        """(n, 3) body twist the wheels give now: vx, vy (m/s), w (rad/s)."""
        return np.einsum("nij,nj->ni", self.inverse, self.wheels)

    def ramp(self, dt: float, alive: np.ndarray) -> None:
        """Wheels toward the commanded twist's speeds, within the top speed and the acceleration."""
        twist = self.cmd_twist.copy()
        steer = self.steer_by_heading
        if steer.any():
            err = np.remainder(self.cmd_heading[steer] - self.heading[steer] + np.pi, 2 * np.pi) - np.pi
            twist[steer, :2] = self.cmd_velocity[steer]
            twist[steer, 2] = self.heading_gain[steer] * err
        target = np.einsum("nij,nj->ni", self.matrix, twist)
        peak = np.abs(target).max(axis=1)
        over = peak > self.max_wheel
        target[over] *= (self.max_wheel[over] / peak[over])[:, None]
        target[~alive] = 0.0
        change = target - self.wheels
        peak = np.abs(change).max(axis=1)
        limit = self.accel * dt  # all three wheels ramp together, so the twist keeps its direction
        over = peak > limit
        change[over] *= (limit[over] / peak[over])[:, None]
        self.wheels += change

    def step(self, dt: float, alive: np.ndarray) -> None:
        """Ramp the wheels, then move each pose along the exact path of its constant body twist."""
        self.ramp(dt, alive)
        vx, vy, w = self.twist.T
        th = self.heading
        turn = w * dt
        small = np.abs(turn) < 1e-9
        w_safe = np.where(small, 1.0, w)
        a = np.where(small, dt, np.sin(turn) / w_safe)  # the integral of cos(w t) over the step
        b = np.where(small, 0.0, (1.0 - np.cos(turn)) / w_safe)  # and of sin(w t)
        c = np.cos(th)
        s = np.sin(th)
        dx_body = vx * a - vy * b
        dy_body = vx * b + vy * a  # displacement in the starting body frame
        self.pos[:, 0] += c * dx_body - s * dy_body
        self.pos[:, 1] += s * dx_body + c * dy_body
        self.heading[:] = np.remainder(th + turn + math.pi, 2 * math.pi) - math.pi


class OmniRobots:
    """A world's omni robots: which they are, their bank and their pending commands, and the
    bookkeeping between the bank and the world's arrays."""

    def __init__(self, robots: np.ndarray, bank: OmniBank, n_world: int) -> None:
        self.robots = robots
        self.bank = bank
        self.commands = DriveCommands()
        self.slot = np.full(n_world, -1, dtype=np.int64)
        self.slot[robots] = np.arange(len(robots))
        bank.steer_by_heading[:] = True

    def latch(self, active_vel: np.ndarray, active_heading: np.ndarray) -> None:
        """Pending commands to the bank; generic ones steer by the active velocity and heading."""
        bank = self.bank
        r = self.robots
        self.commands.apply(bank, self.slot)
        bank.steer(active_vel[r, :2], active_heading[r], bank.steer_by_heading)
        active_heading[r] = bank.heading

    def write_back(self, pos: np.ndarray, vel: np.ndarray, heading: np.ndarray) -> None:
        """The bank's poses and world-frame velocities into the world's arrays."""
        bank = self.bank
        r = self.robots
        pos[r, :2] = bank.pos[:, :2]
        twist = bank.twist
        c = np.cos(bank.heading)
        s = np.sin(bank.heading)
        vel[r, 0] = c * twist[:, 0] - s * twist[:, 1]
        vel[r, 1] = s * twist[:, 0] + c * twist[:, 1]
        vel[r, 2] = 0.0
        heading[r] = bank.heading

    def constrain(self, pos: np.ndarray) -> None:
        """Where walls, obstacles and other robots left them (they slide along, wheels still turning)."""
        self.bank.pos[:, :2] = pos[self.robots, :2]


def route_drive(diff_slot: np.ndarray, diff: DriveCommands, omnis: OmniRobots | None, i: int, v: float | None,
                w: float) -> None:
    """A wheel command to the bank robot i belongs to: two wheels (diff_drive, urdf) or three (omni)."""
    if diff_slot[i] >= 0:
        diff.drive(i, v, w)
    elif omnis is not None and omnis.slot[i] >= 0:
        omnis.commands.drive(i, v, w)
    else:
        raise ValueError(f"robot {i} is not a wheeled robot (diff_drive, omni or urdf)")


def route_drive_many(diff_slot: np.ndarray, diff: DriveCommands, omnis: OmniRobots | None, robots: np.ndarray,
                     v: np.ndarray | None, w: np.ndarray | None) -> None:
    """`route_drive` for many robots, all of one kind."""
    if np.all(diff_slot[robots] >= 0):
        diff.drive_many(robots, v, w)
    elif omnis is not None and np.all(omnis.slot[robots] >= 0):
        omnis.commands.drive_many(robots, v, w)
    else:
        raise ValueError("drive_many: the robots must all be diff_drive (or urdf) robots, or all omni robots")
