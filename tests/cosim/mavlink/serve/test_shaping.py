"""The shaped path a served copter chases (cosim.mavlink.serve.shaping): within its speed, acceleration
and jerk limits, at the point it was sent to, and steady however stiff the limits."""

import math

import numpy as np
import pytest

from cosim.mavlink.serve.shaping import Limits, ShapedPath

LIMITS = Limits(speed=10.0, climb=2.5, sink=1.5, accel=2.5, accel_z=1.0, jerk=5.0, jerk_z=5.0)
DT = 0.01


def trace(path: ShapedPath, seconds: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pos, vel, acc = [], [], []
    for _ in range(round(seconds / DT)):
        path.step(DT)
        pos.append(path.position)
        vel.append(path.velocity)
        acc.append(path.acceleration)
    return np.array(pos), np.array(vel), np.array(acc)


@pytest.mark.parametrize("distance", [2.0, 20.0, 100.0])
def test_a_point_is_reached_within_the_limits(distance):
    path = ShapedPath(LIMITS)
    path.reset((0.0, 0.0, 10.0))
    path.to_point(0.0, distance, 10.0)
    pos, vel, acc = trace(path, 40.0)
    speed = np.hypot(vel[:, 0], vel[:, 1])
    assert speed.max() <= LIMITS.speed + 1e-9
    assert np.hypot(acc[:, 0], acc[:, 1]).max() <= LIMITS.accel + 1e-9
    assert np.abs(np.diff(acc[:, 1])).max() <= LIMITS.jerk * DT + 1e-9
    assert pos[-1] == pytest.approx((0.0, distance, 10.0), abs=0.01) and speed[-1] < 0.01
    if distance == 100.0:
        assert speed.max() == pytest.approx(LIMITS.speed, rel=1e-3)  # a long leg reaches the speed limit


def test_climb_and_sink_have_their_own_limits():
    path = ShapedPath(LIMITS)
    path.reset((0.0, 0.0, 0.0))
    path.to_point(0.0, 0.0, 20.0)
    _, up, _ = trace(path, 30.0)
    path.to_point(0.0, 0.0, 0.0)
    _, down, _ = trace(path, 30.0)
    assert up[:, 2].max() == pytest.approx(LIMITS.climb, rel=1e-3)
    assert down[:, 2].min() == pytest.approx(-LIMITS.sink, rel=1e-3)


def test_a_leg_flies_within_its_own_limits_and_a_velocity_is_held():
    path = ShapedPath(LIMITS)
    path.reset((0.0, 0.0, 10.0))
    path.to_point(0.0, 200.0, 10.0, Limits(3.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0))
    _, vel, acc = trace(path, 20.0)
    assert np.hypot(vel[:, 0], vel[:, 1]).max() == pytest.approx(3.0, rel=1e-3)
    assert np.abs(acc[:, 1]).max() <= 1.0 + 1e-9
    path.to_velocity(-4.0, 0.0, 0.0)  # a velocity is not capped by the speed limit, only shaped
    _, vel, _ = trace(path, 10.0)
    assert vel[-1] == pytest.approx((-4.0, 0.0, 0.0), abs=1e-3)


def test_a_stiff_path_does_not_ring():
    """PX4's offboard setpoints are unshaped (a jerk of 1000 m/s/s/s): stepping at 10 ms must still settle."""
    stiff = Limits(12.0, 3.0, 1.5, 9.8, 4.0, 1000.0, 1000.0)
    path = ShapedPath(stiff)
    path.reset((0.0, 0.0, 3.0), (0.0, 1.0, 0.5))  # moving when told to hold
    path.to_point(0.0, 0.0, 3.0)
    pos, vel, _ = trace(path, 3.0)
    assert np.abs(pos[:, 2] - 3.0).max() < 0.05 and np.abs(vel[-1]).max() < 1e-6
    path.to_point(0.0, 5.0, 3.0)
    pos, vel, _ = trace(path, 5.0)
    assert pos[:, 1].max() <= 5.001 and pos[-1, 1] == pytest.approx(5.0, abs=1e-3)


def test_limits_that_are_not_positive_are_refused():
    path = ShapedPath(LIMITS)
    with pytest.raises(ValueError, match=r"accel is a positive number, got 0\.0"):
        path.set_limits(Limits(10.0, 2.5, 1.5, 0.0, 1.0, 5.0, 5.0))
    with pytest.raises(ValueError, match="jerk is a positive number, got nan"):
        path.set_limits(Limits(10.0, 2.5, 1.5, 2.5, 1.0, math.nan, 5.0))
