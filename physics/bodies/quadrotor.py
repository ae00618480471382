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
any extra force models (wind). Every array holds all vehicles, and a tick is a few compiled calls
for all of them (physics.bodies.quadrotor_compiled; tests/physics/bodies/quadrotor_reference.py spells it out in numpy).
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from physics.bodies import quadrotor_compiled as k
from physics.bodies.airframes import AIRFRAMES as AIRFRAMES  # re-exported: the presets by name
from physics.bodies.airframes import Airframe, G, Gains
from physics.scene.wind import ForceModel

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


_ATTITUDE = 0
_POSITION = 4
_MOTORS = 5
_HOLDS_ALT = np.array([False, False, True, True, True, True, False])  # by mode
_HOLDS_HEADING = np.array([False, False, False, True, True, True, True])
_GAINS = ("position_p", "altitude_p", "max_horizontal_speed", "max_vertical_speed", "velocity_p", "velocity_i",
          "vertical_p", "vertical_i", "max_tilt", "yaw_p", "attitude_p", "max_yaw_rate", "rate_p", "rate_i")


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
        self.forces: list[ForceModel] = []
        self.t = 0.0
        self._i_rate = np.zeros((n, 3))
        self.on_ground = self.pos[:, 2] <= 0.0
        self._tick_helpers(airframes, tick)

    def _tick_helpers(self, airframes: list[Airframe], tick: float) -> None:
        """Constants and scratch the control tick reuses (the mode's flags, the airframes' derived
        constants), and the compiled tick's rows of them (physics.bodies.quadrotor_compiled)."""
        n = self.n
        self._shared = all(a == airframes[0] for a in airframes)
        self._pos_mode = self.mode == _POSITION
        self._holds_alt = _HOLDS_ALT[self.mode]
        self._holds_heading = _HOLDS_HEADING[self.mode]
        self._attitude = self.mode == _ATTITUDE
        self._motors = self.mode == _MOTORS
        self._mode_flags()
        g = self.gains
        self._i_vel = np.zeros((n, 3))
        self._wrench = np.zeros((n, 4))
        self._force = np.zeros((n, 3))
        self._max_collective = 4.0 * self.max_rotor
        self._weight = self.mass * G
        self._drag_col = self.drag[:, None]
        self._h_over_mass = tick / self.mass[:, None]
        self._h_over_inertia = tick / self.inertia
        self._make_scratch()
        # for the compiled tick (physics.bodies.quadrotor_compiled): constants per vehicle, then the scalars
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
        self.pos[i] = position
        self.vel[i] = 0.0
        self.rates[i] = 0.0
        self.euler[i] = (0.0, 0.0, heading)
        self._i_rate[i] = self._i_vel[i] = 0.0
        self.on_ground[i] = self.pos[i, 2] <= 0.0

    def set_tick(self, tick: float) -> None:
        """Run the control loop and the integration at a new tick (s) from now on: an outside
        autopilot that asks for a faster frame rate sub-steps the bank (cosim.mavlink.sitl.coupling)."""
        self.tick = tick
        self._h_over_mass = tick / self.mass[:, None]
        self._h_over_inertia = tick / self.inertia
        self._scalars[-1] = tick
        for model in self.forces:
            model.retime(tick)

    def set_armed(self, i: int, armed: bool) -> None:
        """Enable or stop vehicle i's motors (a disarmed vehicle's rotors stand still; it falls)."""
        self.armed[i] = armed

    def _mode_flags(self) -> None:
        self._flags_stale = False
        self._any_motors = bool(self._motors.any())
        self._cmd_frame = self.mode == int(Mode.SPEED_VERTICAL_HEADING)

    # -- one control tick and one integration step ---------------------------------------------------
    def _make_scratch(self) -> None:
        """The compiled tick's working arrays, made once and only ever updated in place."""
        n = self.n
        self._cos = np.empty((n, 3))
        self._sin = np.empty((n, 3))
        self._err = np.zeros((n, 3))
        self._acc = np.zeros((n, 3))
        self._rate_err = np.zeros((n, 3))

    def step(self) -> None:
        """One control tick and one integration step, for every vehicle at once."""
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
        flags = (self._pos_mode, self._cmd_frame, self._holds_alt, self._holds_heading, self._attitude)
        k.control(self._state(), self.setpoint, flags, self._consts, self._scalars, self._wrench)
        rotor = self._apply(self._unmix, self._wrench)
        if self._any_motors:  # an outside autopilot's rotor thrusts replace ours
            rotor[self._motors] = np.nan_to_num(self.setpoint[self._motors])
        k.limit_rotors(rotor, self.max_rotor, self.alive, self.armed)
        self.rotor = rotor
        return self._apply(self._mix, rotor)

    def _state(self) -> tuple:  # the compiled kernels' state arrays
        return (self.euler, self._cos, self._sin, self.pos, self.vel, self.rates, self._i_vel, self._i_rate, self._err,
                self._acc, self._rate_err)

    def air_force(self) -> np.ndarray:
        """Linear drag and the extra force models (wind) on each vehicle (N, world frame), for a
        rigid-body world that integrates the motion itself."""
        force = -self._drag_col * self.vel
        for model in self.forces:
            force += model.force(self.t, self.pos, self.vel, self.drag)
        self.t += self.tick
        return force

    def _apply(self, matrices: np.ndarray, vectors: np.ndarray) -> np.ndarray:
        if self._shared:  # one airframe for all: one small matrix product
            return vectors @ matrices[0].T
        return np.einsum("nij,nj->ni", matrices, vectors)

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds / self.tick)):
            self.step()
