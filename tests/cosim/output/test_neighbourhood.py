"""Neighbourhood from positions and range alone: the same number whatever the protocol."""

import math

import pyarrow as pa
import pyarrow.parquet as pq

from cosim.output.neighbourhood import mean_neighbors_in_range, nominal_range_m
from netstack.fast.pathloss import LogDistance, UnitDisk
from netstack.radio import RadioSpec


def test_mean_neighbours_in_range_counts_live_nodes_within_range(tmp_path):
    # t=0: three nodes in a line 10 m apart (1, 2, 1 neighbours within 15 m); t=1: the middle one dead
    rows = {"t_ns": [0, 0, 0, 1, 1, 1], "x": [0.0, 10.0, 20.0, 0.0, 10.0, 20.0], "y": [0.0] * 6, "z": [0.0] * 6,
            "alive": [True, True, True, True, False, True]}
    path = tmp_path / "positions.parquet"
    pq.write_table(pa.table(rows), path)
    assert mean_neighbors_in_range(path, 15.0) == (4 / 3 + 0.0) / 2
    assert math.isnan(mean_neighbors_in_range(tmp_path / "none.parquet", 15.0))
    assert nominal_range_m(RadioSpec(pathloss=UnitDisk(range_m=25.0)), "fast") == 25.0
    # each engine's own reach for one radio: both detect down to -82 dBm, 16.02 dBm, exponent 3
    radio = RadioSpec(standard="802.11b", pathloss=LogDistance())
    assert nominal_range_m(radio, "fast") == nominal_range_m(radio, "ns3") == \
        LogDistance().max_range_m(16.0206, -82.0)
