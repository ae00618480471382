"""The scenario's `output.topology` section."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TopologySpec:
    """Sample the link graph every `every` of simulated time: an edge joins two robots that heard each
    other (a delivery either way) within `window` before the sample (default: the scenario's
    network.neighbor_timeout, the simulator's own notion of a neighbour). Betweenness is exact up to
    `betweenness_exact_max` nodes and estimated from that many seeded sources above; algebraic
    connectivity (a dense eigenvalue problem) is computed up to `spectral_max` nodes."""

    every_ns: int = 1_000_000_000
    """How often the link graph is sampled."""
    window_ns: int | None = None
    """Two robots are linked if either heard the other within this before the sample (null:
    network.neighbor_timeout)."""
    betweenness_exact_max: int = 300
    """Betweenness is exact up to this many nodes, estimated from this many seeded sources above."""
    spectral_max: int = 2000
    """Algebraic connectivity is computed up to this many nodes."""

    def __post_init__(self) -> None:
        if self.every_ns <= 0:
            raise ValueError(f"every must be a positive duration, got {self.every_ns} ns")
        if self.window_ns is not None and self.window_ns <= 0:
            raise ValueError(f"window must be a positive duration, got {self.window_ns} ns")
        if self.betweenness_exact_max < 2 or self.spectral_max < 2:
            raise ValueError("betweenness_exact_max and spectral_max must be >= 2 nodes")
