"""The fused engine's compiled pieces that call no program: the timer heap, the world's step (its own
kernel, physics.kinematic_compiled.step) and the latch of commands, the fast radio's reach and loss
draws (through netstack.fast), and the frames in flight.

Each does exactly what its event-engine counterpart does, operation by operation (named in each
docstring), so the trace is the same on either engine.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from jit.borrow import borrow
from netstack.fast.cells import candidates, index
from netstack.fast.kernels import within
from physics.kinematic_compiled import latch as latch_world
from physics.kinematic_compiled import step as step_world

TWO_PI = 2.0 * math.pi
INF = np.iinfo(np.int64).max

World = namedtuple("World", ["pos", "vel", "avel", "cvel", "ahead", "chead", "max_speed", "alive", "radius", "clip_lo",
                             "clip_hi", "trig", "at_rest", "max_accel", "reach", "verlet", "drives", "scene", "dslot",
                             "dpend", "dcmd"])
"""The kinematic world's arrays (the world's own, changed in place); at_rest is a 1-element array;
reach the distance within which robots push apart (0: no collisions) and verlet the world's own
list of the pairs that may touch (physics.verlet);
drives and scene as physics.kinematic_compiled's (no scenery: the fused engine takes no obstacles),
dslot each robot's row in the drives (-1: none); dpend and dcmd the drive commands given since the
last latch (DriveCommands): per drive 0 none, DRIVE_CMD (v, w in dcmd) or STEER_CMD (generic commands)."""
DRIVE_CMD, STEER_CMD = 1, 2

Radio = namedtuple("Radio", ["pos", "vel", "sync", "busy", "rng", "loss_p", "range_m", "airtime_ns", "latency_ns",
                             "cells", "tx_dbm", "wavelength"])
"""The fast radio: positions at the last sync (`sync`[0] ns), busy-until per node, its loss stream,
its cell index for single sends (netstack.fast.cells.Cells); the transmit power (dBm) and
wavelength (m) for the RSSI a compiled controller's message reports (UnitDisk's Friis loss)."""

FLIGHT_FIELDS = ("arrive", "seq", "src", "tx", "payload", "start", "count", "live", "node", "dist", "lost", "state",
                 "due", "dst", "size")
POOL_FIELDS = ("node", "dist", "lost")
"""The receivers' pool; every other field but `state` has a row per slot."""
Flights = namedtuple("Flights", FLIGHT_FIELDS)
"""Frames in the air (slots) and their receivers (a pool); state = slots used, pool used, next seq,
next tx id, earliest arrival, then the delivery under way (its instant, -1 none; the next due slot's
index, -1 before its rows; the next receiver's offset in that slot; how many slots are due), kept
when the loop pauses inside it; `due` holds one instant's arriving slots (one per slot). Per slot also
the destination (BROADCAST or a node) and the payload's true length (`payload` holds its first bytes)."""

Timers = namedtuple("Timers", ["t", "seq", "node", "start", "length", "cur", "period", "kind", "live", "state", "arg"])
"""Periodic timers as rings: the timers of one kind with one period keep their cyclic order forever
(each fires, then waits a period), so each ring is a fixed cycle of robots with their next time and
sequence number, and the next timer of all is the earliest of the rings' heads. state = next seq;
arg = each ring's argument (a compiled controller's timer number)."""


@njit(cache=True, inline="always")
def next_timer(tt: np.ndarray, ts: np.ndarray, start: np.ndarray, cur: np.ndarray, live: np.ndarray) -> int:
    """The ring whose next timer runs first: earliest time, then earliest queued (-1 if none).
    (Timers' arrays are passed one by one: reading a tuple's field costs a reference count.)"""
    best, bt, bs = -1, INF, INF
    for r in range(len(start)):
        if live[r] == 0:
            continue
        k = start[r] + cur[r]
        if tt[k] < bt or (tt[k] == bt and ts[k] < bs):
            best, bt, bs = r, tt[k], ts[k]
    return best


@njit(cache=True, inline="always")
def advance_ring(tt: np.ndarray, ts: np.ndarray, tn: np.ndarray, start: np.ndarray, length: np.ndarray,
                 cur: np.ndarray, period: np.ndarray, live: np.ndarray, state: np.ndarray, r: int,
                 alive: np.ndarray) -> int:
    """Ring r's next timer fires: queued again a period later (the next sequence number), unless its
    robot is dead (then it leaves the ring). Returns the robot, or -1 for a dead one."""
    k = start[r] + cur[r]
    cur[r] = cur[r] + 1 if cur[r] + 1 < length[r] else 0
    i = tn[k]
    if not alive[i]:
        tt[k] = INF  # never again
        live[r] -= 1
        return -1
    tt[k] += period[r]
    ts[k] = state[0]
    state[0] += 1
    if live[r] < length[r]:  # skip the dead: they sit at INF in the cycle
        while live[r] and tt[start[r] + cur[r]] == INF:
            cur[r] = cur[r] + 1 if cur[r] + 1 < length[r] else 0
    return i


@njit(cache=True)
def physics_step(w: World, dt_s: float) -> None:
    """KinematicWorld.step: the world's own compiled step (physics.kinematic_compiled.step)."""
    w = borrow(w)
    w.at_rest[0] = step_world(dt_s, w.max_accel, w.ahead, w.avel, w.max_speed, w.alive, w.pos, w.vel, w.trig, w.radius,
                              w.clip_lo, w.clip_hi, w.reach, w.at_rest[0], w.drives, w.scene, w.verlet)


@njit(cache=True, inline="always")
def latch(w: World) -> None:
    """KinematicWorld.latch: the drive commands given since the last latch (DriveCommands.apply,
    DiffDriveBank.drive's arithmetic), then the commands so far become the ones the next step integrates."""
    if not len(w.dpend):
        w.avel[:] = w.cvel
        w.ahead[:] = w.chead
        return
    _latch_drives(w)


