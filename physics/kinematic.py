"""`kinematic` world: numpy point masses with velocity commands, arena bounds, overlap resolution.

For swarms of thousands (Simbeeotic's SimpleBee, Kilombo). Each tick the velocity moves toward the
commanded one by at most max_accel*dt, positions integrate explicitly, robots are clamped to the
arena, and overlapping robots are pushed apart along the line between their centres.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from physics.raycast import ray_box_distances, ray_sphere_distances
from physics.world import Arena, Box, CommandArrays, RobotSpec

PairFinder = Callable[[np.ndarray, float, bool], np.ndarray]  # (positions, radius, sort) -> (P, 2)


class KinematicWorld(CommandArrays):
    """Point robots moved kinematically; see the module docstring."""

    def __init__(
        self,
        arena: Arena,
        max_accel: float = float("inf"),
        collisions: bool = True,
        pair_finder: PairFinder | None = None,
        obstacles: tuple[Box, ...] = (),
    ) -> None:
        super().__init__()
        if collisions and pair_finder is None:
            raise ValueError("collisions need a pair_finder (fixed-radius neighbour search)")
        self.arena = arena
        self.max_accel = max_accel
        self.collisions = collisions
        self._pairs = pair_finder
        self._lo = np.array(arena.lower, dtype=np.float64)
        self._hi = np.array(arena.upper, dtype=np.float64)
        self.obstacles = obstacles
        self._boxes = [(np.array(b.center, dtype=np.float64), np.array(b.half_extents, dtype=np.float64)) for b in obstacles]
        self._pos = np.zeros((0, 3))
        self._vel = np.zeros((0, 3))
        self._radius = np.zeros(0)
        self.track_contacts = False
        self._contacts: list[tuple[int, int]] = []

    def add_robot(self, spec: RobotSpec) -> int:
        return self._register(spec)

    def start(self) -> None:
        self._allocate()
        self._pos = np.array([s.position for s in self.specs], dtype=np.float64).reshape(self.n, 3)
        self._vel = np.zeros((self.n, 3))
        self._radius = np.array([s.radius_m for s in self.specs], dtype=np.float64)
        self._max_r = float(self._radius.max()) if self.n else 0.0
        self._at_rest = False  # the first step resolves overlaps and clamps to the arena
        self._clip_lo = self._lo + self._radius[:, None]
        self._clip_hi = self._hi - self._radius[:, None]

    def contacts(self) -> list[tuple[int, int]]:
        """(robot, other) pairs that touched during the last step; other is -1 for an obstacle or
        the arena's walls. Collected only while `track_contacts` is on."""
        return self._contacts

    def step(self, dt_s: float) -> None:
        self._contacts = []
        if self._at_rest and not self.active_vel.any():
            return  # nothing moves and nothing is commanded to (e.g. a static sensor field)
        target = self.world_velocity_targets()
        if np.isfinite(self.max_accel):
            dv = target - self._vel
            norm = np.sqrt(np.einsum("ij,ij->i", dv, dv))
            limit = self.max_accel * dt_s
            scale = np.minimum(1.0, limit / np.maximum(norm, 1e-12))
            self._vel += dv * scale[:, None]
        else:
            np.copyto(self._vel, target)
        self._pos += self._vel * dt_s
        if self.collisions and self.n > 1:
            self._separate()
        for box in self._boxes:
            self._push_out_of(box)
        if self.track_contacts:
            outside = np.nonzero(np.any((self._pos < self._clip_lo) | (self._pos > self._clip_hi), axis=1))[0]
            self._contacts.extend((int(k), -1) for k in outside)  # the arena's walls
        np.clip(self._pos, self._clip_lo, self._clip_hi, out=self._pos)
        self._at_rest = not self._vel.any()

    def _separate(self) -> None:
        pairs = self._pairs(self._pos, 2.0 * self._max_r, False)
        if not len(pairs):
            return
        i, j = pairs[:, 0], pairs[:, 1]
        d = self._pos[j] - self._pos[i]
        dist = np.sqrt(np.einsum("ij,ij->i", d, d))
        overlap = self._radius[i] + self._radius[j] - dist
        hit = overlap > 0
        if not hit.any():
            return
        i, j, d, dist, overlap = i[hit], j[hit], d[hit], dist[hit], overlap[hit]
        if self.track_contacts:
            self._contacts.extend(zip(i.tolist(), j.tolist()))
        unit = d / np.maximum(dist, 1e-9)[:, None]
        coincident = dist < 1e-9
        unit[coincident] = (1.0, 0.0, 0.0)
        push = unit * (0.5 * overlap)[:, None]
        np.add.at(self._pos, i, -push)
        np.add.at(self._pos, j, push)

    def _push_out_of(self, box: tuple[np.ndarray, np.ndarray]) -> None:
        """Move robots that penetrate a box out through its nearest face."""
        center, half = box
        rel = self._pos - center
        reach = half + self._radius[:, None]
        depth = reach - np.abs(rel)
        inside = np.all(depth > 0, axis=1)
        if not inside.any():
            return
        idx = np.nonzero(inside)[0]
        if self.track_contacts:
            self._contacts.extend((int(k), -1) for k in idx)
        axis = np.argmin(depth[idx], axis=1)
        sign = np.where(rel[idx, axis] >= 0, 1.0, -1.0)
        self._pos[idx, axis] = center[axis] + sign * reach[idx, axis]
        self._vel[idx, axis] = 0.0

    def positions(self) -> np.ndarray:
        return self._pos

    def velocities(self) -> np.ndarray:
        return self._vel

    def cast_rays(self, robot: int, dirs: np.ndarray, max_range: float) -> np.ndarray:
        """Distances from robot's centre along unit directions (R,3) to the nearest box or other robot,
        measured from its surface; max_range where nothing is closer."""
        r = float(self._radius[robot])
        origins = np.repeat(self._pos[robot][None, :], len(dirs), axis=0) + dirs * r
        best = np.full(len(dirs), np.inf)
        for center, half in self._boxes:
            best = np.minimum(best, ray_box_distances(origins, dirs, center - half, center + half))
        others = np.arange(self.n) != robot
        if others.any():
            best = np.minimum(best, ray_sphere_distances(origins, dirs, self._pos[others], self._radius[others]))
        return np.minimum(best, max_range)

    def speeds(self) -> np.ndarray:
        """Current speed of every robot (m/s)."""
        return np.sqrt(np.einsum("ij,ij->i", self._vel, self._vel))

    def network_state(self, t_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Exact positions and velocities for the network's position sync."""
        return self._pos, self._vel

    def position_of(self, i: int) -> np.ndarray:
        return self._pos[i].copy()

    def velocity_of(self, i: int) -> np.ndarray:
        return self._vel[i].copy()

    def kill(self, i: int) -> None:
        self.alive[i] = False
        self._vel[i] = 0.0

    def close(self) -> None:
        pass
