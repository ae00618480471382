"""What a Simulation is built from and keeps: its counters, the plans for routed stacks and group
controllers, and the progress callbacks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from controllers import GroupController
from netstack.routing.base import RoutingProtocol

ProgressFn = Callable[[int, int, float], None]
PhaseFn = Callable[[str], None]
"""What a run is doing outside its timeline (building, waiting for a vehicle), in words for the user."""


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


@dataclass(frozen=True)
class RoutingPlan:
    """Per-node stacks for a routed scenario: the protocol class, its parameters, one seeded stream per node."""

    protocol: type[RoutingProtocol]
    params: object
    rngs: Sequence[np.random.Generator]


@dataclass(frozen=True)
class GroupPlan:
    """Robots first..first+count-1 programmed by one GroupController; `robot_rng(node)` gives the stream
    a per-robot controller on that node would have."""

    first: int
    count: int
    controller: GroupController
    robot_rng: Callable[[int], np.random.Generator]
    sensors: Sequence[dict] = ()
    """Each robot's sensors by name (robot k of the group at index k)."""
