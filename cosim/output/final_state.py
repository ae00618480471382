"""The run's `final_state.json`: every robot's pose, whether it is alive, and its controller's
`save_state()`, for a later run to start from (`initial_state`; cosim.scenario.state_file)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cosim.core.timeunits import NS_PER_S
from cosim.scenario.specs import Scenario
from cosim.scenario.state_file import RobotState, state_problem, write_state

if TYPE_CHECKING:
    from cosim.core.coordinator import Simulation


def final_states(sim: Simulation, scenario: Scenario, warnings: list[str]) -> list[RobotState]:
    """Every robot's state, taken before the world closes, for finished and stopped runs alike. A
    save_state() that raises or returns what a state file cannot hold costs that robot's state
    only (null in the file), with a warning naming the robot and the call."""
    groups = [g.name for g in scenario.groups for _ in range(g.count)]
    pos = sim.world.positions()
    heading = sim.world.headings()
    robots = []
    faults: dict[tuple[str, str, str], list[int]] = {}  # (group, class, problem): the robots
    for i, ctrl in enumerate(sim.population.controllers):
        sim.clock.current_node = i
        try:
            state = ctrl.save_state()
            problem = state_problem(state)
        except Exception as exc:  # the controller's own code: its fault costs its state, not the run
            state = None
            problem = f"raised {type(exc).__name__}: {exc}"
        if problem:
            faults.setdefault((groups[i], type(ctrl).__name__, problem), []).append(i)
            state = None
        robots.append(RobotState(i, groups[i], (float(pos[i, 0]), float(pos[i, 1]), float(pos[i, 2])), float(heading[i]),
                                 bool(sim.population.alive[i]), state))
    sim.clock.current_node = None
    for (group, cls, problem), nodes in faults.items():
        warnings.append(f"{_robots(nodes)} ({group}): {cls}.save_state() {problem}; "
                        f"{'its state is' if len(nodes) == 1 else 'their states are'} null in final_state.json")
    return robots


def _robots(nodes: list[int], shown: int = 5) -> str:
    """'robot 3', 'robots 0, 1, 2', 'robots 0, 1, 2, 3, 4 and 995 more'."""
    if len(nodes) == 1:
        return f"robot {nodes[0]}"
    listed = ", ".join(map(str, nodes[:shown]))
    return f"robots {listed}" + (f" and {len(nodes) - shown} more" if len(nodes) > shown else "")


def write_final_state(sim: Simulation, scenario: Scenario, directory: Path, robots: list[RobotState]) -> None:
    """Write the states final_states took."""
    write_state(directory / "final_state.json", scenario.name, scenario.seed, sim.clock.now_ns / NS_PER_S, robots)
