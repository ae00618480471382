"""Run a scenario end to end: build, simulate, write the run directory, summarise."""

from __future__ import annotations

import json
import logging
import traceback
from pathlib import Path

from cosim.core.coordinator import Simulation
from cosim.core.parts import ProgressFn
from cosim.core.timeunits import NS_PER_S
from cosim.engine.assemble import build
from cosim.errors import ScenarioError, SimulationError
from cosim.output.metrics import metrics_of, record_summary, run_routing_metrics
from cosim.output.rundir import RunResult, default_dir, prepare, write_status
from cosim.output.summary import summary_text
from cosim.scenario.specs import Scenario

log = logging.getLogger(__name__)


def run(
    scenario: Scenario,
    out_dir: str | Path | None = None,
    progress: ProgressFn | None = None,
    argv: list[str] | None = None,
) -> RunResult:
    """Run `scenario` and write its directory (default: output.dir/<name>-seed<seed>-<time>).

    A failed or interrupted run still writes its directory, with what was computed up to then."""
    directory = Path(out_dir) if out_dir is not None else default_dir(scenario.output.dir, scenario.name, scenario.seed)
    prepare(directory, scenario, argv)
    sim: Simulation | None = None
    error: str | None = None
    status = "ok"
    try:
        sim = build(scenario, directory)
        sim.recorder.stream_to(directory / "trace")
        sim.run(progress)
    except ScenarioError as exc:
        status, error = "failed", str(exc)
    except SimulationError as exc:
        status, error = "failed", str(exc)
        (directory / "error.txt").write_text(exc.traceback_text)
    except KeyboardInterrupt:
        status, error = "interrupted", "interrupted by the user (Ctrl-C)"
        log.warning("run interrupted at t = %.3f s; writing what was computed", sim.now_ns / NS_PER_S if sim else 0.0)
    except Exception as exc:  # a bug in a backend: still leave a record
        status, error = "failed", f"{type(exc).__name__}: {exc}"
        (directory / "error.txt").write_text(traceback.format_exc())
    finally:
        if sim is not None:
            sim.close()
    metrics, digest = _write_metrics(sim, scenario, directory) if sim is not None else ({}, None)
    (directory / "summary.txt").write_text(summary_text(scenario, metrics, status, error))
    extra = {"error": error, "t_s": sim.now_ns / NS_PER_S if sim else 0.0} if error else {}
    write_status(directory, status, **extra)
    return RunResult(directory, status, metrics, error, digest)


def _write_metrics(sim: Simulation, scenario: Scenario, directory: Path) -> tuple[dict, str]:
    """Close the trace and write metrics.json; returns the metrics and the trace digest."""
    digest = sim.recorder.finish()
    metrics = metrics_of(sim, scenario, digest)
    if sim.stacks is not None:
        metrics["routing"] = run_routing_metrics(sim, scenario, directory / "trace")
    for ext in sim.extensions:
        metrics.update(ext.metrics())
    summary = record_summary(directory / "trace" / "records.parquet")
    if summary:
        metrics["records"] = summary
    (directory / "metrics.json").write_text(json.dumps(metrics, indent=2))
    return metrics, digest
