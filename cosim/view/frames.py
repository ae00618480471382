"""Turn the stream of trace rows into frames: the same code for a live run and for a replayed trace.

Between two frames it collects the deliveries (drawn as the links used since the previous frame),
the unicast frames (drawn as packets from sender to addressee, coloured by kind), routed packets'
hops (a packet that reached its destination is drawn along the path it took), events, and sums
for the time plots. Everything is per window; nothing grows with the run except packets in flight.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cosim.view.frame import Frame


@dataclass
class _Window:
    """What came in since the previous frame."""

    deliveries: list[np.ndarray]
    sends: list[tuple[Sequence[int], Sequence[int]]]
    packets: list[tuple[int, int, str]]
    routes: list[tuple[tuple[int, ...], tuple[int, int, int]]]
    events: list[tuple[int, int, str, str]]
    heard: bool = False  # pairs marked in FrameBuilder._seen
    delivered: int = 0
    dropped: int = 0
    sent: int = 0


def _empty() -> _Window:
    return _Window([], [], [], [], [])


class FrameBuilder:
    """Collects rows between frames and makes a Frame at each frame time. `routed`: packets come from
    the routing protocol's frames (packet rows) rather than from the sends."""

    def __init__(self, n: int, routed: bool, links: bool = True) -> None:
        self.n = n
        self.routed = routed
        self.want_links = links
        self._seen = np.zeros(n * n if n <= 4096 else 0, dtype=bool)  # pair marks, when n^2 is small enough
        self._w = _empty()
        self._in_flight: dict[tuple[int, int, int], list[int]] = {}
        self._record_sums: dict[str, list[float]] = {}
        self._last_t: int | None = None

    # -- rows ----------------------------------------------------------------------------------
    def sends(self, src: Sequence[int], dst: Sequence[int]) -> None:
        """Frames handed to the network; unicasts become packets (unless routed: those come from packet rows)."""
        self._w.sent += len(src)
        if not self.routed:
            self._w.sends.append((src, dst))

    def _unicasts(self, sends: list[tuple[Sequence[int], Sequence[int]]]) -> None:
        if not sends:
            return
        src = np.concatenate([np.asarray(s, dtype=np.int64).reshape(-1) for s, _ in sends])
        dst = np.concatenate([np.asarray(d, dtype=np.int64).reshape(-1) for _, d in sends])
        uni = dst >= 0
        self._w.packets.extend((s, d, "unicast") for s, d in zip(src[uni].tolist(), dst[uni].tolist()))

    def deliveries(self, src: np.ndarray, dst: np.ndarray) -> None:
        """Deliveries (sender, receiver); each unordered pair is marked once for the links."""
        self._w.delivered += len(dst)
        if not len(dst) or not self.want_links:
            return
        codes = np.minimum(src, dst) * self.n + np.maximum(src, dst)
        if len(self._seen):
            self._seen[codes] = True
            self._w.heard = True
        else:
            self._w.deliveries.append(codes)

    def drops(self, count: int) -> None:
        self._w.dropped += count

    def event(self, t_ns: int, node: int, kind: str, detail: str) -> None:
        self._w.events.append((int(t_ns), int(node), kind, detail))

    def packet(self, node: int, kind: str, src: int, dst: int, port: int, seq: int, detail: str) -> None:
        """A routed packet row (cosim.core.trace_observer.TraceObserver.packet's fields)."""
        if kind == "frame":
            if dst >= 0:
                self._w.packets.append((node, dst, detail))
            if detail == "data":
                self._in_flight.setdefault((src, port, seq), [node]).append(dst)
        elif kind == "recv":
            path = self._in_flight.pop((src, port, seq), None)
            if path is not None:
                self._w.routes.append((tuple(path), (src, dst, port)))
        elif kind == "drop":
            self._in_flight.pop((src, port, seq), None)

    def records(self, name: str, values: np.ndarray) -> None:
        acc = self._record_sums.setdefault(name, [0.0, 0])
        acc[0] += float(np.sum(values))
        acc[1] += len(values)

    def _links(self, w: _Window) -> np.ndarray:
        """Each pair of robots with a delivery either way in the window, once, as (lower, higher)."""
        if not (w.heard or w.deliveries):
            return np.zeros((0, 2), dtype=np.int64)
        if w.heard:
            codes = np.flatnonzero(self._seen)
            self._seen[codes] = False
        else:
            codes = np.unique(np.concatenate(w.deliveries))
        return np.stack([codes // self.n, codes % self.n], axis=1)

    # -- frames --------------------------------------------------------------------------------
    def frame(self, t_ns: int, pos: np.ndarray, vel: np.ndarray, heading: np.ndarray, alive: np.ndarray) -> Frame:
        """The frame at t_ns; starts the next window."""
        w = self._w
        self._unicasts(w.sends)
        links = self._links(w)
        packets = np.array([(s, d) for s, d, _ in w.packets], dtype=np.int64).reshape(-1, 2)
        span_s = (t_ns - self._last_t) * 1e-9 if self._last_t is not None and t_ns > self._last_t else 0.0
        scalars = {"alive": float(np.count_nonzero(alive))}
        if span_s > 0:
            scalars |= {"network/sent_per_s": w.sent / span_s, "network/delivered_per_s": w.delivered / span_s,
                        "network/dropped_per_s": w.dropped / span_s}
        scalars |= {f"records/{name}": s / c for name, (s, c) in self._record_sums.items() if c}
        f = Frame(t_ns, pos, vel, heading, alive, links, packets, tuple(k for _, _, k in w.packets),
                  tuple(p for p, _ in w.routes), tuple(flow for _, flow in w.routes), tuple(w.events), scalars)
        self._w = _empty()
        self._record_sums = {}
        self._last_t = t_ns
        return f
