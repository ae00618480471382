"""Static obstacles: boxes, vertical cylinders, walls (oriented boxes) and meshes.

Each shape knows what the kinematic world needs from it: whether points lie inside (inflated by a
robot's radius), how to push robots out, where rays hit it, and a lower bound on its distance from
a point (to skip it when it is out of reach). The pybullet world builds the same shapes as static
bodies; meshes (OBJ or URDF files) exist only there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from physics.raycast import ray_box_distances


@dataclass(frozen=True)
class Box:
    """An axis-aligned box: centre and half extents (m)."""

    center: tuple[float, float, float]
    half_extents: tuple[float, float, float]

    def gap(self, p: np.ndarray) -> float:
        d = np.maximum(np.abs(p - self.center) - self.half_extents, 0.0)
        return float(math.sqrt(d @ d))

    def push_out(self, pos: np.ndarray, radius: np.ndarray, old: list | None = None) -> np.ndarray:
        """Move points that penetrate the box (inflated by radius) out through the nearest face;
        returns the indices moved (and appends their positions before the move to `old`)."""
        center, half = np.asarray(self.center), np.asarray(self.half_extents)
        rel = pos - center
        reach = half + radius[:, None]
        depth = reach - np.abs(rel)
        inside = np.all(depth > 0, axis=1)
        if not inside.any():
            return np.zeros(0, dtype=np.int64)
        idx = np.nonzero(inside)[0]
        if old is not None:
            old.append(pos[idx].copy())
        axis = np.argmin(depth[idx], axis=1)
        sign = np.where(rel[idx, axis] >= 0, 1.0, -1.0)
        pos[idx, axis] = center[axis] + sign * reach[idx, axis]
        return idx

    def rays(self, origins: np.ndarray, dirs: np.ndarray) -> np.ndarray:
        c, h = np.asarray(self.center), np.asarray(self.half_extents)
        return ray_box_distances(origins, dirs, c - h, c + h)


@dataclass(frozen=True)
class OrientedBox:
    """A box turned by `yaw` radians about the vertical axis (a wall is one)."""

    center: tuple[float, float, float]
    half_extents: tuple[float, float, float]
    yaw: float

    def _local(self, v: np.ndarray, translate: bool) -> np.ndarray:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        x = v - np.asarray(self.center) if translate else v
        out = np.empty_like(x)
        out[..., 0] = c * x[..., 0] + s * x[..., 1]
        out[..., 1] = -s * x[..., 0] + c * x[..., 1]
        out[..., 2] = x[..., 2]
        return out

    def _world(self, v: np.ndarray) -> np.ndarray:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        out = np.empty_like(v)
        out[..., 0] = c * v[..., 0] - s * v[..., 1]
        out[..., 1] = s * v[..., 0] + c * v[..., 1]
        out[..., 2] = v[..., 2]
        return out + np.asarray(self.center)

    def gap(self, p: np.ndarray) -> float:
        d = np.maximum(np.abs(self._local(np.asarray(p, dtype=float), True)) - self.half_extents, 0.0)
        return float(math.sqrt(d @ d))

    def push_out(self, pos: np.ndarray, radius: np.ndarray, old: list | None = None) -> np.ndarray:
        local = self._local(pos, True)
        idx = Box((0.0, 0.0, 0.0), self.half_extents).push_out(local, radius)
        if len(idx):
            if old is not None:
                old.append(pos[idx].copy())
            pos[idx] = self._world(local[idx])
        return idx

    def rays(self, origins: np.ndarray, dirs: np.ndarray) -> np.ndarray:
        h = np.asarray(self.half_extents)
        return ray_box_distances(self._local(origins, True), self._local(dirs, False), -h, h)


@dataclass(frozen=True)
class Cylinder:
    """A vertical cylinder: centre of its base circle at mid-height, radius and half height (m)."""

    center: tuple[float, float, float]
    radius: float
    half_height: float

    def gap(self, p: np.ndarray) -> float:
        dxy = max(math.hypot(p[0] - self.center[0], p[1] - self.center[1]) - self.radius, 0.0)
        dz = max(abs(p[2] - self.center[2]) - self.half_height, 0.0)
        return math.hypot(dxy, dz)

    def push_out(self, pos: np.ndarray, radius: np.ndarray, old: list | None = None) -> np.ndarray:
        c = np.asarray(self.center)
        rel = pos - c
        dist = np.hypot(rel[:, 0], rel[:, 1])
        reach = self.radius + radius
        depth_side = reach - dist
        depth_z = self.half_height + radius - np.abs(rel[:, 2])
        inside = (depth_side > 0) & (depth_z > 0)
        if not inside.any():
            return np.zeros(0, dtype=np.int64)
        idx = np.nonzero(inside)[0]
        if old is not None:
            old.append(pos[idx].copy())
        through_side = depth_side[idx] <= depth_z[idx]
        side, top = idx[through_side], idx[~through_side]
        if len(side):
            d = np.maximum(dist[side], 1e-9)
            ux = np.where(dist[side] > 1e-9, rel[side, 0] / d, 1.0)
            uy = np.where(dist[side] > 1e-9, rel[side, 1] / d, 0.0)
            pos[side, 0] = c[0] + ux * reach[side]
            pos[side, 1] = c[1] + uy * reach[side]
        if len(top):
            sign = np.where(rel[top, 2] >= 0, 1.0, -1.0)
            pos[top, 2] = c[2] + sign * (self.half_height + radius[top])
        return idx

    def rays(self, origins: np.ndarray, dirs: np.ndarray) -> np.ndarray:
        """Hits on the curved side within the height (range rays are horizontal; caps are not cast)."""
        c = np.asarray(self.center)
        ox, oy = origins[:, 0] - c[0], origins[:, 1] - c[1]
        dx, dy = dirs[:, 0], dirs[:, 1]
        a = dx * dx + dy * dy
        b = ox * dx + oy * dy
        cc = ox * ox + oy * oy - self.radius * self.radius
        disc = b * b - a * cc
        with np.errstate(divide="ignore", invalid="ignore"):
            root = np.sqrt(np.maximum(disc, 0.0))
            t_near = (-b - root) / a
            t_far = (-b + root) / a
        t = np.where(cc <= 0.0, 0.0, np.where(t_near >= 0.0, t_near, np.where(t_far >= 0.0, t_far, np.inf)))
        t = np.where((disc >= 0.0) & (a > 0.0), t, np.inf)
        z = origins[:, 2] + np.where(np.isfinite(t), t, 0.0) * dirs[:, 2]
        return np.where(np.abs(z - c[2]) <= self.half_height, t, np.inf)


def wall(start: tuple[float, float], end: tuple[float, float], height: float, thickness: float,
         base: float = 0.0) -> OrientedBox:
    """A wall from `start` to `end` (x, y in m) standing on `base`: an oriented box."""
    (x0, y0), (x1, y1) = start, end
    length = math.hypot(x1 - x0, y1 - y0)
    if length <= 0:
        raise ValueError("a wall needs two different end points")
    return OrientedBox(((x0 + x1) / 2, (y0 + y1) / 2, base + height / 2), (length / 2, thickness / 2, height / 2),
                       math.atan2(y1 - y0, x1 - x0))


@dataclass(frozen=True)
class Mesh:
    """A static mesh for the pybullet world: an OBJ file (collision shape) or a URDF file."""

    path: str
    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    yaw: float = 0.0
    scale: float = 1.0
