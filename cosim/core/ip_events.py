"""What ns-3's own routing did with data packets (forwarded at a hop, dropped and why), into the
same packet trace as the Python protocols: each forward is a data frame row with its hop count,
each drop a drop row with its reason."""

from __future__ import annotations

import numpy as np

from cosim.core.recorder import Recorder
from netstack.routing.base import Packet

DROP_REASONS = {1: "ttl", 2: "no_route", 3: "bad_checksum", 4: "interface_down", 5: "routing", 6: "fragment_timeout",
                7: "duplicate", 100: "queue", 101: "queue_lifetime", 102: "mac", 103: "mac_old", 200: "arp"}
"""By code: ns-3's Ipv4L3Protocol::DropReason (1-7; `routing` covers what the protocol gave up on,
AODV's and DSDV's queue time-outs and overflows included, since ns-3 reports them as route errors),
100 + WifiMacDropReason (`mac`: no ACK after the retries; `queue`: the MAC queue was full), and
`arp` (no ARP reply for the next hop)."""


def record_ip_events(recorder: Recorder, rows: np.ndarray) -> int:
    """Each row into the packet trace; the number of drops (data packets ns-3's IP stack gave up on)."""
    for t, node, kind, src, dst, port, seq, value in rows.tolist():
        if kind == 0:
            recorder.data_frame(t, node, -1, src, port, seq, value, 0)
        else:
            recorder.packet(t, node, "drop", Packet(src, dst, port, seq, b""), -1, DROP_REASONS.get(value, f"ns3_{value}"))
    return int(np.count_nonzero(rows[:, 2] != 0))
