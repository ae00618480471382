"""Metrics of one link graph: components, diameter, algebraic connectivity, betweenness."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np


@dataclass(frozen=True)
class GraphSample:
    """One sampled graph's numbers (alive robots only). diameter: of the largest component, in hops;
    algebraic_connectivity: the Laplacian's second-smallest eigenvalue (0 when disconnected; NaN
    when not computed)."""

    t_ns: int
    nodes: int
    edges: int
    components: int
    largest_fraction: float
    diameter: int
    algebraic_connectivity: float


def graph_of(n: int, pairs: np.ndarray, alive: np.ndarray) -> nx.Graph:
    """The undirected graph of alive robots 0..n-1 with an edge per (i, j) pair between alive ones."""
    g = nx.Graph()
    g.add_nodes_from(np.flatnonzero(alive).tolist())
    keep = alive[pairs[:, 0]] & alive[pairs[:, 1]] if len(pairs) else np.zeros(0, dtype=bool)
    g.add_edges_from(map(tuple, pairs[keep].tolist()))
    return g


def sample(t_ns: int, g: nx.Graph, spectral_max: int) -> GraphSample:
    if g.number_of_nodes() == 0:
        return GraphSample(t_ns, 0, 0, 0, 0.0, 0, float("nan"))
    comps = list(nx.connected_components(g))
    largest = max(comps, key=len)
    diameter = nx.diameter(g.subgraph(largest)) if len(largest) > 1 else 0
    return GraphSample(t_ns, g.number_of_nodes(), g.number_of_edges(), len(comps), len(largest) / g.number_of_nodes(),
                       diameter, algebraic_connectivity(g) if g.number_of_nodes() <= spectral_max else float("nan"))


def algebraic_connectivity(g: nx.Graph) -> float:
    """Fiedler value of the graph Laplacian (dense, numpy): 0 for a disconnected graph."""
    n = g.number_of_nodes()
    if n < 2:
        return 0.0
    a = nx.to_numpy_array(g, nodelist=sorted(g.nodes))
    lap = np.diag(a.sum(axis=1)) - a
    value = float(np.linalg.eigvalsh(lap)[1])
    return max(value, 0.0) if value > 1e-9 else 0.0


def betweenness(g: nx.Graph, n: int, exact_max: int) -> np.ndarray:
    """Normalised betweenness per robot 0..n-1 (0 for absent ones); estimated from `exact_max`
    sources (fixed seed, so runs repeat) on larger graphs."""
    k = None if g.number_of_nodes() <= exact_max else exact_max
    values = nx.betweenness_centrality(g, k=k, seed=0 if k else None)
    out = np.zeros(n)
    for node, v in values.items():
        out[node] = v
    return out
