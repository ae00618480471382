"""Ground robots in the pybullet world: BARAKA's omnidirectional Robertino as a rigid body, and the
fleet that holds every wheeled body (diff_drive, URDF and omni) with its banks and commands."""

from __future__ import annotations

import math

import numpy as np

from physics.bodies.diff_drive import DiffDriveBank, DriveCommands
from physics.bodies.omni import ANGLES, WHEEL_AT, OmniBank, OmniRobots, route_drive, route_drive_many
from physics.pybullet.wheeled import RigidWheeled
from physics.world import RobotSpec

OMNI_WHEEL = 0.3
"""Omni wheel (ball) radius as a fraction of the robot's radius."""


class RigidOmni(RigidWheeled):
    """Robertino as BARAKA built it in ODE (paper 001, section 4): the body two stacked cylinders,
    the three Swedish wheels balls on hinges about radial axes, each gripping along its turn and
    almost frictionless along its axle (pybullet's anisotropic friction)."""

    def __init__(self, p, cid: int) -> None:
        super().__init__(p, cid)
        self._radii: list[float] = []

    def add(self, robot: int, spec: RobotSpec, ground_z: float) -> int:
        p = self._p
        cid = self._cid
        r = spec.radius_m
        m = spec.mass_kg
        self._radii.append(r)
        rw = OMNI_WHEEL * r
        zc = rw + 0.05 * r  # the lower cylinder's centre above the ground
        base = p.createCollisionShapeArray([p.GEOM_CYLINDER, p.GEOM_CYLINDER], radii=[r, 0.7 * r],
                                           lengths=[0.3 * r, 0.4 * r], collisionFramePositions=[(0, 0, 0), (0, 0, 0.35 * r)],
                                           physicsClientId=cid)
        wheel = p.createCollisionShape(p.GEOM_SPHERE, radius=rw, physicsClientId=cid)
        reach = WHEEL_AT * r
        x, y, _ = spec.position
        body = p.createMultiBody(
            0.85 * m, base, -1, (x, y, ground_z + zc), p.getQuaternionFromEuler((0, 0, spec.heading)),
            linkMasses=[0.05 * m] * 3, linkCollisionShapeIndices=[wheel] * 3, linkVisualShapeIndices=[-1] * 3,
            linkPositions=[(reach * math.cos(a), reach * math.sin(a), rw - zc) for a in ANGLES],
            linkOrientations=[p.getQuaternionFromEuler((0, math.pi / 2, a)) for a in ANGLES],  # link z: radial
            linkInertialFramePositions=[(0, 0, 0)] * 3, linkInertialFrameOrientations=[(0, 0, 0, 1)] * 3,
            linkParentIndices=[0] * 3, linkJointTypes=[p.JOINT_REVOLUTE] * 3, linkJointAxis=[(0, 0, 1)] * 3,
            physicsClientId=cid)
        for link in range(3):  # grip along the turn, almost none along the axle (the rollers)
            p.changeDynamics(body, link, lateralFriction=spec.omni.friction, anisotropicFriction=[1.0, 1.0, 0.01],
                             physicsClientId=cid)
        # positive spin about the outward axis pushes the ground along +tangent: the robot moves back along it
        self._register(robot, body, spec.omni, rw, (0, 1, 2), (-1.0, -1.0, -1.0), m)
        return body

    def start(self) -> OmniBank:
        self.bank = OmniBank(self._specs, self._radii, np.zeros((len(self.bodies), 3)), np.zeros(len(self.bodies)))
        self.sense()
        self.bank.cmd_heading[:] = self.bank.heading
        self._motors_unset()
        return self.bank


