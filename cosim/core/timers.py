"""Timers on the coordinator's queue: one-shot or periodic callbacks for one node."""

from __future__ import annotations

from collections.abc import Callable

from cosim.core.clock import Clock
from cosim.core.timeline import Priority

_TIMER = int(Priority.TIMER)


class Timer:
    """A one-shot or periodic callback for `node` (-1: none, e.g. a group controller's, which no
    robot's death stops); `cancel()` stops it. A dead node's timers stop. A periodic timer waits in
    the queue's rings, which call the timer itself when it is due (cosim.core.timer_rings)."""

    __slots__ = ("_alive", "_clock", "_fn", "_node", "_period", "_who", "cancelled")

    def __init__(self, clock: Clock, alive: list[bool], fn: Callable[[], None], first_ns: int, period_ns: int,
                 node: int) -> None:
        self._clock = clock
        self._fn = fn
        self._period = period_ns
        self._node = node
        self._who = node if node >= 0 else None  # what clock.current_node says while it runs
        self._alive = alive
        self.cancelled = False
        if period_ns:
            clock.queue.every(first_ns, period_ns, node, self)
        else:
            clock.queue.push(first_ns, _TIMER, self._fire)

    def cancel(self) -> None:
        self.cancelled = True
        if self._period:
            self._clock.queue.cancel(self)

    @property
    def callback(self) -> Callable[[], None]:
        """What the timer calls."""
        return self._fn

    @property
    def period_ns(self) -> int:
        """The period (ns; 0 for a one-shot timer)."""
        return self._period

    def __call__(self) -> None:
        """The periodic timer is due: its callback runs as its node's (the rings have checked that it
        was not cancelled and that its node lives)."""
        self._clock.current_node = self._who
        self._fn()

    def _fire(self) -> None:
        if self.cancelled or (self._node >= 0 and not self._alive[self._node]):
            return
        self._clock.current_node = self._who
        self._fn()
