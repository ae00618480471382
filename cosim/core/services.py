"""Per-node services the coordinator gives a controller: the clock, timers and metrics (`controllers.Services`)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from cosim.core.clock import Clock
from cosim.core.recorder import Recorder
from cosim.core.timers import Timer
from cosim.core.timeunits import NS_PER_S

MAX_SECONDS = 9.2e9
"""The longest period or delay a timer takes (s): int64 nanoseconds reach about 9.22e9 s."""


def _seconds_to_ns(value: float, what: str) -> int:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number of seconds, got {value!r}")
    if abs(value) > MAX_SECONDS:
        raise ValueError(f"{what} must be at most {MAX_SECONDS:.3g} s (time is kept in int64 nanoseconds), got {value!r}")
    return round(value * NS_PER_S)


def _require_callable(call: str, fn: object) -> None:
    if not callable(fn):
        raise TypeError(f"{call}: fn must be callable (a function or a method, called with no arguments), got {fn!r}")


class SimServices:
    """Implements controllers.Services for one node, on simulated time."""

    __slots__ = ("_alive", "_clock", "_recorder", "_rng", "node")

    def __init__(self, clock: Clock, alive: list[bool], recorder: Recorder, node: int, rng: np.random.Generator) -> None:
        self._clock = clock
        self._alive = alive
        self._recorder = recorder
        self.node = node
        self._rng = rng  # timer phases only, so user draws do not shift them

    def now_s(self) -> float:
        return self._clock.now_ns / NS_PER_S

    def every(self, period_s: float, fn: Callable[[], None], phase_s: float | None = None) -> Timer:
        period = _seconds_to_ns(period_s, "period")
        if period <= 0:
            raise ValueError(f"period must be > 0 seconds, got {period_s!r}")
        return self.every_ns(period, fn, None if phase_s is None else _seconds_to_ns(phase_s, "phase"))

    def every_ns(self, period: int, fn: Callable[[], None], phase: int | None) -> Timer:
        _require_callable("every", fn)
        if phase is None:
            phase = int(self._rng.integers(0, period))
        elif not 0 <= phase:
            raise ValueError(f"phase must be >= 0, got {phase} ns")
        return Timer(self._clock, self._alive, fn, self._clock.now_ns + phase, period, self.node)

    def after(self, delay_s: float, fn: Callable[[], None]) -> Timer:
        delay = _seconds_to_ns(delay_s, "delay")
        if delay < 0:
            raise ValueError(f"delay must be >= 0 seconds, got {delay_s!r}")
        _require_callable("after", fn)
        return Timer(self._clock, self._alive, fn, self._clock.now_ns + delay, 0, self.node)

    def record(self, name: str, value: float) -> None:
        self._recorder.record(self._clock.now_ns, self.node, name, value)


class GroupServices(SimServices):
    """Clock, timers and metrics of a group controller: its timers outlive any one robot, and its
    `record` samples belong to the group (node -1 in the trace)."""

    __slots__ = ()

    def __init__(self, clock: Clock, alive: list[bool], recorder: Recorder, rng: np.random.Generator) -> None:
        super().__init__(clock, alive, recorder, -1, rng)
