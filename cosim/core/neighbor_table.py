"""Who heard whom, and when: the table behind `net.neighbors()` and the mean-neighbours metric."""

from __future__ import annotations

import numpy as np

# Dense (N x N) storage up to this many nodes (12 bytes per pair); sorted pair keys above.
DENSE_MAX_NODES = 4096
NEVER = np.iinfo(np.int64).min // 2


def _distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct values of `keys`, sorted (a sort and a mask: faster here than np.unique's hashing)."""
    keys = np.sort(keys)
    if len(keys) < 2:
        return keys
    keep = np.empty(len(keys), dtype=bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


class NeighborTable:
    """Last time (ns) and RSSI at which each node heard each other node. Up to DENSE_MAX_NODES an
    N x N matrix; above, the pairs ever heard as sorted keys dst * N + src with their time and RSSI
    (updated with array operations, so a big swarm's receptions cost no per-row Python)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.dense = n <= DENSE_MAX_NODES
        if self.dense:
            self._t = np.full((n, n), NEVER, dtype=np.int64)
            self._rssi = np.zeros((n, n), dtype=np.float32)
            self._heard = np.zeros(0, dtype=np.int64)  # keys dst * N + src of the pairs ever heard
            self._newly_heard: list[np.ndarray] = []  # pairs heard first since the last count
            self._heard_count = 0
        else:
            self._keys = np.zeros(0, dtype=np.int64)
            self._kt = np.zeros(0, dtype=np.int64)
            self._kr = np.zeros(0, dtype=np.float32)

    def update(self, t_ns: int | np.ndarray, dst: np.ndarray, src: np.ndarray, rssi: np.ndarray) -> None:
        """Record receptions at time t_ns (one time, or one per row in time order); a later row for
        the same pair wins."""
        if self.dense:
            fresh = self._t[dst, src] == NEVER
            if fresh.any():  # a pair is fresh in one batch only, but may repeat within it
                keys = _distinct(dst[fresh].astype(np.int64) * self.n + src[fresh])
                self._newly_heard.append(keys)
                self._heard_count += len(keys)
            self._t[dst, src] = t_ns
            self._rssi[dst, src] = rssi
            return
        keys = dst.astype(np.int64) * self.n + src
        times = np.broadcast_to(np.asarray(t_ns, dtype=np.int64), keys.shape)
        rssi = np.asarray(rssi)
        at = np.searchsorted(self._keys, keys)
        old = at < len(self._keys)
        old[old] = self._keys[at[old]] == keys[old]
        self._kt[at[old]] = times[old]  # rows in time order: a pair's last row is written last, and stays
        self._kr[at[old]] = rssi[old]
        new = ~old
        if new.any():  # pairs never heard before (few, once a swarm has settled): each one's last row
            keys = keys[new]
            times = times[new]
            rssi = rssi[new]
            last = len(keys) - 1 - np.unique(keys[::-1], return_index=True)[1]
            merged = np.concatenate([self._keys, keys[last]])
            order = np.argsort(merged, kind="stable")
            self._keys = merged[order]
            self._kt = np.concatenate([self._kt, times[last]])[order]
            self._kr = np.concatenate([self._kr, rssi[last].astype(np.float32)])[order]

    def heard_by(self, node: int, since_ns: int) -> list[tuple[int, int, float]]:
        """(src, t_ns, rssi) for every node heard by `node` at or after since_ns, sorted by src."""
        src, t, rssi = self.heard_arrays(node, since_ns)
        return list(zip(src.tolist(), t.tolist(), rssi.tolist()))

    def heard_arrays(self, node: int, since_ns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`heard_by` as arrays: (src, t_ns, rssi), sorted by src."""
        if self.dense:
            idx = np.nonzero(self._t[node] >= since_ns)[0]
            return idx, self._t[node, idx], self._rssi[node, idx].astype(np.float64)
        a, b = np.searchsorted(self._keys, [node * self.n, (node + 1) * self.n])
        recent = np.nonzero(self._kt[a:b] >= since_ns)[0] + a
        return self._keys[recent] - node * self.n, self._kt[recent], self._kr[recent].astype(np.float64)

    def mean_count(self, since_ns: int, alive: np.ndarray) -> float:
        """Mean number of nodes heard since since_ns, over alive nodes."""
        if not alive.any():
            return 0.0
        if self.dense and 4 * self._heard_count > self.n * self.n:  # most pairs heard: scan the matrix
            counts = (self._t >= since_ns).sum(axis=1)
        elif self.dense:  # only the pairs ever heard
            if self._newly_heard:
                self._heard = np.concatenate([self._heard, *self._newly_heard])
                self._newly_heard = []
            keys = self._heard
            counts = np.bincount(keys // self.n, weights=self._t.ravel()[keys] >= since_ns, minlength=self.n)
        else:
            counts = np.bincount(self._keys // self.n, weights=self._kt >= since_ns, minlength=self.n)
        return float(counts[alive].mean())
