"""What the trace samples at each sample instant, whichever engine runs the timeline: every robot's
pose and motion (with its battery's energy, if any) and the mean neighbour count."""

from __future__ import annotations

import numpy as np

from cosim.core.counters import Counters
from cosim.core.neighbor_table import NeighborTable
from cosim.core.recorder import Recorder
from physics.bodies.battery import Batteries
from physics.world import World


class Sampler:
    """One sample of the run's state into the trace and the counters."""

    def __init__(self, recorder: Recorder, world: World, alive: np.ndarray, batteries: Batteries | None,
                 neighbor_table: NeighborTable | None, counters: Counters, neighbor_timeout_ns: int) -> None:
        self.recorder = recorder
        self.world = world
        self.alive = alive
        self.batteries = batteries
        self.neighbor_table = neighbor_table
        self.counters = counters
        self.neighbor_timeout_ns = neighbor_timeout_ns

    def sample(self, t_ns: int) -> None:
        w = self.world
        if self.recorder.want_positions:
            energy = self.batteries.energy_j if self.batteries is not None else None
            self.recorder.positions(t_ns, w.positions(), w.velocities(), w.headings(), self.alive, energy)
        if self.neighbor_table is not None:
            self.counters.neighbor_samples.append(self.neighbor_table.mean_count(t_ns - self.neighbor_timeout_ns,
                                                                                 self.alive))
