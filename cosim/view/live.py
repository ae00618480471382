"""Record a run for the viewer while it runs: an extension that paints a frame every `every` of
simulated time into `recording.rrd` in the run directory, and into a running viewer if asked.

It only reads the world and the rows the recorder hands on, so results are the same with or
without it (the trace digest is tested equal).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import rerun as rr

from cosim.core.timeline import Priority
from cosim.view.frames import FrameBuilder
from cosim.view.painter import Painter
from cosim.view.scene import Scene
from cosim.view.spec import ViewSpec

log = logging.getLogger(__name__)
RECORDING = "recording.rrd"


class LiveView:
    """Extension and trace observer: frames of the running simulation into a Rerun recording."""

    def __init__(self, spec: ViewSpec, scene: Scene, routed: bool, run_name: str, run_dir: Path | None,
                 quantum_ns: int) -> None:
        self.spec = spec
        self.path = None if run_dir is None else Path(run_dir) / RECORDING
        self.rec = rr.RecordingStream("swarm-cosim", recording_id=f"{run_name}-live", send_properties=False,
                                      batcher_config=rr.ChunkBatcherConfig.NEVER())  # the painter sends whole columns
        self._every_ns = -(-spec.every_ns // quantum_ns) * quantum_ns  # whole quanta
        self.painter = Painter(self.rec, scene, spec.layers, spec.trail * self._every_ns)
        self.builder = FrameBuilder(scene.n, routed, "links" in spec.layers)
        self._sim = None
        self.wall_s = 0.0
        sinks = ([rr.FileSink(str(self.path))] if self.path is not None else []) + \
                ([rr.GrpcSink(self.spec.connect)] if self.spec.connect is not None else [])
        self.rec.set_sinks(*sinks)
        self.painter.paint_scene()

    # -- Extension -----------------------------------------------------------------------------
    def start(self, sim) -> None:
        w0 = time.perf_counter()
        self._sim = sim
        sim.clock.queue.push(0, Priority.SAMPLE, self._frame)
        self.wall_s += time.perf_counter() - w0

    def finish(self, sim) -> None:
        w0 = time.perf_counter()
        if self.painter.frames and self._sim is not None and sim.clock.now_ns % self._every_ns:
            self._paint(sim.clock.now_ns)  # the last instant, when the run ends between frames
        self.painter.flush()
        self.rec.flush()
        self.rec.disconnect()
        self.wall_s += time.perf_counter() - w0

    def metrics(self) -> dict:
        return {"view": {"frames": self.painter.frames, "every_s": self._every_ns * 1e-9, "wall_s": round(self.wall_s, 4),
                         "file": None if self.path is None else self.path.name, "connect": self.spec.connect}}

    def failures(self) -> list[str]:
        return []

    def _frame(self) -> None:
        sim = self._sim
        self._paint(sim.clock.now_ns)
        nxt = sim.clock.now_ns + self._every_ns
        if nxt <= sim.duration_ns:
            sim.clock.queue.push(nxt, Priority.SAMPLE, self._frame)

    def _paint(self, t_ns: int) -> None:
        w0 = time.perf_counter()
        w = self._sim.world
        self.painter.paint(self.builder.frame(t_ns, w.positions().copy(), w.velocities().copy(),
                                              np.array(w.headings(), dtype=np.float64), self._sim.population.alive.copy()))
        self.wall_s += time.perf_counter() - w0

    # -- TraceObserver -------------------------------------------------------------------------
    def sends(self, t_ns: int, src: Sequence[int], dst: Sequence[int], tx_id: Sequence[int], size: Sequence[int]) -> None:
        self.builder.sends(src, dst)

    def net_events(self, ev) -> None:
        self.builder.deliveries(ev.src, ev.dst)
        self.builder.drops(len(ev.drop_dst))

    def event(self, t_ns: int, node: int, kind: str, detail: str) -> None:
        self.builder.event(t_ns, node, kind, detail)

    def packet(self, t_ns: int, node: int, kind: str, src: int, dst: int, port: int, seq: int, hops: int,
               detail: str) -> None:
        self.builder.packet(node, kind, src, dst, port, seq, detail)

    def records(self, t_ns: int, nodes: np.ndarray, name: str, values: np.ndarray) -> None:
        self.builder.records(name, values)
