"""Initial state files: where each robot is, which way it faces, whether it is alive, and its
program's state, so a run can start where another ended.

Every run writes `final_state.json`; a scenario's `initial_state: <file>` starts from one (path
relative to the scenario file). JSON:

    {"format": "swarm-cosim state 1", "scenario": "demo", "seed": 1, "t_s": 30.0,
     "robots": [{"node": 0, "group": "bees", "position": [x, y, z], "heading": 0.5,
                 "alive": true, "state": {...} or null}, ...]}

Robots start at rest (velocities are not kept) and the clock starts again at 0.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosim.scenario.input_files import MAX_MODEL_BYTES, read_text

FORMAT = "swarm-cosim state 1"


@dataclass(frozen=True)
class RobotState:
    """One robot as a state file has it."""

    node: int
    group: str
    position: tuple[float, float, float]
    heading: float
    alive: bool
    state: dict[str, Any] | None


def state_problem(state: Any) -> str | None:
    """What keeps a controller's save_state() result out of a state file, or None if it fits."""
    if state is not None and not isinstance(state, dict):
        return f"returned a {type(state).__name__}, not a dict (or None)"
    try:
        json.dumps(state, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"returned something JSON cannot hold ({exc})"
    return None


def write_state(path: Path, scenario: str, seed: int, t_s: float, robots: list[RobotState]) -> None:
    """Write a state file; ValueError naming the robot whose state does not fit (state_problem)."""
    rows = [{"node": r.node, "group": r.group, "position": list(r.position), "heading": r.heading, "alive": r.alive,
             "state": r.state} for r in robots]
    for r in rows:
        problem = state_problem(r["state"])
        if problem:
            raise ValueError(f"robot {r['node']}: its controller's save_state() {problem}; return a dict of numbers, "
                             "strings, lists and dicts")
    head = json.dumps({"format": FORMAT, "scenario": scenario, "seed": seed, "t_s": t_s})[:-1]
    body = ",\n  ".join(json.dumps(r) for r in rows)
    path.write_text(f'{head}, "robots": [\n  {body}\n]}}\n')  # one robot per line


def read_state(path: Path) -> list[RobotState]:
    """The robots of a state file, in node order; ValueError saying what is wrong."""
    try:
        data = json.loads(read_text(path, MAX_MODEL_BYTES))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not a state file ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a state file: expected \"format\": \"{FORMAT}\" (a run's final_state.json)")
    robots = data.get("robots")
    if not isinstance(robots, list):
        raise ValueError(f"{path}: expected a list under \"robots\"")
    return [_robot(path, k, r) for k, r in enumerate(robots)]


def _robot(path: Path, k: int, r: Any) -> RobotState:
    where = f"{path}: robots[{k}]"
    if not isinstance(r, dict):
        raise ValueError(f"{where}: expected a mapping")
    try:
        pos = tuple(float(x) for x in r["position"])
        heading = float(r["heading"])
        node = int(r["node"])
        group = str(r["group"])
        alive = r["alive"]
        state = r.get("state")
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{where}: expected node, group, position [x, y, z], heading and alive ({exc})") from None
    if node != k or len(pos) != 3 or not all(map(math.isfinite, (*pos, heading))) or not isinstance(alive, bool):
        raise ValueError(f"{where}: expected node {k}, a finite position [x, y, z] and heading, alive true or false")
    if state is not None and not isinstance(state, dict):
        raise ValueError(f"{where}: state must be a mapping or null")
    return RobotState(node, group, (pos[0], pos[1], pos[2]), heading, alive, state)
