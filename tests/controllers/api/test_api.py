"""The controller API in one place: what `controllers` exports, a controller used before it is bound,
and what a MAVLink-flown vehicle refuses (never accepted and ignored)."""

from __future__ import annotations

import math

import pytest

import controllers
from controllers import Controller, Net, Robot, Services, Unbound
from cosim.mavlink.client.remote_robot import MavlinkRobot, NoNetwork, WallClockServices


class _Vehicle:
    """The little of MavlinkVehicle a MavlinkRobot reads, as a vehicle reports before any telemetry."""

    def __init__(self) -> None:
        self.sysid = 7
        self.latest: dict = {}
        self.setpoint: tuple | None = None
        self.setpoint_t = -math.inf
        self.mission = None  # no mission given

    def position_enu(self):
        import numpy as np

        return np.full(3, np.nan)

    def velocity_enu(self):
        return self.position_enu()

    def heading(self) -> float:
        return math.nan

    def hold(self) -> None:
        self.setpoint = ("hold",)


def test_the_package_exports_the_whole_api():
    assert set(controllers.__all__) >= {"Controller", "Message", "Neighbor", "Robot", "Net", "Services", "TimerHandle",
                                        "BROADCAST"}


def test_a_controller_used_before_binding_says_so():
    ctrl = Controller()
    for use in (lambda: ctrl.robot, lambda: ctrl.net, lambda: ctrl.rng, lambda: ctrl.now, lambda: ctrl.record("x", 1.0)):
        with pytest.raises(Unbound, match="available from setup"):
            use()


def test_hooks_are_detected_from_the_class():
    class Listener(Controller):
        def on_message(self, msg) -> None: ...

    assert Listener.listens() and not Listener.steps()
    assert not Controller.listens() and not Controller.steps()


def test_mavlink_robot_net_and_services_satisfy_the_protocols():
    robot = MavlinkRobot(_Vehicle())
    assert isinstance(robot, Robot) and isinstance(NoNetwork(7), Net) and isinstance(WallClockServices(), Services)


def test_a_mavlink_vehicle_refuses_what_it_cannot_do():
    robot = MavlinkRobot(_Vehicle())
    with pytest.raises(RuntimeError, match="no simulated range sensor"):
        robot.ranges()
    with pytest.raises(RuntimeError, match="no simulated imu sensor"):
        robot.imu()
    with pytest.raises(ValueError, match="steer it with set_velocity and turn"):
        robot.drive(1.0, 0.0)
    with pytest.raises(RuntimeError, match="has not reported its battery"):
        robot.battery_level()
    with pytest.raises(ValueError, match="takes position setpoints"):
        robot.fly("attitude", 0, 0, 0, 0)
    robot.hover()
    assert robot.v.setpoint == ("hold",) and robot.desired_velocity == (0.0, 0.0, 0.0)


def test_a_vehicle_without_a_simulated_network_cannot_send():
    net = NoNetwork(3)
    with pytest.raises(RuntimeError, match="vehicle 3 flies over MAVLink without a simulated network: it cannot send"):
        net.send(1, b"x")
    with pytest.raises(RuntimeError, match="cannot broadcast"):
        net.broadcast(b"x")
    assert net.neighbors() == [] and net.routes() == {}
