"""`Net`: a controller's radio and routing, in the simulated network or none (a lone MAVLink vehicle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

from controllers.api.messages import Message, Neighbor
from netstack.backend import BROADCAST

__all__ = ["BROADCAST", "Net"]


@runtime_checkable
class Net(Protocol):
    """Send and receive through the node's radio; read and steer its routing protocol."""

    def send(self, dst: int, payload: bytes, port: int = 0, interface: str | None = None) -> int | None:
        """To node `dst` (a link frame on `interface`, None: the first radio; or a routed packet to
        `port`); None if this robot is dead."""
    def broadcast(self, payload: bytes, port: int = 0, interface: str | None = None) -> int | None:
        """To every node in range of `interface` (with flooding, every node reachable)."""
    def neighbors(self) -> list[Neighbor]:
        """Nodes heard within the neighbour timeout, with range (m) and bearing (rad, robot frame)."""
    def range_to(self, node: int) -> float:
        """The true distance (m) from this robot to `node` now, as an ideal ranging sensor reads it
        (add the sensor's noise in the controller)."""
    def bearing_to(self, node: int) -> float:
        """The true bearing (rad, robot frame, counter-clockwise) from this robot to `node` now, as a
        range-and-bearing board reads it (add its noise in the controller)."""
    def poses(self) -> tuple[np.ndarray, np.ndarray]:
        """Every node's position (n, 3) and heading (rad) by node id, as range_to and bearing_to read
        them (read-only views of the world's arrays: writing into them raises)."""
    def routes(self) -> dict:
        """The routing table: {destination: [RouteEntry, ...] best first}; empty without routing."""
    def invalidate_route(self, dst: int, next_hop: int) -> None:
        """Tell the routing protocol to forget its route to `dst` through `next_hop` (needs
        `network.routing`; without it, an error says so)."""
    def discover_route(self, dst: int) -> None:
        """Ask the routing protocol to look for routes to `dst` now (AntHocNet: a reactive forward
        ant; needs `network.routing`)."""
    def bind(self, port: int, fn: Callable[[Message], None]) -> None:
        """Hand packets arriving on `port` to `fn` instead of the controller's `on_message` (routed
        scenarios; without `network.routing`, an error says so)."""
