import math

import numpy as np
import pytest

from physics.kinematic.world import KinematicWorld
from physics.robot import Robot
from physics.world import Arena, Box, RobotSpec

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1


def world_with(*positions, **kw) -> KinematicWorld:
    w = KinematicWorld(Arena((-50, -50, 0), (50, 50, 20)), **kw)
    for p in positions:
        w.add_robot(RobotSpec(p, max_speed=3.0))
    w.start()
    return w


def run(w, seconds, dt=0.01):
    for _ in range(round(seconds / dt)):
        w.latch()
        w.step(dt)


def test_body_frame_velocity_and_turn_move_the_robot_as_commanded():
    w = world_with((0, 0, 1))
    r = Robot(w, 0, {})
    r.set_velocity(1.0, 0.0, 0.0)
    run(w, 1.0)
    assert w.position_of(0) == pytest.approx([1.0, 0.0, 1.0], abs=1e-9)
    r.turn(math.pi / 2)
    run(w, 2.0)
    assert w.position_of(0) == pytest.approx([1.0, 2.0, 1.0], abs=1e-9)
    assert r.heading == pytest.approx(math.pi / 2)
    position, heading = r.pose
    assert position == pytest.approx([1.0, 2.0, 1.0]) and heading == pytest.approx(math.pi / 2)


def test_speed_is_capped_and_acceleration_limited():
    w = world_with((0, 0, 1), max_accel=2.0)
    Robot(w, 0, {}).set_velocity(10.0)
    run(w, 0.5)
    assert np.linalg.norm(w.velocity_of(0)) == pytest.approx(1.0)  # 2 m/s^2 for 0.5 s
    run(w, 2.0)
    assert np.linalg.norm(w.velocity_of(0)) == pytest.approx(3.0)  # max_speed


def test_overlapping_robots_are_separated_and_arena_holds():
    w = world_with((0, 0, 1), (0.05, 0, 1), (49.99, 0, 1))
    run(w, 0.01)
    d = np.linalg.norm(w.position_of(0) - w.position_of(1))
    assert d == pytest.approx(0.2)  # two radii
    assert w.position_of(2)[0] <= 50 - 0.1


def test_robot_cannot_enter_a_box():
    w = world_with((0, 0, 1), obstacles=(Box((3, 0, 1), (2, 2, 2)),))
    Robot(w, 0, {}).set_velocity(1.0)
    run(w, 5.0)
    assert w.position_of(0)[0] == pytest.approx(3 - 1 - 0.1)


def test_a_world_at_rest_skips_work_but_wakes_on_a_command():
    w = world_with((0, 0, 1), (5, 0, 1))
    run(w, 0.05)
    before = w.positions().copy()
    run(w, 0.05)
    assert np.array_equal(w.positions(), before)
    Robot(w, 1, {}).set_velocity(1.0)
    run(w, 1.0)
    assert w.position_of(1) == pytest.approx([6.0, 0.0, 1.0])


def test_a_body_starting_through_the_floor_starts_on_it_and_says_so(caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="physics.world"):
        w = KinematicWorld(Arena((-5, -5, 0), (5, 5, 3)))
        w.add_robot(RobotSpec((0.0, 0.0, 0.1), radius_m=0.2))
        w.add_robot(RobotSpec((1.0, 0.0, 0.5), radius_m=0.2))
        w.start()
    assert w.positions()[:, 2].tolist() == [0.2, 0.5]  # from the start, not after the first step
    run(w, 0.1)
    assert w.positions()[:, 2].tolist() == [0.2, 0.5]
    assert "robot 0 at [0.0, 0.0, 0.2] instead of [0.0, 0.0, 0.1]" in caplog.text
    assert caplog.records[-1].levelno == logging.INFO


def test_a_body_starting_past_a_wall_is_a_warning(caplog):
    w = KinematicWorld(Arena((-5, -5, 0), (5, 5, 3)))
    w.add_robot(RobotSpec((4.95, 0.0, 1.0), radius_m=0.2))
    w.start()
    assert w.positions()[0].tolist() == [4.8, 0.0, 1.0]
    assert "robot 0 at [4.8, 0.0, 1.0]" in caplog.text and caplog.records[-1].levelname == "WARNING"


@pytest.mark.parametrize("command", [lambda r: r.set_velocity(math.nan, math.nan, 0.0), lambda r: r.set_velocity(math.inf, 0.0),
                                     lambda r: r.set_heading(math.nan), lambda r: r.turn(math.inf)],
                         ids=["nan velocity", "infinite velocity", "nan heading", "infinite turn"])
def test_a_command_that_is_not_a_finite_number_is_refused_and_changes_nothing(command):
    w = world_with((0, 0, 1))
    r = Robot(w, 0, {})
    r.set_velocity(1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match=r"(set_velocity|set_heading \(or turn\)): (vx|heading) must be a finite number"):
        command(r)
    run(w, 0.5)
    assert np.isfinite(w.positions()).all() and w.positions()[0, 0] == pytest.approx(0.5)
