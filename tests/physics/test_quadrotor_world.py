"""Quadrotors in a scenario: the Robot API flies them, walls stop or kill them, bad settings are refused."""

import math

import numpy as np
import pytest

import cosim
from cosim.assembly.simulation import build
from cosim.errors import ScenarioError


def scenario(controller: dict, count: int = 1, **robot) -> dict:
    return {
        "name": "quads", "seed": 1, "duration": 8.0, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"},
        "network": {"backend": "none"},
        "world": {"arena_lower": [-20, -20, 0], "arena_upper": [20, 20, 10],
                  "obstacles": [{"center": [10.0, 0.0, 2.0], "size": [1.0, 20.0, 4.0]}]},
        "output": {"trace": {"positions_every": 0.05}},
        "groups": [{"name": "q", "count": count, "robot": {"model": "quadrotor", "radius": 0.1, **robot},
                    "layout": {"type": "grid", "origin": [0, 0, 0], "spacing": 2.0},
                    "controller": controller}],
    }


def test_waypoints_are_flown_through_the_robot_api():
    data = scenario({"class": "controllers.library.waypoints:WaypointFlyer",
                     "params": {"waypoints": [[0, 0, 1.5], [2, 1, 2.5]], "tolerance": 0.1}}, count=2)
    sim = build(cosim.from_dict(data))
    sim.run()
    for c in sim.population.controllers:
        assert c.reached == 2
        assert np.linalg.norm(c.robot.position - (c.home + np.array([2.0, 1.0, 0.0])) - [0, 0, 2.5]) < 0.1
    roll, pitch, _ = sim.population.controllers[0].robot.attitude
    assert abs(roll) < 0.01 and abs(pitch) < 0.01  # hovering level at the end


@pytest.mark.parametrize("kills", [True, False])
def test_flying_into_a_wall(kills):
    """The wall's face is at x = 9.5 m; the vehicle (radius 0.1 m) cruises at 2 m/s from x = 0 at 2 m
    altitude, so it touches at x = 9.4 m, about 4.7 s after reaching speed. With collision kills it
    dies then and falls; without, the wall stops it."""
    data = scenario({"class": "tests.controllers.helpers:QuadCruise", "params": {"speed": 2.0, "altitude": 2.0}},
                    airframe="quad_1500g")
    data["groups"][0]["faults"] = {"collision_kills": kills}
    data["output"]["trace"]["positions_every"] = 0.01  # every physics step
    sim = build(cosim.from_dict(data))
    sim.run()
    pos = sim.recorder.tables()["positions"]
    x, z, t = np.asarray(pos["x"]), np.asarray(pos["z"]), np.asarray(pos["t_ns"]) / 1e9
    if kills:
        ev = sim.recorder.tables()["events"]
        assert ev["kind"] == ["collision"]
        died = ev["t_ns"][0] / 1e9
        first_touch = t[np.argmax(x >= 9.4 - 1e-6)]
        assert died == pytest.approx(first_touch, abs=1e-9)
        assert died == pytest.approx(2.0 + 9.4 / 2.0, abs=0.4)  # take-off 2 s, then 2 m/s (plus the speed-up)
        assert z[-1] == pytest.approx(0.0, abs=1e-9) and not sim.population.alive[0]
    else:
        assert x.max() <= 9.4 + 1e-9 and sim.population.alive[0]
        assert z[-1] == pytest.approx(2.0, abs=0.1)


def test_quadrotors_are_refused_where_they_cannot_run():
    data = scenario({"class": "controllers.library.station:Station"})
    data["physics"]["dt"] = "1 ms"
    with pytest.raises(ScenarioError, match="multiple of their control tick"):
        cosim.from_dict(data)
    data["physics"]["dt"] = "10 ms"
    data["groups"][0]["robot"] = {"radius": 0.1}
    data["groups"][0]["faults"] = {"crash_speed": 2.0}
    with pytest.raises(ScenarioError, match=r"groups\[0\]\.faults: crash_speed and crash_tilt apply to quadrotors"):
        cosim.from_dict(data)
    data = scenario({"class": "controllers.library.station:Station"}, airframe="blimp")
    with pytest.raises(ScenarioError, match="unknown airframe 'blimp'"):
        cosim.from_dict(data)


def test_fly_checks_its_arguments():
    sim = build(cosim.from_dict(scenario({"class": "controllers.library.station:Station"})))
    sim.world.start()
    robot = sim.population.controllers[0].robot
    with pytest.raises(ValueError, match="unknown flight mode 'loiter'"):
        robot.fly("loiter", 0, 0, 0)
    robot.fly("speed_altitude_heading", 0.0, 0.0, 1.0, math.pi / 2)


def test_wind_in_the_scenario_pushes_quadrotors_and_gusts_repeat_with_the_seed():
    def flight(wind):
        data = scenario({"class": "controllers.library.waypoints:WaypointFlyer",
                         "params": {"waypoints": [[0, 0, 2]], "tolerance": 0.01}})
        data["world"]["wind"] = wind
        data["duration"] = 4.0
        sim = build(cosim.from_dict(data))
        sim.run()
        return sim.recorder.tables()["positions"]

    calm = flight(None)
    windy = flight({"mean": [4.0, 0.0, 0.0], "gust_std": 1.0, "gust_tau": 0.5})
    assert max(windy["x"]) > max(calm["x"]) + 0.005  # blown downwind before the position loop wins
    assert np.array_equal(windy["x"], flight({"mean": [4.0, 0.0, 0.0], "gust_std": 1.0, "gust_tau": 0.5})["x"])


def test_a_quadrotor_battery_drains_with_thrust():
    data = scenario({"class": "controllers.library.waypoints:WaypointFlyer",
                     "params": {"waypoints": [[0, 0, 2]], "tolerance": 0.01}}, airframe="quad_1500g")
    data["groups"][0]["battery"] = {"capacity_j": 10_000.0, "electronics_w": 0.0, "per_speed_w": 0.0,
                                    "per_thrust_w": 10.0}
    data["duration"] = 5.0
    sim = build(cosim.from_dict(data))
    sim.run()
    used = 10_000.0 - sim.batteries.energy_j[0]
    # mostly hovering: thrust about m g = 14.7 N, so about 147 W for 5 s
    assert used == pytest.approx(10.0 * 1.5 * 9.81 * 5.0, rel=0.05)
