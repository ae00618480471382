"""The fast radio's cell index: cells of range plus a margin of motion, rebuilt when some node has
moved far, and the nodes a frame may reach found from it, ascending. Receivers are then measured one
by one (kernels.within): the index only narrows the search, so the answer does not depend on it.
Every send finds its receivers through it (netstack.fast.air.reach), on either engine.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

MIN_NODES = 64
"""From this many nodes on, a send finds its receivers through the index (below: every node)."""

Cells = namedtuple("Cells", ["key", "order", "pos", "grid", "cand", "start"])
"""The index: node keys ascending (gx * 2**32 + gy) with their nodes (`order`), the positions it was
built from (`pos`), grid = x0, y0, cell, slack, top speed, valid, moved since, cells across in y
(0: no table of cell starts), cells across in x, cells across in y; `start` the table; room for
one query's candidates (`cand`, one per node)."""

FEW_CELLS = 16
"""A swarm spanning this many cells or fewer gets every node as candidates: a query's nine cells
would hold most of them, and sorting them costs more than measuring everyone."""


def cells_of(n: int) -> Cells:
    """An index for n nodes, built at the first `index` call."""
    return Cells(np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros((n, 3)), np.zeros(10), np.zeros(n, np.int64),
                 np.zeros(4 * n + 1025, np.int64))


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
def index(c: Cells, pos: np.ndarray, vel: np.ndarray, range_m: float) -> None:
    """After a position sync: the top speed and how far nodes moved since the index was built; the
    index rebuilt when someone moved a quarter of its slack (nothing for fewer than MIN_NODES)."""
    n = len(pos)
    if n < MIN_NODES:
        return
    grid, gpos = c.grid, c.pos
    vmax, moved = 0.0, 0.0
    for k in range(n):
        vmax = max(vmax, vel[k, 0] ** 2 + vel[k, 1] ** 2 + vel[k, 2] ** 2)
        moved = max(moved, (pos[k, 0] - gpos[k, 0]) ** 2 + (pos[k, 1] - gpos[k, 1]) ** 2)
    grid[4], grid[6] = math.sqrt(vmax), math.sqrt(moved)
    if grid[5] == 1.0 and grid[6] <= 0.25 * grid[3]:
        return
    x0, y0 = pos[:, 0].min(), pos[:, 1].min()
    slack = max(0.05 * range_m, 0.5 * grid[4])  # a quarter second of motion at the top speed
    cell = range_m + slack
    key, order = c.key, c.order
    if grid[5] == 0.0:  # the first index
        for k in range(n):
            key[k] = np.int64((pos[k, 0] - x0) / cell) * 4294967296 + np.int64((pos[k, 1] - y0) / cell)
        order[:] = np.argsort(key, kind="mergesort")  # stable: each cell's nodes ascending
        key[:] = key[order]
    else:  # keys in the last index's order: nobody moved far since, so an insertion sort is quick
        for k in range(n):
            q = order[k]
            key[k] = np.int64((pos[q, 0] - x0) / cell) * 4294967296 + np.int64((pos[q, 1] - y0) / cell)
        _sort_keys(key, order)
    gpos[:] = pos
    grid[0], grid[1], grid[2], grid[3], grid[5], grid[6] = x0, y0, cell, slack, 1.0, 0.0
    _cell_starts(key, c.start, grid)


@njit(cache=True)
def _cell_starts(key: np.ndarray, start: np.ndarray, grid: np.ndarray) -> None:
    """Where each cell's nodes begin in the sorted keys, start[gx * ny + gy] (and their end, the next
    cell's start), when the cells spanned number fewer than the table's room; grid[7], grid[8],
    grid[9] = ny, nx, ny, grid[7] 0 when they do not (then a binary search finds each column)."""
    ny, nx = np.int64(0), key[-1] // 4294967296 + 1  # keys gx * 2**32 + gy, both >= 0
    for k in range(len(key)):
        ny = max(ny, key[k] % 4294967296 + 1)
    grid[7], grid[8], grid[9] = 0.0, float(nx), float(ny)
    cells = nx * ny
    if cells >= len(start):
        return
    start[:cells + 1] = 0
    for k in range(len(key)):
        start[(key[k] // 4294967296) * ny + key[k] % 4294967296 + 1] += 1
    for g in range(cells):
        start[g + 1] += start[g]
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
def candidates(c: Cells, n: int, src: int, dt: float) -> int:
    """Nodes that may be in range of src after dt seconds of dead reckoning, ascending, into c.cand;
    returns how many (all n nodes when the index cannot answer, or the swarm spans FEW_CELLS)."""
    grid, out = c.grid, c.cand
    if (n < MIN_NODES or grid[5] == 0.0 or 2.0 * (grid[6] + grid[4] * dt) > grid[3]
            or grid[8] * grid[9] <= FEW_CELLS):
        for k in range(n):
            out[k] = k
        return n
    x0, y0, cell = grid[0], grid[1], grid[2]
    cx = np.int64(math.floor((c.pos[src, 0] - x0) / cell))
    cy = np.int64(math.floor((c.pos[src, 1] - y0) / cell))
    m = 0
    key, order, n_keys = c.key, c.order, len(c.key)
    ny = np.int64(grid[7])
    if ny:  # a column's three cells are one run of keys: its ends looked up
        start = c.start
        for gx in range(max(cx - 1, 0), min(cx + 2, np.int64(grid[8]))):
            for q in range(start[gx * ny + max(cy - 1, 0)], start[gx * ny + min(cy + 1, ny - 1) + 1]):
                out[m] = order[q]
                m += 1
        _insertion_sort(out, m)
        return m
    for gx in range(cx - 1, cx + 2):
        if gx < 0:
            continue
        last = gx * 4294967296 + cy + 1
        q = np.searchsorted(key, gx * 4294967296 + max(cy - 1, 0))
        while q < n_keys and key[q] <= last:  # a column's three cells: a few nodes, scanned
            out[m] = order[q]
            m += 1
            q += 1
    _insertion_sort(out, m)
    return m
