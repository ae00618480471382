"""Reach queries of the fast radio, compiled with numba. Results come in a fixed order (loss draws
depend on it), the order of the numpy reference in tests/netstack/kernels_reference.py. Distances
sum (x^2 + z^2) + y^2, as numpy's einsum does on contiguous rows."""

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
def sender_pairs(pos: np.ndarray, alive: np.ndarray, srcs: np.ndarray, limit: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sender row, node, distance) for every alive node other than the sender within `limit`, sender
    by sender, nodes ascending: the dense reach query of netstack.fast.reach in one loop."""
    n, k = len(pos), len(srcs)
    rows = np.empty(max(16, 4 * k), dtype=np.int64)
    nodes = np.empty(len(rows), dtype=np.int64)
    dists = np.empty(len(rows))
    found = np.empty(n, dtype=np.int64)
    fd = np.empty(n)
    m = 0
    for r in range(k):
        s = srcs[r]
        sx, sy, sz = pos[s, 0], pos[s, 1], pos[s, 2]
        f = 0
        for c in range(n):
            if c == s or not alive[c]:
                continue
            x, y, z = pos[c, 0] - sx, pos[c, 1] - sy, pos[c, 2] - sz
            d = np.sqrt((x * x + z * z) + y * y)
            if d <= limit:
                found[f], fd[f] = c, d
                f += 1
        if m + f > len(rows):
            rows, nodes, dists = _grown(rows, nodes, dists, m, 2 * (m + f))
        rows[m:m + f] = r
        nodes[m:m + f] = found[:f]
        dists[m:m + f] = fd[:f]
        m += f
    return rows[:m], nodes[:m], dists[:m]


@njit(cache=True)
def xy_extent(pos: np.ndarray) -> tuple[float, float]:
    """(max - min) of x and of y over all rows, in one pass (np.ptp on a strided view is slow)."""
    x0 = x1 = pos[0, 0]
    y0 = y1 = pos[0, 1]
    for i in range(1, len(pos)):
        x, y = pos[i, 0], pos[i, 1]
        x0, x1 = min(x0, x), max(x1, x)
        y0, y1 = min(y0, y), max(y1, y)
    return x1 - x0, y1 - y0


@njit(cache=True)
def _cell_starts(keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """A counting sort of `keys` (all in 0..size-1): (order, starts) where the points of key c are
    order[starts[c]:starts[c + 1]], in ascending index."""
    n = len(keys)
    starts = np.zeros(size + 1, dtype=np.int64)
    for i in range(n):
        starts[keys[i] + 1] += 1
    for b in range(1, size + 1):
        starts[b] += starts[b - 1]
    fill = starts[:size].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[fill[keys[i]]] = i
        fill[keys[i]] += 1
    return order, starts


@njit(cache=True)
def _runs(sk: np.ndarray, starts: np.ndarray, lo_keys: np.ndarray, hi_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the points with keys lo_keys[i]..hi_keys[i] lie in the sorted order: from the start
    table when there is one, else by binary search in the sorted keys `sk`."""
    m = len(lo_keys)
    first = np.empty(m, dtype=np.int64)
    last = np.empty(m, dtype=np.int64)
    if len(starts):
        for i in range(m):
            first[i], last[i] = starts[lo_keys[i]], starts[hi_keys[i] + 1]
    else:
        first[:] = np.searchsorted(sk, lo_keys, side="left")
        last[:] = np.searchsorted(sk, hi_keys, side="right")
    return first, last


@njit(cache=True)
def sender_pairs_cells(pos: np.ndarray, alive: np.ndarray, srcs: np.ndarray, cell: float,
                       limit: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`sender_pairs` through an x-y cell list of width `cell` (>= the radius): only the 3 x 3 cells
    around each sender are searched (three runs of consecutive keys); the result is the same, in
    the same order."""
    n, k = len(pos), len(srcs)
    cx = np.empty(n, dtype=np.int64)
    cy = np.empty(n, dtype=np.int64)
    for i in range(n):
        cx[i] = np.int64(np.floor(pos[i, 0] / cell))
        cy[i] = np.int64(np.floor(pos[i, 1] / cell))
    lox, loy = cx.min() - 1, cy.min() - 1
    width = cy.max() - loy + 2
    keys = (cx - lox) * width + (cy - loy)
    size = (cx.max() - lox + 2) * width
    if size <= 8 * n + 1024:
        order, starts = _cell_starts(keys, size)
        sk = keys[:0]
    else:
        order = np.argsort(keys)
        sk = keys[order]
        starts = keys[:0]
    cap = max(16, 8 * k)
    rows = np.empty(cap, dtype=np.int64)
    nodes = np.empty(cap, dtype=np.int64)
    dists = np.empty(cap)
    m = 0
    found = np.empty(n, dtype=np.int64)
    fd = np.empty(n)
    for r in range(k):
        s = srcs[r]
        sx, sy, sz = pos[s, 0], pos[s, 1], pos[s, 2]
        f = 0
        low = (cx[s] - lox - 1) * width + (cy[s] - loy - 1) + width * np.arange(3)
        first, last = _runs(sk, starts, low, low + 2)
        for dx in range(3):
            for t in range(first[dx], last[dx]):
                c = order[t]
                if c == s or not alive[c]:
                    continue
                x, y, z = pos[c, 0] - sx, pos[c, 1] - sy, pos[c, 2] - sz
                d = np.sqrt((x * x + z * z) + y * y)
                if d <= limit:
                    j = f  # insertion by node id: the receivers of one sender come out ascending
                    while j > 0 and found[j - 1] > c:
                        found[j], fd[j] = found[j - 1], fd[j - 1]
                        j -= 1
                    found[j], fd[j] = c, d
                    f += 1
        if m + f > len(rows):
            rows, nodes, dists = _grown(rows, nodes, dists, m, 2 * (m + f))
        for t in range(f):
            rows[m], nodes[m], dists[m] = r, found[t], fd[t]
            m += 1
    return rows[:m], nodes[:m], dists[:m]
