"""Faults: collision kills, random failures and scheduled kills, each a trace event.

    robot (r = 0.1) at x = 0, flying +x at 1 m/s        wall: x = 2.1 .. 3.1
        o ------------------------------------------> |#####|
    it touches the wall when its centre reaches x = 2.0, i.e. at t = 2.0 s
"""

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError
from tests.conftest import base_scenario


def scenario(world="kinematic", points=((0, 0, 1),), params=None, faults=None, kills=None, duration=4.0, count=None):
    data = base_scenario(duration=duration)
    data["physics"] = {"backend": world, "dt": "10 ms"}
    data["world"] = {"arena_lower": [-10, -10, 0], "arena_upper": [10, 10, 5],
                     "obstacles": [{"center": [2.6, 0, 1], "size": [1, 6, 2]}]}
    group = {"name": "g", "count": count or len(points), "layout": {"type": "list", "points": [list(p) for p in points]},
             "controller": {"class": "controllers.library.probes:Cruise", "params": params or {}},
             "faults": faults or {"collision_kills": True}}
    if count:
        group["layout"] = {"type": "random_box", "lower": [-8, -8, 1], "upper": [-2, 8, 1]}
    data["groups"] = [group]
    data["output"] = {"trace": {"positions_every": "10 ms"}}
    if kills:
        data["kills"] = kills
    return data


def events(result):
    path = result.directory / "trace" / "events.parquet"
    return pq.read_table(path).to_pylist() if path.exists() else []


@pytest.mark.parametrize("world", ["kinematic", "pybullet"])
def test_a_robot_flying_into_a_wall_dies_when_it_touches_it(run_dict, world):
    result = run_dict(scenario(world))
    assert result.status == "ok", result.error
    (ev,) = events(result)
    assert (ev["node"], ev["kind"], ev["detail"]) == (0, "collision", "obstacle")
    pos = pq.read_table(result.directory / "trace" / "positions.parquet").to_pydict()
    t, x = np.array(pos["t_ns"]), np.array(pos["x"])
    if world == "kinematic":
        assert 2.0e9 <= ev["t_ns"] <= 2.01e9 + 1  # the first step at which it reaches the face
    else:
        before = x[t < ev["t_ns"]]
        assert before.max() < 2.0 + 1e-3 and x[t == ev["t_ns"]][0] >= 2.0 - 0.02  # at the wall, not before
    assert np.ptp(x[t > ev["t_ns"]]) < 0.05  # and it stops there
    assert result.metrics["alive_at_end"] == 0 and result.metrics["deaths"] == 1


def test_two_robots_that_collide_both_die(run_dict):
    data = scenario(points=((-3, 2, 1), (-1, 2, 1)), params={"vx": 1.0})
    data["groups"][0]["robot"] = {"heading": 0.0}
    data["groups"].append({**data["groups"][0], "name": "h", "count": 1, "layout": {"type": "list", "points": [[1, 2, 1]]},
                           "robot": {"heading": 3.141592653589793}})
    data["groups"][0]["count"] = 1
    data["groups"][0]["layout"] = {"type": "list", "points": [[-1, 2, 1]]}
    result = run_dict(data)
    got = sorted((e["node"], e["detail"]) for e in events(result) if e["kind"] == "collision")
    assert got == [(0, "robot 1"), (1, "robot 0")]
    assert all(0.89e9 <= e["t_ns"] <= 0.91e9 for e in events(result))  # 1.8 m closing at 2 m/s


def test_scheduled_kill_happens_at_its_time(run_dict):
    data = scenario(points=((-5, 0, 1), (-5, 2, 1), (-5, 4, 1)), params={"vx": 0.0}, faults={}, kills=[{"node": 2, "at": 1.5}])
    result = run_dict(data)
    assert [(e["t_ns"], e["node"], e["kind"]) for e in events(result)] == [(1_500_000_000, 2, "scheduled")]
    assert result.metrics["alive_at_end"] == 2


def test_random_failures_follow_the_rate_and_repeat_with_the_seed(run_dict):
    data = scenario(params={"vx": 0.0}, faults={"mean_time_to_failure": 10.0}, duration=5.0, count=200)
    a, b = run_dict(data), run_dict(data)
    failures = [e for e in events(a) if e["kind"] == "random_failure"]
    expected = 200 * (1 - np.exp(-0.5))  # 78.7
    assert abs(len(failures) - expected) < 4 * np.sqrt(200 * 0.39 * 0.61)
    assert events(a) == events(b)


def test_kill_of_a_missing_node_is_rejected():
    with pytest.raises(ScenarioError, match=r"kills\[0\].node: expected a node id below 1"):
        cosim.from_dict(scenario(kills=[{"node": 5, "at": 1.0}]), source="k.yaml")
