"""The sampler's results as metrics.json's `topology` entry and as Parquet tables."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np


def summary(samples, routed: bool, stretch: list[float], no_path: int, unevaluated: int,
            betweenness_mean: np.ndarray, forwarded: np.ndarray) -> dict:
    """Means over the samples; for routed runs, route stretch and betweenness against forwarding load."""
    col = {f: np.array([getattr(s, f) for s in samples], dtype=float)
           for f in ("components", "largest_fraction", "diameter", "algebraic_connectivity", "edges")}
    out = {"samples": len(samples),
           "mean_components": _r(col["components"].mean()),
           "mean_largest_component_fraction": _r(col["largest_fraction"].mean()),
           "min_largest_component_fraction": _r(col["largest_fraction"].min()),
           "mean_diameter_hops": _r(col["diameter"].mean()),
           "mean_algebraic_connectivity": _r(np.nanmean(col["algebraic_connectivity"]))
           if np.isfinite(col["algebraic_connectivity"]).any() else None,
           "connected_fraction_of_samples": _r(np.mean(col["components"] == 1)),
           "mean_edges": _r(col["edges"].mean())}
    if routed:
        s = np.array(stretch)
        out["route_stretch"] = {"packets": len(s), "no_path_in_sampled_graph": no_path, "not_evaluated": unevaluated,
                                "mean": _r(s.mean()) if len(s) else None,
                                "p95": _r(np.percentile(s, 95)) if len(s) else None,
                                "shortest_fraction": _r(np.mean(s <= 1.0 + 1e-9)) if len(s) else None}
        out["betweenness_vs_forwarding"] = {"pearson": _corr(betweenness_mean, forwarded),
                                            "spearman": _corr(_ranks(betweenness_mean), _ranks(forwarded)),
                                            "forwarded_frames": int(forwarded.sum())}
    return out


def _r(x: float) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else round(float(x), 6)


def _ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(len(x))
    for v in np.unique(x):  # ties share their mean rank
        ranks[x == v] = ranks[x == v].mean()
    return ranks


def _corr(a: np.ndarray, b: np.ndarray) -> float | None:
    if len(a) < 3 or np.std(a) == 0 or np.std(b) == 0:
        return None
    return _r(np.corrcoef(a, b)[0, 1])


def write_tables(directory: Path, samples, betweenness_mean: np.ndarray | None, forwarded: np.ndarray | None) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    fields = ("t_ns", "nodes", "edges", "components", "largest_fraction", "diameter", "algebraic_connectivity")
    pq.write_table(pa.table({f: [getattr(s, f) for s in samples] for f in fields}), directory / "topology.parquet")
    if betweenness_mean is not None:
        pq.write_table(pa.table({"node": np.arange(len(forwarded), dtype=np.int32), "betweenness": betweenness_mean,
                                 "forwarded": forwarded}), directory / "topology_nodes.parquet")
