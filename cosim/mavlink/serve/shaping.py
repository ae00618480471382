"""The path an autopilot asks its copter to fly: a reference position, velocity and acceleration
moved on at every poll within speed, acceleration and jerk limits, as the autopilots' position
controllers shape a target before the vehicle chases it.

Each axis group (horizontal, vertical) is told a point or a velocity. Toward a point the wanted
speed follows a square-root law of the distance left (braking at half the acceleration limit, a
proportional law near the point), capped at the speed limit; the acceleration toward the wanted
speed follows the same law one order up, capped at the acceleration limit; the acceleration itself
changes at most at the jerk limit. The result is a smooth S-shaped speed profile: ArduCopter's
climb, leg and stop times come out of it with its own parameters (tests/data/ardupilot).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Limits:
    """What a shaped path may do (m/s, m/s/s, m/s/s/s): horizontal speed, climb and sink speed,
    horizontal and vertical acceleration, horizontal and vertical jerk."""

    speed: float
    climb: float
    sink: float
    accel: float
    accel_z: float
    jerk: float
    jerk_z: float

    @classmethod
    def speed_only(cls, speed: float) -> Limits:
        """A rover's leg: only the speed is read (the rest is NaN, refused by a copter's path)."""
        return cls(speed, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)

    def problem(self) -> str | None:
        for name, value in vars(self).items():
            if not (math.isfinite(value) and value > 0.0):
                return f"{name} is a positive number, got {value!r}"
        return None


def _root_law(error: float, gain: float, limit: float) -> float:
    """The correcting rate for `error`: `gain * error` near zero, and beyond the point where that
    would ask for more than `limit` of the next order, the rate from which `limit` stops it."""
    linear = limit / (gain * gain)
    size = abs(error)
    if size <= linear:
        rate = gain * size
    else:
        rate = math.sqrt(2.0 * limit * (size - 0.5 * linear))
    return math.copysign(rate, error)


class Axis:
    """One shaped axis group of `dims` dimensions (2: north-east as a vector; 1: up)."""

    def __init__(self, dims: int) -> None:
        self.pos = np.zeros(dims)
        self.vel = np.zeros(dims)
        self.acc = np.zeros(dims)
        self.point: np.ndarray | None = None
        self.velocity = np.zeros(dims)

    def reset(self, pos, vel=None) -> None:
        """Start from where the vehicle is (and moves), with no acceleration."""
        self.pos[:] = pos
        self.vel[:] = 0.0 if vel is None else vel
        self.acc[:] = 0.0
        self.point = None
        self.velocity = self.vel.copy()

    def to_point(self, point) -> None:
        self.point = np.array(point, dtype=float)

    def to_velocity(self, velocity) -> None:
        """A velocity to reach and keep; it is not capped by the speed limits (a setpoint's own bounds apply)."""
        self.point = None
        self.velocity = np.array(velocity, dtype=float)

    def step(self, dt: float, up_max: float, down_max: float, accel: float, jerk: float) -> None:
        """Move on by `dt` s with speed limits `up_max` along + and `down_max` along - (equal for a vector)."""
        if self.point is not None:
            want = self._toward(self.point - self.pos, 0.5 * jerk / accel, 0.5 * accel, dt)
            want = self._cap_speed(want, up_max, down_max)
        else:
            want = self.velocity.copy()
        push = self._toward(want - self.vel, jerk / accel, jerk, dt)
        size = float(np.linalg.norm(push))
        if size > accel:
            push *= accel / size
        change = push - self.acc
        size = float(np.linalg.norm(change))
        if size > jerk * dt:
            change *= jerk * dt / size
        self.acc += change
        self.pos += self.vel * dt + 0.5 * self.acc * dt * dt
        self.vel += self.acc * dt

    @staticmethod
    def _toward(error: np.ndarray, gain: float, limit: float, dt: float) -> np.ndarray:
        """The correcting rate for `error`, never more than closes it within one step of `dt`
        (which keeps a stiff law, a high jerk, from overshooting between steps)."""
        size = float(np.linalg.norm(error))
        if size <= 0.0:
            return np.zeros_like(error)
        return error * (min(abs(_root_law(size, gain, limit)), size / dt) / size)

    def _cap_speed(self, want: np.ndarray, up_max: float, down_max: float) -> np.ndarray:
        if len(want) == 1:
            return np.clip(want, -down_max, up_max)
        size = float(np.linalg.norm(want))
        return want * (up_max / size) if size > up_max else want


class ShapedPath:
    """The reference a copter chases: a horizontal and a vertical shaped axis in the arena's ENU
    frame (x east, y north, z up), under `limits` (changed at any time by `set_limits`)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.horizontal = Axis(2)
        self.vertical = Axis(1)
        self.leg: Limits | None = None  # a leg's own limits (a mission's, a return's, a take-off's)

    def within(self, leg: Limits | None) -> None:
        """Fly on within `leg` (None: the vehicle's limits), whatever the axes are told next."""
        self.leg = leg

    def set_limits(self, limits: Limits) -> None:
        problem = limits.problem()
        if problem is not None:
            raise ValueError(f"shaping limits: {problem}")
        self.limits = limits

    def reset(self, position, velocity=(0.0, 0.0, 0.0)) -> None:
        self.horizontal.reset(position[:2], velocity[:2])
        self.vertical.reset(position[2:3], velocity[2:3])

    def to_point(self, x: float, y: float, z: float, leg: Limits | None = None) -> None:
        """Fly to a point, within `leg` if given (a mission's, a return's or a take-off's limits)
        rather than the vehicle's."""
        self.horizontal.to_point((x, y))
        self.vertical.to_point((z,))
        self.leg = leg

    def to_velocity(self, ve: float, vn: float, vu: float) -> None:
        self.horizontal.to_velocity((ve, vn))
        self.vertical.to_velocity((vu,))
        self.leg = None

    @property
    def active_limits(self) -> Limits:
        """The limits the path flies within now: the leg's, or the vehicle's."""
        return self.limits if self.leg is None else self.leg

    def step(self, dt: float) -> None:
        if dt <= 0.0:
            return
        lim = self.active_limits
        self.horizontal.step(dt, lim.speed, lim.speed, lim.accel, lim.jerk)
        self.vertical.step(dt, lim.climb, lim.sink, lim.accel_z, lim.jerk_z)

    @property
    def position(self) -> tuple[float, float, float]:
        return float(self.horizontal.pos[0]), float(self.horizontal.pos[1]), float(self.vertical.pos[0])

    @property
    def velocity(self) -> tuple[float, float, float]:
        return float(self.horizontal.vel[0]), float(self.horizontal.vel[1]), float(self.vertical.vel[0])

    @property
    def acceleration(self) -> tuple[float, float, float]:
        return float(self.horizontal.acc[0]), float(self.horizontal.acc[1]), float(self.vertical.acc[0])
