"""A network row into the fused loop's log (cosim.fused_engine.records.Log), as every compiled part that sends,
delivers or drops writes it."""

from __future__ import annotations

from numba import njit

SENT, DELIVERED, DROPPED, STEPS, EVENTS, ACKED, NOT_ACKED = range(7)
"""The log's counters by index (cosim.fused_engine.records.Log.counters): frames sent, receptions, drops,
physics steps, events, unicasts acknowledged and not."""


@njit(cache=True, inline="always")
def log_row(netlog, t: int, kind: int, src: int, dst: int, tx: int, dist: float, size: int, reason: int) -> None:
    """A network row into the loop's log (cosim.fused_engine.records.Log)."""
    n = netlog.n[0]
    if n >= len(netlog.t):
        raise ValueError("the fused engine's network log is full")
    netlog.t[n] = t
    netlog.kind[n] = kind
    netlog.src[n] = src
    netlog.dst[n] = dst
    netlog.tx[n] = tx
    netlog.dist[n] = dist
    netlog.size[n] = size
    netlog.reason[n] = reason
    netlog.n[0] = n + 1
