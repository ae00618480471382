"""The fast radio's state as two records and the compiled kernels over them: `Radio` (where the nodes
were at the last sync, each radio's busy-until time, the loss stream, the cell index) and `Flights`
(the frames in the air and their receivers). FastBackend calls the kernels one send and one delivery
at a time; cosim.fused_engine calls the same kernels on the same records many times per compiled call.
"""

from __future__ import annotations

import logging
from collections import namedtuple

import numpy as np
from numba import njit

from jit.borrow import borrow
from netstack.fast.cells import candidates, index
from netstack.fast.kernels import within

INF = np.iinfo(np.int64).max

log = logging.getLogger(__name__)

Radio = namedtuple("Radio", ["pos", "vel", "sync", "busy", "rng", "loss_p", "range_m", "limit", "latency_ns", "cells"])
"""The nodes' positions and velocities at the last sync (`sync`[0] ns), each radio's busy-until time
(ns), the loss stream (a typed list holding the run's Generator: jit.streams) and the probability of
losing a reception, the reach that sizes the cell index (netstack.fast.cells) and the distance a
receiver must be within (inf: the power decides), the delay from a frame's end to its arrival, and
the cell index."""

FLIGHT_FIELDS = ("arrive", "seq", "src", "tx", "payload", "start", "count", "live", "node", "dist", "lost", "shade",
                 "state", "due", "dst", "size")
POOL_FIELDS = ("node", "dist", "lost", "shade")
"""The receivers' pool; every other field but `state` has a row per slot."""
Flights = namedtuple("Flights", FLIGHT_FIELDS)
"""Frames in the air (slots) and their receivers (a pool: node, distance, lost by the loss draw, dB
taken off by obstacles); state = slots used, pool used, next seq, next tx id, earliest arrival, then
a delivery under way in the fused engine (its instant, -1 none; the next due slot's index, -1 before
its rows; the next receiver's offset in that slot; how many slots are due); `due` holds one instant's
arriving slots. Per slot also the destination (-1 broadcast, or a node), the payload's true length
and its first bytes (`payload`: as many as compiled receivers read, none for FastBackend alone)."""

SLOTS_USED = 0
POOL_USED = 1
NEXT_SEQ = 2
NEXT_TX = 3
EARLIEST = 4
DELIVERING = 5
DUE_SLOT = 6
DUE_ROW = 7
DUE_COUNT = 8
"""Flights.state by name: slots used, pool rows used, the next frame's sequence number and tx id, the
earliest arrival (INF: none); the fused engine's delivery under way: its instant (-1: none), the
index of the next due slot (-1: its rows not yet logged), the next receiver's offset in that slot,
and how many slots are due."""


def flights_of(n: int, width: int, slots: int = 0, pool: int = 0) -> Flights:
    """Room for frames in the air: `slots` frames and `pool` receivers (0: a few frames per node),
    `width` bytes of each payload; they grow as needed (roomy)."""
    slots = slots or 4 * n + 64
    pool = pool or max(64 * n, 1 << 16)
    i8 = np.int64
    return Flights(np.zeros(slots, i8), np.zeros(slots, i8), np.zeros(slots, i8), np.zeros(slots, i8),
                   np.zeros((slots, width), np.uint8), np.zeros(slots, i8), np.zeros(slots, i8), np.zeros(slots, np.bool_),
                   np.empty(pool, i8), np.empty(pool), np.empty(pool, np.bool_), np.zeros(pool),
                   np.array([0, 0, 0, 0, INF, -1, 0, 0, 0], i8), np.zeros(slots, i8), np.zeros(slots, i8),
                   np.zeros(slots, i8))


def resized(f: Flights, slots: int, pool: int, width: int) -> Flights:
    """A copy of `f` with room for `slots` frames, `pool` receivers and `width` bytes of each payload
    (each at least what `f` uses)."""
    grown = {}
    for name in FLIGHT_FIELDS:
        a = getattr(f, name)
        length = len(a) if name == "state" else pool if name in POOL_FIELDS else slots
        shape = (length, width) if name == "payload" else (length, *a.shape[1:])
        grown[name] = np.zeros(shape, a.dtype)
        if name == "payload":
            grown[name][:len(a), :min(width, a.shape[1])] = a[:, :width]
        else:
            grown[name][:len(a)] = a
    return Flights(**grown)


def roomy(f: Flights, n: int, launches: int = 1) -> Flights:
    """`f`, or a copy with twice the slots or receivers (as often as needed), so that at least half
    of each is free and `launches` frames of n receivers each fit."""
    compact(f)
    live = np.flatnonzero(f.live[:f.state[SLOTS_USED]])
    f.state[SLOTS_USED] = live[-1] + 1 if live.size else 0  # slots past the last frame in the air are free
    slots = len(f.live)
    pool = len(f.node)
    while f.state[SLOTS_USED] > slots // 2 or f.state[SLOTS_USED] + launches > slots:
        slots *= 2
    while f.state[POOL_USED] > pool // 2 - launches * n:
        pool *= 2
    if (slots, pool) == (len(f.live), len(f.node)):
        return f
    log.info("the fast radio's frames in the air grow to %d slots and %d receivers", slots, pool)
    return resized(f, slots, pool, f.payload.shape[1])


