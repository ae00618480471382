"""Compiled kernels over the kinematic world's static scenery (physics.kinematic.scenery): rays and push-outs
for the whole swarm in one call each, each robot meeting only the shapes in the cells near it (one
shape's arithmetic is physics.kinematic.scenery_shapes')."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from physics.kinematic.scenery_shapes import INF, gap, push_one, ray_shape, ray_sphere, sum3
from spatial.grid import build, cell_of, grid_of, run


@njit(cache=True, inline="always")
def cell_range(lo: float, hi: float, origin: float, cell: float, n: int) -> tuple:
    """The cells (first, last) of a grid of n that the interval [lo, hi] meets, clamped to the grid."""
    a = min(max(math.floor((lo - origin) / cell), 0.0), n - 1.0)
    b = min(max(math.floor((hi - origin) / cell), 0.0), n - 1.0)
    return np.int64(a), np.int64(b)


@njit(cache=True, inline="always")  # called per robot: no call, no reference counts for its five arrays
def near_shapes(grid: np.ndarray, start: np.ndarray, items: np.ndarray, mark: np.ndarray, buf: np.ndarray, x: float,
                y: float, reach: float, after: int) -> int:
    """Shapes whose footprint meets the square of half side `reach` around (x, y), ids above
    `after`, ascending, into buf; returns how many. mark[-1] counts the queries (deduplication)."""
    x0 = grid[0]
    y0 = grid[1]
    cell = grid[2]
    nx = np.int64(grid[3])
    ny = np.int64(grid[4])
    if not (math.isfinite(x) and math.isfinite(y)):
        return 0  # no test against a shape passes at a position that is not finite
    ax, bx = cell_range(x - reach, x + reach, x0, cell, nx)
    ay, by = cell_range(y - reach, y + reach, y0, cell, ny)
    mark[-1] += 1
    stamp = mark[-1]
    m = 0
    for cx in range(ax, bx + 1):
        for cy in range(ay, by + 1):
            c = cx * ny + cy
            for q in range(start[c], start[c + 1]):
                k = items[q]
                if k > after and mark[k] != stamp:
                    mark[k] = stamp
                    v = k
                    j = m - 1
                    while j >= 0 and buf[j] > v:
                        buf[j + 1] = buf[j]
                        j -= 1
                    buf[j + 1] = v
                    m += 1
    return m


@njit(cache=True, error_model="numpy")
def push_all(kinds, params, grid, start, items, mark, buf, pos, vel, radius, hit_shape, hit_robot) -> int:
    """Every shape's push_out of every robot, in the shapes' order (a robot pushed out of one shape
    is tested against the later ones where it now is). Returns how many (shape, robot) pushes
    went into hit_shape, hit_robot."""
    h = 0
    for i in range(len(pos)):
        r = radius[i]
        last = -1
        while True:
            m = near_shapes(grid, start, items, mark, buf, pos[i, 0], pos[i, 1], r, last)
            pushed = -1
            for q in range(m):
                k = buf[q]
                if push_one(kinds[k], params[k], pos, vel, r, i):
                    pushed = k
                    break
            if pushed < 0:
                break
            hit_shape[h] = pushed
            hit_robot[h] = i
            h += 1
            last = pushed
    return h


FEW_REQUESTS = 8
"""Up to this many requests in one call, each is checked against every robot: cheaper than building
the robots' cell index (one robot's own read, at its own instant)."""


@njit(cache=True, inline="always")
def _sphere_hits(pos, radius, i, j, hx, hy, hz, r, reach, dirs, a, m, out) -> None:
    """Robot j (a sphere) against robot i's rays dirs[a:a + m] from its surface, when within reach."""
    e0 = pos[j, 0] - hx
    e1 = pos[j, 1] - hy
    e2 = pos[j, 2] - hz
    lim = reach + radius[j]
    if j == i or not sum3(e0 * e0, e1 * e1, e2 * e2) <= lim * lim:
        return
    for w in range(a, a + m):
        d0 = dirs[w, 0]
        d1 = dirs[w, 1]
        d2 = dirs[w, 2]
        t = ray_sphere(hx + d0 * r, hy + d1 * r, hz + d2 * r, d0, d1, d2, pos[j, 0], pos[j, 1], pos[j, 2], radius[j])
        out[w] = min(out[w], t)


