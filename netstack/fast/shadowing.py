"""Obstacles between radios: how many solids the line of sight from sender to receiver crosses.

The geometry comes in as plain arrays (netstack knows no physics): upright boxes turned by a yaw
(boxes and walls) and vertical cylinders. Crossings are counted for many sender-receiver pairs at
once, every pair against every obstacle in one vectorised pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from netstack.fast.crossings import crossings as count_crossings


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
        z3 = np.zeros((0, 3))
        z = np.zeros(0)
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
    """For each segment a[k] -> b[k] (K, 3), how many of the solids it passes through (K,) int."""
    s = solids
    return count_crossings(np.ascontiguousarray(a, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64),
                           s.box_centers, s.box_half, s.box_yaw, s.cyl_centers, s.cyl_radius, s.cyl_half_height)


def shadowed_rssi(a: np.ndarray, b: np.ndarray, rssi: np.ndarray, solids: Solids, loss_db: float, block: bool) -> np.ndarray:
    """Received power over each line of sight a[k] -> b[k] after the obstacles it crosses
    (-inf where `block` and any is crossed)."""
    n = crossings(a, b, solids)
    if block:
        return np.where(n > 0, -np.inf, rssi - loss_db * n)
    return rssi - loss_db * n
