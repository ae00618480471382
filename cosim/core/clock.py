"""The run's clock: simulated time, whose code runs now, and the queue of what happens next. What
timers, samplers, stacks and extensions need of the coordinator to schedule and to report."""

from __future__ import annotations

from cosim.core.timeline import EventQueue


class Clock:
    """`now_ns`: the simulated time (ns) of what runs now, which the loop sets; `current_node`: the
    node whose code runs (None: none, as between events), for error reports and records; `queue`:
    the timeline's events."""

    __slots__ = ("current_node", "now_ns", "queue")

    def __init__(self, queue: EventQueue) -> None:
        self.now_ns = 0
        self.current_node: int | None = None
        self.queue = queue
