"""Simbeeotic's random walk: every step, perturb the heading and the planar velocity with Gaussian noise."""

from __future__ import annotations

import math
from dataclasses import dataclass

from controllers import Controller


class RandomWalk(Controller):
    """SimpleBee random walk (Simbeeotic appendix A): turn by N(0, heading_sigma) and add
    N(0, velocity_sigma) to the forward and lateral velocity, capped at max_speed."""

    @dataclass(frozen=True)
    class Params:
        max_speed: float = 2.0
        velocity_sigma: float = 0.2
        heading_sigma: float = 0.2

        def __post_init__(self) -> None:
            if self.max_speed < 0 or self.velocity_sigma < 0 or self.heading_sigma < 0:
                raise ValueError("max_speed, velocity_sigma and heading_sigma must be >= 0")
            if max(self.max_speed, self.velocity_sigma) > 1000.0 or self.heading_sigma > 100.0:
                raise ValueError("max_speed and velocity_sigma must be at most 1,000 m/s and heading_sigma at most "
                                 f"100 rad/s, got {self.max_speed:g}, {self.velocity_sigma:g}, {self.heading_sigma:g}")

    period = 0.1
    NOISE_BLOCK = 96
    """Normals drawn per call to the node's rng (the same sequence as three draws per step, cheaper)."""

    def setup(self) -> None:
        self.robot.hover()
        self._vx = 0.0
        self._vy = 0.0
        self._noise: list[float] = []

    def propose(self) -> tuple[float, float, float]:
        """The walk's next (turn in radians, vx, vy in m/s, capped at max_speed), drawn from the node's stream."""
        p = self.params
        noise = self._noise
        if not noise:
            noise.extend(reversed(self.rng.standard_normal(self.NOISE_BLOCK).tolist()))
        dh = noise.pop()
        dx = noise.pop()
        dy = noise.pop()
        vx = self._vx + p.velocity_sigma * dx
        vy = self._vy + p.velocity_sigma * dy
        speed = math.hypot(vx, vy)
        if speed > p.max_speed:
            scale = p.max_speed / speed
            vx *= scale
            vy *= scale
        return p.heading_sigma * dh, vx, vy

    def step(self) -> None:
        turn, vx, vy = self.propose()
        self.robot.turn(turn)
        self._vx = vx
        self._vy = vy
        self.robot.set_velocity(vx, vy if self.robot.moves_sideways else 0.0, 0.0)
