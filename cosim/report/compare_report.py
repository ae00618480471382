"""`cosim compare RUN_A RUN_B`: two runs side by side, as a table and figures in the style of
`cosim report` (a self-contained index.html and each figure as a PNG)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np
from matplotlib.figure import Figure

from cosim.report import comparison as C
from cosim.report import run_data as rd
from cosim.report.scenario_diff import describe, differences
from cosim.report.writer import Report, safe_build

COLORS = ("C0", "C3")


def _figure(w: float = 7.0, h: float = 3.8):
    fig = Figure(figsize=(w, h), dpi=100, layout="constrained")
    return fig, fig.add_subplot()


def _series(runs: list[rd.RunData], sides: list[C.Side], series, ylabel: str, title: str) -> Figure | None:
    """One line per run of `series(run)` -> (times s, values) or None; None when no run has it."""
    fig, ax = _figure()
    drawn = False
    for d, s, color in zip(runs, sides, COLORS):
        got = series(d)
        if got is not None:
            ax.step(*got, where="post", color=color, label=s.label)
            drawn = True
    if not drawn:
        return None
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    ax.set_title(title)
    return fig


def traffic(runs: list[rd.RunData], sides: list[C.Side]) -> Figure | None:
    """Receptions per second over time, both runs."""
    def series(d: rd.RunData):
        frames = rd.frames_over_time(d)
        return None if frames is None else (frames[0][:-1], frames[2])

    return _series(runs, sides, series, "receptions per second", "link traffic over time")


def losses(sides: list[C.Side]) -> Figure | None:
    """Lost receptions by reason, both runs."""
    reasons = sorted(set(sides[0].reasons) | set(sides[1].reasons))
    if not reasons:
        return None
    fig, ax = _figure()
    x = np.arange(len(reasons))
    for k, (s, color) in enumerate(zip(sides, COLORS)):
        ax.bar(x + (k - 0.5) * 0.4, [s.reasons.get(r, 0) for r in reasons], width=0.4, color=color, label=s.label)
    ax.set_xticks(x, reasons)
    ax.set_ylabel("drop rows")
    ax.legend(fontsize=8)
    ax.set_title("why receptions were lost")
    return fig


def delays(sides: list[C.Side]) -> Figure | None:
    """Distribution of link delays (send to receive), both runs."""
    if not any(len(s.delay_s) for s in sides):
        return None
    fig, ax = _figure()
    for s, color in zip(sides, COLORS):
        x = np.sort(s.delay_s[s.delay_s > 0])
        if len(x):
            ax.step(x * 1e3, np.arange(1, len(x) + 1) / len(x), where="post", color=color, label=f"{s.label} (n = {len(x)})")
    ax.set_xscale("log")
    ax.set_xlabel("link delay (ms, log scale)")
    ax.set_ylabel("fraction of receptions")
    ax.legend(fontsize=8)
    ax.set_title("link delay: send to receive")
    return fig


def neighbour_counts(runs: list[rd.RunData], sides: list[C.Side]) -> Figure | None:
    def series(d: rd.RunData):
        counts = rd.neighbour_counts(d)
        return None if counts is None else (counts[0], counts[1].mean(axis=1))

    return _series(runs, sides, series, "mean senders heard per robot", "neighbours heard within the neighbour timeout")


def drift(apart: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> Figure | None:
    if apart is None:
        return None
    t, mean, largest = apart
    fig, ax = _figure()
    ax.plot(t, mean, color="C0", label="mean over robots")
    ax.plot(t, largest, color="C3", label="largest")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("distance between the two runs (m)")
    ax.legend(fontsize=8)
    ax.set_title("trajectory divergence: the same robot in both runs")
    return fig


def compare(a: Path, b: Path, out: Path) -> tuple[Path, list[list[object]], list[str]]:
    """Write the comparison report of runs `a` and `b` into `out`; returns its index.html, the table,
    and the lines that list how the two resolved scenarios differ (scenario_diff.describe)."""
    runs = [rd.load_run(a), rd.load_run(b)]
    if runs[0].n_nodes != runs[1].n_nodes:
        raise ValueError(f"{a} has {runs[0].n_nodes} robots and {b} has {runs[1].n_nodes}: compare runs of one scenario")
    sides = [C.side(d) for d in runs]
    apart = C.divergence(*runs)
    rows = C.summary_rows(*sides, apart)
    out.mkdir(parents=True, exist_ok=True)
    rep = Report(f"Comparison: {sides[0].label} and {sides[1].label}", out)
    rep.text(f"A = {a} ({sides[0].engines}); B = {b} ({sides[1].engines})", "meta")
    unread = [label for label, d in zip("AB", runs) if "scenario.yaml" in d.torn or not d.scenario]
    setup = ([f"scenarios: not compared ({' and '.join(unread)}: scenario.yaml cannot be read)"] if unread
             else describe(differences(runs[0].scenario, runs[1].scenario)))
    for line in setup:
        rep.text(line.strip(), "meta")
    for label, d in zip("AB", runs):
        for name, why in d.torn.items():
            rep.text(f"{label}: {name} cannot be read ({why}): what depends on it is left out", "bad")
    rep.table(["quantity", "A", "B", "B - A"], rows)
    figures = (
        ("compare_traffic", "Traffic", lambda: traffic(runs, sides), "Receptions per second in each run."),
        ("compare_losses", "Losses", lambda: losses(sides), "Drop rows by reason: what each engine says was lost, and why."),
        ("compare_delay", "Delay", lambda: delays(sides), "Cumulative distribution of send-to-receive times of every reception."),
        ("compare_neighbours", "Neighbours", lambda: neighbour_counts(runs, sides),
         "Mean number of distinct senders each robot heard within network.neighbor_timeout."),
        ("compare_divergence", "Divergence", lambda: drift(apart),
         "Distance between the same robot's positions in the two runs, at the position samples both have."),
    )
    for name, title, build, caption in figures:
        fig = safe_build(build, name)
        if fig is not None:
            rep.figure(name, title, fig, caption)
    return rep.write(), rows, setup


def format_table(rows: list[list[object]]) -> str:
    """The table as aligned text for the terminal."""
    def cell(v: object) -> str:
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    text = [[cell(v) for v in row] for row in [["", "A", "B", "B - A"], *rows[1:]]]
    widths = [max(len(r[k]) for r in text) for k in range(4)]
    lines = [f"A: {rows[0][1]}", f"B: {rows[0][2]}"]
    lines += ["  ".join(c.ljust(w) if k == 0 else c.rjust(w) for k, (c, w) in enumerate(zip(r, widths))) for r in text]
    return "\n".join(lines)
