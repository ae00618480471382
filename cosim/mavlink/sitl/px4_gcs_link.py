"""PX4 SITL's ground-station link as its `mavlink` module runs it over UDP, for the PX4 stand-in
(cosim.mavlink.sitl.px4_standin): bound to its port (18570 + instance in PX4's startup script
`px4-rc.mavlink`), it sends to 127.0.0.1:14550 until a datagram arrives, then to that datagram's
sender only, for good. Any datagram makes the sender its partner, an empty one too, and nothing is
read before that (PX4's MavlinkReceiver::run)."""

from __future__ import annotations

import logging

from cosim.mavlink.datagrams import Codec
from cosim.mavlink.serve.vehicle_port import EndpointStats, Served, bound_socket, hand_over

log = logging.getLogger(__name__)

GCS_PORT = 18570
"""Instance 0's ground-station link port; instance k listens on GCS_PORT + k."""
REMOTE_PORT = 14550
"""Where the link sends before it has a partner (PX4's DEFAULT_REMOTE_PORT_UDP)."""


class Px4GcsLink:
    """One vehicle's ground-station link on UDP host:port; `remote_port` is where it sends until a
    partner has written to it."""

    signing_key = None

    def __init__(self, port: int, host: str = "127.0.0.1", remote_port: int = REMOTE_PORT) -> None:
        self.sock = bound_socket(host, port)
        self.port = self.sock.getsockname()[1]
        self.partner: tuple[str, int] = (host, remote_port)
        self.adopted = False
        """True once a datagram has named the partner."""
        self.stats = EndpointStats()
        self.vehicles: list[Served] = []
        self._codec = Codec(0, 0, None)

    @property
    def peers(self) -> list[tuple[str, int]]:
        return [self.partner]

    def add(self, vehicle: Served) -> None:
        self.vehicles.append(vehicle)

    def send(self, buf: bytes) -> None:
        try:
            self.sock.sendto(buf, self.partner)
        except OSError:
            pass

    def poll(self, now: float) -> None:
        """Hand what arrived to the vehicle, then let it send what is due."""
        hand_over(self.vehicles, self._receive, self.stats, now)

    def _receive(self) -> list:
        msgs = []
        while True:
            try:
                data, addr = self.sock.recvfrom(65536)
            except (BlockingIOError, ConnectionRefusedError):
                return msgs
            if not self.adopted:
                self.partner = addr
                self.adopted = True
                log.info("udp %d: partner %s:%d", self.port, *addr[:2])
            msgs += self._codec.parse(data)

    def close(self) -> None:
        self.sock.close()
