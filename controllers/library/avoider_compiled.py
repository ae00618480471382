"""The obstacle avoiders' rule, written once and compiled (numba): `avoid` for one robot (ObstacleAvoider),
`group_rule` for a group's rows (ObstacleAvoiderGroup). tests/controllers/library/avoider_reference.py
writes it in numpy, and test_avoider.py and test_avoider_group.py hold the two equal bit for bit."""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def clear_ahead(angles: np.ndarray, d: np.ndarray, travel: float, half_fov: float, safe: float) -> bool:
    """Whether every ray within half_fov of `travel` (or, when none is, the rays closest to it) reads
    at least `safe`; the rays' angles relative to travel wrapped as numpy's remainder wraps them."""
    front_min = np.inf
    near_min = np.inf
    near_gap = np.inf
    any_front = False
    for k in range(len(angles)):
        gap = abs(np.remainder(angles[k] - travel + math.pi, 2 * math.pi) - math.pi)
        if gap <= half_fov:
            any_front = True
            if d[k] < front_min or d[k] != d[k]:  # a NaN wins and stays, as in numpy's min
                front_min = d[k]
        if gap < near_gap:
            near_gap = gap
            near_min = d[k]
        elif gap == near_gap and (d[k] < near_min or d[k] != d[k]):
            near_min = d[k]
    return (front_min if any_front else near_min) >= safe


@njit(cache=True)
def avoid(angles: np.ndarray, d: np.ndarray, turn: float, vx: float, vy: float, half_fov: float, safe: float,
          turn_rate: float, dt: float) -> tuple[float, float, float]:
    """The obstacle avoiders' rule for one robot reading `d` on its rays: the proposed (turn, vx, vy)
    where the way ahead is clear; otherwise standing still and turning at turn_rate toward the side
    whose rays read more on average (sums left to right)."""
    travel = turn + (math.atan2(vy, vx) if (vx != 0.0 or vy != 0.0) else 0.0)
    if clear_ahead(angles, d, travel, half_fov, safe):
        return turn, vx, vy
    left = 0.0
    right = 0.0
    n_left = 0
    n_right = 0
    for k in range(len(angles)):
        if np.remainder(angles[k] - travel + math.pi, 2 * math.pi) - math.pi > 0:
            left += d[k]
            n_left += 1
        else:
            right += d[k]
            n_right += 1
    mean_left = left / n_left if n_left else 0.0
    mean_right = right / n_right if n_right else 0.0
    direction = 1.0 if mean_left >= mean_right else -1.0
    return direction * turn_rate * dt, 0.0, 0.0


@njit(cache=True)
def group_rule(angles: np.ndarray, d: np.ndarray, turn: np.ndarray, vx: np.ndarray, vy: np.ndarray, half_fov: float,
               safe: float, turn_rate: float, dt: float) -> tuple:
    """`avoid` for every robot (row of d)."""
    n = len(turn)
    out_turn = np.empty(n)
    out_vx = np.empty(n)
    out_vy = np.empty(n)
    for i in range(n):
        out_turn[i], out_vx[i], out_vy[i] = avoid(angles, d[i], turn[i], vx[i], vy[i], half_fov, safe, turn_rate, dt)
    return out_turn, out_vx, out_vy
