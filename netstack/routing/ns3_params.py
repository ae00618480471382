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
    enable_hello: bool = True
    allowed_hello_loss: int = 2
    active_route_timeout_ns: int = 3_000_000_000
    rreq_retries: int = 2
    rreq_rate_limit: int = 10
    rerr_rate_limit: int = 10
    max_queue_len: int = 64
    max_queue_time_ns: int = 30_000_000_000
    destination_only: bool = False
    gratuitous_reply: bool = True

    def __post_init__(self) -> None:
        self._check(("hello_interval_ns", "active_route_timeout_ns", "max_queue_time_ns"),
                    ("allowed_hello_loss", "rreq_retries", "rreq_rate_limit", "rerr_rate_limit", "max_queue_len"))
        if self.max_queue_len < 1:
            raise ValueError("max_queue_len must be >= 1")


@dataclass(frozen=True)
class OlsrParams(_Attributes):
    """ns3::olsr::RoutingProtocol (RFC 3626): the message intervals and the node's willingness to relay."""

    hello_interval_ns: int = 2_000_000_000
    tc_interval_ns: int = 5_000_000_000
    mid_interval_ns: int = 5_000_000_000
    hna_interval_ns: int = 5_000_000_000
    willingness: Literal["never", "low", "default", "high", "always"] = "default"

    def __post_init__(self) -> None:
        self._check(("hello_interval_ns", "tc_interval_ns", "mid_interval_ns", "hna_interval_ns"), ())


@dataclass(frozen=True)
class DsdvParams(_Attributes):
    """ns3::dsdv::RoutingProtocol: full and triggered updates, settling time, buffering while no route."""

    periodic_update_interval_ns: int = 15_000_000_000
    settling_time_ns: int = 5_000_000_000
    holdtimes: int = 3
    weighted_factor: float = 0.875
    enable_wst: bool = True
    enable_buffering: bool = True
    max_queue_len: int = 500
    max_queued_per_dst: int = 5
    max_queue_time_ns: int = 30_000_000_000

    def __post_init__(self) -> None:
        self._check(("periodic_update_interval_ns", "settling_time_ns", "max_queue_time_ns"),
                    ("holdtimes", "max_queue_len", "max_queued_per_dst"))
        if not 0.0 <= self.weighted_factor <= 1.0:
            raise ValueError(f"weighted_factor must be within [0, 1], got {self.weighted_factor}")
