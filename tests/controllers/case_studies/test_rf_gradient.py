"""Simbeeotic's RF gradient navigation (paper 000, figure 10) in our tool.

          o 7   path A (30 degrees)
      o 3
    hive o 0          five MAVs start at the hive and random-walk, biased by the gradient they hear
  o 3
o 7   path B (200 degrees)
"""

import numpy as np
import pyarrow.parquet as pq

import cosim
from tests.conftest import ROOT


def test_mavs_reach_the_edge_of_the_gradient_and_come_home(tmp_path):
    result = cosim.run(cosim.load(ROOT / "configs" / "simbeeotic_gradient.yaml", {"duration": 250}), out_dir=tmp_path)
    assert result.status == "ok", result.error
    rec = pq.read_table(tmp_path / "trace" / "records.parquet").to_pydict()
    edge = {n for n, k in zip(rec["node"], rec["name"]) if k == "reached_edge"}
    home = {n for n, k in zip(rec["node"], rec["name"]) if k == "reached_hive"}
    assert edge == {15, 16, 17, 18, 19}  # every MAV got to the end of a path
    assert len(home) >= 2  # and some made the way back
    pos = pq.read_table(tmp_path / "trace" / "positions.parquet").to_pydict()
    mav = np.array(pos["node"]) >= 15
    far = np.hypot(np.array(pos["x"])[mav], np.array(pos["y"])[mav]).max()
    assert 55.0 < far < 100.0  # out to the last beacons (60-70 m), not lost beyond them
