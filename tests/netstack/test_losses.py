"""Every loss is in the trace, on every engine: for a broadcast, each live node within decoding
range either receives it or has a drop row saying why, and a given-up unicast has one drop row with
its reason; summary, metrics and trace agree (issue 32)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from netstack.backend import DROP_REASONS

GRID = [[8.0 * (k % 5), 8.0 * (k // 5), 1.0] for k in range(25)]  # 32 m square: every pair within 51 m
FAR = [[150.0, 0.0, 1.0], [150.0, 40.0, 1.0]]  # out of everyone's range (and of each other's)


def _scenario(backend: str, controller: dict, points, duration: float = 2.0, standard: str = "802.11b", **extra) -> dict:
    return {"name": "losses", "seed": 7, "duration": duration, "quantum": "10 ms",
            "physics": {"backend": "kinematic", "dt": "10 ms", "collisions": False},
            "network": {"backend": backend, "radio": {"standard": standard, "pathloss": {"model": "log_distance"}}},
            "world": {"arena_lower": [-10, -10, 0], "arena_upper": [200, 200, 10]},
            "groups": [{"name": "n", "count": len(points), "layout": {"type": "list", "points": points},
                        "controller": controller}], **extra}


def _network(result) -> dict:
    return pq.read_table(result.directory / "trace" / "network.parquet").to_pydict()


@pytest.mark.parametrize("standard", ["802.11b", "802.15.4"])
@pytest.mark.parametrize("backend", ["fast", "ns3"])
def test_every_broadcast_reception_is_delivered_or_dropped_with_a_reason(backend, standard, run_dict):
    points = GRID + FAR
    controller = {"class": "tests.controllers.helpers:SyncBroadcasters", "params": {"fraction": 0.15}}
    scenario = _scenario(backend, controller, points, standard=standard)
    result = run_dict(scenario)
    assert result.status == "ok", result.error
    net = _network(result)
    kinds = np.array(net["kind"])
    sends = {t: (s, at) for t, s, at, k in zip(net["tx_id"], net["src"], net["t_ns"], kinds) if k == "send"}
    seen: dict[tuple[int, int], str] = {}
    for k, tx, dst, reason in zip(kinds, net["tx_id"], net["dst"], net["drop_reason"]):
        if k in ("deliver", "drop"):
            assert (tx, dst) not in seen, "a reception is accounted for once"
            seen[(tx, dst)] = reason if k == "drop" else "delivered"
    reach = cosim.from_dict(scenario).network.radio.max_range_m()  # 51 m for 802.11b, 99 m for 802.15.4
    xy = np.array(points)
    for tx, (src, at) in sends.items():
        if at > 1.95e9 or (tx, -1) in seen:
            continue  # still in the air when the run ends, or never sent (its sender's MAC gave it up)
        for j in range(len(points)):
            d = np.linalg.norm(xy[src] - xy[j])
            if j != src and d <= reach:
                assert (tx, j) in seen, f"{backend}: frame {tx} from {src} to {j} at {d:.1f} m is neither received nor dropped"
            elif j != src:
                assert seen.get((tx, j), "delivered") == "delivered"  # out of range: no reception to lose
    outcome = list(seen.values())
    assert outcome.count("delivered") > 0 and set(outcome) - {"delivered"} <= set(DROP_REASONS)
    if standard == "802.11b":  # DCF sends at once on an idle medium: frames sent together collide
        assert {"collision", "busy"} <= set(outcome)
    metrics = json.loads((result.directory / "metrics.json").read_text())
    assert metrics["messages_dropped"] == int((kinds == "drop").sum()) > 0
    assert metrics["messages_delivered"] == int((kinds == "deliver").sum())
    assert f"dropped {metrics['messages_dropped']}" in (result.directory / "summary.txt").read_text()


@pytest.mark.parametrize("backend", ["fast", "ns3"])
def test_a_given_up_unicast_has_one_drop_row_with_its_reason(backend, run_dict):
    """Robot 0 sends to a neighbour (delivered), to a robot out of range, and to one that died."""
    points = [[0, 0, 1], [20, 0, 1], [0, 20, 1], [200, 0, 1]]
    controller = {"class": "tests.controllers.helpers:Unicaster", "params": {"targets": [1, 3, 2], "count": 2}}
    result = run_dict(_scenario(backend, controller, points, kills=[{"node": 2, "at": 0.1}]))
    assert result.status == "ok", result.error
    net = _network(result)
    rows = [(k, d, r) for k, d, r in zip(net["kind"], net["dst"], net["drop_reason"]) if k in ("deliver", "drop", "ack", "noack")]
    for dst, outcome in ((1, ["deliver", "ack"]), (3, ["noack", "out_of_range"]), (2, ["noack", "dead"])):
        mine = sorted(r if k == "drop" else k for k, d, r in rows if d == dst)
        assert mine == sorted(outcome * 2), (backend, dst, mine)
