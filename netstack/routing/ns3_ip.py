"""`aodv`, `olsr`, `dsdv`: ns-3's own routing protocols as baselines.

The routing happens inside ns-3 (IPv4 over the same 802.11 devices); the ns-3 backend, built in
IP mode, carries each application packet as one UDP datagram to the destination's address. On the
Python side the protocol object only frames packets and unframes them at the destination, so
controllers and traffic use the same `net.send` as with a Python protocol.
"""

from __future__ import annotations

from dataclasses import dataclass

from netstack.routing.base import BROADCAST, Packet, RoutingProtocol
from netstack.routing.ns3_params import AodvParams, DsdvParams, OlsrParams
from netstack.routing.wire import pack_data, unpack_data

DATA = 0


class Ns3Routing(RoutingProtocol):
    """Hands packets to ns-3's IP stack; `routes()` is empty (ns-3 keeps its own tables)."""

    @dataclass(frozen=True)
    class Params:
        pass

    name = "ns3"

    def on_send(self, packet: Packet) -> None:
        self.link.send_frame(packet.dst, pack_data(DATA, packet, 1), "data")

    def on_frame(self, src: int, frame: bytes, rssi_dbm: float) -> None:
        packet, hops = unpack_data(frame)  # the hop byte: filled in from the datagram's IP TTL on arrival
        if packet.dst in (self.link.node, BROADCAST):
            self.link.deliver(packet, hops)


class Aodv(Ns3Routing):
    Params = AodvParams
    name = "aodv"


class Olsr(Ns3Routing):
    Params = OlsrParams
    name = "olsr"


class Dsdv(Ns3Routing):
    Params = DsdvParams
    name = "dsdv"
