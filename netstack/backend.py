"""The interface every network backend implements, and the event records it returns.

Times are integer nanoseconds. A backend never advances past the time the coordinator asks for,
and stops early at the first time at which it has something Python must see (a delivery or a
transmit status), so routing and controllers react at the exact receive time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

BROADCAST = -1
"""The destination id of a frame for every node in range."""
NS_PER_S = 1_000_000_000
"""Nanoseconds per second: the one conversion between the simulator's integer times and seconds."""
_EMPTY_I64 = np.zeros(0, dtype=np.int64)
_EMPTY_I8 = np.zeros(0, dtype=np.int8)


@dataclass(frozen=True)
class Delivery:
    """One frame received by one node."""

    t_ns: int
    dst: int
    src: int
    payload: bytes
    rssi_dbm: float
    snr_db: float
    tx_id: int


@dataclass(frozen=True)
class TxStatus:
    """Outcome of a unicast send: acked by the receiver's MAC or dropped."""

    t_ns: int
    tx_id: int
    src: int
    dst: int
    acked: bool
    iface: int = 0
    """The interface the frame was sent on (netstack.interfaces; 0 with one radio)."""


DROP_REASONS = ("loss", "out_of_range", "dead", "collision", "queue", "below_sensitivity", "busy", "half_duplex",
                "retries")
"""Why a reception was lost, one vocabulary for every engine (codes in NetEvents.drop_reason index
this tuple): `loss` the fast engine's independent draw; `out_of_range` a unicast's destination never
heard it; `dead` the receiver had died; `collision` the receiver locked onto the frame but its SINR
fell short (or the preamble drowned in interference); `queue` a sender's full or stale queue (the
row's dst is -1 for a broadcast); `below_sensitivity` too weak to detect; `busy` the receiver was
receiving another frame; `half_duplex` it was transmitting; `retries` a unicast given up after the
MAC's retries with no better reason."""


@dataclass(frozen=True)
class Heard:
    """Frames nodes heard from their one-hop senders (time, receiver, sender per row), where the
    deliveries are not one hop (datagrams that ns-3's IP routing carried from their origin)."""

    t_ns: np.ndarray  # int64
    dst: np.ndarray  # int64
    src: np.ndarray  # int64


@dataclass
class NetEvents:
    """Everything a backend has for Python at one instant, in columnar form.

    Deliveries are arrays (one row per receiving node) so a broadcast heard by a thousand nodes
    costs one batch, not a thousand objects. `payloads[i]` is the payload of row i (rows of the
    same broadcast share one bytes object). `t_ns` is the instant the batch is handed to Python;
    `rx_t_ns`, when given, is each row's own receive time (<= t_ns): a backend may batch deliveries
    that no controller listens to instead of stopping at each.
    """

    t_ns: int
    dst: np.ndarray  # int64
    src: np.ndarray  # int64
    tx_id: np.ndarray  # int64
    rssi_dbm: np.ndarray  # float64
    snr_db: np.ndarray  # float64
    size: np.ndarray  # int64, payload bytes of each row
    payloads: Sequence[bytes]
    tx_status: list[TxStatus] = field(default_factory=list)
    drop_dst: np.ndarray = field(default_factory=lambda: _EMPTY_I64)
    drop_src: np.ndarray = field(default_factory=lambda: _EMPTY_I64)
    drop_tx_id: np.ndarray = field(default_factory=lambda: _EMPTY_I64)
    drop_reason: np.ndarray = field(default_factory=lambda: _EMPTY_I8)
    rx_t_ns: np.ndarray | None = None
    lqi: np.ndarray | None = None  # 802.15.4 link quality (0-255) per row; -1 or None where the radio has none
    iface: np.ndarray | None = None  # int8 per delivery row: the interface it came in on (None: the first)
    drop_iface: np.ndarray | None = None  # int8 per drop row
    drop_t_ns: np.ndarray | None = None  # each drop's own time (<= t_ns); None: all at t_ns
    heard: Heard | None = None  # the frames heard one hop away, where deliveries are not (ns-3's IP routing)

    def row_ifaces(self) -> np.ndarray:
        """Interface of each delivery row."""
        return self.iface if self.iface is not None else np.zeros(len(self.dst), dtype=np.int8)

    def drop_ifaces(self) -> np.ndarray:
        """Interface of each drop row."""
        return self.drop_iface if self.drop_iface is not None else np.zeros(len(self.drop_dst), dtype=np.int8)

    def drop_times(self) -> np.ndarray:
        """Time of each drop row."""
        return self.drop_t_ns if self.drop_t_ns is not None else np.full(len(self.drop_dst), self.t_ns, dtype=np.int64)

    def row_times(self) -> np.ndarray:
        """Receive time of each delivery row."""
        return self.rx_t_ns if self.rx_t_ns is not None else np.full(len(self.dst), self.t_ns, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.dst)

    def deliveries(self) -> Iterator[Delivery]:
        for i in range(len(self.dst)):
            yield Delivery(
                self.t_ns, int(self.dst[i]), int(self.src[i]), self.payloads[i],
                float(self.rssi_dbm[i]), float(self.snr_db[i]), int(self.tx_id[i]),
            )


