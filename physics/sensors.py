"""Sensors read from a world's state with configurable Gaussian noise and bias, from seeded streams."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CompassOptions:
    """Heading sensor: noise standard deviation and constant bias, radians."""

    noise_std: float = 0.0
    bias: float = 0.0

    def __post_init__(self) -> None:
        if self.noise_std < 0:
            raise ValueError(f"noise_std must be >= 0 radians, got {self.noise_std}")


class Compass:
    """Reads the robot's heading, wrapped to (-pi, pi], plus N(bias, noise_std^2)."""

    name = "compass"
    Options = CompassOptions

    def __init__(self, world, index: int, options: CompassOptions, rng: np.random.Generator) -> None:
        self._world = world
        self._i = index
        self._opt = options
        self._rng = rng

    def read(self) -> float:
        h = float(self._world.active_heading[self._i]) + self._opt.bias
        if self._opt.noise_std > 0:
            h += self._opt.noise_std * float(self._rng.standard_normal())
        return math.remainder(h, 2.0 * math.pi)


@dataclass(frozen=True)
class RangeOptions:
    """Range/IR rays in the horizontal plane: `count` rays over `fov_deg` degrees centred on the
    heading (360: all around), up to `max_range` metres, with Gaussian noise and a bias in metres."""

    count: int = 8
    fov_deg: float = 360.0
    max_range: float = 5.0
    noise_std: float = 0.0
    bias: float = 0.0

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"count must be >= 1, got {self.count}")
        if not 0.0 <= self.fov_deg <= 360.0:
            raise ValueError(f"fov_deg must be within [0, 360], got {self.fov_deg}")
        if self.max_range <= 0 or self.noise_std < 0:
            raise ValueError("max_range must be > 0 and noise_std >= 0")

    def angles(self) -> np.ndarray:
        """Ray angles relative to the heading, radians, counter-clockwise."""
        if self.fov_deg >= 360.0:
            return np.arange(self.count) * (2.0 * math.pi / self.count)
        if self.count == 1:
            return np.zeros(1)
        half = math.radians(self.fov_deg) / 2.0
        return np.linspace(-half, half, self.count)


class RangeSensor:
    """Distances (m) along rays from the robot's surface, clipped to [0, max_range]; needs a world
    with `cast_rays` (both built-in worlds have it)."""

    name = "range"
    Options = RangeOptions

    def __init__(self, world, index: int, options: RangeOptions, rng: np.random.Generator) -> None:
        self._world = world
        self._i = index
        self._opt = options
        self._rng = rng
        self._angles = options.angles()

    @property
    def angles(self) -> np.ndarray:
        """Ray angles relative to the heading, radians, counter-clockwise."""
        return self._angles

    def read(self) -> np.ndarray:
        a = self._angles + float(self._world.active_heading[self._i])
        dirs = np.column_stack([np.cos(a), np.sin(a), np.zeros_like(a)])
        d = self._world.cast_rays(self._i, dirs, self._opt.max_range) + self._opt.bias
        if self._opt.noise_std > 0:
            d = d + self._opt.noise_std * self._rng.standard_normal(len(d))
        return np.clip(d, 0.0, self._opt.max_range)


SENSORS: dict[str, type] = {"compass": Compass, "range": RangeSensor}
