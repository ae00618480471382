"""GPS, IMU and bump sensors: true values within their noise, biases, rates, seeded repeats."""

import math

import numpy as np
import pytest

import cosim
from cosim.assembly.simulation import build


def world(sensors: dict, controller: dict | None = None, model: dict | None = None, count: int = 1,
          backend: str = "kinematic", **extra):
    physics = {"backend": backend, "dt": "10 ms", **({"collisions": True} if backend == "kinematic" else {})}
    data = {
        "name": "sensors", "seed": 5, "duration": 3.0, "quantum": "10 ms",
        "physics": physics,
        "network": {"backend": "none"},
        "world": {"arena_lower": [-20, -20, 0], "arena_upper": [20, 20, 10],
                  "obstacles": [{"center": [3.0, 0.0, 1.0], "size": [1.0, 4.0, 2.0]}], **extra},
        "groups": [{"name": "g", "count": count, "sensors": sensors, "robot": model or {"radius": 0.2},
                    "layout": {"type": "point", "position": [0.0, 0.0, 1.0]},
                    "controller": controller or {"class": "controllers.library.station:Station"}}],
    }
    sim = build(cosim.from_dict(data))
    sim.world.start()
    for c, _i in zip(sim.population.controllers, range(count)):
        c.setup()
    return sim


def test_gps_reads_the_true_position_within_its_noise_and_bias():
    sim = world({"gps": {"noise_std": 0.5, "bias": [1.0, 0.0, -2.0]}})
    robot = sim.population.controllers[0].robot
    fixes = np.array([robot.gps() for _ in range(2000)])
    assert fixes.mean(axis=0) == pytest.approx([1.0, 0.0, -1.0], abs=0.05)
    assert fixes.std(axis=0) == pytest.approx([0.5, 0.5, 0.5], rel=0.1)


def test_gps_geodetic_is_consistent_with_the_local_frame():
    sim = world({"gps": {"origin": [47.0, 8.0, 400.0]}})
    sim.world._pos[0] = (1000.0, 2000.0, 30.0)
    lat, lon, alt = sim.population.controllers[0].robot.sensors["gps"].geodetic()
    assert alt == pytest.approx(430.0)
    assert (lat - 47.0) * math.pi / 180 * 6_378_137.0 == pytest.approx(2000.0, rel=1e-9)
    assert (lon - 8.0) * math.pi / 180 * 6_378_137.0 * math.cos(math.radians(47.0)) == pytest.approx(1000.0, rel=1e-9)


def test_gps_rate_holds_a_fix_between_updates():
    sim = world({"gps": {"noise_std": 1.0, "rate_hz": 5.0}})
    robot = sim.population.controllers[0].robot
    a = robot.gps()
    sim.world.step(0.1)
    assert np.array_equal(robot.gps(), a)  # 0.1 s < 0.2 s between fixes
    sim.world.step(0.1)
    assert not np.array_equal(robot.gps(), a)


def test_imu_at_rest_reads_gravity_and_no_rotation():
    sim = world({"imu": {"accel_noise_std": 0.01, "gyro_bias": [0.0, 0.0, 0.02]}})
    sim.world.step(0.01)
    acc, gyro = sim.population.controllers[0].robot.imu()
    assert acc == pytest.approx([0.0, 0.0, 9.81], abs=0.05)
    assert gyro == pytest.approx([0.0, 0.0, 0.02], abs=1e-12)


@pytest.mark.parametrize("backend, tol", [("kinematic", 1e-6), ("pybullet", 0.03)])
def test_imu_on_a_turning_wheeled_robot_measures_the_turn_rate_and_centripetal_acceleration(backend, tol):
    """Exact on the kinematic arc; within 3% on rigid wheels (they slip a little)."""
    sim = world({"imu": {}}, {"class": "tests.controllers.helpers:Drive", "params": {"v": 0.5, "w": 0.5}},
                {"model": "diff_drive", "radius": 0.2}, backend=backend)
    sim.world.latch()
    for _ in range(300):
        sim.world.step(0.01)
    acc, gyro = sim.population.controllers[0].robot.imu()
    assert gyro[2] == pytest.approx(0.5, rel=tol)
    assert acc[1] == pytest.approx(0.5 * 0.5, rel=max(tol, 0.02))  # v * w towards the centre of the turn (left)
    assert acc[2] == pytest.approx(9.81, rel=max(tol, 1e-6))


