"""Small helpers the fused engine's compiled parts share: a network row into the loop's log, and a
finite-number check for commands."""

from __future__ import annotations

import numpy as np
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


@njit(cache=True, inline="always")
def finite(v: float) -> bool:
    return not (np.isnan(v) or np.isinf(v))

