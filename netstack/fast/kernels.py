"""The fast radio's reach query, compiled with numba: one send's receivers among candidates
(`within`; netstack.fast.air finds the candidates in the cell index). Results come in a fixed order
(loss draws depend on it), the order of the numpy reference in
tests/netstack/kernels_reference.py. Distances sum (x^2 + z^2) + y^2, as numpy's einsum does on
contiguous rows."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def within(pos: np.ndarray, vel: np.ndarray, dt: float, alive: np.ndarray, cand: np.ndarray, m: int, src: int,
           limit: float, nodes: np.ndarray, dist: np.ndarray) -> int:
    """The first m candidates other than `src` that are alive and within `limit` of it (inf: any),
    with their distances, into `nodes` and `dist`, every position dead-reckoned `dt` seconds (pos +
    vel * dt; none when dt is 0). Returns how many. A single send's receivers, on either engine."""
    if dt == 0.0:
        sx = pos[src, 0]
        sy = pos[src, 1]
        sz = pos[src, 2]
    else:
        sx = pos[src, 0] + vel[src, 0] * dt
        sy = pos[src, 1] + vel[src, 1] * dt
        sz = pos[src, 2] + vel[src, 2] * dt
    k = 0
    for t in range(m):
        c = cand[t]
        if c == src or not alive[c]:
            continue
        if dt == 0.0:
            x = pos[c, 0] - sx
            y = pos[c, 1] - sy
            z = pos[c, 2] - sz
        else:
            x = (pos[c, 0] + vel[c, 0] * dt) - sx
            y = (pos[c, 1] + vel[c, 1] * dt) - sy
            z = (pos[c, 2] + vel[c, 2] * dt) - sz
        d = np.sqrt((x * x + z * z) + y * y)
        if d <= limit:
            nodes[k] = c
            dist[k] = d
            k += 1
    return k
