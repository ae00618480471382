"""`direct`: one hop, no routing. A packet goes straight to its destination's radio, or nowhere."""

from __future__ import annotations

from dataclasses import dataclass

from netstack.routing.base import BROADCAST, Packet, RoutingProtocol
from netstack.routing.wire import pack_data, unpack_data

DATA = 0


class Direct(RoutingProtocol):
    """Send to the destination if it is in radio range; the MAC's missing ack drops the packet.
    `interface`: the radio to send on (None: the first)."""

    @dataclass(frozen=True)
    class Params:
        interface: str | None = None
        """The interface to send on (null: the first radio)."""

    name = "direct"

    def __init__(self, params=None) -> None:
        super().__init__(params)
        self._pending: dict[int, Packet] = {}

    def on_send(self, packet: Packet) -> None:
        tx = self.link.send_frame(packet.dst, pack_data(DATA, packet, 1), "data", self.params.interface)
        if tx is not None and packet.dst != BROADCAST:
            self._pending[tx] = packet

    def on_frame(self, src: int, frame: bytes, rssi_dbm: float) -> None:
        packet, hops = unpack_data(frame)
        if packet.dst in (self.link.node, BROADCAST):
            self.link.deliver(packet, hops)

    def on_tx_status(self, tx_id: int, dst: int, acked: bool) -> None:
        packet = self._pending.pop(tx_id, None)
        if packet is not None and not acked:
            self.link.drop(packet, "no_ack")
