"""A scenario's network (`network`: the backend, the radio, routing, more interfaces) and the traffic
it carries (`traffic`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from netstack.radio import RadioSpec
from netstack.routing.registry import PARAMS as ROUTING_PARAMS

MAX_PACKET_RATE = 1_000_000
"""The most packets a traffic source may send per second."""
MAX_SESSIONS = 1_000_000
"""The most random traffic sessions one traffic entry may draw."""
PRIMARY_INTERFACE = "radio"
"""The name of the interface `network.backend` and `network.radio` configure."""


@dataclass(frozen=True)
class InterfaceSpec:
    """One more radio on some of the groups' robots: its name (what controllers send on and see
    messages come in on), its backend, its radio (netstack.radio), and the groups that carry it
    (None: all)."""

    name: str
    """The interface's name: controllers send on it and see messages arrive on it by this name."""
    backend: Literal["fast", "ns3"] = "fast"
    """The engine that carries it: `fast` or `ns3`."""
    radio: RadioSpec = field(default_factory=RadioSpec)
    """Its radio, with the same keys as `network.radio`."""
    groups: tuple[str, ...] | None = None
    """The groups whose robots carry it (null: every group)."""

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name == PRIMARY_INTERFACE:
            raise ValueError(f"an interface name is an identifier other than {PRIMARY_INTERFACE!r} (the first radio's), "
                             f"got {self.name!r}")


@dataclass(frozen=True)
class NetworkSpec:
    """Network backend (`fast`, `ns3` or `none`), the radio both engines read (netstack.radio), and how
    long a heard node counts as a neighbour."""

    backend: Literal["fast", "ns3", "none"] = "fast"
    """The network engine: `fast` (our own models), `ns3` (ns-3 in process) or `none` (no network)."""
    radio: RadioSpec = field(default_factory=RadioSpec)
    """The radio every node has, read by both engines."""
    neighbor_timeout_ns: int = 2_000_000_000
    """How long after last hearing a node it still counts as a neighbour."""
    routing: Any = field(default=None, metadata={"registry": ROUTING_PARAMS, "tag": "protocol"})
    """None: controllers send raw link frames. Otherwise the per-node stack's protocol and its parameters."""
    interfaces: tuple[InterfaceSpec, ...] = ()
    """More radios beside the first (`radio`), each on its own backend (netstack.interfaces)."""

    @property
    def interface_names(self) -> tuple[str, ...]:
        return (PRIMARY_INTERFACE, *(i.name for i in self.interfaces))

    def __post_init__(self) -> None:
        if self.neighbor_timeout_ns <= 0:
            raise ValueError("neighbor_timeout must be > 0")


@dataclass(frozen=True)
class CbrSpec:
    """Constant-bit-rate traffic: `size`-byte packets at `rate` per second from each source to its
    destination on `port`. Sessions are the listed `pairs` [source, destination], plus `sessions`
    random pairs drawn from the run's seeded stream. Each session starts at `start` plus a uniform
    random offset in [0, start_window) and stops at `stop` (default: the end of the run)."""

    rate: float = 1.0
    """Packets per second each source sends."""
    size: int = 64
    """Each packet's payload."""
    pairs: tuple[tuple[int, int], ...] = ()
    """The sessions, as [source, destination] node ids."""
    sessions: int = 0
    """How many more sessions between random distinct nodes, drawn from the run's seeded stream."""
    start_ns: int = 0
    """When the sessions start."""
    start_window_ns: int = 0
    """Each session starts at `start` plus a uniform random offset below this."""
    stop_ns: int | None = None
    """When the sessions stop (null: at the end of the run)."""
    port: int = 9
    """The destination port the packets are addressed to."""

    def __post_init__(self) -> None:
        if not 1e-6 <= self.rate <= MAX_PACKET_RATE:
            raise ValueError(f"rate must be at least 1e-06 (one packet in 11.6 days) and at most {MAX_PACKET_RATE:,} "
                             "packets per second per source "
                             f"(a gigabit link carries about 80,000 full frames a second), got {self.rate:g}")
        if not 0 <= self.size <= 0xFFFF:
            raise ValueError(f"size must be within 0..65535 bytes, got {self.size:,}")
        if not 0 <= self.sessions <= MAX_SESSIONS:
            raise ValueError(f"sessions must be within 0..{MAX_SESSIONS:,}, got {self.sessions:,}")
        if not self.pairs and not self.sessions:
            raise ValueError("give `pairs` or a number of random `sessions`")
        if not 0 <= self.port <= 0xFFFF:
            raise ValueError(f"port must be within 0..65535, got {self.port}")
        if self.start_ns < 0 or self.start_window_ns < 0:
            raise ValueError("start and start_window must be >= 0")
        if self.stop_ns is not None and self.stop_ns <= self.start_ns:
            raise ValueError(f"stop ({self.stop_ns / 1e9:g} s) must come after start ({self.start_ns / 1e9:g} s): no "
                             "session would send anything")
        for a, b in self.pairs:
            if a == b or a < 0 or b < 0:
                raise ValueError(f"each pair is [source, destination], two different node ids >= 0; got [{a}, {b}]")
