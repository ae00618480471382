"""Compiled fixed-radius pair search and reach queries (numba), giving exactly the results, in
exactly the order, of their numpy twins in netstack.fast.kernels, so results that depend on the
order (collision pushes, loss draws) do not depend on which is used. Squared distances sum (x^2 + z^2) + y^2,
as numpy's einsum does on contiguous rows."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _d2(pos: np.ndarray, a: int, b: int) -> float:
    x = pos[a, 0] - pos[b, 0]
    y = pos[a, 1] - pos[b, 1]
    z = pos[a, 2] - pos[b, 2]
    return (x * x + z * z) + y * y


@njit(cache=True)
def brute_pairs(pos: np.ndarray, radius: float) -> np.ndarray:
    """All pairs i < j within radius, row-major (as np.nonzero of the upper triangle)."""
    n = len(pos)
    r2 = radius * radius
    count = 0
    out = np.empty((16, 2), dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            x = pos[j, 0] - pos[i, 0]
            y = pos[j, 1] - pos[i, 1]
            z = pos[j, 2] - pos[i, 2]
            if (x * x + z * z) + y * y <= r2:
                if count == len(out):
                    bigger = np.empty((2 * len(out), 2), dtype=np.int64)
                    bigger[:count] = out[:count]
                    out = bigger
                out[count, 0] = i
                out[count, 1] = j
                count += 1
    return out[:count]


@njit(cache=True)
def _append(a: np.ndarray, b: np.ndarray, m: int, x: int, y: int) -> tuple[np.ndarray, np.ndarray, int]:
    """a[m], b[m] = x, y, growing both arrays when full."""
    if m == len(a):
        a2 = np.empty(2 * len(a), dtype=np.int64)
        b2 = np.empty(2 * len(b), dtype=np.int64)
        a2[:m], b2[:m] = a[:m], b[:m]
        a, b = a2, b2
    a[m], b[m] = x, y
    return a, b, m + 1


@njit(cache=True)
def _near_pairs(pos: np.ndarray, order: np.ndarray, a: np.ndarray, b: np.ndarray, m: int, radius: float) -> np.ndarray:
    """The candidate pairs (in sorted positions) that lie within radius, as node pairs (min, max)."""
    r2 = radius * radius
    out = np.empty((m, 2), dtype=np.int64)
    count = 0
    for t in range(m):
        p, q = order[a[t]], order[b[t]]
        if _d2(pos, p, q) <= r2:
            out[count, 0] = min(p, q)
            out[count, 1] = max(p, q)
            count += 1
    return out[:count]


@njit(cache=True)
def column_pairs(pos: np.ndarray, radius: float, order: np.ndarray, k: np.ndarray, span: float,
                 first_next: np.ndarray) -> np.ndarray:
    """The column sweep over keys `k` sorted by `order`: same-column pairs by growing offset, then
    next-column pairs by growing step; each pair (min, max)."""
    n = len(k)
    a = np.empty(16, dtype=np.int64)
    b = np.empty(16, dtype=np.int64)
    m = 0
    active = np.empty(n, dtype=np.int64)
    na = 0
    for i in range(n - 1):
        if k[i + 1] - k[i] <= radius:
            active[na] = i
            na += 1
    s = 1
    while na:
        for t in range(na):
            a, b, m = _append(a, b, m, active[t], active[t] + s)
        s += 1
        kept = 0
        for t in range(na):
            i = active[t]
            if i + s < n and k[i + s] - k[i] <= radius:
                active[kept] = i
                kept += 1
        na = kept
    j = first_next.copy()
    na = n
    for i in range(n):
        active[i] = i
    while na:
        kept = 0
        for t in range(na):
            i = active[t]
            if j[i] < n and k[j[i]] <= k[i] + (span + radius):
                active[kept] = i
                kept += 1
        na = kept
        for t in range(na):
            i = active[t]
            a, b, m = _append(a, b, m, i, j[i])
            j[i] += 1
    return _near_pairs(pos, order, a, b, m, radius)


@njit(cache=True)
def reach_one(pos: np.ndarray, vel: np.ndarray, dt: float, alive: np.ndarray, cand: np.ndarray,
              src: int) -> tuple[np.ndarray, np.ndarray]:
    """Candidates other than `src` that are alive, and their distances from it, with every position
    dead-reckoned `dt` seconds (pos + vel * dt; none when dt is 0), as the numpy path computed them."""
    keep = np.empty(len(cand), dtype=np.int64)
    dist = np.empty(len(cand))
    if dt == 0.0:
        sx, sy, sz = pos[src, 0], pos[src, 1], pos[src, 2]
    else:
        sx, sy, sz = pos[src, 0] + vel[src, 0] * dt, pos[src, 1] + vel[src, 1] * dt, pos[src, 2] + vel[src, 2] * dt
    m = 0
    for t in range(len(cand)):
        c = cand[t]
        if c == src or not alive[c]:
            continue
        if dt == 0.0:
            x, y, z = pos[c, 0] - sx, pos[c, 1] - sy, pos[c, 2] - sz
        else:
            x = (pos[c, 0] + vel[c, 0] * dt) - sx
            y = (pos[c, 1] + vel[c, 1] * dt) - sy
            z = (pos[c, 2] + vel[c, 2] * dt) - sz
        keep[m] = c
        dist[m] = np.sqrt((x * x + z * z) + y * y)
        m += 1
    return keep[:m], dist[:m]


@njit(cache=True)
def sender_pairs(pos: np.ndarray, alive: np.ndarray, srcs: np.ndarray, limit: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sender row, node, distance) for every alive node other than the sender within `limit`, sender
    by sender, nodes ascending: the dense reach query of netstack.fast.reach in one loop."""
    n, k = len(pos), len(srcs)
    cap = max(16, 4 * k)
    rows = np.empty(cap, dtype=np.int64)
    nodes = np.empty(cap, dtype=np.int64)
    dists = np.empty(cap)
    m = 0
    for r in range(k):
        s = srcs[r]
        sx, sy, sz = pos[s, 0], pos[s, 1], pos[s, 2]
        for c in range(n):
            if c == s or not alive[c]:
                continue
            x, y, z = pos[c, 0] - sx, pos[c, 1] - sy, pos[c, 2] - sz
            d = np.sqrt((x * x + z * z) + y * y)
            if d <= limit:
                if m == cap:
                    cap *= 2
                    rows2, nodes2, dists2 = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64), np.empty(cap)
                    rows2[:m], nodes2[:m], dists2[:m] = rows[:m], nodes[:m], dists[:m]
                    rows, nodes, dists = rows2, nodes2, dists2
                rows[m], nodes[m], dists[m] = r, c, d
                m += 1
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
def _bucket_order(keys: np.ndarray) -> np.ndarray:
    """An order that sorts `keys`: a counting sort when the keys span a small range, else argsort."""
    n = len(keys)
    lo, hi = keys.min(), keys.max()
    if hi - lo > 8 * n + 1024:
        return np.argsort(keys)
    counts = np.zeros(hi - lo + 2, dtype=np.int64)
    for i in range(n):
        counts[keys[i] - lo + 1] += 1
    for b in range(1, len(counts)):
        counts[b] += counts[b - 1]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        b = keys[i] - lo
        order[counts[b]] = i
        counts[b] += 1
    return order


