"""`Controller`: the one class users subclass to program a robot, in simulation or on hardware.

A controller gets `robot` (pose, velocity, commands, sensors), `net` (send, broadcast,
neighbors), timers (`every`, `after`), a seeded `rng`, and `record(name, value)`. Hooks: `setup()`
once at time 0, `step()` every `period` seconds, `on_message(msg)` for each frame received. Times
and periods at this API are float seconds; inside, the coordinator keeps integer nanoseconds.

Parameters: declare a dataclass named `Params` inside the subclass; the scenario's `params` mapping
is checked against it (unknown keys and wrong types are errors) and the instance is `self.params`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np


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


@dataclass(frozen=True)
class Neighbor:
    """A node heard within the neighbour timeout: range (m) and bearing (rad, robot frame, CCW)."""

    id: int
    range_m: float
    bearing: float
    rssi_dbm: float
    age_s: float


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class NodeServices(Protocol):
    """What the coordinator provides to a controller (implemented in cosim)."""

    def now_s(self) -> float: ...
    def every(self, period_s: float, fn: Callable[[], None], phase_s: float | None) -> TimerHandle: ...
    def after(self, delay_s: float, fn: Callable[[], None]) -> TimerHandle: ...
    def record(self, name: str, value: float) -> None: ...


class Controller:
    """Base class for robot programs; override `setup`, `step`, `on_message`."""

    @dataclass(frozen=True)
    class Params:
        pass

    period: ClassVar[float | None] = 0.1
    """Default seconds between `step()` calls; None means no periodic step. The scenario may override."""

    def __init__(self, params: Any = None) -> None:
        self.params = params if params is not None else type(self).Params()
        self.id: int = -1
        self.robot: Any = None
        self.net: Any = None
        self.rng: np.random.Generator | None = None
        self.log = logging.getLogger(f"{type(self).__module__}.{type(self).__name__}")
        self._services: NodeServices | None = None

    def bind(self, node_id: int, robot: Any, net: Any, rng: np.random.Generator, services: NodeServices) -> None:
        """Called by the coordinator before `setup`."""
        self.id = node_id
        self.robot = robot
        self.net = net
        self.rng = rng
        self._services = services

    # -- hooks -------------------------------------------------------------------------------
    def setup(self) -> None:
        """Called once at time 0, before any step."""

    def step(self) -> None:
        """Called every `period` seconds, with a seeded random phase unless the scenario pins it."""

    def on_message(self, msg: Message) -> None:
        """Called at the exact receive time of each frame addressed to (or broadcast near) this node."""

    # -- services ----------------------------------------------------------------------------
    @property
    def now(self) -> float:
        """Simulated time in seconds."""
        return self._services.now_s()

    def every(self, period: float, fn: Callable[[], None], phase: float | None = None) -> TimerHandle:
        """Call fn every `period` seconds; the first call after a seeded random phase in [0, period)
        unless `phase` (seconds) is given."""
        return self._services.every(period, fn, phase)

    def after(self, delay: float, fn: Callable[[], None]) -> TimerHandle:
        """Call fn once, `delay` seconds from now."""
        return self._services.after(delay, fn)

    def record(self, name: str, value: float) -> None:
        """Append a metric sample (time, node, name, value) to the run's trace."""
        self._services.record(name, value)
