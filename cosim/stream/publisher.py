"""Publish the running simulation on a ZeroMQ socket, every N quanta (cosim.stream.wire).

A slow or absent subscriber never blocks the run: the socket holds at most `hwm` messages per
subscriber, and a publication that does not fit is dropped and counted (metrics.json: stream.dropped).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import numpy as np
import zmq

from cosim.core.timeline import Priority
from cosim.stream.spec import StreamSpec, every_interface_endpoint
from cosim.stream.wire import END_TOPIC, STATE_TOPIC, encode

log = logging.getLogger(__name__)
LINGER_MS = 2000
"""At the end of the run, how long queued publications may still take to leave (then they are dropped)."""
DRAIN_LIMIT = 10_000
"""Messages from subscribers read per publication at most (a flood waits, the run does not)."""
MAX_UPSTREAM_BYTES = 64
"""The longest message a subscriber may send (a subscription is 1 byte + a topic of at most 14):
libzmq disconnects a sender of a longer one, forgetting every subscription it made."""
USEFUL = frozenset(t[:k] for t in (STATE_TOPIC, END_TOPIC) for k in range(len(t) + 1))
"""The only subscriptions applied: prefixes of the topics published. Any other could never match, and
libzmq would keep it (a node per byte) for as long as its subscriber stays: a local process could
otherwise grow the run's memory by gigabytes."""


class StreamPublisher:
    """Extension and trace observer: the robots' states and the network rows since the last publication."""

    def __init__(self, spec: StreamSpec, n: int) -> None:
        self.spec = spec
        self.n = n
        self._ctx = zmq.Context.instance()
        self._sock = None
        self._sim = None
        self._rows: dict[str, list[np.ndarray]] = {k: [] for k in ("rx_t_ns", "rx_src", "rx_dst", "drop_src", "drop_dst")}
        self._sends: list[tuple[int, Sequence[int], Sequence[int]]] = []  # kept as given; arrays at publication
        self._events: list[tuple[int, int, str, str]] = []
        self.seq = 0
        self.published = 0
        self.dropped = 0
        self.ignored = 0
        self.wall_s = 0.0

    def start(self, sim) -> None:
        sock = self._ctx.socket(zmq.XPUB)
        sock.setsockopt(zmq.SNDHWM, self.spec.hwm)
        sock.setsockopt(zmq.XPUB_NODROP, 1)  # a full queue refuses (counted) instead of dropping silently
        sock.setsockopt(zmq.XPUB_MANUAL, 1)  # subscriptions are applied here (_upstream), only useful ones
        sock.setsockopt(zmq.MAXMSGSIZE, MAX_UPSTREAM_BYTES)  # a longer message disconnects its sender
        sock.setsockopt(zmq.LINGER, LINGER_MS)
        try:
            sock.bind(self.spec.url)
        except zmq.ZMQError as exc:
            sock.close()
            raise RuntimeError(f"output.stream.url: cannot listen on {self.spec.url}: {exc}") from None
        bound = sock.getsockopt_string(zmq.LAST_ENDPOINT)
        if every_interface_endpoint(bound):
            sock.close(linger=0)
            raise RuntimeError(f"output.stream.url: {self.spec.url} resolved to {bound}, every interface; name the one "
                               "you mean (tcp://127.0.0.1:PORT for this machine only)")
        self._sock, self._sim = sock, sim
        self._wait_for_subscribers()
        sim.queue.push(0, Priority.SAMPLE, self._publish)

    def _wait_for_subscribers(self) -> None:
        """Hold the start (wall clock, at most `wait_s`) until `wait_for` subscribers have joined."""
        joined, deadline = 0, time.monotonic() + self.spec.wait_s
        while joined < self.spec.wait_for:
            left = deadline - time.monotonic()
            if left <= 0 or not self._sock.poll(int(left * 1000), zmq.POLLIN):
                raise RuntimeError(f"output.stream: {joined} of {self.spec.wait_for} subscribers joined "
                                   f"{self.spec.url} within {self.spec.wait_s} s (wait_for)")
            if self._upstream(self._sock.recv()):
                joined += 1

    def finish(self, sim) -> None:
        if self._sock is None:
            return
        self._send(END_TOPIC, sim.now_ns, {})
        self._sock.close()
        self._sock = None

    def metrics(self) -> dict:
        return {"stream": {"url": self.spec.url, "published": self.published, "dropped": self.dropped,
                           "ignored_from_subscribers": self.ignored, "wall_s": round(self.wall_s, 4)}}

    def failures(self) -> list[str]:
        return []

    def _publish(self) -> None:
        sim = self._sim
        w = sim.world
        state = {"pos": w.positions(), "vel": w.velocities(), "heading": np.asarray(w.headings(), dtype=np.float64),
                 "alive": sim.alive.astype(np.uint8)}
        rows = {k: np.concatenate(v).astype(np.int64) if v else np.zeros(0, np.int64) for k, v in self._rows.items()}
        self._send(STATE_TOPIC, sim.now_ns, state | self._send_rows() | rows)
        for v in self._rows.values():
            v.clear()
        self._sends = []
        self._events = []
        nxt = sim.now_ns + self.spec.every * sim.quantum_ns
        if nxt <= sim.duration_ns:
            sim.queue.push(nxt, Priority.SAMPLE, self._publish)

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
        self._drain_subscriptions()
        try:
            self._sock.send_multipart(frames, zmq.NOBLOCK)
            self.published += 1
        except zmq.Again:
            self.dropped += 1
        self.wall_s += time.perf_counter() - w0

    def _drain_subscriptions(self) -> None:
        """XPUB queues what subscribers send ((un)subscriptions, anything else); read at most
        DRAIN_LIMIT messages per publication, so that no local process can stall the run by sending."""
        for _ in range(DRAIN_LIMIT):
            if not self._sock.poll(0, zmq.POLLIN):
                return
            self._upstream(self._sock.recv())

    def _upstream(self, msg: bytes) -> bool:
        """One message from a subscriber, just received: a useful (un)subscription is applied to its
        sender; anything else is counted and dropped. True for a useful subscription."""
        kind, topic = msg[:1], msg[1:]
        if kind not in (b"\x00", b"\x01") or topic not in USEFUL:
            self.ignored += 1
            return False
        self._sock.setsockopt(zmq.SUBSCRIBE if kind == b"\x01" else zmq.UNSUBSCRIBE, topic)
        return kind == b"\x01"

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
