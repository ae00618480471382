"""Batteries drain at the configured rate; an empty battery kills the robot at that moment."""

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from cosim.assembly.simulation import build
from tests.conftest import base_scenario


def one_robot(controller, battery, duration=12.0):
    data = base_scenario(duration=duration)
    data["physics"] = {"backend": "kinematic", "dt": "10 ms"}
    data["groups"] = [{"name": "g", "count": 2, "layout": {"type": "list", "points": [[0, 0, 1], [0, 5, 1]]},
                       "controller": controller, "battery": battery}]
    data["output"] = {"trace": {"positions_every": 0.5}}
    return data


def trace(result, name):
    path = result.directory / "trace" / f"{name}.parquet"
    return pq.read_table(path).to_pydict() if path.exists() else {}


def test_idle_robot_drains_at_the_electronics_power_and_dies_when_empty(run_dict):
    result = run_dict(one_robot({"class": "controllers.library.probes:Cruise", "params": {"vx": 0.0}},
                                {"capacity_j": 10.0, "electronics_w": 1.0, "per_speed_w": 2.0}))
    pos = trace(result, "positions")
    at = {(t, n): b for t, n, b in zip(pos["t_ns"], pos["node"], pos["battery_j"])}
    assert at[(2_000_000_000, 0)] == pytest.approx(8.0)  # 1 W for 2 s
    assert at[(6_000_000_000, 1)] == pytest.approx(4.0)
    events = trace(result, "events")
    assert events["kind"] == ["battery_empty", "battery_empty"]
    assert all(10.0e9 <= t <= 10.01e9 + 1 for t in events["t_ns"])
    assert result.metrics["alive_at_end"] == 0


def test_moving_robot_pays_for_its_speed(run_dict):
    result = run_dict(one_robot({"class": "controllers.library.probes:Cruise", "params": {"vx": 1.0}},
                                {"capacity_j": 10.0, "electronics_w": 1.0, "per_speed_w": 2.0}, duration=5.0))
    events = trace(result, "events")
    assert all(3.33e9 <= t <= 3.35e9 for t in events["t_ns"])  # 3 W empties 10 J in 3.33 s
    x = np.array(trace(result, "positions")["x"])
    assert x.max() == pytest.approx(3.34, abs=0.02)  # and it stopped there


def test_each_transmission_costs_its_energy(run_dict):
    beacon = {"class": "controllers.library.probes:Beacon", "params": {"sender": 0, "count": 3, "start": 0.1, "interval": 0.2}}
    result = run_dict(one_robot(beacon, {"capacity_j": 100.0, "electronics_w": 1.0, "per_speed_w": 0.0, "tx_j": 2.0},
                                duration=1.5))
    pos = trace(result, "positions")
    at = {(t, n): b for t, n, b in zip(pos["t_ns"], pos["node"], pos["battery_j"])}
    assert at[(1_500_000_000, 0)] == pytest.approx(100.0 - 1.5 - 3 * 2.0)
    assert at[(1_500_000_000, 1)] == pytest.approx(100.0 - 1.5)


def test_bad_battery_settings_are_rejected():
    import cosim
    from cosim.errors import ScenarioError

    with pytest.raises(ScenarioError, match=r"groups\[0\].battery: capacity_j must be > 0"):
        cosim.from_dict(one_robot({"class": "controllers.library.probes:Cruise"}, {"capacity_j": 0}), source="b.yaml")


def test_controllers_read_the_energy_left():
    from physics.bodies.battery import Batteries, BatterySpec
    from physics.robot import Robot

    batteries = Batteries([BatterySpec(capacity_j=5.0, electronics_w=2.0, per_speed_w=0.0), None])
    batteries.drain(0.5, np.zeros(2), np.ones(2, dtype=bool))
    assert Robot(None, 0, {}, batteries).battery_j == pytest.approx(4.0)
    assert Robot(None, 1, {}, batteries).battery_j == float("inf")


def test_moving_pays_the_same_in_both_worlds():
    """per_speed_w on the measured speed: a rover on drive(v, w) and a quadrotor flown by setpoints
    (neither through set_velocity) spend what they travel, in the kinematic and the rigid world."""
    from tests.physics.pybullet.test_quadrotors import scenario as flight
    from tests.physics.pybullet.test_wheeled import scenario as rover

    spent = {}
    for backend in ("kinematic", "pybullet"):
        cases = {"rover": rover(backend, {"v": 0.5, "w": 0.0}, duration=6.0),
                 "quadrotor": flight(backend, {"class": "tests.controllers.helpers:QuadCruise", "params": {"speed": 1.0}})}
        cases["quadrotor"]["duration"], cases["quadrotor"]["world"]["obstacles"] = 6.0, []
        for name, data in cases.items():
            data["groups"][0]["battery"] = {"capacity_j": 100.0, "electronics_w": 0.0, "per_speed_w": 2.0}
            sim = build(cosim.from_dict(data))
            sim.run()
            spent[name, backend] = 100.0 - float(sim.batteries.energy_j[0])
    assert spent["rover", "kinematic"] == pytest.approx(2.0 * 2.94, rel=0.02)  # 2 W per m/s over 2.94 m
    for name in ("rover", "quadrotor"):
        assert spent[name, "pybullet"] == pytest.approx(spent[name, "kinematic"], rel=0.02)
