"""The ns-3 attributes researchers tune on AODV, OLSR and DSDV, as scenario parameters
(`network.routing.<name>`), with ns-3's own defaults. Each is checked here, so that a value ns-3
would abort on is an error naming the key; `ns3_attributes()` gives ns-3's names and strings."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

_NS3_NAME = {"rreq_retries": "RreqRetries", "rreq_rate_limit": "RreqRateLimit", "rerr_rate_limit": "RerrRateLimit",
             "tc_interval": "TcInterval", "mid_interval": "MidInterval", "hna_interval": "HnaInterval",
             "enable_wst": "EnableWST", "max_queued_per_dst": "MaxQueuedPacketsPerDst"}


def _ns3_name(field_name: str) -> str:
    base = field_name[:-3] if field_name.endswith("_ns") else field_name
    return _NS3_NAME.get(base, "".join(part.capitalize() for part in base.split("_")))


def _ns3_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _Attributes:
    """Parameters whose fields map one to one onto ns-3 attributes (durations `*_ns` in ns)."""

    def ns3_attributes(self) -> dict[str, str]:
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[_ns3_name(f.name)] = f"{v}ns" if f.name.endswith("_ns") else _ns3_value(v)
        return out

    def _check(self, positive_ns: tuple[str, ...], counts: tuple[str, ...]) -> None:
        for name in positive_ns:
            if getattr(self, name) <= 0:
                raise ValueError(f"{name[:-3]} must be a positive duration")
        for name in counts:
            if not 0 <= getattr(self, name) <= 1_000_000:
                raise ValueError(f"{name} must be within 0..1000000, got {getattr(self, name)}")


@dataclass(frozen=True)
class AodvParams(_Attributes):
    """ns3::aodv::RoutingProtocol (RFC 3561): hello messages, route lifetimes, request retries, the
    queue of packets waiting for a route. (Not NodeTraversalTime or NetDiameter: ns-3 derives its
    other timeouts from them when the protocol is built, before attributes are set, so a new value
    would be half applied.)"""

    hello_interval_ns: int = 1_000_000_000
    """How often a node broadcasts a hello."""
    enable_hello: bool = True
    """Send hellos at all (false: links are learnt from traffic only)."""
    allowed_hello_loss: int = 2
    """Hellos a neighbour may miss before its link counts as broken."""
    active_route_timeout_ns: int = 3_000_000_000
    """How long an unused route stays valid."""
    rreq_retries: int = 2
    """How many times a route request is retried before the destination counts as unreachable."""
    rreq_rate_limit: int = 10
    """The most route requests a node sends per second."""
    rerr_rate_limit: int = 10
    """The most route errors a node sends per second."""
    max_queue_len: int = 64
    """The most packets waiting for a route."""
    max_queue_time_ns: int = 30_000_000_000
    """How long a packet may wait for a route."""
    destination_only: bool = False
    """Only the destination answers a route request."""
    gratuitous_reply: bool = True
    """An intermediate node that answers also tells the destination (a gratuitous reply)."""

    def __post_init__(self) -> None:
        self._check(("hello_interval_ns", "active_route_timeout_ns", "max_queue_time_ns"),
                    ("allowed_hello_loss", "rreq_retries", "rreq_rate_limit", "rerr_rate_limit", "max_queue_len"))
        if self.max_queue_len < 1:
            raise ValueError("max_queue_len must be >= 1")


@dataclass(frozen=True)
class OlsrParams(_Attributes):
    """ns3::olsr::RoutingProtocol (RFC 3626): the message intervals and the node's willingness to relay."""

    hello_interval_ns: int = 2_000_000_000
    """How often a node sends a HELLO."""
    tc_interval_ns: int = 5_000_000_000
    """How often a node sends a topology control (TC) message."""
    mid_interval_ns: int = 5_000_000_000
    """How often a node with several interfaces announces them (MID)."""
    hna_interval_ns: int = 5_000_000_000
    """How often a node announces its host and network associations (HNA)."""
    willingness: Literal["never", "low", "default", "high", "always"] = "default"
    """How willing the node is to relay for others: `never` to `always`."""

    def __post_init__(self) -> None:
        self._check(("hello_interval_ns", "tc_interval_ns", "mid_interval_ns", "hna_interval_ns"), ())


@dataclass(frozen=True)
class DsdvParams(_Attributes):
    """ns3::dsdv::RoutingProtocol: full and triggered updates, settling time, buffering while no route."""

    periodic_update_interval_ns: int = 15_000_000_000
    """How often a node sends its full routing table."""
    settling_time_ns: int = 5_000_000_000
    """How long a route change waits before it is advertised."""
    holdtimes: int = 3
    """A route expires after this many periodic update intervals without an update."""
    weighted_factor: float = 0.875
    """The weight of the past in the settling-time average (0..1)."""
    enable_wst: bool = True
    """Average settling times (weighted settling time) before advertising."""
    enable_buffering: bool = True
    """Buffer packets while no route to their destination exists."""
    max_queue_len: int = 500
    """The most packets buffered in all."""
    max_queued_per_dst: int = 5
    """The most packets buffered per destination."""
    max_queue_time_ns: int = 30_000_000_000
    """How long a packet may stay buffered."""

    def __post_init__(self) -> None:
        self._check(("periodic_update_interval_ns", "settling_time_ns", "max_queue_time_ns"),
                    ("holdtimes", "max_queue_len", "max_queued_per_dst"))
        if not 0.0 <= self.weighted_factor <= 1.0:
            raise ValueError(f"weighted_factor must be within [0, 1], got {self.weighted_factor}")
