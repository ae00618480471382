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


Entry = tuple[int, int, int, Callable[[], None]]


class EventQueue:
    """A min-heap of (t_ns, priority, seq, action); seq breaks ties so runs repeat exactly.

    `heap` is the list itself, public so the coordinator's loop can peek and pop it with `heapq`
    directly; everything else adds events with `push`."""

    __slots__ = ("_seq", "heap")

    def __init__(self) -> None:
        self.heap: list[Entry] = []
        self._seq = itertools.count()

    def push(self, t_ns: int, priority: int, action: Callable[[], None]) -> None:
        heapq.heappush(self.heap, (t_ns, priority, next(self._seq), action))

    def pop(self) -> Entry:
        return heapq.heappop(self.heap)

    def peek_time(self) -> int | None:
        return self.heap[0][0] if self.heap else None

    def __len__(self) -> int:
        return len(self.heap)
