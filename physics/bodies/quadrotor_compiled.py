"""The quadrotor bank's control tick and integration step compiled with numba, vehicle by vehicle.

Each function repeats physics.bodies.quadrotor's numpy arithmetic in the same order, with numpy's rules for
NaN and signed zeros (physics.numpy_rules), so a run gives the same trace either way
(tests/physics/bodies/test_quadrotor.py compares them bit for bit). The mixer's matrix products stay in
numpy: its BLAS may fuse multiply-adds, which a loop here would not.
"""

from __future__ import annotations

import math

from numba import njit

from physics.numpy_rules import np_clip, np_max, np_min

_TWO_PI = 2.0 * math.pi
GEAR_DECEL_M_S2 = 30.0
"""How hard the landing gear slows a touching-down quadrotor (m/s², about 3 g), as sprung legs do: over a
few tens of ms, so an accelerometer feels a touchdown as a real IMU does, not as one tick's spike beyond
its range (with which real PX4 lost the stop and believed the vehicle still descended)."""
GEAR_MAX_SINK_M_S = 3.0
"""A touchdown faster than this bottoms the gear out: the ground stops it at once (a crash)."""


@njit(cache=True)
def control(st, sp, fl, c, gains, wrench) -> None:
    """One control tick up to the wrench the controller asks for (thrust, body torques), into `wrench`.

    st: (euler, cos, sin, pos, vel, rates, i_vel, i_rate, err, acc, rate_err) arrays (n, 3).
    sp: setpoint (n, 4). fl: per-vehicle flags, bool (n,) each: position mode, velocities in the
    heading setpoint's frame, holds altitude, holds heading, attitude mode. c: constants (n, 7): mass,
    inertia x, y, z, yaw acceleration, yaw torque per newton, most collective thrust. gains: the
    gains and limits named in physics.bodies.quadrotor._GAINS, then g and the tick (s)."""
    euler = st[0]
    cos = st[1]
    sin = st[2]
    pos = st[3]
    vel = st[4]
    i_vel = st[6]
    err = st[8]
    acc = st[9]
    pos_p, alt_p, max_hs, max_vs, vel_p, vel_i, vert_p, vert_i = gains[:8]
    h = gains[15]
    for i in range(len(sp)):
        for k in range(3):
            cos[i, k] = math.cos(euler[i, k])
            sin[i, k] = math.sin(euler[i, k])
        cy = cos[i, 2]
        sy = sin[i, 2]
        sp0 = sp[i, 0]
        sp1 = sp[i, 1]
        sp2 = sp[i, 2]
        sp3 = sp[i, 3]
        # position or heading-frame speed -> horizontal velocity target
        if fl[0][i]:
            vx = pos_p * (sp0 - pos[i, 0])
            vy = pos_p * (sp1 - pos[i, 1])
        else:
            fy, fs = (math.cos(sp3), math.sin(sp3)) if fl[1][i] else (cy, sy)
            vx = fy * sp0 - fs * sp1
            vy = fs * sp0 + fy * sp1
        scale = np_min(1.0, max_hs / np_max(math.hypot(vx, vy), 1e-9))
        vz = alt_p * (sp2 - pos[i, 2]) if fl[2][i] else sp2
        err[i, 0] = vx * scale - vel[i, 0]
        err[i, 1] = vy * scale - vel[i, 1]
        err[i, 2] = np_clip(vz, -max_vs, max_vs) - vel[i, 2]
        if fl[4][i]:
            err[i, 0] = err[i, 1] = err[i, 2] = 0.0
        for k in range(3):
            i_vel[i, k] += err[i, k] * h
            kp, ki = (vel_p, vel_i) if k < 2 else (vert_p, vert_i)
            acc[i, k] = err[i, k] * kp + ki * i_vel[i, k]
        _targets_and_rates(i, st, sp, fl, c, gains, wrench)


@njit(cache=True, inline="always")
def _yaw_rate(target: float, yaw: float, yaw_p: float, accel: float) -> float:
    """The heading loop: a rate toward `target` (rad/s), proportional near it and at most what
    half the yaw acceleration `accel` can stop in time (the square-root law) farther away."""
    yaw_err = (target - yaw + math.pi) % _TWO_PI - math.pi
    abs_err = abs(yaw_err)
    return math.copysign(np_min(yaw_p * abs_err, math.sqrt(accel * abs_err)), yaw_err)


