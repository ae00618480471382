"""The nodes as one fast radio sees them: how many, where they were at the last position sync (and
how fast they moved, to extrapolate), and which are alive. Both fast backends (contention-free
and CSMA) keep one."""

from __future__ import annotations

import numpy as np


class NodeTable:
    """Node count, positions and velocities at `sync_ns`, and liveness, for N nodes added in order."""

    def __init__(self) -> None:
        self.n = 0
        self._room = (np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0, dtype=bool))
        self.pos, self.vel, self.alive = self._room
        self.sync_ns = 0

    def add(self, node_id: int) -> None:
        """One more node (ids come in order 0..N-1), alive, at the origin until the first sync. The
        arrays are views of room that doubles when full (a new array per node: 10,000 nodes took 0.9 s)."""
        if node_id != self.n:
            raise ValueError(f"nodes must be added in order 0..N-1; expected {self.n}, got {node_id}")
        if self.n == len(self._room[2]):
            size = max(16, 2 * self.n)
            room = (np.zeros((size, 3)), np.zeros((size, 3)), np.ones(size, dtype=bool))
            for new, old in zip(room, (self.pos, self.vel, self.alive)):
                new[:self.n] = old
            self._room = room
        self.n += 1
        self.pos, self.vel, self.alive = (a[:self.n] for a in self._room)

    def sync(self, t_ns: int, xyz: np.ndarray, vel: np.ndarray) -> None:
        """Positions and velocities at t_ns, copied into the table's arrays (the caller's may change;
        a radio's record keeps views of the table's)."""
        self.pos[:] = xyz
        self.vel[:] = vel
        self.sync_ns = t_ns