@njit(cache=True, inline="always")
def _cast_one(kinds, params, grid, start, items, mark, buf, pos, radius, max_r, cells, i, dirs, a, m, mr, out) -> None:
    """Robot i's rays dirs[a:a + m] from its surface against the shapes within reach and the other
    robots (through `cells`, a spatial.grid index, or every robot where it is None), capped at mr."""
    n = len(pos)
    r = radius[i]
    hx = pos[i, 0]
    hy = pos[i, 1]
    hz = pos[i, 2]
    reach = mr + r
    for k in range(a, a + m):
        out[k] = INF
    for s in range(near_shapes(grid, start, items, mark, buf, hx, hy, reach, -1)):
        k = buf[s]
        if not gap(kinds[k], params[k], hx, hy, hz) <= reach:
            continue
        for w in range(a, a + m):
            d0 = dirs[w, 0]
            d1 = dirs[w, 1]
            d2 = dirs[w, 2]
            t = ray_shape(kinds[k], params[k], hx + d0 * r, hy + d1 * r, hz + d2 * r, d0, d1, d2)
            out[w] = min(out[w], t)
    if n > 1 and math.isfinite(hx) and math.isfinite(hy):
        if cells is None:
            for j in range(n):
                _sphere_hits(pos, radius, i, j, hx, hy, hz, r, reach, dirs, a, m, out)
        else:
            span = reach + max_r
            gx0, gy0 = cell_of(cells, hx - span, hy - span)
            gx1, gy1 = cell_of(cells, hx + span, hy + span)
            for gx in range(max(gx0, 0), gx1 + 1):
                lo, hi = run(cells, gx, gy0, gy1)
                for e in range(lo, hi):
                    _sphere_hits(pos, radius, i, cells.order[e], hx, hy, hz, r, reach, dirs, a, m, out)
    for w in range(a, a + m):
        out[w] = min(out[w], mr)


@njit(cache=True, error_model="numpy")
def cast_many(kinds, params, grid, start, items, mark, buf, pos, radius, robots, dirs, first, count, max_range,
              out) -> None:
    """physics.kinematic.raycast.cast_among for every request q: robot robots[q]'s rays dirs[first[q]:][:count[q]]
    from its surface against the shapes within reach and the other robots (spheres), capped at
    max_range[q], into out (one per ray)."""
    max_r = radius.max() if len(pos) else 0.0
    if len(robots) <= FEW_REQUESTS:
        for q in range(len(robots)):
            _cast_one(kinds, params, grid, start, items, mark, buf, pos, radius, max_r, None, robots[q], dirs, first[q],
                      count[q], max_range[q], out)
        return
    cells = grid_of(len(pos))
    build(cells, pos, max_range.max() + 2.0 * max_r + 1e-9, False, True)
    for q in range(len(robots)):
        _cast_one(kinds, params, grid, start, items, mark, buf, pos, radius, max_r, cells, robots[q], dirs, first[q],
                  count[q], max_range[q], out)


@njit(cache=True, error_model="numpy")
def cast_fan(kinds, params, grid, start, items, mark, buf, pos, radius, robot, angles, turn, max_range, dirs, out) -> None:
    """One robot's level fan: rays at angles[k] + turn (its heading and the sensor's yaw), their
    directions written to dirs (cos, sin, 0 each, as numpy computes them), cast as cast_many casts."""
    for k in range(len(angles)):
        a = angles[k] + turn
        dirs[k, 0] = math.cos(a)
        dirs[k, 1] = math.sin(a)
        dirs[k, 2] = 0.0
    max_r = radius.max() if len(pos) else 0.0
    _cast_one(kinds, params, grid, start, items, mark, buf, pos, radius, max_r, None, robot, dirs, 0, len(angles),
              max_range, out)
