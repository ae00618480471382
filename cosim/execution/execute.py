"""Run a scenario end to end: build, simulate, write the run directory, summarise."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import traceback
from collections.abc import Callable
from pathlib import Path

from cosim.assembly.simulation import build
from cosim.core.coordinator import Simulation
from cosim.core.plans import PhaseFn, ProgressFn
from cosim.core.timeunits import NS_PER_S
from cosim.errors import ScenarioError, SimulationError
from cosim.execution.compiling import CompileWatch
from cosim.execution.signals import Terminated, interrupts, reclaim
from cosim.execution.watchdog import Watchdog
from cosim.output.digests import kept_digests
from cosim.output.final_state import final_states, write_final_state
from cosim.output.metrics import metrics_of, record_summary, run_routing_metrics
from cosim.output.rundir import RunResult, default_dir, prepare, write_status
from cosim.output.staging import Staging
from cosim.output.summary import summary_text
from cosim.scenario.specs import Scenario

log = logging.getLogger(__name__)


def run(
    scenario: Scenario,
    out_dir: str | Path | None = None,
    progress: ProgressFn | None = None,
    argv: list[str] | None = None,
    overwrite: bool = False,
    phase: PhaseFn | None = None,
) -> RunResult:
    """Run `scenario` and write its directory (default: output.dir/<name>-seed<seed>-<time>).

    The run is written into a hidden sibling and renamed into place when it ends (cosim.output.staging):
    an existing non-empty `out_dir` is refused unless `overwrite`, and then replaced only by a run
    that succeeds. A failed or interrupted run still leaves its directory, with what was computed."""
    target = Path(out_dir) if out_dir is not None else default_dir(scenario.output.dir, scenario.name, scenario.seed)
    target = target.absolute()  # a controller may change the working directory
    with interrupts() as signals:  # shared with run_in's: a signal after the run is written waits for the rename
        stage = Staging(target, overwrite, scenario.source)
        result = run_in(scenario, stage.work, progress, argv, phase)
        signals.hold()
        return dataclasses.replace(result, directory=stage.publish(result.status))


def _interrupted(exc: KeyboardInterrupt, signalled: bool, sim: Simulation | None, directory: Path) -> tuple[str, str]:
    """The status and error of a run a KeyboardInterrupt ended: interrupted when a signal came (Ctrl-C,
    SIGTERM), failed when the run's own code raised it (its traceback written as for any failure)."""
    if not signalled and sim is not None:
        text = traceback.format_exc()
        _write_quietly(directory / "error.txt", text)
        return "failed", str(SimulationError.during(exc, sim.clock.now_ns, sim.clock.current_node, text))
    error = str(exc) if isinstance(exc, Terminated) else "interrupted by the user (Ctrl-C)"
    log.warning("run %s at t = %.3f s; writing what was computed", error, sim.clock.now_ns / NS_PER_S if sim else 0.0)
    return "interrupted", error


def run_in(scenario: Scenario, directory: Path, progress: ProgressFn | None = None,
           argv: list[str] | None = None, phase: PhaseFn | None = None,
           built: Callable[[Simulation], None] | None = None) -> RunResult:
    """Run `scenario` writing straight into `directory` (a staged or otherwise private one).
    The first Ctrl-C or SIGTERM stops the simulation and the run is recorded as interrupted; later
    ones, and any once the simulation has ended, wait until its results are written."""
    directory = directory.absolute()  # a controller may change the working directory
    sim: Simulation | None = None
    error: str | None = None
    status = "ok"
    prepared = False
    compiling: CompileWatch | None = None
    with interrupts() as signals:
        try:
            prepare(directory, scenario, argv)
            prepared = True
            sim = build(scenario, directory)
            if built is not None:
                built(sim)
            sim.recorder.stream_to(directory / "trace")
            compiling = CompileWatch(progress, phase)
            try:
                with Watchdog(sim, scenario.watchdog_ns / 1e9) if scenario.watchdog_ns else contextlib.nullcontext():
                    sim.run(_guarded(compiling.progress), phase)
            finally:
                compiling.stop()
            signals.hold()
        except (ScenarioError, SimulationError) as exc:
            status = "failed"
            error = str(exc)
            if isinstance(exc, SimulationError):
                _write_quietly(directory / "error.txt", exc.traceback_text)
        except KeyboardInterrupt as exc:
            status, error = _interrupted(exc, bool(signals.caught), sim, directory)
        except Exception as exc:  # a bug in a backend: still leave a record
            if not prepared:
                raise  # the directory cannot be written: nothing to record in
            status = "failed"
            error = f"{type(exc).__name__}: {exc}"
            _write_quietly(directory / "error.txt", traceback.format_exc())
        signals.hold()
        status, error, metrics, digest, warnings = _finish(sim, scenario, directory, status, error, compiling)
        if len(signals.caught) > (status == "interrupted"):
            log.warning("a signal arrived while the results were written; they are complete")
    return RunResult(directory, status, metrics, error, digest, warnings=tuple(warnings))


