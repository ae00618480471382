"""A quadrotor of the bank as autopilot firmware reads it: NED position and velocity about a point,
attitude as NED Euler angles, body FRD rates, and the specific force an accelerometer feels, from the
velocity's change over the last control tick. Shared by the ArduPilot and PX4 couplings."""

from __future__ import annotations

import numpy as np

from cosim.mavlink.frames import heading_to_yaw
from cosim.mavlink.sitl.px4_wire import Kinematics
from physics.bodies.attitude import rotation_zyx
from physics.bodies.quadrotor import QuadrotorBank

G = 9.81


def frd_kinematics(bank: QuadrotorBank, k: int, about: np.ndarray, prev_vel: np.ndarray,
                   h: float) -> tuple[Kinematics, np.ndarray]:
    """Vehicle k now, positions about the arena point `about`; `prev_vel` is its velocity a tick of h
    seconds ago. Also returns this velocity (the next call's `prev_vel`)."""
    x, y, z = (bank.pos[k] - about).tolist()
    vel = bank.vel[k].copy()
    ve, vn, vu = vel.tolist()
    roll, pitch, heading = bank.euler[k].tolist()
    f = rotation_zyx(roll, pitch, heading).T @ ((vel - prev_vel) / h + np.array([0.0, 0.0, G]))
    p, q, r = bank.rates[k].tolist()
    return Kinematics((y, x, -z), (vn, ve, -vu), (roll, -pitch, heading_to_yaw(heading)), (p, -q, -r),
                      (float(f[0]), float(-f[1]), float(-f[2]))), vel
