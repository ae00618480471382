"""Reach queries in numpy: the reference the compiled ones (netstack.fast.kernels)
must match, result for result and in order."""

from __future__ import annotations

import numpy as np


def within(pos: np.ndarray, vel: np.ndarray, dt: float, alive: np.ndarray, cand: np.ndarray, src: int,
           limit: float) -> tuple[np.ndarray, np.ndarray]:
    """Candidates other than `src` that are alive and within `limit` of it, and their distances,
    positions dead-reckoned `dt` seconds (none when dt is 0)."""
    cand = cand[(cand != src) & alive[cand]]
    if dt == 0.0:
        diff = pos[cand] - pos[src]
    else:
        diff = (pos[cand] + vel[cand] * dt) - (pos[src] + vel[src] * dt)
    dist = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return cand[dist <= limit], dist[dist <= limit]
