"""The fast radio's cell index in the fused engine: positions synced from the world, the index of
cells (range plus a margin of motion) rebuilt when someone moved far, and the nodes a frame may reach
found from it. Receivers are then checked one by one (kernels.reach): the index only narrows the search.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from jit.borrow import borrow

if TYPE_CHECKING:
    from cosim.fused.kernels import Radio, World

GRID_MIN_NODES = 64
"""From this many nodes on, the radio finds receivers through its cell index (below: every node)."""


@njit(cache=True)
def _sort_keys(key: np.ndarray, node: np.ndarray) -> None:
    """(key, node) pairs ascending by key, then node (each cell's nodes ascending), in place."""
    for k in range(1, len(key)):
        v, c = key[k], node[k]
        j = k - 1
        while j >= 0 and (key[j] > v or (key[j] == v and node[j] > c)):
            key[j + 1], node[j + 1] = key[j], node[j]
            j -= 1
        key[j + 1], node[j + 1] = v, c


@njit(cache=True)
def sync(r: Radio, w: World, t_ns: int) -> None:
    """FastBackend.set_positions: the radio's copy of positions and velocities; its cell index (over
    positions `gpos` it was built from) is rebuilt when someone moved a quarter of its slack."""
    r, w = borrow((r, w))
    n = len(w.pos)
    rp, rv, wp, wv = r.pos, r.vel, w.pos, w.vel
    r.sync[0] = t_ns
    if n < GRID_MIN_NODES:
        rp[:] = wp
        rv[:] = wv
        return
    grid, gpos = r.grid, r.gpos
    vmax, moved = 0.0, 0.0
    for k in range(n):  # the copy and the index's two maxima in one pass
        x, y, z = wp[k, 0], wp[k, 1], wp[k, 2]
        vx, vy, vz = wv[k, 0], wv[k, 1], wv[k, 2]
        rp[k, 0], rp[k, 1], rp[k, 2], rv[k, 0], rv[k, 1], rv[k, 2] = x, y, z, vx, vy, vz
        vmax = max(vmax, vx ** 2 + vy ** 2 + vz ** 2)
        moved = max(moved, (x - gpos[k, 0]) ** 2 + (y - gpos[k, 1]) ** 2)
    grid[4], grid[6] = math.sqrt(vmax), math.sqrt(moved)
    if grid[5] == 1.0 and grid[6] <= 0.25 * grid[3]:
        return
    pos = rp
    x0, y0 = pos[:, 0].min(), pos[:, 1].min()
    slack = max(0.05 * r.range_m, 0.5 * grid[4])  # a quarter second of motion at the top speed
    cell = r.range_m + slack
    gkey, gorder = r.gkey, r.gorder
    if grid[5] == 0.0:  # the first index
        for k in range(n):
            gkey[k] = np.int64((pos[k, 0] - x0) / cell) * 4294967296 + np.int64((pos[k, 1] - y0) / cell)
        gorder[:] = np.argsort(gkey, kind="mergesort")  # stable: each cell's nodes ascending
        gkey[:] = gkey[gorder]
    else:  # keys in the last index's order: nobody moved far since, so an insertion sort is quick
        for k in range(n):
            c = gorder[k]
            gkey[k] = np.int64((pos[c, 0] - x0) / cell) * 4294967296 + np.int64((pos[c, 1] - y0) / cell)
        _sort_keys(gkey, gorder)
    gpos[:] = pos
    grid[0], grid[1], grid[2], grid[3], grid[5], grid[6] = x0, y0, cell, slack, 1.0, 0.0
    _cell_starts(gkey, r.cstart, grid)


@njit(cache=True)
def _cell_starts(gkey: np.ndarray, cstart: np.ndarray, grid: np.ndarray) -> None:
    """Where each cell's nodes begin in the sorted keys, cstart[gx * ny + gy] (and their end, the next
    cell's start), when the cells spanned number fewer than cstart's room; grid[7], grid[8] = ny, nx,
    ny 0 when they do not (then a binary search finds each column)."""
    ny, nx = np.int64(0), gkey[-1] // 4294967296 + 1  # keys gx * 2**32 + gy, both >= 0
    for k in range(len(gkey)):
        ny = max(ny, gkey[k] % 4294967296 + 1)
    grid[7], grid[8] = 0.0, float(nx)
    cells = nx * ny
    if cells >= len(cstart):
        return
    cstart[:cells + 1] = 0
    for k in range(len(gkey)):
        cstart[(gkey[k] // 4294967296) * ny + gkey[k] % 4294967296 + 1] += 1
    for c in range(cells):
        cstart[c + 1] += cstart[c]
    grid[7] = float(ny)


@njit(cache=True, inline="always")
def _insertion_sort(a: np.ndarray, m: int) -> None:
    """a[:m] ascending in place: a few dozen candidates, nearly in order, sort fastest this way."""
    for k in range(1, m):
        v = a[k]
        j = k - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit(cache=True)
def candidates(r: Radio, src: int, dt: float) -> int:
    """Nodes that may be in range of src after dt seconds of dead reckoning, ascending, into r.cand;
    returns how many (every node when the cell index cannot answer)."""
    r = borrow(r)
    n = len(r.pos)
    grid, out = r.grid, r.cand
    if grid[5] == 0.0 or 2.0 * (grid[6] + grid[4] * dt) > grid[3]:
        for k in range(n):
            out[k] = k
        return n
    x0, y0, cell = grid[0], grid[1], grid[2]
    cx = np.int64(math.floor((r.gpos[src, 0] - x0) / cell))
    cy = np.int64(math.floor((r.gpos[src, 1] - y0) / cell))
    m = 0
    gkey, gorder, n_keys = r.gkey, r.gorder, len(r.gkey)
    ny = np.int64(grid[7])
    if ny:  # a column's three cells are one run of keys: its ends looked up
        start = r.cstart
        for gx in range(max(cx - 1, 0), min(cx + 2, np.int64(grid[8]))):
            for q in range(start[gx * ny + max(cy - 1, 0)], start[gx * ny + min(cy + 1, ny - 1) + 1]):
                out[m] = gorder[q]
                m += 1
        _insertion_sort(out, m)
        return m
    for gx in range(cx - 1, cx + 2):
        if gx < 0:
            continue
        last = gx * 4294967296 + cy + 1
        q = np.searchsorted(gkey, gx * 4294967296 + max(cy - 1, 0))
        while q < n_keys and gkey[q] <= last:  # a column's three cells: a few nodes, scanned
            out[m] = gorder[q]
            m += 1
            q += 1
    _insertion_sort(out, m)
    return m
