"""The obstacle avoiders' rules in numpy: the references controllers.library.avoider_compiled's
kernels must match bit for bit (test_avoider.py, test_avoider_group.py)."""

from __future__ import annotations

import math

import numpy as np


def _relative(angles: np.ndarray, travel: float) -> np.ndarray:
    """Each ray's angle from the direction of travel, within [-pi, pi)."""
    return np.remainder(angles - travel + math.pi, 2 * math.pi) - math.pi


def clear_ahead_numpy(angles: np.ndarray, d: np.ndarray, travel: float, half_fov: float, safe: float) -> bool:
    """Whether every ray within half_fov of `travel` (at least the ray closest to it) reads `safe` or more."""
    away = np.abs(_relative(angles, travel))
    front = away <= half_fov
    if not front.any():
        front = away == away.min()
    return bool(d[front].min() >= safe)


def rule_numpy(angles: np.ndarray, d: np.ndarray, turn: np.ndarray, vx: np.ndarray, vy: np.ndarray, half_fov: float,
               safe: float, turn_rate: float, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(turn, vx, vy) per robot (row of d): the proposal where the way ahead is clear, else a turn in
    place toward the side with more room."""
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