@pytest.mark.parametrize("backend", ["kinematic", "pybullet"])
def test_imu_on_a_quadrotor_in_steady_cruise_reads_gravity_in_the_tilted_body_frame(backend):
    sim = world({"imu": {}}, {"class": "tests.controllers.helpers:QuadCruise", "params": {"speed": 2.0, "altitude": 2.0}},
                {"model": "quadrotor", "radius": 0.1}, backend=backend)
    robot = sim.population.controllers[0].robot
    sim.world.latch()
    for _ in range(300):  # take off (to 2 m), then climb to 5 m to clear the box
        sim.world.step(0.01)
    robot.fly("speed_altitude_heading", 2.0, 0.0, 5.0, 0.0)
    sim.world.latch()
    for _ in range(800):  # cruise at 2 m/s: tilted against the drag
        sim.world.step(0.01)
    acc, gyro = robot.imu()
    _roll, pitch, _ = robot.attitude
    assert pitch > math.radians(2.0)  # nose down... the thrust leans forward
    drag_over_mass = 0.01 * 2.0 / 0.027
    # not accelerating: the accelerometer feels thrust plus drag, which balance gravity: g seen from the tilted body
    assert acc == pytest.approx([-9.81 * math.sin(pitch), 0.0, 9.81 * math.cos(pitch)], abs=0.02)
    assert np.linalg.norm(acc) == pytest.approx(9.81, abs=0.02)
    assert math.tan(pitch) == pytest.approx(drag_over_mass / 9.81, rel=0.05)  # the tilt that balances the drag
    assert np.abs(gyro).max() < 0.01


@pytest.mark.parametrize("backend", ["kinematic", "pybullet"])
def test_bump_reports_touching_an_obstacle(backend):
    """Not the ground it drives on: only the box ahead (a rigid robot's wheels always touch the ground)."""
    sim = world({"bump": {}}, {"class": "tests.controllers.helpers:Drive", "params": {"v": 1.0, "w": 0.0}},
                {"model": "diff_drive", "radius": 0.2}, backend=backend)
    sim.world.latch()
    robot = sim.population.controllers[0].robot
    touched = []
    for _k in range(400):
        sim.world.step(0.01)
        touched.append(robot.bumped())
    first = touched.index(True)
    # the face is at x = 2.5: the 0.2 m robot touches once its centre passes 2.3 m (speeding up at 2 m/s^2 first)
    assert 2.2 < first * 0.01 < 2.8
    assert all(touched[first + 50:])  # it keeps pushing against it (a rigid robot bounces once in the first 0.5 s)


def test_sensors_repeat_with_the_seed():
    def fixes():
        sim = world({"gps": {"noise_std": 1.0}, "imu": {"accel_noise_std": 0.3}})
        return [sim.population.controllers[0].robot.gps().tolist() for _ in range(5)]

    assert fixes() == fixes()


def test_a_missing_sensor_is_named():
    sim = world({})
    with pytest.raises(RuntimeError, match="no 'imu' sensor"):
        sim.population.controllers[0].robot.imu()


def test_imu_at_rest_on_pybullet_reads_gravity():
    sim = world({"imu": {}}, {"class": "tests.controllers.helpers:Drive", "params": {"v": 0.0, "w": 0.0}},
                {"model": "diff_drive", "radius": 0.2}, backend="pybullet")
    sim.world.latch()
    for _ in range(50):
        sim.world.step(0.01)
    acc, gyro = sim.population.controllers[0].robot.imu()
    assert acc == pytest.approx([0.0, 0.0, 9.81], abs=0.02) and np.abs(gyro).max() < 1e-3


