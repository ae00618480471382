"""Write a report directory: `index.html` (self-contained: figures embedded as PNG data, inline
CSS, no scripts, nothing fetched from the network) and every figure as its own PNG beside it."""

from __future__ import annotations

import base64
import html
import io
import json
import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

log = logging.getLogger(__name__)

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
figure { margin: 1.2em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.88em; } td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
th { background: #f4f4f4; } .meta { color: #555; } .bad { color: #a00; font-weight: bold; }
"""


class Report:
    """Collects sections, figures and tables, then writes them as HTML and PNGs."""

    def __init__(self, title: str, out_dir: Path) -> None:
        self.title = title
        self.out = out_dir
        self.parts: list[str] = []
        self.figures: list[str] = []

    def heading(self, text: str) -> None:
        self.parts.append(f"<h2>{html.escape(text)}</h2>")

    def text(self, text: str, cls: str = "") -> None:
        attr = f' class="{cls}"' if cls else ""
        self.parts.append(f"<p{attr}>{html.escape(text)}</p>")

    def table(self, header: list[str], rows: list[list[Any]]) -> None:
        head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(c))}</td>" for c in row) + "</tr>" for row in rows)
        self.parts.append(f"<table><tr>{head}</tr>{body}</table>")

    def figure(self, name: str, title: str, fig: Figure, caption: str) -> None:
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        png = buf.getvalue()
        (self.out / f"{name}.png").write_bytes(png)
        self.figures.append(name)
        data = base64.b64encode(png).decode("ascii")
        self.parts.append(f'<figure id="{html.escape(name)}"><img alt="{html.escape(title)}" '
                          f'src="data:image/png;base64,{data}"><figcaption><b>{html.escape(title)}.</b> '
                          f"{html.escape(caption)} ({html.escape(name)}.png)</figcaption></figure>")

    def write(self) -> Path:
        page = (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(self.title)}</title>"
                f"<style>{_CSS}</style></head><body><h1>{html.escape(self.title)}</h1>{''.join(self.parts)}</body></html>")
        path = self.out / "index.html"
        path.write_text(page)
        return path


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6g}"
    return str(value)


def safe_build(build: Callable[[], Any], name: str) -> Any:
    try:
        return build()
    except Exception:  # one figure's failure must not lose the others
        log.exception("figure %s failed", name)
        return None


def run_report(directory: Path, out: Path) -> Report:
    from cosim.report import figures as F
    from cosim.report import run_data as rd

    d = rd.load_run(directory)
    name = d.scenario.get("name", directory.name)
    rep = Report(f"Run report: {name}", out)
    seed = d.scenario.get("seed")
    rep.text(f"{directory} · scenario {name}, seed {seed}, {d.n_nodes} robots, {d.duration_s:g} s simulated, "
             f"status {d.status}", "meta")
    if d.error:
        rep.text(f"error: {d.error}", "bad")
    for name, why in d.torn.items():
        rep.text(f"{name} cannot be read ({why}): what depends on it is left out", "bad")
    for spec in F.RUN_FIGURES:
        built = safe_build(lambda s=spec: s.build(d), spec.name)
        if built is not None:
            fig, note = built if isinstance(built, tuple) else (built, "")
            rep.figure(spec.name, spec.title, fig, f"{spec.caption} {note}".strip())
    _distribution_table(rep, d)
    few = rd.few_records(d)
    if few:
        rep.heading("Recorded once or twice")
        rep.table(["time (s)", "node", "name", "value"], [list(row) for row in few])
    events = rd.event_counts(d)
    if events:
        rep.heading("Events")
        rep.table(["kind", "count"], sorted(events.items()))
    rep.heading("Metrics")
    from cosim.sweep.index import flatten

    rep.table(["metric", "value"], sorted(flatten(d.metrics).items()))
    return rep


def _distribution_table(rep: Report, d) -> None:
    from cosim.report import run_data as rd

    rows = []
    for what, x in (("end-to-end delay (ms)", rd.delay_samples(d)), ("route discovery time (ms)", rd.discovery_samples(d))):
        q = rd.quartiles(x)
        if q:
            rows.append([what, len(x)] + [q[k] * 1e3 for k in ("min", "q1", "median", "q3", "max")])
    if rows:
        rep.heading("Distributions")
        rep.table(["quantity", "n", "min", "first quartile", "median", "third quartile", "max"], rows)


def sweep_report(directory: Path, out: Path, metrics: list[str] | None = None) -> Report:
    from cosim.report import sweep_figures as S

    rows, axes = S.sweep_rows(directory)
    name = directory.name
    manifest = directory / "manifest.json"
    base = json.loads(manifest.read_text()).get("base", "") if manifest.is_file() else ""
    rep = Report(f"Sweep report: {name}", out)
    counts = S.status_counts(rows)
    rep.text(f"{directory} · base scenario {base} · {len(rows)} runs: "
             + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + f" · swept: {', '.join(axes) or 'nothing'}", "meta")
    known = {k for r in rows for k in r}
    unknown = [m for m in metrics or () if m not in known]
    if unknown:
        sample = ", ".join(S.metric_names(rows, axes, limit=12)) or "none"
        raise ValueError(f"{directory}: no run has the metric {unknown[0]!r}; plottable metrics include: {sample}")
    chosen = S.metric_names(rows, axes, metrics)
    for m in chosen:
        fig = safe_build(lambda m=m: S.metric_figure(rows, axes, m), m)
        if fig is not None:
            rep.figure(f"sweep_{m.replace('.', '_')}", m, fig,
                       f"{m} against {axes[0]}: mean over the replications that finished, bars the 95% confidence interval.")
    rep.heading("Points")
    rep.table([*axes, "runs ok", *chosen], S.point_table(rows, axes, chosen))
    failed = [r for r in rows if r.get("status") != "ok"]
    if failed:
        rep.heading("Runs that did not finish")
        rep.table(["key", "replication", "status", "error"], [[r["key"], r["replication"], r["status"], r.get("error") or ""]
                                                             for r in failed])
    return rep


def write_report(directory: str | Path, out: str | Path | None = None, metrics: list[str] | None = None) -> Path:
    """Write the report of a run or sweep directory into `out` (default: DIRECTORY/report); returns index.html."""
    d = Path(directory)
    target = Path(out) if out is not None else d / "report"
    target.mkdir(parents=True, exist_ok=True)
    if (d / "status.json").is_file():
        rep = run_report(d, target)
    elif (d / "runs").is_dir() and ((d / "index.sqlite").is_file() or (d / "manifest.json").is_file()):
        rep = sweep_report(d, target, metrics)
    else:
        raise FileNotFoundError(f"{d} is neither a run directory (status.json) nor a sweep directory (runs/, index.sqlite)")
    return rep.write()
