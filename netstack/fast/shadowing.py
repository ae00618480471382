"""Obstacles between radios: how many solids the line of sight from sender to receiver crosses.

The geometry comes in as plain arrays (netstack knows no physics): upright boxes turned by a yaw
(boxes and walls) and vertical cylinders. Crossings are counted for many sender-receiver pairs at
once, every pair against every obstacle in one vectorised pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_EPS = 1e-12


@dataclass(frozen=True)
class Solids:
    """Boxes: centres (B, 3), half extents (B, 3), yaws (B,); cylinders: centres (C, 3), radii (C,),
    half heights (C,)."""

    box_centers: np.ndarray
    box_half: np.ndarray
    box_yaw: np.ndarray
    cyl_centers: np.ndarray
    cyl_radius: np.ndarray
    cyl_half_height: np.ndarray

    @staticmethod
    def none() -> Solids:
        z3, z = np.zeros((0, 3)), np.zeros(0)
        return Solids(z3, z3, z, z3, z, z)

    @property
    def count(self) -> int:
        return len(self.box_yaw) + len(self.cyl_radius)


def check_shadowing(loss_db: float, block: bool, ignores_threshold: bool) -> None:
    """A radio's obstacle settings (`obstacle_loss_db`, `obstacles_block`), as both backends take them."""
    if not loss_db >= 0.0:
        raise ValueError(f"obstacle_loss_db must be >= 0 dB per obstacle crossed, got {loss_db:g}")
    if loss_db > 0 and ignores_threshold and not block:
        raise ValueError("obstacle_loss_db changes nothing with a range cut-off model (reception ignores power); "
                         "use obstacles_block: true, or a path-loss model with a receive threshold")


def flat(solids: Solids) -> tuple[list[float], list[float]]:
    """Boxes as 7 numbers each (centre, half extents, yaw) and cylinders as 5 (centre, radius, half
    height), for ns-3's ObstacleLossModel."""
    boxes = np.column_stack([solids.box_centers, solids.box_half, solids.box_yaw]).reshape(-1)
    cyls = np.column_stack([solids.cyl_centers, solids.cyl_radius, solids.cyl_half_height]).reshape(-1)
    return boxes.tolist(), cyls.tolist()


def crossings(a: np.ndarray, b: np.ndarray, solids: Solids) -> np.ndarray:
    """For each segment a[k] -> b[k] (K, 3), how many solids it passes through (K,) int."""
    n = np.zeros(len(a), dtype=np.int64)
    if len(a) == 0:
        return n
    if len(solids.box_yaw):
        n += _box_hits(a, b, solids).sum(axis=1)
    if len(solids.cyl_radius):
        n += _cylinder_hits(a, b, solids).sum(axis=1)
    return n


def _slab(p0: np.ndarray, d: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parameter interval [t0, t1] of p0 + t d inside lo <= x <= hi, per element (empty: t0 > t1)."""
    flat = np.abs(d) < _EPS
    with np.errstate(divide="ignore", invalid="ignore"):
        ta, tb = (lo - p0) / d, (hi - p0) / d
    t0 = np.where(flat, np.where((p0 >= lo) & (p0 <= hi), -np.inf, np.inf), np.minimum(ta, tb))
    t1 = np.where(flat, np.where((p0 >= lo) & (p0 <= hi), np.inf, -np.inf), np.maximum(ta, tb))
    return t0, t1


def _box_hits(a: np.ndarray, b: np.ndarray, s: Solids) -> np.ndarray:
    """(K, B) whether segment k passes through box j (slab test in the box's own frame)."""
    c, sn = np.cos(s.box_yaw), np.sin(s.box_yaw)
    rel0, rel1 = a[:, None, :] - s.box_centers[None], b[:, None, :] - s.box_centers[None]

    def local(v):
        return np.stack([c * v[..., 0] + sn * v[..., 1], -sn * v[..., 0] + c * v[..., 1], v[..., 2]], axis=-1)

    p0 = local(rel0)
    d = local(rel1) - p0
    t0, t1 = _slab(p0, d, -s.box_half[None], s.box_half[None])
    enter, leave = t0.max(axis=-1), t1.min(axis=-1)
    return (enter <= leave) & (leave >= 0.0) & (enter <= 1.0)


def _cylinder_hits(a: np.ndarray, b: np.ndarray, s: Solids) -> np.ndarray:
    """(K, C) whether segment k passes through vertical cylinder j."""
    p0 = a[:, None, :] - s.cyl_centers[None]
    d = (b - a)[:, None, :]
    qa = d[..., 0] ** 2 + d[..., 1] ** 2
    qb = 2.0 * (p0[..., 0] * d[..., 0] + p0[..., 1] * d[..., 1])
    qc = p0[..., 0] ** 2 + p0[..., 1] ** 2 - s.cyl_radius[None] ** 2
    disc = qb * qb - 4.0 * qa * qc
    vertical = qa < _EPS
    root = np.sqrt(np.maximum(disc, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        r0, r1 = (-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa)
    inside_now = qc <= 0.0
    t0 = np.where(vertical, np.where(inside_now, -np.inf, np.inf), np.where(disc >= 0, r0, np.inf))
    t1 = np.where(vertical, np.where(inside_now, np.inf, -np.inf), np.where(disc >= 0, r1, -np.inf))
    z0, z1 = _slab(p0[..., 2], d[..., 2], -s.cyl_half_height[None], s.cyl_half_height[None])
    enter, leave = np.maximum(t0, z0), np.minimum(t1, z1)
    return (enter <= leave) & (leave >= 0.0) & (enter <= 1.0)
