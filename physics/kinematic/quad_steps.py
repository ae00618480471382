"""One physics step of a kinematic world's quadrotor bank: its control ticks (as many as an attached
motor feed asks for), and the touchdowns of the step when contacts are tracked."""

from __future__ import annotations

import numpy as np

from physics.bodies.quadrotor import QuadrotorBank
from physics.world import MotorFeed

Touchdowns = tuple[list[tuple[int, int, float]], np.ndarray]
"""(robot, -1, speed before the step in m/s) per quadrotor the ground stopped, and every one's speed before."""


def step_bank(q: QuadrotorBank, feed: MotorFeed | None, alive: np.ndarray, robots: np.ndarray, dt_s: float,
              track: bool) -> Touchdowns | None:
    """Advance bank q (rows are `robots`) by dt_s; the touchdowns when `track`, else None."""
    if feed is not None:
        n = feed.ticks_per_step(dt_s)
        if round(dt_s / q.tick) != n:
            q.set_tick(dt_s / n)
    ticks = round(dt_s / q.tick)
    q.alive = alive
    airborne = ~q.on_ground
    speed = np.sqrt(np.einsum("ij,ij->i", q.vel, q.vel))
    for k in range(ticks):
        if feed is not None:
            feed.feed(q, k, ticks)
        q.step()
    if not track:
        return None
    return [(int(robots[k]), -1, float(speed[k])) for k in np.nonzero(airborne & q.on_ground)[0]], speed
