"""Per-node services the coordinator gives a controller: timers, metrics, and the `net` handle."""

from __future__ import annotations

import math
from collections.abc import Callable
from heapq import heappush
from typing import TYPE_CHECKING

import numpy as np

from controllers.base import Message, Neighbor
from cosim.timeline import Priority
from cosim.timeunits import NS_PER_S
from netstack.backend import BROADCAST

if TYPE_CHECKING:
    from cosim.coordinator import Simulation


_TIMER = int(Priority.TIMER)


def _seconds_to_ns(value: float, what: str) -> int:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number of seconds, got {value!r}")
    return round(value * NS_PER_S)


class Timer:
    """A one-shot or periodic callback on the coordinator's queue; `cancel()` stops it."""

    __slots__ = ("_alive", "_fire_bound", "_fn", "_heap", "_node", "_period", "_seq", "_sim", "_t", "cancelled")

    def __init__(self, sim: Simulation, fn: Callable[[], None], first_ns: int, period_ns: int, node: int) -> None:
        self._sim = sim
        self._fn = fn
        self._period = period_ns
        self._node = node
        self._t = first_ns
        self._heap = sim.queue._heap
        self._seq = sim.queue._seq
        self._alive = sim.alive_list
        self.cancelled = False
        self._fire_bound = self._fire  # one bound method, reused for every reschedule
        sim.queue.push(first_ns, _TIMER, self._fire_bound)

    def cancel(self) -> None:
        self.cancelled = True

    def _fire(self) -> None:
        if self.cancelled or not self._alive[self._node]:
            return
        if self._period:
            self._t += self._period
            heappush(self._heap, (self._t, _TIMER, next(self._seq), self._fire_bound))
        self._sim.current_node = self._node
        self._fn()


class NodeServices:
    """Implements controllers.base.NodeServices for one node."""

    __slots__ = ("_rng", "_sim", "node")

    def __init__(self, sim: Simulation, node: int, rng: np.random.Generator) -> None:
        self._sim = sim
        self.node = node
        self._rng = rng  # timer phases only, so user draws do not shift them

    def now_s(self) -> float:
        return self._sim.now_ns / NS_PER_S

    def every(self, period_s: float, fn: Callable[[], None], phase_s: float | None = None) -> Timer:
        period = _seconds_to_ns(period_s, "period")
        if period <= 0:
            raise ValueError(f"period must be > 0 seconds, got {period_s!r}")
        return self.every_ns(period, fn, None if phase_s is None else _seconds_to_ns(phase_s, "phase"))

    def every_ns(self, period: int, fn: Callable[[], None], phase: int | None) -> Timer:
        if phase is None:
            phase = int(self._rng.integers(0, period))
        elif not 0 <= phase:
            raise ValueError(f"phase must be >= 0, got {phase} ns")
        return Timer(self._sim, fn, self._sim.now_ns + phase, period, self.node)

    def after(self, delay_s: float, fn: Callable[[], None]) -> Timer:
        delay = _seconds_to_ns(delay_s, "delay")
        if delay < 0:
            raise ValueError(f"delay must be >= 0 seconds, got {delay_s!r}")
        return Timer(self._sim, fn, self._sim.now_ns + delay, 0, self.node)

    def record(self, name: str, value: float) -> None:
        self._sim.recorder.record(self._sim.now_ns, self.node, name, value)


class NetHandle:
    """A controller's radio: send, broadcast, and the nodes heard recently."""

    __slots__ = ("_sim", "node")

    def __init__(self, sim: Simulation, node: int) -> None:
        self._sim = sim
        self.node = node

    def send(self, dst: int, payload: bytes, port: int = 0) -> int | None:
        """Send `payload` to node `dst` now. Without a routing protocol this is one link-layer frame and
        the result is its transmission id; with one, the packet goes through the node's protocol to
        `port` at `dst`, and the result is its sequence number at this source. None if this robot is dead."""
        if not isinstance(dst, (int, np.integer)) or dst < 0:
            raise ValueError(f"dst must be a node id >= 0, got {dst!r}")
        return self._send(int(dst), payload, port)

    def broadcast(self, payload: bytes, port: int = 0) -> int | None:
        """Send `payload` to every node in radio range (with `flooding`, to every node reachable)."""
        return self._send(BROADCAST, payload, port)

    def _send(self, dst: int, payload: bytes, port: int) -> int | None:
        sim = self._sim
        if sim.stacks is None:
            if port != 0:
                raise ValueError("ports need a routing protocol: set network.routing in the scenario")
            return sim.send(self.node, dst, payload)
        if not sim.alive_list[self.node]:
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

    def _geometry(self, node: int) -> tuple[float, float]:
        """(range m, bearing rad in this robot's frame) to `node`, from the world's current poses."""
        w = self._sim.world
        d = w.position_of(node) - w.position_of(self.node)
        rng = float(math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]))
        return rng, math.remainder(math.atan2(d[1], d[0]) - float(w.active_heading[self.node]), 2 * math.pi)

    def neighbors(self) -> list[Neighbor]:
        """Nodes heard within the neighbour timeout, with range (m) and bearing (rad, robot frame)."""
        sim = self._sim
        table = sim.neighbor_table
        if table is None:
            return []
        heard = table.heard_by(self.node, sim.now_ns - sim.neighbor_timeout_ns)
        if not heard:
            return []
        out = []
        for src, t, rssi in heard:
            rng, bearing = self._geometry(src)
            out.append(Neighbor(src, rng, bearing, rssi, (sim.now_ns - t) / NS_PER_S))
        return out

