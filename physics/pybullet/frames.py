"""Orientation arithmetic for many bodies at once: quaternions to rotation matrices and Z-Y-X angles."""

from __future__ import annotations

import numpy as np


def _rotation_map() -> np.ndarray:
    """The (16, 9) matrix taking a unit quaternion's products q_a q_b (a, b in x, y, z, w) to its
    rotation matrix minus the identity: each entry of R is linear in those products."""
    x, y, z, w = range(4)
    terms = {(0, 0): [(-2, y, y), (-2, z, z)], (0, 1): [(2, x, y), (-2, z, w)], (0, 2): [(2, x, z), (2, y, w)],
             (1, 0): [(2, x, y), (2, z, w)], (1, 1): [(-2, x, x), (-2, z, z)], (1, 2): [(2, y, z), (-2, x, w)],
             (2, 0): [(2, x, z), (-2, y, w)], (2, 1): [(2, y, z), (2, x, w)], (2, 2): [(-2, x, x), (-2, y, y)]}
    m = np.zeros((16, 9))
    for (i, j), parts in terms.items():
        for k, a, b in parts:
            m[4 * a + b, 3 * i + j] += k
    return m


_ROTATION = _rotation_map()
_IDENTITY = np.eye(3).ravel()


def rotations(quat: np.ndarray) -> np.ndarray:
    """(n, 3, 3) rotation matrices (body to world) of (n, 4) unit quaternions x, y, z, w."""
    products = (quat[:, :, None] * quat[:, None, :]).reshape(len(quat), 16)
    return (products @ _ROTATION + _IDENTITY).reshape(len(quat), 3, 3)


def euler_zyx(r: np.ndarray) -> np.ndarray:
    """Roll, pitch, yaw (Z-Y-X, as physics.bodies.quadrotor) of (n, 3, 3) rotation matrices."""
    out = np.empty((len(r), 3))
    out[:, 0] = np.arctan2(r[:, 2, 1], r[:, 2, 2])
    out[:, 1] = -np.arcsin(np.clip(r[:, 2, 0], -1.0, 1.0))
    out[:, 2] = np.arctan2(r[:, 1, 0], r[:, 0, 0])
    return out


def yaw_of(quat: np.ndarray) -> np.ndarray:
    """The yaw of (n, 4) unit quaternions x, y, z, w: euler_zyx(rotations(quat))[:, 2] to the bit,
    without the rest of the matrices."""
    x, y, z, w = quat.T
    return np.arctan2(2.0 * (x * y + z * w), 1.0 - 2.0 * (y * y + z * z))
