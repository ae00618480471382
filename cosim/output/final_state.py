"""The run's `final_state.json`: every robot's pose, whether it is alive, and its controller's
`save_state()`, for a later run to start from (`initial_state`; cosim.scenario.state_file)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cosim.core.timeunits import NS_PER_S
from cosim.scenario.specs import Scenario
from cosim.scenario.state_file import RobotState, write_state

if TYPE_CHECKING:
    from cosim.core.coordinator import Simulation


def write_final_state(sim: Simulation, scenario: Scenario, directory: Path) -> None:
    """Written before the world closes, for finished and stopped runs alike."""
    groups = [g.name for g in scenario.groups for _ in range(g.count)]
    pos, heading = sim.world.positions(), sim.world.headings()
    robots = []
    for i, ctrl in enumerate(sim.controllers):
        sim.current_node = i
        robots.append(RobotState(i, groups[i], (float(pos[i, 0]), float(pos[i, 1]), float(pos[i, 2])), float(heading[i]),
                                 bool(sim.alive[i]), ctrl.save_state()))
    sim.current_node = None
    write_state(directory / "final_state.json", scenario.name, scenario.seed, sim.now_ns / NS_PER_S, robots)
