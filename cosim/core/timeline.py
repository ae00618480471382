"""The coordinator's event queue: integer-ns times, ordered by (time, priority, sequence)."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from enum import IntEnum

import numpy as np

from cosim.core.timer_rings import Rings, Role, TimerRings, fire_python
from jit.calls import bound_overload


class Priority(IntEnum):
    """Order of kinds of events that fall on the same nanosecond (lower runs first)."""

    PHYSICS_STEP = 0  # the world reaches this time; on quantum boundaries positions then go to the network
    TIMER = 2  # controller timers and applications
    SAMPLE = 3  # trace sampling sees everything that happened at this time
    LATCH = 9  # commands issued at this time become the ones the next step integrates


Entry = tuple[int, int, int, Callable[[], None]]
_TIMER = int(Priority.TIMER)


class EventQueue:
    """A min-heap of (t_ns, priority, seq, action); seq breaks ties so runs repeat exactly. Periodic
    timers wait in rings (cosim.core.timer_rings); the earliest Python ring's head is one more event,
    kept beside the heap (it changes at every firing). Heap and rings are the queue's own: others use
    the methods below."""

    __slots__ = ("_actions", "_alive", "_args", "_fire", "_fire_bound", "_heap", "_ring", "_ring_entry", "_rings", "_seq",
                 "_unsettled")

    def __init__(self, alive: np.ndarray | None = None) -> None:
        """`alive`: per node whether it lives (a dead node's periodic timers stop); none: no nodes."""
        self._heap: list[Entry] = []
        self._seq = itertools.count()
        self._alive = np.zeros(0, bool) if alive is None else alive
        self._rings = TimerRings()
        self._ring = -1  # the Python ring whose head is the event _ring_entry
        self._ring_entry: Entry | None = None
        self._actions = self._rings.actions
        self._args: tuple = ()  # the rings' blocks, state and `alive`: fire_python's first arguments
        self._fire: Callable[..., tuple] = self._first_fire
        self._fire_bound = self._fire_ring  # one bound method for every requeue of the rings' event
        self._unsettled = False  # timers were added since the rings were last built

    def push(self, t_ns: int, priority: int, action: Callable[[], None]) -> None:
        heapq.heappush(self._heap, (t_ns, priority, next(self._seq), action))

    def every(self, t_ns: int, period_ns: int, node: int, action: Callable[[], None]) -> None:
        """A timer calling `action` at t_ns and every period_ns after, while node (-1: none) lives;
        numbered now, as a push would be. It joins the rings at the next look at the queue."""
        self._rings.add(t_ns, next(self._seq), period_ns, node, action)
        self._unsettled = True

    def cancel(self, action: Callable[[], None]) -> None:
        """Stop the periodic timer calling `action` (it leaves at its next time, an event as before)."""
        self._rings.drop(action)

    @property
    def rings(self) -> Rings:
        """The rings' record, settled (a fused loop steps the rings `run_as` gave it, in place)."""
        self._settle()
        return self._rings.record

    def run_as(self, role: Role) -> None:
        """Rings by the kinds `role` gives (a fused loop runs the ones not PYTHON); Python's head requeued."""
        self._unsettled = False
        self._rings.run_as(role)
        self._requeue_ring()

    def _settle(self) -> None:
        if self._unsettled:
            self._unsettled = False
            self._rings.settle()
            self._requeue_ring()

    def _requeue_ring(self) -> None:
        """The earliest Python ring's head as the rings' event (after they were rebuilt)."""
        R = self._rings.record
        self._args = (R.slots, R.rings, R.state, self._alive)
        self._actions = self._rings.actions
        self._ring, t, seq = self._rings.head()
        self._ring_entry = None if self._ring < 0 else (t, _TIMER, seq, self._fire_bound)

    def _fire_ring(self) -> None:
        """The Python rings' head fires (queued again with the next sequence number unless it left),
        the next head is queued, then its action runs."""
        n = next(self._seq)
        k, self._ring, t, seq = self._fire(*self._args, self._ring, n)
        if k < 0:
            self._seq = itertools.count(n)  # it left: the number was not taken
        self._ring_entry = (t, _TIMER, seq, self._fire_bound) if self._ring >= 0 else None
        if k >= 0:
            self._actions[k]()

    def _first_fire(self, *args: object) -> tuple:
        """fire_python through its dispatcher once, then its machine code for these types (jit.calls)."""
        out = fire_python(*args)
        self._fire = bound_overload(fire_python, args)
        return out

    def next_seq(self) -> int:
        """The sequence number the next push gets (an engine that queues events itself continues it)."""
        n = next(self._seq)
        self._seq = itertools.count(n)
        return n

    def resume_seq(self, n: int) -> None:
        """Number the next push `n` (after an engine that queued events itself has used those before it)."""
        self._seq = itertools.count(n)

    def pop(self) -> Entry:
        if self._unsettled:
            self._settle()
        ring = self._ring_entry
        heap = self._heap
        if ring is not None and (not heap or ring < heap[0]):
            self._ring_entry = None  # its action (_fire_ring) sets the next
            return ring
        return heapq.heappop(heap)

    def peek(self) -> Entry | None:
        """The first event, left in the queue; None when it is empty."""
        self._settle()
        ring = self._ring_entry
        heap = self._heap
        if ring is not None and (not heap or ring < heap[0]):
            return ring
        return heap[0] if heap else None

    def peek_time(self) -> int | None:
        if self._unsettled:
            self._settle()
        ring = self._ring_entry
        heap = self._heap
        if heap:
            first = heap[0]
            return ring[0] if ring is not None and ring < first else first[0]
        return None if ring is None else ring[0]

    def take(self, select: Callable[[Entry], bool]) -> list[Entry]:
        """Remove the events `select` picks (an engine that runs them itself) and return them, in no
        order; the rings' event is not among them (an engine takes the rings with `run_as`)."""
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
        The next event after the first is one of its two children in the heap, or the rings' event."""
        self._settle()
        heap = self._heap
        ring = self._ring_entry
        if not heap or heap[0][3] is not tick or heap[0][0] != t_ns + dt_ns or (ring is not None and ring < heap[0]):
            return 0
        limit = end_ns
        for t, priority, *_ in [heap[k] for k in (1, 2) if k < len(heap)] + ([ring] if ring is not None else []):
            limit = min(limit, t if priority > Priority.PHYSICS_STEP else t - 1)  # a tick at t runs first
        return max(0, (limit - t_ns) // dt_ns)

    def __len__(self) -> int:
        """Events queued (the rings count as one while any Python ring lives)."""
        self._settle()
        return len(self._heap) + (self._ring_entry is not None)
