"""Pair searches and reach queries in numpy: the reference the compiled ones (netstack.fast.kernels)
must match, result for result and in order."""

from __future__ import annotations

import numpy as np

from netstack.fast.reach import _matrix_pairs


def xy_extent(pos: np.ndarray) -> tuple[float, float]:
    """(max - min) of x and of y over all rows."""
    x, y = pos[:, 0], pos[:, 1]
    return float(x.max() - x.min()), float(y.max() - y.min())


def brute_pairs(pos: np.ndarray, radius: float) -> np.ndarray:
    """All pairs i < j within radius, row-major."""
    diff = pos[:, None, :] - pos[None, :, :]
    d2 = np.einsum("ijk,ijk->ij", diff, diff)
    i, j = np.nonzero(np.triu(d2 <= radius * radius, k=1))
    return np.stack([i, j], axis=1).astype(np.int64)


def column_pairs(pos: np.ndarray, radius: float) -> np.ndarray:
    """All pairs i < j within radius, sorted lexicographically: cells of width `radius` in x, points
    sorted by y inside each column, and a sweep over the same and the next column."""
    n = len(pos)
    x, y = pos[:, 0], pos[:, 1]
    col = np.floor((x - x.min()) / radius)
    y0 = y - y.min()
    span = float(y0.max()) + 2.0 * radius + 1.0  # keys of different columns differ by more than radius
    key = col * span + y0
    order = np.argsort(key)  # stability is not needed: pairs are sorted at the end
    k = key[order]
    first_next = np.searchsorted(k, k + (span - radius), side="left")
    out_a, out_b = [], []
    active = np.nonzero(k[1:] - k[:-1] <= radius)[0]
    s = 1
    while len(active):
        out_a.append(active)
        out_b.append(active + s)
        s += 1
        active = active[active + s < n]
        active = active[k[active + s] - k[active] <= radius]
    j = first_next
    limit = k + (span + radius)
    active = np.arange(n)
    while len(active):
        ok = j < n
        active, j = active[ok], j[ok]
        ok = k[j] <= limit[active]
        active, j = active[ok], j[ok]
        out_a.append(active)
        out_b.append(j)
        j = j + 1
    a = order[np.concatenate(out_a)]
    b = order[np.concatenate(out_b)]
    d = pos[a] - pos[b]
    near = np.einsum("ij,ij->i", d, d) <= radius * radius
    a, b = a[near], b[near]
    pairs = np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def reach_one(pos: np.ndarray, vel: np.ndarray, dt: float, alive: np.ndarray, cand: np.ndarray,
              src: int) -> tuple[np.ndarray, np.ndarray]:
    """Candidates other than `src` that are alive, and their distances from it, positions
    dead-reckoned `dt` seconds (none when dt is 0)."""
    cand = cand[(cand != src) & alive[cand]]
    if dt == 0.0:
        diff = pos[cand] - pos[src]
    else:
        diff = (pos[cand] + vel[cand] * dt) - (pos[src] + vel[src] * dt)
    return cand, np.sqrt(np.einsum("ij,ij->i", diff, diff))


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


def max_displacement(pos: np.ndarray, ref: np.ndarray) -> float:
    """The largest distance any point has moved from `ref`."""
    d = pos - ref
    return float(np.sqrt(np.einsum("ij,ij->i", d, d).max())) if len(d) else 0.0


def near_pairs(pos: np.ndarray, cand: np.ndarray, radius: float) -> np.ndarray:
    """The candidate pairs (rows i, j) within radius, in their order."""
    d = pos[cand[:, 0]] - pos[cand[:, 1]]
    return cand[np.einsum("ij,ij->i", d, d) <= radius * radius]
