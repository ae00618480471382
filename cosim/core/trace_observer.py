"""What watches the trace as it is made (the live viewer, the ZeroMQ stream): the rows the recorder
takes, handed on as they arrive, whether or not the trace itself keeps them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class TraceObserver(Protocol):
    """Told of every network event, discrete event and routed packet as the recorder gets it."""

    def sends(self, t_ns: int, src: Sequence[int], dst: Sequence[int], tx_id: Sequence[int], size: Sequence[int]) -> None:
        """Frames handed to the network at t_ns (dst -1: broadcast): arrays, or 1-tuples for a single
        send (the common case, kept cheap); keep references, convert later."""
        ...

    def net_events(self, ev) -> None:
        """One NetEvents batch: deliveries, drops and transmit statuses."""
        ...

    def event(self, t_ns: int, node: int, kind: str, detail: str) -> None:
        """A death, a crash, a failsafe..."""
        ...

    def packet(self, t_ns: int, node: int, kind: str, src: int, dst: int, port: int, seq: int, hops: int,
               detail: str) -> None:
        """A routed packet sent, received or dropped (kind send/recv/drop), or a frame a routing protocol
        transmitted (kind frame; for data frames dst is the next hop and detail is 'data')."""
        ...

    def records(self, t_ns: int, nodes: Sequence[int], name: str, values: Sequence[float]) -> None:
        """Controller records (robot.record) at one instant: arrays, or 1-tuples for a single record."""
        ...
