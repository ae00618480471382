"""The kinematic world's step kernels in numpy: the reference the compiled ones (physics.kinematic.kernels)
match bit for bit."""

from __future__ import annotations

import math

import numpy as np

_TWO_PI = 2.0 * math.pi


def drive_wheels(dt: float, alive: np.ndarray, cmd_wheels: np.ndarray, steer: np.ndarray, cmd_speed: np.ndarray,
                 cmd_heading: np.ndarray, heading: np.ndarray, base: np.ndarray, gain: np.ndarray, max_wheel: np.ndarray,
                 accel: np.ndarray, wheels: np.ndarray) -> None:
    """Differential-drive wheel speeds toward their targets (commanded, or steering to a heading;
    capped at the top speed; zero for the dead) within the acceleration limit (in place)."""
    if steer.all():  # the common case (generic velocity commands): no row selection
        err = np.remainder(cmd_heading - heading + math.pi, _TWO_PI) - math.pi
        half = 0.5 * base * gain * err
        target = np.empty_like(cmd_wheels)
        np.subtract(cmd_speed, half, out=target[:, 0])
        np.add(cmd_speed, half, out=target[:, 1])
    else:
        target = cmd_wheels.copy()
        if steer.any():
            err = np.remainder(cmd_heading[steer] - heading[steer] + math.pi, _TWO_PI) - math.pi
            half = 0.5 * base[steer] * gain[steer] * err
            target[steer, 0] = cmd_speed[steer] - half
            target[steer, 1] = cmd_speed[steer] + half
    peak = np.maximum(np.abs(target[:, 0]), np.abs(target[:, 1]))
    over = peak > max_wheel
    if over.any():
        target[over] *= (max_wheel[over] / peak[over])[:, None]
    if not alive.all():
        target[~alive] = 0.0
    step = (accel * dt)[:, None]
    wheels += np.minimum(np.maximum(target - wheels, -step), step)


def drive_step(dt: float, alive: np.ndarray, cmd_wheels: np.ndarray, steer: np.ndarray, cmd_speed: np.ndarray,
               cmd_heading: np.ndarray, base: np.ndarray, gain: np.ndarray, max_wheel: np.ndarray, accel: np.ndarray,
               wheels: np.ndarray, pos: np.ndarray, heading: np.ndarray) -> None:
    """Differential-drive robots: wheel targets, acceleration limits, exact arcs (in place)."""
    drive_wheels(dt, alive, cmd_wheels, steer, cmd_speed, cmd_heading, heading, base, gain, max_wheel, accel, wheels)
    v, w = wheels.mean(axis=1), (wheels[:, 1] - wheels[:, 0]) / base
    th = heading.copy()
    straight = np.abs(w) < 1e-9
    safe_w = np.where(straight, 1.0, w)
    pos[:, 0] += np.where(straight, v * np.cos(th) * dt, v / safe_w * (np.sin(th + w * dt) - np.sin(th)))
    pos[:, 1] += np.where(straight, v * np.sin(th) * dt, -v / safe_w * (np.cos(th + w * dt) - np.cos(th)))
    heading[:] = np.remainder(th + w * dt + math.pi, _TWO_PI) - math.pi


def move_points(dt: float, max_accel: float, heading: np.ndarray, cmd: np.ndarray, max_speed: np.ndarray,
                alive: np.ndarray, vel: np.ndarray, pos: np.ndarray, trig: np.ndarray) -> None:
    """Body-frame velocity commands to world velocities (capped at max_speed, zero for the dead),
    an acceleration limit when max_accel is finite, then one Euler step of the positions. `trig`
    rows become (heading, cos, sin), as the compiled twin keeps them."""
    c, s = np.cos(heading), np.sin(heading)
    trig[:, 0], trig[:, 1], trig[:, 2] = heading, c, s
    out = np.empty_like(cmd)
    out[:, 0] = c * cmd[:, 0] - s * cmd[:, 1]
    out[:, 1] = s * cmd[:, 0] + c * cmd[:, 1]
    out[:, 2] = cmd[:, 2]
    speed = np.sqrt(np.einsum("ij,ij->i", out, out))
    over = speed > max_speed
    if over.any():
        out[over] *= (max_speed[over] / speed[over])[:, None]
    out[~alive] = 0.0
    if math.isfinite(max_accel):
        dv = out - vel
        norm = np.sqrt(np.einsum("ij,ij->i", dv, dv))
        vel += dv * np.minimum(1.0, max_accel * dt / np.maximum(norm, 1e-12))[:, None]
    else:
        np.copyto(vel, out)
    pos += vel * dt


def push_apart(pos: np.ndarray, radius: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Separate overlapping pairs (i, j) by half the overlap each (pushes from the positions before
    any of them, applied to every i, then every j); returns which pairs overlapped."""
    d = pos[j] - pos[i]
    dist = np.sqrt(np.einsum("ij,ij->i", d, d))
    overlap = radius[i] + radius[j] - dist
    hit = overlap > 0
    if hit.any():
        ii, jj, d, dist, overlap = i[hit], j[hit], d[hit], dist[hit], overlap[hit]
        unit = d / np.maximum(dist, 1e-9)[:, None]
        unit[dist < 1e-9] = (1.0, 0.0, 0.0)
        push = unit * (0.5 * overlap)[:, None]
        np.add.at(pos, ii, -push)
        np.add.at(pos, jj, push)
    return hit


def drive_writeback(di: np.ndarray, dpos: np.ndarray, wheels: np.ndarray, dheading: np.ndarray, pos: np.ndarray,
                    vel: np.ndarray, heading: np.ndarray) -> None:
    """The world takes its differential-drive robots' poses and velocities from their bank."""
    pos[di, :2] = dpos[:, :2]
    v = wheels.mean(axis=1)
    vel[di, 0] = v * np.cos(dheading)
    vel[di, 1] = v * np.sin(dheading)
    vel[di, 2] = 0.0
    heading[di] = dheading


def drive_blocked(di: np.ndarray, pos: np.ndarray, dpos: np.ndarray, wheels: np.ndarray, vel: np.ndarray) -> None:
    """A differential-drive robot that collisions or walls moved has its wheels stopped there."""
    blocked = np.any(pos[di, :2] != dpos[:, :2], axis=1)
    if blocked.any():
        wheels[blocked] = 0.0
        dpos[blocked, :2] = pos[di[blocked], :2]
        vel[di[blocked]] = 0.0