@njit(cache=True)
def sync(r: Radio, pos: np.ndarray, vel: np.ndarray, t_ns: int) -> None:
    """A position sync: the radio's copy of positions and velocities, then its cell index looks at them."""
    r, pos, vel = borrow((r, pos, vel))
    r.sync[0] = t_ns
    r.pos[:] = pos
    r.vel[:] = vel
    index(r.cells, r.pos, r.vel, r.range_m)


@njit(cache=True)
def reach(r: Radio, alive: np.ndarray, src: int, dst: int, start_ns: int, nodes: np.ndarray, dist: np.ndarray) -> int:
    """Alive nodes within the radio's limit of src at start_ns (for a broadcast the index's candidates,
    ascending; for a unicast only dst), with their distances. Returns how many."""
    r, alive, nodes, dist = borrow((r, alive, nodes, dist))
    dt = (start_ns - r.sync[0]) / 1e9
    cand = r.cells.cand
    if dst >= 0:
        cand[0] = dst
        m = 1
    else:
        m = candidates(r.cells, len(r.pos), src, dt)
    return within(r.pos, r.vel, dt, alive, cand, m, src, r.limit, nodes, dist)


@njit(cache=True)
def compact(f: Flights) -> None:
    """Move the receivers of frames still in the air to the front of the pool, in pool order: each
    moves only down, onto room already vacated (in slot order a reused low slot's receivers, sent
    later, would land on an older frame's not yet moved)."""
    live = np.flatnonzero(f.live[:f.state[SLOTS_USED]])
    used = 0
    for s in live[np.argsort(f.start[live], kind="mergesort")]:
        a = f.start[s]
        c = f.count[s]
        if a != used:
            f.node[used:used + c] = f.node[a:a + c].copy()
            f.dist[used:used + c] = f.dist[a:a + c].copy()
            f.lost[used:used + c] = f.lost[a:a + c].copy()
            f.shade[used:used + c] = f.shade[a:a + c].copy()
        f.start[s] = used
        used += c
    f.state[POOL_USED] = used


@njit(cache=True, inline="always")
def room(f: Flights, launches: int, n: int) -> bool:
    """Whether `launches` more frames find slots and receivers (n each at most), compacting the
    receivers first when they would not (inlined: the usual answer, yes, costs two comparisons)."""
    if f.state[POOL_USED] + launches * n > len(f.node):
        compact(f)
        if f.state[POOL_USED] + launches * n > len(f.node):
            return False
    if f.state[SLOTS_USED] + launches <= len(f.live):
        return True
    free = len(f.live) - f.state[SLOTS_USED]
    for s in range(f.state[SLOTS_USED]):
        free += not f.live[s]
    return free >= launches


@njit(cache=True)
def place(f: Flights, r: Radio, alive: np.ndarray, src: int, dst: int, size: int, airtime_ns: int, t_ns: int) -> int:
    """`_place`, for Python (FastBackend's sends whose receivers the power then judges)."""
    return _place(f, r, alive, src, dst, size, airtime_ns, t_ns)


@njit(cache=True, inline="always")
def _place(f: Flights, r: Radio, alive: np.ndarray, src: int, dst: int, size: int, airtime_ns: int, t_ns: int) -> int:
    """A frame into a free slot: it starts when src's radio is free and lasts airtime_ns; its
    receivers are those in reach at its start (none from a dead sender); it arrives `latency` after
    its end. No loss drawn yet (`draw`). Returns the slot (its payload is the caller's to write)."""
    f, r, alive = borrow((f, r, alive))
    n = len(r.pos)
    if f.state[POOL_USED] + n > len(f.node):
        compact(f)
        if f.state[POOL_USED] + n > len(f.node):  # callers make sure of room first (`room`, `roomy`): a defect if reached
            raise ValueError("the fast radio's pool of receivers is full")
    s = 0
    while s < f.state[SLOTS_USED] and f.live[s]:
        s += 1
    if s == len(f.live):
        raise ValueError("the fast radio has too many frames in the air")
    f.state[SLOTS_USED] = max(f.state[SLOTS_USED], s + 1)
    start = max(t_ns, r.busy[src])
    end = start + airtime_ns
    r.busy[src] = end
    a = f.state[POOL_USED]
    m = reach(r, alive, src, dst, start, f.node[a:], f.dist[a:]) if alive[src] else 0
    f.shade[a:a + m] = 0.0
    arrive = end + r.latency_ns
    f.arrive[s] = arrive
    f.seq[s] = f.state[NEXT_SEQ]
    f.src[s] = src
    f.tx[s] = f.state[NEXT_TX]
    f.dst[s] = dst
    f.size[s] = size
    f.state[NEXT_SEQ] += 1
    f.state[NEXT_TX] += 1
    f.start[s] = a
    f.count[s] = m
    f.live[s] = True
    f.state[POOL_USED] = a + m
    f.state[EARLIEST] = min(f.state[EARLIEST], arrive)
    return s


