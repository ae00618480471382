"""Robots' positions in a pybullet world, each read from pybullet at most once per step: all at once
(one call per body, unless the step's banks sensed them already) or one robot at a time."""

from __future__ import annotations

from types import ModuleType

import numpy as np


class Positions:
    """The positions of `bodies` (a list the world keeps appending to until it starts), as of the
    last engine step."""

    def __init__(self, pybullet: ModuleType, cid: int, bodies: list[int]) -> None:
        self.pybullet = pybullet
        self.cid = cid
        self.bodies = bodies
        self.all = np.zeros((0, 3))
        self.fresh = False  # `all` is this step's
        self.one: dict[int, np.ndarray] = {}  # robots read alone this step

    def stale(self) -> None:
        """The bodies moved: read again when asked."""
        self.fresh = False
        self.one.clear()

    def sensed(self, pos: np.ndarray) -> None:
        """Every position, as the step's banks sensed them (no pybullet call needed)."""
        self.one.clear()
        self.all = pos
        self.fresh = True

    def every(self) -> np.ndarray:
        """(N, 3) positions, read now if the step's are not known yet."""
        if not self.fresh:
            self.read()
        return self.all

    def read(self) -> None:
        """Every body's position from pybullet, one call per body."""
        get = self.pybullet.getBasePositionAndOrientation
        cid = self.cid
        self.all = np.array([get(b, physicsClientId=cid)[0] for b in self.bodies], dtype=np.float64).reshape(-1, 3)
        self.fresh = True

    def of(self, i: int) -> np.ndarray:
        """Robot i's position (a copy), one pybullet call the first time in a step."""
        if self.fresh:
            return self.all[i].copy()
        cached = self.one.get(i)
        if cached is None:
            cached = np.array(self.pybullet.getBasePositionAndOrientation(self.bodies[i], physicsClientId=self.cid)[0])
            self.one[i] = cached
        return cached.copy()
