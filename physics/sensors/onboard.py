"""Sensors read from a world's state with configurable Gaussian noise and bias, from seeded streams."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from physics.bodies.attitude import rotation_zyx
from physics.geodesy import GeoOrigin
from physics.sensors.range import RangeOptions as RangeOptions
from physics.sensors.range import RangeSensor
from physics.sensors.rates import check_rate_hz


def read_many(sensors: Sequence) -> np.ndarray:
    """Several robots' sensors of one kind, read as each one's `read()` would, stacked: in arrays when
    they are all of one sample-and-hold class, else one by one."""
    if not sensors:
        return np.array([])
    cls = type(sensors[0])
    if issubclass(cls, (_Sampled, RangeSensor)) and all(type(s) is cls for s in sensors):
        return cls.read_many(sensors)
    return np.array([s.read() for s in sensors])


class _Sampled:
    """Sample and hold at `rate_hz` (0: a fresh reading at every call), by the world's clock."""

    def __init__(self, world, index: int, options, rng: np.random.Generator) -> None:
        self._world = world
        self._i = index
        self._opt = options
        self._rng = rng
        self._next_t = -1.0
        self._held = None

    def read(self):
        rate = self._opt.rate_hz
        t = self._world.t_s
        if rate and self._held is not None and t < self._next_t - 1e-12:
            return self._held
        self._held = self._measure()
        if rate:
            self._next_t = t + 1.0 / rate
        return self._held

    @classmethod
    def read_many(cls, sensors: Sequence[_Sampled]) -> np.ndarray:
        """Several robots' sensors of this class, read as each one's `read()` would, stacked."""
        t = sensors[0]._world.t_s
        due = [s for s in sensors if not (s._opt.rate_hz and s._held is not None and t < s._next_t - 1e-12)]
        if due:
            for s, value in zip(due, cls._measure_many(due)):
                s._held = value
                if s._opt.rate_hz:
                    s._next_t = t + 1.0 / s._opt.rate_hz
        return np.array([s._held for s in sensors])

    @classmethod
    def _measure_many(cls, sensors: list[_Sampled]) -> list:
        return [s._measure() for s in sensors]

    def _noisy(self, value: np.ndarray, std: float, bias) -> np.ndarray:
        out = value + np.asarray(bias, dtype=float)
        if std > 0:
            out = out + std * self._rng.standard_normal(len(out))
        return out


@dataclass(frozen=True)
class CompassOptions:
    """Heading sensor: noise standard deviation and constant bias (radians), `rate_hz` (0: every read)."""

    noise_std: float = 0.0
    """Gaussian noise on the heading (rad)."""
    bias: float = 0.0
    """A constant offset (rad)."""
    rate_hz: float = 0.0
    """Readings per second; between them the last is returned (0: a new one at every read)."""

    def __post_init__(self) -> None:
        if self.noise_std < 0:
            raise ValueError(f"noise_std must be >= 0 radians, got {self.noise_std}")
        check_rate_hz(self.rate_hz)


class Compass(_Sampled):
    """Reads the robot's heading, wrapped to (-pi, pi], plus N(bias, noise_std^2)."""

    name = "compass"
    Options = CompassOptions

    def _measure(self) -> float:
        h = float(self._world.active_heading[self._i]) + self._opt.bias
        if self._opt.noise_std > 0:
            h += self._opt.noise_std * float(self._rng.standard_normal())
        return math.remainder(h, 2.0 * math.pi)

    @classmethod
    def _measure_many(cls, sensors: list[Compass]) -> list:
        """`_measure` of each, with the arithmetic in arrays (each noise draw from its own stream)."""
        idx = np.fromiter((s._i for s in sensors), dtype=np.int64, count=len(sensors))
        h = sensors[0]._world.active_heading[idx] + np.array([s._opt.bias for s in sensors])
        noisy = [k for k, s in enumerate(sensors) if s._opt.noise_std > 0]
        if noisy:
            std = np.array([sensors[k]._opt.noise_std for k in noisy])
            h[noisy] += std * np.array([float(sensors[k]._rng.standard_normal()) for k in noisy])
        return list(map(math.remainder, h.tolist(), itertools.repeat(2.0 * math.pi)))


@dataclass(frozen=True)
class BatteryOptions:
    """Battery gauge: the charge as a fraction of capacity (0..1), with Gaussian noise and a bias
    (fractions), `rate_hz` (0: every read)."""

    noise_std: float = 0.0
    """Gaussian noise on the charge (a fraction of capacity)."""
    bias: float = 0.0
    """A constant offset (a fraction)."""
    rate_hz: float = 0.0
    """Readings per second (0: a new one at every read)."""

    def __post_init__(self) -> None:
        if self.noise_std < 0:
            raise ValueError(f"noise_std must be >= 0, got {self.noise_std}")
        check_rate_hz(self.rate_hz)


class BatteryGauge(_Sampled):
    """Charge left as a fraction of capacity, clipped to [0, 1]; 1.0 for a robot without a battery."""

    name = "battery"
    Options = BatteryOptions

    def _measure(self) -> float:
        b = self._world.batteries
        if b is None or not b.has[self._i]:
            return 1.0
        level = float(b.energy_j[self._i] / b.capacity_j[self._i]) + self._opt.bias
        if self._opt.noise_std > 0:
            level += self._opt.noise_std * float(self._rng.standard_normal())
        return min(1.0, max(0.0, level))


