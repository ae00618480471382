"""Differential-drive robots as pybullet rigid bodies: a chassis on two motorised wheels and two
caster balls.

The body is sized from the robot's radius R: a chassis disc of radius R; wheels of radius 0.35 R
at +-wheel_base/2 on the axle through the centre (balls, whose ground contact is cheaper than a
disc's and the same for rolling); casters of radius 0.2 R fore and aft, just clear of the ground
so they catch the pitch; about a tenth of the mass in each wheel. The wheels are revolute joints
under pybullet's velocity motors, with the robot's ground friction; their torque limit lets them
spin or stall against what the robot pushes. Commands go through the same `DiffDriveBank` as in
the kinematic world (forward speed and turn rate, or a heading to steer to, the acceleration
limit ramping the wheel targets), so `robot.drive(v, w)` and the generic velocity commands work
unchanged; the motion is the engine's: slopes, pushes and collisions act on it.
"""

from __future__ import annotations

import math
from itertools import chain, repeat

import numpy as np

from physics.bodies.diff_drive import DiffDriveBank, DriveSpec, G
from physics.pybullet.frames import rotations, yaw_of
from physics.world import RobotSpec

WHEEL = 0.35
"""Wheel radius as a fraction of the robot's radius."""
CASTER = 0.2
"""Caster ball radius as a fraction of the robot's radius."""