@njit(cache=True)
def draw(f: Flights, r: Radio, s: int) -> None:
    """`_draw`, for Python (after the power judged the receivers)."""
    _draw(f, r, s)


@njit(cache=True, inline="always")
def _draw(f: Flights, r: Radio, s: int) -> None:
    """The loss draws of slot s's receivers, in receiver order (one draw each when losses are on)."""
    f, r = borrow((f, r))
    for q in range(f.start[s], f.start[s] + f.count[s]):
        f.lost[q] = r.loss_p > 0.0 and r.rng[0].random() < r.loss_p


@njit(cache=True)
def launch(f: Flights, r: Radio, alive: np.ndarray, src: int, dst: int, size: int, airtime_ns: int, t_ns: int) -> int:
    """A frame whose receivers are all that are in reach (`place`), with their loss draws. Returns the slot."""
    f, r, alive = borrow((f, r, alive))
    s = _place(f, r, alive, src, dst, size, airtime_ns, t_ns)
    _draw(f, r, s)
    return s


@njit(cache=True)
def launch_many(f: Flights, r: Radio, alive: np.ndarray, srcs: np.ndarray, dsts: np.ndarray, sizes: np.ndarray,
                airtimes: np.ndarray, t_ns: int, slots: np.ndarray) -> int:
    """Frames launched one by one in order (`launch`), their slots into `slots`, while they find room.
    Returns how many were launched (the caller makes room for the rest)."""
    f, r, alive, srcs, dsts, sizes, airtimes, slots = borrow((f, r, alive, srcs, dsts, sizes, airtimes, slots))
    n = len(r.pos)
    for k in range(len(srcs)):
        if not room(f, 1, n):
            return k
        slots[k] = launch(f, r, alive, srcs[k], dsts[k], sizes[k], airtimes[k], t_ns)
    return len(srcs)


@njit(cache=True)
def arriving(f: Flights, t_ns: int) -> int:
    """The frames arriving at t_ns: their slots, in the order they were sent, go into f.due. Returns
    how many. They stay live (their slots and receivers kept from launches and compaction) until
    their delivery ends (`landed`): a robot may reply while others still receive them."""
    f = borrow(f)
    due = f.due
    live = f.live
    arrive = f.arrive
    seq = f.seq
    m = 0
    best = INF
    for s in range(f.state[SLOTS_USED]):
        if not live[s]:
            continue
        if arrive[s] == t_ns:
            v = s
            j = m - 1
            while j >= 0 and seq[due[j]] > seq[v]:  # insertion by sequence number
                due[j + 1] = due[j]
                j -= 1
            due[j + 1] = v
            m += 1
        elif arrive[s] < best:
            best = arrive[s]
    f.state[EARLIEST] = best
    return m


@njit(cache=True)
def landed(f: Flights, m: int) -> None:
    """The first m slots of f.due (delivered) leave the air."""
    for k in range(m):
        f.live[f.due[k]] = False



@njit(cache=True)
def land(f: Flights, t_ns: int, alive: np.ndarray) -> tuple:
    """FastBackend's delivery at t_ns in one call: the frames arriving then (`arriving`) leave the air
    (`landed`); returns their slots, in the order sent, and their rows (`rows`)."""
    f, alive = borrow((f, alive))
    m = arriving(f, t_ns)
    due = f.due[:m].copy()
    got = rows(f, due, alive)
    landed(f, m)
    return due, got


@njit(cache=True)
def rows(f: Flights, due: np.ndarray, alive: np.ndarray) -> tuple:
    """The due frames' receivers as rows, frame by frame in pool order: of each reception by a
    receiver still alive (frame index into due, node, sender, transmission id, payload length) and
    (distance, dB taken off by obstacles); of each loss (frame index, node); and how many frames are
    unicasts. Each is one array with a row per column (few arrays: each returned costs a boxing)."""
    f, due, alive = borrow((f, due, alive))
    total = 0
    unicasts = 0
    for k in range(len(due)):
        total += f.count[due[k]]
        unicasts += f.dst[due[k]] >= 0
    ints = np.empty((5, total), np.int64)
    floats = np.empty((2, total))
    losses = np.empty((2, total), np.int64)
    m = 0
    lost = 0
    for k in range(len(due)):
        s = due[k]
        for q in range(f.start[s], f.start[s] + f.count[s]):
            if f.lost[q]:
                losses[0, lost] = k
                losses[1, lost] = f.node[q]
                lost += 1
            elif alive[f.node[q]]:
                ints[0, m] = k
                ints[1, m] = f.node[q]
                ints[2, m] = f.src[s]
                ints[3, m] = f.tx[s]
                ints[4, m] = f.size[s]
                floats[0, m] = f.dist[q]
                floats[1, m] = f.shade[q]
                m += 1
    return ints[:, :m], floats[:, :m], losses[:, :lost], unicasts
