"""The early-stop contract: deliveries reach Python at their exact receive times.

Topology (unit disk, range 25 m; only neighbours on the line hear each other)::

    n0 ---20 m--- n1 ---20 m--- n2 ---20 m--- n3 ---20 m--- n4

n0 sends to n1; every node forwards to the next from its on_message. If deliveries were batched to
the end of a quantum, each hop would add up to one quantum of delay.
"""

import numpy as np
import pyarrow.parquet as pq
import pytest

from tests.conftest import base_scenario

LATENCY_NS = 100_000
BIT_RATE = 250_000
PAYLOAD = 12  # struct "<qI"


def chain(quantum: str) -> dict:
    data = base_scenario(duration=3.0, quantum=quantum)
    data["physics"] = {"backend": "kinematic", "dt": "1 ms", "collisions": False}
    data["network"] = {"backend": "fast", "radio": {"pathloss": {"model": "unit_disk", "range_m": 25.0},
                                                    "latency": LATENCY_NS / 1e9, "bit_rate_bps": BIT_RATE}}
    data["groups"] = [{
        "name": "chain", "count": 5,
        "layout": {"type": "grid", "origin": [0, 0, 1], "spacing": 20.0, "columns": 5},
        "controller": {"class": "controllers.library.relay:ChainRelay",
                       "params": {"first": 0, "last": 4, "start": 0.5037, "messages": 3, "interval": 0.7311}},
    }]
    return data


def delays(result) -> np.ndarray:
    records = pq.read_table(result.directory / "trace" / "records.parquet").to_pydict()
    return np.array([v for n, v in zip(records["name"], records["value"]) if n == "delay_s"])


@pytest.mark.parametrize("quantum", ["1 ms", "100 ms"])
def test_five_node_chain_delay_is_exact(run_dict, quantum):
    result = run_dict(chain(quantum))
    assert result.status == "ok", result.error
    per_hop_ns = PAYLOAD * 8 * 1_000_000_000 // BIT_RATE + LATENCY_NS
    assert delays(result) == pytest.approx([4 * per_hop_ns / 1e9] * 3, abs=1e-12)


def test_delay_does_not_depend_on_the_quantum(run_dict):
    fine = delays(run_dict(chain("1 ms")))
    coarse = delays(run_dict(chain("100 ms")))
    assert len(fine) == 3
    assert np.array_equal(fine, coarse)
