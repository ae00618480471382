"""The compiled physics kernels do exactly what their numpy references do, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physics.kinematic import kernels as compiled
from tests.physics.kinematic import kernels_reference as reference

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def _twice(fn_name: str, *args):
    """Run the numpy and the compiled kernel on copies of the same arrays; return both argument lists."""
    a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    b = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    ra = getattr(reference, fn_name)(*a)
    rb = getattr(compiled, fn_name)(*b)
    return a, b, ra, rb


def _same(a: list, b: list) -> bool:
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b))


def test_drive_step():
    rng = np.random.default_rng(4)
    n = 500
    cmd = rng.normal(0, 0.05, (n, 2))
    cmd[:20] = 0.0  # straight and stopped robots
    args = [0.01, rng.random(n) > 0.1, cmd, rng.random(n) > 0.5, rng.normal(0, 0.03, n), rng.uniform(-4, 4, n),
            rng.uniform(0.02, 0.1, n), rng.uniform(0.5, 3, n), rng.uniform(0.01, 0.04, n), rng.uniform(0.1, 1, n),
            rng.normal(0, 0.02, (n, 2)), rng.normal(0, 1, (n, 3)), rng.uniform(-math.pi, math.pi, n)]
    for _ in range(3):
        a, b, _, _ = _twice("drive_step", *args)
        assert _same(a, b)
        args = a


def test_drive_wheels():
    """The wheels alone (the rigid world's ramp), with every robot steering by heading, none, and some."""
    rng = np.random.default_rng(7)
    n = 300
    for steer in (np.ones(n, dtype=bool), np.zeros(n, dtype=bool), rng.random(n) > 0.5):
        args = [0.01, rng.random(n) > 0.1, rng.normal(0, 1.0, (n, 2)), steer, rng.normal(0, 0.5, n),
                rng.uniform(-4, 4, n), rng.uniform(-math.pi, math.pi, n), rng.uniform(0.1, 0.4, n), rng.uniform(0.5, 3, n),
                rng.uniform(0.3, 1.0, n), rng.uniform(0.5, 3, n), rng.normal(0, 0.5, (n, 2))]
        for _ in range(3):
            a, b, _, _ = _twice("drive_wheels", *args)
            assert _same(a, b)
            dead, before, after = ~args[1], np.abs(args[-1]), np.abs(a[-1])
            slowing = dead[:, None] & (before > 0)
            assert slowing.any() and np.all(after[slowing] < before[slowing])  # the dead slow down, within the limit
            assert np.all(before[dead] - after[dead] <= args[-2][dead, None] * 0.01 + 1e-12)
            args = a


def test_move_points():
    rng = np.random.default_rng(5)
    n = 400
    for max_accel in (math.inf, 2.5):
        args = [0.01, max_accel, rng.uniform(-math.pi, math.pi, n), rng.normal(0, 2, (n, 3)), rng.uniform(0.5, 3, n),
                rng.random(n) > 0.1, rng.normal(0, 1, (n, 3)), rng.normal(0, 10, (n, 3)), np.full((n, 3), np.nan)]
        for _ in range(3):  # the second and third steps reuse the sines and cosines of unchanged headings
            a, b, _, _ = _twice("move_points", *args)
            assert _same(a, b)
            args = a
            args[2] = args[2].copy()
            args[2][::3] += 0.1


def test_push_apart():
    rng = np.random.default_rng(6)
    n = 300
    pos = rng.uniform(0, 3, (n, 3))
    pos[1] = pos[0]  # coincident
    i, j = np.triu_indices(n, 1)
    a, b, hit_a, hit_b = _twice("push_apart", pos, rng.uniform(0.05, 0.15, n), i, j)
    assert _same(a, b) and np.array_equal(hit_a, hit_b) and hit_a.sum() > 50


def test_drive_writeback_and_blocked():
    rng = np.random.default_rng(8)
    n, m = 50, 30
    di = np.sort(rng.choice(n, m, replace=False))
    a, b, _, _ = _twice("drive_writeback", di, rng.normal(0, 1, (m, 3)), rng.normal(0, 0.02, (m, 2)), rng.uniform(-3, 3, m),
                        rng.normal(0, 1, (n, 3)), rng.normal(0, 1, (n, 3)), rng.uniform(-3, 3, n))
    assert _same(a, b)
    pos, dpos = rng.normal(0, 1, (n, 3)), rng.normal(0, 1, (m, 3))
    dpos[5:, :2] = pos[di[5:], :2]  # all but five robots where their bank put them
    a, b, _, _ = _twice("drive_blocked", di, pos, dpos, rng.normal(0, 0.02, (m, 2)), rng.normal(0, 1, (n, 3)))
    assert _same(a, b) and np.count_nonzero(a[3][:, 0] == 0.0) == 5
