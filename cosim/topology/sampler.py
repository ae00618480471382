"""Sample the link graph during a run and measure what routing did on it.

An extension and trace observer: deliveries mark who heard whom; every `every` the graph of pairs
heard within `window` is measured (cosim.topology.graph_metrics); routed packets delivered since
the previous sample are compared with the shortest-hop path in that graph (route stretch), and
each robot's betweenness is set against the data frames it forwarded. Results go to
metrics.json (`topology`) and to trace/topology.parquet and trace/topology_nodes.parquet.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import networkx as nx
import numpy as np

from cosim.core.timeline import Priority
from cosim.topology.graph_metrics import GraphSample, betweenness, graph_of, sample
from cosim.topology.report import summary, write_tables
from cosim.topology.spec import TopologySpec

log = logging.getLogger(__name__)


class TopologySampler:
    """The link graph every `spec.every`, and route stretch and forwarding load for routed runs."""

    def __init__(self, spec: TopologySpec, n: int, window_ns: int, routed: bool, run_dir: Path | None) -> None:
        self.spec = spec
        self.n = n
        self.window_ns = spec.window_ns or window_ns
        self.routed = routed
        self.run_dir = run_dir
        self._heard: list[tuple[np.ndarray, np.ndarray]] = []  # (pair codes, times) of recent deliveries
        self._recvs: list[tuple[int, int, int, int]] = []  # (t_ns, src, dst, hops) awaiting the next sample
        self.samples: list[GraphSample] = []
        self.forwarded = np.zeros(n, dtype=np.int64)
        self._betweenness_sum = np.zeros(n)
        self.stretch: list[float] = []
        self.no_path = 0
        self._sim = None

    # -- Extension -----------------------------------------------------------------------------
    def start(self, sim) -> None:
        self._sim = sim
        sim.clock.queue.push(0, Priority.SAMPLE, self._sample)

    def finish(self, sim) -> None:
        if self.run_dir is not None and self.samples:
            trace = Path(self.run_dir) / "trace"
            trace.mkdir(parents=True, exist_ok=True)
            write_tables(trace, self.samples, self._mean_betweenness() if self.routed else None,
                         self.forwarded if self.routed else None)

    def metrics(self) -> dict:
        if not self.samples:
            return {}
        return {"topology": summary(self.samples, self.routed, self.stretch, self.no_path, len(self._recvs),
                                    self._mean_betweenness(), self.forwarded)}

    def _mean_betweenness(self) -> np.ndarray:
        return self._betweenness_sum / max(len(self.samples), 1)

    def failures(self) -> list[str]:
        return []

    def _sample(self) -> None:
        sim = self._sim
        t = sim.clock.now_ns
        g = graph_of(self.n, self._pairs(t), sim.population.alive)
        self.samples.append(sample(t, g, self.spec.spectral_max))
        if self.routed:
            self._betweenness_sum += betweenness(g, self.n, self.spec.betweenness_exact_max)
            self._route_stretch(g, t)
        nxt = t + self.spec.every_ns
        if nxt <= sim.duration_ns:
            sim.clock.queue.push(nxt, Priority.SAMPLE, self._sample)

    def _pairs(self, t_ns: int) -> np.ndarray:
        """Unordered pairs heard within the window before t_ns (older marks are forgotten)."""
        if not self._heard:
            return np.zeros((0, 2), dtype=np.int64)
        codes = np.concatenate([c for c, _ in self._heard])
        times = np.concatenate([ts for _, ts in self._heard])
        recent = times > t_ns - self.window_ns
        codes = codes[recent]
        times = times[recent]
        self._heard = [(codes, times)]
        codes = np.unique(codes)
        return np.stack([codes // self.n, codes % self.n], axis=1)

    def _route_stretch(self, g: nx.Graph, t_ns: int) -> None:
        due = [r for r in self._recvs if r[0] <= t_ns]
        self._recvs = [r for r in self._recvs if r[0] > t_ns]
        lengths: dict[int, dict[int, int]] = {}
        for _, src, dst, hops in due:
            if src not in lengths:
                lengths[src] = nx.single_source_shortest_path_length(g, src) if src in g else {}
            shortest = lengths[src].get(dst)
            if shortest is None or shortest == 0:
                self.no_path += 1
            else:
                self.stretch.append(hops / shortest)

    # -- TraceObserver -------------------------------------------------------------------------
    def sends(self, t_ns: int, src: Sequence[int], dst: Sequence[int], tx_id: Sequence[int], size: Sequence[int]) -> None:
        pass  # links are what was heard, not what was sent

    def net_events(self, ev) -> None:
        if len(ev.dst):
            codes = np.minimum(ev.src, ev.dst) * self.n + np.maximum(ev.src, ev.dst)
            self._heard.append((codes, ev.row_times()))

    def event(self, t_ns: int, node: int, kind: str, detail: str) -> None:
        pass  # deaths reach the graph through the robots' alive flags

    def packet(self, t_ns: int, node: int, kind: str, src: int, dst: int, port: int, seq: int, hops: int,
               detail: str) -> None:
        if kind == "frame" and detail == "data" and node != src:
            self.forwarded[node] += 1
        elif kind == "recv":
            self._recvs.append((t_ns, src, node, hops))

    def records(self, t_ns: int, nodes: np.ndarray, name: str, values: np.ndarray) -> None:
        pass  # controller records are not links