class RigidWheeled:
    """The differential-drive robots of one pybullet world: their bodies and the bank that commands them."""

    def __init__(self, p, cid: int) -> None:
        self._p = p
        self._cid = cid
        self.robots: list[int] = []
        self.bodies: list[int] = []
        self._specs: list[DriveSpec] = []
        self._wheel_r: list[float] = []
        self._forces: list[list[float]] = []  # each wheel joint's torque limit, per body
        self._joints: list[tuple[int, ...]] = []  # the wheel joints, in the bank's wheel order
        self._spin: list[tuple[float, ...]] = []  # joint speed per m/s of wheel surface, with the joint's sense
        self.bank: DiffDriveBank | None = None
        self._sent = np.zeros((0, 2))  # the joint speeds the motors hold
        self._before = np.zeros((0, 3))  # positions at the previous sense
        self._spin_rows = np.zeros((0, 2))

    def add(self, robot: int, spec: RobotSpec, ground_z: float) -> int:
        """A body for robot `robot`, standing on the ground below its placed position; returns the body id."""
        p = self._p
        cid = self._cid
        drive: DriveSpec = spec.drive
        r = spec.radius_m
        rw = WHEEL * r
        rc = CASTER * r
        chassis_h = 0.5 * r
        zc = rw + 0.1 * r  # the chassis' centre above the ground
        shapes = [p.GEOM_CYLINDER, p.GEOM_SPHERE, p.GEOM_SPHERE]
        lift = rc - zc + 0.02 * r  # the casters clear the ground by 2% of R: the wheels carry the weight
        base = p.createCollisionShapeArray(shapes, radii=[r, rc, rc], lengths=[chassis_h, 0, 0],
                                           collisionFramePositions=[(0, 0, 0), (0.6 * r, 0, lift), (-0.6 * r, 0, lift)],
                                           physicsClientId=cid)
        wheel = p.createCollisionShape(p.GEOM_SPHERE, radius=rw, physicsClientId=cid)
        axle = p.getQuaternionFromEuler((-math.pi / 2, 0, 0))  # the wheel's axis (its z) along the body's y
        half = 0.5 * drive.wheel_base
        m = spec.mass_kg
        x, y, _ = spec.position
        body = p.createMultiBody(
            0.8 * m, base, -1, (x, y, ground_z + zc), p.getQuaternionFromEuler((0, 0, spec.heading)),
            linkMasses=[0.1 * m, 0.1 * m], linkCollisionShapeIndices=[wheel, wheel], linkVisualShapeIndices=[-1, -1],
            linkPositions=[(0, half, rw - zc), (0, -half, rw - zc)], linkOrientations=[axle, axle],
            linkInertialFramePositions=[(0, 0, 0)] * 2, linkInertialFrameOrientations=[(0, 0, 0, 1)] * 2,
            linkParentIndices=[0, 0], linkJointTypes=[p.JOINT_REVOLUTE] * 2, linkJointAxis=[(0, 0, 1)] * 2,
            physicsClientId=cid)
        p.changeDynamics(body, -1, lateralFriction=0.0, physicsClientId=cid)  # the casters slide
        for link in (0, 1):
            p.changeDynamics(body, link, lateralFriction=drive.friction, physicsClientId=cid)
        self._register(robot, body, drive, rw, (0, 1), (1.0, 1.0), m)
        return body

    def add_urdf(self, robot: int, spec: RobotSpec, ground_z: float) -> int:
        """Robot `robot` from its URDF (spec.urdf), standing on the ground below its placed
        position, its other joints free; returns the body id."""
        p = self._p
        cid = self._cid
        u = spec.urdf
        x, y, _ = spec.position
        body = p.loadURDF(u.file, (x, y, ground_z), p.getQuaternionFromEuler((0, 0, spec.heading)),
                          globalScaling=u.scale, physicsClientId=cid)
        links = range(-1, p.getNumJoints(body, physicsClientId=cid))
        low = min(p.getAABB(body, link, physicsClientId=cid)[0][2] for link in links)
        pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=cid)
        p.resetBasePositionAndOrientation(body, (pos[0], pos[1], pos[2] + ground_z - low), orn, physicsClientId=cid)
        names = {p.getJointInfo(body, j, physicsClientId=cid)[1].decode(): j for j in links if j >= 0}
        free = [j for j in names.values() if j not in (names[u.left_wheel], names[u.right_wheel])]
        p.setJointMotorControlArray(body, free, p.VELOCITY_CONTROL, forces=[0.0] * len(free), physicsClientId=cid)
        joints = (names[u.left_wheel], names[u.right_wheel])
        spin = tuple(self._forward_sense(body, j, u) for j in joints)
        mass = sum(p.getDynamicsInfo(body, link, physicsClientId=cid)[0] for link in links)
        self._register(robot, body, spec.drive, u.wheel_radius * u.scale, joints, spin, mass)
        return body

    def _forward_sense(self, body: int, joint: int, u) -> float:
        """+1 if positive spin of this wheel joint rolls the robot forward (+x), -1 if backward."""
        p = self._p
        cid = self._cid
        info = p.getJointInfo(body, joint, physicsClientId=cid)
        link_orn = p.getLinkState(body, joint, physicsClientId=cid)[5]
        base_orn = p.getBasePositionAndOrientation(body, physicsClientId=cid)[1]
        axis_world = rotations(np.array([link_orn]))[0] @ np.array(info[13])
        axis = rotations(np.array([base_orn]))[0].T @ axis_world  # in the robot's frame
        if abs(axis[1]) < 0.9:
            raise ValueError(f"{u.file}: wheel joint {info[1].decode()!r} does not turn about the robot's left-right "
                             f"(y) axis (its axis is {np.round(axis, 2).tolist()}); is the model's x axis forward?")
        return 1.0 if axis[1] > 0 else -1.0

    def _register(self, robot: int, body: int, drive, rw: float, joints: tuple[int, ...],
                  spin: tuple[float, ...], mass: float) -> None:
        self.robots.append(robot)
        self.bodies.append(body)
        self._specs.append(drive)
        self._wheel_r.append(rw)
        torque = 1.5 * mass * G * drive.friction * rw  # enough to slip the wheels, not more
        self._forces.append([torque] * len(joints))
        self._joints.append(joints)
        self._spin.append(tuple(s / rw for s in spin))

    @property
    def wheel_radii(self) -> list[float]:
        return list(self._wheel_r)

    def start(self) -> DiffDriveBank:
        self.bank = DiffDriveBank(self._specs, np.zeros((len(self.bodies), 3)), np.zeros(len(self.bodies)))
        self.sense()
        self.bank.cmd_heading[:] = self.bank.heading
        self._motors_unset()
        return self.bank

    def _motors_unset(self) -> None:
        """No joint speed handed to the motors yet: the first actuate sets every one."""
        width = len(self._spin[0]) if self._spin else 0
        self._sent = np.full((len(self.bodies), width), np.nan)
        self._spin_rows = np.array(self._spin, dtype=np.float64).reshape(-1, width)

    def sense(self) -> None:
        """The bodies' positions and headings into the bank (the previous positions kept for `speeds`)."""
        p = self._p
        cid = self._cid
        self._before = self.bank.pos.copy()
        flat = chain.from_iterable(chain.from_iterable(map(p.getBasePositionAndOrientation, self.bodies, repeat(cid))))
        poses = np.fromiter(flat, dtype=np.float64, count=7 * len(self.bodies)).reshape(-1, 7)
        self.bank.pos[:] = poses[:, :3]
        self.bank.heading[:] = yaw_of(poses[:, 3:])

    def speeds(self, dt: float) -> np.ndarray:
        """Each body's speed over the last physics step of `dt` seconds (m/s), from its sensed positions."""
        d = self.bank.pos - self._before
        return np.sqrt(np.einsum("ij,ij->i", d, d)) / dt

    def actuate(self, dt: float, alive: np.ndarray) -> None:
        """Ramp the wheel targets by one physics step and hand the changed ones to the motors (they
        hold until changed: a robot cruising costs no call)."""
        bank = self.bank
        bank.ramp(dt, alive)
        target = bank.wheels * self._spin_rows
        changed = (target != self._sent).any(axis=1)
        if changed.all():  # the usual case while robots steer: every body, no row selection
            np.copyto(self._sent, target)
            picked = zip(self.bodies, self._joints, target.tolist(), self._forces)
        else:
            rows = np.flatnonzero(changed)
            self._sent[rows] = target[rows]
            bodies = self.bodies
            joints = self._joints
            forces = self._forces
            picked = ((bodies[k], joints[k], v, forces[k]) for k, v in zip(rows.tolist(), target[rows].tolist()))
        p = self._p
        cid = self._cid
        control = p.setJointMotorControlArray
        mode = p.VELOCITY_CONTROL
        for body, joint_ids, speeds, torques in picked:
            control(body, joint_ids, mode, targetVelocities=speeds, forces=torques, physicsClientId=cid)
