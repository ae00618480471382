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
    """A min-heap of (t_ns, priority, seq, action); seq breaks ties so runs repeat exactly. The heap
    is the queue's own: others push, peek, pop and take events through the methods below."""

    __slots__ = ("_heap", "_seq")

    def __init__(self) -> None:
        self._heap: list[Entry] = []
        self._seq = itertools.count()

    def push(self, t_ns: int, priority: int, action: Callable[[], None]) -> None:
        heapq.heappush(self._heap, (t_ns, priority, next(self._seq), action))

    def next_seq(self) -> int:
        """The sequence number the next push gets (an engine that queues events itself continues it)."""
        n = next(self._seq)
        self._seq = itertools.count(n)
        return n

    def resume_seq(self, n: int) -> None:
        """Number the next push `n` (after an engine that queued events itself has used those before it)."""
        self._seq = itertools.count(n)

    def pop(self) -> Entry:
        return heapq.heappop(self._heap)

    def peek(self) -> Entry | None:
        """The first event, left in the queue; None when it is empty."""
        return self._heap[0] if self._heap else None

    def peek_time(self) -> int | None:
        return self._heap[0][0] if self._heap else None

    def take(self, select: Callable[[Entry], bool]) -> list[Entry]:
        """Remove the events `select` picks (an engine that runs them itself) and return them, in no order."""
        taken: list[Entry] = []
        kept: list[Entry] = []
        for entry in self._heap:
            (taken if select(entry) else kept).append(entry)
        if taken:
            self._heap[:] = kept
            heapq.heapify(self._heap)
        return taken

    def quiet_ticks(self, t_ns: int, dt_ns: int, end_ns: int, tick: Callable[[], None]) -> int:
        """How many physics ticks from t_ns + dt_ns on can run back to back, nothing else queued before
        the last of them (0 unless the first event is `tick` at t_ns + dt_ns); at most up to end_ns.
        The next event after the first is one of its two children in the heap."""
        heap = self._heap
        if not heap or heap[0][3] is not tick or heap[0][0] != t_ns + dt_ns:
            return 0
        limit = end_ns
        for k in (1, 2):
            if k < len(heap):
                t, priority = heap[k][0], heap[k][1]
                limit = min(limit, t if priority > Priority.PHYSICS_STEP else t - 1)  # a tick at t runs first
        return max(0, (limit - t_ns) // dt_ns)

    def __len__(self) -> int:
        return len(self._heap)
