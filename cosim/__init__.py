"""swarm-cosim: one timeline for a network simulator, a physics world and robot controllers.

Python API::

    import cosim
    scenario = cosim.load("configs/demo.yaml", overrides={"seed": 7})
    result = cosim.run(scenario, out_dir="runs/demo")
    print(result.metrics["messages_delivered"])
    out = cosim.read_run("runs/demo")            # later, from the files
    positions = out.trace("positions")           # a pyarrow Table; .to_pandas() for a DataFrame
"""

from cosim.build import build
from cosim.errors import ScenarioError, SimulationError
from cosim.results import RunOutput, read_run
from cosim.run import run
from cosim.rundir import RunResult
from cosim.scenario import Scenario, from_dict, load

__all__ = [
    "RunOutput", "RunResult", "Scenario", "ScenarioError", "SimulationError", "build", "from_dict", "load", "read_run", "run",
]
__version__ = "0.1.0"
