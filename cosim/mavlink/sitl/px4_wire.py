"""PX4's simulator interface on the wire (its `simulator_mavlink` module, as its source reads them): the
simulator sends HIL_SENSOR (IMU, magnetometer, barometer) and HIL_GPS, the firmware answers each
HIL_SENSOR with one HIL_ACTUATOR_CONTROLS once its control loop has run; MAVLink 2 over TCP, PX4
connecting to the simulator's port 4560 + instance.

Units as PX4 reads them: specific force in m/s^2 and body rates in rad/s, both body FRD; the
magnetic field in gauss, body FRD; pressure in hPa; GPS degrees x 1e7, millimetres AMSL, cm/s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.sitl.json_wire import QUAD_X_ROTORS
from physics.bodies.attitude import rotation_zyx

SENSOR_FIELDS = 0x1FFF
"""HIL_SENSOR's fields_updated with everything new: accelerometer, gyro, magnetometer, absolute and
differential pressure, pressure altitude, temperature."""
FIX_3D = 3
SEA_LEVEL_HPA = 1013.25
MAGNETIC_FIELD_NED_G = (0.2143, 0.0109, 0.4305)
"""The Earth's field at the default origin (Zurich: 0.481 G, inclination 63.5 deg, declination 2.9 deg),
north, east, down in gauss; `mavlink.sitl[].magnetic_field` sets it for other places."""


@dataclass(frozen=True)
class Kinematics:
    """The vehicle at one instant in the firmware's frames: NED position about the origin (m) and
    velocity (m/s), attitude (roll, pitch, yaw in NED, rad), body FRD rates (rad/s) and specific force
    (m/s^2)."""

    position: tuple[float, float, float]
    velocity: tuple[float, float, float]
    attitude: tuple[float, float, float]
    gyro: tuple[float, float, float]
    accel: tuple[float, float, float]

    @classmethod
    def of_row(cls, r: list[float]) -> Kinematics:
        """From a row of cosim.mavlink.sitl.frd_kernel (position, velocity, attitude, rates, specific force)."""
        return cls(tuple(r[0:3]), tuple(r[3:6]), tuple(r[6:9]), tuple(r[9:12]), tuple(r[12:15]))


def pressure_hpa(altitude_m: float) -> float:
    """The International Standard Atmosphere's static pressure at `altitude_m` above mean sea level."""
    return SEA_LEVEL_HPA * (1.0 - 2.25577e-5 * altitude_m) ** 5.25588


def hil_sensor(time_us: int, k: Kinematics, field_ned: tuple[float, float, float], home_alt_m: float) -> object:
    """One HIL_SENSOR (id 0, the IMU PX4 steps its clock by) at `time_us`."""
    roll, pitch, yaw = k.attitude
    mag = rotation_zyx(roll, pitch, yaw).T @ np.array(field_ned)
    alt = home_alt_m - k.position[2]
    return mav.MAVLink_hil_sensor_message(
        time_us, *k.accel, *k.gyro, float(mag[0]), float(mag[1]), float(mag[2]), pressure_hpa(alt), 0.0, alt,
        15.0 - 0.0065 * alt, SENSOR_FIELDS, 0)


NOISE_STD = {"xacc": 0.02, "yacc": 0.02, "zacc": 0.02, "xgyro": 0.002, "ygyro": 0.002, "zgyro": 0.002,
             "xmag": 0.0005, "ymag": 0.0005, "zmag": 0.0005, "abs_pressure": 0.005}
"""White noise on each HIL_SENSOR field (m/s^2, rad/s, gauss, hPa): PX4's sensor checks take a reading
that never changes for a failed sensor (its DataValidator's stale-data count), so noise-free sensors
are dropped after a second; these are of a consumer IMU's order."""


def noisy(sensor: object, rng: np.random.Generator) -> object:
    """`sensor` with NOISE_STD's white noise added (one draw per field, in NOISE_STD's order)."""
    draws = rng.standard_normal(len(NOISE_STD))
    for (name, std), d in zip(NOISE_STD.items(), draws):
        setattr(sensor, name, getattr(sensor, name) + std * float(d))
    return sensor


def hil_gps(time_us: int, lat: float, lon: float, alt_m: float, k: Kinematics) -> object:
    """One HIL_GPS: a 3D fix at (lat, lon, alt_m) moving as `k` says."""
    vn, ve, vd = k.velocity
    speed = math.hypot(vn, ve)
    cog = round(math.degrees(math.atan2(ve, vn)) % 360.0 * 100) if speed > 0.05 else 65535
    return mav.MAVLink_hil_gps_message(
        time_us, FIX_3D, round(lat * 1e7), round(lon * 1e7), round(alt_m * 1000), 30, 40, round(speed * 100),
        round(vn * 100), round(ve * 100), round(vd * 100), cog, 12, 0, 0)


def motor_thrusts(controls: list[float], armed: bool, max_thrust: float) -> list[float]:
    """Rotor thrusts (N, physics.bodies.quadrotor's order) from PX4's first four outputs (0..1, its quad
    X order: front right, back left, front left, back right, as ArduCopter's), none while disarmed."""
    out = [0.0] * 4
    if not armed:
        return out
    for motor, rotor in enumerate(QUAD_X_ROTORS):
        u = controls[motor]
        out[rotor] = min(max(u, 0.0), 1.0) * max_thrust if math.isfinite(u) else 0.0
    return out
