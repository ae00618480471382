"""Who heard whom, and when: the table behind `net.neighbors()` and the mean-neighbours metric."""

from __future__ import annotations

import numpy as np

# Dense (N x N) storage up to this many nodes (12 bytes per pair); per-node dicts above.
DENSE_MAX_NODES = 4096
NEVER = np.iinfo(np.int64).min // 2


class NeighborTable:
    """Last time (ns) and RSSI at which each node heard each other node."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.dense = n <= DENSE_MAX_NODES
        if self.dense:
            self._t = np.full((n, n), NEVER, dtype=np.int64)
            self._rssi = np.zeros((n, n), dtype=np.float32)
        else:
            self._rows: list[dict[int, tuple[int, float]]] = [{} for _ in range(n)]

    def update(self, t_ns: int | np.ndarray, dst: np.ndarray, src: np.ndarray, rssi: np.ndarray) -> None:
        """Record receptions at time t_ns (one time, or one per row in time order)."""
        if self.dense:
            self._t[dst, src] = t_ns
            self._rssi[dst, src] = rssi
        else:
            rows = self._rows
            times = np.broadcast_to(t_ns, dst.shape).tolist()
            for d, s, r, t in zip(dst.tolist(), src.tolist(), rssi.tolist(), times):
                rows[d][s] = (t, r)

    def heard_by(self, node: int, since_ns: int) -> list[tuple[int, int, float]]:
        """(src, t_ns, rssi) for every node heard by `node` at or after since_ns, sorted by src."""
        if self.dense:
            idx = np.nonzero(self._t[node] >= since_ns)[0]
            return [(int(s), int(self._t[node, s]), float(self._rssi[node, s])) for s in idx]
        row = self._rows[node]
        return [(s, t, r) for s, (t, r) in sorted(row.items()) if t >= since_ns]

    def heard_arrays(self, node: int, since_ns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`heard_by` as arrays: (src, t_ns, rssi), sorted by src."""
        if self.dense:
            idx = np.nonzero(self._t[node] >= since_ns)[0]
            return idx, self._t[node, idx], self._rssi[node, idx].astype(np.float64)
        heard = self.heard_by(node, since_ns)
        return (np.array([h[0] for h in heard], dtype=np.int64), np.array([h[1] for h in heard], dtype=np.int64),
                np.array([h[2] for h in heard], dtype=np.float64))

    def mean_count(self, since_ns: int, alive: np.ndarray) -> float:
        """Mean number of nodes heard since since_ns, over alive nodes."""
        if not alive.any():
            return 0.0
        if self.dense:
            counts = (self._t >= since_ns).sum(axis=1)
        else:
            counts = np.array([sum(1 for t, _ in row.values() if t >= since_ns) for row in self._rows])
        return float(counts[alive].mean())
