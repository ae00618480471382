"""The kinematic world's step kernels, compiled with numba: the whole swarm in one loop instead of a
few dozen numpy calls on small arrays.

tests/physics/kinematic/kernels_reference.py holds the same arithmetic in numpy, operation by operation, and
tests/physics/kinematic/test_kernels.py holds the two equal bit for bit. Note the order of a 3-vector's
squared norm: numpy's einsum("ij,ij->i") sums (x^2 + z^2) + y^2 on contiguous rows, and so do these
kernels.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_TWO_PI = 2.0 * math.pi


@njit(cache=True)
def _norm2(x: float, y: float, z: float) -> float:
    return (x * x + z * z) + y * y


@njit(cache=True)
def _wheels_toward(t0: float, t1: float, steer: bool, speed: float, err: float, base: float, gain: float,
                   max_wheel: float, alive: bool, step: float, w0: float, w1: float) -> tuple:
    """One robot's wheel speeds (w0, w1) one step toward their targets (see drive_wheels): scalars
    only, so that a call per robot passes no arrays (a dozen arrays' reference counts cost more
    than this arithmetic)."""
    if steer:
        half = 0.5 * base * gain * err
        t0 = speed - half
        t1 = speed + half
    peak = max(abs(t0), abs(t1))
    if peak > max_wheel:
        scale = max_wheel / peak
        t0 = t0 * scale
        t1 = t1 * scale
    if not alive:
        t0 = 0.0
        t1 = 0.0
    return w0 + min(max(t0 - w0, -step), step), w1 + min(max(t1 - w1, -step), step)


@njit(cache=True, inline="always")
def mod_two_pi(x: float) -> float:
    """np.remainder(x, 2 pi), exact, without its call into C's fmod where one turn at most suffices:
    for |x| < 2 pi, fmod returns x itself, and numpy's remainder then adds 2 pi to a negative x."""
    if 0.0 < x < _TWO_PI:
        return x
    if -_TWO_PI < x < 0.0:
        return x + _TWO_PI
    return np.remainder(x, _TWO_PI)


@njit(cache=True)
def _heading_error(steer: bool, cmd_heading: float, heading: float) -> float:
    """How far a robot steered by heading is to turn, within [-pi, pi) (0 for one that is not)."""
    return mod_two_pi(cmd_heading - heading + math.pi) - math.pi if steer else 0.0


@njit(cache=True)
def drive_wheels(dt: float, alive: np.ndarray, cmd_wheels: np.ndarray, steer: np.ndarray, cmd_speed: np.ndarray,
                 cmd_heading: np.ndarray, heading: np.ndarray, base: np.ndarray, gain: np.ndarray, max_wheel: np.ndarray,
                 accel: np.ndarray, wheels: np.ndarray) -> None:
    """Differential-drive wheel speeds toward their targets within the acceleration limit (in place)."""
    for k in range(len(base)):
        wheels[k, 0], wheels[k, 1] = _wheels_toward(
            cmd_wheels[k, 0], cmd_wheels[k, 1], steer[k], cmd_speed[k], _heading_error(steer[k], cmd_heading[k], heading[k]),
            base[k], gain[k], max_wheel[k], alive[k], accel[k] * dt, wheels[k, 0], wheels[k, 1])


@njit(cache=True)
def drive_step(dt: float, alive: np.ndarray, cmd_wheels: np.ndarray, steer: np.ndarray, cmd_speed: np.ndarray,
               cmd_heading: np.ndarray, base: np.ndarray, gain: np.ndarray, max_wheel: np.ndarray, accel: np.ndarray,
               wheels: np.ndarray, pos: np.ndarray, heading: np.ndarray) -> None:
    """Differential-drive robots: wheel targets, acceleration limits, exact arcs (in place)."""
    for k in range(len(base)):
        wheels[k, 0], wheels[k, 1] = _wheels_toward(
            cmd_wheels[k, 0], cmd_wheels[k, 1], steer[k], cmd_speed[k], _heading_error(steer[k], cmd_heading[k], heading[k]),
            base[k], gain[k], max_wheel[k], alive[k], accel[k] * dt, wheels[k, 0], wheels[k, 1])
        w0 = wheels[k, 0]
        w1 = wheels[k, 1]
        v = (w0 + w1) / 2.0
        w = (w1 - w0) / base[k]
        th = heading[k]
        if abs(w) < 1e-9:
            dx = v * math.cos(th) * dt
            dy = v * math.sin(th) * dt
        else:
            dx = v / w * (math.sin(th + w * dt) - math.sin(th))
            dy = -v / w * (math.cos(th + w * dt) - math.cos(th))
        pos[k, 0] += dx
        pos[k, 1] += dy
        heading[k] = mod_two_pi(th + w * dt + math.pi) - math.pi


