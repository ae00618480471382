"""Range rays return the true distance to a box, within the noise setting, on both worlds.

    robot (r = 0.1) at (0, 0), heading +x          box 1 x 4 x 2 m centred at (3, 0): near face at x = 2.5

        (0,0) o --- 2.4 m from the robot's surface ---> |####|
"""

import math

import numpy as np
import pytest

from physics.kinematic.world import KinematicWorld
from physics.pybullet.world import PybulletWorld
from physics.robot import Robot
from physics.sensors.onboard import RangeOptions, RangeSensor
from physics.world import Arena, Box, RobotSpec

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1

BOX = Box((3.0, 0.0, 1.0), (1.0, 4.0, 2.0))
ARENA = Arena((-20, -20, 0), (20, 20, 10))


def make(kind, *positions):
    if kind == "kinematic":
        w = KinematicWorld(ARENA, collisions=False, obstacles=(BOX,))
    else:
        w = PybulletWorld(ARENA, 0.01, obstacles=(BOX,), ground=False)
    for p in positions:
        w.add_robot(RobotSpec(p))
    w.start()
    return w


@pytest.mark.parametrize("kind", ["kinematic", "pybullet"])
def test_rays_measure_the_distance_to_a_box(kind):
    w = make(kind, (0.0, 0.0, 1.0))
    sensor = RangeSensor(w, 0, RangeOptions(count=4, max_range=5.0), np.random.default_rng(0))
    robot = Robot(w, 0, {"range": sensor})
    assert robot.ranges() == pytest.approx([2.4, 5.0, 5.0, 5.0], abs=1e-3)
    robot.turn(math.pi / 2)  # now facing +y: the box is on the right, the last ray (270 degrees)
    w.latch()
    assert robot.ranges() == pytest.approx([5.0, 5.0, 5.0, 2.4], abs=1e-3)
    w.close()


@pytest.mark.parametrize("kind", ["kinematic", "pybullet"])
def test_noise_and_bias_follow_the_settings(kind):
    w = make(kind, (0.0, 0.0, 1.0))
    sensor = RangeSensor(w, 0, RangeOptions(count=1, fov_deg=0.0, max_range=5.0, noise_std=0.05, bias=0.1),
                         np.random.default_rng(3))
    reads = np.array([sensor.read()[0] for _ in range(2000)])
    assert reads.mean() == pytest.approx(2.5, abs=3 * 0.05 / math.sqrt(2000))
    assert reads.std() == pytest.approx(0.05, rel=0.1)
    w.close()


def test_other_robots_are_obstacles_in_the_kinematic_world():
    w = make("kinematic", (0.0, 0.0, 1.0), (1.0, 0.0, 1.0))
    sensor = RangeSensor(w, 0, RangeOptions(count=1, fov_deg=0.0), np.random.default_rng(0))
    assert sensor.read()[0] == pytest.approx(0.8)  # 1 m between centres, two radii of 0.1


def test_field_of_view_spreads_rays_symmetrically():
    assert np.degrees(RangeOptions(count=3, fov_deg=90).angles()).tolist() == pytest.approx([-45, 0, 45])
    assert np.degrees(RangeOptions(count=4).angles()).tolist() == pytest.approx([0, 90, 180, 270])
    with pytest.raises(ValueError, match="count must be between 1 and 10,000 rays, got 0"):
        RangeOptions(count=0)


@pytest.mark.parametrize("kind", ["kinematic", "pybullet"])
def test_a_sampling_rate_casts_every_robot_together_and_holds_the_readings(kind, monkeypatch):
    """Ten robots in a row facing the box, range at 10 Hz: the first read of a tick casts all of
    them (pybullet: one rayTestBatch), the readings equal individual casts, and they hold until
    the next tick."""
    positions = [(0.0, -1.8 + 0.4 * k, 1.0) for k in range(10)]
    w = make(kind, *positions)
    opts = RangeOptions(count=4, max_range=5.0, rate_hz=10.0)
    sensors = [RangeSensor(w, i, opts, np.random.default_rng(i)) for i in range(10)]
    calls = []
    if kind == "pybullet":
        import pybullet

        real = pybullet.rayTestBatch
        monkeypatch.setattr(pybullet, "rayTestBatch", lambda *a, **k: calls.append(len(a[0])) or real(*a, **k))
    first = [s.read() for s in sensors]
    if kind == "pybullet":
        assert calls == [40]  # all ten robots' four rays in one call
    for i, reading in enumerate(first):
        assert reading == pytest.approx(w.cast_rays(i, sensors[i].directions(), 5.0), abs=1e-9)
        assert reading[0] == pytest.approx(2.4, abs=1e-3)
    w.step(0.05)
    assert all(np.array_equal(s.read(), f) for s, f in zip(sensors, first))  # still the same 100 ms tick
    w.close()


