"""Timers on the coordinator's queue: one-shot or periodic callbacks for one node."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cosim.core.timeline import Priority

if TYPE_CHECKING:
    from cosim.core.coordinator import Simulation

_TIMER = int(Priority.TIMER)


class Timer:
    """A one-shot or periodic callback for `node`; `cancel()` stops it. A dead node's timers stop."""

    __slots__ = ("_alive", "_fire_bound", "_fn", "_node", "_period", "_push", "_sim", "_t", "cancelled")

    def __init__(self, sim: Simulation, fn: Callable[[], None], first_ns: int, period_ns: int, node: int) -> None:
        self._sim = sim
        self._fn = fn
        self._period = period_ns
        self._node = node
        self._t = first_ns
        self._push = sim.queue.push
        self._alive = sim.alive_list
        self.cancelled = False
        self._fire_bound = self._fire  # one bound method, reused for every reschedule
        self._push(first_ns, _TIMER, self._fire_bound)

    def cancel(self) -> None:
        self.cancelled = True

    @property
    def callback(self) -> Callable[[], None]:
        """What the timer calls."""
        return self._fn

    @property
    def period_ns(self) -> int:
        """The period (ns; 0 for a one-shot timer)."""
        return self._period

    def _fire(self) -> None:
        if self.cancelled or not self._alive[self._node]:
            return
        if self._period:
            self._t += self._period
            self._push(self._t, _TIMER, self._fire_bound)
        self._sim.current_node = self._node
        self._fn()


class GroupTimer(Timer):
    """A timer of a group controller: it belongs to no single robot, so no robot's death stops it."""

    __slots__ = ()

    def _fire(self) -> None:
        if self.cancelled:
            return
        if self._period:
            self._t += self._period
            self._push(self._t, _TIMER, self._fire_bound)
        self._sim.current_node = None
        self._fn()
