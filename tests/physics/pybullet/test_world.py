import numpy as np
import pytest

from physics.pybullet.world import PybulletWorld
from physics.robot import Robot
from physics.world import Arena, Box, RobotSpec


@pytest.fixture
def world():
    w = PybulletWorld(Arena((-50, -50, 0), (50, 50, 20)), dt_s=0.005, obstacles=(Box((6, 0, 1), (1, 4, 2)),))
    yield w
    w.close()


def run(w, seconds, dt=0.005):
    for _ in range(round(seconds / dt)):
        w.latch()
        w.step(dt)


def test_velocity_command_is_tracked_and_altitude_held(world):
    world.add_robot(RobotSpec((0, -10, 2.0), max_speed=3.0))
    world.start()
    Robot(world, 0, {}).set_velocity(1.0, 0.5, 0.0)
    run(world, 2.0)
    v = world.velocity_of(0)
    assert v[:2] == pytest.approx([1.0, 0.5], rel=0.02)
    assert abs(world.position_of(0)[2] - 2.0) < 0.01
    run(world, 1.0)
    assert world.position_of(0)[0] > 2.0


def test_wall_stops_the_robot_and_dead_robots_fall(world):
    world.add_robot(RobotSpec((0, 0, 1.0), max_speed=3.0))
    world.add_robot(RobotSpec((-5, 5, 3.0), max_speed=3.0))
    world.start()
    Robot(world, 0, {}).set_velocity(2.0)
    run(world, 5.0)
    x = world.position_of(0)[0]
    assert 5.0 < x < 5.5 + 1e-3  # box face at x = 5.5, robot radius 0.1
    world.kill(1)
    run(world, 2.0)
    assert world.position_of(1)[2] < 0.2
    assert not world.alive[1]
    assert np.all(np.isfinite(world.positions()))
