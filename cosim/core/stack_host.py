"""The coordinator's side of the per-node stacks: transmission, timers, recording, delivery to controllers."""

from __future__ import annotations

from collections.abc import Callable

from controllers import Message
from cosim.core.clock import Clock
from cosim.core.population import Population
from cosim.core.recorder import Recorder
from cosim.core.timers import Timer
from cosim.core.timeunits import NS_PER_S
from cosim.core.transmitter import Transmitter
from netstack.routing.base import Packet
from netstack.routing.wire import DATA_HEADER


class SimStackHost:
    """Implements netstack.stack.StackHost: the stacks send through the run's transmitter, time
    their timers on its clock, record into its trace and deliver to its controllers."""

    def __init__(self, clock: Clock, population: Population, transmitter: Transmitter, recorder: Recorder) -> None:
        self._clock = clock
        self._population = population
        self._transmitter = transmitter
        self._recorder = recorder
        self._port_handlers: dict[tuple[int, int], Callable[[Message], None]] = {}
        self._listens = population.listens.tolist()  # controllers that override on_message

    def now_ns(self) -> int:
        return self._clock.now_ns

    def transmit(self, node: int, dst: int, frame: bytes, kind: str, interface: str | None = None) -> int | None:
        out = self._transmitter
        tx = out.send(node, dst, frame, out.interface_index(interface))
        if tx is None:
            return None
        now = self._clock.now_ns
        if kind == "data" and len(frame) >= DATA_HEADER.size:  # every Python protocol's data header
            _, src, _, port, seq, hops = DATA_HEADER.unpack_from(frame)  # the header only: no payload copy
            self._recorder.data_frame(now, node, dst, src, port, seq, hops, len(frame))
        else:
            self._recorder.frame(now, node, dst, kind, len(frame))
        return tx

    def timer(self, node: int, delay_ns: int, fn: Callable[[], None]) -> Timer:
        clock = self._clock
        return Timer(clock, self._population.alive_list, fn, clock.now_ns + delay_ns, 0, node)

    def packet_event(self, node: int, kind: str, packet: Packet, hops: int, detail: str) -> None:
        self._recorder.packet(self._clock.now_ns, node, kind, packet, hops, detail)

    def protocol_event(self, node: int, kind: str, detail: str) -> None:
        self._recorder.event(self._clock.now_ns, node, kind, detail)

    def protocol_record(self, node: int, name: str, value: float) -> None:
        self._recorder.record(self._clock.now_ns, node, name, value)

    def bind_port(self, node: int, port: int, fn: Callable[[Message], None]) -> None:
        self._port_handlers[(node, port)] = fn

    def app_deliver(self, node: int, packet: Packet, hops: int, rssi_dbm: float, interface: str) -> None:
        clock = self._clock
        handler = self._port_handlers.get((node, packet.port))
        if handler is None and not self._listens[node]:
            return
        msg = Message(packet.src, packet.payload, clock.now_ns / NS_PER_S, rssi_dbm, float("nan"), None, packet.port,
                      hops, interface)
        prev = clock.current_node
        clock.current_node = node
        if handler is not None:
            handler(msg)
        else:
            self._population.controllers[node].on_message(msg)
        clock.current_node = prev
