"""The UDP side of served vehicles: one socket for one or more simulated vehicles, told apart by
system id, with optional MAVLink 2 signing, and what it counted."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from cosim.mavlink.datagrams import Codec
from cosim.mavlink.ratelog import RateLimitedLog
from cosim.mavlink.serve.peers import IDLE_S, MAX_PEERS, STALE_S, Peers

log = logging.getLogger(__name__)


def bound_socket(host: str, port: int) -> socket.socket:
    """A non-blocking UDP socket bound to host:port (0: a free port); OSError naming the address if taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(exc.errno, f"cannot bind UDP {host}:{port}: {exc.strerror}") from None
    sock.setblocking(False)
    return sock


class Served(Protocol):
    """What the port needs of a vehicle it serves (cosim.mavlink.serve.vehicle_endpoint's): its system
    id, and at each instant a start, the messages addressed to it, and an end."""

    sysid: int

    def begin(self, now: float) -> None: ...
    def handle(self, msg: Any) -> None: ...
    def end(self) -> None: ...


def hand_over(vehicles: list[Served], messages: Callable[[], list], stats: EndpointStats, now: float) -> None:
    """One instant of the vehicles on a link: each begins it, takes those of `messages()` (read once
    all have begun) addressed to it (a target system of 0, or none: every vehicle), and ends it;
    `stats` counts them."""
    for v in vehicles:
        v.begin(now)
    for msg in messages():
        target = getattr(msg, "target_system", None)
        takers = [v for v in vehicles if target in (None, 0, v.sysid)]
        if not takers:
            stats.foreign += 1
        for v in takers:
            stats.handled += 1
            v.handle(msg)
    for v in vehicles:
        v.end()


class Transport(Protocol):
    """What carries a served vehicle's frames: a UDP port (VehiclePort) or the simulated network
    (cosim.mavlink.radio_link.RadioTransport)."""

    port: int
    stats: EndpointStats
    signing_key: bytes | str | None

    @property
    def peers(self) -> list[tuple[str, int]]: ...
    def add(self, vehicle: Served) -> None: ...
    def send(self, buf: bytes) -> None: ...
    def poll(self, now: float) -> None: ...
    def close(self) -> None: ...


@dataclass
class EndpointStats:
    """What the endpoint saw: messages handled, bytes that did not parse, messages for other systems,
    frames refused for a missing or wrong signature, messages whose handling failed (rejected),
    datagrams dropped because every peer slot was taken (crowded)."""

    handled: int = 0
    malformed: int = 0
    foreign: int = 0
    rejected_signature: int = 0
    rejected: int = 0
    crowded: int = 0
    commands: dict[int, int] = field(default_factory=dict)


class VehiclePort:
    """One UDP socket serving one or more simulated vehicles, told apart by system id (as several
    real vehicles on one telemetry link are). Replies go to its peers (cosim.mavlink.serve.peers): the
    addresses given with `add_peer`, and up to `max_peers` senders of valid messages, each until it
    has been silent for `peer_idle_s`. With `signing_key` (32 bytes, hex or passphrase) every frame
    is signed, unsigned ones are refused, and only validly signed senders become peers."""

    def __init__(self, port: int, host: str = "127.0.0.1", signing_key: bytes | str | None = None,
                 max_peers: int = MAX_PEERS, peer_idle_s: float = IDLE_S) -> None:
        self.sock = bound_socket(host, port)
        self.port = self.sock.getsockname()[1]
        self.vehicles: list[Served] = []
        self.peer_set = Peers(max_peers, peer_idle_s, min(STALE_S, peer_idle_s))
        self.stats = EndpointStats()
        self._bad_log = RateLimitedLog(log)
        self._crowd_log = RateLimitedLog(log)
        self.signing_key = signing_key
        self._codec = Codec(0, 0, signing_key)
        self._last_poll = -1.0

    def add_peer(self, host: str, port: int) -> None:
        """Also send to host:port before it writes (as SITL's `--out` does for a listening ground station)."""
        self.peer_set.add_fixed((host, port))

    @property
    def peers(self) -> list[tuple[str, int]]:
        """Where telemetry goes now."""
        return self.peer_set.addresses()

    def add(self, vehicle: Served) -> None:
        if any(v.sysid == vehicle.sysid for v in self.vehicles):
            raise ValueError(f"system id {vehicle.sysid} is already served on port {self.port}")
        self.vehicles.append(vehicle)

    def send(self, buf: bytes) -> None:
        for peer in self.peer_set.addresses():
            try:
                self.sock.sendto(buf, peer)
            except OSError:
                pass

    def poll(self, now: float) -> None:
        """Route what arrived to the vehicles it is for, then let each send what is due (once per instant)."""
        if now == self._last_poll:
            return
        self._last_poll = now
        hand_over(self.vehicles, lambda: self.receive(now), self.stats, now)

    def receive(self, now: float) -> list:
        """The valid messages that arrived since the last call, in order (their senders are peers now);
        peers silent too long forgotten. Also the in-scenario ground station's outside port."""
        msgs = []
        while True:
            try:
                data, addr = self.sock.recvfrom(65536)
            except BlockingIOError:
                break
            msgs += self._accept(data, addr, now)
        self.peer_set.expire(now)
        return msgs

    def _accept(self, data: bytes, addr: tuple[str, int], now: float) -> list:
        """The valid messages of one datagram from `addr`, which becomes a peer if it sent any and a
        slot is free; what is dropped is counted and logged, rate-limited."""
        c = self._codec.stats
        bad_before = c.malformed + c.rejected_signature
        msgs = self._codec.parse(data)
        self.stats.malformed = c.malformed
        self.stats.rejected_signature = c.rejected_signature
        if c.malformed + c.rejected_signature > bad_before:
            self._bad_log.warn(now, "udp %d: dropped a malformed or badly signed datagram from %s:%d",
                               self.port, *addr[:2])
        if msgs and not self.peer_set.heard(addr, now):
            self.stats.crowded += 1
            self._crowd_log.warn(now, "udp %d: %s:%d ignored, %d peers already (the limit)", self.port, *addr[:2],
                                 self.peer_set.limit)
            return []
        return msgs

    def close(self) -> None:
        self.sock.close()
