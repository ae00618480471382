"""Reach queries in numpy: the reference the compiled ones (netstack.fast.kernels)
must match, result for result and in order."""

from __future__ import annotations

import numpy as np

from netstack.fast.reach import _matrix_pairs


def xy_extent(pos: np.ndarray) -> tuple[float, float]:
    """(max - min) of x and of y over all rows."""
    x, y = pos[:, 0], pos[:, 1]
    return float(x.max() - x.min()), float(y.max() - y.min())


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


sender_pairs = _matrix_pairs
"""(sender row, node, distance) for every alive node other than the sender within `limit`, sender by
sender, nodes ascending: the radio's own numpy matrix (netstack.fast.reach), used for dense clusters."""


def sender_pairs_cells(pos: np.ndarray, alive: np.ndarray, srcs: np.ndarray, cell: float,
                       limit: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`sender_pairs` through an x-y cell list of width `cell` (>= the radius)."""
    n = len(pos)
    c = np.floor(pos[:, :2] / cell).astype(np.int64)
    lo = c.min(axis=0) - 1
    c -= lo
    width = int(c[:, 1].max()) + 2
    keys = c[:, 0] * width + c[:, 1]
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    around = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], dtype=np.int64)
    nb = (c[srcs][:, None, :] + around[None, :, :]).reshape(-1, 2)
    nb_keys = nb[:, 0] * width + nb[:, 1]
    start = np.searchsorted(sorted_keys, nb_keys, side="left")
    counts = np.searchsorted(sorted_keys, nb_keys, side="right") - start
    row = np.repeat(np.arange(len(nb_keys)) // len(around), counts)
    first = np.repeat(start - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    node = order[np.arange(int(counts.sum())) + first]
    keep = (node != srcs[row]) & alive[node]
    row, node = row[keep], node[keep]
    d = pos[node] - pos[srcs[row]]
    dist = np.sqrt(np.einsum("ij,ij->i", d, d))
    near = dist <= limit
    row, node, dist = row[near], node[near], dist[near]
    order = np.argsort(row * n + node, kind="stable")
    return row[order], node[order], dist[order]
