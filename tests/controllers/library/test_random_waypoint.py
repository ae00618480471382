"""Random waypoint: robots reach each drawn waypoint, pause, and stay in the area."""

import numpy as np

import cosim
from cosim.assembly.simulation import build


def scenario(pause: float) -> dict:
    return {
        "name": "rwp", "seed": 5, "duration": 60.0, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms", "collisions": False},
        "network": {"backend": "none"},
        "world": {"arena_lower": [-10, -10, 0], "arena_upper": [310, 110, 10]},
        "output": {"trace": {"positions_every": 0.1}},
        "groups": [{"name": "walkers", "count": 4, "robot": {"max_speed": 25.0},
                    "layout": {"type": "random_box", "lower": [0, 0, 1], "upper": [300, 100, 1]},
                    "controller": {"class": "controllers.library.random_waypoint:RandomWaypoint",
                                   "params": {"area": [0, 0, 300, 100], "speed_min": 5.0, "speed_max": 20.0,
                                              "pause": pause}}}],
    }


def test_robots_reach_their_waypoints_and_stay_in_the_area():
    sim = build(cosim.from_dict(scenario(pause=2.0)))
    sim.run()
    pos = sim.recorder.tables()["positions"]
    x, y = np.asarray(pos["x"]), np.asarray(pos["y"])
    assert x.min() >= -0.5 and x.max() <= 300.5 and y.min() >= -0.5 and y.max() <= 100.5
    for ctrl in sim.population.controllers:
        assert ctrl.legs >= 2
        assert ctrl.rest_miss_m <= 20.0 * 0.01 + 1e-9  # stops within one 10 ms physics step at the top speed


def test_speeds_are_within_the_range_and_pauses_stop_the_robot():
    sim = build(cosim.from_dict(scenario(pause=5.0)))
    sim.run()
    pos = sim.recorder.tables()["positions"]
    speed = np.hypot(np.asarray(pos["vx"]), np.asarray(pos["vy"]))
    moving = speed[speed > 0.01]
    assert moving.max() <= 20.0 + 1e-6 and np.percentile(moving, 5) >= 5.0 - 1e-6
    assert (speed <= 0.01).mean() > 0.1  # pauses of 5 s between legs
