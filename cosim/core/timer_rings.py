"""Periodic timers as rings: the one record of the queue's periodic timers, and its compiled kernels.

Timers of one period whose next times lie within one period of each other keep their cyclic order
forever: each fires, then waits a period with the queue's next sequence number, which puts it behind
all the others. So a ring is a fixed cycle of slots, and the next timer of all is the earliest of the
rings' heads. The event loop fires them one at a time (EventQueue keeps the earliest Python ring's
head among its events); the fused loop fires the rings it runs itself many to a call.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable

import numpy as np
from numba import njit

from jit.borrow import borrow

INF = np.iinfo(np.int64).max
PYTHON = 0
"""The kind of a ring whose timers Python runs (every ring, under the event loop)."""

Rings = namedtuple("Rings", ["t", "seq", "node", "off", "arg", "start", "length", "cur", "period", "kind", "live",
                             "state", "slots", "rings"])
"""Per slot its next time (ns; INF once dropped), sequence number, node (-1: none, e.g. a group's
timer; a fused ring: the robot or group it runs), whether it was cancelled, and an argument (a
compiled controller's timer number); per ring its first slot, length, head (offset from the first),
period (ns), kind (PYTHON or a fused loop's) and live slots; state = [the next sequence number].
The per-slot arrays are the rows of one block, `slots`, and the per-ring ones of `rings` (a call
from Python then unpacks two arrays, not eleven)."""


@njit(cache=True, inline="always")
def next_timer(tt: np.ndarray, ts: np.ndarray, start: np.ndarray, cur: np.ndarray, live: np.ndarray, kind: np.ndarray,
               python: bool) -> int:
    """The ring whose head runs first, earliest time then earliest queued, among the PYTHON rings
    (python) or the others; -1 if none. (The arrays come one by one: a tuple's field costs a reference count.)"""
    best = -1
    bt = INF
    bs = INF
    for r in range(len(start)):
        if live[r] == 0 or (kind[r] == PYTHON) != python:
            continue
        k = start[r] + cur[r]
        if tt[k] < bt or (tt[k] == bt and ts[k] < bs):
            best = r
            bt = tt[k]
            bs = ts[k]
    return best


@njit(cache=True, inline="always")
def other_rings(tt: np.ndarray, ts: np.ndarray, start: np.ndarray, cur: np.ndarray, live: np.ndarray, ring: int) -> tuple:
    """(time, sequence) of the earliest head of every ring but `ring`, of any kind (INF, INF if none)."""
    bt = INF
    bs = INF
    for r in range(len(start)):
        if r != ring and live[r]:
            k = start[r] + cur[r]
            if tt[k] < bt or (tt[k] == bt and ts[k] < bs):
                bt = tt[k]
                bs = ts[k]
    return bt, bs


@njit(cache=True, inline="always")
def advance_ring(tt: np.ndarray, ts: np.ndarray, tn: np.ndarray, off: np.ndarray, start: np.ndarray, length: np.ndarray,
                 cur: np.ndarray, period: np.ndarray, live: np.ndarray, state: np.ndarray, r: int, alive: np.ndarray) -> int:
    """Ring r's head fires: queued again a period later with the next sequence number, unless it was
    cancelled or its node is dead (then it leaves the ring for good). Returns its slot, or -1 if it left."""
    k = start[r] + cur[r]
    cur[r] = cur[r] + 1 if cur[r] + 1 < length[r] else 0
    i = tn[k]
    if off[k] or (i >= 0 and not alive[i]):
        tt[k] = INF
        live[r] -= 1
        while live[r] and tt[start[r] + cur[r]] == INF:  # the ring's head is its next live slot
            cur[r] = cur[r] + 1 if cur[r] + 1 < length[r] else 0
        return -1
    tt[k] += period[r]
    ts[k] = state[0]
    state[0] += 1
    if live[r] < length[r]:
        while tt[start[r] + cur[r]] == INF:
            cur[r] = cur[r] + 1 if cur[r] + 1 < length[r] else 0
    return k


@njit(cache=True)
def fire_python(slots: np.ndarray, rings: np.ndarray, state: np.ndarray, alive: np.ndarray, r: int, seq: int) -> tuple:
    """Python ring r's head fires (advance_ring), requeued as number `seq`; returns its slot (-1: it
    left, the number not taken), and the next Python ring with its head's time and sequence number
    (-1, INF, INF if none); with r = -1 nothing fires, the next is only found. `slots` and `rings`
    are the record's blocks (borrowed: their eleven views then count no references)."""
    slots, rings, state, alive = borrow((slots, rings, state, alive))
    tt = slots[0]
    ts = slots[1]
    tn = slots[2]
    off = slots[3]
    start = rings[0]
    length = rings[1]
    cur = rings[2]
    period = rings[3]
    kind = rings[4]
    live = rings[5]
    k = -1
    if r >= 0:
        state[0] = seq
        k = advance_ring(tt, ts, tn, off, start, length, cur, period, live, state, r, alive)
    nxt = next_timer(tt, ts, start, cur, live, kind, True)
    if nxt < 0:
        return k, -1, INF, INF
    h = start[nxt] + cur[nxt]
    return k, nxt, tt[h], ts[h]


Role = Callable[[Callable[[], None], int], tuple[int, int, int]]
"""How a loop runs a timer, given its action and node: (kind, the node or group the loop runs it
for, argument); kind PYTHON for what Python runs."""


def python_role(action: Callable[[], None], node: int) -> tuple[int, int, int]:
    """The event loop's: Python runs every timer, for its own node."""
    return PYTHON, node, 0


def build(t: np.ndarray, seq: np.ndarray, node: np.ndarray, period: np.ndarray, kind: np.ndarray, arg: np.ndarray,
          next_seq: int) -> tuple[Rings, np.ndarray]:
    """Rings of the live slots given: grouped by (period, kind), each group in (time, sequence) order
    cut wherever its times would span more than a period. Returns them and, per new slot, the given
    slot it holds (to carry the actions along)."""
    order = np.lexsort((seq, t, kind, period))
    t = t[order]
    seq = seq[order]
    period = period[order]
    kind = kind[order]
    n = len(order)
    first = np.zeros(n, bool)
    if n:
        first[0] = True
        same = (period[1:] == period[:-1]) & (kind[1:] == kind[:-1])
        first[1:] = ~same
        begin = 0
        for j in range(1, n):  # a cut where the span from the ring's first slot passes a period
            if first[j] or t[j] - t[begin] > period[j]:
                first[j] = True
                begin = j
    starts = np.flatnonzero(first)
    lengths = np.diff(np.append(starts, n))
    slots = np.stack([t, seq, node[order], np.zeros(n, np.int64), arg[order]]).astype(np.int64).reshape(5, n)
    per_ring = np.stack([starts, lengths, np.zeros(len(starts), np.int64), period[starts], kind[starts], lengths])
    per_ring = np.ascontiguousarray(per_ring.astype(np.int64).reshape(6, len(starts)))
    return Rings(*slots, *per_ring, np.array([next_seq], np.int64), slots, per_ring), order


def empty() -> Rings:
    z = np.zeros(0, np.int64)
    return build(z, z, z, z, z, z, 0)[0]


class TimerRings:
    """The queue's periodic timers: the rings' record, each slot's action, and the timers started
    since the rings were last built (`add`), which join them at the next `settle`."""

    def __init__(self) -> None:
        self.record = empty()
        self.actions: list[Callable[[], None]] = []
        self._nodes = np.zeros(0, np.int64)  # each slot's node as its timer has it (a fused role may replace it)
        self._pending: list[tuple[int, int, int, int, Callable[[], None]]] = []
        self._slot: dict[Callable[[], None], int] = {}
        self._dropped: set[Callable[[], None]] = set()
        self._role: Role = python_role

    def add(self, t_ns: int, seq: int, period_ns: int, node: int, action: Callable[[], None]) -> None:
        """A periodic timer first due at t_ns with sequence number seq (the queue's), for node (-1: none)."""
        self._pending.append((t_ns, seq, period_ns, node, action))

    def drop(self, action: Callable[[], None]) -> None:
        """Cancel the timer running `action`: it leaves at its next time (still an event then)."""
        k = self._slot.get(action)
        if k is not None:
            self.record.off[k] = 1
        else:
            self._dropped.add(action)  # waiting to join: it joins cancelled

    def run_as(self, role: Role) -> None:
        """Give each timer the kind `role` says (a fused loop's; PYTHON: Python runs it), rings rebuilt."""
        self._role = role
        self.settle()

    def settle(self) -> None:
        """Rebuild the rings from their live slots and the timers added since, with the kinds of the
        current role (the record is new: a loop holding the old one takes it again)."""
        R = self.record
        add = self._pending
        live = np.flatnonzero(R.t != INF)  # (a cancelled slot stays until its time: it is an event then)
        acts = [self.actions[k] for k in live.tolist()] + [p[4] for p in add]
        nodes = np.concatenate([self._nodes[live], np.array([p[3] for p in add], np.int64)])
        t = np.concatenate([R.t[live], np.array([p[0] for p in add], np.int64)])
        seq = np.concatenate([R.seq[live], np.array([p[1] for p in add], np.int64)])
        period = np.concatenate([self._periods(live), np.array([p[2] for p in add], np.int64)])
        off = np.concatenate([R.off[live], np.array([p[4] in self._dropped for p in add], np.int8)])
        roles = np.array([self._role(a, n) for a, n in zip(acts, nodes.tolist(), strict=True)], np.int64).reshape(-1, 3)
        self.record, order = build(t, seq, roles[:, 1], period, roles[:, 0], roles[:, 2], int(R.state[0]))
        self.record.off[:] = off[order]
        self.actions = [acts[j] for j in order.tolist()]
        self._nodes = nodes[order]
        self._slot = {a: k for k, a in enumerate(self.actions)}
        self._pending, self._dropped = [], set()

    def _periods(self, slots: np.ndarray) -> np.ndarray:
        """Each slot's period (its ring's)."""
        R = self.record
        ring = np.repeat(np.arange(len(R.start)), R.length)
        return R.period[ring[slots]]

    def head(self) -> tuple[int, int, int]:
        """The first Python ring with its head's (time, sequence); (-1, INF, INF) if none."""
        R = self.record
        if not np.any((R.kind == PYTHON) & (R.live > 0)):  # (a fused run without Python timers loads no kernel here)
            return -1, INF, INF
        _, r, t, seq = fire_python(R.slots, R.rings, R.state, NO_NODES, -1, 0)
        return r, t, seq


NO_NODES = np.zeros(0, bool)
