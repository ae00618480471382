"""The per-frame arithmetic of the firmware couplings, compiled: a quadrotor of the bank in the frames
autopilot firmware reads, written into one row of numbers: NED position and velocity about a point,
attitude as NED Euler angles, body FRD rates, and the specific force an accelerometer feels, from
the velocity's change over the last control tick. `frd_rows` does every firmware-flown quadrotor of
a run in one call (ArduPilot's and PX4's alike)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

G = 9.81
ROW = 15
"""A row: NED position (3), NED velocity (3), NED roll, pitch, yaw (3), FRD rates (3), FRD specific force (3)."""


@njit(cache=True)
def frd_row(pos: np.ndarray, vel: np.ndarray, euler: np.ndarray, rates: np.ndarray, k: int, about: np.ndarray,
            prev_vel: np.ndarray, h: float, out: np.ndarray) -> None:
    """Vehicle k of the bank's arrays into `out` (ROW numbers), positions about `about`; `prev_vel` (its
    velocity a tick of h seconds ago) becomes its velocity now."""
    out[0] = pos[k, 1] - about[1]
    out[1] = pos[k, 0] - about[0]
    out[2] = -(pos[k, 2] - about[2])
    out[3] = vel[k, 1]
    out[4] = vel[k, 0]
    out[5] = -vel[k, 2]
    roll = euler[k, 0]
    pitch = euler[k, 1]
    heading = euler[k, 2]
    out[6] = roll
    out[7] = -pitch
    yaw = math.pi / 2.0 - heading  # NED yaw, wrapped to (-pi, pi] as math.remainder does (ties to even)
    out[8] = yaw - 2.0 * math.pi * np.rint(yaw / (2.0 * math.pi))
    out[9] = rates[k, 0]
    out[10] = -rates[k, 1]
    out[11] = -rates[k, 2]
    cr = math.cos(roll)
    sr = math.sin(roll)
    cp = math.cos(pitch)
    sp = math.sin(pitch)
    cy = math.cos(heading)
    sy = math.sin(heading)
    ax = (vel[k, 0] - prev_vel[0]) / h
    ay = (vel[k, 1] - prev_vel[1]) / h
    az = (vel[k, 2] - prev_vel[2]) / h + G
    # the world-to-body rotation (the transpose of Z-Y-X body-to-world) applied to the specific force
    fx = cy * cp * ax + sy * cp * ay - sp * az
    fy = (cy * sp * sr - sy * cr) * ax + (sy * sp * sr + cy * cr) * ay + cp * sr * az
    fz = (cy * sp * cr + sy * sr) * ax + (sy * sp * cr - cy * sr) * ay + cp * cr * az
    out[12] = fx
    out[13] = -fy
    out[14] = -fz
    for i in range(3):
        prev_vel[i] = vel[k, i]


@njit(cache=True)
def frd_rows(pos: np.ndarray, vel: np.ndarray, euler: np.ndarray, rates: np.ndarray, slots: np.ndarray,
             about: np.ndarray, prev_vel: np.ndarray, h: float, out: np.ndarray) -> None:
    """frd_row for a whole set of vehicles in one call: vehicle j is row slots[j] of the bank's arrays,
    its positions about about[j] and its velocity a tick ago prev_vel[j] (updated); its row out[j]."""
    for j in range(len(slots)):
        frd_row(pos, vel, euler, rates, slots[j], about[j], prev_vel[j], h, out[j])
