"""The totals a run keeps as it goes (metrics.json and the summary report them)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Counters:
    """Totals kept during a run (network counts are frames/receptions, not bytes)."""

    sent: int = 0
    delivered: int = 0
    dropped: int = 0
    acked: int = 0
    not_acked: int = 0
    physics_steps: int = 0
    events: int = 0
    deaths: int = 0
    neighbor_samples: list[float] = field(default_factory=list)
    wall_physics_s: float = 0.0
    wall_network_s: float = 0.0  # inside the network backend's advance (for ns-3: ns-3's own work, mostly)
    slower_paths: list[str] = field(default_factory=list)
    """Parts of the run that take a slower path than they could, each with why (metrics.json, summary.txt)."""
