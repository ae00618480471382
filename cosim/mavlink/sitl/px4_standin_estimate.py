"""What the PX4 stand-in knows of itself from its sensors alone, when it flies the served PX4 autopilot
(cosim.mavlink.sitl.px4_standin): its attitude integrated from the gyro, the heading it starts with
read off the magnetometer; its velocity and position taken from each GPS fix and carried forward by
the accelerometer between fixes. It is a dead reckoning of our own, not PX4's EKF."""

from __future__ import annotations

import math

import numpy as np

from cosim.mavlink.sitl.json_wire import State
from physics.bodies.attitude import rotation_zyx
from physics.geodesy import GeoOrigin

G = 9.81


class DeadReckoning:
    """Positions are NED about `home`; `field_ned` is the Earth's magnetic field there (gauss)."""

    def __init__(self, home: GeoOrigin, field_ned: tuple[float, float, float]) -> None:
        self.home = home
        self.declination = math.atan2(field_ned[1], field_ned[0])
        self.attitude: np.ndarray | None = None
        self.position = np.zeros(3)
        self.velocity = np.zeros(3)
        self.fixes = 0
        self._last_us: int | None = None

    def gps(self, fix) -> None:
        """A HIL_GPS: its position and velocity replace what was carried forward."""
        east, north, up = self.home.from_geodetic(fix.lat / 1e7, fix.lon / 1e7, fix.alt / 1000.0)
        self.position = np.array([north, east, -up])
        self.velocity = np.array([fix.vn, fix.ve, fix.vd]) / 100.0
        self.fixes += 1

    def sensor(self, s) -> State:
        """A HIL_SENSOR: the state it implies, as the JSON interface would have answered it."""
        gyro = (s.xgyro, s.ygyro, s.zgyro)
        accel = (s.xacc, s.yacc, s.zacc)
        if self.attitude is None:
            self.attitude = np.array([0.0, 0.0, self.declination - math.atan2(s.ymag, s.xmag)])
        dt = 0.0 if self._last_us is None else (s.time_usec - self._last_us) / 1e6
        self._last_us = s.time_usec
        self._turn(gyro, dt)
        roll, pitch, yaw = self.attitude
        a = rotation_zyx(roll, pitch, yaw) @ np.array(accel) + (0.0, 0.0, G)
        self.velocity = self.velocity + a * dt
        self.position = self.position + self.velocity * dt
        return State(s.time_usec / 1e6, gyro, accel, tuple(self.position), tuple(self.velocity), tuple(self.attitude))

    def _turn(self, gyro: tuple[float, float, float], dt: float) -> None:
        """The Euler angles one gyro sample on (body rates to angle rates)."""
        p, q, r = gyro
        roll, pitch, yaw = self.attitude
        cr = math.cos(roll)
        sr = math.sin(roll)
        along = q * sr + r * cr
        roll += (p + along * math.tan(pitch)) * dt
        pitch += (q * cr - r * sr) * dt
        yaw = math.remainder(yaw + along / math.cos(pitch) * dt, 2.0 * math.pi)
        self.attitude = np.array([roll, pitch, yaw])
