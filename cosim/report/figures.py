"""The report's figures for one run, drawn with matplotlib (Agg, no display). Each builder returns
a Figure, or None when the run has nothing to show for it (no network, no battery, ...)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Circle, Polygon, Rectangle

from cosim.report import run_data as rd

MAX_TRACKS = 300  # trajectories drawn at most (evenly chosen); the rest would only be ink


@dataclass(frozen=True)
class FigureSpec:
    name: str
    title: str
    build: Callable[[rd.RunData], Figure | tuple[Figure, str] | None]  # a figure, and optionally a note for the caption
    caption: str


def _figure(w: float = 7.0, h: float = 5.0) -> tuple[Figure, plt.Axes]:
    fig = Figure(figsize=(w, h), dpi=100, layout="constrained")
    return fig, fig.add_subplot()


def _draw_world(ax: plt.Axes, scenario: dict) -> None:
    world = scenario.get("world") or {}
    lo = world.get("arena_lower")
    hi = world.get("arena_upper")
    if lo and hi:
        ax.add_patch(Rectangle((lo[0], lo[1]), hi[0] - lo[0], hi[1] - lo[1], fill=False, ls="--", lw=0.8, ec="0.6"))
    for o in world.get("obstacles") or ():
        kind = o.get("type", "box")
        if kind == "box":
            (cx, cy, _), (sx, sy, _) = o["center"], o["size"]
            ax.add_patch(Rectangle((cx - sx / 2, cy - sy / 2), sx, sy, fc="0.35", ec="0.2"))
        elif kind == "cylinder":
            ax.add_patch(Circle(tuple(o["center"][:2]), o["radius"], fc="0.35", ec="0.2"))
        elif kind == "wall":
            (x0, y0), (x1, y1) = o["start"], o["end"]
            length = float(np.hypot(x1 - x0, y1 - y0))
            nx = -(y1 - y0) / length
            ny = (x1 - x0) / length
            h = o.get("thickness", 0.2) / 2
            ax.add_patch(Polygon([(x0 + nx * h, y0 + ny * h), (x1 + nx * h, y1 + ny * h),
                                  (x1 - nx * h, y1 - ny * h), (x0 - nx * h, y0 - ny * h)], fc="0.35", ec="0.2"))


def _fit(ax: plt.Axes, points: np.ndarray, scenario: dict) -> None:
    """Frame the robots and the obstacles, not a much larger arena."""
    pts = [points[np.all(np.isfinite(points), axis=1)]]
    for o in (scenario.get("world") or {}).get("obstacles") or ():
        for key in ("center", "start", "end"):
            if key in o:
                pts.append(np.array([o[key][:2]], dtype=float))
    xy = np.concatenate(pts)
    if not len(xy):
        return
    lo = xy.min(axis=0)
    hi = xy.max(axis=0)
    pad = np.maximum((hi - lo) * 0.08, 0.04 * max(float((hi - lo).max()), 1e-3))
    ax.set_xlim(lo[0] - pad[0], hi[0] + pad[0])
    ax.set_ylim(lo[1] - pad[1], hi[1] + pad[1])
    span = (hi - lo) + 2 * pad
    width = ax.figure.get_figwidth()
    ax.figure.set_size_inches(width, float(np.clip(width * 0.85 * span[1] / span[0] + 1.2, 2.8, 8.0)))


def trajectories(d: rd.RunData) -> Figure | None:
    tracks = rd.trajectories(d)
    if not tracks:
        return None
    fig, ax = _figure(7, 6)
    _draw_world(ax, d.scenario)
    nodes = sorted(tracks)
    if len(nodes) > MAX_TRACKS:
        nodes = [nodes[i] for i in np.linspace(0, len(nodes) - 1, MAX_TRACKS).astype(int)]
    moving = [k for k in nodes if np.ptp(tracks[k][:, 1:3], axis=0).max() > 1e-6]
    still = [k for k in nodes if k not in moving]
    cmap = plt.get_cmap("tab10" if len(moving) <= 10 else "viridis")
    tick = rd.bins(d.duration_s, 10)[1]
    for i, k in enumerate(moving):
        tr = tracks[k]
        color = cmap(i % 10) if len(moving) <= 10 else cmap(i / max(len(moving) - 1, 1))
        label = f"robot {k}" if len(moving) <= 10 else None
        ax.plot(tr[:, 1], tr[:, 2], lw=1.0 if len(moving) < 50 else 0.4, color=color, label=label)
        marks = np.searchsorted(tr[:, 0], np.arange(tick, tr[-1, 0] + 1e-9, tick))
        marks = marks[marks < len(tr)]
        if len(moving) <= 10:
            ax.plot(tr[marks, 1], tr[marks, 2], "|", color=color, ms=7)
        ax.plot(tr[0, 1], tr[0, 2], "o", color=color, ms=3)
    if still:
        xy = np.array([tracks[k][0, 1:3] for k in still])
        ax.plot(xy[:, 0], xy[:, 1], "s", color="0.2", ms=4, label="stationary nodes")
    _fit(ax, np.concatenate([tracks[k][:, 1:3] for k in nodes]), d.scenario)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    if len(moving) <= 10 or still:
        ax.legend(fontsize=7, loc="best")
    ax.set_title(f"trajectories (ticks every {tick:g} s)" if len(moving) <= 10 else f"trajectories of {len(moving)} robots")
    return fig


def received_map(d: rd.RunData) -> tuple[Figure, str] | None:
    counts = rd.received_per_node(d)
    if not counts.any():
        return None
    xy = rd.node_places(d)
    fig, ax = _figure(7, 6)
    _draw_world(ax, d.scenario)
    ok = np.isfinite(xy[:, 0])
    sc = ax.scatter(xy[ok, 0], xy[ok, 1], c=counts[ok], s=160 if ok.sum() < 100 else 20, cmap="Greys", ec="0.3",
                    vmin=0)
    fig.colorbar(sc, ax=ax, label="frames received")
    hi = int(np.argmax(counts))
    lo = int(np.argmin(counts))
    note = f"most {int(counts[hi])} (node {hi}), least {int(counts[lo])} (node {lo}), total {int(counts.sum())}"
    ax.set_title(f"frames received per node (most {int(counts[hi])}, node {hi})", fontsize=10)
    _fit(ax, xy, d.scenario)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    return fig, f"Frames received: {note}."


def delivery_over_time(d: rd.RunData) -> Figure | None:
    routed = rd.delivery_over_time(d)
    fig, ax = _figure(7, 3.8)
    if routed is not None:
        edges, sent, ratio = routed
        ax.step(edges[:-1], ratio, where="post", color="C0")
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel("delivery ratio (by send time)")
        ax2 = ax.twinx()
        ax2.bar(edges[:-1], sent, width=np.diff(edges), align="edge", color="0.85", zorder=0)
        ax2.set_ylabel("packets sent per bin", color="0.5")
        ax.set_zorder(ax2.get_zorder() + 1)
        ax.patch.set_visible(False)
        ax.set_title(f"delivery ratio over time (overall {d.metrics['routing']['delivery_ratio']:.3f})"
                     if d.metrics.get("routing") else "delivery ratio over time")
    else:
        frames = rd.frames_over_time(d)
        if frames is None:
            return None
        edges, sent, got = frames
        ax.step(edges[:-1], sent, where="post", label="frames sent")
        ax.step(edges[:-1], got, where="post", label="receptions (a broadcast counts once per receiver)")
        ax.set_ylabel("per second")
        ax.legend(fontsize=8)
        ax.set_title("link traffic over time")
    ax.set_xlabel("time (s)")
    return fig


def log_distribution(x: np.ndarray, what: str) -> Figure | None:
    x = x[np.isfinite(x) & (x > 0)]
    if not len(x):
        return None
    fig, ax = _figure(7, 3.8)
    lo = np.log10(x.min())
    hi = np.log10(x.max())
    edges = np.logspace(lo - 0.05, hi + 0.05, 40) if hi > lo else np.array([x.min() * 0.9, x.max() * 1.1])
    ax.hist(x, bins=edges, color="C0", ec="white")
    ax.set_xscale("log")
    q = rd.quartiles(x)
    for key, style in (("q1", ":"), ("median", "-"), ("q3", ":")):
        ax.axvline(q[key], color="k", ls=style, lw=1)
    ax.set_xlabel(f"{what} (s, log scale)")
    ax.set_ylabel("count")
    ax.set_title(f"{what}: n = {len(x)}, min {_ms(q['min'])}, quartiles {_ms(q['q1'])} / {_ms(q['median'])} / "
                 f"{_ms(q['q3'])}, max {_ms(q['max'])}", fontsize=9)
    return fig


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def delay_distribution(d: rd.RunData) -> Figure | None:
    return log_distribution(rd.delay_samples(d), "end-to-end delay")


def discovery_distribution(d: rd.RunData) -> Figure | None:
    return log_distribution(rd.discovery_samples(d), "route discovery time")


def _band(ax: plt.Axes, t: np.ndarray, grid: np.ndarray, label: str) -> None:
    with np.errstate(all="ignore"):
        mean = np.nanmean(grid, axis=1)
        lo = np.nanmin(grid, axis=1)
        hi = np.nanmax(grid, axis=1)
    ax.fill_between(t, lo, hi, color="C0", alpha=0.2, label="min to max over nodes")
    ax.plot(t, mean, color="C0", label=label)
    ax.legend(fontsize=8)


def neighbours(d: rd.RunData) -> Figure | None:
    series = rd.neighbour_counts(d)
    if series is None or not series[1].any():
        return None
    fig, ax = _figure(7, 3.5)
    _band(ax, series[0], series[1], "mean over nodes")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("neighbours heard")
    ax.set_title("neighbour count (distinct senders heard within the neighbour timeout)")
    return fig


def energy(d: rd.RunData) -> Figure | None:
    series = rd.energy(d)
    if series is None:
        return None
    fig, ax = _figure(7, 3.5)
    _band(ax, series[0], series[1], "mean over robots")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("battery energy (J)")
    ax.set_title(f"energy left (total at the end {np.nansum(series[1][-1]):.4g} J)")
    return fig


def records(d: rd.RunData) -> Figure | None:
    series = rd.record_series(d)
    if not series:
        return None
    names = list(series)
    cols = 2 if len(names) > 1 else 1
    rows = (len(names) + cols - 1) // cols
    fig = Figure(figsize=(7 if cols == 1 else 10, 2.8 * rows), dpi=100, layout="constrained")
    for i, name in enumerate(names):
        ax = fig.add_subplot(rows, cols, i + 1)
        per_node = series[name]
        if len(per_node) <= 10:
            for node, (t, v) in sorted(per_node.items()):
                ax.plot(t, v, ".-" if len(t) < 60 else "-", ms=3, lw=0.8, label=f"node {node}")
            if len(per_node) > 1:
                ax.legend(fontsize=6)
        else:
            t = np.concatenate([s[0] for s in per_node.values()])
            v = np.concatenate([s[1] for s in per_node.values()])
            ax.plot(t, v, ".", ms=1.5, alpha=0.4, color="C0")
            ax.set_title(f"{len(per_node)} nodes", fontsize=8, loc="right")
        ax.set_title(name, fontsize=9, loc="left")
        ax.set_xlabel("time (s)", fontsize=8)
    return fig


def topology(d: rd.RunData) -> Figure | None:
    """The sampled link graph over time: components, largest component, diameter, algebraic connectivity."""
    tp = d.topology
    if not tp:
        return None
    t = tp["t_ns"] / 1e9
    fig = Figure(figsize=(7, 6), dpi=100, layout="constrained")
    panels = (("components", "components"), ("largest_fraction", "largest component (fraction)"),
              ("diameter", "diameter of the largest (hops)"), ("algebraic_connectivity", "algebraic connectivity"))
    for i, (col, label) in enumerate(panels):
        ax = fig.add_subplot(len(panels), 1, i + 1)
        ax.step(t, tp[col], where="post", color=f"C{i}")
        ax.set_ylabel(label, fontsize=8)
        if i == len(panels) - 1:
            ax.set_xlabel("time (s)")
    return fig


def forwarding_load(d: rd.RunData) -> Figure | None:
    nodes = d.topology_nodes
    if not nodes:
        return None
    fig, ax = _figure(5.5, 4)
    ax.scatter(nodes["betweenness"], nodes["forwarded"], s=14)
    ax.set_xlabel("mean betweenness centrality of the sampled link graph")
    ax.set_ylabel("data frames forwarded")
    r = (d.metrics.get("topology") or {}).get("betweenness_vs_forwarding", {}).get("pearson")
    ax.set_title(f"forwarding load against betweenness (Pearson r = {r})" if r is not None else "forwarding load")
    return fig


RUN_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("trajectories", "Trajectories", trajectories,
               "Paths over the arena (obstacles grey, arena dashed); a robot's start is a dot; stationary nodes are squares."),
    FigureSpec("received_per_node", "Packets received per node", received_map,
               "Each node at its mean position, darker for more frames received (routing stacks' count when the run routes)."),
    FigureSpec("delivery_over_time", "Delivery over time", delivery_over_time,
               "Routed runs: the fraction of application packets sent in each bin that arrived. Otherwise link frames."),
    FigureSpec("end_to_end_delay", "End-to-end delay", delay_distribution,
               "Distribution of delivered packets' delays on a log axis; solid line median, dotted quartiles."),
    FigureSpec("route_discovery", "Route discovery time", discovery_distribution,
               "Distribution of route discovery times on a log axis (the protocol's own records, else each session's "
               "time to its first delivery)."),
    FigureSpec("neighbours", "Neighbour counts", neighbours,
               "Distinct senders each node heard within the neighbour timeout, sampled over the run."),
    FigureSpec("energy", "Energy", energy, "Battery energy left per robot: mean and range."),
    FigureSpec("records", "Recorded values", records, "What controllers recorded with `record(name, value)`, over time."),
    FigureSpec("topology", "Topology", topology,
               "The link graph sampled over the run (output.topology): pairs heard within the window before each sample."),
    FigureSpec("forwarding_load", "Forwarding load", forwarding_load,
               "Each node's data frames forwarded against its mean betweenness in the sampled link graphs."),
)
