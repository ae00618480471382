"""The kinematic world's static scenery as arrays with a cell index, built once: rays and push-outs
for the whole swarm in one compiled call each (physics.kinematic.scenery_kernels), instead of one numpy call
per robot and per shape. Results are the per-shape numpy code's, to the last bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from jit.calls import bound_overload
from physics.scene.obstacles import Box, Cylinder, OrientedBox, Wall

BOX = 0
ORIENTED = 1
CYLINDER = 2
PARAMS = 12


class Scenery:
    """Boxes, oriented boxes (walls) and cylinders: one row of parameters each (scenery_kernels.ray_shape
    says which), their footprints in a grid of cells about one shape wide."""

    def __init__(self, shapes: tuple) -> None:
        n = len(shapes)
        self.shapes = shapes
        self.kinds = np.zeros(n, np.int64)
        self.params = np.zeros((n, PARAMS))
        foot = np.zeros((n, 4))  # x0, y0, x1, y1 of each footprint
        for k, shape in enumerate(shapes):
            self.kinds[k], foot[k] = _row(shape.box if isinstance(shape, Wall) else shape, self.params[k])
        self.grid, self.start, self.items = _grid(foot)
        self.mark = np.zeros(n + 1, np.int64)
        self.buf = np.zeros(max(n, 1), np.int64)
        self.hits = (np.zeros(0, np.int64), np.zeros(0, np.int64))  # room for one step's (shape, robot) pushes
        self._bound: dict[str, Callable] = {}  # each kernel's machine code for these arguments' types, once it has run

    def cast(self, pos: np.ndarray, radius: np.ndarray, robots: np.ndarray, dirs: np.ndarray, count: np.ndarray,
             max_range: np.ndarray) -> np.ndarray:
        """Every request's rays at once (physics.kinematic.raycast.cast_among for each): request q's count[q] rays are
        the next rows of dirs; distances, one per row of dirs."""
        first = np.zeros(len(count), np.int64)
        np.cumsum(count[:-1], out=first[1:])
        out = np.empty(len(dirs))
        args = (self.kinds, self.params, self.grid, self.start, self.items, self.mark, self.buf,
                np.ascontiguousarray(pos, dtype=np.float64), np.ascontiguousarray(radius, dtype=np.float64),
                np.ascontiguousarray(robots, dtype=np.int64), np.ascontiguousarray(dirs, dtype=np.float64), first,
                np.ascontiguousarray(count, dtype=np.int64), np.ascontiguousarray(max_range, dtype=np.float64), out)
        self._call("cast_many", args)
        return out

    def cast_fan(self, pos: np.ndarray, radius: np.ndarray, robot: int, angles: np.ndarray, turn: float,
                 max_range: float) -> np.ndarray:
        """One robot's level fan in one call (scenery_kernels.cast_fan): rays at angles + turn, from its
        surface; pos, radius and angles contiguous float64 (the world's own arrays, a sensor's angles)."""
        out = np.empty(len(angles))
        self._call("cast_fan", (self.kinds, self.params, self.grid, self.start, self.items, self.mark, self.buf, pos,
                                radius, int(robot), angles, float(turn), float(max_range), np.empty((len(angles), 3)), out))
        return out

    def _call(self, name: str, args: tuple) -> None:
        """Kernel `name` of physics.kinematic.scenery_kernels on args: the first call through numba's dispatcher,
        the later ones (the same argument types) straight to its machine code."""
        bound = self._bound.get(name)
        if bound is None:
            from physics.kinematic import scenery_kernels

            kernel = getattr(scenery_kernels, name)
            kernel(*args)
            self._bound[name] = bound_overload(kernel, args)
        else:
            bound(*args)

    def cast_requests(self, pos: np.ndarray, radius: np.ndarray,
                      requests: list[tuple[int, np.ndarray, float]]) -> list[np.ndarray]:
        """cast_rays_many's requests (robot, directions, max range), stacked into one call."""
        counts = np.array([len(d) for _, d, _ in requests], dtype=np.int64)
        out = self.cast(pos, radius, np.array([i for i, _, _ in requests], dtype=np.int64),
                        np.ascontiguousarray(np.concatenate([d for _, d, _ in requests]), dtype=np.float64), counts,
                        np.array([r for _, _, r in requests], dtype=np.float64))
        ends = np.cumsum(counts).tolist()
        return [out[a:b] for a, b in zip([0, *ends[:-1]], ends)]

    def push_out(self, pos: np.ndarray, vel: np.ndarray, radius: np.ndarray) -> list[int]:
        """Every shape pushes out the robots inside it (through its nearest surface), in the shapes'
        order, and what pointed into the surface is removed from their velocities. Returns the
        robots pushed, shape by shape (robots ascending within a shape)."""
        from physics.kinematic.scenery_kernels import push_all

        room = push_room(len(pos))
        if len(self.hits[0]) < room:
            self.hits = (np.empty(room, np.int64), np.empty(room, np.int64))
        shape, robot = self.hits
        h = push_all(self.kinds, self.params, self.grid, self.start, self.items, self.mark, self.buf, pos, vel, radius,
                     shape, robot)
        return robot[:h][np.lexsort((robot[:h], shape[:h]))].tolist() if h else []


