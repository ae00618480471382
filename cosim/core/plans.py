"""What a Simulation is built from: the plans for routed stacks and group controllers, and the
callbacks that tell the user how the run goes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from controllers import GroupController
from netstack.routing.base import RoutingProtocol

ProgressFn = Callable[[int, int, float], None]
PhaseFn = Callable[[str], None]
"""What a run is doing outside its timeline (building, waiting for a vehicle), in words for the user."""


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
