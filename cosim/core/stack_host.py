"""The coordinator's side of the per-node stacks: transmission, timers, recording, delivery to controllers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from controllers import Message
from cosim.core.timers import Timer
from cosim.core.timeunits import NS_PER_S
from netstack.routing.base import Packet
from netstack.routing.wire import DATA_HEADER

if TYPE_CHECKING:
    from cosim.core.coordinator import Simulation


class SimStackHost:
    """Implements netstack.stack.StackHost over a Simulation."""

    def __init__(self, sim: Simulation) -> None:
        self._sim = sim
        self._port_handlers: dict[tuple[int, int], Callable[[Message], None]] = {}
        self._listens = sim.listens.tolist()  # controllers that override on_message

    def now_ns(self) -> int:
        return self._sim.now_ns

    def transmit(self, node: int, dst: int, frame: bytes, kind: str, interface: str | None = None) -> int | None:
        sim = self._sim
        tx = sim.send(node, dst, frame, sim.interface_index(interface))
        if tx is None:
            return None
        if kind == "data" and len(frame) >= DATA_HEADER.size:  # every Python protocol's data header
            _, src, _, port, seq, hops = DATA_HEADER.unpack_from(frame)  # the header only: no payload copy
            sim.recorder.data_frame(sim.now_ns, node, dst, src, port, seq, hops, len(frame))
        else:
            sim.recorder.frame(sim.now_ns, node, dst, kind, len(frame))
        return tx

    def timer(self, node: int, delay_ns: int, fn: Callable[[], None]) -> Timer:
        sim = self._sim
        return Timer(sim, fn, sim.now_ns + delay_ns, 0, node)

    def packet_event(self, node: int, kind: str, packet: Packet, hops: int, detail: str) -> None:
        self._sim.recorder.packet(self._sim.now_ns, node, kind, packet, hops, detail)

    def protocol_event(self, node: int, kind: str, detail: str) -> None:
        self._sim.recorder.event(self._sim.now_ns, node, kind, detail)

    def protocol_record(self, node: int, name: str, value: float) -> None:
        self._sim.recorder.record(self._sim.now_ns, node, name, value)

    def bind_port(self, node: int, port: int, fn: Callable[[Message], None]) -> None:
        self._port_handlers[(node, port)] = fn

    def app_deliver(self, node: int, packet: Packet, hops: int, rssi_dbm: float, interface: str) -> None:
        sim = self._sim
        handler = self._port_handlers.get((node, packet.port))
        if handler is None and not self._listens[node]:
            return
        msg = Message(packet.src, packet.payload, sim.now_ns / NS_PER_S, rssi_dbm, float("nan"), None, packet.port, hops,
                      interface)
        prev = sim.current_node
        sim.current_node = node
        if handler is not None:
            handler(msg)
        else:
            sim.controllers[node].on_message(msg)
        sim.current_node = prev