def push_room(n: int) -> int:
    """Room for one step's (shape, robot) pushes of n robots (scenery_kernels.push_all)."""
    return 4 * n + 16


def _row(shape, p: np.ndarray) -> tuple[int, tuple[float, float, float, float]]:
    """The shape's parameters into p; its kind and xy footprint."""
    if isinstance(shape, Box):
        c = np.asarray(shape.center, float)
        h = np.asarray(shape.half_extents, float)
        p[0:3] = c
        p[3:6] = h
        p[6:9] = c - h
        p[9:12] = c + h
        return BOX, (c[0] - h[0], c[1] - h[1], c[0] + h[0], c[1] + h[1])
    if isinstance(shape, OrientedBox):
        c = np.asarray(shape.center, float)
        h = np.asarray(shape.half_extents, float)
        cos = math.cos(shape.yaw)
        sin = math.sin(shape.yaw)
        p[0:3] = c
        p[3:6] = h
        p[6] = cos
        p[7] = sin
        ex = (abs(cos) * h[0] + abs(sin) * h[1]) * (1 + 1e-9) + 1e-9
        ey = (abs(sin) * h[0] + abs(cos) * h[1]) * (1 + 1e-9) + 1e-9
        return ORIENTED, (c[0] - ex, c[1] - ey, c[0] + ex, c[1] + ey)
    if isinstance(shape, Cylinder):
        c = shape.center
        p[0:3] = c
        p[3] = shape.radius
        p[4] = shape.half_height
        return CYLINDER, (c[0] - shape.radius, c[1] - shape.radius, c[0] + shape.radius, c[1] + shape.radius)
    raise TypeError(f"the kinematic world's scenery cannot hold a {type(shape).__name__}")


def _grid(foot: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells about one shape wide over the footprints; each cell lists the shapes that meet it."""
    if not len(foot):
        return np.array([0.0, 0.0, 1.0, 1.0, 1.0]), np.zeros(2, np.int64), np.zeros(0, np.int64)
    x0 = foot[:, 0].min()
    y0 = foot[:, 1].min()
    width = max(foot[:, 2].max() - x0, 1e-6)
    depth = max(foot[:, 3].max() - y0, 1e-6)
    typical = float(np.median(np.maximum(foot[:, 2] - foot[:, 0], foot[:, 3] - foot[:, 1])))
    cell = max(math.sqrt(width * depth / len(foot)), typical, width / 4096, depth / 4096, 1e-3)
    nx = int(width / cell) + 1
    ny = int(depth / cell) + 1
    cells: list[list[int]] = [[] for _ in range(nx * ny)]
    for k, (a0, b0, a1, b1) in enumerate(foot.tolist()):  # the cells the kernels' queries compute, the same way
        for cx in range(max(math.floor((a0 - x0) / cell), 0), min(math.floor((a1 - x0) / cell), nx - 1) + 1):
            for cy in range(max(math.floor((b0 - y0) / cell), 0), min(math.floor((b1 - y0) / cell), ny - 1) + 1):
                cells[cx * ny + cy].append(k)
    start = np.zeros(nx * ny + 1, np.int64)
    start[1:] = np.cumsum([len(c) for c in cells])
    items = np.array([k for c in cells for k in c], dtype=np.int64)
    return np.array([x0, y0, cell, nx, ny], dtype=np.float64), start, items
