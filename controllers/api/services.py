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

    def now_s(self) -> float: ...
    def every(self, period_s: float, fn: Callable[[], None], phase_s: float | None = None) -> TimerHandle: ...
    def after(self, delay_s: float, fn: Callable[[], None]) -> TimerHandle: ...
    def record(self, name: str, value: float) -> None: ...
