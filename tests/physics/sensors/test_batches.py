"""Reading many robots' sensors at once (group controllers) gives what reading each one gives."""

from __future__ import annotations

import numpy as np

from physics.kinematic.world import KinematicWorld
from physics.sensors.onboard import Compass, CompassOptions, Gps, GpsOptions, read_many
from physics.world import Arena, RobotSpec


def _world(n: int, seed: int) -> KinematicWorld:
    rng = np.random.default_rng(seed)
    w = KinematicWorld(Arena((-50, -50, 0), (50, 50, 10)), collisions=False)
    for _ in range(n):
        w.add_robot(RobotSpec(position=tuple(rng.uniform(-40, 40, 3) * (1, 1, 0)), heading=float(rng.uniform(-3, 3))))
    w.start()
    return w


def _sensors(cls, w: KinematicWorld, options: list) -> list:
    return [cls(w, i, opt, np.random.default_rng(100 + i)) for i, opt in enumerate(options)]


def test_compasses_read_together_equal_compasses_read_one_by_one():
    """Mixed noise, bias and rates; reads at several instants, with robots turning in between: the
    same values bit for bit, and each robot's noise stream advanced by the same draws."""
    opts = [CompassOptions(noise_std=0.1 * (i % 3), bias=0.01 * (i % 4), rate_hz=float(i % 2) * 2.0) for i in range(40)]
    w = _world(40, 1)
    one, many = _sensors(Compass, w, opts), _sensors(Compass, w, opts)
    turn = np.random.default_rng(2)
    for step in range(12):
        w.cmd_heading[:] = turn.uniform(-3.2, 3.2, 40)
        w.latch()
        w.step(0.1)
        rows = list(range(0, 40, 1 + step % 3))
        got = read_many([many[k] for k in rows])
        want = np.array([one[k].read() for k in rows])
        assert np.array_equal(got, want)
    w.step(0.5)  # every stream advanced by the same draws: the next reads agree too
    assert [s.read() for s in many] == [s.read() for s in one]


def test_sensors_without_a_batch_form_are_read_one_by_one():
    w = _world(5, 3)
    gps = _sensors(Gps, w, [GpsOptions(noise_std=0.5)] * 5)
    twin = _sensors(Gps, w, [GpsOptions(noise_std=0.5)] * 5)
    assert np.array_equal(read_many(gps), np.array([s.read() for s in twin]))
    assert read_many([]).shape == (0,)
