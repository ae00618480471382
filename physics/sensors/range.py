"""Range (infrared-like) sensors: rays around a robot, cast by the world it lives in."""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

import numpy as np

from physics.bodies.attitude import rotation_zyx
from physics.sensors.rates import check_rate_hz

MAX_RAYS = 10_000
"""The most rays one range sensor may cast (a 3D lidar has a few thousand per sweep)."""


@dataclass(frozen=True)
class RangeOptions:
    """Range/IR rays in the horizontal plane: `count` rays over `fov_deg` degrees centred on the
    heading (360: all around), up to `max_range` metres, with Gaussian noise and a bias in metres."""

    count: int = 8
    """How many rays."""
    fov_deg: float = 360.0
    """The angle the rays spread over, centred on the heading (degrees; 360: all around)."""
    max_range: float = 5.0
    """The farthest a ray reports (m); beyond, it reads this."""
    noise_std: float = 0.0
    """Gaussian noise on each reading (m)."""
    bias: float = 0.0
    """A constant offset on each reading (m)."""
    rate_hz: float = 0.0
    """0: cast at every read. Otherwise every robot's rays are cast together at each tick of a
    common `rate_hz` clock (one pybullet rayTestBatch for all of them) and each reading is held."""
    mount: tuple[float, float, float] | None = None
    """Where the rays start in the body frame (x forward, y left, z up; m), turning and tilting with
    the body; distances are from there. None: from the robot's surface around its centre, level."""
    mount_yaw_deg: float = 0.0
    """The fan's centre relative to the body's forward axis (degrees, counter-clockwise)."""

    def __post_init__(self) -> None:
        check_rate_hz(self.rate_hz)
        if not 1 <= self.count <= MAX_RAYS:
            raise ValueError(f"count must be between 1 and {MAX_RAYS:,} rays, got {self.count:,}")
        if not 0.0 <= self.fov_deg <= 360.0:
            raise ValueError(f"fov_deg must be within [0, 360], got {self.fov_deg}")
        if not 0 < self.max_range <= 1e6 or self.noise_std < 0:
            raise ValueError(f"max_range must be > 0 and at most 1e6 m, and noise_std >= 0; got {self.max_range:g} and "
                             f"{self.noise_std:g}")

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
        self._angles = np.ascontiguousarray(options.angles(), dtype=np.float64)
        self._yaw = math.radians(options.mount_yaw_deg)
        self._tick = -1
        self._held = np.zeros(0)
        self._batch = _batch_for(world, options.rate_hz, self) if options.rate_hz else None

    @property
    def angles(self) -> np.ndarray:
        """Ray angles relative to the heading, radians, counter-clockwise."""
        return self._angles

    def directions(self) -> np.ndarray:
        a = self._angles + (float(self._world.active_heading[self._i]) + self._yaw)
        return np.column_stack([np.cos(a), np.sin(a), np.zeros_like(a)])

    def mounted_rays(self) -> tuple[np.ndarray, np.ndarray]:
        """(origin, directions) in the world frame of a mounted sensor: the body's pose (position
        and full attitude) carries the mount point and the fan."""
        rot = rotation_zyx(*self._world.attitude_of(self._i))
        a = self._angles + math.radians(self._opt.mount_yaw_deg)
        body = np.column_stack([np.cos(a), np.sin(a), np.zeros_like(a)])
        return self._world.position_of(self._i) + rot @ np.asarray(self._opt.mount), body @ rot.T

    def read(self) -> np.ndarray:
        opt = self._opt
        if self._batch is not None:
            tick = math.floor(self._world.t_s * opt.rate_hz + 1e-9)
            if tick == self._tick:
                return self._held
            raw = self._batch.distances(self, tick)
        elif opt.mount is not None:
            raw = self._world.cast_rays_from_many([(self._i, *self.mounted_rays(), opt.max_range)])[0]
        else:  # cast now, in one call (a new array)
            turn = float(self._world.active_heading[self._i]) + self._yaw
            return _finish(self._world.cast_fan(self._i, self._angles, turn, opt.max_range), opt, [self._rng])
        d = _finish(raw.copy(), opt, [self._rng])
        if self._batch is not None:
            self._tick = tick
            self._held = d
        return d

    @classmethod
    def read_many(cls, sensors: list[RangeSensor]) -> np.ndarray:
        """Several robots' readings, stacked, each what its own read() gives (its noise from its own
        stream): with the arithmetic in arrays when they share one options object and one batch."""
        first = sensors[0]
        opt = first._opt
        batch = first._batch
        if batch is None and opt.mount is None and all(s._batch is None and s._opt is opt for s in sensors):
            raw = _fans_of(first._world, sensors).cast(first._world).reshape(len(sensors), -1)
            return _finish(raw, opt, [s._rng for s in sensors])
        if batch is None or any(s._batch is not batch or s._opt is not opt for s in sensors):
            return np.array([s.read() for s in sensors])
        tick = math.floor(first._world.t_s * opt.rate_hz + 1e-9)
        due = [s for s in sensors if s._tick != tick]
        if due:
            d = _finish(batch.stacked(due, tick), opt, [s._rng for s in due])
            for s, row in zip(due, d):
                s._tick = tick
                s._held = row
            if len(due) == len(sensors):
                return d.copy()
        return np.array([s._held for s in sensors])


