"""A quadrotor of the bank as autopilot firmware reads it: NED position and velocity about a point,
attitude as NED Euler angles, body FRD rates, and the specific force an accelerometer feels, from the
velocity's change over the last control tick. Shared by the ArduPilot and PX4 couplings."""

from __future__ import annotations

import numpy as np

from cosim.mavlink.sitl.frd_kernel import ROW, frd_row
from cosim.mavlink.sitl.px4_wire import Kinematics
from physics.bodies.quadrotor import QuadrotorBank


def frd_kinematics(bank: QuadrotorBank, k: int, about: np.ndarray, prev_vel: np.ndarray,
                   h: float) -> tuple[Kinematics, np.ndarray]:
    """Vehicle k now, positions about the arena point `about`; `prev_vel` is its velocity a tick of h
    seconds ago. Also returns this velocity (the next call's `prev_vel`). The arithmetic is compiled
    (cosim.mavlink.sitl.frd_kernel)."""
    row = np.empty(ROW)
    now = np.array(prev_vel, dtype=float)
    frd_row(bank.pos, bank.vel, bank.euler, bank.rates, k, np.asarray(about, dtype=float), now, h, row)
    r = row.tolist()
    return Kinematics(tuple(r[0:3]), tuple(r[3:6]), tuple(r[6:9]), tuple(r[9:12]), tuple(r[12:15])), now