@njit(cache=True)
def sender_pairs_cells(pos: np.ndarray, alive: np.ndarray, srcs: np.ndarray, cell: float,
                       limit: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`sender_pairs` through an x-y cell list of width `cell` (>= the radius): only the 3 x 3 cells
    around each sender are searched; the result is the same, in the same order."""
    n, k = len(pos), len(srcs)
    cx = np.empty(n, dtype=np.int64)
    cy = np.empty(n, dtype=np.int64)
    for i in range(n):
        cx[i] = np.int64(np.floor(pos[i, 0] / cell))
        cy[i] = np.int64(np.floor(pos[i, 1] / cell))
    lox, loy = cx.min() - 1, cy.min() - 1
    width = cy.max() - loy + 2
    keys = (cx - lox) * width + (cy - loy)
    order = _bucket_order(keys)
    sk = keys[order]
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
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                key = (cx[s] - lox + dx) * width + (cy[s] - loy + dy)
                a = np.searchsorted(sk, key, side="left")
                b = np.searchsorted(sk, key, side="right")
                for t in range(a, b):
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
        if m + f > cap:
            cap = 2 * (m + f)
            rows2, nodes2, dists2 = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64), np.empty(cap)
            rows2[:m], nodes2[:m], dists2[:m] = rows[:m], nodes[:m], dists[:m]
            rows, nodes, dists = rows2, nodes2, dists2
        for t in range(f):
            rows[m], nodes[m], dists[m] = r, found[t], fd[t]
            m += 1
    return rows[:m], nodes[:m], dists[:m]
