"""The world interface and the command/state arrays every backend shares.

Commands follow SimpleBee's API: a desired velocity in the robot's body frame (x forward, y left,
z up) and a heading. Commands written by controllers go to the *pending* arrays; `latch()` copies
them to the *active* arrays that the next `step()` integrates, so a command issued at time t takes
effect at the first physics tick at or after t and never acts on the interval before it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from physics.bodies.battery import Batteries
from physics.bodies.quad_commands import QuadCommands
from physics.bodies.quadrotor import Mode, QuadrotorBank
from physics.scene.obstacles import Box as Box  # re-exported: worlds take obstacles from here

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Arena:
    """The region robots must stay in (metres); walls are implicit."""

    lower: tuple[float, float, float] = (-500.0, -500.0, 0.0)
    upper: tuple[float, float, float] = (500.0, 500.0, 100.0)


def place_within(pos: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
    """Start positions into the room each body has (the arena less its radius; a ground robot rests
    on the floor at its radius), in place, saying which robots moved and where to."""
    moved = np.nonzero(np.any((pos < lo) | (pos > hi), axis=1))[0]
    if not len(moved):
        return
    before = pos[moved].copy()
    np.clip(pos, lo, hi, out=pos)
    k = int(moved[0])
    only_floor = bool(np.all(before[:, :2] == pos[moved, :2]))  # the usual case: a layout at z = 0 for bodies with a radius
    (log.info if only_floor else log.warning)(
        "%d robot(s) started where their bodies do not fit (below the floor, or past a wall, by their radius) and start "
        "where they fit instead: robot %d at %s instead of %s%s", len(moved), k, np.round(pos[k], 4).tolist(),
        np.round(before[0], 4).tolist(), ", ..." if len(moved) > 1 else "")


@dataclass(frozen=True)
class RobotSpec:
    """A robot's body and limits (SI units)."""

    position: tuple[float, float, float]
    heading: float = 0.0
    radius_m: float = 0.1
    mass_kg: float = 0.05
    max_speed: float = 5.0
    airframe: str | None = None
    """A quadrotor preset (physics.bodies.quadrotor.AIRFRAMES) or None."""
    control_tick_s: float = 0.0025
    """A quadrotor's control tick (s); the world's quadrotors all share one."""
    drive: object | None = None
    """A physics.bodies.diff_drive.DriveSpec for a differential-drive ground robot, or None."""
    omni: object | None = None
    """A physics.bodies.omni.OmniSpec for a three-wheeled omnidirectional robot, or None."""
    urdf: object | None = None
    """A physics.bodies.urdf.UrdfSpec: the robot is that model, its wheels driven with `drive`'s limits."""


class MotorFeed(Protocol):
    """An outside flight controller that sets some quadrotors' motors at every control tick (ArduPilot
    over JSON SITL, cosim.mavlink.sitl.coupling). At each physics step the world asks it how many
    control ticks the step holds (all quadrotors then tick at dt / that), and calls `feed` at the
    start of each tick, with the bank holding the state of that instant, before the bank's control runs."""

    def ticks_per_step(self, dt_s: float) -> int: ...
    def feed(self, bank: QuadrotorBank, tick: int, ticks: int) -> None: ...


