"""ROSBuzz's barrier (paper 004) in our tool, on the swarm library: the six-drone consensus (the
library's own rules are tested in tests/controllers/swarm).

    six quadrotors on a line, 4 m apart, all in radio range; each frame dropped with probability p
"""

import pytest

import cosim
from tests.conftest import ROOT


@pytest.mark.parametrize("loss", [0.0, 0.9])
def test_consensus_is_reached_up_to_90_percent_drop(tmp_path, loss):
    scenario = cosim.load(ROOT / "configs" / "rosbuzz_barrier.yaml",
                          {"duration": 40, "network.radio.loss_probability": loss, "output.trace.positions_every": None})
    result = cosim.run(scenario, out_dir=tmp_path)
    assert result.status == "ok", result.error
    rec = result.metrics["records"]
    assert rec["barrier_passed"]["count"] == 6 and "barrier_timeout" not in rec  # all six passed
    assert rec["barrier_passed"]["min"] >= rec["takeoff_done"]["max"]  # nobody left before the last was up
    if loss:
        m = result.metrics
        assert m["messages_dropped"] > 0.85 * (m["messages_dropped"] + m["messages_delivered"])
        assert rec["barrier_wait"]["max"] > 0.2  # losses make the last robots wait