class GroundFleet:
    """Every wheeled body of one pybullet world (diff_drive and URDF robots on two wheels, omni
    robots on three), their banks, slots and pending commands; commands reach the motors once per
    physics step."""

    def __init__(self, p, cid: int) -> None:
        self._p = p
        self._cid = cid
        self.diff = RigidWheeled(p, cid)
        self.omni = RigidOmni(p, cid)
        self.drives: DiffDriveBank | None = None
        self.omnis: OmniRobots | None = None
        self.drive_slot = np.zeros(0, dtype=np.int64)
        self.omni_slot = np.zeros(0, dtype=np.int64)
        self._diff_robots = np.zeros(0, dtype=np.int64)
        self._diff_cmd = DriveCommands()

    @property
    def any(self) -> bool:
        return bool(self.diff.robots or self.omni.robots)

    def smallest_wheel(self) -> float:
        """The smallest wheel radius (m) of any wheeled body."""
        return min(self.diff.wheel_radii + self.omni.wheel_radii)

    def add(self, robot: int, spec: RobotSpec, ground_z: float) -> int:
        if spec.urdf is not None:
            body = self.diff.add_urdf(robot, spec, ground_z)
        elif spec.omni is not None:
            body = self.omni.add(robot, spec, ground_z)
        else:
            body = self.diff.add(robot, spec, ground_z)
        self._touching_contacts_only(body)
        return body

    def _touching_contacts_only(self, body: int) -> None:
        """The solver takes only the contacts a wheeled body touches, not the ones it merely nears:
        a rolling wheel leaves a trail of stale near points in its contact manifold (three per wheel
        on flat ground), which doubled the engine's step for the same motion (within 0.1 mm in 5 s)."""
        p = self._p
        cid = self._cid
        for link in range(-1, p.getNumJoints(body, physicsClientId=cid)):
            p.changeDynamics(body, link, contactProcessingThreshold=0.0, physicsClientId=cid)

    def start(self, n: int, cmd_heading: np.ndarray) -> None:
        """Banks from the bodies' starting poses; each robot's heading command starts at its heading."""
        self.drive_slot = np.full(n, -1, dtype=np.int64)
        if self.diff.robots:
            self._diff_robots = np.array(self.diff.robots, dtype=np.int64)
            self.drive_slot[self._diff_robots] = np.arange(len(self._diff_robots))
            self.drives = self.diff.start()
            cmd_heading[self._diff_robots] = self.drives.heading
        if self.omni.robots:
            self.omnis = OmniRobots(np.array(self.omni.robots, dtype=np.int64), self.omni.start(), n)
            cmd_heading[self.omnis.robots] = self.omnis.bank.heading
        self.omni_slot = self.omnis.slot if self.omnis is not None else np.full(n, -1, dtype=np.int64)

    def drive(self, i: int, v: float | None, w: float = 0.0) -> None:
        route_drive(self.drive_slot, self._diff_cmd, self.omnis, i, v, w)

    def drive_many(self, robots: np.ndarray, v: np.ndarray | None, w: np.ndarray | None) -> None:
        route_drive_many(self.drive_slot, self._diff_cmd, self.omnis, robots, v, w)

    def latch(self, active_vel: np.ndarray, active_heading: np.ndarray) -> None:
        d = self.drives
        if d is not None:
            self._diff_cmd.apply(d, self.drive_slot)
            r = self._diff_robots
            d.steer(active_vel[r, 0], active_heading[r], d.steer_by_heading)
            active_heading[r] = d.heading
        if self.omnis is not None:
            self.omnis.latch(active_vel, active_heading)

    def actuate(self, dt: float, alive: np.ndarray) -> None:
        if self.drives is not None:
            self.diff.actuate(dt, alive[self._diff_robots])
        if self.omnis is not None:
            self.omni.actuate(dt, alive[self.omnis.robots])

    def sense(self) -> None:
        if self.drives is not None:
            self.diff.sense()
        if self.omnis is not None:
            self.omni.sense()

    def speeds_into(self, out: np.ndarray, dt: float) -> None:
        """The wheeled bodies' speeds over the last physics step (m/s), into their robots' entries of `out`."""
        if self.drives is not None:
            out[self._diff_robots] = self.diff.speeds(dt)
        if self.omnis is not None:
            out[self.omnis.robots] = self.omni.speeds(dt)

    def positions_into(self, out: np.ndarray) -> None:
        """The wheeled bodies' positions as last sensed, into their robots' rows of `out`."""
        if self.drives is not None:
            out[self._diff_robots] = self.drives.pos
        if self.omnis is not None:
            out[self.omnis.robots] = self.omnis.bank.pos
