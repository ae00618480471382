"""The coordinator's event queue: integer-ns times, ordered by (time, priority, sequence)."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from enum import IntEnum


class Priority(IntEnum):
    """Order of kinds of events that fall on the same nanosecond (lower runs first)."""

    PHYSICS_STEP = 0  # the world reaches this time; on quantum boundaries positions then go to the network
    TIMER = 2  # controller timers and applications
    SAMPLE = 3  # trace sampling sees everything that happened at this time
    LATCH = 9  # commands issued at this time become the ones the next step integrates


class EventQueue:
    """A min-heap of (t_ns, priority, seq, action); seq breaks ties so runs repeat exactly."""

    __slots__ = ("_heap", "_seq")

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, int, Callable[[], None]]] = []
        self._seq = itertools.count()

    def push(self, t_ns: int, priority: int, action: Callable[[], None]) -> None:
        heapq.heappush(self._heap, (t_ns, priority, next(self._seq), action))

    def pop(self) -> tuple[int, int, int, Callable[[], None]]:
        return heapq.heappop(self._heap)

    def peek_time(self) -> int | None:
        return self._heap[0][0] if self._heap else None

    def __len__(self) -> int:
        return len(self._heap)
