"""What must hold in every routed run's packet trace, whatever the protocol: no data packet comes
back to a node it has left (a loop), and no packet is delivered twice at one node. Computed from
`trace/packets.parquet`, where every data frame names the packet it carries and its hop count
after that hop, so a node that sends one packet at two different hop counts saw it twice."""

from __future__ import annotations

from typing import Any

import numpy as np

from cosim.core.recorder import PACKET_KINDS

RECV = PACKET_KINDS.index("recv")
FRAME = PACKET_KINDS.index("frame")


def _codes(kind: Any) -> np.ndarray:
    kind = np.asarray(kind)
    if kind.dtype.kind in "US" or kind.dtype == object:
        return np.array([PACKET_KINDS.index(k) for k in kind], dtype=np.int8)
    return kind


def packet_invariants(packets: dict[str, Any]) -> dict[str, int]:
    """`revisits`: (packet, node) pairs where the node sent the packet at two hop counts (it came
    back: a loop); `duplicate_deliveries`: (packet, node) pairs delivered more than once."""
    kind = _codes(packets["kind"])
    src, seq, node = (np.asarray(packets[c], dtype=np.int64) for c in ("src", "seq", "node"))
    hops = np.asarray(packets["hops"], dtype=np.int64)
    data = (kind == FRAME) & (seq >= 0) & np.array([d == "data" for d in packets["detail"]], dtype=bool)
    visits = np.unique(np.stack([src[data], seq[data], node[data], hops[data]]), axis=1)
    _, per_node = np.unique(visits[:3], axis=1, return_counts=True) if visits.size else (None, np.zeros(0))
    recv = kind == RECV
    _, delivered = np.unique(np.stack([src[recv], seq[recv], node[recv]]), axis=1, return_counts=True) \
        if recv.any() else (None, np.zeros(0))
    return {"revisits": int((per_node > 1).sum()), "duplicate_deliveries": int((delivered > 1).sum())}
