"""One body's orientation as a matrix, from the roll, pitch and yaw every world reports."""

from __future__ import annotations

import math

import numpy as np


def rotation_zyx(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """(3, 3) rotation, body frame to world frame, of Z-Y-X angles (yaw, then pitch, then roll)."""
    cr = math.cos(roll)
    sr = math.sin(roll)
    cp = math.cos(pitch)
    sp = math.sin(pitch)
    cy = math.cos(yaw)
    sy = math.sin(yaw)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])