def _finish(d: np.ndarray, opt: RangeOptions, rngs: list[np.random.Generator]) -> np.ndarray:
    """True distances (one row per stream in `rngs`, or one reading) to readings, in place: the
    bias, each row's noise from its own stream, then clipped to [0, max_range] (np.clip's result,
    with less overhead)."""
    if opt.bias:
        d += opt.bias
    if opt.noise_std > 0:
        width = d.shape[-1]
        noise = rngs[0].standard_normal(width) if d.ndim == 1 else np.array([r.standard_normal(width) for r in rngs])
        d += opt.noise_std * noise
    return np.minimum(np.maximum(d, 0.0, out=d), opt.max_range, out=d)


class _RayBatch:
    """All range sensors of one world sharing one rate: cast together once per tick of that rate."""

    def __init__(self, world) -> None:
        self.world = world
        self.sensors: list[RangeSensor] = []
        self._members: set[int] = set()
        self.tick = -1
        self.results: dict[int, np.ndarray] = {}
        self.matrix: np.ndarray | None = None  # the level sensors' rays, a row each, when they have as many rays
        self.rows: dict[int, int] = {}  # each level sensor's row of `matrix`
        self._fans: _Fans | None = None

    def join(self, sensor: RangeSensor) -> None:
        if id(sensor) not in self._members:
            self._members.add(id(sensor))
            self.sensors.append(sensor)
            self._fans = None

    def distances(self, sensor: RangeSensor, tick: int) -> np.ndarray:
        self._refresh(tick)
        return self.results[id(sensor)]

    def stacked(self, sensors: list[RangeSensor], tick: int) -> np.ndarray:
        """The rays of several sensors of this batch, one row each (a new array)."""
        self._refresh(tick)
        if self.matrix is not None and all(id(s) in self.rows for s in sensors):
            return self.matrix[[self.rows[id(s)] for s in sensors]]
        return np.array([self.results[id(s)] for s in sensors])

    def _refresh(self, tick: int) -> None:
        """Cast every sensor's rays of this tick, once."""
        if tick == self.tick:
            return
        if self._fans is None:
            self._fans = _Fans([s for s in self.sensors if s._opt.mount is None])
            counts = {len(s.angles) for s in self._fans.sensors}
            self.rows = {id(s): k for k, s in enumerate(self._fans.sensors)} if len(counts) == 1 else {}
        fans = self._fans
        mounted = [s for s in self.sensors if s._opt.mount is not None]
        flat = fans.cast(self.world) if fans.sensors else np.zeros(0)
        self.matrix = flat.reshape(len(fans.sensors), -1) if self.rows else None
        out = [flat[a:b] for a, b in fans.spans]
        out += self.world.cast_rays_from_many([(s._i, *s.mounted_rays(), s._opt.max_range) for s in mounted])
        self.results = {id(s): o for s, o in zip(fans.sensors + mounted, out)}
        self.tick = tick


class _Fans:
    """The level (unmounted) sensors of a batch, their rays' directions computed in one go:
    the same arithmetic as `RangeSensor.directions`, for all of them at once."""

    def __init__(self, sensors: list[RangeSensor]) -> None:
        self.sensors = sensors
        self._robots = np.array([s._i for s in sensors], dtype=np.int64)
        self._yaw = np.array([math.radians(s._opt.mount_yaw_deg) for s in sensors], dtype=np.float64)
        self._counts = np.array([len(s.angles) for s in sensors], dtype=np.int64)
        self._angles = np.concatenate([s.angles for s in sensors]) if sensors else np.zeros(0)
        self._reach = np.array([s._opt.max_range for s in sensors], dtype=np.float64)
        ends = np.cumsum(self._counts).tolist()
        self.spans = list(zip([0, *ends[:-1]], ends))  # each sensor's rows of the stacked rays

    def cast(self, world) -> np.ndarray:
        """Every sensor's rays now, in one call to the world (a new array, stacked as `stacked`)."""
        return world.cast_fans(*self.stacked(world.active_heading))

    def stacked(self, headings: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(robots, directions, ray counts, max ranges) for the robots' headings now: sensor k's
        counts[k] rays are the next rows of directions (World.cast_fans)."""
        a = self._angles + np.repeat(headings[self._robots] + self._yaw, self._counts)
        dirs = np.empty((len(a), 3))
        dirs[:, 0] = np.cos(a)
        dirs[:, 1] = np.sin(a)
        dirs[:, 2] = 0.0
        return self._robots, dirs, self._counts, self._reach


_BATCHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # world -> {rate: _RayBatch}
_FANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # world -> {sensors' ids: _Fans}, rate-0 level sensors
_FANS_KEPT = 64
"""The most sets of rate-0 sensors read together whose rays' layout a world keeps (a group each)."""


def _fans_of(world, sensors: list[RangeSensor]) -> _Fans:
    """The rays' layout of these rate-0 level sensors read together (a group's, at one instant),
    built once per set and cast fresh in one call at each read."""
    known = _FANS.setdefault(world, {})
    key = tuple(map(id, sensors))
    fans = known.get(key)
    if fans is None:
        if len(known) >= _FANS_KEPT:  # reads of ever new subsets: start again rather than grow
            known.clear()
        fans = known[key] = _Fans(sensors)
    return fans


def _batch_for(world, rate: float, sensor: RangeSensor) -> _RayBatch:
    batches = _BATCHES.setdefault(world, {})
    batch = batches.get(rate)
    if batch is None:
        batch = batches[rate] = _RayBatch(world)
    batch.join(sensor)
    return batch
