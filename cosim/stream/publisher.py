"""Publish the running simulation on a ZeroMQ socket, every N quanta (cosim.stream.wire).

A slow or absent subscriber never blocks the run: the socket holds at most `hwm` messages per
subscriber, and a publication that does not fit is dropped and counted (metrics.json: stream.dropped).
The public socket lives in a forwarder process, so that what subscribers send cannot cost the run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import numpy as np

from cosim.core.timeline import Priority
from cosim.stream.relay import ForwarderLink
from cosim.stream.spec import StreamSpec
from cosim.stream.wire import END_TOPIC, STATE_TOPIC, encode

log = logging.getLogger(__name__)


class StreamPublisher:
    """Extension and trace observer: the robots' states and the network rows since the last
    publication, handed to the forwarder process that owns the public socket (cosim.stream.relay)."""

    def __init__(self, spec: StreamSpec, n: int) -> None:
        self.spec = spec
        self.n = n
        self._link: ForwarderLink | None = None
        self._sim = None
        self._rows: dict[str, list[np.ndarray]] = {k: [] for k in ("rx_t_ns", "rx_src", "rx_dst", "drop_src", "drop_dst")}
        self._sends: list[tuple[int, Sequence[int], Sequence[int]]] = []  # kept as given; arrays at publication
        self._events: list[tuple[int, int, str, str]] = []
        self.seq = 0
        self.dropped = 0
        self.wall_s = 0.0
        self._final: dict = {}

    def start(self, sim) -> None:
        link = ForwarderLink(self.spec)
        link.start()
        try:
            link.wait_for(self.spec.wait_for, self.spec.wait_s)
        except RuntimeError:
            link.close()
            raise
        self._link = link
        self._sim = sim
        sim.clock.queue.push(0, Priority.SAMPLE, self._publish)

    def finish(self, sim) -> None:
        if self._link is None:
            return
        self._send(END_TOPIC, sim.clock.now_ns, {})
        stats = self._link.close()
        if stats is None:
            log.warning("output.stream: %s; the run is unaffected, its stream ended early", self._link.died)
            self._final = {"published": None, "dropped": self.dropped, "forwarder": self._link.died}
        else:
            self._final = {"published": stats["published"], "dropped": self.dropped + stats["dropped"],
                           "ignored_from_subscribers": stats["ignored_from_subscribers"]}
        self._link = None

    def metrics(self) -> dict:
        counts = self._final or {"published": None, "dropped": self.dropped}
        return {"stream": {"url": self.spec.url, **counts, "wall_s": round(self.wall_s, 4)}}

    def failures(self) -> list[str]:
        return []

    def _publish(self) -> None:
        sim = self._sim
        w = sim.world
        state = {"pos": w.positions(), "vel": w.velocities(), "heading": np.asarray(w.headings(), dtype=np.float64),
                 "alive": sim.population.alive.astype(np.uint8)}
        rows = {k: np.concatenate(v).astype(np.int64) if v else np.zeros(0, np.int64) for k, v in self._rows.items()}
        self._send(STATE_TOPIC, sim.clock.now_ns, state | self._send_rows() | rows)
        for v in self._rows.values():
            v.clear()
        self._sends = []
        self._events = []
        nxt = sim.clock.now_ns + self.spec.every * sim.quantum_ns
        if nxt <= sim.duration_ns:
            sim.clock.queue.push(nxt, Priority.SAMPLE, self._publish)

    def _send_rows(self) -> dict[str, np.ndarray]:
        n = [len(s) for _, s, _ in self._sends]
        if not self._sends:
            return {k: np.zeros(0, np.int64) for k in ("send_t_ns", "send_src", "send_dst")}
        return {"send_t_ns": np.repeat(np.array([t for t, _, _ in self._sends], dtype=np.int64), n),
                "send_src": np.concatenate([np.asarray(s, dtype=np.int64).reshape(-1) for _, s, _ in self._sends]),
                "send_dst": np.concatenate([np.asarray(d, dtype=np.int64).reshape(-1) for _, _, d in self._sends])}

    def _send(self, topic: bytes, t_ns: int, arrays: dict[str, np.ndarray]) -> None:
        w0 = time.perf_counter()
        frames = encode(topic, self.seq, t_ns, self.n, arrays, self._events, self.dropped)
        self.seq += 1
        if not self._link.send(frames):
            self.dropped += 1
        self.wall_s += time.perf_counter() - w0

    # -- TraceObserver -------------------------------------------------------------------------
    def sends(self, t_ns: int, src: Sequence[int], dst: Sequence[int], tx_id: Sequence[int], size: Sequence[int]) -> None:
        self._sends.append((t_ns, src, dst))

    def net_events(self, ev) -> None:
        r = self._rows
        if len(ev.dst):
            r["rx_t_ns"].append(ev.row_times())
            r["rx_src"].append(ev.src)
            r["rx_dst"].append(ev.dst)
        if len(ev.drop_dst):
            r["drop_src"].append(ev.drop_src)
            r["drop_dst"].append(ev.drop_dst)

    def event(self, t_ns: int, node: int, kind: str, detail: str) -> None:
        self._events.append((t_ns, node, kind, detail))

    def packet(self, t_ns: int, node: int, kind: str, src: int, dst: int, port: int, seq: int, hops: int,
               detail: str) -> None:
        pass  # routed packets travel as their frames' sends and deliveries

    def records(self, t_ns: int, nodes: np.ndarray, name: str, values: np.ndarray) -> None:
        pass  # controller records stay in the trace