@njit(cache=True)
def move_points(dt: float, max_accel: float, heading: np.ndarray, cmd: np.ndarray, max_speed: np.ndarray,
                alive: np.ndarray, vel: np.ndarray, pos: np.ndarray, trig: np.ndarray) -> None:
    """Body-frame velocity commands to world velocities (capped at max_speed, zero for the dead),
    an acceleration limit when max_accel is finite, then one Euler step of the positions. `trig`
    rows hold (heading, cos, sin) from earlier steps: the sine and cosine of a heading that has
    not changed are not computed again."""
    finite = math.isfinite(max_accel)
    limit = max_accel * dt
    for k in range(len(heading)):
        if trig[k, 0] != heading[k]:  # NaN (never computed) too
            trig[k, 0] = heading[k]
            trig[k, 1] = math.cos(heading[k])
            trig[k, 2] = math.sin(heading[k])
        c = trig[k, 1]
        s = trig[k, 2]
        v0 = cmd[k, 0]
        v1 = cmd[k, 1]
        v2 = cmd[k, 2]
        o0 = c * v0 - s * v1
        o1 = s * v0 + c * v1
        o2 = v2
        speed = math.sqrt(_norm2(o0, o1, o2))
        if speed > max_speed[k]:
            scale = max_speed[k] / speed
            o0 = o0 * scale
            o1 = o1 * scale
            o2 = o2 * scale
        if not alive[k]:
            o0 = 0.0
            o1 = 0.0
            o2 = 0.0
        if finite:
            d0 = o0 - vel[k, 0]
            d1 = o1 - vel[k, 1]
            d2 = o2 - vel[k, 2]
            norm = math.sqrt(_norm2(d0, d1, d2))
            f = min(1.0, limit / max(norm, 1e-12))
            vel[k, 0] += d0 * f
            vel[k, 1] += d1 * f
            vel[k, 2] += d2 * f
        else:
            vel[k, 0] = o0
            vel[k, 1] = o1
            vel[k, 2] = o2
        pos[k, 0] += vel[k, 0] * dt
        pos[k, 1] += vel[k, 1] * dt
        pos[k, 2] += vel[k, 2] * dt


@njit(cache=True)
def push_apart(pos: np.ndarray, radius: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Separate overlapping pairs (i, j) by half the overlap each, along the line between them; the
    pushes are computed from the positions before any of them, applied to every i, then every j.
    Returns which pairs overlapped."""
    m = len(i)
    hit = np.zeros(m, dtype=np.bool_)
    push = np.empty((m, 3))
    for k in range(m):
        a = i[k]
        b = j[k]
        d0 = pos[b, 0] - pos[a, 0]
        d1 = pos[b, 1] - pos[a, 1]
        d2 = pos[b, 2] - pos[a, 2]
        dist = math.sqrt(_norm2(d0, d1, d2))
        overlap = radius[a] + radius[b] - dist
        if overlap > 0:
            hit[k] = True
            if dist < 1e-9:
                u0 = 1.0
                u1 = 0.0
                u2 = 0.0
            else:
                q = max(dist, 1e-9)
                u0 = d0 / q
                u1 = d1 / q
                u2 = d2 / q
            half = 0.5 * overlap
            push[k, 0] = u0 * half
            push[k, 1] = u1 * half
            push[k, 2] = u2 * half
    for k in range(m):
        if hit[k]:
            a = i[k]
            pos[a, 0] += -push[k, 0]
            pos[a, 1] += -push[k, 1]
            pos[a, 2] += -push[k, 2]
    for k in range(m):
        if hit[k]:
            b = j[k]
            pos[b, 0] += push[k, 0]
            pos[b, 1] += push[k, 1]
            pos[b, 2] += push[k, 2]
    return hit


@njit(cache=True)
def drive_writeback(di: np.ndarray, dpos: np.ndarray, wheels: np.ndarray, dheading: np.ndarray, pos: np.ndarray,
                    vel: np.ndarray, heading: np.ndarray) -> None:
    """The world takes its differential-drive robots' poses and velocities from their bank."""
    for k in range(len(di)):
        i = di[k]
        pos[i, 0] = dpos[k, 0]
        pos[i, 1] = dpos[k, 1]
        v = (wheels[k, 0] + wheels[k, 1]) / 2.0
        h = dheading[k]
        vel[i, 0] = v * math.cos(h)
        vel[i, 1] = v * math.sin(h)
        vel[i, 2] = 0.0
        heading[i] = h


@njit(cache=True)
def drive_blocked(di: np.ndarray, pos: np.ndarray, dpos: np.ndarray, wheels: np.ndarray, vel: np.ndarray) -> None:
    """A differential-drive robot that collisions or walls moved has its wheels stopped there."""
    for k in range(len(di)):
        i = di[k]
        if pos[i, 0] != dpos[k, 0] or pos[i, 1] != dpos[k, 1]:
            wheels[k, 0] = 0.0
            wheels[k, 1] = 0.0
            dpos[k, 0] = pos[i, 0]
            dpos[k, 1] = pos[i, 1]
            vel[i, 0] = 0.0
            vel[i, 1] = 0.0
            vel[i, 2] = 0.0


@njit(cache=True)
def remainder(x: float, y: float) -> float:
    """IEEE remainder (math.remainder), exact: x - n*y with n the nearest integer to x/y, ties to even.
    Headings stay within a turn of [-y/2, y/2]; there x - y and x + y are exact (Sterbenz), so n = 0
    or +-1 needs no fmod (a call into C)."""
    half = 0.5 * y
    if abs(x) <= half:
        return x
    r = x - y if x > 0 else x + y
    if abs(r) < half and abs(x) <= 2.0 * y:
        return r
    r = np.fmod(x, y)
    if abs(r) > half or (abs(r) == half and (round((x - r) / y) % 2) != 0):
        r = r - y if r > 0 else r + y
    return r
