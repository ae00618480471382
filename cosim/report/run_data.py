"""What a report plots, read from a run directory's files: trajectories, per-node receptions,
delivery over time, delay and route discovery samples, neighbour counts, energy, records.

Everything here is numpy over the trace tables; nothing needs the run to be in memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cosim.output.results import RunOutput, read_run
from cosim.output.routing_metrics import packet_samples

NS = 1e9


@dataclass
class RunData:
    """Columns of one run's trace tables (absent tables are empty dicts) and its files' contents."""

    directory: Path
    status: str
    error: str | None
    metrics: dict[str, Any]
    scenario: dict[str, Any]
    positions: dict[str, np.ndarray] = field(default_factory=dict)
    network: dict[str, np.ndarray] = field(default_factory=dict)
    packets: dict[str, Any] = field(default_factory=dict)
    records: dict[str, np.ndarray] = field(default_factory=dict)
    events: dict[str, np.ndarray] = field(default_factory=dict)
    topology: dict[str, np.ndarray] = field(default_factory=dict)
    topology_nodes: dict[str, np.ndarray] = field(default_factory=dict)
    torn: dict[str, str] = field(default_factory=dict)
    """Files that could not be read, each with why (cosim.output.results.RunOutput.torn)."""
    _packet_samples: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def duration_s(self) -> float:
        return float(self.metrics.get("simulated_s") or _seconds(self.scenario.get("duration", 0)))

    @property
    def n_nodes(self) -> int:
        return int(self.metrics.get("nodes") or sum(g.get("count", 0) for g in self.scenario.get("groups", [])))


def _seconds(value: Any) -> float:
    from cosim.core.timeunits import parse_duration_ns

    try:
        return parse_duration_ns(value) / NS
    except Exception:
        return 0.0


def _columns(table) -> dict[str, np.ndarray]:
    """numpy columns; dictionary-encoded labels and strings become numpy string arrays."""
    import pyarrow as pa

    out = {}
    for name in table.column_names:
        col = table.column(name).combine_chunks()
        if pa.types.is_dictionary(col.type):
            labels = np.array(col.dictionary.to_pylist(), dtype=str)
            idx = col.indices.to_numpy(zero_copy_only=False)
            out[name] = labels[idx] if len(labels) else np.zeros(len(idx), dtype=str)
        elif pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            out[name] = np.array(col.to_pylist(), dtype=str)
        else:
            out[name] = col.to_numpy(zero_copy_only=False)
    return out


def load_run(directory: str | Path) -> RunData:
    run: RunOutput = read_run(directory)
    t = run.traces
    return RunData(
        directory=run.directory, status=run.status, error=run.error, metrics=run.metrics, scenario=run.scenario,
        positions=_columns(t["positions"]) if "positions" in t else {},
        network=_columns(t["network"]) if "network" in t else {},
        packets=t["packets"].to_pydict() if "packets" in t else {},
        records=_columns(t["records"]) if "records" in t else {},
        events=_columns(t["events"]) if "events" in t else {},
        topology=_columns(t["topology"]) if "topology" in t else {},
        topology_nodes=_columns(t["topology_nodes"]) if "topology_nodes" in t else {},
        torn=run.torn,
    )


def _samples(d: RunData) -> dict[str, Any]:
    """The packets table's samples (cosim.output.routing_metrics.packet_samples), computed once per run."""
    if d._packet_samples is None:
        d._packet_samples = packet_samples(d.packets)
    return d._packet_samples


# -- derived series --------------------------------------------------------------------------------
def trajectories(d: RunData) -> dict[int, np.ndarray]:
    """node -> (T, 4) array of t_s, x, y, z in time order."""
    p = d.positions
    if not p:
        return {}
    order = np.lexsort((p["t_ns"], p["node"]))
    node = p["node"][order]
    cols = np.column_stack([p["t_ns"][order] / NS, p["x"][order], p["y"][order], p["z"][order]])
    cuts = np.nonzero(np.diff(node))[0] + 1
    return {int(chunk_node[0]): chunk for chunk_node, chunk in zip(np.split(node, cuts), np.split(cols, cuts))}


def received_per_node(d: RunData) -> np.ndarray:
    """Frames each node received: the routing stack's count when the run routes, else link deliveries."""
    routing = d.metrics.get("routing") or {}
    if routing.get("received_per_node"):
        return np.asarray(routing["received_per_node"], dtype=float)
    n = d.n_nodes
    net = d.network
    if not net:
        return np.zeros(n)
    deliver = net["kind"] == "deliver"
    return np.bincount(net["dst"][deliver].astype(np.int64), minlength=n).astype(float)[:n]


def node_places(d: RunData) -> np.ndarray:
    """Each node's mean position (x, y) over the run (motes stand still; robots are shown where they were on average)."""
    tr = trajectories(d)
    out = np.full((d.n_nodes, 2), np.nan)
    for node, rows in tr.items():
        if node < len(out):
            out[node] = rows[:, 1:3].mean(axis=0)
    return out


def bins(duration_s: float, target: int = 60) -> np.ndarray:
    """Bin edges (s) of a round width giving about `target` bins over the run."""
    if duration_s <= 0:
        return np.array([0.0, 1.0])
    raw = duration_s / target
    mag = 10 ** math.floor(math.log10(raw))
    width = min((m * mag for m in (1, 2, 5, 10) if m * mag >= raw), default=10 * mag)
    return np.arange(0.0, duration_s + width, width)


