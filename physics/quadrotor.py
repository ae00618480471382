"""Quadrotors: one rigid body per vehicle, four rotor thrusts through an X mixer, cascaded PID control.

As in De Benedetti et al. (paper 003, section III-B): the controller runs at a fixed tick (2.5 ms,
400 Hz, by default) and offers five modes, selectable per vehicle at run time:

    ATTITUDE          roll, pitch (rad), yaw rate (rad/s), collective thrust (N)
    SPEED_VERTICAL    ground speed vx, vy (m/s, heading frame) and vertical speed vz (m/s)
    SPEED_ALTITUDE    ground speed vx, vy and altitude z (m)
    SPEED_ALT_HEADING ground speed vx, vy, altitude z and heading (rad)
    SPEED_VERTICAL_HEADING  vx, vy in the frame of the heading setpoint, vz and that heading
    POSITION          a point x, y, z (m, world frame) and heading
    MOTORS            the four rotor thrusts themselves (N; rotors front-left, back-left,
                      back-right, front-right), from an outside autopilot (ArduPilot's JSON SITL)

Each mode feeds the loops below it: position -> velocity -> acceleration -> attitude -> body
rate -> torque; altitude -> vertical speed -> thrust. The mixer turns thrust and torques into four
rotor thrusts, clipped to [0, max]; the body then moves under thrust, gravity, linear drag and
any extra force models (wind). Every array holds all vehicles, so a tick costs the same few dozen
numpy operations for 10 or 300 of them.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from physics import kernels
from physics.airframes import AIRFRAMES as AIRFRAMES  # re-exported: the presets by name
from physics.airframes import Airframe, G, Gains
from physics.wind import ForceModel

TICK_NS = 2_500_000
"""The default control tick: 400 Hz."""


class Mode(IntEnum):
    ATTITUDE = 0
    SPEED_VERTICAL = 1
    SPEED_ALTITUDE = 2
    SPEED_ALT_HEADING = 3
    POSITION = 4
    MOTORS = 5
    SPEED_VERTICAL_HEADING = 6


_ATTITUDE, _POSITION, _MOTORS = 0, 4, 5
_HOLDS_ALT = np.array([False, False, True, True, True, True, False])  # by mode
_HOLDS_HEADING = np.array([False, False, False, True, True, True, True])
_TWO_PI = 2.0 * math.pi
_GAINS = ("position_p", "altitude_p", "max_horizontal_speed", "max_vertical_speed", "velocity_p", "velocity_i",
          "vertical_p", "vertical_i", "max_tilt", "yaw_p", "attitude_p", "max_yaw_rate", "rate_p", "rate_i")
_clip = np._core.umath.clip  # the ufunc: np.clip's Python wrapper costs twice as much on small arrays


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
        self.armed = np.ones(n, dtype=bool)  # motors enabled (an autopilot's arming); see set_armed
        self._all_armed = True
        self.forces: list[ForceModel] = []
        self.t = 0.0
        self._i_rate = np.zeros((n, 3))
        self.on_ground = self.pos[:, 2] <= 0.0
        # constant helpers for the tick
        self._shared = all(a == airframes[0] for a in airframes)
        self._pos_mode = self.mode == _POSITION
        self._holds_alt = _HOLDS_ALT[self.mode]
        self._holds_heading = _HOLDS_HEADING[self.mode]
        self._attitude = self.mode == _ATTITUDE
        self._motors = self.mode == _MOTORS
        self._mode_flags()
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
        self._make_views()
        # for the compiled tick (physics.quadrotor_compiled): constants per vehicle, then the scalars
        self._consts = np.column_stack([self.mass, self.inertia, self._yaw_accel, self._yaw_torque_per_n,
                                        self._max_collective])
        self._scalars = np.array([getattr(g, name) for name in _GAINS] + [G, tick])

    # -- commands ------------------------------------------------------------------------------
    def command(self, i: int, mode: Mode, a: float, b: float, c: float, d: float = math.nan) -> None:
        """Set vehicle i's mode and setpoint; for modes without a heading, d is ignored."""
        m = int(mode)
        self.mode[i] = m
        self.setpoint[i] = (a, b, c, self.euler[i, 2] if math.isnan(d) and m != _MOTORS else d)
        self._motors[i] = m == _MOTORS
        self._pos_mode[i] = m == _POSITION
        self._holds_alt[i] = _HOLDS_ALT[m]
        self._holds_heading[i] = _HOLDS_HEADING[m]
        self._attitude[i] = m == _ATTITUDE
        self._flags_stale = True  # summarised once, at the next control tick

    def reset(self, i: int, position, heading: float) -> None:
        """Put vehicle i back at rest at `position`, level, facing `heading` (an autopilot restarted)."""
        self.pos[i], self.vel[i], self.rates[i] = position, 0.0, 0.0
        self.euler[i] = (0.0, 0.0, heading)
        self._i_rate[i] = self._i_vel[i] = 0.0
        self.on_ground[i] = self.pos[i, 2] <= 0.0

    def set_tick(self, tick: float) -> None:
        """Run the control loop and the integration at a new tick (s) from now on: an outside
        autopilot that asks for a faster frame rate sub-steps the bank (cosim.mavlink.sitl_coupling)."""
        self.tick = tick
        self._h_over_mass = tick / self.mass[:, None]
        self._h_over_inertia = tick / self.inertia
        self._scalars[-1] = tick
        for model in self.forces:
            model.retime(tick)

    def set_armed(self, i: int, armed: bool) -> None:
        """Enable or stop vehicle i's motors (a disarmed vehicle's rotors stand still; it falls)."""
        self.armed[i] = armed
        self._all_armed = bool(self.armed.all())

    def _mode_flags(self) -> None:
        self._flags_stale = False
        self._all_position = bool(self._pos_mode.all())
        self._any_position = bool(self._pos_mode.any())
        self._all_hold_alt = bool(self._holds_alt.all())
        self._all_hold_heading = bool(self._holds_heading.all())
        self._any_attitude = bool(self._attitude.any())
        self._any_motors = bool(self._motors.any())
        self._cmd_frame = self.mode == int(Mode.SPEED_VERTICAL_HEADING)
        self._any_cmd_frame = bool(self._cmd_frame.any())

    # -- one control tick and one integration step ---------------------------------------------------
    def _make_views(self) -> None:
        """Column views of the state, setpoint and scratch arrays, made once: the arrays are only ever
        updated in place, and slicing a view costs as much as a small arithmetic operation."""
        n = self.n
        self._cos, self._sin = np.empty((n, 3)), np.empty((n, 3))
        self._cr, self._cp, self._cy = self._cos[:, 0], self._cos[:, 1], self._cos[:, 2]
        self._sr, self._spi, self._sy = self._sin[:, 0], self._sin[:, 1], self._sin[:, 2]
        self._sp0, self._sp1, self._sp2, self._sp3 = (self.setpoint[:, k] for k in range(4))
        self._px, self._py, self._pz = (self.pos[:, k] for k in range(3))
        self._roll, self._pitch, self._yaw = (self.euler[:, k] for k in range(3))
        self._wp, self._wq, self._wr = (self.rates[:, k] for k in range(3))
        self._err = np.zeros((n, 3))
        self._ex, self._ey, self._ez = (self._err[:, k] for k in range(3))
        self._acc = np.zeros((n, 3))
        self._ax, self._ay, self._az = (self._acc[:, k] for k in range(3))
        self._rate_err = np.zeros((n, 3))
        self._re0, self._re1, self._re2 = (self._rate_err[:, k] for k in range(3))
        self._T, self._tau, self._tz = self._wrench[:, 0], self._wrench[:, 1:], self._wrench[:, 3]
        self._fx, self._fy, self._fz = (self._force[:, k] for k in range(3))
        self._cross = np.zeros((n, 3))
        self._iw = np.zeros((n, 3))
        self._weight_g = self.mass * G

    def step(self) -> None:
        """One control tick and one integration step, for every vehicle at once."""
        if not kernels.compiled:
            return self._integrate(self.control())
        from physics import quadrotor_compiled as k

        wrench = self.control()
        k.thrust_force(wrench, self._cos, self._sin, self.vel, self._weight, self.drag, self._force)
        for model in self.forces:
            self._force += model.force(self.t, self.pos, self.vel, self.drag)
        k.integrate(wrench, self._cos, self._sin, self._force, self._state(), self.on_ground, self.inertia,
                    self._h_over_mass[:, 0], self._h_over_inertia, self.tick)
        self.t += self.tick

    def control(self) -> np.ndarray:
        """One control tick from the current state: sets `rotor` (N per rotor) and returns the
        realised wrench per vehicle, (n, 4): collective thrust along body z (N) and body torques
        (N m). A rigid-body world applies it; `step` integrates it here."""
        if self._flags_stale:
            self._mode_flags()
        if kernels.compiled:
            return self._control_compiled()
        np.cos(self.euler, out=self._cos)  # shared with the integration step (same angles)
        np.sin(self.euler, out=self._sin)
        self._velocity_loop()
        roll_cmd, pitch_cmd, thrust, yaw_rate = self._attitude_targets()
        return self._rate_loop(roll_cmd, pitch_cmd, thrust, yaw_rate)

    def _state(self) -> tuple:  # the compiled kernels' state arrays
        return (self.euler, self._cos, self._sin, self.pos, self.vel, self.rates, self._i_vel, self._i_rate, self._err,
                self._acc, self._rate_err)

    def _control_compiled(self) -> np.ndarray:
        """control() in physics.quadrotor_compiled's kernels, with the mixer's products in numpy."""
        from physics import quadrotor_compiled as k

        flags = (self._pos_mode, self._cmd_frame, self._holds_alt, self._holds_heading, self._attitude)
        k.control(self._state(), self.setpoint, flags, self._consts, self._scalars, self._wrench)
        rotor = self._apply(self._unmix, self._wrench)
        if self._any_motors:
            rotor[self._motors] = np.nan_to_num(self.setpoint[self._motors])
        k.limit_rotors(rotor, self.max_rotor, self.alive, self.armed)
        self.rotor = rotor
        return self._apply(self._mix, rotor)

    def air_force(self) -> np.ndarray:
        """Linear drag and the extra force models (wind) on each vehicle (N, world frame), for a
        rigid-body world that integrates the motion itself."""
        force = -self._drag_col * self.vel
        for model in self.forces:
            force += model.force(self.t, self.pos, self.vel, self.drag)
        self.t += self.tick
        return force

    def _velocity_loop(self) -> None:
        """Position and altitude setpoints to velocity targets, then the velocity PI to `_acc`."""
        g, h = self.gains, self.tick
        cy, sy = self._cy, self._sy
        sp0, sp1, sp2 = self._sp0, self._sp1, self._sp2
        # position -> horizontal velocity (world); ground-speed modes give it in the heading frame
        if self._all_position:
            vx = g.position_p * (sp0 - self._px)
            vy = g.position_p * (sp1 - self._py)
        else:
            if self._any_cmd_frame:  # velocities in the commanded heading's frame, as a MAVLink vehicle flies them
                cy = np.where(self._cmd_frame, np.cos(self._sp3), cy)
                sy = np.where(self._cmd_frame, np.sin(self._sp3), sy)
            vx = cy * sp0 - sy * sp1
            vy = sy * sp0 + cy * sp1
            if self._any_position:
                pos_mode = self._pos_mode
                vx = np.where(pos_mode, g.position_p * (sp0 - self._px), vx)
                vy = np.where(pos_mode, g.position_p * (sp1 - self._py), vy)
        scale = np.minimum(1.0, g.max_horizontal_speed / np.maximum(np.hypot(vx, vy), 1e-9))
        # altitude -> vertical speed
        if self._all_hold_alt:
            vz = g.altitude_p * (sp2 - self._pz)
        else:
            vz = np.where(self._holds_alt, g.altitude_p * (sp2 - self._pz), sp2)
        # velocity -> acceleration (PI; integrators off in attitude mode)
        err = self._err
        np.multiply(vx, scale, out=self._ex)
        np.multiply(vy, scale, out=self._ey)
        _clip(vz, -g.max_vertical_speed, g.max_vertical_speed, out=self._ez)
        err -= self.vel
        if self._any_attitude:
            err[self._attitude] = 0.0
        self._i_vel += err * h
        acc = self._acc
        np.multiply(err, self._kp_vel, out=acc)
        acc += self._ki_vel * self._i_vel

    def _attitude_targets(self) -> tuple:
        """Acceleration to roll, pitch and thrust, heading to yaw rate; attitude-mode vehicles take theirs as given."""
        g = self.gains
        cy, sy = self._cy, self._sy
        att = self._attitude
        sp0, sp1, sp2, sp3 = self._sp0, self._sp1, self._sp2, self._sp3
        ax, ay = self._ax, self._ay
        # acceleration -> attitude and thrust (small-angle inversion about the current heading)
        tilt = g.max_tilt
        pitch_cmd = _clip((cy * ax + sy * ay) * (1.0 / G), -tilt, tilt)
        roll_cmd = _clip((sy * ax - cy * ay) * (1.0 / G), -tilt, tilt)
        thrust = self.mass * (G + self._az) / np.maximum(self._cr * self._cp, 0.5)
        # heading -> yaw rate: a square-root law near the target keeps the turn within the yaw
        # acceleration the rotors can give
        yaw_err = np.remainder(sp3 - self._yaw + math.pi, _TWO_PI) - math.pi
        abs_err = np.abs(yaw_err)
        yaw_rate = np.copysign(np.minimum(g.yaw_p * abs_err, np.sqrt(self._yaw_accel * abs_err)), yaw_err)
        if not self._all_hold_heading:
            yaw_rate *= self._holds_heading
        if self._any_attitude:
            roll_cmd = np.where(att, sp0, roll_cmd)
            pitch_cmd = np.where(att, sp1, pitch_cmd)
            thrust = np.where(att, sp3, thrust)
            yaw_rate = np.where(att, sp2, yaw_rate)
        return roll_cmd, pitch_cmd, thrust, yaw_rate

    def _rate_loop(self, roll_cmd, pitch_cmd, thrust, yaw_rate) -> np.ndarray:
        """Attitude to body rates to torques, the mixer and rotor limits, then integration."""
        g, h = self.gains, self.tick
        # attitude -> body rates -> torques (PI on rates, scaled by inertia)
        rate_err = self._rate_err
        np.multiply(roll_cmd - self._roll, g.attitude_p, out=self._re0)
        np.multiply(pitch_cmd - self._pitch, g.attitude_p, out=self._re1)
        _clip(yaw_rate, -g.max_yaw_rate, g.max_yaw_rate, out=self._re2)
        rate_err -= self.rates
        self._i_rate += rate_err * h
        _clip(self._i_rate, -0.5, 0.5, out=self._i_rate)
        wrench = self._wrench
        self._T[:] = thrust
        np.multiply(self.inertia, g.rate_p * rate_err + g.rate_i * self._i_rate, out=self._tau)
        # yaw authority is small (rotor drag): roll, pitch and thrust have priority
        yaw_limit = self._yaw_torque_per_n * np.maximum(np.minimum(thrust, self._max_collective - thrust), 0.0)
        _clip(self._tz, -yaw_limit, yaw_limit, out=self._tz)
        # mixer, rotor saturation (dead vehicles' rotors stop), realised wrench
        rotor = self._apply(self._unmix, wrench)
        if self._any_motors:  # an outside autopilot's rotor thrusts replace ours
            rotor[self._motors] = np.nan_to_num(self.setpoint[self._motors])
        _clip(rotor, 0.0, self._max_rotor_col, out=rotor)
        rotor *= self.alive[:, None]
        if not self._all_armed:
            rotor *= self.armed[:, None]
        self.rotor = rotor
        return self._apply(self._mix, rotor)

    def _apply(self, matrices: np.ndarray, vectors: np.ndarray) -> np.ndarray:
        if self._shared:  # one airframe for all: one small matrix product
            return vectors @ matrices[0].T
        return np.einsum("nij,nj->ni", matrices, vectors)

    def _integrate(self, wrench: np.ndarray) -> None:
        h = self.tick
        cr, sr, cp, sp_, cy, sy = self._cr, self._sr, self._cp, self._spi, self._cy, self._sy
        thrust = wrench[:, 0]
        force = self._force
        cy_sp = cy * sp_
        sy_sp = sy * sp_
        np.multiply(thrust, cy_sp * cr + sy * sr, out=self._fx)
        np.multiply(thrust, sy_sp * cr - cy * sr, out=self._fy)
        np.multiply(thrust, cp * cr, out=self._fz)
        self._fz -= self._weight
        force -= self._drag_col * self.vel
        for model in self.forces:
            force += model.force(self.t, self.pos, self.vel, self.drag)
        vel = self.vel
        vel += force * self._h_over_mass
        self.pos += vel * h
        # the ground stops a descent and holds a landed vehicle
        z = self._pz
        grounded = z <= 0.0
        self.on_ground = grounded
        np.maximum(z, 0.0, out=z)
        airborne = ~grounded
        vel[:, :2] *= airborne[:, None]
        vz = vel[:, 2]
        np.maximum(vz, vz * airborne, out=vz)  # a grounded vehicle keeps only an upward speed
        w = self.rates
        iw = self._iw
        np.multiply(self.inertia, w, out=iw)
        cross = self._cross
        p, q, r = self._wp, self._wq, self._wr
        np.subtract(q * iw[:, 2], r * iw[:, 1], out=cross[:, 0])
        np.subtract(r * iw[:, 0], p * iw[:, 2], out=cross[:, 1])
        np.subtract(p * iw[:, 1], q * iw[:, 0], out=cross[:, 2])
        w += (wrench[:, 1:] - cross) * self._h_over_inertia
        qs_rc = q * sr + r * cr
        self._roll += (p + qs_rc * sp_ / cp) * h
        self._pitch += (q * cr - r * sr) * h
        yaw = self._yaw
        yaw += qs_rc / cp * h
        np.remainder(yaw + math.pi, _TWO_PI, out=yaw)
        yaw -= math.pi
        self.t += h

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds / self.tick)):
            self.step()
