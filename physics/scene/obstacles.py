"""Static obstacles: boxes, vertical cylinders, walls (oriented boxes) and meshes.

Each shape knows what the kinematic world needs from it: whether points lie inside (inflated by a
robot's radius), how to push robots out, where rays hit it, and a lower bound on its distance from
a point (to skip it when it is out of reach). The pybullet world builds the same shapes as static
bodies; meshes (OBJ or URDF files) exist only there. The shapes are also what a scenario's
`world.obstacles` list holds (`OBSTACLES` names them), so each checks its own values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from physics.kinematic.raycast import ray_box_distances


@dataclass(frozen=True)
class Box:
    """An axis-aligned box: centre and size (full extents, m)."""

    center: tuple[float, float, float]
    """The box's centre (m, x y z)."""
    size: tuple[float, float, float]
    """Its full extents (m, x y z)."""
    half_extents: tuple[float, float, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if min(self.size) <= 0:
            raise ValueError(f"box size must be positive on every axis, got {self.size}")
        object.__setattr__(self, "half_extents", tuple(x / 2.0 for x in self.size))

    def gap(self, p: np.ndarray) -> float:
        d = np.maximum(np.abs(p - self.center) - self.half_extents, 0.0)
        return float(math.sqrt(d @ d))

    def push_out(self, pos: np.ndarray, radius: np.ndarray, old: list | None = None) -> np.ndarray:
        """Move points that penetrate the box (inflated by radius) out through the nearest face;
        returns the indices moved (and appends their positions before the move to `old`)."""
        return _push_out_of_box(np.asarray(self.center), np.asarray(self.half_extents), pos, radius, old)

    def rays(self, origins: np.ndarray, dirs: np.ndarray) -> np.ndarray:
        c = np.asarray(self.center)
        h = np.asarray(self.half_extents)
        return ray_box_distances(origins, dirs, c - h, c + h)


def _push_out_of_box(center: np.ndarray, half: np.ndarray, pos: np.ndarray, radius: np.ndarray,
                     old: list | None) -> np.ndarray:
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


@dataclass(frozen=True)
class OrientedBox:
    """A box turned by `yaw` radians about the vertical axis (a wall is one)."""

    center: tuple[float, float, float]
    half_extents: tuple[float, float, float]
    yaw: float

    def _local(self, v: np.ndarray, translate: bool) -> np.ndarray:
        c = math.cos(self.yaw)
        s = math.sin(self.yaw)
        x = v - np.asarray(self.center) if translate else v
        out = np.empty_like(x)
        out[..., 0] = c * x[..., 0] + s * x[..., 1]
        out[..., 1] = -s * x[..., 0] + c * x[..., 1]
        out[..., 2] = x[..., 2]
        return out

    def _world(self, v: np.ndarray) -> np.ndarray:
        c = math.cos(self.yaw)
        s = math.sin(self.yaw)
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
        idx = _push_out_of_box(np.zeros(3), np.asarray(self.half_extents), local, radius, None)
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
    """A vertical cylinder: centre (at mid-height), radius and height (m)."""

    center: tuple[float, float, float]
    """The cylinder's centre, at mid-height (m, x y z)."""
    radius: float
    """Its radius (m)."""
    height: float
    """Its height (m)."""
    half_height: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.radius <= 0 or self.height <= 0:
            raise ValueError("cylinder radius and height must be > 0")
        object.__setattr__(self, "half_height", self.height / 2.0)

    def gap(self, p: np.ndarray) -> float:
        """(C's hypot, which compiled code has too; Python's math.hypot rounds differently.)"""
        dxy = max(float(np.hypot(p[0] - self.center[0], p[1] - self.center[1])) - self.radius, 0.0)
        dz = max(abs(p[2] - self.center[2]) - self.half_height, 0.0)
        return float(np.hypot(dxy, dz))

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
        side = idx[through_side]
        top = idx[~through_side]
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
        ox = origins[:, 0] - c[0]
        oy = origins[:, 1] - c[1]
        dx = dirs[:, 0]
        dy = dirs[:, 1]
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


@dataclass(frozen=True)
class Wall:
    """A wall from `start` to `end` (x, y in m), `height` and `thickness` (m), standing on `base`:
    an oriented box."""

    start: tuple[float, float]
    """One end of the wall (m, x y)."""
    end: tuple[float, float]
    """The other end (m, x y)."""
    height: float = 2.0
    """Its height (m)."""
    thickness: float = 0.2
    """Its thickness (m)."""
    base: float = 0.0
    """The height its foot stands at (m)."""
    box: OrientedBox = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.height <= 0 or self.thickness <= 0:
            raise ValueError("wall height and thickness must be > 0")
        (x0, y0), (x1, y1) = self.start, self.end
        length = math.hypot(x1 - x0, y1 - y0)
        if length <= 0:
            raise ValueError("a wall needs two different end points")
        box = OrientedBox(((x0 + x1) / 2, (y0 + y1) / 2, self.base + self.height / 2),
                          (length / 2, self.thickness / 2, self.height / 2), math.atan2(y1 - y0, x1 - x0))
        object.__setattr__(self, "box", box)

    @property
    def center(self) -> tuple[float, float, float]:
        return self.box.center

    @property
    def half_extents(self) -> tuple[float, float, float]:
        return self.box.half_extents

    @property
    def yaw(self) -> float:
        return self.box.yaw

    def gap(self, p: np.ndarray) -> float:
        return self.box.gap(p)

    def push_out(self, pos: np.ndarray, radius: np.ndarray, old: list | None = None) -> np.ndarray:
        return self.box.push_out(pos, radius, old)

    def rays(self, origins: np.ndarray, dirs: np.ndarray) -> np.ndarray:
        return self.box.rays(origins, dirs)


@dataclass(frozen=True)
class Mesh:
    """A static mesh for the pybullet world: an OBJ file (collision shape) or a URDF file, placed
    at `position`, turned by `yaw` (rad) and scaled."""

    file: str
    """An OBJ file (its collision shape) or a URDF file, relative to the file that names it."""
    position: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Where its origin is placed (m, x y z)."""
    yaw: float = 0.0
    """Its turn about the vertical (rad)."""
    scale: float = 1.0
    """The factor on the file's lengths."""

    def __post_init__(self) -> None:
        if not self.file.lower().endswith((".obj", ".urdf")):
            raise ValueError(f"mesh file must be .obj or .urdf, got {self.file!r}")
        if not Path(self.file).is_file():
            raise ValueError(f"mesh file {self.file!r} does not exist")
        if self.scale <= 0:
            raise ValueError("scale must be > 0")


OBSTACLES: dict[str, type] = {"box": Box, "cylinder": Cylinder, "wall": Wall, "mesh": Mesh}
"""Obstacle shapes by the `type` a world file gives them."""
SOLID_SHAPES = (Box, Cylinder, Wall)
"""The shapes the kinematic world resolves (meshes exist only in pybullet)."""
