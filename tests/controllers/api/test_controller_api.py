"""Controller services: timers, seeded rng, record, neighbours; errors in user code fail the run cleanly.

Topology: n0 at the origin facing +x; n1 at (10, 0) and n2 at (0, 10) hear n0's broadcasts.
"""

import json
import math

import pyarrow.parquet as pq
import pytest

from tests.conftest import base_scenario


def three_nodes(cls: str, params=None, heading=0.0) -> dict:
    data = base_scenario(duration=2.0)
    data["groups"] = [{
        "name": "probe", "count": 3,
        "layout": {"type": "list", "points": [[0, 0, 1], [10, 0, 1], [0, 10, 1]]},
        "robot": {"heading": heading},
        "controller": {"class": cls, "params": params or {}},
    }]
    return data


def records(result, node=None):
    r = pq.read_table(result.directory / "trace" / "records.parquet").to_pydict()
    rows = zip(r["t_ns"], r["node"], r["name"], r["value"])
    return [(t, n, name, v) for t, n, name, v in rows if node is None or n == node]


def test_timers_fire_at_their_times_and_random_phases_differ(run_dict):
    res = run_dict(three_nodes("tests.controllers.helpers:TimerProbe"))
    assert res.status == "ok", res.error
    rec = records(res, node=1)
    assert [t for t, _, name, _ in rec if name == "every"] == [100_000_000, 350_000_000, 600_000_000, 850_000_000,
                                                              1_100_000_000, 1_350_000_000, 1_600_000_000, 1_850_000_000]
    assert [t for t, _, name, _ in rec if name == "after"] == [330_000_000]
    phases = {n: t for t, n, name, _ in records(res) if name == "random_phase" and t < 1_000_000_000}
    assert len(set(phases.values())) == 3
    draws = [v for _, _, name, v in records(res) if name == "rng"]
    assert len(set(draws)) == 3


def test_neighbors_give_range_and_bearing_in_the_robot_frame(run_dict):
    res = run_dict(three_nodes("tests.controllers.helpers:TimerProbe", heading=math.pi / 2))
    values = {(n, name): v for _, n, name, v in records(res)}
    assert values[(1, "range_to_0")] == pytest.approx(10.0)
    # n1 faces +y; n0 lies towards -x, i.e. 90 degrees to its left (counter-clockwise)
    assert values[(1, "bearing_to_0")] == pytest.approx(math.pi / 2)
    assert abs(values[(2, "bearing_to_0")]) == pytest.approx(math.pi)  # straight behind: +pi or -pi
    assert (0, "range_to_1") not in values  # nobody broadcasts to n0


def test_controller_exception_fails_the_run_with_node_time_and_traceback(run_dict):
    res = run_dict(three_nodes("tests.controllers.helpers:Exploder", {"victim": 2}))
    assert res.status == "failed"
    assert "ZeroDivisionError: controller bug (node 2, t = 0.70" in res.error
    status = json.loads((res.directory / "status.json").read_text())
    assert status["status"] == "failed" and status["t_s"] == pytest.approx(0.7, abs=1e-3)
    assert "raise ZeroDivisionError" in (res.directory / "error.txt").read_text()
    # what was computed before the failure is kept
    assert pq.read_table(res.directory / "trace" / "positions.parquet").num_rows == 3
    assert "status failed" in (res.directory / "summary.txt").read_text()


def test_ctrl_c_marks_the_run_interrupted_and_keeps_the_partial_trace(run_dict):
    res = run_dict(three_nodes("tests.controllers.helpers:CtrlC"))
    assert res.status == "interrupted"
    status = json.loads((res.directory / "status.json").read_text())
    assert status["status"] == "interrupted" and status["t_s"] == pytest.approx(1.25)
    t = pq.read_table(res.directory / "trace" / "positions.parquet").to_pydict()["t_ns"]
    assert sorted(set(t)) == [0, 1_000_000_000]  # samples up to the interruption
    assert json.loads((res.directory / "metrics.json").read_text())["simulated_s"] == pytest.approx(1.25)


def test_a_killed_robot_stops_moving_running_timers_and_transmitting(tmp_path):
    """n0 broadcasts every 0.5 s; n1 is killed at 1.0 s by the coordinator (as a fault would)."""
    import cosim
    from cosim.core.timeline import Priority

    data = three_nodes("tests.controllers.helpers:TimerProbe")
    data["groups"][0]["controller"] = {"class": "controllers.library.instrument:InstrumentBee", "period": 0.1,
                                       "params": {"radio_period": 0.5}}
    data["groups"][0]["sensors"] = {"compass": {}}
    data["output"] = {"trace": {"positions_every": 0.5}}
    sim = cosim.build(cosim.from_dict(data, source="kill.yaml"))
    sim.clock.queue.push(1_000_000_000, Priority.TIMER, lambda: sim.kill(1))
    sim.run()
    tables = sim.recorder.tables()
    pos, net = tables["positions"], tables["network"]
    n1 = pos["node"] == 1
    late = n1 & (pos["t_ns"] > 1_000_000_000)
    assert pos["alive"][n1 & (pos["t_ns"] < 1_000_000_000)].all() and not pos["alive"][late].any()
    assert len(set(pos["x"][late].tolist())) == 1  # frozen in place
    sends = net["kind"] == 0
    assert (net["t_ns"][sends & (net["src"] == 1)] < 1_000_000_000).all()
    delivered_to_1 = (net["kind"] == 1) & (net["dst"] == 1)
    assert (net["t_ns"][delivered_to_1] < 1_001_000_000).all()
    assert (net["t_ns"][(net["kind"] == 1) & (net["dst"] == 2)] > 1_500_000_000).any()  # others carry on
    assert sim.population.alive.tolist() == [True, False, True]


def test_obstacle_avoider_keeps_off_a_wall(run_dict):
    """Robots start 3 m in front of a wall and random-walk; the avoider keeps them from touching it.

        robots at x = 0 .. 2      wall: x = 5 .. 6 (y from -10 to 10)
    """
    data = base_scenario(duration=20.0)
    data["world"] = {"arena_lower": [-10, -10, 0], "arena_upper": [10, 10, 5],
                     "obstacles": [{"center": [5.5, 0, 1], "size": [1, 20, 2]}]}
    data["groups"] = [{"name": "a", "count": 6, "layout": {"type": "grid", "origin": [0, -2.5, 1], "spacing": 1.0, "columns": 3},
                       "robot": {"max_speed": 1.5}, "sensors": {"range": {"count": 8, "max_range": 3.0}},
                       "controller": {"class": "controllers.library.avoider:ObstacleAvoider",
                                      "params": {"max_speed": 1.5, "velocity_sigma": 0.5, "safe_distance": 0.8}}}]
    data["output"] = {"trace": {"positions_every": 0.1}}
    result = run_dict(data)
    assert result.status == "ok", result.error
    x = pq.read_table(result.directory / "trace" / "positions.parquet").column("x").to_numpy()
    assert x.max() < 5.0 - 0.1 - 0.2  # never within 20 cm of the wall face (robot radius 0.1)
    assert x.max() > 2.5  # they did wander toward it
