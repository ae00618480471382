"""Flooding and direct delivery on a five-node chain (25 m unit disk)::

    n0 --20 m-- n1 --20 m-- n2 --20 m-- n3 --20 m-- n4
"""

import numpy as np

from tests.netstack.routing.topology import links, run, scenario

CHAIN = {f"n{i}": (20.0 * i, 0.0) for i in range(5)}


def rows(tables, kind):
    p = tables["packets"]
    k = np.asarray(p["kind"])
    return {c: np.asarray(v)[k == kind] for c, v in p.items() if c != "detail"}


def test_chain_is_a_chain():
    assert links(CHAIN) == {("n0", "n1"), ("n1", "n2"), ("n2", "n3"), ("n3", "n4")}


def test_flooding_reaches_the_far_end_once_per_packet_with_the_hop_count():
    sim, tables = run(scenario(CHAIN, {"protocol": "flooding"}, [("n0", "n4")], duration=3.0, rate=2.0))
    sent, recv = rows(tables, 0), rows(tables, 1)
    assert len(sent["seq"]) == 3  # at 2.0, 2.5 and 3.0 s
    assert sorted(recv["seq"].tolist()) == [0, 1]  # the packet sent at 3.0 s is still on its way at the end
    assert set(recv["hops"].tolist()) == {4}
    frames = rows(tables, 3)
    per_packet = len(frames["node"]) / len(sent["seq"])
    assert per_packet <= 4  # n0..n3 transmit each packet once; n4, the destination, does not
    assert sum(s.protocol.stats.get("duplicates", 0) for s in sim.stacks) >= len(recv["seq"])


def test_flooding_ttl_bounds_the_reach():
    sim, tables = run(scenario(CHAIN, {"protocol": "flooding", "ttl": 2}, [("n0", "n4")], duration=3.0, rate=2.0))
    assert len(rows(tables, 1)["seq"]) == 0
    assert sum(s.protocol.stats.get("ttl_expired", 0) for s in sim.stacks) >= 1
    assert set(rows(tables, 3)["node"].tolist()) == {0, 1}


def test_direct_delivers_to_a_neighbour_and_drops_beyond_range():
    _, tables = run(scenario(CHAIN, {"protocol": "direct"}, [("n0", "n1"), ("n0", "n2")], duration=3.0, rate=2.0))
    recv = rows(tables, 1)
    assert set(recv["dst"].tolist()) == {1} and set(recv["hops"].tolist()) == {1}
    p = tables["packets"]
    reasons = {d for k, d, dst in zip(p["kind"], p["detail"], p["dst"]) if k == 2}
    dropped_dst = {int(dst) for k, dst in zip(p["kind"], p["dst"]) if k == 2}
    assert reasons == {"no_ack"} and dropped_dst == {2}
