"""ObstacleAvoider's test of the way ahead, compiled (numba): one call instead of a dozen numpy calls
on two dozen rays. The same arithmetic as the numpy expression in ObstacleAvoider, ray by ray
(tests/controllers/library/test_avoider.py compares them bit for bit)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def clear_ahead(angles: np.ndarray, d: np.ndarray, travel: float, half_fov: float, safe: float) -> bool:
    """Whether every ray within half_fov of `travel` (or, when none is, the rays closest to it) reads
    at least `safe`; the rays' angles relative to travel wrapped as numpy's remainder wraps them."""
    front_min, near_min, near_gap, any_front = np.inf, np.inf, np.inf, False
    for k in range(len(angles)):
        gap = abs(np.remainder(angles[k] - travel + math.pi, 2 * math.pi) - math.pi)
        if gap <= half_fov:
            any_front = True
            if d[k] < front_min or d[k] != d[k]:  # a NaN wins and stays, as in numpy's min
                front_min = d[k]
        if gap < near_gap:
            near_gap, near_min = gap, d[k]
        elif gap == near_gap and (d[k] < near_min or d[k] != d[k]):
            near_min = d[k]
    return (front_min if any_front else near_min) >= safe
