"""A finished run's recording, made from its trace: `cosim view RUN_DIR` when the run was not
recorded live. Frames fall on the position samples (trace.positions_every); the network rows,
events, packets and records between two samples go to the later one, through the same
FrameBuilder as a live run.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import rerun as rr

from cosim.report.run_data import RunData, load_run
from cosim.view.frames import FrameBuilder
from cosim.view.live import RECORDING
from cosim.view.painter import Painter
from cosim.view.scene import plain_scene, scene_of
from cosim.view.spec import ViewSpec

log = logging.getLogger(__name__)


def write_recording(run_dir: str | Path, spec: ViewSpec | None = None, path: str | Path | None = None) -> Path:
    """Write the run's recording (default `RUN_DIR/recording.rrd`) from its trace; returns its path."""
    run_dir = Path(run_dir)
    spec = spec or ViewSpec()
    if not (run_dir / "status.json").is_file():
        raise FileNotFoundError(f"{run_dir} is not a run directory (no status.json)")
    if not (run_dir / "trace" / "positions.parquet").is_file():
        raise FileNotFoundError(f"{run_dir / 'trace' / 'positions.parquet'}: no position trace to view; run with "
                                "output.trace.positions_every set, or record live with output.view")
    d = load_run(run_dir)
    if "trace/positions.parquet" in d.torn:
        raise ValueError(f"{run_dir / 'trace' / 'positions.parquet'} cannot be read ({d.torn['trace/positions.parquet']}): "
                         "no position trace to view")
    pos = d.positions
    scene = scene_of(d.scenario)
    n = int(pos["node"].max()) + 1 if len(pos["node"]) else 0
    if scene.n < n:  # scenario.yaml missing or torn: the positions alone
        log.warning("%s: scenario.yaml %s; drawing %d robots without their groups, sizes or obstacles", run_dir,
                    f"cannot be read ({d.torn['scenario.yaml']})" if "scenario.yaml" in d.torn else "is missing", n)
        scene = plain_scene(n)
    out = Path(path) if path is not None else run_dir / RECORDING
    rec = rr.RecordingStream("swarm-cosim", recording_id=f"{run_dir.name}-replay", send_properties=False,
                             batcher_config=rr.ChunkBatcherConfig.NEVER())
    rec.set_sinks(rr.FileSink(str(out)))
    times = np.unique(pos["t_ns"])
    step_ns = int(np.median(np.diff(times))) if len(times) > 1 else 0
    painter = Painter(rec, scene, spec.layers, spec.trail * step_ns)
    painter.paint_scene()
    builder = FrameBuilder(scene.n, routed=bool(d.packets) and len(d.packets["t_ns"]) > 0, links="links" in spec.layers)
    feeds = _Feeds(d)
    bounds = [*np.searchsorted(pos["t_ns"], times, side="left").tolist(), len(pos["t_ns"])]
    for k, t in enumerate(times.tolist()):
        rows = slice(bounds[k], bounds[k + 1])
        feeds.feed(builder, t)
        order = np.argsort(pos["node"][rows], kind="stable")
        xyz = np.stack([pos["x"][rows], pos["y"][rows], pos["z"][rows]], axis=1)[order]
        vel = np.stack([pos["vx"][rows], pos["vy"][rows], pos["vz"][rows]], axis=1)[order]
        painter.paint(builder.frame(t, xyz, vel, pos["heading"][rows][order], pos["alive"][rows][order].astype(bool)))
    painter.flush()
    rec.flush()
    rec.disconnect()
    return out


class _Feeds:
    """The trace's other tables, handed to a FrameBuilder up to each frame time in turn."""

    def __init__(self, d: RunData) -> None:
        packets = {k: np.asarray(v) for k, v in d.packets.items()}  # load_run keeps this table as lists
        self.tables = {"net": d.network, "events": d.events, "packets": packets, "records": d.records}
        self._at = dict.fromkeys(self.tables, 0)

    def _upto(self, name: str, t_ns: int) -> slice | None:
        table = self.tables[name]
        if not table:
            return None
        start = self._at[name]
        end = int(np.searchsorted(table["t_ns"], t_ns, side="right"))
        self._at[name] = end
        return slice(start, end) if end > start else None

    def feed(self, b: FrameBuilder, t_ns: int) -> None:
        if (r := self._upto("net", t_ns)) is not None:
            n = self.tables["net"]
            kind = n["kind"][r]
            sends = kind == "send"
            b.sends(n["src"][r][sends], n["dst"][r][sends])
            deliver = kind == "deliver"
            b.deliveries(n["src"][r][deliver], n["dst"][r][deliver])
            b.drops(int(np.count_nonzero(kind == "drop")))
        if (r := self._upto("events", t_ns)) is not None:
            e = self.tables["events"]
            for t, node, kind, detail in zip(e["t_ns"][r].tolist(), e["node"][r].tolist(), e["kind"][r], e["detail"][r]):
                b.event(t, node, str(kind), str(detail))
        if (r := self._upto("packets", t_ns)) is not None:
            p = self.tables["packets"]
            cols = [p[c][r].tolist() for c in ("node", "kind", "src", "dst", "port", "seq", "detail")]
            for row in zip(*cols):
                b.packet(*row)
        if (r := self._upto("records", t_ns)) is not None:
            rc = self.tables["records"]
            names = rc["name"][r]
            for name in np.unique(names).tolist():
                b.records(name, rc["value"][r][names == name])
