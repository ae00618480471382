"""Extra forces on flying vehicles (world frame): the ForceModel protocol and wind with gusts."""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np


class ForceModel(Protocol):
    """An extra force on each vehicle (N, world frame), e.g. wind."""

    def force(self, t: float, pos: np.ndarray, vel: np.ndarray, drag: np.ndarray) -> np.ndarray: ...

    def retime(self, dt: float) -> None:
        """Called once per `force` call from now on every `dt` seconds (the bank's tick changed)."""


class Wind:
    """A constant wind plus gusts: each vehicle's gust is an Ornstein-Uhlenbeck process (standard
    deviation `gust_std` m/s, correlation time `gust_tau` s) drawn from `rng`. The force is the
    vehicle's drag coefficient times the air's velocity (the body's own drag is in the dynamics)."""

    def __init__(self, mean: tuple[float, float, float], gust_std: float, gust_tau: float, n: int,
                 rng: np.random.Generator, dt: float) -> None:
        self.mean = np.asarray(mean, dtype=float)
        self.gust = np.zeros((n, 3))
        self._std = gust_std
        self._tau = gust_tau
        self._rng = rng
        self.retime(dt)

    def retime(self, dt: float) -> None:
        self._a = math.exp(-dt / self._tau) if self._tau > 0 else 0.0
        self._b = self._std * math.sqrt(1.0 - self._a * self._a)

    def force(self, t: float, pos: np.ndarray, vel: np.ndarray, drag: np.ndarray) -> np.ndarray:
        if self._b:
            self.gust = self._a * self.gust + self._b * self._rng.standard_normal(self.gust.shape)
        return drag[:, None] * (self.mean + self.gust)


def winds(settings: tuple | None, n: int) -> list[ForceModel]:
    """The force models a world's settings give its n quadrotors: none, or one Wind from
    (mean, gust_std, gust_tau, rng, tick) (both worlds build theirs here)."""
    if settings is None:
        return []
    mean, std, tau, rng, tick = settings
    return [Wind(mean, std, tau, n, rng, tick)]