def test_battery_gauge_reads_the_charge_fraction_with_noise():
    data = {"name": "b", "seed": 2, "duration": 10.0, "physics": {"backend": "kinematic", "dt": "10 ms"},
            "network": {"backend": "none"},
            "groups": [{"name": "g", "count": 1, "sensors": {"battery": {"noise_std": 0.01}},
                        "battery": {"capacity_j": 100.0, "electronics_w": 2.0, "per_speed_w": 0.0},
                        "controller": {"class": "controllers.library.station:Station"}}]}
    sim = build(cosim.from_dict(data))
    sim.run()
    robot = sim.population.controllers[0].robot
    levels = np.array([robot.battery_level() for _ in range(1000)])
    assert levels.mean() == pytest.approx((100.0 - 2.0 * 10.0) / 100.0, abs=0.002)  # 2 W for 10 s of 100 J
    assert levels.std() == pytest.approx(0.01, rel=0.1)


def test_compass_rate_holds_the_reading():
    sim = world({"compass": {"noise_std": 0.5, "rate_hz": 10.0}})
    robot = sim.population.controllers[0].robot
    first = robot.compass()
    assert robot.compass() == first
    sim.world.step(0.1)
    assert robot.compass() != first


@pytest.mark.parametrize("backend", ["kinematic", "pybullet"])
def test_a_mounted_gps_antenna_reads_its_own_position(backend):
    """The antenna 0.2 m ahead and 0.1 m up on a robot facing +y (heading 90 degrees)."""
    sim = world({"gps": {"mount": [0.2, 0.0, 0.1]}}, backend=backend, model={"radius": 0.2, "heading": math.pi / 2})
    robot = sim.population.controllers[0].robot
    want = robot.position + np.array([0.0, 0.2, 0.1])
    assert robot.gps() == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("backend", ["kinematic", "pybullet"])
def test_an_imu_off_centre_reads_the_lever_arm(backend):
    """Spinning in place at 1 rad/s, an IMU 10 cm ahead and 5 cm left of the centre reads, beyond what
    one at the centre would (gravity and the body's own acceleration, tilt included on rigid wheels),
    the centripetal -w^2 r; while the spin rate rises, also the tangential alpha x r."""
    from physics.bodies.attitude import rotation_zyx

    mount = np.array([0.1, 0.05, 0.0])
    sim = world({"imu": {"mount": mount.tolist()}}, {"class": "tests.controllers.helpers:Drive", "params": {"v": 0.0, "w": 1.0}},
                {"model": "diff_drive", "radius": 0.2}, backend=backend)
    sim.world.latch()
    w_, robot = sim.world, sim.population.controllers[0].robot
    spun_up, lever = False, np.zeros(3)
    for _ in range(300):
        w_.step(0.01)
        acc, gyro = robot.imu()
        centre = rotation_zyx(*w_.attitude_of(0)).T @ (w_.acceleration_of(0) + np.array([0.0, 0.0, 9.81]))
        lever = acc - centre
        alpha = w_.angular_acceleration_of(0)
        expected = np.cross(alpha, mount) + np.cross(gyro, np.cross(gyro, mount))
        assert lever == pytest.approx(expected, abs=1e-9)
        spun_up |= alpha[2] > 0.5 and abs(lever[1] - alpha[2] * 0.1) < 0.05 * alpha[2] * 0.1 + 0.01
    assert spun_up  # the tangential part was felt while the rate rose
    w = gyro[2]
    assert w == pytest.approx(1.0, rel=0.03)
    assert lever[:2] == pytest.approx([-w * w * 0.1, -w * w * 0.05], abs=0.005)


def test_an_imu_mount_far_off_the_body_is_refused():
    with pytest.raises(cosim.ScenarioError, match=r"groups\[0\]\.sensors\.imu: mount is within 10 m"):
        world({"imu": {"mount": [50.0, 0.0, 0.0]}})