class World(Protocol):
    """What the coordinator and robot handles need from a world backend."""

    n: int
    cmd_vel: np.ndarray  # (N,3) pending body-frame velocity commands
    cmd_heading: np.ndarray  # (N,) pending heading commands, radians
    alive: np.ndarray  # (N,) bool
    active_heading: np.ndarray  # (N,) headings the last step integrated
    quad_slot: np.ndarray  # (N,) row of each robot in the quadrotor bank, -1 for others
    quad_robots: np.ndarray  # robot id of each row of the quadrotor bank
    quads: QuadrotorBank | None  # the quadrotors' state and controllers, if any
    drive_slot: np.ndarray  # (N,) row of each robot in the differential-drive bank, -1 for others
    omni_slot: np.ndarray  # (N,) row of each robot in the omnidirectional bank, -1 for others
    batteries: Batteries | None  # what battery gauges read
    track_contacts: bool  # contacts() are collected (after want_contacts())

    def add_robot(self, spec: RobotSpec) -> int: ...
    def fly(self, i: int, mode: Mode, a: float, b: float, c: float, d: float = float("nan")) -> None: ...
    def quads_follow(self, robots) -> None: ...
    def quads_steer(self, robots) -> None: ...
    def start(self) -> None: ...
    def step(self, dt_s: float) -> None: ...
    def latch(self) -> None: ...
    def run_steps(self, dt_s: float, m: int) -> None: ...
    def positions(self) -> np.ndarray: ...
    def velocities(self) -> np.ndarray: ...
    def network_state(self, t_s: float) -> tuple[np.ndarray, np.ndarray]: ...
    def headings(self) -> np.ndarray: ...
    def position_of(self, i: int) -> np.ndarray: ...
    def velocity_of(self, i: int) -> np.ndarray: ...
    def speeds(self) -> np.ndarray: ...
    def cast_rays(self, robot: int, dirs: np.ndarray, max_range: float) -> np.ndarray: ...
    def cast_rays_many(self, requests: list[tuple[int, np.ndarray, float]]) -> list[np.ndarray]: ...
    def cast_fans(self, robots: np.ndarray, dirs: np.ndarray, counts: np.ndarray, max_range: np.ndarray) -> np.ndarray:
        """cast_rays_many with the requests stacked: robots[k]'s counts[k] rays are the next rows of
        dirs; the distances, stacked the same way."""
    def cast_fan(self, robot: int, angles: np.ndarray, turn: float, max_range: float) -> np.ndarray:
        """One robot's level fan: cast_rays along angles + turn (radians, world frame; float64)."""
    def cast_rays_from_many(self, requests: list[tuple[int, np.ndarray, np.ndarray, float]]) -> list[np.ndarray]:
        """Rays from given origins (mounted sensors): (robot, origin, directions, max_range) each."""
    def contacts(self) -> list[tuple[int, int]]: ...
    def quad_impacts(self) -> list[tuple[int, int, float]]:
        """(quadrotor, other robot or -1, its speed before the contact) for the last step's contacts."""
    def want_contacts(self) -> None: ...
    def want_motion(self) -> None:
        """Keep the previous step's motion from now on (IMU sensors)."""
    def attach_motor_feed(self, feed: MotorFeed) -> None:
        """From the next step on, `feed` sets motors at every control tick (call after start())."""
    def acceleration_of(self, i: int) -> np.ndarray: ...
    def body_rates_of(self, i: int) -> np.ndarray: ...
    def angular_acceleration_of(self, i: int) -> np.ndarray:
        """Body-frame angular acceleration over the last step (rad/s^2), for IMUs mounted off centre."""
    def attitude_of(self, i: int) -> np.ndarray: ...
    def thrusts(self) -> np.ndarray:
        """Total rotor thrust per robot (N), 0 for robots without rotors: battery drain."""
    def kill(self, i: int) -> None: ...
    def reset_quadrotor(self, i: int, position, heading: float) -> None:
        """Quadrotor i back at rest (an outside autopilot restarted)."""
        ...
    def close(self) -> None: ...


