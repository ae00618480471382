"""`ControllerBase`: what every controller has, whether it programs one robot (`Controller`) or a
whole group (`GroupController`): parameters, a period, a seeded random stream, timers, metric
records, and the `setup` and `step` hooks. Times at this API are float seconds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from controllers.api.services import Services, TimerHandle


class Unbound(RuntimeError):
    """A controller's robot, group, net or timers were used before the coordinator bound it."""


class ControllerBase:
    """The part of a controller that does not depend on what it commands; subclass `Controller` or
    `GroupController`, not this."""

    @dataclass(frozen=True)
    class Params:
        pass

    period: ClassVar[float | None] = 0.1
    """Default seconds between `step()` calls; None means no periodic step. The scenario may override."""

    def __init__(self, params: Any = None) -> None:
        self.params = params if params is not None else type(self).Params()
        self._rng: np.random.Generator | None = None
        self._services: Services | None = None
        self.log = logging.getLogger(f"{type(self).__module__}.{type(self).__name__}")

    @classmethod
    def steps(cls) -> bool:
        """True when the class overrides `step` (it is then called every period)."""
        return cls.step is not ControllerBase.step

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
            raise self._unbound("timers", "are")
        return services

    def _unbound(self, what: str, verb: str = "is") -> Unbound:
        return Unbound(f"{type(self).__name__}: {what} {verb} available from setup() on, once the controller is bound")

    # -- hooks -------------------------------------------------------------------------------
    def setup(self) -> None:
        """Called once at time 0, before any step."""

    def step(self) -> None:
        """Called every `period` seconds."""

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
        """Append a metric sample (time, node, name, value) to the run's trace (a group's: node -1)."""
        self._clock().record(name, value)
