"""Who hears whom, for many senders at once: one spatial query and vectorised path loss for every
frame sent at one instant, instead of a few dozen numpy calls per frame.

Receivers of each sender come out in ascending node id, senders in the order given, so the rows
(and the loss draws made over them) are the same as sending the frames one by one.
"""

from __future__ import annotations

import numpy as np

from netstack.fast.pair_kernels import sender_pairs

DENSE_MAX_NODES = 256
"""Up to this many nodes the full distance matrix beats a cell list (and always for an unbounded radio)."""


def _candidate_pairs_cells(pos: np.ndarray, srcs: np.ndarray, cell: float) -> tuple[np.ndarray, np.ndarray]:
    """(sender row, node) pairs whose x-y cells touch: a superset of the pairs within `cell`."""
    c = np.floor(pos[:, :2] / cell).astype(np.int64)
    lo = c.min(axis=0) - 1
    c -= lo
    width = int(c[:, 1].max()) + 2
    keys = c[:, 0] * width + c[:, 1]
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    sc = c[srcs]
    around = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], dtype=np.int64)
    nb = (sc[:, None, :] + around[None, :, :]).reshape(-1, 2)
    nb_keys = nb[:, 0] * width + nb[:, 1]
    start = np.searchsorted(sorted_keys, nb_keys, side="left")
    stop = np.searchsorted(sorted_keys, nb_keys, side="right")
    counts = stop - start
    total = int(counts.sum())
    owner = np.repeat(np.arange(len(nb_keys)) // len(around), counts)
    first = np.repeat(start - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return owner, order[np.arange(total) + first]


def reachable_many(pos: np.ndarray, alive: np.ndarray, srcs: np.ndarray,
                   radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs (sender row, receiver node, distance) with distance <= `radius` (inf: everyone), receiver
    alive and not the sender; sorted by sender row, then receiver id."""
    n, k = len(pos), len(srcs)
    if np.isfinite(radius) and n > DENSE_MAX_NODES:
        row, node = _candidate_pairs_cells(pos, srcs, radius)
        if 2 * len(row) > k * n:  # a dense cluster: the matrix is cheaper than the cells
            return _dense(pos, alive, srcs, radius)
        keep = (node != srcs[row]) & alive[node]
        row, node = row[keep], node[keep]
        d = pos[node] - pos[srcs[row]]
        dist = np.sqrt(np.einsum("ij,ij->i", d, d))
        near = dist <= radius * (1.0 + 1e-9) + 1e-9  # a superset: the caller applies the exact receive test
        row, node, dist = row[near], node[near], dist[near]
        order = np.argsort(row * n + node, kind="stable")
        return row[order], node[order], dist[order]
    return _dense(pos, alive, srcs, radius)


SMALL_PAIRS = 20_000
"""Senders x nodes below which one compiled loop beats numpy's vectorised matrix (per-call overhead)."""


def _dense(pos: np.ndarray, alive: np.ndarray, srcs: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every sender against every node, in order: row-major, so sorted by sender, then node."""
    n = len(pos)
    limit = radius * (1.0 + 1e-9) + 1e-9  # a superset: the caller applies the exact receive test
    if len(srcs) * n <= SMALL_PAIRS:
        return sender_pairs(np.ascontiguousarray(pos), alive, np.ascontiguousarray(srcs, dtype=np.int64), limit)
    d = (pos[None, :, :] - pos[srcs][:, None, :]).reshape(-1, 3)
    dist = np.sqrt(np.einsum("ij,ij->i", d, d))
    ok = (dist <= limit) & np.tile(alive, len(srcs))
    ok[np.arange(len(srcs)) * n + srcs] = False
    flat = np.nonzero(ok)[0]
    return flat // n, flat % n, dist[flat]
