"""The interface between a node's stack and its routing protocol.

A protocol sees four things: a packet the node's applications want sent (`on_send`), a frame the
link received (`on_frame`), the outcome of one of its unicast frames (`on_tx_status`), and its own
timers. It acts through `LinkServices`: send a frame to a neighbour or broadcast it, hand a packet
to the local applications, drop one, set a timer. Its routing table, `routes()`, is public:
controllers read it (a BARAKA robot chooses its next waypoint from it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from netstack.backend import BROADCAST as BROADCAST  # re-exported for the protocols


@dataclass(frozen=True)
class Packet:
    """An application packet: end-to-end source and destination, port, per-source sequence number."""

    src: int
    dst: int
    port: int
    seq: int
    payload: bytes


@dataclass(frozen=True)
class RouteEntry:
    """One candidate next hop towards a destination.

    goodness: the protocol's value of this hop (pheromone for AntHocNet, 1.0 for a single route);
    probability: the chance data takes this hop now; hops and delay_s: the path's estimated length
    and end-to-end time (NaN where the protocol does not estimate it)."""

    next_hop: int
    goodness: float
    probability: float
    hops: int
    delay_s: float


class TimerHandle(Protocol):
    """A scheduled callback that can be called off (routing timers and controller timers alike)."""

    def cancel(self) -> None: ...


class LinkServices(Protocol):
    """What the stack gives its routing protocol (times are integer nanoseconds)."""

    node: int
    rng: np.random.Generator

    def now_ns(self) -> int: ...

    def send_frame(self, dst: int, frame: bytes, kind: str, interface: str | None = None) -> int | None:
        """Transmit `frame` to neighbour `dst` (or BROADCAST); `kind` labels it in the trace
        ('data' counts as payload traffic, anything else as routing overhead). `interface`: which
        radio (None: the first). Returns the tx id."""

    def arrival_interface(self) -> str:
        """The radio the frame being handled (on_frame) came in on."""

    def deliver(self, packet: Packet, hops: int) -> None:
        """Hand a packet addressed to this node to its applications."""

    def drop(self, packet: Packet, reason: str) -> None:
        """Give up on a packet (recorded with the reason)."""

    def after(self, delay_ns: int, fn: Callable[[], None]) -> TimerHandle: ...

    def event(self, kind: str, detail: str) -> None:
        """Record a protocol happening (a link failure, a repair) in the run's events table."""

    def record(self, name: str, value: float) -> None:
        """Record a protocol measurement (e.g. `route_discovery_s`) in the run's records table."""


class RoutingProtocol:
    """Base class: override what the protocol needs. Parameters: a frozen dataclass `Params`."""

    @dataclass(frozen=True)
    class Params:
        pass

    name: ClassVar[str] = "base"
    passive_kinds: ClassVar[frozenset[int]] = frozenset()
    """First bytes of frames whose handling never transmits and never sets a timer (hellos, say).
    The network may hand such frames over with its next event instead of stopping for each; they are
    still processed in order and with their own receive times, before anything later happens."""

    def __init__(self, params: Any = None) -> None:
        self.params = params if params is not None else type(self).Params()
        self.link: LinkServices | None = None
        self.stats: dict[str, int] = {}

    def bind(self, link: LinkServices) -> None:
        self.link = link

    def count(self, what: str, n: int = 1) -> None:
        """Add to one of the protocol's counters (reported per node and summed in the run's metrics)."""
        self.stats[what] = self.stats.get(what, 0) + n

    # -- hooks ---------------------------------------------------------------------------------
    def start(self) -> None:
        """Called once at time 0 (start hellos and other periodic work here)."""

    def on_send(self, packet: Packet) -> None:
        raise NotImplementedError

    def on_frame(self, src: int, frame: bytes, rssi_dbm: float) -> None:
        raise NotImplementedError

    def on_tx_status(self, tx_id: int, dst: int, acked: bool) -> None:
        """A unicast frame of ours was acknowledged by `dst` (or dropped after the MAC's retries)."""

    def on_node_down(self) -> None:
        """This node died: cancel timers, forget state."""

    def routes(self) -> dict[int, list[RouteEntry]]:
        """For each known destination, the candidate next hops (best first)."""
        return {}

    def invalidate(self, dst: int, next_hop: int) -> None:
        """Forget the route to `dst` through `next_hop` (an application knows better, e.g. a robot
        that is leaving that neighbour behind). Protocols without per-hop state ignore it."""

    def discover(self, dst: int) -> None:
        """Start a route discovery towards `dst` now, even if a route is known (reactive protocols;
        others ignore it)."""
