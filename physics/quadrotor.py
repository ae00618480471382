"""Quadrotors: one rigid body per vehicle, four rotor thrusts through an X mixer, cascaded PID control.

As in De Benedetti et al. (paper 003, section III-B): the controller runs at a fixed tick (2.5 ms,
400 Hz, by default) and offers five modes, selectable per vehicle at run time:

    ATTITUDE          roll, pitch (rad), yaw rate (rad/s), collective thrust (N)
    SPEED_VERTICAL    ground speed vx, vy (m/s, heading frame) and vertical speed vz (m/s)
    SPEED_ALTITUDE    ground speed vx, vy and altitude z (m)
    SPEED_ALT_HEADING ground speed vx, vy, altitude z and heading (rad)
    POSITION          a point x, y, z (m, world frame) and heading

Each mode feeds the loops below it: position -> velocity -> acceleration -> attitude -> body
rate -> torque; altitude -> vertical speed -> thrust. The mixer turns thrust and torques into four
rotor thrusts, clipped to [0, max]; the body then moves under thrust, gravity, linear drag and
any extra force models (wind). Every array holds all vehicles, so a tick costs the same few dozen
numpy operations for 10 or 300 of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum
from typing import Protocol

import numpy as np

G = 9.81
TICK_NS = 2_500_000
"""The default control tick: 400 Hz."""


class Mode(IntEnum):
    ATTITUDE = 0
    SPEED_VERTICAL = 1
    SPEED_ALTITUDE = 2
    SPEED_ALT_HEADING = 3
    POSITION = 4


_ATTITUDE, _SPEED_ALTITUDE, _SPEED_ALT_HEADING, _POSITION = 0, 2, 3, 4
_TWO_PI = 2.0 * math.pi


@dataclass(frozen=True)
class Airframe:
    """Mass (kg), arm length centre-to-rotor (m), principal inertia (kg m^2), rotor limits, drag."""

    mass: float
    arm: float
    inertia: tuple[float, float, float]
    max_rotor_thrust: float  # N per rotor
    torque_per_thrust: float  # m: yaw reaction torque of a rotor per newton of its thrust
    drag: float  # N per m/s, linear, on the body's velocity relative to the air

    def __post_init__(self) -> None:
        if self.mass <= 0 or self.arm <= 0 or min(self.inertia) <= 0:
            raise ValueError("mass, arm and inertia must be positive")
        if 4 * self.max_rotor_thrust <= self.mass * G:
            raise ValueError(f"four rotors of {self.max_rotor_thrust} N cannot lift {self.mass} kg")


AIRFRAMES = {
    # Crazyflie 2.x class: 27 g, 46 mm arms, thrust-to-weight about 2.2
    "crazyflie": Airframe(0.027, 0.046, (1.4e-5, 1.4e-5, 2.17e-5), 0.15, 0.006, 0.01),
    # a 1.5 kg camera quadrotor (450 mm class): thrust-to-weight about 2
    "quad_1500g": Airframe(1.5, 0.225, (0.0347, 0.0347, 0.0612), 7.5, 0.016, 0.3),
}


@dataclass(frozen=True)
class Gains:
    """Loop gains, normalised by mass and inertia so one set flies both presets (units of 1/s, 1/s^2)."""

    rate_p: float = 90.0  # body rate -> angular acceleration
    rate_i: float = 30.0
    attitude_p: float = 9.0  # angle -> body rate
    yaw_p: float = 5.0  # heading -> yaw rate
    velocity_p: float = 3.0  # horizontal speed -> acceleration
    velocity_i: float = 1.0
    vertical_p: float = 5.0  # vertical speed -> acceleration
    vertical_i: float = 2.0
    altitude_p: float = 2.2  # altitude -> vertical speed
    position_p: float = 1.0  # position -> horizontal speed
    max_tilt: float = math.radians(30.0)
    max_yaw_rate: float = math.radians(200.0)
    max_horizontal_speed: float = 10.0
    max_vertical_speed: float = 3.0


class ForceModel(Protocol):
    """An extra force on each vehicle (N, world frame), e.g. wind."""

    def force(self, t: float, pos: np.ndarray, vel: np.ndarray, drag: np.ndarray) -> np.ndarray: ...


class Wind:
    """A constant wind plus gusts: each vehicle's gust is an Ornstein-Uhlenbeck process (standard
    deviation `gust_std` m/s, correlation time `gust_tau` s) drawn from `rng`. The force is the
    vehicle's drag coefficient times the air's velocity (the body's own drag is in the dynamics)."""

    def __init__(self, mean: tuple[float, float, float], gust_std: float, gust_tau: float, n: int,
                 rng: np.random.Generator, dt: float) -> None:
        self.mean = np.asarray(mean, dtype=float)
        self.gust = np.zeros((n, 3))
        self._a = math.exp(-dt / gust_tau) if gust_tau > 0 else 0.0
        self._b = gust_std * math.sqrt(1.0 - self._a * self._a)
        self._rng = rng

    def force(self, t: float, pos: np.ndarray, vel: np.ndarray, drag: np.ndarray) -> np.ndarray:
        if self._b:
            self.gust = self._a * self.gust + self._b * self._rng.standard_normal(self.gust.shape)
        return drag[:, None] * (self.mean + self.gust)


def _mixer(arm: float, k: float) -> np.ndarray:
    """[thrust, tau_x, tau_y, tau_z] = M @ rotor thrusts, X layout: rotors at +-45 degrees, spins alternating."""
    a = arm / math.sqrt(2.0)
    x = np.array([a, -a, -a, a])
    y = np.array([a, a, -a, -a])
    spin = np.array([1.0, -1.0, 1.0, -1.0])
    return np.vstack([np.ones(4), y, -x, k * spin])


class QuadrotorBank:
    """N quadrotors (possibly of different airframes) with state, setpoints and controllers as arrays.

    State: position, velocity (world, m, m/s), Euler angles roll/pitch/yaw (rad, Z-Y-X), body rates
    (rad/s). `setpoint[i]` holds the mode's four numbers (see the module docstring)."""

    def __init__(self, airframes: list[Airframe], positions: np.ndarray, headings: np.ndarray | None = None,
                 gains: Gains | None = None, tick: float = 0.0025) -> None:
        n = len(airframes)
        self.n = n
        self.tick = tick
        self.gains = gains or Gains()
        self.mass = np.array([a.mass for a in airframes])
        self.inertia = np.array([a.inertia for a in airframes])
        self.drag = np.array([a.drag for a in airframes])
        self.max_rotor = np.array([a.max_rotor_thrust for a in airframes])
        mix = np.stack([_mixer(a.arm, a.torque_per_thrust) for a in airframes])
        self._mix = mix
        self._unmix = np.linalg.inv(mix)
        k = np.array([a.torque_per_thrust for a in airframes])
        self._yaw_torque_per_n = 0.8 * k  # of the collective thrust (or of its headroom), for yaw
        # half the yaw acceleration available in hover, for the heading loop's square-root law
        self._yaw_accel = self._yaw_torque_per_n * self.mass * G / self.inertia[:, 2]
        self.pos = np.array(positions, dtype=float).reshape(n, 3)
        self.vel = np.zeros((n, 3))
        self.euler = np.zeros((n, 3))
        if headings is not None:
            self.euler[:, 2] = headings
        self.rates = np.zeros((n, 3))
        self.rotor = np.tile((self.mass * G / 4.0)[:, None], (1, 4))
        self.mode = np.full(n, int(Mode.SPEED_ALT_HEADING))
        self.setpoint = np.zeros((n, 4))
        self.setpoint[:, 2] = self.pos[:, 2]
        self.setpoint[:, 3] = self.euler[:, 2]
        self.alive = np.ones(n, dtype=bool)
        self.forces: list[ForceModel] = []
        self.t = 0.0
        self._i_rate = np.zeros((n, 3))
        self.on_ground = self.pos[:, 2] <= 0.0
        # constant helpers for the tick
        self._shared = all(a == airframes[0] for a in airframes)
        self._pos_mode = self.mode == _POSITION
        self._holds_alt = self.mode >= _SPEED_ALTITUDE
        self._holds_heading = self.mode >= _SPEED_ALT_HEADING
        self._attitude = self.mode == _ATTITUDE
        self._all_position = False
        g = self.gains
        self._kp_vel = np.array([g.velocity_p, g.velocity_p, g.vertical_p])
        self._ki_vel = np.array([g.velocity_i, g.velocity_i, g.vertical_i])
        self._i_vel = np.zeros((n, 3))
        self._wrench = np.zeros((n, 4))
        self._force = np.zeros((n, 3))
        self._max_collective = 4.0 * self.max_rotor
        self._max_rotor_col = self.max_rotor[:, None]
        self._weight = self.mass * G
        self._drag_col = self.drag[:, None]
        self._h_over_mass = tick / self.mass[:, None]
        self._h_over_inertia = tick / self.inertia

    # -- commands ------------------------------------------------------------------------------
    def command(self, i: int, mode: Mode, a: float, b: float, c: float, d: float = math.nan) -> None:
        """Set vehicle i's mode and setpoint; for modes without a heading, d is ignored."""
        m = int(mode)
        self.mode[i] = m
        self.setpoint[i] = (a, b, c, self.euler[i, 2] if math.isnan(d) else d)
        self._pos_mode[i] = m == _POSITION
        self._holds_alt[i] = m >= _SPEED_ALTITUDE
        self._holds_heading[i] = m >= _SPEED_ALT_HEADING
        self._attitude[i] = m == _ATTITUDE
        self._all_position = bool(self._pos_mode.all())

    # -- one control tick and one integration step ---------------------------------------------------
    def step(self) -> None:
        """One control tick and one integration step, for every vehicle (about 50 numpy operations)."""
        g, h = self.gains, self.tick
        sp = self.setpoint
        pos, vel, euler = self.pos, self.vel, self.euler
        roll, pitch, yaw = euler[:, 0], euler[:, 1], euler[:, 2]
        cos, sin = np.cos(euler), np.sin(euler)  # shared with the integration step (same angles)
        cy, sy = cos[:, 2], sin[:, 2]
        att, pos_mode = self._attitude, self._pos_mode

        # position -> horizontal velocity (world); ground-speed modes give it in the heading frame
        if self._all_position:
            vx = g.position_p * (sp[:, 0] - pos[:, 0])
            vy = g.position_p * (sp[:, 1] - pos[:, 1])
        else:
            vx = cy * sp[:, 0] - sy * sp[:, 1]
            vy = sy * sp[:, 0] + cy * sp[:, 1]
            if pos_mode.any():
                vx = np.where(pos_mode, g.position_p * (sp[:, 0] - pos[:, 0]), vx)
                vy = np.where(pos_mode, g.position_p * (sp[:, 1] - pos[:, 1]), vy)
        scale = np.minimum(1.0, g.max_horizontal_speed / np.maximum(np.hypot(vx, vy), 1e-9))
        # altitude -> vertical speed
        vz = np.where(self._holds_alt, g.altitude_p * (sp[:, 2] - pos[:, 2]), sp[:, 2])
        vz = np.minimum(np.maximum(vz, -g.max_vertical_speed), g.max_vertical_speed)
        # velocity -> acceleration (PI; integrators off in attitude mode)
        err = np.empty_like(vel)
        err[:, 0] = vx * scale
        err[:, 1] = vy * scale
        err[:, 2] = vz
        err -= vel
        err[att] = 0.0
        self._i_vel += err * h
        acc = self._kp_vel * err + self._ki_vel * self._i_vel
        # acceleration -> attitude and thrust (small-angle inversion about the current heading)
        tilt = g.max_tilt
        pitch_cmd = np.minimum(np.maximum((cy * acc[:, 0] + sy * acc[:, 1]) / G, -tilt), tilt)
        roll_cmd = np.minimum(np.maximum((sy * acc[:, 0] - cy * acc[:, 1]) / G, -tilt), tilt)
        thrust = self.mass * (G + acc[:, 2]) / np.maximum(cos[:, 0] * cos[:, 1], 0.5)
        if att.any():
            roll_cmd = np.where(att, sp[:, 0], roll_cmd)
            pitch_cmd = np.where(att, sp[:, 1], pitch_cmd)
            thrust = np.where(att, sp[:, 3], thrust)
        # heading -> yaw rate: a square-root law near the target keeps the turn within the yaw
        # acceleration the rotors can give
        yaw_err = np.remainder(sp[:, 3] - yaw + math.pi, _TWO_PI) - math.pi
        abs_err = np.abs(yaw_err)
        turn = np.sign(yaw_err) * np.minimum(g.yaw_p * abs_err, np.sqrt(self._yaw_accel * abs_err))
        yaw_rate = turn * self._holds_heading
        if att.any():
            yaw_rate = np.where(att, sp[:, 2], yaw_rate)
        # attitude -> body rates -> torques (PI on rates, scaled by inertia)
        rate_err = np.empty_like(euler)
        rate_err[:, 0] = g.attitude_p * (roll_cmd - roll)
        rate_err[:, 1] = g.attitude_p * (pitch_cmd - pitch)
        rate_err[:, 2] = np.minimum(np.maximum(yaw_rate, -g.max_yaw_rate), g.max_yaw_rate)
        rate_err -= self.rates
        self._i_rate = np.minimum(np.maximum(self._i_rate + rate_err * h, -0.5), 0.5)
        wrench = self._wrench
        wrench[:, 0] = thrust
        wrench[:, 1:] = self.inertia * (g.rate_p * rate_err + g.rate_i * self._i_rate)
        # yaw authority is small (rotor drag): roll, pitch and thrust have priority
        yaw_limit = self._yaw_torque_per_n * np.maximum(np.minimum(thrust, self._max_collective - thrust), 0.0)
        wrench[:, 3] = np.minimum(np.maximum(wrench[:, 3], -yaw_limit), yaw_limit)
        # mixer, rotor saturation, realised wrench
        rotor = self._apply(self._unmix, wrench)
        rotor = np.minimum(np.maximum(rotor, 0.0), self._max_rotor_col)
        if not self._all_alive:
            rotor[~self.alive] = 0.0
        self.rotor = rotor
        self._integrate(self._apply(self._mix, rotor), cos, sin)

    def _apply(self, matrices: np.ndarray, vectors: np.ndarray) -> np.ndarray:
        if self._shared:  # one airframe for all: one small matrix product
            return vectors @ matrices[0].T
        return np.einsum("nij,nj->ni", matrices, vectors)

    @property
    def _all_alive(self) -> bool:
        return bool(self.alive.all())

    def _integrate(self, wrench: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> None:
        h = self.tick
        euler = self.euler
        yaw = euler[:, 2]
        cr, sr, cp, sp_, cy, sy = cos[:, 0], sin[:, 0], cos[:, 1], sin[:, 1], cos[:, 2], sin[:, 2]
        thrust = wrench[:, 0]
        force = self._force
        force[:, 0] = thrust * (cy * sp_ * cr + sy * sr)
        force[:, 1] = thrust * (sy * sp_ * cr - cy * sr)
        force[:, 2] = thrust * (cp * cr) - self._weight
        force -= self._drag_col * self.vel
        for model in self.forces:
            force += model.force(self.t, self.pos, self.vel, self.drag)
        self.vel += force * self._h_over_mass
        self.pos += self.vel * h
        z = self.pos[:, 2]
        grounded = z <= 0.0
        self.on_ground = grounded
        if grounded.any():  # the ground stops a descent and holds a landed vehicle
            z[grounded] = 0.0
            vz = self.vel[:, 2]
            vz[grounded & (vz < 0.0)] = 0.0
            self.vel[grounded, :2] = 0.0
        w = self.rates
        iw = self.inertia * w
        cross = np.empty_like(w)
        cross[:, 0] = w[:, 1] * iw[:, 2] - w[:, 2] * iw[:, 1]
        cross[:, 1] = w[:, 2] * iw[:, 0] - w[:, 0] * iw[:, 2]
        cross[:, 2] = w[:, 0] * iw[:, 1] - w[:, 1] * iw[:, 0]
        w += (wrench[:, 1:] - cross) * self._h_over_inertia
        p, q, r = w[:, 0], w[:, 1], w[:, 2]
        qs_rc = q * sr + r * cr
        euler[:, 0] += (p + qs_rc * sp_ / cp) * h
        euler[:, 1] += (q * cr - r * sr) * h
        euler[:, 2] = np.remainder(yaw + qs_rc / cp * h + math.pi, _TWO_PI) - math.pi
        self.t += h

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds / self.tick)):
            self.step()
