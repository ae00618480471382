"""swarm-cosim: one timeline for a network simulator, a physics world and robot controllers.

Python API::

    import cosim
    scenario = cosim.load("configs/demo.yaml", overrides={"seed": 7})
    result = cosim.run(scenario, out_dir="runs/demo")
    print(result.metrics["messages_delivered"])
"""

from cosim.build import build
from cosim.errors import ScenarioError, SimulationError
from cosim.run import run
from cosim.rundir import RunResult
from cosim.scenario import Scenario, from_dict, load

__all__ = ["RunResult", "Scenario", "ScenarioError", "SimulationError", "build", "from_dict", "load", "run"]
__version__ = "0.1.0"
