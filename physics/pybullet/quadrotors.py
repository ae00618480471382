"""Quadrotors as pybullet rigid bodies, flown by the cascaded PID of physics.bodies.quadrotor.

Each vehicle is one body: a flat cylinder spanning its rotors, with the airframe's mass and
principal inertia and none of pybullet's own damping. At every control tick the bank reads the
bodies' state (position, velocity, attitude, body rates) and computes the four rotor thrusts; the
body then receives their resultant, the collective thrust along its z axis at the centre of mass
plus the roll, pitch and yaw moments. Four forces at the rotor positions and the rotors' reaction
torques sum to exactly this wrench, so the rigid-body motion is the same, for two pybullet calls
instead of five. The wrench is held in the body frame, as rotors hold their thrust, over the
engine steps of one tick (one at 400 Hz; several at lower control rates, as gym-pybullet-drones
steps 240 Hz physics under 48 Hz control). Drag and wind act as in the kinematic world, held over
the tick in the body frame too; contacts with the ground, obstacles and other bodies are pybullet's.
Positions are the centre of mass: a landed vehicle's is half its body height above the ground.
"""

from __future__ import annotations

import numpy as np

from physics.bodies.quadrotor import AIRFRAMES, Airframe, QuadrotorBank
from physics.pybullet.frames import euler_zyx, rotations
from physics.scene.wind import winds
from physics.world import RobotSpec

HALF_HEIGHT = 0.15
"""Half the body's height, as a fraction of its radius (the disc through the rotors)."""


class RigidQuadrotors:
    """The quadrotors of one pybullet world: their bodies and the bank that flies them."""

    def __init__(self, p, cid: int) -> None:
        self._p = p
        self._cid = cid
        self.robots: list[int] = []
        self.bodies: list[int] = []
        self._frames: list[Airframe] = []
        self._tick = 0.0025
        self._held: list[tuple[int, list[float], list[float]]] = []  # (body, force, torque), body frame
        self.bank: QuadrotorBank | None = None
        self._rot = np.zeros((0, 3, 3))
        self.fresh = False  # the bank holds the bodies' state as of now (no engine step since sense())

    def add(self, robot: int, spec: RobotSpec) -> int:
        """A body for robot `robot`, resting on its placed position; returns the body id."""
        p = self._p
        cid = self._cid
        frame = AIRFRAMES[spec.airframe]
        half = HALF_HEIGHT * spec.radius_m
        shape = p.createCollisionShape(p.GEOM_CYLINDER, radius=spec.radius_m, height=2 * half, physicsClientId=cid)
        x, y, z = spec.position
        body = p.createMultiBody(frame.mass, shape, -1, (x, y, z + half), p.getQuaternionFromEuler((0, 0, spec.heading)),
                                 physicsClientId=cid)
        p.changeDynamics(body, -1, localInertiaDiagonal=frame.inertia, linearDamping=0.0, angularDamping=0.0,
                         physicsClientId=cid)
        self.robots.append(robot)
        self.bodies.append(body)
        self._frames.append(frame)
        self._tick = spec.control_tick_s
        return body

    def start(self, headings: np.ndarray, wind: tuple | None = None) -> QuadrotorBank:
        """The bank, with the bodies' starting state; `wind` (mean, gust_std, gust_tau, rng, tick)
        blows on them as in the kinematic world."""
        n = len(self.bodies)
        self.bank = QuadrotorBank(self._frames, np.zeros((n, 3)), headings, tick=self._tick)
        self.bank.forces.extend(winds(wind, n))
        self.sense()
        self.bank.setpoint[:, 2] = self.bank.pos[:, 2]  # hold the starting height
        return self.bank

    def sense(self) -> None:
        """The bodies' state into the bank's arrays (in place: the bank keeps views of them)."""
        p = self._p
        cid = self._cid
        bank = self.bank
        get_pose = p.getBasePositionAndOrientation
        get_vel = p.getBaseVelocity
        poses = [get_pose(b, physicsClientId=cid) for b in self.bodies]
        vels = [get_vel(b, physicsClientId=cid) for b in self.bodies]
        bank.pos[:] = [q[0] for q in poses]
        self._rot = rotations(np.array([q[1] for q in poses]))
        bank.euler[:] = euler_zyx(self._rot)
        bank.vel[:] = [v[0] for v in vels]
        omega = np.array([v[1] for v in vels])
        bank.rates[:] = np.einsum("nji,nj->ni", self._rot, omega)  # world to body: R transposed
        self.fresh = True

    def refresh(self) -> None:
        """The bank holds the bodies' state of now (read it if an engine step came since)."""
        if not self.fresh:
            self.sense()

    def reset(self, slot: int, position, heading: float) -> None:
        """Body `slot` at rest at `position`, level, facing `heading`."""
        quat = self._p.getQuaternionFromEuler([0.0, 0.0, heading])
        self._p.resetBasePositionAndOrientation(self.bodies[slot], list(position), quat, physicsClientId=self._cid)
        self._p.resetBaseVelocity(self.bodies[slot], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], physicsClientId=self._cid)
        self.bank.reset(slot, position, heading)
        self.fresh = False

    def actuate(self, alive: np.ndarray) -> None:
        """One control tick: rotor thrusts from the bank; their wrench and the air's force, in the
        body frame, are held for `push` until the next tick."""
        bank = self.bank
        bank.alive = alive
        if not self.fresh:
            self.sense()
        self.fresh = False  # the engine steps next
        wrench = bank.control()
        force = np.einsum("nji,nj->ni", self._rot, bank.air_force())  # world to body: R transposed
        force[:, 2] += wrench[:, 0]
        self._held = list(zip(self.bodies, force.tolist(), wrench[:, 1:].tolist()))

    def push(self) -> None:
        """The held wrench onto the bodies, for one engine step (pybullet forgets it after each)."""
        p = self._p
        cid = self._cid
        frame = p.LINK_FRAME
        centre = (0.0, 0.0, 0.0)
        force = p.applyExternalForce
        torque = p.applyExternalTorque
        for body, f, tau in self._held:
            force(body, -1, f, centre, frame, physicsClientId=cid)
            torque(body, -1, tau, frame, physicsClientId=cid)

    def thrusts(self) -> np.ndarray:
        """Collective rotor thrust per vehicle (N)."""
        return self.bank.rotor.sum(axis=1)

    def tilt_deg(self) -> np.ndarray:
        """Angle between each body's z axis and the vertical (degrees)."""
        return np.degrees(np.arccos(np.clip(self._rot[:, 2, 2], -1.0, 1.0)))
