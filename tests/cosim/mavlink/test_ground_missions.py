"""The mission-flying ground station (cosim.mavlink.ground_missions): two lock-stepped firmwares
(stand-ins that speak MAVLink as ArduCopter does) each get a mission about where they stand,
verified by download, and fly it over the simulated radio; arming refused before the estimator has
a position is asked again."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from cosim.assembly.simulation import build
from cosim.errors import ScenarioError
from tests.cosim.standins import free_udp_ports, with_standins

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "configs" / "sitl_swarm_ns3.yaml"
FAST = {"network.backend": "fast", "network.routing": None, "groups.1.count": 2, "duration": 28.0,
        "groups.0.controller.params.legs": [[0, 0, 3], [0, 5, 3], [0, 0, 3]]}


def test_every_vehicle_flies_its_verified_mission_and_lands(tmp_path):
    with contextlib.ExitStack() as firmware:
        scenario = with_standins(CONFIG, FAST, firmware)
        result = cosim.run(scenario, out_dir=tmp_path / "run")
    assert result.status == "ok", result.error
    rec = pq.read_table(result.directory / "trace" / "records.parquet").to_pydict()
    last = {}
    for name, value in zip(rec["name"], rec["value"]):
        last[name] = value
    assert [last[f"mission_step.{k}"] for k in (1, 2)] == [5.0, 5.0]  # flying in AUTO
    assert [last[f"mission_verified.{k}"] for k in (1, 2)] == [1.0, 1.0]
    assert last["ack_300.1"] == 0.0 and last["ack_400.1"] == 0.0  # MISSION_START and the arm, accepted
    p = pq.read_table(result.directory / "trace" / "positions.parquet").to_pydict()
    nodes = np.array(p["node"])
    for node, start_x in ((1, 25.0), (2, 50.0)):
        own = nodes == node
        y = np.array(p["y"])[own]
        z = np.array(p["z"])[own]
        assert 2.5 < z.max() < 3.5 and y.max() > 3.0  # up 3 m and to within its 2 m acceptance radius of 5 m north
        assert z[-1] == 0.0 and abs(y[-1]) < 2.5 and abs(np.array(p["x"])[own][-1] - start_x) < 1.5  # back, landed


@pytest.mark.parametrize("params, message", [
    ({"legs": []}, "at least one waypoint"),
    ({"legs": [[0, 0, 0]]}, "z must be > 0"),
    ({"retry": 0}, "retry must be > 0"),
])
def test_bad_mission_settings_are_refused_naming_the_controller(params, message):
    overrides = {f"groups.0.controller.params.{k}": v for k, v in params.items()}
    scenario = cosim.load(CONFIG, {**overrides, "mavlink.sitl.0.mavlink_port": free_udp_ports(5)})
    with pytest.raises(ScenarioError) as err:
        build(scenario)  # the ground station is built before any firmware is waited for
    assert err.value.path == "groups[0].controller.class" and message in str(err.value)
