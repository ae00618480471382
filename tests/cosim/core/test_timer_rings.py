"""The queue's periodic timers (rings) fire exactly as one heap of timers that requeue themselves would."""

import heapq
import itertools

import numpy as np
import pytest

from cosim.core.timeline import EventQueue, Priority
from cosim.core.timer_rings import INF, PYTHON, build

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1
TIMER = int(Priority.TIMER)


class HeapTimers:
    """The reference: every timer an entry of one heap, requeued (the next number) before it runs."""

    def __init__(self, alive):
        self.heap, self.seq, self.alive, self.cancelled = [], itertools.count(), alive, set()

    def every(self, t, period, node, name):
        heapq.heappush(self.heap, (t, TIMER, next(self.seq), (period, node, name)))

    def push(self, t, name):
        heapq.heappush(self.heap, (t, TIMER, next(self.seq), (0, -1, name)))

    def pop(self):
        t, _, seq, (period, node, name) = heapq.heappop(self.heap)
        if name in self.cancelled or (node >= 0 and not self.alive[node]):
            return t, seq, None
        if period:
            heapq.heappush(self.heap, (t + period, TIMER, next(self.seq), (period, node, name)))
        return t, seq, name


def _scenario(seed):
    """Timers of a few periods, phases up to three periods, for robots and for none (-1), some started
    while the run goes, some cancelled, some robots dying; one-shot events between."""
    rng = np.random.default_rng(seed)
    n = 12
    starts = [(int(rng.integers(0, 300)) if rng.random() < 0.3 else 0, int(rng.choice([40, 70, 100])),
               int(rng.integers(0, 300)), int(rng.integers(-1, n))) for _ in range(40)]
    deaths = {int(rng.integers(0, 2000)): int(rng.integers(0, n)) for _ in range(5)}
    cancels = {int(rng.integers(0, 2000)): int(rng.integers(0, 40)) for _ in range(5)}
    shots = [int(rng.integers(0, 2000)) for _ in range(30)]
    return n, starts, deaths, cancels, shots


def _run(queue_like, n, starts, deaths, cancels, shots, alive, every, cancel):
    """Fire everything up to t = 2000, starting, cancelling and killing along the way: the (time,
    sequence, name) of each firing, in order."""
    seen, started = [], set()
    for name, (at, period, phase, node) in enumerate(starts):
        if at == 0:
            every(phase, period, node, name)
            started.add(name)
    for s in shots:
        queue_like.push(s, f"shot{s}")
    while True:
        t, seq, name = queue_like.pop()
        if t > 2000:
            return seen
        if name is not None:
            seen.append((t, seq, name))
        for when, node in deaths.items():
            if when <= t:
                alive[node] = False
        for when, victim in cancels.items():
            if when <= t and victim in started:
                cancel(victim)
        for name, (at, period, phase, node) in enumerate(starts):
            if at and at <= t and name not in started:
                every(t + phase, period, node, name)
                started.add(name)


class RingQueue:
    """The queue under test, with the same surface as HeapTimers."""

    def __init__(self, alive):
        self.q, self.actions, self.fired = EventQueue(alive), {}, []

    def every(self, t, period, node, name):
        def action(name=name):
            self.fired.append(name)
        self.actions[name] = action
        self.q.every(t, period, node, action)

    def cancel(self, name):
        self.q.cancel(self.actions[name])

    def push(self, t, name):
        self.q.push(t, TIMER, lambda: self.fired.append(name))

    def pop(self):
        t, _, seq, action = self.q.pop()
        before = len(self.fired)
        action()
        return t, seq, self.fired[-1] if len(self.fired) > before else None


@pytest.mark.parametrize("seed", range(12))
def test_rings_fire_as_a_heap_of_self_requeuing_timers(seed):
    n, starts, deaths, cancels, shots = _scenario(seed)
    ref_alive, alive = np.ones(n, bool), np.ones(n, bool)
    ref = HeapTimers(ref_alive)
    want = _run(ref, n, starts, deaths, cancels, shots, ref_alive, ref.every, ref.cancelled.add)
    ours = RingQueue(alive)
    got = _run(ours, n, starts, deaths, cancels, shots, alive, ours.every, ours.cancel)
    assert len(want) > 200
    assert got == want


def test_rings_are_cut_where_their_times_would_span_more_than_a_period():
    t = np.array([0, 5, 10, 12, 30, 31], np.int64)
    seq = np.arange(6, dtype=np.int64)
    period = np.array([10, 10, 10, 10, 10, 20], np.int64)
    kind = np.full(6, PYTHON, np.int64)
    rings, order = build(t, seq, np.zeros(6, np.int64), period, kind, np.zeros(6, np.int64), 6)
    assert rings.start.tolist() == [0, 3, 4, 5] and rings.length.tolist() == [3, 1, 1, 1]  # 0..10 | 12 | 30 | 31
    assert rings.period.tolist() == [10, 10, 10, 20] and order.tolist() == [0, 1, 2, 3, 4, 5]
    assert rings.state.tolist() == [6] and INF > t.max()


def test_a_dead_nodes_timer_leaves_its_ring_and_the_ring_goes_on():
    alive = np.ones(3, bool)
    q = EventQueue(alive)
    fired = []
    for node in range(3):
        q.every(node, 10, node, lambda node=node: fired.append(node))
    for _ in range(3):
        q.pop()[3]()
    alive[1] = False  # slot 1 leaves when it comes up, then 0 and 2 carry on
    alive[0] = False
    for _ in range(6):
        q.pop()[3]()
    assert fired == [0, 1, 2, 2, 2, 2, 2]  # 0 and 1 are due at 10 and 11 (events, no calls), 2 at 12, 22, 32, 42
