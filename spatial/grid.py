"""Points sorted into square cells of the x-y plane: the one cell index for every question of who is
near whom, the radio's receivers (netstack.fast.cells), rays among robots
(physics.kinematic.scenery_kernels.cast_many) and touching pairs (physics.kinematic.pairs). An index only narrows a
search: each caller measures every candidate, so its answer does not depend on the index.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

Grid = namedtuple("Grid", ["key", "order", "start", "shape"])
"""The cell keys ascending (gx * SHIFT + gy; NO_CELL, last, for points without a finite x and y) and
their points (`order`, each cell's points ascending); `start[gx * ny + gy]`, where each cell's points
begin, when the cells spanned fit in it; shape = x0, y0, cell width, cells across in x, cells across
in y, ny of the start table (0: no table, columns are found by binary search), points with a cell."""

SHIFT = 4294967296
"""A key's column factor (2**32): the cells of one column are one run of keys."""
NO_CELL = np.iinfo(np.int64).max
TABLE_PER_POINT = 4
"""The start table's room: this many cells per point, plus 1,024."""


@njit(cache=True)
def grid_of(n: int) -> Grid:
    """An empty index for n points (filled by `build`)."""
    return Grid(np.zeros(n, np.int64), np.arange(n), np.zeros(TABLE_PER_POINT * n + 1025, np.int64), np.zeros(7))


@njit(cache=True, inline="always")
def _placed(pos: np.ndarray, k: int) -> bool:
    return math.isfinite(pos[k, 0]) and math.isfinite(pos[k, 1])


@njit(cache=True, inline="always")
def _cell(pos: np.ndarray, k: int, x0: float, y0: float, cell: float) -> tuple:
    return np.int64((pos[k, 0] - x0) / cell), np.int64((pos[k, 1] - y0) / cell)


@njit(cache=True, inline="always")
def _key(pos: np.ndarray, k: int, shape: np.ndarray) -> int:
    if not _placed(pos, k):
        return NO_CELL
    gx, gy = _cell(pos, k, shape[0], shape[1], shape[2])
    return gx * SHIFT + gy


@njit(cache=True)
def _insertion_sort(key: np.ndarray, order: np.ndarray) -> None:
    """(key, point) pairs ascending by key, then point, in place: quick when nearly in order."""
    for k in range(1, len(key)):
        v = key[k]
        c = order[k]
        j = k - 1
        while j >= 0 and (key[j] > v or (key[j] == v and order[j] > c)):
            key[j + 1] = key[j]
            order[j + 1] = order[j]
            j -= 1
        key[j + 1] = v
        order[j + 1] = c


@njit(cache=True)
def _counting_sort(g: Grid, pos: np.ndarray, nx: int, ny: int) -> None:
    """The points ordered by cell (each cell's ascending) and the start table, in linear time."""
    start = g.start
    shape = g.shape
    key = g.key
    order = g.order
    start[:nx * ny + 1] = 0
    for k in range(len(pos)):
        if _placed(pos, k):
            gx, gy = _cell(pos, k, shape[0], shape[1], shape[2])
            start[gx * ny + gy + 1] += 1
    for c in range(nx * ny):
        start[c + 1] += start[c]
    tail = start[nx * ny]
    for k in range(len(pos)):
        if _placed(pos, k):
            gx, gy = _cell(pos, k, shape[0], shape[1], shape[2])
            c = gx * ny + gy
            key[start[c]] = gx * SHIFT + gy
            order[start[c]] = k
            start[c] += 1
        else:
            key[tail] = NO_CELL
            order[tail] = k
            tail += 1
    for c in range(nx * ny, 0, -1):  # each start moved to its cell's end: back by one cell
        start[c] = start[c - 1]
    start[0] = 0


@njit(cache=True)
def _stable_by(keys: np.ndarray, order: np.ndarray, size: int) -> np.ndarray:
    """`order` stably re-sorted by keys[order] (all within 0..size-1)."""
    counts = np.zeros(size + 1, np.int64)
    for k in range(len(order)):
        counts[keys[order[k]] + 1] += 1
    for c in range(size):
        counts[c + 1] += counts[c]
    out = np.empty(len(order), np.int64)
    for k in range(len(order)):
        c = keys[order[k]]
        out[counts[c]] = order[k]
        counts[c] += 1
    return out


@njit(cache=True)
def _two_pass_sort(g: Grid, pos: np.ndarray, nx: int, ny: int) -> None:
    """The points ordered by cell when the cells are too many for the table but their columns and
    rows are not: by row, then stably by column (two counting passes, no table of cells)."""
    n = len(pos)
    gx = np.full(n, nx, np.int64)
    gy = np.full(n, ny, np.int64)  # unplaced points: after every cell
    shape = g.shape
    for k in range(n):
        if _placed(pos, k):
            gx[k], gy[k] = _cell(pos, k, shape[0], shape[1], shape[2])
    g.order[:] = _stable_by(gx, _stable_by(gy, np.arange(n), ny + 1), nx + 1)
    for k in range(n):
        q = g.order[k]
        g.key[k] = NO_CELL if gx[q] == nx else gx[q] * SHIFT + gy[q]


@njit(cache=True)
def _table(g: Grid, nx: int, ny: int) -> None:
    """The start table from sorted keys, when the cells spanned fit in it."""
    start = g.start
    key = g.key
    start[:nx * ny + 1] = 0
    for k in range(np.int64(g.shape[6])):
        start[(key[k] // SHIFT) * ny + key[k] % SHIFT + 1] += 1
    for c in range(nx * ny):
        start[c + 1] += start[c]


@njit(cache=True, inline="always")
def _bounds(pos: np.ndarray) -> tuple:
    """(lowest x, lowest y, highest x, highest y, how many) of the points with a finite x and y
    (all zero when none has)."""
    x0 = math.inf
    y0 = math.inf
    x1 = -math.inf
    y1 = -math.inf
    m = 0
    for k in range(len(pos)):
        if _placed(pos, k):
            x0 = min(x0, pos[k, 0])
            y0 = min(y0, pos[k, 1])
            x1 = max(x1, pos[k, 0])
            y1 = max(y1, pos[k, 1])
            m += 1
    if m == 0:
        return 0.0, 0.0, 0.0, 0.0, 0
    return x0, y0, x1, y1, m


@njit(cache=True)
def build(g: Grid, pos: np.ndarray, cell: float, again: bool, widen: bool = False) -> None:
    """Sorts the points of `pos` into cells `cell` wide from the lowest finite x and y. `again`: the
    points are nearly where the last build put them (nobody moved more than a cell), so the last
    order, re-sorted by insertion, is the quickest start. `widen`: cells doubled in width until the
    start table holds them (for a caller whose queries cover `cell` around a point and gain more from
    the table than they lose to fuller cells)."""
    n = len(pos)
    x0, y0, x1, y1, m = _bounds(pos)
    while widen and ((x1 - x0) / cell + 1.0) * ((y1 - y0) / cell + 1.0) >= len(g.start):
        cell *= 2.0
    nx = np.int64((x1 - x0) / cell) + 1
    ny = np.int64((y1 - y0) / cell) + 1
    shape = g.shape
    shape[0] = x0
    shape[1] = y0
    shape[2] = cell
    shape[3] = nx
    shape[4] = ny
    shape[5] = 0.0
    shape[6] = m
    fits = nx * ny < len(g.start)
    if fits and not again:
        _counting_sort(g, pos, nx, ny)
    else:
        key = g.key
        order = g.order
        if again:
            for k in range(n):
                key[k] = _key(pos, order[k], shape)
            _insertion_sort(key, order)
        elif nx <= 8 * n + 1024 and ny <= 8 * n + 1024:
            _two_pass_sort(g, pos, nx, ny)
        else:
            for k in range(n):
                key[k] = _key(pos, k, shape)
            order[:] = np.argsort(key, kind="mergesort")
            key[:] = key[order]
        if fits:
            _table(g, nx, ny)
    if fits:
        shape[5] = ny


@njit(cache=True, inline="always")
def cell_of(g: Grid, x: float, y: float) -> tuple:
    """The cell (gx, gy) that holds the point (x, y) (outside the grid's span: a cell beyond it)."""
    return (np.int64(math.floor((x - g.shape[0]) / g.shape[2])), np.int64(math.floor((y - g.shape[1]) / g.shape[2])))


@njit(cache=True, inline="always")
def run(g: Grid, gx: int, gy0: int, gy1: int) -> tuple:
    """Where the points of column gx's cells gy0 to gy1 (clipped to the grid) begin and end in
    `g.order`: one run, since a column's cells are consecutive keys."""
    nx = np.int64(g.shape[3])
    ny = np.int64(g.shape[4])
    a = max(gy0, 0)
    b = min(gy1, ny - 1)
    if gx < 0 or gx >= nx or a > b:
        return 0, 0
    table = np.int64(g.shape[5])
    if table:
        return g.start[gx * table + a], g.start[gx * table + b + 1]
    keys = g.key[:np.int64(g.shape[6])]
    return np.searchsorted(keys, gx * SHIFT + a), np.searchsorted(keys, gx * SHIFT + b, side="right")


@njit(cache=True, inline="always")
def cells(g: Grid) -> int:
    """How many cells the grid spans."""
    return np.int64(g.shape[3]) * np.int64(g.shape[4])