@njit(cache=True, inline="always")
def _targets_and_rates(i, st, sp, fl, c, gains, wrench) -> None:
    """Acceleration to attitude and thrust, heading to yaw rate, then the rate loop to torques."""
    tilt = gains[8]
    yaw_p = gains[9]
    att_p, max_yaw_rate, rate_p, rate_i, g, h = gains[10:16]
    inv_g = 1.0 / g
    euler = st[0]
    cos = st[1]
    sin = st[2]
    rates = st[5]
    i_rate = st[7]
    acc = st[9]
    rate_err = st[10]
    cr = cos[i, 0]
    cp = cos[i, 1]
    cy = cos[i, 2]
    sy = sin[i, 2]
    ax = acc[i, 0]
    ay = acc[i, 1]
    az = acc[i, 2]
    mass = c[i, 0]
    pitch_cmd = np_clip((cy * ax + sy * ay) * inv_g, -tilt, tilt)
    roll_cmd = np_clip((sy * ax - cy * ay) * inv_g, -tilt, tilt)
    thrust = mass * (g + az) / np_max(cr * cp, 0.5)
    yaw_rate = _yaw_rate(sp[i, 3], euler[i, 2], yaw_p, c[i, 4])
    if not fl[3][i]:
        yaw_rate *= 0.0
    if fl[4][i]:
        roll_cmd = sp[i, 0]
        pitch_cmd = sp[i, 1]
        thrust = sp[i, 3]
        yaw_rate = sp[i, 2]
    rate_err[i, 0] = (roll_cmd - euler[i, 0]) * att_p - rates[i, 0]
    rate_err[i, 1] = (pitch_cmd - euler[i, 1]) * att_p - rates[i, 1]
    rate_err[i, 2] = np_clip(yaw_rate, -max_yaw_rate, max_yaw_rate) - rates[i, 2]
    wrench[i, 0] = thrust
    for k in range(3):
        i_rate[i, k] = np_clip(i_rate[i, k] + rate_err[i, k] * h, -0.5, 0.5)
        wrench[i, 1 + k] = c[i, 1 + k] * (rate_p * rate_err[i, k] + rate_i * i_rate[i, k])
    yaw_limit = c[i, 5] * np_max(np_min(thrust, c[i, 6] - thrust), 0.0)
    wrench[i, 3] = np_clip(wrench[i, 3], -yaw_limit, yaw_limit)


@njit(cache=True)
def limit_rotors(rotor, max_rotor, alive, armed) -> None:
    """Rotor thrusts clipped to [0, max]; a dead or disarmed vehicle's rotors stop."""
    for i in range(len(rotor)):
        for k in range(4):
            r = np_clip(rotor[i, k], 0.0, max_rotor[i])
            if not alive[i]:
                r *= 0.0
            if not armed[i]:
                r *= 0.0
            rotor[i, k] = r


@njit(cache=True)
def thrust_force(wrench, cos, sin, vel, weight, drag, force) -> None:
    """Rotor thrust in the world frame, less the weight and linear drag, into `force` (N)."""
    for i in range(len(force)):
        cr = cos[i, 0]
        cp = cos[i, 1]
        cy = cos[i, 2]
        sr = sin[i, 0]
        sp_ = sin[i, 1]
        sy = sin[i, 2]
        thrust = wrench[i, 0]
        force[i, 0] = thrust * (cy * sp_ * cr + sy * sr) - drag[i] * vel[i, 0]
        force[i, 1] = thrust * (sy * sp_ * cr - cy * sr) - drag[i] * vel[i, 1]
        force[i, 2] = thrust * (cp * cr) - weight[i] - drag[i] * vel[i, 2]


@njit(cache=True)
def _ground(i, pos, vel, force, w, euler, on_ground, h) -> bool:
    """The ground stops vehicle i's descent (its gear at GEAR_DECEL_M_S2, a crash at once) and holds it
    once landed; True if it rests there (the ground bears it, its thrust below its weight), when it
    neither tips nor turns."""
    grounded = pos[i, 2] <= 0.0
    on_ground[i] = grounded
    pos[i, 2] = np_max(pos[i, 2], 0.0)
    if not grounded:
        return False
    vel[i, 0] *= 0.0
    vel[i, 1] *= 0.0
    if vel[i, 2] < -GEAR_MAX_SINK_M_S:
        vel[i, 2] = 0.0
    elif vel[i, 2] < 0.0:  # an upward speed is kept
        vel[i, 2] = np_min(vel[i, 2] + GEAR_DECEL_M_S2 * h, 0.0)
    if force[i, 2] > 0.0:
        return False
    for k in range(3):
        w[i, k] = 0.0
    euler[i, 0] = 0.0
    euler[i, 1] = 0.0
    return True


@njit(cache=True)
def integrate(wrench, cos, sin, force, st, on_ground, inertia, h_over_mass, h_over_inertia, h) -> None:
    """Velocity, position (the ground stops a descent), body rates and Euler angles, one tick on."""
    euler = st[0]
    pos = st[3]
    vel = st[4]
    w = st[5]
    for i in range(len(force)):
        for k in range(3):
            vel[i, k] += force[i, k] * h_over_mass[i]
            pos[i, k] += vel[i, k] * h
        if _ground(i, pos, vel, force, w, euler, on_ground, h):
            continue
        p = w[i, 0]
        q = w[i, 1]
        r = w[i, 2]
        i0 = inertia[i, 0] * p
        i1 = inertia[i, 1] * q
        i2 = inertia[i, 2] * r
        c0 = q * i2 - r * i1
        c1 = r * i0 - p * i2
        c2 = p * i1 - q * i0
        w[i, 0] = p + (wrench[i, 1] - c0) * h_over_inertia[i, 0]
        w[i, 1] = q + (wrench[i, 2] - c1) * h_over_inertia[i, 1]
        w[i, 2] = r + (wrench[i, 3] - c2) * h_over_inertia[i, 2]
        p = w[i, 0]
        q = w[i, 1]
        r = w[i, 2]
        cr = cos[i, 0]
        cp = cos[i, 1]
        sr = sin[i, 0]
        sp_ = sin[i, 1]
        qs_rc = q * sr + r * cr
        euler[i, 0] += (p + qs_rc * sp_ / cp) * h
        euler[i, 1] += (q * cr - r * sr) * h
        yaw = euler[i, 2] + qs_rc / cp * h
        euler[i, 2] = (yaw + math.pi) % _TWO_PI - math.pi
