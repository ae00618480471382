"""Run a scenario end to end: build, simulate, write the run directory, summarise."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import numpy as np

from cosim.build import build
from cosim.coordinator import ProgressFn, Simulation
from cosim.errors import ScenarioError, SimulationError
from cosim.routing_metrics import routing_metrics
from cosim.rundir import RunResult, default_dir, prepare, write_status
from cosim.scenario import Scenario
from cosim.timeunits import NS_PER_S

log = logging.getLogger(__name__)


def metrics_of(sim: Simulation, scenario: Scenario, digest: str | None) -> dict:
    c = sim.counters
    sim_s = sim.now_ns / NS_PER_S
    return {
        "nodes": scenario.n_nodes,
        "seed": scenario.seed,
        "simulated_s": sim_s,
        "wall_s": sim.wall_s,
        "real_time_factor": sim_s / sim.wall_s if sim.wall_s > 0 else math.inf,
        "wall_physics_s": c.wall_physics_s,
        "wall_network_s": c.wall_network_s,
        "messages_sent": c.sent,
        "messages_delivered": c.delivered,
        "messages_dropped": c.dropped,
        "unicast_acked": c.acked,
        "unicast_not_acked": c.not_acked,
        "mean_neighbors": float(np.mean(c.neighbor_samples)) if c.neighbor_samples else 0.0,
        "physics_steps": c.physics_steps,
        "events": c.events,
        "alive_at_end": int(sim.alive.sum()),
        "deaths": c.deaths,
        "trace_sha256": digest,
    }


def _routing_metrics(sim: Simulation, scenario: Scenario, trace_dir: Path) -> dict:
    import pyarrow.parquet as pq

    def table(name: str) -> dict | None:
        path = trace_dir / f"{name}.parquet"
        return pq.read_table(path).to_pydict() if path.exists() else None

    packets = table("packets") or {k: [] for k in ("t_ns", "kind", "src", "dst", "port", "seq", "size", "detail")}
    extra = getattr(sim, "control_overhead", (0, 0))
    per_node = getattr(sim, "frames_received", None) or sim.rx_per_node
    m = routing_metrics(packets, scenario.n_nodes, extra, per_node)
    m["protocol"] = sim.stacks[0].protocol.name if sim.stacks else ""
    totals: dict[str, int] = {}
    for stack in sim.stacks:
        for k, v in stack.protocol.stats.items():
            totals[k] = totals.get(k, 0) + v
    m["protocol_counters"] = totals
    return m


def _record_summary(path: Path) -> dict:
    """Per record name: how many values, their mean, min, max, and the last one written (for sweeps
    to compare runs by what controllers recorded, e.g. `records.barrier_passed.max`)."""
    if not path.exists():
        return {}
    import pyarrow.parquet as pq

    cols = pq.read_table(path, columns=["name", "value"]).to_pydict()
    names = np.array(cols["name"], dtype=object)
    values = np.array(cols["value"], dtype=np.float64)
    out = {}
    for name in sorted(set(cols["name"])):
        v = values[names == name]
        finite = v[np.isfinite(v)]
        out[name] = {"count": len(v), "mean": float(finite.mean()) if len(finite) else math.nan,
                     "min": float(finite.min()) if len(finite) else math.nan,
                     "max": float(finite.max()) if len(finite) else math.nan, "last": float(v[-1])}
    return out


def summary_text(scenario: Scenario, m: dict, status: str, error: str | None) -> str:
    lines = [f"scenario   {scenario.name} ({scenario.source}), seed {scenario.seed}, status {status}"]
    if m:  # a run that died before producing metrics has only its status and error
        lines += [
            f"robots     {m.get('nodes')}  simulated {m.get('simulated_s', 0):.3f} s in {m.get('wall_s', 0):.2f} s wall"
            f"  (real-time factor {m.get('real_time_factor', 0):.2f}x)",
            f"messages   sent {m.get('messages_sent', 0)}, received {m.get('messages_delivered', 0)} times "
            f"(a broadcast counts once per receiver), dropped {m.get('messages_dropped', 0)}",
            f"neighbours {m.get('mean_neighbors', 0):.2f} on average (heard within the neighbour timeout)",
            ]
        rt = m.get("realtime")
        if rt:
            lines.append(f"real time  paced at {rt['speed']}x the wall clock: {rt['overruns']} overruns "
                         f"(worst {rt['worst_late_s'] * 1e3:.1f} ms late)")
        r = m.get("routing")
        if r:
            lines.append(
                f"routing    {r['protocol']}: delivered {r['data_delivered']} of {r['data_sent']} packets "
                f"(ratio {r['delivery_ratio']:.3f}), delay median {r['delay_median_s'] * 1e3:.2f} ms, "
                f"{r['control_frames']} control frames")
    if error:
        lines.append(f"error      {error}")
    return "\n".join(lines) + "\n"


def run(
    scenario: Scenario,
    out_dir: str | Path | None = None,
    progress: ProgressFn | None = None,
    argv: list[str] | None = None,
) -> RunResult:
    """Run `scenario` and write its directory (default: output.dir/<name>-seed<seed>-<time>)."""
    directory = Path(out_dir) if out_dir is not None else default_dir(scenario.output.dir, scenario.name, scenario.seed)
    prepare(directory, scenario, argv)
    sim: Simulation | None = None
    error: str | None = None
    status = "ok"
    try:
        sim = build(scenario, directory)
        sim.recorder.stream_to(directory / "trace")
        sim.progress = progress
        sim.run()
    except ScenarioError as exc:
        status, error = "failed", str(exc)
    except SimulationError as exc:
        status, error = "failed", str(exc)
        (directory / "error.txt").write_text(exc.traceback_text)
    except KeyboardInterrupt:
        status, error = "interrupted", "interrupted by the user (Ctrl-C)"
        log.warning("run interrupted at t = %.3f s; writing what was computed", sim.now_ns / NS_PER_S if sim else 0.0)
    except Exception as exc:  # a bug in a backend: still leave a record
        import traceback

        status, error = "failed", f"{type(exc).__name__}: {exc}"
        (directory / "error.txt").write_text(traceback.format_exc())
    finally:
        if sim is not None:
            if hasattr(sim.net, "control_overhead"):  # ns-3's own routing traffic, read before close
                sim.control_overhead = sim.net.control_overhead()
                sim.frames_received = sim.net.frames_received()
            sim.world.close()
            if sim.net is not None:
                sim.net.close()
    metrics: dict = {}
    digest = None
    if sim is not None:
        digest = sim.recorder.finish()
        metrics = metrics_of(sim, scenario, digest)
        if sim.stacks is not None:
            metrics["routing"] = _routing_metrics(sim, scenario, directory / "trace")
        for ext in sim.extensions:
            metrics.update(ext.metrics())
        summary = _record_summary(directory / "trace" / "records.parquet")
        if summary:
            metrics["records"] = summary
        (directory / "metrics.json").write_text(json.dumps(metrics, indent=2))
    (directory / "summary.txt").write_text(summary_text(scenario, metrics, status, error))
    extra = {"error": error, "t_s": sim.now_ns / NS_PER_S if sim else 0.0} if error else {}
    write_status(directory, status, **extra)
    return RunResult(directory, status, metrics, error, digest)
