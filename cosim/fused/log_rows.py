"""A network row into the fused loop's log (cosim.fused.loop.Log), as every compiled part that sends,
delivers or drops writes it."""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def log_row(L, t: int, kind: int, src: int, dst: int, tx: int, dist: float, size: int, reason: int) -> None:
    """A network row into the loop's log (cosim.fused.loop.Log)."""
    n = L.n[0]
    if n >= len(L.t):
        raise ValueError("the fused engine's network log is full")
    L.t[n], L.kind[n], L.src[n], L.dst[n], L.tx[n], L.dist[n], L.size[n], L.reason[n] = (t, kind, src, dst, tx, dist, size,
                                                                                        reason)
    L.n[0] = n + 1
