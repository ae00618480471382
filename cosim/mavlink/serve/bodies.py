"""The simulated bodies a MAVLink vehicle endpoint can serve: a quadrotor of a QuadrotorBank, or a
differential-drive rover of a DiffDriveBank, standalone or inside a running scenario's world.

A body turns an autopilot's requests (go to a point, fly a velocity, hold, descend, motors on or
off) into its model's commands. Positions are ENU metres in the arena frame; headings are radians
counter-clockwise from east.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.serve.shaping import Limits, ShapedPath
from physics.bodies.diff_drive import DiffDriveBank
from physics.bodies.quadrotor import Mode, QuadrotorBank

Health = Callable[[], bool]
PreArm = Callable[[], "str | None"]  # why the vehicle's own sensors refuse to arm now, in its autopilot's words
QuadCommand = Callable[[Mode, float, float, float, float], None]  # mode, a, b, c, d (see QuadrotorBank.command)
DriveCommand = Callable[[float, float], None]  # forward speed (m/s), turn rate (rad/s)

GUIDED_DEFAULT = Limits(speed=10.0, climb=2.5, sink=1.5, accel=2.5, accel_z=1.0, jerk=5.0, jerk_z=5.0)
"""Until the autopilot's parameters say otherwise: ArduCopter's defaults."""
CHASE_GAIN = (1.0, 1.0, 1.0)
"""The copter's velocity command per metre it lags its path (1/s; east, north, up), as the
autopilots' position loops (PSC_POSXY_P, PSC_POSZ_P) add to the path's velocity."""


@dataclass(frozen=True)
class Descent:
    """How a land mode sinks (m/s): `high` down to `ramp_alt` m above `ground`, then slowing
    linearly to `low` at `low_alt` (PX4's MPC_LAND_ALT1 to ALT2; ArduCopter steps at LAND_ALT_LOW,
    `ramp_alt` equal to `low_alt`), then `low`; within `limits`."""

    high: float
    low: float
    low_alt: float
    ramp_alt: float
    ground: float
    limits: Limits

    def speed_at(self, z: float) -> float:
        height = z - self.ground
        if height >= self.ramp_alt:
            return self.high
        if height <= self.low_alt:
            return self.low
        return self.low + (self.high - self.low) * (height - self.low_alt) / (self.ramp_alt - self.low_alt)


class QuadBody:
    """Quadrotor `i` of `bank`. `command` defaults to the bank's own (standalone); a scenario passes
    the world's pending command so that it applies at the next physics latch. `healthy` says whether
    it may arm (default: the bank's alive flag; a scenario passes the robot's).

    Every target is flown as the autopilots fly theirs: a reference path shaped within `limits`
    (cosim.mavlink.serve.shaping) that the copter chases with its velocity loop, moved on at each `update()`."""

    vehicle = "copter"
    mav_type = mav.MAV_TYPE_QUADROTOR

    def __init__(self, bank: QuadrotorBank, i: int, command: QuadCommand | None = None, healthy: Health | None = None,
                 limits: Limits = GUIDED_DEFAULT, prearm: PreArm | None = None) -> None:
        self.bank = bank
        self.i = i
        self._command = command or (lambda mode, a, b, c, d: bank.command(i, mode, a, b, c, d))
        self.healthy = healthy or (lambda: bool(bank.alive[i]))
        self.prearm: PreArm = prearm or (lambda: None)
        self.path = ShapedPath(limits)
        self.path.reset(self.position())
        self._heading: float | None = None
        self._t = float(bank.t)
        self._landing: Descent | None = None
        g = bank.gains
        self._lag_s = np.array([1.0 / g.velocity_p, 1.0 / g.velocity_p, 1.0 / g.vertical_p])
        self._i_over_p = np.array([g.velocity_i / g.velocity_p, g.velocity_i / g.velocity_p, g.vertical_i / g.vertical_p])
        self._lead_sum = np.zeros(3)  # what the lead has put into the copter's velocity integrators

    def position(self) -> tuple[float, float, float]:
        return tuple(float(v) for v in self.bank.pos[self.i])

    def velocity(self) -> tuple[float, float, float]:
        return tuple(float(v) for v in self.bank.vel[self.i])

    def attitude(self) -> tuple[float, float, float]:
        """Roll, pitch (body FLU), heading."""
        return tuple(float(v) for v in self.bank.euler[self.i])

    @property
    def on_ground(self) -> bool:
        return bool(self.bank.on_ground[self.i])

    def motor_outputs(self) -> tuple[int, ...]:
        """PWM (us) of motors 1..4 in ArduCopter's quad X order, thrust 0..max as 1000..2000."""
        share = self.bank.rotor[self.i] / self.bank.max_rotor[self.i] if self.bank.armed[self.i] else np.zeros(4)
        return tuple(1000 + round(1000 * float(share[r])) for r in (3, 1, 0, 2))

    def set_limits(self, limits: Limits) -> None:
        """The autopilot's speed, acceleration and jerk limits (its parameters changed)."""
        self.path.set_limits(limits)

    def set_motors(self, on: bool) -> None:
        self._landing = None
        self.bank.set_armed(self.i, on)
        self._lead_sum[:] = 0.0
        self.path.reset(self.position())
        self.path.to_velocity(0.0, 0.0, 0.0)

    def goto(self, x: float, y: float, z: float, heading: float | None, leg: Limits | None = None) -> None:
        """Fly to a point (m), within `leg` if given (a mission's, a return's, a take-off's limits)."""
        self._landing = None
        self._heading = heading
        self.path.to_point(x, y, z, leg)
        self.update()

    def velocity_world(self, ve: float, vn: float, vu: float, heading: float | None = None) -> None:
        """East/north/up velocity (m/s); with a heading (rad) the copter also yaws to it, as ArduCopter
        and PX4 do with a velocity setpoint that carries a yaw."""
        self._landing = None
        self._heading = heading
        self.path.to_velocity(ve, vn, vu)
        self.update()

    def velocity_body(self, forward: float, left: float, up: float, heading: float | None = None) -> None:
        h = self.attitude()[2]  # the body frame is where the copter faces now
        c = math.cos(h)
        s = math.sin(h)
        self.velocity_world(forward * c - left * s, forward * s + left * c, up, heading)

    def hold(self) -> None:
        """Stop (within the limits) and stay there."""
        self.velocity_world(0.0, 0.0, 0.0)

    def descend(self, descent: Descent, at: tuple[float, float] | None = None) -> bool:
        """Descend as an autopilot's land mode does, holding the horizontal position (`at`, or where
        it will stop)."""
        self._heading = None
        self.path.within(descent.limits)
        if at is not None:
            self.path.horizontal.to_point(at)
        else:
            self.path.horizontal.to_velocity((0.0, 0.0))
        self._landing = descent
        self.update()
        return True

    def _lead(self, dt: float) -> np.ndarray:
        """The velocity the command leads the path by, so that the copter's PI velocity loop gives
        the path's acceleration: `lag * accel`, less what its integrator has made of the lead so far
        (which it would otherwise add on top, overshooting every change of speed)."""
        lead = self._lag_s * np.array(self.path.acceleration) - self._i_over_p * self._lead_sum
        self._lead_sum += lead * dt
        return lead

    def _within_limits(self, ve: float, vn: float, vu: float, ref_v: tuple[float, float, float]) -> tuple[float, float, float]:
        """Chasing the path never asks for more than the speed limits (an autopilot's are absolute),
        nor less than the path's own velocity (a velocity setpoint may exceed them)."""
        lim = self.path.active_limits
        cap = max(lim.speed, math.hypot(ref_v[0], ref_v[1]))
        size = math.hypot(ve, vn)
        if size > cap:
            ve = ve * cap / size
            vn = vn * cap / size
        return ve, vn, min(max(vu, -max(lim.sink, -ref_v[2])), max(lim.climb, ref_v[2]))

    def update(self) -> None:
        """Move the path on to the bank's time and steer the copter after it."""
        now = float(self.bank.t)
        dt = now - self._t
        self._t = now
        if not self.bank.armed[self.i]:
            return  # the path starts afresh where the copter is when it arms (set_motors)
        here = self.position()
        if self._landing is not None:
            self.path.vertical.to_velocity((-self._landing.speed_at(here[2]),))
        self.path.step(dt)
        ref = self.path.position
        ref_v = self.path.velocity
        lead = self._lead(dt)
        ve, vn, vu = (ref_v[k] + lead[k] + CHASE_GAIN[k] * (ref[k] - here[k]) for k in range(3))
        ve, vn, vu = self._within_limits(ve, vn, vu, ref_v)
        h = self.attitude()[2] if self._heading is None else self._heading
        c = math.cos(h)
        s = math.sin(h)
        mode = Mode.SPEED_VERTICAL if self._heading is None else Mode.SPEED_VERTICAL_HEADING
        self._command(mode, c * ve + s * vn, -s * ve + c * vn, vu, math.nan if self._heading is None else h)


