"""`Controller`: the one class users subclass to program a robot, in simulation or on hardware.

A controller gets `robot` (pose, velocity, commands, sensors: `controllers.Robot`), `net` (send,
broadcast, neighbours, routes: `controllers.Net`), timers (`every`, `after`), a seeded `rng`, and
`record(name, value)`. Hooks: `setup()` once at time 0, `step()` every `period` seconds,
`on_message(msg)` for each message received, `on_outcome(outcome)` for each unicast it sent once its
MAC knows whether it was acknowledged. Times and periods at this API are float seconds;
inside, the coordinator keeps integer nanoseconds.

What it shares with `GroupController` (params, period, timers, rng, record, setup, step) lives in
`controllers.api.base.ControllerBase`.

Parameters: declare a dataclass named `Params` inside the subclass; the scenario's `params` mapping
is checked against it (unknown keys and wrong types are errors) and the instance is `self.params`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from controllers.api.base import ControllerBase, Unbound
from controllers.api.messages import Message, Outcome
from controllers.api.net import Net
from controllers.api.robot import Robot
from controllers.api.services import Services

__all__ = ["Controller", "Unbound"]


class Controller(ControllerBase):
    """Base class for robot programs; override `setup`, `step`, `on_message`."""

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self.id: int = -1
        self._robot: Robot | None = None
        self._net: Net | None = None

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
    def hears_outcomes(cls) -> bool:
        """True when the class overrides `on_outcome` (the network then stops at its sends' outcomes)."""
        return cls.on_outcome is not Controller.on_outcome

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

    # -- hooks -------------------------------------------------------------------------------
    def on_message(self, msg: Message) -> None:
        """Called at the exact receive time of each frame addressed to (or broadcast near) this node."""

    def on_outcome(self, outcome: Outcome) -> None:
        """Called when the MAC knows what became of a unicast this node sent: acknowledged, or given up
        and why (a closed-loop source sends its next frame here). Not with a routing protocol, whose
        own acknowledgements these are."""

    def save_state(self) -> dict[str, Any] | None:
        """The program's state at the end of a run, for the run's final_state.json (numbers, strings,
        lists and dicts; None: nothing to keep)."""
        return None

    def restore_state(self, state: dict[str, Any]) -> None:
        """Called after `setup` with what `save_state` returned, when the scenario starts from a state
        file (`initial_state`). Override it in controllers that save state."""
        raise NotImplementedError(f"{type(self).__name__} does not implement restore_state(), but the initial "
                                  "state file has program state for this robot")
