"""A simple battery per robot: constant power for electronics (and hovering), power proportional to
speed, and a fixed energy per transmitted frame. Robots without a battery have infinite energy."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BatterySpec:
    """Capacity in joules; powers in watts; `per_speed_w` in watts per m/s; `tx_j` joules per frame."""

    capacity_j: float
    """The energy a full battery holds (J)."""
    electronics_w: float = 0.1
    """What the electronics draw all the time (W)."""
    hover_w: float = 0.0
    """Aerial robots: what staying aloft draws (W)."""
    per_speed_w: float = 1.0
    """What moving draws per m/s of speed (W per m/s)."""
    tx_j: float = 0.0
    """What sending one frame costs (J)."""
    per_thrust_w: float = 0.0
    """Watts per newton of total rotor thrust (quadrotors: flight power follows thrust)."""

    def __post_init__(self) -> None:
        if self.capacity_j <= 0:
            raise ValueError(f"capacity_j must be > 0, got {self.capacity_j}")
        if min(self.electronics_w, self.hover_w, self.per_speed_w, self.tx_j, self.per_thrust_w) < 0:
            raise ValueError("electronics_w, hover_w, per_speed_w, tx_j and per_thrust_w must be >= 0")


class Batteries:
    """Energy left per robot (J), drained each physics step and by each transmission."""

    def __init__(self, specs: list[BatterySpec | None]) -> None:
        n = len(specs)
        self.energy_j = np.array([s.capacity_j if s else np.inf for s in specs], dtype=np.float64)
        self.capacity_j = self.energy_j.copy()
        self._base_w = np.array([(s.electronics_w + s.hover_w) if s else 0.0 for s in specs])
        self._per_speed_w = np.array([s.per_speed_w if s else 0.0 for s in specs])
        self._tx_j = np.array([s.tx_j if s else 0.0 for s in specs])
        self._per_thrust_w = np.array([s.per_thrust_w if s else 0.0 for s in specs])
        self.uses_thrust = bool(self._per_thrust_w.any())
        self.has = np.array([s is not None for s in specs], dtype=bool) if n else np.zeros(0, bool)

    def drain(self, dt_s: float, speeds: np.ndarray, alive: np.ndarray, thrust: np.ndarray | None = None) -> np.ndarray:
        """Spend one step's energy; returns the robots that just ran empty."""
        active = self.has & alive
        power = self._base_w[active] + self._per_speed_w[active] * speeds[active]
        if thrust is not None:
            power = power + self._per_thrust_w[active] * thrust[active]
        self.energy_j[active] -= power * dt_s
        return np.nonzero(active & (self.energy_j <= 0.0))[0]

    def transmit(self, node: int) -> bool:
        """Spend one frame's energy; True if that emptied the battery."""
        if not self.has[node]:
            return False
        self.energy_j[node] -= self._tx_j[node]
        return self.energy_j[node] <= 0.0
