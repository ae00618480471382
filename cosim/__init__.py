"""swarm-cosim: one timeline for a network simulator, a physics world and robot controllers.

Python API::

    import cosim
    scenario = cosim.load("configs/demo.yaml", overrides={"seed": 7})
    result = cosim.run(scenario, out_dir="runs/demo")
    print(result.metrics["messages_delivered"])
    out = cosim.read_run("runs/demo")            # later, from the files
    positions = out.trace("positions")           # a pyarrow Table; .to_pandas() for a DataFrame

Subpackages: `core` (the timeline: the Simulation and its parts, the event engine's loop, timers,
node handles, recorder), `fused_engine` (the fused engine: the same timeline as one compiled loop),
`scenario` (specs, loading, checks, layouts, the generated reference), `assembly` (a scenario built
into a Simulation), `execution` (a run end to end: its directory, the ns-3 child process, signals,
the watchdog), `output` (run directory, metrics, results), `sweep` (parameter campaigns, local or on
Dask), `report` (summaries and comparisons), `mavlink` (MAVLink vehicles: served, flown by firmware,
real ones as ghosts, and the client for them), `view` (Rerun recordings and live viewing), `stream`
(a live ZeroMQ publication) and `topology` (link-graph analytics).
"""

import importlib

import jit  # noqa: F401  (first: points numba's cache at the folder for this code, before numba loads)

_EXPORTS = {
    "build": "cosim.assembly.simulation", "run": "cosim.execution.execute", "ScenarioError": "cosim.errors",
    "SimulationError": "cosim.errors", "RunOutput": "cosim.output.results", "read_run": "cosim.output.results",
    "RunResult": "cosim.output.rundir", "from_dict": "cosim.scenario.loading", "load": "cosim.scenario.loading",
    "Scenario": "cosim.scenario.specs",
}
"""The API's names, each loaded from its module on first use: `import cosim` stays light, so the
`cosim` command starts (and takes Ctrl-C) before the engine is loaded."""

__all__ = sorted(_EXPORTS)
__version__ = "0.1.0"


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        try:
            value = importlib.import_module(f"cosim.{name}")  # a subpackage, as `cosim.execution`
        except ModuleNotFoundError:
            raise AttributeError(f"module 'cosim' has no attribute {name!r}") from None
    globals()[name] = value
    return value
