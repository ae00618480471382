"""Who hears whom, for many senders at once: one spatial query and vectorised path loss for every
frame sent at one instant, instead of a few dozen numpy calls per frame.

Receivers of each sender come out in ascending node id, senders in the order given, so the rows
(and the loss draws made over them) are the same as sending the frames one by one.
"""

from __future__ import annotations

import numpy as np

from netstack.fast import kernels

DENSE_MAX_NODES = 256
"""Up to this many nodes the full distance matrix beats a cell list (and always for an unbounded radio)."""


def reachable_many(pos: np.ndarray, alive: np.ndarray, srcs: np.ndarray,
                   radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs (sender row, receiver node, distance) with distance <= `radius` (inf: everyone), receiver
    alive and not the sender; sorted by sender row, then receiver id."""
    n = len(pos)
    if np.isfinite(radius) and n > DENSE_MAX_NODES and not _clustered(pos, radius):
        limit = radius * (1.0 + 1e-9) + 1e-9  # a superset: the caller applies the exact receive test
        return kernels.sender_pairs_cells(np.ascontiguousarray(pos), alive, np.ascontiguousarray(srcs, dtype=np.int64), radius,
                                  limit)
    return _dense(pos, alive, srcs, radius)


def _clustered(pos: np.ndarray, radius: float) -> bool:
    """Everyone within a few ranges of everyone: the matrix is cheaper than the cells."""
    dx, dy = kernels.xy_extent(pos)
    return max(dx, dy) < 3.0 * radius


SMALL_PAIRS = 20_000
"""Senders x nodes up to which one compiled loop beats numpy's vectorised matrix."""


def _dense(pos: np.ndarray, alive: np.ndarray, srcs: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every sender against every node, in order: row-major, so sorted by sender, then node."""
    n = len(pos)
    limit = radius * (1.0 + 1e-9) + 1e-9  # a superset: the caller applies the exact receive test
    srcs = np.ascontiguousarray(srcs, dtype=np.int64)
    if len(srcs) * n <= SMALL_PAIRS:
        return kernels.sender_pairs(np.ascontiguousarray(pos), alive, srcs, limit)
    return _matrix_pairs(pos, alive, srcs, limit)


def _matrix_pairs(pos: np.ndarray, alive: np.ndarray, srcs: np.ndarray,
                  limit: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """kernels.sender_pairs as one vectorised distance matrix: the same rows in the same order, and
    faster once there are many senders in a dense cluster."""
    n = len(pos)
    d = (pos[None, :, :] - pos[srcs][:, None, :]).reshape(-1, 3)
    dist = np.sqrt(np.einsum("ij,ij->i", d, d))
    ok = (dist <= limit) & np.tile(alive, len(srcs))
    ok[np.arange(len(srcs)) * n + srcs] = False
    flat = np.nonzero(ok)[0]
    return flat // n, flat % n, dist[flat]
