"""The compiled physics kernels do exactly what the numpy code they replaced did, bit for bit."""

from __future__ import annotations

import math

import numpy as np

from physics.kernels import drive_step, move_points, push_apart


def _drive_reference(dt, alive, cmd_wheels, steer, cmd_speed, cmd_heading, base, gain, max_wheel, accel, wheels, pos, heading):
    target = cmd_wheels.copy()
    s = steer
    if s.any():
        err = np.remainder(cmd_heading[s] - heading[s] + math.pi, 2.0 * math.pi) - math.pi
        half = 0.5 * base[s] * gain[s] * err
        target[s, 0] = cmd_speed[s] - half
        target[s, 1] = cmd_speed[s] + half
    peak = np.abs(target).max(axis=1)
    over = peak > max_wheel
    if over.any():
        target[over] *= (max_wheel[over] / peak[over])[:, None]
    target[~alive] = 0.0
    step = accel[:, None] * dt
    wheels += np.clip(target - wheels, -step, step)
    v, w = wheels.mean(axis=1), (wheels[:, 1] - wheels[:, 0]) / base
    th = heading.copy()
    straight = np.abs(w) < 1e-9
    safe_w = np.where(straight, 1.0, w)
    dx = np.where(straight, v * np.cos(th) * dt, v / safe_w * (np.sin(th + w * dt) - np.sin(th)))
    dy = np.where(straight, v * np.sin(th) * dt, -v / safe_w * (np.cos(th + w * dt) - np.cos(th)))
    pos[:, 0] += dx
    pos[:, 1] += dy
    heading[:] = np.remainder(th + w * dt + math.pi, 2.0 * math.pi) - math.pi


def test_drive_step_matches_numpy():
    rng = np.random.default_rng(4)
    n = 500
    args = [0.01, rng.random(n) > 0.1, rng.normal(0, 0.05, (n, 2)), rng.random(n) > 0.5, rng.normal(0, 0.03, n),
            rng.uniform(-4, 4, n), rng.uniform(0.02, 0.1, n), rng.uniform(0.5, 3, n), rng.uniform(0.01, 0.04, n),
            rng.uniform(0.1, 1, n)]
    args[2][:20] = 0.0  # straight and stopped robots
    state = [rng.normal(0, 0.02, (n, 2)), rng.normal(0, 1, (n, 3)), rng.uniform(-math.pi, math.pi, n)]
    ref = [x.copy() for x in state]
    for _ in range(50):
        drive_step(*args, *state)
        _drive_reference(*args, *ref)
    for got, want in zip(state, ref):
        assert np.array_equal(got, want)


def test_move_points_matches_numpy():
    rng = np.random.default_rng(5)
    n = 400
    heading, cmd = rng.uniform(-math.pi, math.pi, n), rng.normal(0, 2, (n, 3))
    max_speed, alive = rng.uniform(0.5, 3, n), rng.random(n) > 0.1
    for max_accel in (math.inf, 2.5):
        vel, pos = rng.normal(0, 1, (n, 3)), rng.normal(0, 10, (n, 3))
        v2, p2 = vel.copy(), pos.copy()
        move_points(0.01, max_accel, heading, cmd, max_speed, alive, vel, pos)
        c, s = np.cos(heading), np.sin(heading)
        out = np.column_stack([c * cmd[:, 0] - s * cmd[:, 1], s * cmd[:, 0] + c * cmd[:, 1], cmd[:, 2]])
        speed = np.sqrt(np.einsum("ij,ij->i", out, out))
        over = speed > max_speed
        out[over] *= (max_speed[over] / speed[over])[:, None]
        out[~alive] = 0.0
        if math.isfinite(max_accel):
            dv = out - v2
            norm = np.sqrt(np.einsum("ij,ij->i", dv, dv))
            v2 += dv * np.minimum(1.0, max_accel * 0.01 / np.maximum(norm, 1e-12))[:, None]
        else:
            v2 = out
        p2 += v2 * 0.01
        assert np.array_equal(vel, v2) and np.array_equal(pos, p2)


def test_push_apart_matches_numpy_add_at():
    rng = np.random.default_rng(6)
    n = 300
    pos = rng.uniform(0, 3, (n, 3))
    pos[1] = pos[0]  # coincident
    radius = rng.uniform(0.05, 0.15, n)
    i, j = np.triu_indices(n, 1)
    ref = pos.copy()
    hit = push_apart(pos, radius, i, j)
    d = ref[j] - ref[i]
    dist = np.sqrt(np.einsum("ij,ij->i", d, d))
    overlap = radius[i] + radius[j] - dist
    h = overlap > 0
    ii, jj, d, dist, overlap = i[h], j[h], d[h], dist[h], overlap[h]
    unit = d / np.maximum(dist, 1e-9)[:, None]
    unit[dist < 1e-9] = (1.0, 0.0, 0.0)
    push = unit * (0.5 * overlap)[:, None]
    np.add.at(ref, ii, -push)
    np.add.at(ref, jj, push)
    assert np.array_equal(hit, h) and h.sum() > 50
    assert np.array_equal(pos, ref)


def test_drive_writeback_and_blocked_match_numpy():
    from physics.kernels import drive_blocked, drive_writeback

    rng = np.random.default_rng(8)
    n, m = 50, 30
    di = np.sort(rng.choice(n, m, replace=False))
    dpos, wheels, dheading = rng.normal(0, 1, (m, 3)), rng.normal(0, 0.02, (m, 2)), rng.uniform(-3, 3, m)
    pos, vel, heading = rng.normal(0, 1, (n, 3)), rng.normal(0, 1, (n, 3)), rng.uniform(-3, 3, n)
    p2, v2, h2 = pos.copy(), vel.copy(), heading.copy()
    drive_writeback(di, dpos, wheels, dheading, pos, vel, heading)
    p2[di, :2] = dpos[:, :2]
    speed = wheels.mean(axis=1)
    v2[di] = np.column_stack([speed * np.cos(dheading), speed * np.sin(dheading), np.zeros(m)])
    h2[di] = dheading
    assert np.array_equal(pos, p2) and np.array_equal(vel, v2) and np.array_equal(heading, h2)
    pos[di[:5], 0] += 0.1  # five robots pushed by a collision
    dp2, w2, v3 = dpos.copy(), wheels.copy(), vel.copy()
    drive_blocked(di, pos, dpos, wheels, vel)
    blocked = np.any(pos[di, :2] != dp2[:, :2], axis=1)
    w2[blocked] = 0.0
    dp2[:, :2] = pos[di, :2]
    v3[di[blocked]] = 0.0
    assert blocked.sum() == 5 and np.array_equal(dpos, dp2) and np.array_equal(wheels, w2) and np.array_equal(vel, v3)
