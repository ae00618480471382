"""The kinematic world's own compiled search for robots close enough to touch, for its compiled step:
a Verlet list of the pairs within reach + skin, rebuilt from a cell index of the robots when some robot has moved
nearly half the skin, filtered to the pairs within reach at every step.

The pairs come out in lexicographic order (i < j), as the injected pair finder's do, so the pushes
apart are summed in the same order; only pairs that overlap push, and both searches find all of
those (tests/physics/test_pair_kernels.py compares them with brute force).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from physics.scenery_kernels import robot_cells


@njit(cache=True)
def _d2(pos: np.ndarray, i: int, j: int) -> float:
    x = pos[j, 0] - pos[i, 0]
    y = pos[j, 1] - pos[i, 1]
    z = pos[j, 2] - pos[i, 2]
    return (x * x + z * z) + y * y


@njit(cache=True)
def grid_pairs(pos: np.ndarray, r: float) -> np.ndarray:
    """All pairs i < j within r, sorted by i then j: a cell index of the robots (cells at least r
    wide), each robot checked against the robots of its own and the eight cells around it."""
    n = len(pos)
    out = np.empty((max(16, 2 * n), 2), dtype=np.int64)
    if n < 2 or not r > 0:
        return out[:0]
    x0, y0, cell, nx, ny, start, order = robot_cells(pos, r, 16.0)
    r2 = r * r
    found = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if not (math.isfinite(pos[i, 0]) and math.isfinite(pos[i, 1])):
            continue
        cx, cy = np.int64((pos[i, 0] - x0) / cell), np.int64((pos[i, 1] - y0) / cell)
        c = 0
        for gx in range(max(cx - 1, 0), min(cx + 2, nx)):
            for gy in range(max(cy - 1, 0), min(cy + 2, ny)):
                g = gx * ny + gy
                for q in range(start[g], start[g + 1]):
                    j = order[q]
                    if j > i and _d2(pos, i, j) <= r2:
                        t = c - 1  # kept in ascending order
                        while t >= 0 and found[t] > j:
                            found[t + 1] = found[t]
                            t -= 1
                        found[t + 1] = j
                        c += 1
        if m + c > len(out):
            bigger = np.empty((2 * (m + c), 2), dtype=np.int64)
            bigger[:m] = out[:m]
            out = bigger
        for t in range(c):
            out[m, 0], out[m, 1] = i, found[t]
            m += 1
    return out[:m]


@njit(cache=True)
def near_pairs(pos: np.ndarray, reach: float, ref: np.ndarray, built: np.ndarray, cand: np.ndarray) -> tuple:
    """(pairs within reach, the candidate list to pass next time): `cand` holds the pairs within
    2 * reach of `ref`, the positions when it was built; rebuilt (and `ref`, `built[0]` updated)
    when it was never built or some robot has moved more than 0.49 reach since."""
    rebuild = built[0] == 0
    if not rebuild:
        limit = (0.49 * reach) ** 2
        for i in range(len(pos)):
            x, y, z = pos[i, 0] - ref[i, 0], pos[i, 1] - ref[i, 1], pos[i, 2] - ref[i, 2]
            if (x * x + z * z) + y * y > limit:
                rebuild = True
                break
    if rebuild:
        cand = grid_pairs(pos, 2.0 * reach)
        ref[:] = pos
        built[0] = 1
    r2 = reach * reach
    keep = np.empty(len(cand), dtype=np.bool_)
    for t in range(len(cand)):
        keep[t] = _d2(pos, cand[t, 0], cand[t, 1]) <= r2
    return cand[keep], cand
