"""Timers, the clock and metrics: what runs a controller's code in time (simulated or wall clock)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from netstack.routing.base import TimerHandle

__all__ = ["Services", "TimerHandle"]


@runtime_checkable
class Services(Protocol):
    """The clock, timers and metric sink behind a controller's `now`, `every`, `after` and `record`;
    the coordinator implements it on simulated time, the MAVLink adapter on the wall clock."""

    def now_s(self) -> float:
        """The time now in seconds: simulated (the coordinator's clock) or wall (the MAVLink adapter's)."""
    def every(self, period_s: float, fn: Callable[[], None], phase_s: float | None = None) -> TimerHandle:
        """Call `fn` every `period_s` seconds (> 0), first after `phase_s` (None: a phase drawn from the
        run's seeded streams, so robots do not tick in lock-step); the handle cancels it."""
    def after(self, delay_s: float, fn: Callable[[], None]) -> TimerHandle:
        """Call `fn` once, `delay_s` seconds (>= 0) from now; the handle cancels it."""
    def record(self, name: str, value: float) -> None:
        """One sample of metric `name` at the time now, for this robot (a group's: node -1), in the
        run's metrics table."""