def _guarded(progress: ProgressFn) -> ProgressFn:
    """The progress callback, which also takes cosim's signal handlers back where user code replaced
    them: checked once the controllers are set up and at every 1% of the run, in the main thread."""
    def report(now_ns: int, end_ns: int, wall_s: float) -> None:
        for name in reclaim():
            log.warning("user code replaced cosim's %s handler at t = %.3f s; it is restored (a run stops on "
                        "SIGINT, SIGTERM, SIGHUP and SIGXCPU whatever a controller does)", name, now_ns / NS_PER_S)
        progress(now_ns, end_ns, wall_s)
    return report


def _finish(sim: Simulation | None, scenario: Scenario, directory: Path, status: str, error: str | None,
            compiling: CompileWatch | None = None) -> tuple[str, str | None, dict, str | None, list[str]]:
    """Close the simulation and write the trace and metrics.json, then the optional parts, then
    summary and status. A failure of the trace or metrics (a full disk) makes the run failed with the
    reason; an optional part that fails (a robot's save_state(), a metrics section) is a warning
    naming it, everything else kept. status.json is written last, whatever happened."""
    metrics: dict = {}
    digest = None
    warnings: list[str] = []
    metrics_digest: list[str] = []
    try:
        if sim is not None:
            robots = final_states(sim, scenario, warnings)  # before the world closes
            sim.close()
            metrics, digest = _write_metrics(sim, scenario, directory, compiling.compile_s if compiling else 0.0,
                                             warnings, metrics_digest)
            _optional("final_state.json", warnings, lambda: write_final_state(sim, scenario, directory, robots))
            failures = [f for ext in sim.extensions for f in ext.failures()]
            if failures and status == "ok":  # the run went on, but the real vehicles did not do what was asked
                status = "failed"
                error = "a real vehicle did not do what was asked: " + "; ".join(failures)
                log.error("run %s: %s", directory, error)
    except Exception as exc:
        status = "failed"
        error = f"{error + '; then ' if error else ''}writing the results failed: {type(exc).__name__}: {exc}"
        log.error("run %s: %s", directory, error)
        _write_quietly(directory / "error.txt", traceback.format_exc())
    for w in warnings:
        log.warning("run %s: %s", scenario.name, w)
    _write_quietly(directory / "summary.txt", summary_text(scenario, metrics, status, error, warnings))
    extra: dict = {"error": error, "t_s": sim.clock.now_ns / NS_PER_S if sim else 0.0} if error else {}
    if warnings:
        extra["warnings"] = warnings
    if metrics_digest:
        extra["metrics_sha256"] = metrics_digest[0]
    extra["files_sha256"] = kept_digests(directory)
    write_status(directory, status, **extra)
    return status, error, metrics, digest, warnings


def _optional(what: str, warnings: list[str], write: Callable[[], object]) -> None:
    """A part of the results the rest does not depend on: its failure is a warning, not a failed run."""
    try:
        write()
    except Exception as exc:
        warnings.append(f"{what} left out: {type(exc).__name__}: {exc}")
        log.debug("%s failed", what, exc_info=True)


def _write_quietly(path: Path, text: str) -> None:
    """Best effort (the disk may be full): the status, written after, says what went wrong."""
    try:
        path.write_text(text)
    except OSError as exc:
        log.error("cannot write %s: %s", path, exc)


def _write_metrics(sim: Simulation, scenario: Scenario, directory: Path, compile_s: float,
                   warnings: list[str], metrics_digest: list[str]) -> tuple[dict, str]:
    """Close the trace and write metrics.json; returns the metrics and the trace digest, and appends
    the digest of the file's bytes to `metrics_digest` (status.json keeps it: an edit shows). The
    routing, extension and records sections are optional parts (_optional)."""
    digest = sim.recorder.finish()
    metrics = metrics_of(sim, scenario, digest, compile_s)
    if sim.stacks is not None:
        _optional("metrics.json's routing section", warnings,
                  lambda: metrics.update(routing=run_routing_metrics(sim, scenario, directory / "trace")))
    for ext in sim.extensions:
        _optional(f"metrics.json's {type(ext).__name__} section", warnings, lambda ext=ext: metrics.update(ext.metrics()))

    def records() -> None:
        summary = record_summary(directory / "trace" / "records.parquet")
        if summary:
            metrics["records"] = summary
    _optional("metrics.json's records section", warnings, records)
    if warnings:  # what the run left out shows here too, as in status.json and summary.txt
        metrics["warnings"] = list(warnings)
    text = json.dumps(metrics, indent=2).encode()
    (directory / "metrics.json").write_bytes(text)
    metrics_digest.append(hashlib.sha256(text).hexdigest())
    return metrics, digest
