"""The obstacle avoider as a group controller: `ObstacleAvoider`'s rule for the whole group in a few
array operations per tick, instead of a Python call per robot.

Each robot draws its walk from the stream its per-robot `ObstacleAvoider` would use, and the rule is
the same arithmetic in the same order (ray sums left to right, `math.atan2` per robot): with the
per-robot steps pinned to phase 0 (the group's ticks), the two give bit-identical trajectories
(tests/controllers/library/test_avoider_group.py).
"""

from __future__ import annotations

import math

import numpy as np

from controllers.library.avoider import ObstacleAvoider
from controllers.library.random_walk_group import RandomWalkGroup
from physics import kernels as physics_kernels


class ObstacleAvoiderGroup(RandomWalkGroup):
    """`ObstacleAvoider` for every robot of the group; needs a `range` sensor with the same rays on
    every robot."""

    Params = ObstacleAvoider.Params

    def setup(self) -> None:
        super().setup()
        fans = [robot.get("range") for robot in self.group.sensors]
        if not fans or any(f is None for f in fans):
            raise RuntimeError("ObstacleAvoiderGroup needs a range sensor: add `sensors: {range: {}}` to its group")
        self._angles = np.asarray(fans[0].angles, dtype=np.float64)
        if any(not np.array_equal(f.angles, self._angles) for f in fans):
            raise RuntimeError("ObstacleAvoiderGroup needs the same range rays on every robot of its group")
        self._half_fov = math.radians(self.params.front_deg) / 2
        self._last_step: float | None = None
        self._rule = rule_numpy
        if physics_kernels.compiled:  # the run loaded the compiled kernels: one call per tick, not two dozen
            from controllers.library.avoider_compiled import group_rule

            self._rule = group_rule

    def step(self) -> None:
        g, p = self.group, self.params
        now = self.now
        dt = now - self._last_step if self._last_step is not None else 0.0
        self._last_step = now
        d = g.read("range")
        turn, self.vx, self.vy = self._rule(self._angles, d, *self.propose(), self._half_fov, p.safe_distance,
                                            p.turn_rate, dt)
        g.turn(turn)
        g.set_velocity(self.vx, self.vy if g.moves_sideways else 0.0, 0.0)


def rule_numpy(angles: np.ndarray, d: np.ndarray, turn: np.ndarray, vx: np.ndarray, vy: np.ndarray, half_fov: float,
               safe: float, turn_rate: float, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(turn, vx, vy) per robot (row of d): the proposal where the way ahead is clear, else a turn in
    place toward the side with more room (avoider_compiled.group_rule is its compiled twin)."""
    travel = turn + np.fromiter(map(_heading_of, vx.tolist(), vy.tolist()), dtype=np.float64, count=len(turn))
    rel = np.remainder(angles[None, :] - travel[:, None] + math.pi, 2 * math.pi) - math.pi
    away = np.abs(rel)
    front = away <= half_fov
    blind = ~front.any(axis=1)
    if blind.any():  # at least the ray closest to the travel direction
        front[blind] = away[blind] == away[blind].min(axis=1, keepdims=True)
    clear = np.where(front, d, np.inf).min(axis=1) >= safe
    left = rel > 0
    direction = np.where(_mean_where(d, left) >= _mean_where(d, ~left), 1.0, -1.0)
    return np.where(clear, turn, direction * turn_rate * dt), np.where(clear, vx, 0.0), np.where(clear, vy, 0.0)


def _heading_of(vx: float, vy: float) -> float:
    """The direction of a move in the robot's frame, 0 for none (as ObstacleAvoider)."""
    return math.atan2(vy, vx) if (vx or vy) else 0.0


def _mean_where(d: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row, the mean of d where mask (0 where none), summed left to right like a short row's
    `d[mask].mean()`."""
    total = np.cumsum(np.where(mask, d, 0.0), axis=1)[:, -1]  # an accumulation runs left to right; a sum may not
    count = mask.sum(axis=1)
    return np.divide(total, count, out=np.zeros(len(d)), where=count > 0)
