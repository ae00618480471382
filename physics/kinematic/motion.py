"""What the kinematic world keeps of the step before, for IMU sensors: every robot's velocity,
heading and body rates, and the step's length."""

from __future__ import annotations

import numpy as np


class MotionHistory:
    """The previous step's state, kept from the moment a sensor asks (`tracking`)."""

    def __init__(self) -> None:
        self.tracking = False
        self.vel = np.zeros((0, 3))
        self.heading = np.zeros(0)
        self.rates = np.zeros((0, 3))
        self.dt_s = 0.0

    def remember(self, dt_s: float, vel: np.ndarray, heading: np.ndarray, rates: np.ndarray) -> None:
        """Keep the state before a step of `dt_s` (copies: the world changes its arrays in place)."""
        self.rates = rates
        self.vel = vel.copy()
        self.heading = heading.copy()
        self.dt_s = dt_s

    def acceleration(self, i: int, vel: np.ndarray) -> np.ndarray:
        """Robot i's world-frame acceleration over the last step (m/s^2), zero before one was kept."""
        if not self.dt_s or not len(self.vel):
            return np.zeros(3)
        return (vel[i] - self.vel[i]) / self.dt_s

    def turn_rates(self, heading: np.ndarray) -> np.ndarray | None:
        """Every robot's heading rate over the last step (rad/s), None before one was kept."""
        if not self.dt_s or not len(self.heading):
            return None
        return (np.remainder(heading - self.heading + np.pi, 2 * np.pi) - np.pi) / self.dt_s

    def turn_rate(self, i: int, heading: float) -> float | None:
        """Robot i's heading rate over the last step (rad/s), None before one was kept."""
        if not self.dt_s or not len(self.heading):
            return None
        return (np.remainder(heading - self.heading[i] + np.pi, 2 * np.pi) - np.pi) / self.dt_s

    def angular_acceleration(self, i: int, rates_now: np.ndarray) -> np.ndarray:
        """Robot i's body-frame angular acceleration over the last step (rad/s^2), from its rates now."""
        if not self.dt_s or not len(self.rates):
            return np.zeros(3)
        return (rates_now - self.rates[i]) / self.dt_s
