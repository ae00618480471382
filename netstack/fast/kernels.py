"""Reach queries of the fast radio, compiled with numba: one send's receivers among candidates
(`within`), and many senders' at one instant through the same cell index (`reach_many`). Results come
in a fixed order (loss draws depend on it), the order of the numpy reference in
tests/netstack/kernels_reference.py. Distances sum (x^2 + z^2) + y^2, as numpy's einsum does on
contiguous rows."""

from __future__ import annotations

import numpy as np
from numba import njit

from netstack.fast.cells import Cells, candidates


@njit(cache=True)
def within(pos: np.ndarray, vel: np.ndarray, dt: float, alive: np.ndarray, cand: np.ndarray, m: int, src: int,
           limit: float, nodes: np.ndarray, dist: np.ndarray) -> int:
    """The first m candidates other than `src` that are alive and within `limit` of it (inf: any),
    with their distances, into `nodes` and `dist`, every position dead-reckoned `dt` seconds (pos +
    vel * dt; none when dt is 0). Returns how many. A single send's receivers, on either engine."""
    if dt == 0.0:
        sx, sy, sz = pos[src, 0], pos[src, 1], pos[src, 2]
    else:
        sx, sy, sz = pos[src, 0] + vel[src, 0] * dt, pos[src, 1] + vel[src, 1] * dt, pos[src, 2] + vel[src, 2] * dt
    k = 0
    for t in range(m):
        c = cand[t]
        if c == src or not alive[c]:
            continue
        if dt == 0.0:
            x, y, z = pos[c, 0] - sx, pos[c, 1] - sy, pos[c, 2] - sz
        else:
            x = (pos[c, 0] + vel[c, 0] * dt) - sx
            y = (pos[c, 1] + vel[c, 1] * dt) - sy
            z = (pos[c, 2] + vel[c, 2] * dt) - sz
        d = np.sqrt((x * x + z * z) + y * y)
        if d <= limit:
            nodes[k], dist[k] = c, d
            k += 1
    return k


@njit(cache=True)
def _grown(rows: np.ndarray, nodes: np.ndarray, dists: np.ndarray, m: int,
           size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Copies of the first m entries of the three arrays, in arrays of `size`."""
    rows2, nodes2, dists2 = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64), np.empty(size)
    rows2[:m], nodes2[:m], dists2[:m] = rows[:m], nodes[:m], dists[:m]
    return rows2, nodes2, dists2


@njit(cache=True)
def reach_many(c: Cells, pos: np.ndarray, vel: np.ndarray, dt: float, alive: np.ndarray, srcs: np.ndarray, limit: float,
               found: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Frames from several alive senders at one instant, dt seconds after the index's positions: each
    sender's candidates from the index (cells.candidates) measured by `within`, exactly as single
    sends find them. Returns (sender row, receiver, distance), by sender row, receivers ascending;
    `found` and `dist` are room for one sender's receivers."""
    n, k = len(pos), len(srcs)
    cap = max(16, 8 * k)
    rows, nodes, dists = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64), np.empty(cap)
    m = 0
    for r in range(k):
        s = srcs[r]
        if not alive[s]:
            continue
        f = within(pos, vel, dt, alive, c.cand, candidates(c, n, s, dt), s, limit, found, dist)
        if m + f > len(rows):
            rows, nodes, dists = _grown(rows, nodes, dists, m, 2 * (m + f))
        for t in range(f):
            rows[m], nodes[m], dists[m] = r, found[t], dist[t]
            m += 1
    return rows[:m], nodes[:m], dists[:m]
