"""`flooding`: every node rebroadcasts each packet once, until its TTL runs out.

Duplicates are recognised by (source, sequence number); each node remembers the last
`memory` packets it has seen. A small random delay before each rebroadcast keeps neighbours that
heard the same frame from transmitting in lock-step (their frames would collide).
"""

from __future__ import annotations

from dataclasses import dataclass

from netstack.routing.base import BROADCAST, Packet, RoutingProtocol
from netstack.routing.seen import SeenPackets
from netstack.routing.wire import pack_data, unpack_data

DATA = 0


class Flooding(RoutingProtocol):
    """Blind flooding with duplicate suppression and a hop limit."""

    @dataclass(frozen=True)
    class Params:
        ttl: int = 16
        """Maximum number of transmissions a packet makes from its source outward."""
        jitter_ns: int = 5_000_000
        """Rebroadcasts wait a uniform random delay in [0, jitter)."""
        memory: int = 4096
        """(source, sequence) pairs remembered for duplicate suppression."""

        def __post_init__(self) -> None:
            if not 1 <= self.ttl <= 255:
                raise ValueError(f"ttl must be within 1..255, got {self.ttl}")
            if self.jitter_ns < 0 or self.memory < 1:
                raise ValueError("jitter must be >= 0 and memory >= 1")

    name = "flooding"

    def __init__(self, params=None) -> None:
        super().__init__(params)
        self._seen = SeenPackets(self.params.memory)

    def on_send(self, packet: Packet) -> None:
        self._seen.first_time(packet)
        self.link.send_frame(BROADCAST, pack_data(DATA, packet, 1), "data")

    def on_frame(self, src: int, frame: bytes, rssi_dbm: float) -> None:
        packet, hops = unpack_data(frame)
        if not self._seen.first_time(packet):
            self.count("duplicates")
            return
        me = self.link.node
        if packet.dst in (me, BROADCAST):
            self.link.deliver(packet, hops)
            if packet.dst == me:
                return
        if hops >= self.params.ttl:
            self.count("ttl_expired")
            return
        jitter = self.params.jitter_ns
        delay = int(self.link.rng.integers(0, jitter)) if jitter else 0
        out = pack_data(DATA, packet, hops + 1)
        self.link.after(delay, lambda: self.link.send_frame(BROADCAST, out, "data"))
