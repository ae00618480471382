"""A sweep's figures: each metric against the swept parameters, the mean over replications with
a 95% confidence interval (Student's t), one line per value of the other parameters."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from cosim.sweep.index import results_table

# t quantiles 0.975 for 1..30 degrees of freedom (beyond: the normal's 1.96)
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
_BOOKKEEPING = {"key", "replication", "seed", "status", "error", "nodes", "simulated_s", "wall_s", "physics_steps", "events",
                "trace_sha256", "wall_physics_s", "wall_network_s"}
_PREFERRED = ("records.", "routing.delivery_ratio", "routing.delay_median_s", "routing.route_discovery_median_s",
              "routing.control_frames_per_delivered", "messages_delivered", "mean_neighbors", "alive_at_end", "deaths",
              "real_time_factor")


def mean_ci(values: list[float]) -> tuple[float, float, int]:
    """(mean, half-width of the 95% confidence interval, n) of the finite values."""
    x = np.array([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if not len(x):
        return math.nan, math.nan, 0
    if len(x) == 1:
        return float(x[0]), math.nan, 1
    t = _T975[len(x) - 2] if len(x) - 1 <= len(_T975) else 1.96
    return float(x.mean()), float(t * x.std(ddof=1) / math.sqrt(len(x))), len(x)


def sweep_rows(directory: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The flat results and the names of the swept parameters (keys whose values differ between points)."""
    rows = results_table(directory)
    params = json_params(directory)
    axes = [p for p in params if len({_hashable(r.get(p)) for r in rows}) > 1]
    return rows, axes


def json_params(directory: Path) -> list[str]:
    import json

    names: list[str] = []
    for run_dir in sorted((directory / "runs").glob("*/sweep_point.json")):
        for k in json.loads(run_dir.read_text()).get("params", {}):
            if k not in names:
                names.append(k)
    return names


def _hashable(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def metric_names(rows: list[dict[str, Any]], axes: list[str], wanted: list[str] | None = None, limit: int = 8) -> list[str]:
    """Metrics worth plotting: those asked for, else numeric ones that vary, the preferred first."""
    if wanted:
        return wanted
    ok = [r for r in rows if r.get("status") == "ok"]
    names: list[str] = []
    for r in ok:
        names.extend(k for k, v in r.items() if k not in names and isinstance(v, (int, float)) and not isinstance(v, bool))
    names = [n for n in names if n not in _BOOKKEEPING and n not in axes and not n.startswith(("mavlink.", "realtime."))
             and not n.endswith((".count",)) and "protocol_counters" not in n]
    varying = [n for n in names if len({r.get(n) for r in ok}) > 1]

    def rank(name: str) -> tuple[int, str]:
        for i, p in enumerate(_PREFERRED):
            if name.startswith(p):
                return i, name
        return len(_PREFERRED), name

    return sorted(varying, key=rank)[:limit]


def metric_figure(rows: list[dict[str, Any]], axes: list[str], metric: str) -> Figure | None:
    ok = [r for r in rows if r.get("status") == "ok" and isinstance(r.get(metric), (int, float))]
    if not ok or not axes:
        return None
    x_axis, others = axes[0], axes[1:]
    xs = sorted({_hashable(r[x_axis]) for r in ok}, key=_sort_key)
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    groups = sorted({tuple(_hashable(r.get(o)) for o in others) for r in ok}, key=lambda g: tuple(map(_sort_key, g)))
    fig = Figure(figsize=(7, 4), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    for gi, g in enumerate(groups):
        means, halves, at = [], [], []
        for k, x in enumerate(xs):
            vals = [r[metric] for r in ok if _hashable(r[x_axis]) == x and tuple(_hashable(r.get(o)) for o in others) == g]
            if vals:
                m, h, _ = mean_ci(vals)
                means.append(m)
                halves.append(0.0 if math.isnan(h) else h)
                at.append(x if numeric else k)
        label = ", ".join(f"{o} = {v}" for o, v in zip(others, g)) or None
        ax.errorbar(at, means, yerr=halves, marker="o", capsize=4, label=label, color=f"C{gi % 10}",
                    ls="-" if numeric else "none")
    if not numeric:
        ax.set_xticks(range(len(xs)), [str(x) for x in xs])
    ax.set_xlabel(x_axis)
    ax.set_ylabel(metric)
    n_rep = max(len({r.get("replication") for r in ok if _hashable(r[x_axis]) == x}) for x in xs)
    ax.set_title(f"{metric}: mean and 95% CI over up to {n_rep} replications", fontsize=10)
    if others:
        ax.legend(fontsize=8)
    return fig


def _sort_key(v: Any) -> tuple:
    return (0, v, "") if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, 0, str(v))


def status_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        out[r.get("status") or "?"] = out.get(r.get("status") or "?", 0) + 1
    return out


def point_table(rows: list[dict[str, Any]], axes: list[str], metrics: list[str]) -> list[list[str]]:
    """Rows of: each axis value, runs ok / all, then mean ± CI of each metric."""
    points = sorted({tuple(_hashable(r.get(a)) for a in axes) for r in rows}, key=lambda p: tuple(map(_sort_key, p)))
    table = []
    for p in points:
        mine = [r for r in rows if tuple(_hashable(r.get(a)) for a in axes) == p]
        ok = [r for r in mine if r.get("status") == "ok"]
        cells = [str(v) for v in p] + [f"{len(ok)}/{len(mine)}"]
        for m in metrics:
            mean, half, n = mean_ci([r.get(m) for r in ok if isinstance(r.get(m), (int, float))])
            cells.append("" if n == 0 else f"{mean:.4g}" + ("" if math.isnan(half) else f" ± {half:.2g}"))
        table.append(cells)
    return table
