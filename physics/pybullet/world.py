"""`pybullet` world: robots as rigid bodies, velocity commands turned into forces, static obstacles.

Point robots are spheres flown like a MAV in still air: the body has linear drag
a = -d (1 + |v|) v (pybullet's base damping law) and the controller's velocity command v* becomes
the constant force F = m d (1 + |v*|) v* + m g, which makes v* the steady state with a time
constant of about 1 / (d (1 + 2|v*|)) seconds, without reading the velocity back every step. Their
heading is kinematic (spheres do not turn). Quadrotors are rigid bodies under their rotor thrusts
(physics.pybullet.quadrotors), stepped at their control tick (in engine steps of at most 1/240 s).
Collisions, obstacles and the ground act physically. Every pybullet call passes physicsClientId,
so several worlds can live in one process.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from physics.bodies.battery import Batteries
from physics.bodies.diff_drive import DiffDriveBank
from physics.pybullet.contacts import note_impacts, step_contacts
from physics.pybullet.engine import connect, pybullet_module
from physics.pybullet.frames import euler_zyx, rotations
from physics.pybullet.ground import GroundFleet
from physics.pybullet.motion import Motion
from physics.pybullet.positions import Positions
from physics.pybullet.quadrotors import RigidQuadrotors
from physics.pybullet.rays import from_mounts, from_surface, from_surfaces
from physics.pybullet.statics import add_prop, add_scenery
from physics.scene.props import Terrain
from physics.world import Arena, CommandArrays, MotorFeed, RobotSpec

log = logging.getLogger(__name__)
GRAVITY = 9.81
DEAD_DRAG = 0.01  # 1/s: a falling body in still air
QUAD_ENGINE_HZ = 240.0
"""The slowest engine rate under quadrotors: a control tick longer than 1/240 s is split into equal
engine steps (gym-pybullet-drones' physics rate)."""
WHEEL_TIME = 0.12
"""The longest stable engine step for wheeled bodies, in units of sqrt(r / g) of their smallest
wheel (r): the time scale of a wheel's contact (10 ms for 7 cm wheels, 2.9 ms for a Kilobot's)."""


class PybulletWorld(CommandArrays):
    """A pybullet DIRECT-mode world; see the module docstring."""

    def __init__(
        self,
        arena: Arena,
        dt_s: float,
        drag: float = 5.0,
        obstacles: tuple = (),
        ground: bool = True,
        solver_iterations: int = 10,
        batteries: Batteries | None = None,
        props: tuple = (),
        terrain: Terrain | None = None,
        wind: tuple | None = None,
    ) -> None:
        super().__init__(batteries)
        pybullet = pybullet_module()
        if drag <= 0:
            raise ValueError(f"drag must be positive (1/s), got {drag}")
        self._p = pybullet
        self.arena = arena
        self.dt_s = dt_s
        self.drag = drag
        self.obstacles = obstacles
        self.wind = wind  # (mean, gust_std, gust_tau, rng, tick) for the quadrotors, or None
        self._cid = connect(pybullet, GRAVITY, dt_s, solver_iterations)
        cid = self._cid
        self._static = add_scenery(pybullet, cid, arena, obstacles, ground, terrain)
        self._floor = self._static[0] if terrain is not None or ground else -1  # what robots stand on
        self.props = [add_prop(pybullet, cid, prop) for prop in props]  # movable bodies, in the scenario's order
        self.rigid_quads = RigidQuadrotors(pybullet, cid)
        self.quad_robots = np.zeros(0, dtype=np.int64)  # robot id of each row of the quadrotor bank
        self.ground = GroundFleet(pybullet, cid)
        self._substeps = 1
        self._quad_every = 1
        self._feed: MotorFeed | None = None
        self._spheres: list[int] = []  # robots that are spheres
        self._bodies: list[int] = []
        self._contacts: list[tuple[int, int]] = []
        self._impacts: list[tuple[int, int, float]] = []
        self._robot_of: dict[int, int] = {}
        self._sync_pos = np.zeros((0, 3))
        self._sync_t = 0.0
        self._forces: list[tuple[int, tuple[float, float, float]]] = []  # (sphere body, force)
        self._forces_dirty = True
        self._weights = np.zeros(0)
        self._radii = np.zeros(0)
        self.places = Positions(pybullet, cid, self._bodies)
        self.motion = Motion(pybullet, cid, self._bodies)  # the last two steps' velocities, once an IMU asks

    def add_robot(self, spec: RobotSpec) -> int:
        i = self._register(spec)
        if spec.urdf is not None or spec.drive is not None or spec.omni is not None:
            body = self.ground.add(i, spec, self.arena.lower[2])
        elif spec.airframe is not None:
            body = self.rigid_quads.add(i, spec)
        else:
            p = self._p
            cid = self._cid
            shape = p.createCollisionShape(p.GEOM_SPHERE, radius=spec.radius_m, physicsClientId=cid)
            body = p.createMultiBody(spec.mass_kg, shape, -1, spec.position, physicsClientId=cid)
            p.changeDynamics(body, -1, linearDamping=self.drag, angularDamping=0.5, physicsClientId=cid)
            self._spheres.append(i)
        self._bodies.append(body)
        self._robot_of[body] = i
        return i

    def start(self) -> None:
        self._allocate()
        self.quad_slot = np.full(self.n, -1, dtype=np.int64)
        quads = self.rigid_quads
        if quads.robots:
            self.quad_robots = np.array(quads.robots, dtype=np.int64)
            self.quad_slot[self.quad_robots] = np.arange(len(quads.robots))
            self.quads = quads.start(self.cmd_heading[self.quad_robots], self.wind)
            tick = self.quads.tick
            ticks = max(1, round(self.dt_s / tick))
            if abs(ticks * tick - self.dt_s) > 1e-9:
                raise ValueError(f"physics.dt ({self.dt_s} s) must be a multiple of the quadrotors' control tick ({tick} s)")
            self._quad_ticks(ticks)
        self.ground.start(self.n, self.cmd_heading)
        self.drive_slot = self.ground.drive_slot
        self.omni_slot = self.ground.omni_slot
        if self.ground.any and self.quads is None:
            longest = WHEEL_TIME * math.sqrt(self.ground.smallest_wheel() / GRAVITY)
            self._substeps = math.ceil(self.dt_s / longest - 1e-9)
            self._p.setTimeStep(self.dt_s / self._substeps, physicsClientId=self._cid)
        self._weights = np.array([s.mass_kg for s in self.specs], dtype=np.float64)
        self._radii = np.array([s.radius_m for s in self.specs], dtype=np.float64)
        self.places.read()
        self._sync_pos = self.places.all.copy()
        self._sync_t = 0.0
        self.latch()

    def _quad_ticks(self, ticks: int) -> None:
        """`ticks` control ticks per physics step, each of whole engine steps of at most 1/QUAD_ENGINE_HZ s."""
        tick = self.dt_s / ticks
        self._quad_every = math.ceil(tick * QUAD_ENGINE_HZ - 1e-9)  # engine steps per control tick
        self._substeps = ticks * self._quad_every
        self._p.setTimeStep(tick / self._quad_every, physicsClientId=self._cid)

    def attach_motor_feed(self, feed: MotorFeed) -> None:
        """`feed` sets motors at every control tick from the next step on (see MotorFeed)."""
        if self.quads is None:
            raise ValueError("a motor feed needs quadrotors in the world")
        self._feed = feed

    def drive(self, i: int, v: float | None, w: float = 0.0) -> None:
        """Pending wheel command (forward speed, turn rate) for robot i; v None: follow the generic
        velocity and heading commands again. Applied at the next latch."""
        self.ground.drive(i, v, w)

    def drive_many(self, robots: np.ndarray, v: np.ndarray | None, w: np.ndarray | None) -> None:
        """`drive` for many robots at once (v and w arrays over `robots`; None: generic commands again)."""
        self.ground.drive_many(np.asarray(robots, dtype=np.int64), v, w)

    @property
    def drives(self) -> DiffDriveBank | None:
        """The two-wheeled robots' bank (diff_drive and URDF robots), if any."""
        return self.ground.drives

    def latch(self) -> None:
        changed = bool(self._spheres) and not (np.array_equal(self.active_vel, self.cmd_vel)
                                               and np.array_equal(self.active_heading, self.cmd_heading))
        super().latch()
        self.ground.latch(self.active_vel, self.active_heading)
        if self.quads is not None:
            self._latch_quads(self.quad_robots)
        if changed or (self._forces_dirty and self._spheres):
            self._compute_forces()

    def _compute_forces(self) -> None:
        """The spheres' constant forces (see the module docstring)."""
        v = self.world_velocity_targets()
        speed = np.sqrt(np.einsum("ij,ij->i", v, v))
        force = v * (self._weights * self.drag * (1.0 + speed))[:, None]
        force[:, 2] += self._weights * GRAVITY * self.alive
        self._forces = [(self._bodies[i], tuple(force[i].tolist())) for i in self._spheres]
        self._forces_dirty = False

    def step(self, dt_s: float) -> None:
        self.t_s += dt_s
        quads = self.rigid_quads if self.quads is not None else None
        feed = self._feed
        if feed is not None and (n := feed.ticks_per_step(dt_s)) != self._substeps // self._quad_every:
            self.quads.set_tick(dt_s / n)
            self._quad_ticks(n)
        self.ground.actuate(dt_s, self.alive)
        contacts: set[tuple[int, int]] = set()
        impacts: dict[tuple[int, int], float] = {}
        for k in range(self._substeps):
            self._engine_step(k, quads, contacts, impacts)
        if quads is not None:
            quads.sense()
        self.ground.sense()
        self.motion.stepped()
        self._contacts = sorted(contacts)
        self._impacts = [(me, other, speed) for (me, other), speed in sorted(impacts.items())]
        if self._spheres:
            self.places.stale()
        else:  # every body's position was just sensed into a bank
            pos = np.empty((self.n, 3))
            self.ground.positions_into(pos)
            if quads is not None:
                pos[self.quad_robots] = self.quads.pos
            self.places.sensed(pos)

    def _engine_step(self, k: int, quads: RigidQuadrotors | None, contacts: set[tuple[int, int]],
                     impacts: dict[tuple[int, int], float]) -> None:
        """Engine step k of a physics step: the quadrotors' control tick when one is due, the spheres'
        forces, pybullet's step, and its contacts (robot pairs) and quadrotor impacts collected."""
        p = self._p
        cid = self._cid
        if quads is not None:
            if k % self._quad_every == 0:
                if self._feed is not None:
                    quads.refresh()
                    self._feed.feed(self.quads, k // self._quad_every, self._substeps // self._quad_every)
                quads.actuate(self.alive[self.quad_robots])
            quads.push()
        apply = p.applyExternalForce
        origin = (0.0, 0.0, 0.0)
        frame = p.WORLD_FRAME
        for body, force in self._forces:
            apply(body, -1, force, origin, frame, physicsClientId=cid)
        p.stepSimulation(physicsClientId=cid)
        if self.track_contacts:
            touched, off_floor = step_contacts(p, cid, self._robot_of, self._floor)
            contacts.update(off_floor)
            if quads is not None:
                note_impacts(touched, self.quad_slot, self.quads.vel, impacts)

    def quad_impacts(self) -> list[tuple[int, int, float]]:
        """(quadrotor, other robot or -1, its speed before the contact in m/s) for every contact of
        the last step; collected while `track_contacts` is on."""
        return self._impacts

    def contacts(self) -> list[tuple[int, int]]:
        """(robot, other) pairs in contact after the last step; other is -1 for obstacles, walls and
        props. The ground a robot stands on is not a contact (physics.pybullet.contacts)."""
        return self._contacts

    def want_motion(self) -> None:
        """Keep the previous step's velocities from now on (IMU sensors)."""
        self.motion.track()

    def angular_acceleration_of(self, i: int) -> np.ndarray:
        """Body-frame angular acceleration over the last step (rad/s^2); needs want_motion."""
        change = self.motion.spin_change(i, self.dt_s)
        return np.zeros(3) if change is None else self._orientation_of(i).T @ change

    def acceleration_of(self, i: int) -> np.ndarray:
        """World-frame acceleration over the last step (m/s^2), from the bodies' velocities; needs want_motion."""
        return self.motion.acceleration(i, self.dt_s)

    def _orientation_of(self, i: int) -> np.ndarray:
        quat = self._p.getBasePositionAndOrientation(self._bodies[i], physicsClientId=self._cid)[1]
        return rotations(np.array([quat]))[0]

    def body_rates_of(self, i: int) -> np.ndarray:
        """Angular velocity in the body frame (rad/s), the body's own."""
        omega = np.array(self._p.getBaseVelocity(self._bodies[i], physicsClientId=self._cid)[1])
        return self._orientation_of(i).T @ omega

    def attitude_of(self, i: int) -> np.ndarray:
        """Roll, pitch, yaw (rad) of the body; a sphere's yaw is its commanded heading (spheres do not turn)."""
        if self.quad_slot[i] < 0 and self.drive_slot[i] < 0 and self.omni_slot[i] < 0:
            return np.array([0.0, 0.0, float(self.active_heading[i])])
        return euler_zyx(self._orientation_of(i)[None])[0]

    def prop_positions(self) -> np.ndarray:
        """(P, 3) positions of the movable props, in the scenario's order."""
        get = self._p.getBasePositionAndOrientation
        return np.array([get(b, physicsClientId=self._cid)[0] for b in self.props], dtype=np.float64).reshape(-1, 3)

    def positions(self) -> np.ndarray:
        return self.places.every()

    def cast_rays(self, robot: int, dirs: np.ndarray, max_range: float) -> np.ndarray:
        """Distances from the robot's surface along unit directions (R,3) to the first body hit
        (pybullet rayTestBatch, one call for all rays); max_range where nothing is closer."""
        return from_surface(self._p, self._cid, self.positions()[robot], float(self._radii[robot]), dirs, float(max_range))

    def cast_rays_many(self, requests: list[tuple[int, np.ndarray, float]]) -> list[np.ndarray]:
        """cast_rays for many robots at once: (robot, directions, max range) each, in one rayTestBatch
        call per 16,000 rays (pybullet's batch limit); the rays' ends in a few array operations."""
        return from_surfaces(self._p, self._cid, self.positions(), self._radii, requests)

    def cast_rays_from_many(self, requests: list[tuple[int, np.ndarray, np.ndarray, float]]) -> list[np.ndarray]:
        """Distances along unit directions (R,3) from a given origin to the first body hit, max_range
        where none: (robot, origin, directions, max_range) each (mounted sensors; the robot's own
        body, within its radius, is not seen)."""
        return from_mounts(self._p, self._cid, [(self.position_of(i), self.specs[i].radius_m, np.asarray(o, dtype=float), d, r)
                                                for i, o, d, r in requests])

    def thrusts(self) -> np.ndarray:
        """Collective rotor thrust per robot (N); 0 for spheres."""
        out = np.zeros(self.n)
        if self.quads is not None:
            out[self.quad_robots] = self.rigid_quads.thrusts()
        return out

    def speeds(self) -> np.ndarray:
        """Speed of every robot (m/s): quadrotors' and wheeled robots' from their state read each step;
        a sphere's commanded one (what its force sustains, without a pybullet call per body)."""
        v = self.world_velocity_targets()
        out = np.sqrt(np.einsum("ij,ij->i", v, v))
        if self.quads is not None:
            out[self.quad_robots] = np.sqrt(np.einsum("ij,ij->i", self.quads.vel, self.quads.vel))
        self.ground.speeds_into(out, self.dt_s)
        return out

    def network_state(self, t_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Positions now and the mean velocity since the previous call (finite difference, no extra
        pybullet calls); the network extrapolates with it until the next sync."""
        pos = self.positions().copy()
        dt = t_s - self._sync_t
        vel = (pos - self._sync_pos) / dt if dt > 0 else np.zeros_like(pos)
        self._sync_pos = pos
        self._sync_t = t_s
        return pos, vel

    def velocities(self) -> np.ndarray:
        """Exact base velocities (one pybullet call per robot)."""
        return self.motion.read()[0]

    def reset_quadrotor(self, i: int, position, heading: float) -> None:
        """Quadrotor i at rest at `position`, level, facing `heading` (its outside autopilot restarted)."""
        self.rigid_quads.reset(int(self.quad_slot[i]), position, heading)
        self.places.stale()

    def position_of(self, i: int) -> np.ndarray:
        return self.places.of(i)

    def velocity_of(self, i: int) -> np.ndarray:
        return np.array(self._p.getBaseVelocity(self._bodies[i], physicsClientId=self._cid)[0])

    def kill(self, i: int) -> None:
        """A dead robot loses thrust and its flight control (the drag term), and falls."""
        self.alive[i] = False
        if self.quad_slot[i] < 0 and self.drive_slot[i] < 0 and self.omni_slot[i] < 0:
            self._p.changeDynamics(self._bodies[i], -1, linearDamping=DEAD_DRAG, physicsClientId=self._cid)
        self._forces_dirty = True
        self._compute_forces()

    def close(self) -> None:
        if self._cid is not None:
            self._p.disconnect(physicsClientId=self._cid)
            self._cid = None
