"""`kinematic` world: numpy point masses with velocity commands, arena bounds, overlap resolution.

For swarms of thousands (Simbeeotic's SimpleBee, Kilombo). Each tick the velocity moves toward the
commanded one by at most max_accel*dt, positions integrate explicitly, robots are clamped to the
arena, and overlapping robots are pushed apart along the line between their centres.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from physics.bodies.battery import Batteries
from physics.bodies.diff_drive import DiffDriveBank, DriveCommands
from physics.bodies.omni import OmniRobots, route_drive, route_drive_many
from physics.kinematic import kernels
from physics.kinematic.banks import (
    drive_bank,
    omni_robots,
    poses_from_banks,
    quad_bank,
    robots_where,
    step_ground,
    stop_blocked,
)
from physics.kinematic.external import ExternalPoses
from physics.kinematic.motion import MotionHistory
from physics.kinematic.quad_steps import step_bank
from physics.kinematic.raycast import cast_from_mounts
from physics.kinematic.scenery import Scenery
from physics.kinematic.verlet import touching, verlet_of
from physics.scene.obstacles import SOLID_SHAPES
from physics.world import Arena, CommandArrays, MotorFeed, RobotSpec, place_within

if TYPE_CHECKING:
    from physics.kinematic.compiled import CompiledStep


class KinematicWorld(CommandArrays):
    """Point robots moved kinematically; see the module docstring."""

    def __init__(self, arena: Arena, max_accel: float = float("inf"), collisions: bool = True, obstacles: tuple = (),
                 wind: tuple | None = None, batteries: Batteries | None = None) -> None:
        super().__init__(batteries)
        self.arena = arena
        self.max_accel = max_accel
        self.collisions = collisions
        self._verlet = verlet_of(0)  # the pairs that may touch (physics.kinematic.verlet), sized at start
        self._lo = np.array(arena.lower, dtype=np.float64)
        self._hi = np.array(arena.upper, dtype=np.float64)
        for shape in obstacles:
            if not isinstance(shape, SOLID_SHAPES):
                raise ValueError(f"the kinematic world cannot hold a {type(shape).__name__} obstacle (pybullet can)")
        self.obstacles = tuple(obstacles)
        self.scenery = Scenery(self.obstacles)
        self._pos = np.zeros((0, 3))
        self._vel = np.zeros((0, 3))
        self._radius = np.zeros(0)
        self._contacts: list[tuple[int, int]] = []
        self._impacts: list[tuple[int, int, float]] = []
        self.motion = MotionHistory()  # the previous step's velocities and headings, once an IMU asks
        self._speed_before = np.zeros(0)  # and each quadrotor's speed before the last step (m/s)
        self.wind = wind  # (mean, gust_std, gust_tau, rng, tick) for the quadrotors, or None
        self.quad_robots = np.zeros(0, dtype=np.int64)  # robot id of each row of the quadrotor bank
        self.drives: DiffDriveBank | None = None  # differential-drive robots, if any
        self.omnis: OmniRobots | None = None  # three-wheeled omnidirectional robots, if any
        self._drive_idx = np.zeros(0, dtype=np.int64)
        self._drive_cmd = DriveCommands()
        self.external = ExternalPoses.none()  # robots whose pose comes from outside (ghost twins)
        self._feed: MotorFeed | None = None
        self._compiled: CompiledStep | None = None  # physics.kinematic.compiled.CompiledStep, from start() when it applies

    def add_robot(self, spec: RobotSpec) -> int:
        return self._register(spec)

    def want_motion(self) -> None:  # keep the previous step's velocities and headings (IMU sensors)
        self.motion.tracking = True

    def attach_motor_feed(self, feed: MotorFeed) -> None:
        """`feed` sets motors at every control tick from the next step on (see MotorFeed)."""
        if self.quads is None:
            raise ValueError("a motor feed needs quadrotors in the world")
        self._feed = feed

    def start(self) -> None:
        self._allocate()
        self._pos = np.array([s.position for s in self.specs], dtype=np.float64).reshape(self.n, 3)
        self._vel = np.zeros((self.n, 3))
        self._trig = np.full((self.n, 3), np.nan)  # (heading, cos, sin) the last step used, per robot
        self._radius = np.array([s.radius_m for s in self.specs], dtype=np.float64)
        self._max_r = float(self._radius.max()) if self.n else 0.0
        self._verlet = verlet_of(self.n)
        self._at_rest = False  # the first step resolves overlaps and clamps to the arena
        self._clip_lo = self._lo + self._radius[:, None]
        self._clip_hi = self._hi - self._radius[:, None]
        self.quad_robots = robots_where(self.specs, "airframe")
        self.quad_slot = np.full(self.n, -1, dtype=np.int64)
        self.quad_slot[self.quad_robots] = np.arange(len(self.quad_robots))
        self._clip_lo[self.quad_robots, 2] = self._lo[2]  # a quadrotor stands on the ground, not on its radius
        place_within(self._pos, self._clip_lo, self._clip_hi)
        self.quads = quad_bank(self.specs, self.quad_robots, self._pos, self.active_heading, self.wind)
        self._drive_idx = robots_where(self.specs, "drive")
        self.drive_slot = np.full(self.n, -1, dtype=np.int64)
        self.drive_slot[self._drive_idx] = np.arange(len(self._drive_idx))
        self.drives = drive_bank(self.specs, self._drive_idx, self._pos, self.active_heading)
        self.omnis = omni_robots(self.specs, self._pos, self.active_heading)
        self.omni_slot = self.omnis.slot if self.omnis is not None else np.full(self.n, -1, dtype=np.int64)
        self._compiled = self._compiled_step()

    def _compiled_step(self) -> CompiledStep | None:
        """The compiled latch and step (physics.kinematic.compiled): compiled kernels, point and drive robots only."""
        if self.quads is not None or self.omnis is not None:
            return None
        from physics.kinematic import compiled as kc

        arrays = (self.cmd_vel, self.cmd_heading, self.active_vel, self.active_heading, self.max_speed, self.alive,
                  self._pos, self._vel, self._trig, self._radius, self._clip_lo, self._clip_hi)
        return kc.CompiledStep(arrays, self.collisions and self.n > 1, self._max_r,
                               kc.drives_of(self.drives, self._drive_idx), kc.scene_of(self.scenery, self.n), self._verlet)

    def make_external(self, robots: list[int]) -> None:
        """These robots' poses come from `set_external_pose` (e.g. a real vehicle's telemetry): the
        world dead-reckons them between updates and never moves them itself. Call after start()."""
        self.external = ExternalPoses(np.array(sorted(set(robots)), dtype=np.int64), self._pos)

    def set_external_pose(self, i: int, position, velocity, heading: float) -> None:
        """The latest known pose of external robot i (arena frame, m, m/s, rad)."""
        self.external.set(i, position, velocity)
        self._pos[i] = position
        self._vel[i] = velocity
        self.cmd_heading[i] = heading
        self.active_heading[i] = heading

    def run_steps(self, dt_s: float, m: int) -> None:
        """World.run_steps; one compiled call where the compiled step applies."""
        if self._compiled is None or self.track_contacts or self.motion.tracking or self.external.robots.size:
            return super().run_steps(dt_s, m)
        self.apply_drive_commands()
        for _ in range(m):
            self.t_s += dt_s
        self._contacts = []
        self._at_rest = self._compiled.step(dt_s, self.max_accel, self._at_rest, m, latched=False)

    def drive(self, i: int, v: float | None, w: float = 0.0) -> None:
        """Pending wheel command (forward speed, turn rate) for robot i; v None: follow the generic
        velocity and heading commands again. Applied at the next latch."""
        route_drive(self.drive_slot, self._drive_cmd, self.omnis, i, v, w)

    def drive_many(self, robots: np.ndarray, v: np.ndarray | None, w: np.ndarray | None) -> None:
        """`drive` for many robots at once (v and w arrays over `robots`; None: generic commands again)."""
        route_drive_many(self.drive_slot, self._drive_cmd, self.omnis, np.asarray(robots, dtype=np.int64), v, w)

    def latch(self) -> None:
        if self._compiled is not None:
            self.apply_drive_commands()
            return self._compiled.latch()
        super().latch()
        if self.quads is not None:
            self._latch_quads(self.quad_robots)
        d = self.drives
        if d is not None:
            self._drive_cmd.apply(d, self.drive_slot)
            di = self._drive_idx
            d.steer(self.active_vel[di, 0], self.active_heading[di], d.steer_by_heading)
            self.active_heading[di] = d.heading
        if self.omnis is not None:
            self.omnis.latch(self.active_vel, self.active_heading)

    def _step_quads(self, dt_s: float) -> None:
        touched = step_bank(self.quads, self._feed, self.alive[self.quad_robots], self.quad_robots, dt_s,
                            self.track_contacts)  # touching down (the ground stops a descent) is an impact too
        if touched is not None:
            self._impacts, self._speed_before = touched

    def quad_impacts(self) -> list[tuple[int, int, float]]:
        """(quadrotor, other robot or -1, its speed before the step in m/s) for every contact of the
        last step; collected while `track_contacts` is on."""
        if self.quads is None or not self.track_contacts:
            return []
        slot = self.quad_slot
        touched = [(i, j, float(self._speed_before[slot[i]])) for i, j in self._contacts if slot[i] >= 0]
        return self._impacts + touched

    def contacts(self) -> list[tuple[int, int]]:
        """(robot, other) pairs touching in the last step (other -1: obstacle or wall), while `track_contacts`."""
        return self._contacts

    def step(self, dt_s: float) -> None:
        self.t_s += dt_s
        self._contacts = []
        if self.motion.tracking:
            self.motion.remember(dt_s, self._vel, self.active_heading, self._all_rates())
        if self._compiled is not None and not self.track_contacts and not self.external.robots.size:
            self._at_rest = self._compiled.step(dt_s, self.max_accel, self._at_rest)
            return
        quads = self.quads
        drives = self.drives
        if quads is not None:
            self._step_quads(dt_s)
        step_ground(drives, self._drive_idx, self.omnis, self.alive, dt_s)
        if self._still():
            return  # nothing moves and nothing is commanded to (e.g. a static sensor field)
        kernels.move_points(dt_s, self.max_accel, self.active_heading, self.active_vel, self.max_speed, self.alive, self._vel,
                    self._pos, self._trig)
        poses_from_banks(quads, self.quad_robots, drives, self._drive_idx, self.omnis, self._pos, self._vel,
                         self.active_heading)
        self._confine()
        if self.external.robots.size:  # a real vehicle is where its telemetry says, walls or not
            self.external.place(dt_s, self._pos, self._vel)
        stop_blocked(quads, self.quad_robots, drives, self._drive_idx, self.omnis, self._pos, self._vel)
        self._at_rest = not self._vel.any()

    def _still(self) -> bool:
        """Only point robots, all at rest and commanded to stay so."""
        banks = (self.quads, self.drives, self.omnis)
        return all(b is None for b in banks) and self._at_rest and not self.active_vel.any() and not self.external.robots.size

    def _confine(self) -> None:
        """Robots pushed apart, out of obstacles and back into the arena (contacts noted when tracked)."""
        if self.collisions and self.n > 1:
            self._separate()
        if self.obstacles:
            hit = self.scenery.push_out(self._pos, self._vel, self._radius)
            if self.track_contacts:
                self._contacts.extend((k, -1) for k in hit)
        if self.track_contacts:
            outside = np.nonzero(np.any((self._pos < self._clip_lo) | (self._pos > self._clip_hi), axis=1))[0]
            self._contacts.extend((int(k), -1) for k in outside)  # the arena's walls
        np.clip(self._pos, self._clip_lo, self._clip_hi, out=self._pos)

    def _separate(self) -> None:
        pairs = touching(self._verlet, self._pos, 2.0 * self._max_r)
        if not len(pairs):
            return
        i = np.ascontiguousarray(pairs[:, 0])
        j = np.ascontiguousarray(pairs[:, 1])
        hit = kernels.push_apart(self._pos, self._radius, i, j)
        if self.track_contacts and hit.any():
            self._contacts.extend(zip(i[hit].tolist(), j[hit].tolist()))

    def positions(self) -> np.ndarray:
        return self._pos

    def step_arrays(self) -> tuple:
        """What an engine stepping this world itself (cosim.fused_engine) changes in place: pos, vel, radius, clip_lo,
        clip_hi, trig, at_rest (a copy), the drives (kinematic_compiled.Drives), commands applied, and the
        list of pairs that may touch (physics.kinematic.verlet), shared with this world's own steps."""
        if self.quads is not None or self.omnis is not None or self.obstacles:
            raise ValueError("step_arrays: this world has quadrotors, omnidirectional robots or obstacles")
        from physics.kinematic import compiled as kc

        self.apply_drive_commands()
        return (self._pos, self._vel, self._radius, self._clip_lo, self._clip_hi, self._trig, np.array([self._at_rest]),
                kc.drives_of(self.drives, self._drive_idx), self._verlet)

    def take_drive_commands(self) -> list[tuple[int, float | None, float]]:
        return self._drive_cmd.take()  # for an engine that latches them itself (DriveCommands.take)

    def apply_drive_commands(self) -> None:
        """Hand the drive commands given so far to the drives now (the latch does it otherwise)."""
        if self.drives is not None:
            self._drive_cmd.apply(self.drives, self.drive_slot)

    def velocities(self) -> np.ndarray:
        return self._vel

    def cast_rays(self, robot: int, dirs: np.ndarray, max_range: float) -> np.ndarray:
        """Distances from robot's centre along unit directions (R,3) to the nearest box or other robot,
        measured from its surface; max_range where nothing is closer."""
        return self.cast_fans(np.array([robot], np.int64), dirs, np.array([len(dirs)], np.int64),
                              np.array([max_range], np.float64))

    def cast_rays_many(self, requests: list[tuple[int, np.ndarray, float]]) -> list[np.ndarray]:
        """cast_rays for several robots at once, in one compiled call for all of them."""
        if not requests:
            return []
        return self.scenery.cast_requests(self._pos, self._radius, requests)

    def cast_fans(self, robots: np.ndarray, dirs: np.ndarray, counts: np.ndarray, max_range: np.ndarray) -> np.ndarray:
        return self.scenery.cast(self._pos, self._radius, robots, dirs, counts, max_range)

    def cast_fan(self, robot: int, angles: np.ndarray, turn: float, max_range: float) -> np.ndarray:
        return self.scenery.cast_fan(self._pos, self._radius, robot, angles, turn, max_range)

    def cast_rays_from_many(self, requests: list[tuple[int, np.ndarray, np.ndarray, float]]) -> list[np.ndarray]:
        """Distances along unit directions (R,3) from a given origin to the nearest obstacle or other
        robot, max_range where nothing is closer: (robot, origin, directions, max_range) each (mounted sensors)."""
        return cast_from_mounts(self.obstacles, self._pos, self._radius, requests)

    def thrusts(self) -> np.ndarray:
        """Total rotor thrust of every robot (N; 0 for robots without rotors), for battery drain."""
        out = np.zeros(self.n)
        if self.quads is not None:
            out[self.quad_robots] = self.quads.rotor.sum(axis=1)
        return out

    def acceleration_of(self, i: int) -> np.ndarray:
        """World-frame acceleration over the last step (m/s^2); needs want_motion."""
        return self.motion.acceleration(i, self._vel)

    def body_rates_of(self, i: int) -> np.ndarray:
        """Angular velocity in the body frame (rad/s): a quadrotor's own; otherwise the heading's rate."""
        if self.quad_slot.size and self.quad_slot[i] >= 0:
            return self.quads.rates[int(self.quad_slot[i])].copy()
        rate = self.motion.turn_rate(i, self.active_heading[i])
        return np.zeros(3) if rate is None else np.array([0.0, 0.0, rate])

    def _all_rates(self) -> np.ndarray:
        """body_rates_of for every robot (N, 3)."""
        out = np.zeros((self.n, 3))
        rates = self.motion.turn_rates(self.active_heading)
        if rates is not None:
            out[:, 2] = rates
        if self.quads is not None:
            out[self.quad_robots] = self.quads.rates
        return out

    def angular_acceleration_of(self, i: int) -> np.ndarray:
        """Body-frame angular acceleration over the last step (rad/s^2); needs want_motion."""
        return self.motion.angular_acceleration(i, self.body_rates_of(i))

    def attitude_of(self, i: int) -> np.ndarray:
        """Roll, pitch, yaw (rad): a quadrotor's own; ground and point robots stay level."""
        if self.quad_slot.size and self.quad_slot[i] >= 0:
            return self.quads.euler[int(self.quad_slot[i])].copy()
        return np.array([0.0, 0.0, float(self.active_heading[i])])

    def speeds(self) -> np.ndarray:
        """Current speed of every robot (m/s)."""
        return np.sqrt(np.einsum("ij,ij->i", self._vel, self._vel))

    def network_state(self, t_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Exact positions and velocities for the network's position sync."""
        return self._pos, self._vel

    def reset_quadrotor(self, i: int, position, heading: float) -> None:
        """Quadrotor i at rest at `position`, level, facing `heading` (its outside autopilot restarted)."""
        self.quads.reset(int(self.quad_slot[i]), position, heading)
        self._pos[i] = position
        self._vel[i] = 0.0
        self.active_heading[i] = self.cmd_heading[i] = heading

    def position_of(self, i: int) -> np.ndarray:
        return self._pos[i].copy()

    def velocity_of(self, i: int) -> np.ndarray:
        return self._vel[i].copy()

    def kill(self, i: int) -> None:
        """A dead point robot stops; a dead quadrotor's rotors stop and it falls."""
        self.alive[i] = False
        if self.quad_slot.size and self.quad_slot[i] >= 0:
            return
        self._vel[i] = 0.0

    def close(self) -> None:
        """Nothing to release."""
