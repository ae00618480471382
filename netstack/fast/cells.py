"""The fast radio's use of the cell index (spatial.grid): cells of range plus a margin of motion,
rebuilt when some node has moved far, and the nodes a frame may reach found from it, ascending.
Receivers are then measured one by one (kernels.within): the index only narrows the search, so the
answer does not depend on it. Every send finds its receivers through it (netstack.fast.air.reach),
on either engine.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from jit.borrow import borrow
from spatial.grid import build, cell_of, cells, grid_of, run

MIN_NODES = 64
"""From this many nodes on, a send finds its receivers through the index (below: every node)."""

Cells = namedtuple("Cells", ["grid", "pos", "state", "cand"])
"""The index (`grid`), the positions it was built from (`pos`), state = slack, top speed, valid,
moved since; and room for one query's candidates (`cand`, one per node)."""

FEW_CELLS = 16
"""A swarm spanning this many cells or fewer gets every node as candidates: a query's nine cells
would hold most of them, and sorting them costs more than measuring everyone."""


def cells_of(n: int) -> Cells:
    """An index for n nodes, built at the first `index` call."""
    return Cells(grid_of(n), np.zeros((n, 3)), np.zeros(4), np.zeros(n, np.int64))


@njit(cache=True)
def index(c: Cells, pos: np.ndarray, vel: np.ndarray, range_m: float) -> None:
    """After a position sync: the top speed and how far nodes moved since the index was built; the
    index rebuilt when someone moved a quarter of its slack (nothing for fewer than MIN_NODES)."""
    n = len(pos)
    if n < MIN_NODES:
        return
    state = c.state
    gpos = c.pos
    vmax = 0.0
    moved = 0.0
    for k in range(n):
        vmax = max(vmax, vel[k, 0] ** 2 + vel[k, 1] ** 2 + vel[k, 2] ** 2)
        moved = max(moved, (pos[k, 0] - gpos[k, 0]) ** 2 + (pos[k, 1] - gpos[k, 1]) ** 2)
    state[1] = math.sqrt(vmax)
    state[3] = math.sqrt(moved)
    if state[2] == 1.0 and state[3] <= 0.25 * state[0]:
        return
    slack = max(0.05 * range_m, 0.5 * state[1])  # a quarter second of motion at the top speed
    build(c.grid, pos, range_m + slack, state[2] == 1.0)  # since the last build nobody moved far: re-sorted
    gpos[:] = pos
    state[0] = slack
    state[2] = 1.0
    state[3] = 0.0


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
    c = borrow(c)  # its arrays without reference counts: a query is a few dozen nanoseconds otherwise spent on them
    state = c.state
    out = c.cand
    g = c.grid
    if n < MIN_NODES or state[2] == 0.0 or 2.0 * (state[3] + state[1] * dt) > state[0] or cells(g) <= FEW_CELLS:
        for k in range(n):
            out[k] = k
        return n
    cx, cy = cell_of(g, c.pos[src, 0], c.pos[src, 1])
    m = 0
    order = g.order
    for gx in range(cx - 1, cx + 2):
        a, b = run(g, gx, cy - 1, cy + 1)
        for q in range(a, b):
            out[m] = order[q]
            m += 1
    _insertion_sort(out, m)
    return m
