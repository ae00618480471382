"""ROSBuzz's barrier (paper 004) in our tool: virtual stigmergy rules and the six-drone consensus.

    six quadrotors on a line, 4 m apart, all in radio range; each frame dropped with probability p
"""

import pytest

import cosim
from controllers.case_studies.stigmergy import VirtualStigmergy
from tests.conftest import ROOT


def test_lamport_clocks_decide_which_write_wins():
    a, b = VirtualStigmergy(1), VirtualStigmergy(2)
    a.put(7, 1.0)
    a.put(7, 2.0)  # clock 2
    b.put(7, 5.0)  # clock 1: older, loses
    assert b.absorb(a.encode()) == 1 and b.get(7) == 2.0
    assert a.absorb(b.encode()) == 0 and a.get(7) == 2.0
    c = VirtualStigmergy(3)
    c.put(7, 9.0)
    c.put(7, 8.0)  # clock 2, same as a's, written by a higher id: wins the tie
    assert a.absorb(c.encode()) == 1 and a.get(7) == 8.0
    assert b.absorb(b"not a table") == 0 and VirtualStigmergy(1, table_id=2).absorb(a.encode()) == 0


def test_a_table_fits_one_xbee_frame():
    t = VirtualStigmergy(0)
    for k in range(100):
        t.put(k, float(k))
    assert len(t.encode()) <= 250 and VirtualStigmergy(1).absorb(t.encode()) == (250 - 6) // 14


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
