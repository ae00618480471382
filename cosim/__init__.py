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

from cosim import kernel_cache

kernel_cache.configure()  # before numba loads: its cache keyed by the compiled code's sources

from cosim.engine.assemble import build  # noqa: E402
from cosim.engine.execute import run  # noqa: E402
from cosim.errors import ScenarioError, SimulationError  # noqa: E402
from cosim.output.results import RunOutput, read_run  # noqa: E402
from cosim.output.rundir import RunResult  # noqa: E402
from cosim.scenario.loading import from_dict, load  # noqa: E402
from cosim.scenario.specs import Scenario  # noqa: E402

__all__ = [
    "RunOutput", "RunResult", "Scenario", "ScenarioError", "SimulationError", "build", "from_dict", "load", "read_run", "run",
]
__version__ = "0.1.0"
