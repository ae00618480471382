"""Fixed-radius pair searches and reach queries of the fast radio and the kinematic world, compiled
with numba. Results come in a fixed order (collision pushes and loss draws depend on it), the order
of the numpy reference in tests/netstack/kernels_reference.py. Squared distances sum
(x^2 + z^2) + y^2, as numpy's einsum does on contiguous rows."""

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
def _lexicographic(a: np.ndarray, b: np.ndarray, m: int, n: int) -> np.ndarray:
    """Pairs (a[t], b[t]), t < m, as an (m, 2) array sorted by first, then second (a counting sort)."""
    starts = np.zeros(n + 1, dtype=np.int64)
    for t in range(m):
        starts[a[t] + 1] += 1
    for i in range(1, n + 1):
        starts[i] += starts[i - 1]
    out = np.empty((m, 2), dtype=np.int64)
    fill = starts[:n].copy()
    for t in range(m):
        out[fill[a[t]], 0], out[fill[a[t]], 1] = a[t], b[t]
        fill[a[t]] += 1
    for i in range(n):
        for t in range(starts[i] + 1, starts[i + 1]):
            q = out[t, 1]
            u = t
            while u > starts[i] and out[u - 1, 1] > q:
                out[u, 1] = out[u - 1, 1]
                u -= 1
            out[u, 1] = q
    return out


@njit(cache=True)
def _grown_pairs(a: np.ndarray, b: np.ndarray, m: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Copies of the first m entries of a and b, in arrays of `size`."""
    a2, b2 = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
    a2[:m], b2[:m] = a[:m], b[:m]
    return a2, b2


@njit(cache=True)
def _close(sp: np.ndarray, u: int, px: float, py: float, pz: float, r2: float) -> bool:
    """Row u of `sp` within sqrt(r2) of (px, py, pz), by the same arithmetic as _d2."""
    x = px - sp[u, 0]
    y = py - sp[u, 1]
    z = pz - sp[u, 2]
    return (x * x + z * z) + y * y <= r2


@njit(cache=True)
def _counting_order(keys: np.ndarray, size: int, order: np.ndarray) -> np.ndarray:
    """`order` stably re-sorted by keys[order] (all in 0..size-1)."""
    counts = np.zeros(size + 1, dtype=np.int64)
    for i in range(len(order)):
        counts[keys[order[i]] + 1] += 1
    for c in range(1, size + 1):
        counts[c] += counts[c - 1]
    out = np.empty(len(order), dtype=np.int64)
    for i in range(len(order)):
        c = keys[order[i]]
        out[counts[c]] = order[i]
        counts[c] += 1
    return out


@njit(cache=True)
def _grid_order(cx: np.ndarray, cy: np.ndarray) -> np.ndarray:
    """Point indices sorted by (cx, cy), ties by index: two counting passes when the cell numbers
    span a modest range (no table of cx x cy cells), else a merge sort of the combined key."""
    n = len(cx)
    ncx, ncy = cx.max() + 1, cy.max() + 1
    if ncx <= 8 * n + 1024 and ncy <= 8 * n + 1024:
        return _counting_order(cx, ncx, _counting_order(cy, ncy, np.arange(n)))
    return np.argsort(cx * (ncy + 1) + cy, kind="mergesort")


@njit(cache=True)
def column_pairs(pos: np.ndarray, radius: float) -> np.ndarray:
    """All pairs i < j within radius, sorted lexicographically: an x-y grid of cells of width
    `radius`; each point is checked against the rest of its cell, the cell above it and the three
    next to it in the next column, found by pointers that only move forward (linear time)."""
    n = len(pos)
    r2 = radius * radius
    x0, y0 = pos[:, 0].min(), pos[:, 1].min()
    cx = np.empty(n, dtype=np.int64)
    cy = np.empty(n, dtype=np.int64)
    for i in range(n):
        cx[i] = np.int64(np.floor((pos[i, 0] - x0) / radius))
        cy[i] = np.int64(np.floor((pos[i, 1] - y0) / radius))
    order = _grid_order(cx, cy)
    sx, sy, sp = cx[order], cy[order], pos[order]  # in sorted order: the sweeps below read memory in sequence
    starts = np.empty(n + 1, dtype=np.int64)  # runs of one column
    g = 0
    for t in range(n):
        if t == 0 or sx[t] != sx[t - 1]:
            starts[g] = t
            g += 1
    starts[g] = n
    a = np.empty(16, dtype=np.int64)
    b = np.empty(16, dtype=np.int64)
    m = 0
    for h in range(g):
        lo, hi = starts[h], starts[h + 1]
        nxt = h + 1 < g and sx[hi] == sx[lo] + 1
        n1 = starts[h + 2] if nxt else hi
        above_end = lo  # own column: first point beyond the cell above
        near0 = hi  # next column: first point at or above the row below
        near1 = hi  # next column: first point beyond the row above
        for t in range(lo, hi):
            row = sy[t]
            while above_end < hi and sy[above_end] <= row + 1:
                above_end += 1
            while near0 < n1 and sy[near0] < row - 1:
                near0 += 1
            while near1 < n1 and sy[near1] <= row + 1:
                near1 += 1
            need = m + (above_end - t - 1) + (near1 - near0)
            if need > len(a):
                a, b = _grown_pairs(a, b, m, 2 * need)
            px, py, pz = sp[t, 0], sp[t, 1], sp[t, 2]
            for u in range(t + 1, above_end):
                if _close(sp, u, px, py, pz, r2):
                    a[m], b[m] = order[t], order[u]
                    m += 1
            for u in range(near0, near1):
                if _close(sp, u, px, py, pz, r2):
                    a[m], b[m] = order[t], order[u]
                    m += 1
    for t in range(m):
        if a[t] > b[t]:
            a[t], b[t] = b[t], a[t]
    return _lexicographic(a, b, m, n)


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


@njit(cache=True)
def max_displacement(pos: np.ndarray, ref: np.ndarray) -> float:
    """The largest distance any point has moved from `ref`."""
    worst = 0.0
    for i in range(len(pos)):
        worst = max(worst, _d2_between(pos, ref, i))
    return np.sqrt(worst)


@njit(cache=True)
def _d2_between(pos: np.ndarray, ref: np.ndarray, i: int) -> float:
    x = pos[i, 0] - ref[i, 0]
    y = pos[i, 1] - ref[i, 1]
    z = pos[i, 2] - ref[i, 2]
    return (x * x + z * z) + y * y


@njit(cache=True)
def near_pairs(pos: np.ndarray, cand: np.ndarray, radius: float) -> np.ndarray:
    """The candidate pairs (rows i, j) within radius, in their order."""
    r2 = radius * radius
    keep = np.empty(len(cand), dtype=np.bool_)
    for t in range(len(cand)):
        keep[t] = _d2(pos, cand[t, 0], cand[t, 1]) <= r2
    return cand[keep]
