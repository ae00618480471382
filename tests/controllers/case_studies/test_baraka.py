"""BARAKA's help request (paper 001, section 6) in our tool, at reduced size: 3 x 3 motes on ns-3
802.11b with AntHocNet, the far corner asking, the robot starting behind a wall.

  250  o    o    O  <- mote 8 asks for help
  150  o    o    o
   50  o    o    o
     R  \\ wall      R: the robot at (10, 10)
"""

import math

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError
from tests.conftest import ROOT


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    t = np.clip(((p - a) @ ab) / (ab @ ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[:, None] * ab), axis=1)


def test_the_robot_reaches_the_mote_through_the_network(tmp_path):
    # 400 s: the robot arrives at about 393 s (this seed), and nothing after that is asserted
    scenario = cosim.load(ROOT / "configs" / "baraka_help.yaml", {
        "duration": 400, "groups.0.count": 9, "groups.0.layout.columns": 3, "groups.0.controller.params.requester": 8,
        "world.arena_upper": [300, 300, 10], "output.trace.positions_every": 0.5})
    result = cosim.run(scenario, out_dir=tmp_path)
    assert result.status == "ok", result.error
    rec = pq.read_table(tmp_path / "trace" / "records.parquet").to_pydict()
    seen = {(n, k) for n, k in zip(rec["node"], rec["name"])}
    assert {(9, "request_heard"), (8, "robot_assigned"), (9, "robot_arrived"), (8, "request_fulfilled")} <= seen
    hops = [int(v) for n, k, v in zip(rec["node"], rec["name"], rec["value"]) if k == "next_hop"]
    assert hops[-1] == 8 and len(hops) >= 2  # hop by hop, the last one the mote itself
    discovery = [v for k, v in zip(rec["name"], rec["value"]) if k == "route_discovery_s"]
    assert len(discovery) >= 2 and 0 < np.median(discovery) < 1.0  # milliseconds, as the paper's
    r = result.metrics["routing"]
    assert r["data_delivered"] == r["data_sent"] > 5 and r["delay_median_s"] < 0.05
    # the wall stood between the robot and its first hop: it went round, never through
    pos = pq.read_table(tmp_path / "trace" / "positions.parquet").to_pydict()
    me = np.array(pos["node"]) == 9
    path = np.column_stack([np.array(pos["x"])[me], np.array(pos["y"])[me]])
    gap = _segment_distance(path, np.array([12.0, 42.0]), np.array([42.0, 12.0]))
    assert gap.min() > 0.3 - 0.05  # its radius, less the push-out's tolerance
    assert np.linalg.norm(path[-1] - [250.0, 250.0]) < 10.5
    travelled = np.linalg.norm(np.diff(path, axis=0), axis=1).sum()
    assert travelled > math.dist((10, 10), (250, 250))  # not a straight line: round the wall, hop to hop


def test_impossible_help_robot_parameters_name_the_key():
    with pytest.raises(ScenarioError, match=r"groups\[1\]\.controller\.params.*reached_m < invalidate_m"):
        cosim.load(ROOT / "configs" / "baraka_help.yaml", {"groups.1.controller.params.reached_m": 12.0})
