"""Robots whose pose comes from outside the kinematic world (ghost twins of real vehicles, from their
telemetry): dead-reckoned between updates, never moved by the world itself."""

from __future__ import annotations

import numpy as np


class ExternalPoses:
    """The external robots' last known positions and velocities (arena frame, m and m/s)."""

    def __init__(self, robots: np.ndarray, pos: np.ndarray) -> None:
        self.robots = robots
        self.slot = {int(i): k for k, i in enumerate(robots)}
        self.pos = pos[robots].copy()
        self.vel = np.zeros((len(robots), 3))

    @classmethod
    def none(cls) -> ExternalPoses:
        """No external robot."""
        return cls(np.zeros(0, dtype=np.int64), np.zeros((0, 3)))

    def set(self, i: int, position, velocity) -> None:
        """Robot i's latest pose from outside."""
        k = self.slot[i]
        self.pos[k] = position
        self.vel[k] = velocity

    def place(self, dt_s: float, pos: np.ndarray, vel: np.ndarray) -> None:
        """Move them on by `dt_s` at their last velocity and write them into the world's arrays."""
        self.pos += self.vel * dt_s
        pos[self.robots] = self.pos
        vel[self.robots] = self.vel
