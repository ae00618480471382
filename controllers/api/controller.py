"""`Controller`: the one class users subclass to program a robot, in simulation or on hardware.

A controller gets `robot` (pose, velocity, commands, sensors: `controllers.Robot`), `net` (send,
broadcast, neighbours, routes: `controllers.Net`), timers (`every`, `after`), a seeded `rng`, and
`record(name, value)`. Hooks: `setup()` once at time 0, `step()` every `period` seconds,
`on_message(msg)` for each message received. Times and periods at this API are float seconds;
inside, the coordinator keeps integer nanoseconds.

Parameters: declare a dataclass named `Params` inside the subclass; the scenario's `params` mapping
is checked against it (unknown keys and wrong types are errors) and the instance is `self.params`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from controllers.api.messages import Message
from controllers.api.net import Net
from controllers.api.robot import Robot
from controllers.api.services import Services, TimerHandle


class Unbound(RuntimeError):
    """A controller's robot, net or timers were used before the coordinator bound it to a robot."""


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
        self._robot: Robot | None = None
        self._net: Net | None = None
        self._rng: np.random.Generator | None = None
        self._services: Services | None = None
        self.log = logging.getLogger(f"{type(self).__module__}.{type(self).__name__}")

    def bind(self, node_id: int, robot: Robot, net: Net, rng: np.random.Generator, services: Services) -> None:
        """Called by the coordinator (or the MAVLink adapter) before `setup`."""
        self.id = node_id
        self._robot = robot
        self._net = net
        self._rng = rng
        self._services = services

    @classmethod
    def listens(cls) -> bool:
        """True when the class overrides `on_message` (the network then stops at its receive times)."""
        return cls.on_message is not Controller.on_message

    @classmethod
    def steps(cls) -> bool:
        """True when the class overrides `step` (it is then called every period)."""
        return cls.step is not Controller.step

    # -- what the coordinator binds ----------------------------------------------------------
    @property
    def robot(self) -> Robot:
        """The robot this controller commands."""
        robot = self._robot
        if robot is None:
            raise self._unbound("robot")
        return robot

    @property
    def net(self) -> Net:
        """The robot's radio and routing."""
        net = self._net
        if net is None:
            raise self._unbound("net")
        return net

    @property
    def rng(self) -> np.random.Generator:
        """This controller's own seeded random stream."""
        rng = self._rng
        if rng is None:
            raise self._unbound("rng")
        return rng

    def _clock(self) -> Services:
        services = self._services
        if services is None:
            raise self._unbound("timers")
        return services

    def _unbound(self, what: str) -> Unbound:
        return Unbound(f"{type(self).__name__}: {what} is available from setup() on, once the controller is bound to a robot")

    # -- hooks -------------------------------------------------------------------------------
    def setup(self) -> None:
        """Called once at time 0, before any step."""

    def step(self) -> None:
        """Called every `period` seconds, with a seeded random phase unless the scenario pins it."""

    def on_message(self, msg: Message) -> None:
        """Called at the exact receive time of each frame addressed to (or broadcast near) this node."""

    def save_state(self) -> dict[str, Any] | None:
        """The program's state at the end of a run, for the run's final_state.json (numbers, strings,
        lists and dicts; None: nothing to keep)."""
        return None

    def restore_state(self, state: dict[str, Any]) -> None:
        """Called after `setup` with what `save_state` returned, when the scenario starts from a state
        file (`initial_state`). Override it in controllers that save state."""
        raise NotImplementedError(f"{type(self).__name__} does not implement restore_state(), but the initial "
                                  "state file has program state for this robot")

    # -- services ----------------------------------------------------------------------------
    @property
    def now(self) -> float:
        """Simulated time in seconds: a property (`self.now`, not `self.now()`)."""
        return self._clock().now_s()

    def every(self, period: float, fn: Callable[[], None], phase: float | None = None) -> TimerHandle:
        """Call fn every `period` seconds; the first call after a seeded random phase in [0, period)
        unless `phase` (seconds) is given."""
        return self._clock().every(period, fn, phase)

    def after(self, delay: float, fn: Callable[[], None]) -> TimerHandle:
        """Call fn once, `delay` seconds from now."""
        return self._clock().after(delay, fn)

    def record(self, name: str, value: float) -> None:
        """Append a metric sample (time, node, name, value) to the run's trace."""
        self._clock().record(name, value)
