"""The packet-trace invariants: a loop and a double delivery are found; a retransmission after a
lost ACK (same hop count) is not a loop."""

from cosim.output.packet_invariants import packet_invariants


def table(rows):
    """rows: (node, kind, src, seq, hops, detail) -> packets columns."""
    cols = {k: [] for k in ("t_ns", "node", "kind", "src", "dst", "port", "seq", "hops", "size", "detail")}
    for t, (node, kind, src, seq, hops, detail) in enumerate(rows):
        for k, v in zip(("t_ns", "node", "kind", "src", "dst", "port", "seq", "hops", "size", "detail"),
                        (t, node, kind, src, 0, 9, seq, hops, 64, detail)):
            cols[k].append(v)
    return cols


def test_a_packet_that_comes_back_is_a_revisit():
    loop = table([(0, "send", 0, 1, 0, ""), (0, "frame", 0, 1, 1, "data"), (1, "frame", 0, 1, 2, "data"),
                  (0, "frame", 0, 1, 3, "data"), (2, "frame", 0, 1, 4, "data"), (3, "recv", 0, 1, 4, "")])
    assert packet_invariants(loop) == {"revisits": 1, "duplicate_deliveries": 0}


def test_a_retransmission_is_not_a_revisit_but_a_second_delivery_is_counted():
    retry = table([(0, "send", 0, 1, 0, ""), (0, "frame", 0, 1, 1, "data"), (0, "frame", 0, 1, 1, "data"),
                   (1, "frame", 0, 1, 2, "data"), (2, "recv", 0, 1, 2, ""), (2, "recv", 0, 1, 2, ""),
                   (5, "frame", 5, -1, 0, "hello")])
    assert packet_invariants(retry) == {"revisits": 0, "duplicate_deliveries": 1}
