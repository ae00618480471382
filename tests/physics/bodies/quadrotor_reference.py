"""The quadrotor tick in numpy, operation by operation: the reference physics.bodies.quadrotor_compiled's
kernels must match bit for bit (tests/physics/bodies/test_quadrotor_compiled.py)."""

from __future__ import annotations

import math

import numpy as np

from physics.bodies.airframes import G
from physics.bodies.quadrotor import QuadrotorBank
from physics.bodies.quadrotor_compiled import GEAR_DECEL_M_S2, GEAR_MAX_SINK_M_S

_TWO_PI = 2.0 * math.pi
_clip = np._core.umath.clip


class NumpyQuadrotors(QuadrotorBank):
    """A QuadrotorBank whose control tick and integration step are numpy array operations."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._make_views()

    def _make_views(self) -> None:
        """Column views of the state, setpoint and scratch arrays, made once: the arrays are only ever
        updated in place, and slicing a view costs as much as a small arithmetic operation."""
        n = self.n
        self._cr, self._cp, self._cy = self._cos[:, 0], self._cos[:, 1], self._cos[:, 2]
        self._sr, self._spi, self._sy = self._sin[:, 0], self._sin[:, 1], self._sin[:, 2]
        self._sp0, self._sp1, self._sp2, self._sp3 = (self.setpoint[:, k] for k in range(4))
        self._px, self._py, self._pz = (self.pos[:, k] for k in range(3))
        self._roll, self._pitch, self._yaw = (self.euler[:, k] for k in range(3))
        self._wp, self._wq, self._wr = (self.rates[:, k] for k in range(3))
        self._ex, self._ey, self._ez = (self._err[:, k] for k in range(3))
        self._ax, self._ay, self._az = (self._acc[:, k] for k in range(3))
        self._re0, self._re1, self._re2 = (self._rate_err[:, k] for k in range(3))
        self._T, self._tau, self._tz = self._wrench[:, 0], self._wrench[:, 1:], self._wrench[:, 3]
        self._fx, self._fy, self._fz = (self._force[:, k] for k in range(3))
        self._cross = np.zeros((n, 3))
        self._iw = np.zeros((n, 3))
        g = self.gains
        self._kp_vel = np.array([g.velocity_p, g.velocity_p, g.vertical_p])
        self._ki_vel = np.array([g.velocity_i, g.velocity_i, g.vertical_i])
        self._max_rotor_col = self.max_rotor[:, None]

    def step(self) -> None:
        self._integrate(self.control())

    def control(self) -> np.ndarray:
        if self._flags_stale:
            self._mode_flags()
        self._all_position = bool(self._pos_mode.all())
        self._any_position = bool(self._pos_mode.any())
        self._all_hold_alt = bool(self._holds_alt.all())
        self._all_hold_heading = bool(self._holds_heading.all())
        self._any_attitude = bool(self._attitude.any())
        self._any_cmd_frame = bool(self._cmd_frame.any())
        np.cos(self.euler, out=self._cos)  # shared with the integration step (same angles)
        np.sin(self.euler, out=self._sin)
        self._velocity_loop()
        roll_cmd, pitch_cmd, thrust, yaw_rate = self._attitude_targets()
        return self._rate_loop(roll_cmd, pitch_cmd, thrust, yaw_rate)

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
        if not self.armed.all():
            rotor *= self.armed[:, None]
        self.rotor = rotor
        return self._apply(self._mix, rotor)

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
        crash = grounded & (vz < -GEAR_MAX_SINK_M_S)  # a grounded vehicle keeps an upward speed
        sinking = grounded & (vz < 0.0) & ~crash  # its gear slows a descent
        vz[crash] = 0.0
        vz[sinking] = np.minimum(vz[sinking] + GEAR_DECEL_M_S2 * h, 0.0)
        resting = grounded & (force[:, 2] <= 0.0)  # the ground bears it: it neither tips nor turns
        held_yaw = self._yaw[resting].copy()
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
        w[resting] = 0.0
        self._roll[resting] = 0.0
        self._pitch[resting] = 0.0
        yaw[resting] = held_yaw
        self.t += h
