"""What arrives at a controller: a received `Message`, the `Outcome` of a unicast it sent, and a
`Neighbor` heard recently."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Message:
    """A message delivered to this node: its source, bytes, and the last hop's radio measurements.

    With a routing protocol, `src` is the packet's origin (not the last hop) and `port` and `hops`
    say where it was addressed and how far it came.

    Attributes:
        src: The sending node's id (with routing: the packet's origin).
        payload: The bytes sent.
        t: The simulated receive time (s), the frame's exact arrival.
        rssi_dbm: Received signal strength of the last hop (dBm).
        snr_db: Signal to noise ratio of the last hop (dB).
        lqi: 802.15.4's link quality indicator (0-255); None for other radios.
        port: The application port (routed scenarios; 0 for raw link frames).
        hops: Hops the packet travelled (routed scenarios; 1 for raw link frames).
        interface: The radio it came in on (`network.interfaces`; the last hop's, when routed).
    """

    src: int
    payload: bytes
    t: float
    rssi_dbm: float
    snr_db: float
    lqi: int | None = None
    port: int = 0
    hops: int = 1
    interface: str = "radio"


@dataclass(frozen=True)
class Outcome:
    """What became of a unicast this node sent (`net.send`): its destination's MAC acknowledged it,
    or the sender's MAC gave it up, and why. On both engines, at the instant the sender knows: the
    acknowledgement's end, the last try's ACK timeout, or the queue refusing or expiring the frame.

    Attributes:
        tx_id: The id `net.send` returned for the frame.
        dst: Its destination.
        acked: True when the destination's MAC acknowledged it.
        reason: None when acknowledged; else the trace's `drop_reason` for the destination's loss
            (`collision`, `busy`, `half_duplex`, `out_of_range`, `below_sensitivity`, `dead`,
            `queue`, `loss`, or `retries` when every try failed without a better reason).
        t: The simulated time (s) of the outcome.
    """

    tx_id: int
    dst: int
    acked: bool
    reason: str | None
    t: float


@dataclass(frozen=True)
class Neighbor:
    """A node heard within the neighbour timeout (`network.neighbor_timeout`).

    Attributes:
        id: The neighbour's node id.
        range_m: Its distance (m), as the robot's range-and-bearing sensing estimates it.
        bearing: Its direction (rad) in the robot's frame, counter-clockwise from the heading.
        rssi_dbm: The strength of its last frame heard (dBm).
        age_s: How long ago it was last heard (s).
    """

    id: int
    range_m: float
    bearing: float
    rssi_dbm: float
    age_s: float
