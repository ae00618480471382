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


SENSORS: dict[str, type] = {"compass": Compass}
