"""AntHocNet's mechanics on small drawn topologies (fast network, 25 m unit disk, static nodes)."""

import numpy as np
import pytest

from tests.netstack.routing.topology import data_frames, links, run, scenario

S = 0  # node ids are positions in each topology dict; S is always first


def events(tables, kind):
    e = tables.get("events", {"kind": [], "node": [], "t_ns": [], "detail": []})
    return [(int(t), int(n), d) for t, n, k, d in zip(e["t_ns"], e["node"], e["kind"], e["detail"]) if k == kind]


def delivered(tables, after_ns=0):
    p = tables["packets"]
    kind = np.asarray(p["kind"])
    return int(((kind == 1) & (np.asarray(p["t_ns"]) > after_ns)).sum())


def sent(tables, after_ns=0, before_ns=None):
    p = tables["packets"]
    t = np.asarray(p["t_ns"])
    sel = (np.asarray(p["kind"]) == 0) & (t > after_ns)
    if before_ns is not None:
        sel &= t <= before_ns
    return int(sel.sum())


SHORT_AND_LONG = {"S": (0, 0), "A": (20, 10), "D": (40, 0), "B": (10, -20), "C": (30, -20)}


def test_pheromone_converges_to_the_shorter_of_two_paths():
    """Two hops over A against three over B and C::

            A
          /   \\
        S       D
          \\    /
          B - C

    With the default acceptance factor the three-hop copy is never accepted (see below), so here
    a1 = 0.5 lets ants learn both paths, and proactive ants explore more (broadcast probability
    0.5) so the long path is found in a short test. The two-hop path ends with more pheromone
    and carries most of the data."""
    assert links(SHORT_AND_LONG) == {("A", "S"), ("A", "D"), ("B", "S"), ("B", "C"), ("C", "D")}
    proto = {"protocol": "anthocnet", "proactive_broadcast_p": 0.5, "acceptance": 0.5}
    sim, tables = run(scenario(SHORT_AND_LONG, proto, [("S", "D")], duration=30.0))
    ahn = sim.stacks[0].protocol
    tau = ahn.pheromone(2)
    assert set(tau) == {1, 3}, f"both first hops should be known, got {tau}"
    assert tau[1] > 1.2 * tau[3]
    table = sim.stacks[0].protocol.routes()[2]
    assert [r.next_hop for r in table] == [1, 3]
    assert table[0].hops == 2 and table[1].hops == 3
    assert table[0].probability > 0.6 and table[0].probability + table[1].probability == pytest.approx(1.0)
    frames = data_frames(tables, S, after_ns=10_000_000_000)
    share = frames.get(1, 0) / (frames.get(1, 0) + frames.get(3, 0))
    assert share > 0.6 and share == pytest.approx(table[0].probability, abs=0.12)


EQUAL = {"S": (0, 0), "A": (20, 14), "B": (20, -14), "D": (40, 0)}


def test_data_splits_between_two_equal_paths():
    """Two disjoint two-hop paths::

            A
          /   \\
        S       D
          \\   /
            B
    """
    assert links(EQUAL) == {("A", "S"), ("A", "D"), ("B", "S"), ("B", "D")}
    _sim, tables = run(scenario(EQUAL, {"protocol": "anthocnet"}, [("S", "D")], duration=42.0, rate=10.0))
    frames = data_frames(tables, S)
    total = frames.get(1, 0) + frames.get(2, 0)
    assert total >= 390
    assert 0.35 < frames.get(1, 0) / total < 0.65, frames
    assert delivered(tables) >= 0.99 * sent(tables, before_ns=41_900_000_000)


