"""Fixed-radius pair searches over robots' positions, compiled: every pair i < j within a radius, in
lexicographic order (so anything summed over the pairs, such as collision pushes, does not depend on
the search). The kinematic world's collisions use them through a Verlet list (physics.kinematic.verlet).
Squared distances sum (x^2 + z^2) + y^2, as numpy's einsum does on contiguous rows (the reference
in tests/physics/kinematic/pairs_reference.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

from spatial.grid import SHIFT, build, grid_of


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
        out[fill[a[t]], 0] = a[t]
        out[fill[a[t]], 1] = b[t]
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
    a2 = np.empty(size, dtype=np.int64)
    b2 = np.empty(size, dtype=np.int64)
    a2[:m] = a[:m]
    b2[:m] = b[:m]
    return a2, b2


@njit(cache=True)
def _close(sp: np.ndarray, u: int, px: float, py: float, pz: float, r2: float) -> bool:
    """Row u of `sp` within sqrt(r2) of (px, py, pz), by the same arithmetic as _d2."""
    x = px - sp[u, 0]
    y = py - sp[u, 1]
    z = pz - sp[u, 2]
    return (x * x + z * z) + y * y <= r2


@njit(cache=True, inline="always")
def _column_starts(sx: np.ndarray, n: int) -> tuple:
    """Where each run of one column starts among the n sorted points (and n after the last), and how
    many runs."""
    starts = np.empty(n + 1, dtype=np.int64)
    cols = 0
    for t in range(n):
        if t == 0 or sx[t] != sx[t - 1]:
            starts[cols] = t
            cols += 1
    starts[cols] = n
    return starts, cols


@njit(cache=True, inline="always")
def _append_close(sp: np.ndarray, order: np.ndarray, t: int, u0: int, u1: int, r2: float, a: np.ndarray, b: np.ndarray,
                  m: int) -> int:
    """Pairs (point t, point u) for u in [u0, u1) within reach appended at row m; the rows now used."""
    px = sp[t, 0]
    py = sp[t, 1]
    pz = sp[t, 2]
    for u in range(u0, u1):
        if _close(sp, u, px, py, pz, r2):
            a[m] = order[t]
            b[m] = order[u]
            m += 1
    return m


@njit(cache=True)
def column_pairs(pos: np.ndarray, radius: float) -> np.ndarray:
    """All pairs i < j within radius, sorted lexicographically: the cell index (spatial.grid) with
    cells of width `radius`; each point is checked against the rest of its cell, the cell above it
    and the three next to it in the next column, found by pointers that only move forward."""
    r2 = radius * radius
    g = grid_of(len(pos))
    build(g, pos, radius, False)
    n = np.int64(g.shape[6])  # the points with a cell (without a finite x and y, none is within reach)
    order = g.order[:n]
    sx = g.key[:n] // SHIFT
    sy = g.key[:n] % SHIFT
    sp = pos[order]  # the sweeps below read memory in sequence
    starts, cols = _column_starts(sx, n)
    a = np.empty(16, dtype=np.int64)
    b = np.empty(16, dtype=np.int64)
    m = 0
    for h in range(cols):
        lo = starts[h]
        hi = starts[h + 1]
        nxt = h + 1 < cols and sx[hi] == sx[lo] + 1
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
            m = _append_close(sp, order, t, t + 1, above_end, r2, a, b, m)
            m = _append_close(sp, order, t, near0, near1, r2, a, b, m)
    for t in range(m):
        if a[t] > b[t]:
            a[t], b[t] = b[t], a[t]
    return _lexicographic(a, b, m, len(pos))
