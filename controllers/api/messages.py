"""What arrives at a controller: a received `Message` and a `Neighbor` heard recently."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Message:
    """A message delivered to this node: its source, bytes, and the last hop's radio measurements.

    With a routing protocol, `src` is the packet's origin (not the last hop) and `port` and `hops`
    say where it was addressed and how far it came."""

    src: int
    payload: bytes
    t: float
    rssi_dbm: float
    snr_db: float
    lqi: int | None = None  # 802.15.4 link quality indicator (0-255); None for other radios
    port: int = 0  # application port (routed scenarios; 0 for raw link frames)
    hops: int = 1  # hops the packet travelled (routed scenarios; 1 for raw link frames)
    interface: str = "radio"  # the radio it came in on (network.interfaces; the last hop's, when routed)


@dataclass(frozen=True)
class Neighbor:
    """A node heard within the neighbour timeout: range (m) and bearing (rad, robot frame, CCW)."""

    id: int
    range_m: float
    bearing: float
    rssi_dbm: float
    age_s: float