def delivery_over_time(d: RunData) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(bin edges, packets sent per bin, fraction of them delivered) by send time, for routed runs."""
    if not d.packets or not len(d.packets.get("t_ns", [])):
        return None
    s = _samples(d)
    if not s["n_sent"]:
        return None
    edges = bins(d.duration_s)
    sent, _ = np.histogram(s["sent_ns"] / NS, edges)
    got, _ = np.histogram(s["delivered_sent_ns"] / NS, edges)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(sent > 0, got / np.maximum(sent, 1), np.nan)
    return edges, sent, ratio


def frames_over_time(d: RunData) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(bin edges, link frames sent per second, receptions per second) for any run with a network trace."""
    net = d.network
    if not net:
        return None
    edges = bins(d.duration_s)
    width = edges[1] - edges[0]
    t = net["t_ns"] / NS
    sent, _ = np.histogram(t[net["kind"] == "send"], edges)
    got, _ = np.histogram(t[net["kind"] == "deliver"], edges)
    return edges, sent / width, got / width


def delay_samples(d: RunData) -> np.ndarray:
    if not d.packets or not len(d.packets.get("t_ns", [])):
        return np.zeros(0)
    return _samples(d)["delay_s"]


def discovery_samples(d: RunData) -> np.ndarray:
    """Route discovery times (s): what the routing protocol recorded (`route_discovery_s` records,
    one per discovery) if anything, else the per-session time to the first delivery."""
    r = d.records
    if r and len(r.get("name", [])):
        mine = r["name"] == "route_discovery_s"
        if mine.any():
            return r["value"][mine].astype(float)
    if not d.packets or not len(d.packets.get("t_ns", [])):
        return np.zeros(0)
    return _samples(d)["discovery_s"]


def neighbour_counts(d: RunData, every_s: float | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """(sample times, (T, N) distinct senders each node heard within the neighbour timeout)."""
    net = d.network
    if not net:
        return None
    timeout = _seconds(d.scenario.get("network", {}).get("neighbor_timeout", 2.0)) or 2.0
    deliver = net["kind"] == "deliver"
    t = net["t_ns"][deliver] / NS
    dst = net["dst"][deliver].astype(np.int64)
    src = net["src"][deliver].astype(np.int64)
    n = d.n_nodes
    every = every_s or max(d.duration_s / 60.0, timeout / 2.0)
    times = np.arange(every, d.duration_s + 1e-9, every)
    out = np.zeros((len(times), n))
    order = np.argsort(t, kind="stable")
    t = t[order]
    dst = dst[order]
    src = src[order]
    for k, at in enumerate(times):
        lo = np.searchsorted(t, at - timeout, side="right")
        hi = np.searchsorted(t, at, side="right")
        if hi > lo:
            pairs = np.unique(dst[lo:hi] * (n + 1) + src[lo:hi])
            out[k] = np.bincount(pairs // (n + 1), minlength=n)[:n]
    return times, out


def energy(d: RunData) -> tuple[np.ndarray, np.ndarray] | None:
    """(sample times, (T, N) battery energy in J) when any robot has a battery."""
    p = d.positions
    if not p or "battery_j" not in p or not np.isfinite(p["battery_j"]).any():
        return None
    times = np.unique(p["t_ns"])
    n = d.n_nodes
    grid = np.full((len(times), n), np.nan)
    row = np.searchsorted(times, p["t_ns"])
    grid[row, p["node"].astype(np.int64)] = p["battery_j"]
    return times / NS, grid


def record_series(d: RunData, limit: int = 12) -> dict[str, dict[int, tuple[np.ndarray, np.ndarray]]]:
    """Record name -> node -> (t_s, values), for the `limit` names with the most values."""
    r = d.records
    if not r or not len(r.get("name", [])):
        return {}
    names, counts = np.unique(r["name"].astype(str), return_counts=True)
    series = names[counts >= 3]  # a value or two is an event: see few_records
    counts = counts[counts >= 3]
    chosen = [str(n) for n in series[np.argsort(-counts, kind="stable")][:limit] if n != "route_discovery_s"]
    out: dict[str, dict[int, tuple[np.ndarray, np.ndarray]]] = {}
    for name in sorted(chosen):
        mine = r["name"] == name
        t = r["t_ns"][mine] / NS
        node = r["node"][mine].astype(np.int64)
        v = r["value"][mine].astype(float)
        out[name] = {int(k): (t[node == k], v[node == k]) for k in np.unique(node)}
    return out


def event_counts(d: RunData) -> dict[str, int]:
    e = d.events
    if not e or not len(e.get("kind", [])):
        return {}
    kinds, counts = np.unique(e["kind"].astype(str), return_counts=True)
    return {str(k): int(c) for k, c in zip(kinds, counts)}


def quartiles(x: np.ndarray) -> dict[str, float]:
    if not len(x):
        return {}
    q = np.percentile(x, [0, 25, 50, 75, 100])
    return dict(zip(("min", "q1", "median", "q3", "max"), (float(v) for v in q)))


def few_records(d: RunData, limit: int = 60) -> list[tuple[float, int, str, float]]:
    """Records written fewer than three times (events such as `robot_arrived`): (t_s, node, name, value)."""
    r = d.records
    if not r or not len(r.get("name", [])):
        return []
    names, counts = np.unique(r["name"].astype(str), return_counts=True)
    few = set(names[counts < 3].tolist())
    rows = [(float(t) / NS, int(n), str(k), float(v)) for t, n, k, v in zip(r["t_ns"], r["node"], r["name"], r["value"])
            if str(k) in few]
    return sorted(rows)[:limit]
