"""The firmware couplings' compiled per-frame arithmetic gives, to the last bit, what the frames say:
NED position and velocity about a point, NED Euler angles, FRD rates, and the specific force in FRD
from the velocity's change over a tick."""

from __future__ import annotations

import numpy as np
import pytest

from cosim.mavlink.frames import heading_to_yaw
from cosim.mavlink.sitl.frd_kernel import ROW, frd_row, frd_rows
from physics.bodies.attitude import rotation_zyx

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def test_a_row_is_the_vehicle_in_the_firmwares_frames():
    rng = np.random.default_rng(7)
    for _ in range(200):
        pos, vel, euler, rates = (rng.normal(size=(3, 3)) for _ in range(4))
        euler[:, 2] *= 3.0
        about = rng.normal(size=3)
        before = rng.normal(size=3)
        prev = before.copy()
        out = np.empty(ROW)
        frd_row(pos, vel, euler, rates, 2, about, prev, 1 / 1200, out)
        x, y, z = pos[2] - about
        ve, vn, vu = vel[2]
        roll, pitch, heading = euler[2]
        f = rotation_zyx(roll, pitch, heading).T @ ((vel[2] - before) * 1200 + np.array([0.0, 0.0, 9.81]))
        want = [y, x, -z, vn, ve, -vu, roll, -pitch, heading_to_yaw(heading), rates[2, 0], -rates[2, 1], -rates[2, 2],
                f[0], -f[1], -f[2]]
        assert np.allclose(out, want, rtol=1e-12, atol=1e-9)
        assert np.array_equal(prev, vel[2])  # the next tick's "before"


def test_at_rest_level_facing_east_the_accelerometer_feels_gravity_up():
    out = np.empty(ROW)
    zero = np.zeros((1, 3))
    frd_row(zero, zero, zero, zero, 0, np.zeros(3), np.zeros(3), 0.0025, out)
    assert out.tolist() == [0.0] * 8 + [np.pi / 2] + [0.0] * 5 + [-9.81]  # FRD z is down; yaw 90 deg (east)


def test_a_batch_of_rows_is_each_vehicles_row_to_the_last_bit():
    rng = np.random.default_rng(8)
    pos, vel, euler, rates = (rng.normal(size=(6, 3)) for _ in range(4))
    slots = np.array([4, 0, 5], dtype=np.int64)
    about = rng.normal(size=(3, 3))
    prev = rng.normal(size=(3, 3))
    out = np.empty((3, ROW))
    expected = np.empty((3, ROW))
    before = prev.copy()
    for j, k in enumerate(slots):
        frd_row(pos, vel, euler, rates, k, about[j], before[j], 1 / 1200, expected[j])
    frd_rows(pos, vel, euler, rates, slots, about, prev, 1 / 1200, out)
    assert np.array_equal(out, expected) and np.array_equal(prev, vel[slots])  # each one's velocity now kept
