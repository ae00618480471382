"""Routing metrics of one run, computed from its trace (the `packets` and `network` tables).

Definitions (all times in seconds):
- delivery ratio: unicast application packets received at their destination / packets sent;
- end-to-end delay: receive time minus send time of each delivered packet (mean, median, 99th percentile);
- jitter: the mean absolute difference between the delays of consecutive delivered packets of the
  same session (source, destination, port), packets taken in sending order (RFC 3550's
  inter-arrival jitter without its smoothing);
- routing overhead: control frames (every frame a routing protocol transmits that is not a data
  frame; for ns-3's protocols, every IP packet to or from a routing port) and their bytes, per
  delivered packet;
- route discovery time: for each session, from its first packet's sending to the first delivery of
  any of its packets (the same definition for every protocol, since ns-3's protocols cannot be asked);
- unaccounted: unicast packets sent that were neither delivered nor dropped with a reason;
- packets received per node: frames each node's stack received (for ns-3's protocols, frames each
  node's MAC passed up: data, routing and ARP).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from cosim.core.recorder import PACKET_KINDS

SEND, RECV, DROP, FRAME = (PACKET_KINDS.index(k) for k in ("send", "recv", "drop", "frame"))


def _stats(x: np.ndarray, prefix: str) -> dict[str, float]:
    if len(x) == 0:
        return {f"{prefix}_mean_s": math.nan, f"{prefix}_median_s": math.nan, f"{prefix}_p99_s": math.nan}
    return {f"{prefix}_mean_s": float(np.mean(x)), f"{prefix}_median_s": float(np.median(x)),
            f"{prefix}_p99_s": float(np.percentile(x, 99))}


def packet_samples(packets: dict[str, Any]) -> dict[str, Any]:
    """Per-packet and per-session samples behind the metrics (for distributions and time series):
    `delay_s` of each delivered packet, `delivered_sent_ns` its send time, `sent_ns` every send
    time, `discovery_s` per session, and `jitter_terms_s`."""
    kind = np.asarray(packets["kind"])
    if kind.dtype.kind in "US" or kind.dtype == object:
        kind = np.array([PACKET_KINDS.index(k) for k in kind], dtype=np.int8)
    t = np.asarray(packets["t_ns"], dtype=np.int64)
    src = np.asarray(packets["src"], dtype=np.int64)
    dst = np.asarray(packets["dst"], dtype=np.int64)
    port = np.asarray(packets["port"], dtype=np.int64)
    seq = np.asarray(packets["seq"], dtype=np.int64)
    size = np.asarray(packets["size"], dtype=np.int64)
    detail = packets["detail"]

    sent = (kind == SEND) & (dst >= 0)
    recv = (kind == RECV) & (dst >= 0)
    key_sent = src[sent] * (1 << 32) + seq[sent]
    key_recv = src[recv] * (1 << 32) + seq[recv]
    first_recv_key, first_idx = np.unique(key_recv, return_index=True)
    recv_t = t[recv][first_idx]
    order = np.argsort(key_sent)
    ks = key_sent[order]
    ts = t[sent][order]
    pos = np.searchsorted(ks, first_recv_key)
    ok = (pos < len(ks)) & (ks[np.minimum(pos, len(ks) - 1)] == first_recv_key) if len(ks) else np.zeros(0, bool)
    delays = (recv_t[ok] - ts[pos[ok]]) / 1e9

    jitter_terms, discovery, sessions = _sessions(src[sent], dst[sent], port[sent], seq[sent], t[sent],
                                                  dict(zip(first_recv_key[ok].tolist(), delays.tolist())),
                                                  dict(zip(first_recv_key[ok].tolist(), recv_t[ok].tolist())))
    return {"delay_s": delays, "delivered_sent_ns": ts[pos[ok]] if len(ks) else np.zeros(0, np.int64),
            "sent_ns": t[sent], "discovery_s": np.array(discovery), "jitter_terms_s": jitter_terms,
            "sessions": sessions, "kind": kind, "size": size, "detail": detail, "n_sent": int(sent.sum()),
            "n_recv": int(ok.sum())}


def _sessions(s_src: np.ndarray, s_dst: np.ndarray, s_port: np.ndarray, s_seq: np.ndarray, s_t: np.ndarray,
              delay_of: dict[int, float], recv_time_of: dict[int, int]) -> tuple[list[float], list[float], int]:
    """Per session (source, destination, port) of the sends: the jitter terms between consecutive
    delivered packets, the route discovery time (first send to first delivery), and how many."""
    sess_of_sent: dict[tuple[int, int, int], list[int]] = {}
    for i, key in enumerate(zip(s_src.tolist(), s_dst.tolist(), s_port.tolist())):
        sess_of_sent.setdefault(key, []).append(i)
    jitter_terms: list[float] = []
    discovery: list[float] = []
    for (a, _b, _p), rows in sess_of_sent.items():
        rows.sort(key=lambda i: s_seq[i])
        ds = [delay_of.get(a * (1 << 32) + int(s_seq[i])) for i in rows]
        ds = [d for d in ds if d is not None]
        jitter_terms += [abs(y - x) for x, y in itertools.pairwise(ds)]
        got = [recv_time_of[k] for k in (a * (1 << 32) + int(s_seq[i]) for i in rows) if k in recv_time_of]
        if got:
            discovery.append((min(got) - int(s_t[rows[0]])) / 1e9)
    return jitter_terms, discovery, len(sess_of_sent)


def _unaccounted(packets: dict[str, Any], kind: np.ndarray) -> int:
    """Unicast packets sent that the trace shows neither delivered nor dropped (lost without a
    record: for ns-3's AODV, mostly its route-request queue overflowing, which ns-3 does not trace)."""
    if not len(kind):
        return 0
    key = np.asarray(packets["src"], dtype=np.int64) * (1 << 32) + np.asarray(packets["seq"], dtype=np.int64)
    sent = (kind == SEND) & (np.asarray(packets["dst"], dtype=np.int64) >= 0)
    fate = np.union1d(key[kind == RECV], key[kind == DROP])
    return int(np.setdiff1d(key[sent], fate).size)


def routing_metrics(packets: dict[str, Any], n_nodes: int, extra_control: tuple[int, int] = (0, 0),
                    received_per_node: list[int] | None = None) -> dict[str, Any]:
    """Metrics from the packets table's columns (`kind` holds codes or labels of PACKET_KINDS);
    `extra_control` adds routing traffic counted outside the trace (ns-3's own protocols), and
    `received_per_node` is counted by the coordinator (or by ns-3's MACs for its protocols)."""
    sm = packet_samples(packets)
    kind = sm["kind"]
    size = sm["size"]
    detail = sm["detail"]
    delays = sm["delay_s"]
    discovery = sm["discovery_s"]
    jitter_terms = sm["jitter_terms_s"]
    frames = kind == FRAME
    ctl = frames & np.array([d != "data" for d in detail], dtype=bool) if len(kind) else frames
    ctl_frames = int(ctl.sum()) + extra_control[0]
    ctl_bytes = int(size[ctl].sum()) + extra_control[1]
    n_sent = sm["n_sent"]
    n_recv = sm["n_recv"]
    per_node = list(received_per_node) if received_per_node is not None else [0] * n_nodes
    out = {
        "data_sent": n_sent,
        "data_delivered": n_recv,
        "delivery_ratio": n_recv / n_sent if n_sent else math.nan,
        **_stats(delays, "delay"),
        "jitter_s": float(np.mean(jitter_terms)) if jitter_terms else math.nan,
        "control_frames": ctl_frames,
        "control_bytes": ctl_bytes,
        "control_frames_per_delivered": ctl_frames / n_recv if n_recv else math.nan,
        "control_bytes_per_delivered": ctl_bytes / n_recv if n_recv else math.nan,
        **_stats(discovery, "route_discovery"),
        "sessions": sm["sessions"],
        "dropped": int((kind == DROP).sum()),
        "unaccounted": _unaccounted(packets, kind),
        "received_per_node": per_node,
    }
    return out