def test_broken_link_notifies_and_moves_traffic_to_the_remaining_path():
    """The two-path topology above (both paths learned, A's the better); A dies at 15 s. S's next
    frame to A is not acknowledged: S drops A, broadcasts a link failure notification carrying its
    new best estimate for D (through B), and from then on sends everything through B."""
    kill_ns = 15_000_000_000
    proto = {"protocol": "anthocnet", "proactive_broadcast_p": 0.5, "acceptance": 0.5}
    sim, tables = run(scenario(SHORT_AND_LONG, proto, [("S", "D")], duration=25.0, kills=[("A", 15.0)]))
    failures = [(t, n, d) for t, n, d in events(tables, "link_failure") if n == S]
    assert failures and failures[0][0] > kill_ns and "neighbour 1" in failures[0][2]
    p = tables["packets"]
    lfn = [t for t, n, k, d in zip(p["t_ns"], p["node"], p["kind"], p["detail"]) if k == 3 and d == "lfn" and n == S]
    assert lfn and lfn[0] >= failures[0][0]
    assert sim.stacks[2].protocol.stats.get("notifications_received", 0) == 0  # D is out of S's range
    assert sum(s.protocol.stats.get("notifications_received", 0) for s in sim.stacks) >= 1
    after = data_frames(tables, S, after_ns=failures[0][0])
    assert set(after) == {3}
    assert delivered(tables, after_ns=kill_ns + 500_000_000) >= sent(tables, kill_ns + 500_000_000, 24_900_000_000) - 1
    assert set(sim.stacks[0].protocol.pheromone(2)) == {3}


DETOUR = {"S": (0, 0), "A": (20, 0), "B": (40, 0), "D": (60, 0), "C": (30, 18), "E": (50, 18)}


def test_local_repair_finds_a_detour():
    """S sends to D over A and B. B dies at 6 s; A has no other route, so it buffers the packet
    and broadcasts a repair ant, which finds D through C and E::

                  C ----- E
                /   \\   /  \\
        S --- A ----- B ----- D
    """
    assert links(DETOUR) == {("A", "S"), ("A", "B"), ("A", "C"), ("B", "C"), ("B", "D"), ("B", "E"), ("C", "E"),
                             ("D", "E")}
    proto = {"protocol": "anthocnet", "proactive_broadcast_p": 0.0}
    sim, tables = run(scenario(DETOUR, proto, [("S", "D")], duration=12.0, kills=[("B", 6.0)]))
    a = sim.stacks[1].protocol
    assert [n for _, n, _ in events(tables, "local_repair")] == [1]
    assert a.stats.get("repairs_succeeded") == 1
    assert a.routes()[3][0].next_hop == 4  # A now reaches D through C
    assert delivered(tables, after_ns=6_500_000_000) >= sent(tables, 6_500_000_000, 11_900_000_000) - 1


LONG_COPY = {"S": (0, 0), "A": (20, 0), "D": (40, 0), "B": (0, -22), "C": (20, -36), "E": (40, -22)}


def test_ant_copies_beyond_the_acceptance_factor_are_dropped():
    """The reactive ant's broadcast copies reach D in two hops (over A) and in four (B, C, E)::

        S --- A --- D
        |           |
        B --- C --- E

    4 hops is worse than the best 2 beyond the acceptance factor 0.9, so D drops that copy and
    sends no backward ant for it: S learns only the path over A."""
    assert links(LONG_COPY) == {("A", "S"), ("A", "D"), ("B", "S"), ("B", "C"), ("C", "E"), ("D", "E")}
    proto = {"protocol": "anthocnet", "proactive_every": 1000}
    sim, _tables = run(scenario(LONG_COPY, proto, [("S", "D")], duration=4.0))
    d = sim.stacks[2].protocol
    assert d.stats.get("ants_rejected", 0) >= 1
    assert d.stats.get("backward_ants_sent") == 1
    assert set(sim.stacks[0].protocol.pheromone(2)) == {1}


def test_acceptance_factor_one_half_lets_the_long_copy_through():
    """The same topology with a1 = 0.5: 2 / 4 >= 0.5, so D answers both copies and S knows both paths."""
    proto = {"protocol": "anthocnet", "proactive_every": 1000, "acceptance": 0.5}
    sim, _ = run(scenario(LONG_COPY, proto, [("S", "D")], duration=4.0))
    assert sim.stacks[2].protocol.stats.get("backward_ants_sent") == 2
    assert set(sim.stacks[0].protocol.pheromone(2)) == {1, 3}