class RoverBody:
    """Differential-drive robot `k` of `drives`, steered to position or velocity targets by a
    pursuit law evaluated at every poll (turn toward the target, slow down near it, stop within
    `arrive_m`). `command` defaults to the bank's own; a scenario passes the world's."""

    vehicle = "rover"
    mav_type = mav.MAV_TYPE_GROUND_ROVER
    on_ground = True

    def __init__(self, drives: DiffDriveBank, k: int, command: DriveCommand | None = None, arrive_m: float = 0.05,
                 approach_gain: float = 0.8, healthy: Health | None = None) -> None:
        self.drives = drives
        self.k = k
        self._command = command or (lambda v, w: drives.drive(k, v, w))
        self.healthy = healthy or (lambda: True)
        self.prearm: PreArm = lambda: None
        self.arrive_m = arrive_m
        self.approach_gain = approach_gain
        self._target: tuple | None = None  # ("point", x, y) or ("velocity", speed, heading)
        self._cap = math.inf  # the speed limit of the current point target (m/s)
        self._motors = True

    def position(self) -> tuple[float, float, float]:
        return tuple(float(v) for v in self.drives.pos[self.k])

    def velocity(self) -> tuple[float, float, float]:
        v = float(self.drives.speed[self.k])
        h = float(self.drives.heading[self.k])
        return v * math.cos(h), v * math.sin(h), 0.0

    def attitude(self) -> tuple[float, float, float]:
        return 0.0, 0.0, float(self.drives.heading[self.k])

    def motor_outputs(self) -> tuple[int, ...]:
        """PWM (us) of steering and throttle (ArduRover's servo 1 and 3): 1500 is neutral, and the
        wheels' turn and speed at their limit are 1000 or 2000."""
        left, right = (float(w) for w in self.drives.wheels[self.k])
        top = float(self.drives.max_wheel[self.k])
        throttle = 1500 + round(500 * max(-1.0, min(1.0, 0.5 * (left + right) / top)))
        steering = 1500 + round(500 * max(-1.0, min(1.0, 0.5 * (right - left) / top)))
        return steering, 1500, throttle, 1500

    def set_motors(self, on: bool) -> None:
        self._motors = on
        if not on:
            self._target = None
            self._command(0.0, 0.0)

    def goto(self, x: float, y: float, z: float, heading: float | None, leg: Limits | None = None) -> None:
        """Drive to a point, at most at `leg.speed` (m/s) if given; a rover changes speed at its
        drive's own rate, so the leg's acceleration and jerk (a copter's) do not apply."""
        self._target = ("point", x, y)
        self._cap = math.inf if leg is None else leg.speed

    def velocity_world(self, ve: float, vn: float, vu: float, heading: float | None = None) -> None:
        """A rover drives along its velocity: it faces where it goes (a yaw in the setpoint is that)."""
        speed = math.hypot(ve, vn)
        self._target = ("velocity", speed, math.atan2(vn, ve)) if speed > 1e-6 else None
        if self._target is None:
            self._command(0.0, 0.0)

    def velocity_body(self, forward: float, left: float, up: float, heading: float | None = None) -> None:
        h = self.attitude()[2]
        self.velocity_world(forward * math.cos(h) - left * math.sin(h), forward * math.sin(h) + left * math.cos(h), 0.0)

    def hold(self) -> None:
        self._target = None
        self._command(0.0, 0.0)

    def descend(self, descent: Descent, at: tuple[float, float] | None = None) -> bool:
        return False  # a rover cannot land

    def update(self) -> None:
        t = self._target
        if t is None or not self._motors:
            return
        d = self.drives
        k = self.k
        x, y, _ = self.position()
        h = float(d.heading[k])
        vmax = float(d.max_wheel[k])
        wmax = 2.0 * vmax / float(d.base[k])
        if t[0] == "point":
            dx = t[1] - x
            dy = t[2] - y
            dist = math.hypot(dx, dy)
            if dist < self.arrive_m:
                self._command(0.0, 0.0)
                return
            want = math.atan2(dy, dx)
            speed = min(vmax, self._cap, self.approach_gain * dist)
        else:
            want = t[2]
            speed = t[1]
        err = math.remainder(want - h, 2.0 * math.pi)
        w = float(np.clip(float(d.heading_gain[k]) * err, -wmax, wmax))
        self._command(speed * max(math.cos(err), 0.0), w)
