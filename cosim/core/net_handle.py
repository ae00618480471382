"""A controller's `net` in a simulation (`controllers.Net`): send, broadcast, neighbours with range and
bearing, and the node's routing table."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from controllers import Message, Neighbor
from cosim.core.geometry import bearings, ranges, read_only
from cosim.core.timeunits import NS_PER_S
from netstack.backend import BROADCAST

if TYPE_CHECKING:
    from cosim.core.coordinator import Simulation


class NetHandle:
    """A controller's radio: send, broadcast, and the nodes heard recently."""

    __slots__ = ("_poses", "_sim", "node")

    def __init__(self, sim: Simulation, node: int) -> None:
        self._sim = sim
        self.node = node
        self._poses: tuple[np.ndarray, ...] = ()  # the world's pose arrays and read-only views of them

    def send(self, dst: int, payload: bytes, port: int = 0, interface: str | None = None) -> int | None:
        """Send `payload` to node `dst` now. Without a routing protocol this is one link-layer frame on
        `interface` (None: the first radio) and the result is its transmission id; with one, the packet
        goes through the node's protocol to `port` at `dst`, and the result is its sequence number at
        this source. None if this robot is dead."""
        if not isinstance(dst, (int, np.integer)) or dst < 0:
            raise ValueError(f"dst must be a node id >= 0, got {dst!r}")
        return self._send(int(dst), payload, port, interface)

    def broadcast(self, payload: bytes, port: int = 0, interface: str | None = None) -> int | None:
        """Send `payload` to every node in range of `interface` (with `flooding`, to every node reachable)."""
        return self._send(BROADCAST, payload, port, interface)

    def _send(self, dst: int, payload: bytes, port: int, interface: str | None) -> int | None:
        sim = self._sim
        if sim.stacks is None:
            if port != 0:
                raise ValueError("ports need a routing protocol: set network.routing in the scenario")
            return sim.transmitter.send(self.node, dst, payload, sim.transmitter.interface_index(interface))
        if interface is not None:
            raise ValueError("with network.routing the routing protocol picks the radio for each frame "
                             "(LinkServices.send_frame(..., interface=)); send without `interface`")
        if not sim.population.alive_list[self.node]:
            return None
        if not isinstance(payload, (bytes, bytearray, memoryview)):
            raise TypeError(f"payload must be bytes, got {type(payload).__name__}")
        return sim.stacks[self.node].send(dst, payload, port)

    def routes(self) -> dict:
        """This node's routing table: {destination: [RouteEntry(next_hop, goodness, probability, hops,
        delay_s), ...] best first}; empty without a routing protocol."""
        sim = self._sim
        return {} if sim.stacks is None else sim.stacks[self.node].protocol.routes()

    def invalidate_route(self, dst: int, next_hop: int) -> None:
        """Tell the routing protocol to forget its route to `dst` through `next_hop`."""
        sim = self._sim
        if sim.stacks is None:
            raise ValueError("routes need a routing protocol: set network.routing in the scenario")
        sim.stacks[self.node].protocol.invalidate(int(dst), int(next_hop))

    def discover_route(self, dst: int) -> None:
        """Ask the routing protocol to look for routes to `dst` now (AntHocNet: a reactive forward ant)."""
        sim = self._sim
        if sim.stacks is None:
            raise ValueError("routes need a routing protocol: set network.routing in the scenario")
        sim.stacks[self.node].protocol.discover(int(dst))

    def bind(self, port: int, fn: Callable[[Message], None]) -> None:
        """Deliver packets arriving on `port` to fn instead of the controller's on_message (routed scenarios)."""
        sim = self._sim
        if sim.stacks is None:
            raise ValueError("ports need a routing protocol: set network.routing in the scenario")
        sim.stack_host.bind_port(self.node, port, fn)

    def range_to(self, node: int) -> float:
        """The true distance (m) from this robot to `node` now: what an ideal received-signal distance
        estimate gives (Kilobots' infrared, ranging radios); add the sensor's own noise in the controller."""
        return self._geometry(node)[0]

    def bearing_to(self, node: int) -> float:
        """The true bearing (rad, robot frame, counter-clockwise) from this robot to `node` now: what a
        range-and-bearing board measures (e-puck, marXbot; Kilobots have none). Add its noise yourself."""
        return self._geometry(node)[1]

    def poses(self) -> tuple[np.ndarray, np.ndarray]:
        """Every node's position (n, 3) and heading (rad), by node id: the world's own arrays, which
        range_to and bearing_to read (compiled controllers measure from them). Read only."""
        w = self._sim.world
        pos = w.positions()
        heading = w.active_heading
        if not self._poses or self._poses[0] is not pos or self._poses[1] is not heading:
            self._poses = (pos, heading, read_only(pos), read_only(heading))  # the same views while the arrays last
        return self._poses[2], self._poses[3]

    def _geometry(self, node: int) -> tuple[float, float]:
        """(range m, bearing rad in this robot's frame) to `node`, from the world's current poses."""
        w = self._sim.world
        count = len(self._sim.population)
        if not isinstance(node, (int, np.integer)) or isinstance(node, bool) or not 0 <= node < count:
            raise ValueError(f"range_to/bearing_to: node must be a node id in 0..{count - 1}, got {node!r}")
        d = w.position_of(node) - w.position_of(self.node)
        rng = float(math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]))
        return rng, math.remainder(math.atan2(d[1], d[0]) - float(w.active_heading[self.node]), 2 * math.pi)

    def neighbors(self) -> list[Neighbor]:
        """Nodes heard within the neighbour timeout, with range (m) and bearing (rad, robot frame)."""
        sim = self._sim
        table = sim.neighbor_table
        if table is None:
            return []
        src, t, rssi = table.heard_arrays(self.node, sim.clock.now_ns - sim.neighbor_timeout_ns)
        if not len(src):
            return []
        w = sim.world
        me = np.full(len(src), self.node)
        rng = ranges(w.positions(), me, src)
        bearing = bearings(w.positions(), w.headings(), me, src)
        age = (sim.clock.now_ns - t) / NS_PER_S
        return [Neighbor(*row) for row in zip(src.tolist(), rng.tolist(), bearing.tolist(), rssi.tolist(), age.tolist())]
