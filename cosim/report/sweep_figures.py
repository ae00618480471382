"""A sweep's figures: each metric against the swept parameters, the mean over replications with
a 95% interval (cosim.report.intervals: Student's t, Wilson's for proportions), one line per value of
the other parameters."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from cosim.report.intervals import interval, is_proportion
from cosim.sweep.index import results_table

_BOOKKEEPING = {"key", "replication", "seed", "status", "error", "nodes", "simulated_s", "wall_s", "physics_steps", "events",
                "trace_sha256", "wall_physics_s", "wall_network_s"}
_PREFERRED = ("records.", "routing.delivery_ratio", "routing.delay_median_s", "routing.route_discovery_median_s",
              "routing.control_frames_per_delivered", "messages_delivered", "mean_neighbors", "alive_at_end", "deaths",
              "real_time_factor")


def mean_ci(values: list[float]) -> tuple[float, float, int]:
    """(mean, half-width of the t interval, n) of the finite values (NaN half-width for one)."""
    i = interval(values)
    return i.mean, (i.high - i.mean) if i.n > 1 else math.nan, i.n


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
    x_axis = axes[0]
    others = axes[1:]
    xs = sorted({_hashable(r[x_axis]) for r in ok}, key=_sort_key)
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    groups = sorted({tuple(_hashable(r.get(o)) for o in others) for r in ok}, key=lambda g: tuple(map(_sort_key, g)))
    fig = Figure(figsize=(7, 4), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    proportion = is_proportion(metric, [r[metric] for r in ok])
    for gi, g in enumerate(groups):
        means = []
        below = []
        above = []
        at = []
        for k, x in enumerate(xs):
            vals = [r[metric] for r in ok if _hashable(r[x_axis]) == x and tuple(_hashable(r.get(o)) for o in others) == g]
            if vals:
                i = interval(vals, proportion)
                means.append(i.mean)
                below.append(0.0 if math.isnan(i.low) else i.mean - i.low)
                above.append(0.0 if math.isnan(i.high) else i.high - i.mean)
                at.append(x if numeric else k)
        label = ", ".join(f"{o} = {v}" for o, v in zip(others, g)) or None
        ax.errorbar(at, means, yerr=[below, above], marker="o", capsize=4, label=label, color=f"C{gi % 10}",
                    ls="-" if numeric else "none")
    if not numeric:
        ax.set_xticks(range(len(xs)), [str(x) for x in xs])
    ax.set_xlabel(x_axis)
    ax.set_ylabel(metric)
    n_rep = max(len({r.get("replication") for r in ok if _hashable(r[x_axis]) == x}) for x in xs)
    kind = "Wilson 95% interval" if proportion else "95% CI"
    ax.set_title(f"{metric}: mean and {kind} over up to {n_rep} replications", fontsize=10)
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
    """Rows of: each axis value, runs ok / all, then each metric's mean, 95% interval and runs."""
    points = sorted({tuple(_hashable(r.get(a)) for a in axes) for r in rows}, key=lambda p: tuple(map(_sort_key, p)))
    table = []
    for p in points:
        mine = [r for r in rows if tuple(_hashable(r.get(a)) for a in axes) == p]
        ok = [r for r in mine if r.get("status") == "ok"]
        cells = [str(v) for v in p] + [f"{len(ok)}/{len(mine)}"]
        for m in metrics:
            vals = [r.get(m) for r in ok if isinstance(r.get(m), (int, float))]
            every = [r.get(m) for r in rows if isinstance(r.get(m), (int, float))]
            cells.append(interval(vals, is_proportion(m, every)).text())
        table.append(cells)
    return table
