"""A finished run's recording, made from its trace: `cosim view RUN_DIR` when the run was not
recorded live. Frames fall on the position samples (trace.positions_every); the network rows,
events, packets and records between two samples go to the later one, through the same
FrameBuilder as a live run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import rerun as rr

from cosim.core.recorder import DELIVER, DROP, NET_KINDS, PACKET_KINDS, SEND
from cosim.view.frames import FrameBuilder
from cosim.view.live import RECORDING
from cosim.view.painter import Painter
from cosim.view.scene import scene_of_run
from cosim.view.spec import ViewSpec


def _table(run_dir: Path, name: str) -> dict[str, np.ndarray] | None:
    path = run_dir / "trace" / f"{name}.parquet"
    if not path.is_file():
        return None
    t = pq.read_table(path)
    return {c: t.column(c).to_numpy(zero_copy_only=False) for c in t.column_names}


def _codes(column: np.ndarray, labels: tuple[str, ...]) -> np.ndarray:
    """A dictionary-encoded column as label indices (Parquet gives back the labels)."""
    if column.dtype.kind in "iu":
        return column.astype(np.int64)
    lookup = {k: i for i, k in enumerate(labels)}
    return np.array([lookup[str(v)] for v in column], dtype=np.int64)


def write_recording(run_dir: str | Path, spec: ViewSpec | None = None, path: str | Path | None = None) -> Path:
    """Write the run's recording (default `RUN_DIR/recording.rrd`) from its trace; returns its path."""
    run_dir = Path(run_dir)
    spec = spec or ViewSpec()
    pos = _table(run_dir, "positions")
    if pos is None:
        raise FileNotFoundError(f"{run_dir / 'trace' / 'positions.parquet'}: no position trace to view; run with "
                                "output.trace.positions_every set, or record live with output.view")
    scene = scene_of_run(run_dir)
    out = Path(path) if path is not None else run_dir / RECORDING
    rec = rr.RecordingStream("swarm-cosim", recording_id=f"{run_dir.name}-replay", send_properties=False,
                             batcher_config=rr.ChunkBatcherConfig.NEVER())
    rec.set_sinks(rr.FileSink(str(out)))
    times = np.unique(pos["t_ns"])
    step_ns = int(np.median(np.diff(times))) if len(times) > 1 else 0
    painter = Painter(rec, scene, spec.layers, spec.trail * step_ns)
    painter.paint_scene()
    packets = _table(run_dir, "packets")
    builder = FrameBuilder(scene.n, routed=packets is not None and len(packets["t_ns"]) > 0, links="links" in spec.layers)
    feeds = _Feeds(run_dir, packets)
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

    def __init__(self, run_dir: Path, packets: dict[str, np.ndarray] | None) -> None:
        self.net = _table(run_dir, "network")
        if self.net is not None:
            self.net["kind"] = _codes(self.net["kind"], NET_KINDS)
        self.events = _table(run_dir, "events")
        self.packets = packets
        if packets is not None:
            packets["kind"] = _codes(packets["kind"], PACKET_KINDS)
        self.records = _table(run_dir, "records")
        self._at = {"net": 0, "events": 0, "packets": 0, "records": 0}

    def _upto(self, name: str, table: dict[str, np.ndarray] | None, t_ns: int) -> slice | None:
        if table is None:
            return None
        start = self._at[name]
        end = int(np.searchsorted(table["t_ns"], t_ns, side="right"))
        self._at[name] = end
        return slice(start, end) if end > start else None

    def feed(self, b: FrameBuilder, t_ns: int) -> None:
        if (r := self._upto("net", self.net, t_ns)) is not None:
            n = self.net
            kind = n["kind"][r]
            sends = kind == SEND
            b.sends(n["src"][r][sends], n["dst"][r][sends])
            deliver = kind == DELIVER
            b.deliveries(n["src"][r][deliver], n["dst"][r][deliver])
            b.drops(int(np.count_nonzero(kind == DROP)))
        if (r := self._upto("events", self.events, t_ns)) is not None:
            e = self.events
            for t, node, kind, detail in zip(e["t_ns"][r].tolist(), e["node"][r].tolist(), e["kind"][r], e["detail"][r]):
                b.event(t, node, str(kind), str(detail))
        if (r := self._upto("packets", self.packets, t_ns)) is not None:
            p = self.packets
            for row in zip(p["node"][r].tolist(), p["kind"][r].tolist(), p["src"][r].tolist(), p["dst"][r].tolist(),
                           p["port"][r].tolist(), p["seq"][r].tolist(), p["detail"][r]):
                b.packet(row[0], PACKET_KINDS[row[1]], *row[2:6], str(row[6]))
        if (r := self._upto("records", self.records, t_ns)) is not None:
            rc = self.records
            names = rc["name"][r].astype(str)
            for name in np.unique(names).tolist():
                b.records(name, rc["value"][r][names == name])