@njit(cache=True)
def _latch_drives(w: World) -> None:
    w = borrow(w)
    d, pend, cmd = w.drives, w.dpend, w.dcmd
    for k in range(len(pend)):
        if pend[k] == DRIVE_CMD:
            half = 0.5 * d.base[k] * cmd[k, 1]
            d.cmd_wheels[k, 0], d.cmd_wheels[k, 1] = cmd[k, 0] - half, cmd[k, 0] + half
            d.steer[k] = False
        elif pend[k] == STEER_CMD:
            d.steer[k] = True
        pend[k] = 0
    latch_world(w.cvel, w.chead, w.avel, w.ahead, w.drives)


@njit(cache=True)
def sync(r: Radio, w: World, t_ns: int) -> None:
    """FastBackend.set_positions: the radio's copy of positions and velocities, then its cell index
    looks at them (netstack.fast.cells.index)."""
    r, w = borrow((r, w))
    r.sync[0] = t_ns
    r.pos[:] = w.pos
    r.vel[:] = w.vel
    index(r.cells, r.pos, r.vel, r.range_m)


@njit(cache=True)
def reach(r: Radio, alive: np.ndarray, src: int, dst: int, start_ns: int, nodes: np.ndarray, dist: np.ndarray) -> int:
    """FastBackend._reachable on the unit disk: alive nodes within range at start_ns (every node for a
    broadcast, ascending; only dst for a unicast), with their distances. Returns how many."""
    r, alive, nodes, dist = borrow((r, alive, nodes, dist))
    dt = (start_ns - r.sync[0]) / 1e9
    cand = r.cells.cand
    if dst >= 0:
        cand[0] = dst
        m = 1
    else:
        m = candidates(r.cells, len(r.pos), src, dt)
    return within(r.pos, r.vel, dt, alive, cand, m, src, r.range_m, nodes, dist)


@njit(cache=True)
def compact(f: Flights) -> None:
    """Move the receivers of frames still in the air to the front of the pool, in pool order: each
    moves only down, onto room already vacated (in slot order a reused low slot's receivers, sent
    later, would land on an older frame's not yet moved)."""
    live = np.flatnonzero(f.live[:f.state[0]])
    used = 0
    for s in live[np.argsort(f.start[live], kind="mergesort")]:
        a, c = f.start[s], f.count[s]
        if a != used:
            f.node[used:used + c] = f.node[a:a + c].copy()
            f.dist[used:used + c] = f.dist[a:a + c].copy()
            f.lost[used:used + c] = f.lost[a:a + c].copy()
        f.start[s] = used
        used += c
    f.state[1] = used


@njit(cache=True, inline="always")
def room(f: Flights, launches: int, n: int) -> bool:
    """Whether `launches` more frames find slots and receivers (n each at most), compacting the
    receivers first when they would not (inlined: the usual answer, yes, costs two comparisons)."""
    if f.state[1] + launches * n > len(f.node):
        compact(f)
        if f.state[1] + launches * n > len(f.node):
            return False
    if f.state[0] + launches <= len(f.live):
        return True
    free = len(f.live) - f.state[0]
    for s in range(f.state[0]):
        free += not f.live[s]
    return free >= launches


@njit(cache=True)
def launch(f: Flights, r: Radio, alive: np.ndarray, src: int, dst: int, size: int, airtime_ns: int, t_ns: int) -> int:
    """FastBackend.send: airtime after the radio is free, receivers at the start, the loss draws in
    receiver order; the frame waits in a slot (its payload is the caller's to write). Returns the slot."""
    f, r, alive = borrow((f, r, alive))
    n = len(r.pos)
    if f.state[1] + n > len(f.node):
        compact(f)
        if f.state[1] + n > len(f.node):  # callers make sure of room first (`room`): a defect if reached
            raise ValueError("the fused engine's pool of receivers is full")
    s = 0
    while s < f.state[0] and f.live[s]:
        s += 1
    if s == len(f.live):
        raise ValueError("the fused engine has too many frames in the air")
    f.state[0] = max(f.state[0], s + 1)
    tx = f.state[3]
    f.state[3] += 1
    start = max(t_ns, r.busy[src])
    end = start + airtime_ns
    r.busy[src] = end
    a = f.state[1]
    m = reach(r, alive, src, dst, start, f.node[a:], f.dist[a:]) if alive[src] else 0
    for q in range(a, a + m):
        f.lost[q] = r.loss_p > 0.0 and r.rng.random() < r.loss_p
    f.arrive[s], f.seq[s], f.src[s], f.tx[s], f.dst[s], f.size[s] = end + r.latency_ns, f.state[2], src, tx, dst, size
    f.state[2] += 1
    f.start[s], f.count[s], f.live[s] = a, m, True
    f.state[1] = a + m
    f.state[4] = min(f.state[4], end + r.latency_ns)
    return s


@njit(cache=True)
def arriving(f: Flights, t_ns: int) -> int:
    """The frames arriving at t_ns: their slots, in the order they were sent, go into f.due. Returns
    how many. They stay live (their slots and receivers kept from launches and compaction) until
    their delivery ends (`landed`): a robot may reply while others still receive them."""
    f = borrow(f)
    due, live, arrive, seq = f.due, f.live, f.arrive, f.seq
    m = 0
    best = INF
    for s in range(f.state[0]):
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
    f.state[4] = best
    return m


@njit(cache=True)
def landed(f: Flights, m: int) -> None:
    """The first m slots of f.due (delivered) leave the air."""
    for k in range(m):
        f.live[f.due[k]] = False