class CommandArrays:
    """Pending and active command arrays plus the robot registry shared by all backends."""

    def __init__(self, batteries: Batteries | None = None) -> None:
        self.n = 0
        self.batteries = batteries  # what battery gauges read; None: no robot has a battery
        self.track_contacts = False  # collect contacts() during steps: on once a bump sensor or collision kill asks
        self.quad_slot = np.zeros(0, dtype=np.int64)  # robot -> row of the quadrotor bank (-1: not a quadrotor)
        self.drive_slot = np.zeros(0, dtype=np.int64)  # robot -> row of the differential-drive bank (-1: none)
        self.omni_slot = np.zeros(0, dtype=np.int64)  # robot -> row of the omnidirectional bank (-1: none)
        self.specs: list[RobotSpec] = []
        self.cmd_vel = np.zeros((0, 3))
        self.cmd_heading = np.zeros(0)
        self.active_vel = np.zeros((0, 3))
        self.active_heading = np.zeros(0)
        self.alive = np.zeros(0, dtype=bool)
        self.max_speed = np.zeros(0)
        self.t_s = 0.0  # simulated time of the last step (sensors with a rate sample and hold by it)
        self.quads: QuadrotorBank | None = None  # the quadrotors' dynamics and controllers, if any
        self.quad_cmds = QuadCommands()

    def _register(self, spec: RobotSpec) -> int:
        if spec.radius_m <= 0 or spec.mass_kg <= 0 or spec.max_speed < 0:
            raise ValueError(f"robot radius and mass must be positive and max_speed non-negative: {spec}")
        self.specs.append(spec)
        self.n += 1
        return self.n - 1

    def _allocate(self) -> None:
        n = self.n
        self.cmd_vel = np.zeros((n, 3))
        self.cmd_heading = np.array([s.heading for s in self.specs], dtype=np.float64)
        self.active_vel = np.zeros((n, 3))
        self.active_heading = self.cmd_heading.copy()
        self.alive = np.ones(n, dtype=bool)
        self.max_speed = np.array([s.max_speed for s in self.specs], dtype=np.float64)
        self.quad_cmds.allocate(n)

    def want_contacts(self) -> None:
        """Collect contacts from now on (bump sensors, collision kills)."""
        self.track_contacts = True

    def cast_rays_many(self, requests: list[tuple[int, np.ndarray, float]]) -> list[np.ndarray]:
        """cast_rays for several robots at once: (robot, directions, max_range) each."""
        return [self.cast_rays(i, d, r) for i, d, r in requests]

    def cast_fans(self, robots: np.ndarray, dirs: np.ndarray, counts: np.ndarray, max_range: np.ndarray) -> np.ndarray:
        """cast_rays_many with the requests stacked (see World.cast_fans)."""
        ends = np.cumsum(counts).tolist()
        requests = [(i, dirs[a:b], r) for i, a, b, r in zip(robots.tolist(), [0, *ends[:-1]], ends, max_range.tolist())]
        out = self.cast_rays_many(requests)
        return np.concatenate(out) if out else np.zeros(0)

    def cast_fan(self, robot: int, angles: np.ndarray, turn: float, max_range: float) -> np.ndarray:
        """cast_rays along angles + turn, level (see World.cast_fan)."""
        a = angles + turn
        dirs = np.empty((len(a), 3))
        dirs[:, 0] = np.cos(a)
        dirs[:, 1] = np.sin(a)
        dirs[:, 2] = 0.0
        return self.cast_rays(robot, dirs, max_range)

    def cast_rays(self, robot: int, dirs: np.ndarray, max_range: float) -> np.ndarray:
        raise NotImplementedError

    def cast_rays_from_many(self, requests: list[tuple[int, np.ndarray, np.ndarray, float]]) -> list[np.ndarray]:
        raise NotImplementedError

    def latch(self) -> None:
        np.copyto(self.active_vel, self.cmd_vel)
        np.copyto(self.active_heading, self.cmd_heading)

    def run_steps(self, dt_s: float, m: int) -> None:
        """A latch and a step of dt_s, m times (none after the last step): a latch followed by a
        stretch of ticks with nothing else on the timeline between them."""
        for _ in range(m):
            self.latch()
            self.step(dt_s)

    # -- quadrotors ------------------------------------------------------------------------------
    def fly(self, i: int, mode: Mode, a: float, b: float, c: float, d: float = float("nan")) -> None:
        """Pending quadrotor command (mode and setpoint, see physics.bodies.quadrotor); applied at the next latch."""
        if self.quad_slot[i] < 0:
            raise ValueError(f"robot {i} is not a quadrotor")
        self.quad_cmds.fly(i, mode, a, b, c, d)

    def quads_follow(self, robots) -> None:
        """The quadrotors among `robots` fly their cmd_vel and cmd_heading (set_velocity)."""
        robots = np.atleast_1d(np.asarray(robots, dtype=np.int64))
        if self.quad_slot.size:
            self.quad_cmds.follow(robots[self.quad_slot[robots] >= 0])

    def quads_steer(self, robots) -> None:
        """The quadrotors among `robots` turn to their cmd_heading (set_heading, turn)."""
        robots = np.atleast_1d(np.asarray(robots, dtype=np.int64))
        if self.quad_slot.size:
            self.quad_cmds.steer(robots[self.quad_slot[robots] >= 0], self.quad_slot, self.quads, self.cmd_heading)

    def _latch_quads(self, quad_robots: np.ndarray) -> None:
        if self.quads is not None:
            self.quad_cmds.apply(self.quads, self.quad_slot, self.cmd_vel, self.cmd_heading)
            self.active_heading[quad_robots] = self.quads.euler[:, 2]  # headings read back are the real ones

    def world_velocity_targets(self) -> np.ndarray:
        """Active body-frame commands rotated into the world frame and capped at max_speed."""
        c = np.cos(self.active_heading)
        s = np.sin(self.active_heading)
        v = self.active_vel
        out = np.empty_like(v)
        out[:, 0] = c * v[:, 0] - s * v[:, 1]
        out[:, 1] = s * v[:, 0] + c * v[:, 1]
        out[:, 2] = v[:, 2]
        speed = np.sqrt(np.einsum("ij,ij->i", out, out))
        over = speed > self.max_speed
        if over.any():
            out[over] *= (self.max_speed[over] / speed[over])[:, None]
        out[~self.alive] = 0.0
        return out

    def headings(self) -> np.ndarray:
        return self.active_heading
