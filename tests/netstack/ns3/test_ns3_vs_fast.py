"""ns-3 and the fast model agree on who can hear whom when their path-loss parameters match.

Both use log-distance (n = 3, 46.6777 dB at 1 m) at 16.0206 dBm; the fast model's threshold is
ns-3's preamble-detection RSSI (-82 dBm), so both put the edge at 51.4 m. The layout keeps every pair
at least 20% away from that edge (no pair between 41 m and 62 m):

    cluster A: (0,0) (18,0) (36,0) (18,15)        cluster B: (105,0) (123,0) (141,5)
    |<------ pairs <= 36 m ------>|  gap >= 69 m  |<------ pairs <= 36 m ------>|
"""

import numpy as np
import pyarrow.parquet as pq

from netstack.fast.pathloss import LogDistance
from tests.netstack.ns3.helpers import ns3_scenario

POINTS = [[0, 0, 1], [18, 0, 1], [36, 0, 1], [18, 15, 1], [105, 0, 1], [123, 0, 1], [141, 5, 1]]
SENDS = 20


def link_ratios(result) -> dict:
    net = pq.read_table(result.directory / "trace" / "network.parquet").to_pydict()
    sent = {}
    got = {}
    for kind, src, dst in zip(net["kind"], net["src"], net["dst"]):
        if kind == "send":
            sent[src] = sent.get(src, 0) + 1
        elif kind == "deliver":
            got[(src, dst)] = got.get((src, dst), 0) + 1
    return {pair: n / sent[pair[0]] for pair, n in got.items()}


def test_links_above_90_percent_in_ns3_are_the_fast_models_in_range_pairs(run_dict):
    edge = LogDistance().max_range_m(16.0206, -82.0)
    d = np.linalg.norm(np.array(POINTS)[:, None, :] - np.array(POINTS)[None, :, :], axis=2)
    off_diag = d[~np.eye(len(POINTS), dtype=bool)]
    assert not np.any((off_diag > 0.8 * edge) & (off_diag < 1.2 * edge))  # the margins hold

    controller = {"class": "controllers.library.probes:PeriodicBroadcast", "params": {"interval": 0.5, "size": 100}}
    ns3 = ns3_scenario(POINTS, controller, duration=SENDS * 0.5, seed=2)
    fast = ns3_scenario(POINTS, controller, duration=SENDS * 0.5, seed=2)
    fast["network"] = {"backend": "fast", "radio": {"tx_power_dbm": 16.0206, "rx_threshold_dbm": -82.0,
                                                    "pathloss": {"model": "log_distance"}}}
    ns3_good = {pair for pair, r in link_ratios(run_dict(ns3)).items() if r > 0.9}
    fast_links = set(link_ratios(run_dict(fast)))
    expected = {(i, j) for i in range(len(POINTS)) for j in range(len(POINTS)) if i != j and d[i, j] <= edge}
    assert fast_links == expected
    assert ns3_good == expected
    assert len(expected) == 18  # 4*3 + 3*2 directed links
