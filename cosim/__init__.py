"""swarm-cosim: one timeline for a network simulator, a physics world and robot controllers.

Python API::

    import cosim
    scenario = cosim.load("configs/demo.yaml", overrides={"seed": 7})
    result = cosim.run(scenario, out_dir="runs/demo")
    print(result.metrics["messages_delivered"])
    out = cosim.read_run("runs/demo")            # later, from the files
    positions = out.trace("positions")           # a pyarrow Table; .to_pandas() for a DataFrame

Subpackages: `core` (timeline, coordinator, timers, node handles, recorder), `scenario` (specs,
loading, checks, layouts), `engine` (build and run), `output` (run directory, metrics),
`sweep`, `mavlink`, `report`.
"""

import jit  # noqa: F401  (first: points numba's cache at the folder for this code, before numba loads)
from cosim.engine.assemble import build
from cosim.engine.execute import run
from cosim.errors import ScenarioError, SimulationError
from cosim.output.results import RunOutput, read_run
from cosim.output.rundir import RunResult
from cosim.scenario.loading import from_dict, load
from cosim.scenario.specs import Scenario

__all__ = [
    "RunOutput", "RunResult", "Scenario", "ScenarioError", "SimulationError", "build", "from_dict", "load", "read_run", "run",
]
__version__ = "0.1.0"