@pytest.mark.parametrize("kind", ["kinematic", "pybullet"])
def test_without_a_rate_a_group_read_is_one_cast_and_equals_reads_one_by_one(kind, monkeypatch):
    """No `rate_hz`: a group's read at one instant casts every robot's rays in one call to the world
    (not a cast per robot, as before), each reading fresh; with noise from each robot's own stream
    the readings equal each robot's own read() (one cast_fan call each), to the bit."""
    positions = [(0.0, -1.8 + 0.4 * k, 1.0) for k in range(10)]
    w = make(kind, *positions)
    opts = RangeOptions(count=4, max_range=5.0, noise_std=0.01)
    together = [RangeSensor(w, i, opts, np.random.default_rng(i)) for i in range(10)]
    alone = [RangeSensor(w, i, opts, np.random.default_rng(i)) for i in range(10)]
    calls = []
    fans, fan = type(w).cast_fans, type(w).cast_fan
    monkeypatch.setattr(type(w), "cast_fans", lambda self, *a: calls.append(len(a[0])) or fans(self, *a))
    monkeypatch.setattr(type(w), "cast_fan", lambda self, *a: calls.append("one") or fan(self, *a))
    first = RangeSensor.read_many(together)
    assert calls == [10]
    assert first.tobytes() == np.array([s.read() for s in alone]).tobytes()  # a robot's own read: one call too
    assert calls == [10] + ["one"] * 10
    assert first[:, 0] == pytest.approx(2.4, abs=0.05)
    second = RangeSensor.read_many(together)  # the same instant, read again: cast again, fresh noise
    assert len(calls) == 12 and not np.array_equal(second, first)
    w.close()


@pytest.mark.parametrize("kind", ["kinematic", "pybullet"])
@pytest.mark.parametrize("rate", [0.0, 10.0])
def test_mounted_rays_start_at_the_mount_and_turn_with_it(kind, rate):
    """Mounted 0.05 m ahead of the centre: 2.45 m to the box face; from the centre itself 2.5 m
    (the robot does not see its own body); a mount turned 90 degrees looks left, past the box."""
    w = make(kind, (0.0, 0.0, 1.0))
    ahead = RangeSensor(w, 0, RangeOptions(count=1, fov_deg=0.0, mount=(0.05, 0.0, 0.0), rate_hz=rate), np.random.default_rng(0))
    centre = RangeSensor(w, 0, RangeOptions(count=1, fov_deg=0.0, mount=(0.0, 0.0, 0.0), rate_hz=rate), np.random.default_rng(0))
    left = RangeSensor(w, 0, RangeOptions(count=1, fov_deg=0.0, mount=(0.0, 0.0, 0.0), mount_yaw_deg=90.0, rate_hz=rate),
                       np.random.default_rng(0))
    assert ahead.read() == pytest.approx([2.45], abs=1e-3)
    assert centre.read() == pytest.approx([2.5], abs=1e-3)
    assert left.read() == pytest.approx([5.0])
    w.close()


def test_a_mounted_fan_tilts_with_the_body():
    """A quadrotor pitched 0.3 rad nose down: its forward ray points 0.3 rad below the horizon, from
    a mount point carried by the same rotation."""
    w = KinematicWorld(ARENA, collisions=False)
    w.add_robot(RobotSpec((0.0, 0.0, 2.0), airframe="crazyflie", mass_kg=0.027))
    w.start()
    w.quads.euler[0] = (0.0, 0.3, 0.0)
    sensor = RangeSensor(w, 0, RangeOptions(count=1, fov_deg=0.0, mount=(0.1, 0.0, 0.0)), np.random.default_rng(0))
    origin, dirs = sensor.mounted_rays()
    assert dirs[0] == pytest.approx([math.cos(0.3), 0.0, -math.sin(0.3)])
    assert origin == pytest.approx([0.1 * math.cos(0.3), 0.0, 2.0 - 0.1 * math.sin(0.3)])
