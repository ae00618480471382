"""The UDP side of served vehicles: one socket for one or more simulated vehicles, told apart by
system id, with optional MAVLink 2 signing, and what it counted."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cosim.mavlink.datagrams import Codec

if TYPE_CHECKING:
    from cosim.mavlink.vehicle_endpoint import SimVehicleEndpoint


@dataclass
class EndpointStats:
    """What the endpoint saw: messages handled, bytes that did not parse, messages for other systems,
    frames refused for a missing or wrong signature, messages whose handling failed (refused)."""

    handled: int = 0
    malformed: int = 0
    foreign: int = 0
    rejected_signature: int = 0
    rejected: int = 0
    commands: dict[int, int] = field(default_factory=dict)


class VehiclePort:
    """One UDP socket serving one or more simulated vehicles, told apart by system id (as several
    real vehicles on one telemetry link are). Replies go to every address that has written to it.
    With `signing_key` (32 bytes, hex or passphrase) every frame is signed and unsigned ones refused."""

    def __init__(self, port: int, host: str = "127.0.0.1", signing_key: bytes | str | None = None) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self.sock.bind((host, port))
        except OSError as exc:
            self.sock.close()
            raise OSError(exc.errno, f"cannot bind UDP {host}:{port}: {exc.strerror}") from None
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.vehicles: list[SimVehicleEndpoint] = []
        self.peers: list[tuple[str, int]] = []
        self.stats = EndpointStats()
        self.signing_key = signing_key
        self._codec = Codec(0, 0, signing_key)
        self._last_poll = -1.0

    def add_peer(self, host: str, port: int) -> None:
        """Also send to host:port before it writes (as SITL's `--out` does for a listening ground station)."""
        if (host, port) not in self.peers:
            self.peers.append((host, port))

    def add(self, vehicle: SimVehicleEndpoint) -> None:
        if any(v.sysid == vehicle.sysid for v in self.vehicles):
            raise ValueError(f"system id {vehicle.sysid} is already served on port {self.port}")
        self.vehicles.append(vehicle)

    def send(self, buf: bytes) -> None:
        for peer in self.peers:
            try:
                self.sock.sendto(buf, peer)
            except OSError:
                pass

    def poll(self, now: float) -> None:
        """Route what arrived to the vehicles it is for, then let each send what is due (once per instant)."""
        if now == self._last_poll:
            return
        self._last_poll = now
        for v in self.vehicles:
            v.now = now
        while True:
            try:
                data, addr = self.sock.recvfrom(65536)
            except BlockingIOError:
                break
            if addr not in self.peers:
                self.peers.append(addr)
            msgs = self._codec.parse(data)
            self.stats.malformed = self._codec.stats.malformed
            self.stats.rejected_signature = self._codec.stats.rejected_signature
            for msg in msgs:
                target = getattr(msg, "target_system", None)
                takers = [v for v in self.vehicles if target in (None, 0, v.sysid)]
                if not takers:
                    self.stats.foreign += 1
                for v in takers:
                    self.stats.handled += 1
                    v.handle(msg)
        for v in self.vehicles:
            v.supervise()
            v.body.update()
            v.send_due()

    def close(self) -> None:
        self.sock.close()
