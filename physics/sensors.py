"""Sensors read from a world's state with configurable Gaussian noise and bias, from seeded streams."""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from physics.geodesy import GeoOrigin


@dataclass(frozen=True)
class RangeOptions:
    """Range/IR rays in the horizontal plane: `count` rays over `fov_deg` degrees centred on the
    heading (360: all around), up to `max_range` metres, with Gaussian noise and a bias in metres."""

    count: int = 8
    fov_deg: float = 360.0
    max_range: float = 5.0
    noise_std: float = 0.0
    bias: float = 0.0
    rate_hz: float = 0.0
    """0: cast at every read. Otherwise every robot's rays are cast together at each tick of a
    common `rate_hz` clock (one pybullet rayTestBatch for all of them) and each reading is held."""

    def __post_init__(self) -> None:
        if self.rate_hz < 0:
            raise ValueError(f"rate_hz must be >= 0, got {self.rate_hz}")
        if self.count < 1:
            raise ValueError(f"count must be >= 1, got {self.count}")
        if not 0.0 <= self.fov_deg <= 360.0:
            raise ValueError(f"fov_deg must be within [0, 360], got {self.fov_deg}")
        if self.max_range <= 0 or self.noise_std < 0:
            raise ValueError("max_range must be > 0 and noise_std >= 0")

    def angles(self) -> np.ndarray:
        """Ray angles relative to the heading, radians, counter-clockwise."""
        if self.fov_deg >= 360.0:
            return np.arange(self.count) * (2.0 * math.pi / self.count)
        if self.count == 1:
            return np.zeros(1)
        half = math.radians(self.fov_deg) / 2.0
        return np.linspace(-half, half, self.count)


class RangeSensor:
    """Distances (m) along rays from the robot's surface, clipped to [0, max_range]; needs a world
    with `cast_rays` (both built-in worlds have it)."""

    name = "range"
    Options = RangeOptions

    def __init__(self, world, index: int, options: RangeOptions, rng: np.random.Generator) -> None:
        self._world = world
        self._i = index
        self._opt = options
        self._rng = rng
        self._angles = options.angles()
        self._tick = -1
        self._held = np.zeros(0)
        if options.rate_hz:
            _batch_for(world, options.rate_hz, self)

    @property
    def angles(self) -> np.ndarray:
        """Ray angles relative to the heading, radians, counter-clockwise."""
        return self._angles

    def directions(self) -> np.ndarray:
        a = self._angles + float(self._world.active_heading[self._i])
        return np.column_stack([np.cos(a), np.sin(a), np.zeros_like(a)])

    def read(self) -> np.ndarray:
        rate = self._opt.rate_hz
        if rate:
            tick = math.floor(self._world.t_s * rate + 1e-9)
            if tick == self._tick:
                return self._held
            raw = _batch_for(self._world, rate, self).distances(self, tick)
        else:
            raw = self._world.cast_rays(self._i, self.directions(), self._opt.max_range)
        d = raw + self._opt.bias
        if self._opt.noise_std > 0:
            d = d + self._opt.noise_std * self._rng.standard_normal(len(d))
        d = np.clip(d, 0.0, self._opt.max_range)
        if rate:
            self._tick, self._held = tick, d
        return d


class _RayBatch:
    """All range sensors of one world sharing one rate: cast together once per tick of that rate."""

    def __init__(self, world) -> None:
        self.world = world
        self.sensors: list[RangeSensor] = []
        self.tick = -1
        self.results: dict[int, np.ndarray] = {}

    def distances(self, sensor: RangeSensor, tick: int) -> np.ndarray:
        if tick != self.tick:
            requests = [(s._i, s.directions(), s._opt.max_range) for s in self.sensors]
            out = self.world.cast_rays_many(requests)
            self.results = {id(s): o for s, o in zip(self.sensors, out)}
            self.tick = tick
        return self.results[id(sensor)]


_BATCHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # world -> {rate: _RayBatch}


