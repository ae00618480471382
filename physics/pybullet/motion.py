"""Every body's linear and angular velocity over the last two steps of a pybullet world, kept once a
sensor asks for accelerations (IMU): one pybullet call per body and step, none until then."""

from __future__ import annotations

from types import ModuleType

import numpy as np


class Motion:
    """Velocities (world frame) now and one step before, of the bodies in `bodies` (a list the world
    keeps appending to until it starts)."""

    def __init__(self, pybullet: ModuleType, cid: int, bodies: list[int]) -> None:
        self.pybullet = pybullet
        self.cid = cid
        self.bodies = bodies
        self.tracking = False
        self.vel_now = np.zeros((0, 3))
        self.vel_before = np.zeros((0, 3))
        self.spin_now = np.zeros((0, 3))
        self.spin_before = np.zeros((0, 3))

    def read(self) -> tuple[np.ndarray, np.ndarray]:
        """Every body's linear and angular velocity now (world frame), one pybullet call per body."""
        get = self.pybullet.getBaseVelocity
        cid = self.cid
        both = np.array([get(b, physicsClientId=cid) for b in self.bodies], dtype=np.float64).reshape(-1, 2, 3)
        return both[:, 0].copy(), both[:, 1].copy()

    def track(self) -> None:
        """Keep the velocities from now on: both steps start as the present ones."""
        self.tracking = True
        self.vel_now, self.spin_now = self.read()
        self.vel_before = self.vel_now.copy()
        self.spin_before = self.spin_now.copy()

    def stepped(self) -> None:
        """After an engine step: the present velocities become the previous ones (when tracking)."""
        if self.tracking:
            self.vel_before = self.vel_now
            self.spin_before = self.spin_now
            self.vel_now, self.spin_now = self.read()

    def acceleration(self, i: int, dt_s: float) -> np.ndarray:
        """Body i's world-frame acceleration over the last step (m/s^2); zero before tracking."""
        return (self.vel_now[i] - self.vel_before[i]) / dt_s if len(self.vel_now) else np.zeros(3)

    def spin_change(self, i: int, dt_s: float) -> np.ndarray | None:
        """Body i's world-frame angular acceleration over the last step (rad/s^2); None before tracking."""
        if not len(self.spin_now):
            return None
        return (self.spin_now[i] - self.spin_before[i]) / dt_s
