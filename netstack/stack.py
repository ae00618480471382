"""The per-node network stack: link (the backend) -> routing protocol -> application ports.

An application sends with `send(dst, payload, port)`; the node's routing protocol carries the
packet hop by hop; at the destination the stack hands it to whatever listens on the port. The host
(the coordinator) supplies transmission, timers and recording through `StackHost`, so this module
knows nothing of the simulation loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from netstack.routing.base import BROADCAST, Packet, RoutingProtocol, TimerHandle
from netstack.routing.wire import MAX_NODES

MAX_PORT = 0xFFFF


class StackHost(Protocol):
    """What a stack needs from the simulation that runs it."""

    def now_ns(self) -> int: ...
    def transmit(self, node: int, dst: int, frame: bytes, kind: str, interface: str | None = None) -> int | None: ...
    def timer(self, node: int, delay_ns: int, fn: Callable[[], None]) -> TimerHandle: ...
    def packet_event(self, node: int, kind: str, packet: Packet, hops: int, detail: str) -> None: ...
    def protocol_event(self, node: int, kind: str, detail: str) -> None: ...
    def app_deliver(self, node: int, packet: Packet, hops: int, rssi_dbm: float, interface: str) -> None: ...


class NodeStack:
    """One node's stack; it is also the `LinkServices` its routing protocol acts through."""

    __slots__ = ("_arrival", "_host", "_last_rssi", "_seq", "node", "protocol", "rng")

    def __init__(self, node: int, protocol: RoutingProtocol, host: StackHost, rng: np.random.Generator) -> None:
        if node >= MAX_NODES:
            raise ValueError(f"routed scenarios support node ids below {MAX_NODES}, got {node}")
        self.node = node
        self.protocol = protocol
        self.rng = rng
        self._host = host
        self._seq = 0
        self._last_rssi = float("nan")
        self._arrival = "radio"
        protocol.bind(self)

    # -- from applications ----------------------------------------------------------------------
    def send(self, dst: int, payload: bytes, port: int = 0) -> int:
        """Send an application packet; returns its sequence number at this source."""
        if not isinstance(port, int) or not 0 <= port <= MAX_PORT:
            raise ValueError(f"port must be an integer in 0..{MAX_PORT}, got {port!r}")
        if dst != BROADCAST and not 0 <= dst < MAX_NODES:
            raise ValueError(f"dst must be a node id or BROADCAST, got {dst!r}")
        packet = Packet(self.node, dst, port, self._seq, bytes(payload))
        self._seq += 1
        self._host.packet_event(self.node, "send", packet, 0, "")
        if dst == self.node:
            self.deliver(packet, 0)
        else:
            self.protocol.on_send(packet)
        return packet.seq

    # -- from the link ----------------------------------------------------------------------------
    def on_frame(self, src: int, frame: bytes, rssi_dbm: float, interface: str = "radio") -> None:
        self._last_rssi = rssi_dbm
        self._arrival = interface
        self.protocol.on_frame(src, frame, rssi_dbm)

    def on_tx_status(self, tx_id: int, dst: int, acked: bool) -> None:
        self.protocol.on_tx_status(tx_id, dst, acked)

    # -- LinkServices -----------------------------------------------------------------------------
    def now_ns(self) -> int:
        return self._host.now_ns()

    def send_frame(self, dst: int, frame: bytes, kind: str, interface: str | None = None) -> int | None:
        return self._host.transmit(self.node, dst, frame, kind, interface)

    def arrival_interface(self) -> str:
        return self._arrival

    def deliver(self, packet: Packet, hops: int) -> None:
        self._host.packet_event(self.node, "recv", packet, hops, "")
        self._host.app_deliver(self.node, packet, hops, self._last_rssi, self._arrival)

    def drop(self, packet: Packet, reason: str) -> None:
        self._host.packet_event(self.node, "drop", packet, 0, reason)

    def after(self, delay_ns: int, fn: Callable[[], None]) -> TimerHandle:
        return self._host.timer(self.node, max(0, int(delay_ns)), fn)

    def event(self, kind: str, detail: str) -> None:
        self._host.protocol_event(self.node, kind, detail)

    def record(self, name: str, value: float) -> None:
        self._host.protocol_record(self.node, name, value)