def _batch_for(world, rate: float, sensor: RangeSensor) -> _RayBatch:
    batches = _BATCHES.setdefault(world, {})
    batch = batches.get(rate)
    if batch is None:
        batch = batches[rate] = _RayBatch(world)
    if id(sensor) not in {id(s) for s in batch.sensors}:
        batch.sensors.append(sensor)
    return batch


def read_many(sensors: Sequence) -> np.ndarray:
    """Several robots' sensors of one kind, read as each one's `read()` would, stacked: in arrays when
    they are all of one sample-and-hold class, else one by one."""
    if not sensors:
        return np.array([])
    cls = type(sensors[0])
    if issubclass(cls, _Sampled) and all(type(s) is cls for s in sensors):
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
    bias: float = 0.0
    rate_hz: float = 0.0

    def __post_init__(self) -> None:
        if self.noise_std < 0 or self.rate_hz < 0:
            raise ValueError(f"noise_std must be >= 0 radians and rate_hz >= 0, got {self.noise_std}, {self.rate_hz}")


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
    bias: float = 0.0
    rate_hz: float = 0.0

    def __post_init__(self) -> None:
        if self.noise_std < 0 or self.rate_hz < 0:
            raise ValueError("noise_std and rate_hz must be >= 0")


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
    bias: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rate_hz: float = 0.0
    origin: tuple[float, float, float] = (47.3977, 8.5456, 488.0)

    def __post_init__(self) -> None:
        if self.noise_std < 0 or self.rate_hz < 0:
            raise ValueError("noise_std and rate_hz must be >= 0")


class Gps(_Sampled):
    """Local position (m, arena frame: x east, y north, z up) with noise; `geodetic()` converts the
    same fix to latitude, longitude (degrees) and altitude (m) about the origin (a local tangent
    plane, accurate to centimetres over a few kilometres)."""

    name = "gps"
    Options = GpsOptions

    def _measure(self) -> np.ndarray:
        return self._noisy(self._world.position_of(self._i), self._opt.noise_std, self._opt.bias)

    def geodetic(self) -> tuple[float, float, float]:
        return GeoOrigin(*self._opt.origin).to_geodetic(*(float(v) for v in self.read()))


@dataclass(frozen=True)
class ImuOptions:
    """Accelerometer (m/s^2) and gyroscope (rad/s): noise standard deviations, constant biases (x y z
    in the body frame), and `rate_hz` (0: every read)."""

    accel_noise_std: float = 0.0
    accel_bias: tuple[float, float, float] = (0.0, 0.0, 0.0)
    gyro_noise_std: float = 0.0
    gyro_bias: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rate_hz: float = 0.0

    def __post_init__(self) -> None:
        if min(self.accel_noise_std, self.gyro_noise_std, self.rate_hz) < 0:
            raise ValueError("noise standard deviations and rate_hz must be >= 0")


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
        w, i, o = self._world, self._i, self._opt
        roll, pitch, yaw = w.attitude_of(i)
        cr, sr, cp, sp, cy, sy = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch), math.cos(yaw), math.sin(yaw)
        rot = np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                        [-sp, cp * sr, cp * cr]])
        specific = rot.T @ (w.acceleration_of(i) + np.array([0.0, 0.0, 9.81]))
        return (self._noisy(specific, o.accel_noise_std, o.accel_bias),
                self._noisy(w.body_rates_of(i), o.gyro_noise_std, o.gyro_bias))


@dataclass(frozen=True)
class BumpOptions:
    """Contact switch: `false_positive_p` and `false_negative_p` per reading make it wrong sometimes."""

    false_positive_p: float = 0.0
    false_negative_p: float = 0.0

    def __post_init__(self) -> None:
        if not (0 <= self.false_positive_p <= 1 and 0 <= self.false_negative_p <= 1):
            raise ValueError("false_positive_p and false_negative_p must be within [0, 1]")


class Bump:
    """True if the robot touched anything (robot, obstacle, wall, ground) during the last physics step."""

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