class PayloadView(Sequence[bytes]):
    """Payloads of many rows stored in one bytes blob; a row's bytes are sliced only when read."""

    __slots__ = ("_blob", "_offsets", "_sizes")

    def __init__(self, blob: bytes, offsets: np.ndarray, sizes: np.ndarray) -> None:
        self._blob = blob
        self._offsets = offsets
        self._sizes = sizes

    def __len__(self) -> int:
        return len(self._offsets)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        o = int(self._offsets[i])
        return self._blob[o:o + int(self._sizes[i])]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)


class IndexedPayloads(Sequence[bytes]):
    """Payloads of many rows that share few distinct frames: row i is `pool[index[i]]`. Selecting
    rows (`take`) and their sizes are array operations, so a broadcast heard by a thousand nodes
    costs no per-row Python."""

    __slots__ = ("_sizes", "index", "pool")

    def __init__(self, pool: Sequence[bytes], index: np.ndarray) -> None:
        self.pool = pool
        self.index = index
        self._sizes: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self.pool[k] for k in self.index[i].tolist()]
        return self.pool[self.index[i]]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def take(self, rows: np.ndarray) -> IndexedPayloads:
        return IndexedPayloads(self.pool, self.index[rows])

    def sizes(self) -> np.ndarray:
        """Bytes of each row."""
        if self._sizes is None:
            self._sizes = np.fromiter((len(p) for p in self.pool), dtype=np.int64, count=len(self.pool))
        return self._sizes[self.index]

    @staticmethod
    def concat(parts: Sequence[IndexedPayloads]) -> IndexedPayloads:
        pool: list[bytes] = []
        index = []
        for part in parts:
            index.append(part.index + len(pool))
            pool.extend(part.pool)
        return IndexedPayloads(pool, np.concatenate(index) if index else np.zeros(0, dtype=np.int64))


class NetworkBackend(Protocol):
    """What the coordinator needs from a network simulator."""

    def add_node(self, node_id: int) -> None:
        """Register a node; ids are 0..N-1 in order."""

    def set_positions(self, t_ns: int, xyz: np.ndarray, vel: np.ndarray) -> None:
        """All node positions and velocities (N,3) at time t_ns, one call per quantum."""

    def send(self, src: int, dst: int, payload: bytes, at_ns: int) -> int:
        """Queue a frame at time at_ns (dst may be BROADCAST); returns a transmission id."""

    def send_many(self, srcs: np.ndarray, dsts: np.ndarray, payloads: list[bytes], at_ns: int) -> np.ndarray:
        """Several frames at time at_ns, as if sent one by one in this order; returns their transmission ids."""

    def advance(self, until_ns: int) -> tuple[int, NetEvents | None]:
        """Run up to until_ns; stop early at the first instant with events for Python.

        Returns (reached_ns, events); events is None when nothing happened before until_ns.
        """

    def next_event_ns(self) -> int | None:
        """Time of the backend's next internal event (None: nothing pending). advance() to any time
        before it returns no events, so the coordinator may skip the call; it asks again after sends."""

    def set_alive(self, node_id: int, alive: bool) -> None:
        """A dead node neither sends nor receives."""

    def set_listening(self, node_id: int, listening: bool) -> None:
        """Deliveries to a listening node must be returned at their exact time (early stop); others
        may be batched with a later stop, carrying their own times in rx_t_ns."""

    def set_passive_kinds(self, kinds: frozenset[int]) -> None:
        """Deliveries whose payload starts with one of these bytes need no early stop: they may come
        with the next stop, each with its own receive time (a speed hint for routing hellos)."""

    def control_overhead(self) -> tuple[int, int]:
        """Routing packets and bytes sent by routing that runs inside the backend; (0, 0) for none."""

    def frames_received(self) -> list[int] | None:
        """Frames each node's MAC passed up, when the backend routes inside itself; else None."""

    def mac_counts(self) -> dict[str, int]:
        """MAC-level frame counts of the whole network, for backends with a MAC ({} without)."""

    def ip_events(self) -> np.ndarray:
        """Data packets that routing inside the backend forwarded or dropped, (rows, 8): time (ns),
        node, kind (0 forward, 1 drop), src, dst, port, seq, hops after the hop or the drop reason."""

    def close(self) -> None:
        """Release resources (files, simulator state)."""