@dataclass(frozen=True)
class GpsOptions:
    """Position fix: Gaussian noise (m, per axis), a constant bias (m, x y z), `rate_hz` fixes per
    second (0: every read), and the geodetic origin of the arena (latitude, longitude in degrees,
    altitude in metres) for `geodetic()`."""

    noise_std: float = 0.0
    """Gaussian noise on each axis (m)."""
    bias: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """A constant offset (m, x y z)."""
    rate_hz: float = 0.0
    """Fixes per second; between them the last is returned (0: a new one at every read)."""
    origin: tuple[float, float, float] = (47.3977, 8.5456, 488.0)
    """The arena origin's latitude, longitude (degrees) and altitude (m) for geodetic()."""
    mount: tuple[float, float, float] | None = None
    """The antenna in the body frame (x forward, y left, z up; m), carried by the body's attitude;
    None: the robot's own position."""

    def __post_init__(self) -> None:
        if self.noise_std < 0:
            raise ValueError(f"noise_std must be >= 0, got {self.noise_std}")
        check_rate_hz(self.rate_hz)


class Gps(_Sampled):
    """Local position (m, arena frame: x east, y north, z up) with noise; `geodetic()` converts the
    same fix to latitude, longitude (degrees) and altitude (m) about the origin (a local tangent
    plane, accurate to centimetres over a few kilometres)."""

    name = "gps"
    Options = GpsOptions

    def _measure(self) -> np.ndarray:
        here = self._world.position_of(self._i)
        if self._opt.mount is not None:
            here = here + rotation_zyx(*self._world.attitude_of(self._i)) @ np.asarray(self._opt.mount)
        return self._noisy(here, self._opt.noise_std, self._opt.bias)

    def geodetic(self) -> tuple[float, float, float]:
        return GeoOrigin(*self._opt.origin).to_geodetic(*(float(v) for v in self.read()))


@dataclass(frozen=True)
class ImuOptions:
    """Accelerometer (m/s^2) and gyroscope (rad/s): noise standard deviations, constant biases (x y z
    in the body frame), `rate_hz` (0: every read), and `mount`: where the IMU sits on the body
    (x forward, y left, z up from the centre of mass, m; None: at it). Off centre, the accelerometer
    also reads the lever arm's tangential and centripetal accelerations, as a real one does."""

    accel_noise_std: float = 0.0
    """Gaussian noise on the accelerometer (m/s²)."""
    accel_bias: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """The accelerometer's constant offset (m/s², body frame x y z)."""
    gyro_noise_std: float = 0.0
    """Gaussian noise on the gyroscope (rad/s)."""
    gyro_bias: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """The gyroscope's constant offset (rad/s, body frame x y z)."""
    rate_hz: float = 0.0
    """Readings per second (0: a new one at every read)."""
    mount: tuple[float, float, float] | None = None
    """Where the IMU sits on the body (m, x forward, y left, z up from the centre of mass; null: at it)."""

    def __post_init__(self) -> None:
        if min(self.accel_noise_std, self.gyro_noise_std) < 0:
            raise ValueError("noise standard deviations must be >= 0")
        check_rate_hz(self.rate_hz)
        if self.mount is not None and max(abs(v) for v in self.mount) > 10.0:
            raise ValueError(f"mount is within 10 m of the centre of mass (body frame, m), got {list(self.mount)}")


class Imu(_Sampled):
    """`read()` gives (accelerometer, gyroscope), each (3,) in the body frame. The accelerometer
    measures specific force: the body's acceleration minus gravity, so a vehicle at rest reads +g
    on its z axis. Both worlds keep the previous step's motion for it (want_motion)."""

    name = "imu"
    Options = ImuOptions

    def __init__(self, world, index: int, options, rng: np.random.Generator) -> None:
        super().__init__(world, index, options, rng)
        world.want_motion()

    def _measure(self) -> tuple[np.ndarray, np.ndarray]:
        w = self._world
        i = self._i
        o = self._opt
        rot = rotation_zyx(*w.attitude_of(i))
        specific = rot.T @ (w.acceleration_of(i) + np.array([0.0, 0.0, 9.81]))
        rates = w.body_rates_of(i)
        if o.mount is not None:  # lever arm: tangential and centripetal acceleration of the mount point
            r = np.asarray(o.mount, dtype=float)
            specific = specific + np.cross(w.angular_acceleration_of(i), r) + np.cross(rates, np.cross(rates, r))
        return (self._noisy(specific, o.accel_noise_std, o.accel_bias),
                self._noisy(rates, o.gyro_noise_std, o.gyro_bias))


@dataclass(frozen=True)
class BumpOptions:
    """Contact switch: `false_positive_p` and `false_negative_p` per reading make it wrong sometimes."""

    false_positive_p: float = 0.0
    """The chance a reading says contact when there is none."""
    false_negative_p: float = 0.0
    """The chance a reading misses a contact."""

    def __post_init__(self) -> None:
        if not (0 <= self.false_positive_p <= 1 and 0 <= self.false_negative_p <= 1):
            raise ValueError("false_positive_p and false_negative_p must be within [0, 1]")


class Bump:
    """True if the robot touched anything (robot, obstacle, wall, prop) during the last physics step;
    the ground it stands on is no contact."""

    name = "bump"
    Options = BumpOptions

    def __init__(self, world, index: int, options: BumpOptions, rng: np.random.Generator) -> None:
        self._world = world
        self._i = index
        self._opt = options
        self._rng = rng
        world.want_contacts()

    def read(self) -> bool:
        touched = any(a == self._i for a, _ in self._world.contacts())
        o = self._opt
        if touched and o.false_negative_p and self._rng.random() < o.false_negative_p:
            return False
        if not touched and o.false_positive_p and self._rng.random() < o.false_positive_p:
            return True
        return touched


SENSORS: dict[str, type] = {"compass": Compass, "range": RangeSensor, "gps": Gps, "imu": Imu, "bump": Bump,
                            "battery": BatteryGauge}
