"""The PX4 stand-in's dead reckoning (cosim.mavlink.sitl.px4_standin_estimate): the heading it starts
with from the magnetometer, the attitude from the gyro, and position carried between GPS fixes by
the accelerometer."""

from __future__ import annotations

import pytest

from cosim.mavlink.sitl.px4_standin_estimate import DeadReckoning, G
from cosim.mavlink.sitl.px4_wire import MAGNETIC_FIELD_NED_G, Kinematics, hil_gps, hil_sensor
from physics.geodesy import GeoOrigin

HOME = GeoOrigin(47.3977, 8.5456, 488.0)


def _sensor(t_us: int, yaw: float, accel=(0.0, 0.0, -G), gyro=(0.0, 0.0, 0.0)):
    k = Kinematics((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, yaw), gyro, accel)
    return hil_sensor(t_us, k, MAGNETIC_FIELD_NED_G, HOME.alt)


def test_the_heading_comes_from_the_magnetometer_then_turns_with_the_gyro():
    est = DeadReckoning(HOME, MAGNETIC_FIELD_NED_G)
    s = est.sensor(_sensor(4000, 0.7))
    assert s.attitude[2] == pytest.approx(0.7, abs=1e-9)
    for k in range(2, 252):  # 1 s at 0.5 rad/s about the body's down axis
        s = est.sensor(_sensor(4000 * k, 0.7, gyro=(0.0, 0.0, 0.5)))
    assert s.attitude[2] == pytest.approx(0.7 + 0.5, abs=1e-6)
    assert s.attitude[:2] == (0.0, 0.0)


def test_a_fix_places_it_and_the_accelerometer_carries_it_on():
    est = DeadReckoning(HOME, MAGNETIC_FIELD_NED_G)
    lat, lon, alt = HOME.to_geodetic(3.0, 4.0, 2.0)  # 3 m east, 4 m north, 2 m up
    moving = Kinematics((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, -G))
    est.gps(hil_gps(0, lat, lon, alt, moving))
    assert est.position == pytest.approx([4.0, 3.0, -2.0], abs=0.01)  # to the fix's 1e-7 degree
    north = est.position[0]
    for k in range(1, 26):  # 96 ms after the first sample, accelerating north at 2 m/s^2 (facing north, level)
        s = est.sensor(_sensor(4000 * k, 0.0, accel=(2.0, 0.0, -G)))
    assert s.velocity[0] == pytest.approx(1.0 + 2.0 * 0.096, abs=1e-9)
    assert s.position[0] - north == pytest.approx(1.0 * 0.096 + 0.5 * 2.0 * 0.096 ** 2, abs=0.001)
    assert s.velocity[2] == pytest.approx(0.0, abs=1e-9) and s.position[1] == pytest.approx(3.0, abs=0.01)
