"""A run's metrics: counters from the coordinator, routing figures from the packet trace, and a
summary of what controllers recorded. Written to metrics.json."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from cosim.core.coordinator import Simulation
from cosim.core.timeunits import NS_PER_S
from cosim.output.neighbourhood import mean_neighbors_in_range, nominal_range_m
from cosim.output.packet_invariants import packet_invariants
from cosim.output.routing_metrics import routing_metrics
from cosim.scenario.specs import Scenario


def metrics_of(sim: Simulation, scenario: Scenario, digest: str | None, compile_s: float = 0.0) -> dict:
    """The run's figures. `compile_s`: wall time the run spent compiling kernels (a first run on a
    machine), inside `wall_s` and left out of `real_time_factor`."""
    c = sim.counters
    sim_s = sim.clock.now_ns / NS_PER_S
    running_s = sim.wall_s - compile_s
    return {
        "nodes": scenario.n_nodes,
        "seed": scenario.seed,
        "simulated_s": sim_s,
        "wall_s": sim.wall_s,
        "compile_s": compile_s,
        "real_time_factor": sim_s / running_s if running_s > 0 else math.inf,
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
        "alive_at_end": int(sim.population.alive.sum()),
        "deaths": c.deaths,
        "trace_sha256": digest,
        "engine_path": sim.engine_path,
        "slower_paths": list(c.slower_paths),
    }


def run_routing_metrics(sim: Simulation, scenario: Scenario, trace_dir: Path) -> dict:
    import pyarrow.parquet as pq

    def table(name: str) -> dict | None:
        path = trace_dir / f"{name}.parquet"
        return pq.read_table(path).to_pydict() if path.exists() else None

    packets = table("packets") or {k: [] for k in ("t_ns", "node", "kind", "src", "dst", "port", "seq", "hops", "size", "detail")}
    per_node = sim.ip_frames_received or sim.delivery.rx_per_node
    m = routing_metrics(packets, scenario.n_nodes, sim.ip_overhead, per_node)
    if packets["t_ns"]:
        m.update(packet_invariants(packets))
    else:
        m.update(revisits=0, duplicate_deliveries=0)
    m["protocol"] = sim.stacks[0].protocol.name if sim.stacks else ""
    m.update(sim.mac_counts)
    m["range_m"] = nominal_range_m(scenario.network.radio, scenario.network.backend)
    m["mean_neighbors_in_range"] = mean_neighbors_in_range(trace_dir / "positions.parquet", m["range_m"])
    totals: dict[str, int] = {}
    for stack in sim.stacks:
        for k, v in stack.protocol.stats.items():
            totals[k] = totals.get(k, 0) + v
    m["protocol_counters"] = totals
    return m


def record_summary(path: Path) -> dict:
    """Per record name: how many values, their mean, min, max, and the last one written (for sweeps
    to compare runs by what controllers recorded, e.g. `records.barrier_passed.max`)."""
    if not path.exists():
        return {}
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=["name", "value"])
    coded = table.column("name").combine_chunks().dictionary_encode()  # a code per row: no Python string each
    codes = coded.indices.to_numpy(zero_copy_only=False)
    vocab = coded.dictionary.to_pylist()
    values = table.column("value").to_numpy().astype(np.float64, copy=False)
    out = {}
    for code, name in sorted(enumerate(vocab), key=lambda item: item[1]):
        v = values[codes == code]
        finite = v[np.isfinite(v)]
        out[name] = {"count": len(v), "mean": float(finite.mean()) if len(finite) else math.nan,
                     "min": float(finite.min()) if len(finite) else math.nan,
                     "max": float(finite.max()) if len(finite) else math.nan, "last": float(v[-1])}
    return out
