"""The fused engine's event loop, compiled with the scenario's programs (source of a generated module).

controllers.compiled.codegen copies this file into a module of its own and appends the dispatchers
`_call_loop`, `_call_rx`, `_call_tx` and `_call_txs` for the scenario's program classes; the ones
below only stand in until then. The loop keeps the coordinator's order exactly: at each instant the
frames arriving, then the physics step (and the position sync on a quantum), then timers in the
order they were queued, then the trace sample, then the latch of the commands.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from controllers.compiled.kilolib import crc_update
from controllers.kilolib.api import HIGH_K, LOW_K
from cosim.fused.borrow import borrow
from cosim.fused.kernels import (
    DELIVER,
    DROP,
    INF,
    SEND,
    TWO_PI,
    advance_ring,
    arriving,
    latch,
    launch,
    next_timer,
    physics_step,
    sync,
)
from physics.kernels_compiled import remainder

Programs = namedtuple("Programs", ["prog", "slot", "states", "io", "gens", "params", "motion", "noise", "period", "msg",
                                   "dist", "rec_i", "rec_v", "rec_n"])
"""Per robot: its program class (index), its row in that class's state array, its timer periods
(loop, transmit, motion); per class: the Kilobot motion and distance noise; buffers for one call."""

Log = namedtuple("Log", ["t", "kind", "src", "dst", "tx", "dist", "n", "counters"])
"""Network rows for the trace (distance for receptions; the RSSI is computed from it in Python), and
the counters: sent, delivered, dropped, physics steps, events."""

LOOP, TRANSMIT, MOVE = 0, 1, 2
STOPPED, ENDED, FULL = 0, 1, 2
SAMPLE_PRIORITY = 3


def _call_loop(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_rx(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_tx(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_txs(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


@njit(cache=True, inline="always")
def _row(log: tuple, t: int, kind: int, src: int, dst: int, tx: int, dist: float) -> None:
    """A network row into the log's arrays (t, kind, src, dst, tx, dist, count)."""
    lt, lk, ls, ld, lx, lr, ln = log
    n = ln[0]
    if n >= len(lt):
        raise ValueError("the fused engine's network log is full")
    lt[n], lk[n], ls[n], ld[n], lx[n], lr[n] = t, kind, src, dst, tx, dist
    ln[0] = n + 1


@njit(cache=True, inline="always")
def _move(io: np.ndarray, motion: np.ndarray, prog: np.ndarray, cvel: np.ndarray, chead: np.ndarray, i: int) -> None:
    """KiloProgram._move: the motors as a velocity and a turn for the next motion step."""
    r = io[i]
    m = prog[i]
    if r.motor_l and r.motor_r:
        cvel[i, 0], cvel[i, 1], cvel[i, 2] = motion[m, 0], 0.0, 0.0
        r.moving = True
        return
    if not (r.motor_l or r.motor_r):
        if r.moving:
            cvel[i, 0], cvel[i, 1], cvel[i, 2] = 0.0, 0.0, 0.0
            r.moving = False
        return
    o = 1 if r.motor_l else 4
    chead[i] = remainder(chead[i] + motion[m, o], TWO_PI)
    cvel[i, 0], cvel[i, 1], cvel[i, 2] = motion[m, o + 1], motion[m, o + 2], 0.0
    r.moving = True


@njit(cache=True)
def _crc_ok(payload: np.ndarray) -> bool:
    """message_t.parse's check: the CRC of the data and type bytes is the frame's last two bytes."""
    crc = 0xFFFF
    for j in range(10):
        crc = crc_update(crc, np.int64(payload[j]))
    return crc == np.int64(payload[10]) | (np.int64(payload[11]) << 8)


@njit(cache=True)
def _receive(pos, payload, prog, slot, noise, gens, states, io, params, rec_i, rec_v, rec_n, msg, dist, me: int, src: int,
             t: int) -> None:
    """KiloProgram.on_message: the frame's message, its infrared measurement, then message_rx.
    (Arrays one by one: a tuple's field read costs a reference count, and this runs per reception.)"""
    pos, payload, prog, slot, noise, gens, states, io, params, rec_i, rec_v, rec_n, msg, dist = borrow(
        (pos, payload, prog, slot, noise, gens, states, io, params, rec_i, rec_v, rec_n, msg, dist))
    if not _crc_ok(payload):
        return
    dx, dy, dz = pos[src, 0] - pos[me, 0], pos[src, 1] - pos[me, 1], pos[src, 2] - pos[me, 2]
    mm = np.sqrt(dx * dx + dy * dy + dz * dz) * 1000.0
    sigma = noise[prog[me]]
    if sigma:
        mm += sigma * gens[me].standard_normal()
    mm = max(mm, 1.0)
    d = dist[0]
    d.high_gain = min(1023, round(HIGH_K / mm**2))
    d.low_gain = min(1023, round(LOW_K / mm**2))
    m = msg[0]
    for j in range(9):
        m.data[j] = payload[j]
    m.type = payload[9]
    m.crc = np.uint16(payload[10]) | (np.uint16(payload[11]) << 8)
    _call_rx(prog[me], slot[me], me, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist)


@njit(cache=True)
def _deliver(W, F, P, L, t: int) -> None:
    """FastBackend._events and the coordinator's deliver: rows for every reception (receivers still
    alive), then every loss, then message_rx for each reception in row order."""
    W, F, P, L = borrow((W, F, P, L))
    slots = F.due[:arriving(F, t)]
    c = L.counters
    start, count, lost, node, dist, alive, src, tx = F.start, F.count, F.lost, F.node, F.dist, W.alive, F.src, F.tx
    log = (L.t, L.kind, L.src, L.dst, L.tx, L.dist, L.n)
    for s in slots:
        for q in range(start[s], start[s] + count[s]):
            if not lost[q] and alive[node[q]]:
                _row(log, t, DELIVER, src[s], node[q], tx[s], dist[q])
                c[1] += 1
    for s in slots:
        for q in range(start[s], start[s] + count[s]):
            if lost[q]:
                _row(log, t, DROP, src[s], node[q], tx[s], np.nan)
                c[2] += 1
    pos, payload, prog, slot, noise, gens = W.pos, F.payload, P.prog, P.slot, P.noise, P.gens
    states, io, params, rec_i, rec_v, rec_n, msg, mdist = P.states, P.io, P.params, P.rec_i, P.rec_v, P.rec_n, P.msg, P.dist
    for s in slots:
        for q in range(start[s], start[s] + count[s]):
            if not lost[q] and alive[node[q]]:
                _receive(pos, payload[s], prog, slot, noise, gens, states, io, params, rec_i, rec_v, rec_n, msg, mdist,
                         node[q], src[s], t)


@njit(cache=True)
def _transmit(W, R, F, P, L, i: int, t: int) -> None:
    """KiloProgram._transmit: message_tx, the broadcast, message_tx_success."""
    W, R, F, P, L = borrow((W, R, F, P, L))
    msg = P.msg[0]
    msg.data[:] = 0
    msg.type = 0
    msg.crc = 0
    if not _call_tx(P.prog[i], P.slot[i], i, t, P.states, P.io, P.gens, P.params, P.rec_i, P.rec_v, P.rec_n, P.msg, P.dist):
        return
    s = launch(F, R, W.alive, i, t)
    frame = F.payload[s]
    for j in range(9):
        frame[j] = msg.data[j]
    frame[9], frame[10], frame[11] = msg.type, msg.crc & 0xFF, msg.crc >> 8
    _row((L.t, L.kind, L.src, L.dst, L.tx, L.dist, L.n), t, SEND, i, -1, F.tx[s], np.nan)
    L.counters[0] += 1
    _call_txs(P.prog[i], P.slot[i], i, t, P.states, P.io, P.gens, P.params, P.rec_i, P.rec_v, P.rec_n, P.msg, P.dist)


@njit(cache=True)
def _tick(W, R, clock: np.ndarray, L) -> None:
    """Simulation._tick: the step, the position sync on a quantum, the latch queued after it."""
    W, R, clock, L = borrow((W, R, clock, L))
    t = clock[0]
    physics_step(W, clock[2] / 1e9)
    L.counters[3] += 1
    if t % clock[3] == 0:
        sync(R, W, t)
    clock[1] = t
    clock[0] = t + clock[2] if t + clock[2] <= clock[4] else -1


@njit(cache=True, inline="always")
def _limit(clock: np.ndarray, fstate: np.ndarray, end_ns: int, stop_ns: int) -> int:
    """The last instant a timer may run before anything else: before the next tick and the next
    arrival, and at the latch, the end or the sample at the latest (they come after timers)."""
    return min(clock[0] - 1 if clock[0] >= 0 else INF, fstate[4] - 1, end_ns, clock[1] if clock[1] >= 0 else INF,
               stop_ns if stop_ns <= end_ns else INF)


@njit(cache=True, inline="always")
def _others(tt: np.ndarray, ts: np.ndarray, tstart: np.ndarray, tcur: np.ndarray, tlive: np.ndarray, ring: int) -> tuple:
    """(time, sequence) of the earliest timer of the rings other than `ring` (INF, INF if none)."""
    bt, bs = INF, INF
    for r in range(len(tstart)):
        if r != ring and tlive[r]:
            k = tstart[r] + tcur[r]
            if tt[k] < bt or (tt[k] == bt and ts[k] < bs):
                bt, bs = tt[k], ts[k]
    return bt, bs


@njit(cache=True)
def _moves(tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, ring: int, alive, limit: int, io, motion, prog, cvel,
           chead) -> int:
    """The motion ring's next timers, as long as nothing else comes first: no other ring's timer, and
    nothing at or before `limit` (the next tick, latch, arrival or sample). Returns how many ran."""
    tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate = borrow((tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate))
    alive, io, motion, prog, cvel, chead = borrow((alive, io, motion, prog, cvel, chead))
    bt, bs = _others(tt, ts, tstart, tcur, tlive, ring)
    fired = 0
    while tlive[ring]:
        k = tstart[ring] + tcur[ring]
        t, q = tt[k], ts[k]
        if t > limit or t > bt or (t == bt and q > bs):
            return fired
        i = advance_ring(tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, ring, alive)
        fired += 1
        if i >= 0:
            _move(io, motion, prog, cvel, chead, i)
    return fired


@njit(cache=True, inline="always")
def _head(tq: int, clock: np.ndarray) -> tuple:
    """(time, priority, which) of the next queued event: 0 tick, 1 the timer at tq, 2 latch; INF if none."""
    best_t, best_p, which = INF, 0, -1
    if clock[0] >= 0:
        best_t, which = clock[0], 0
    if tq < best_t or (tq == best_t and tq < INF and best_p > 2):
        best_t, best_p, which = tq, 2, 1
    if clock[1] >= 0 and (clock[1] < best_t or (clock[1] == best_t and best_p > 9)):
        best_t, best_p, which = clock[1], 9, 2
    return best_t, best_p, which


@njit(cache=True)
def advance(stop_ns: int, end_ns: int, W, R, F, T, P, L, clock: np.ndarray) -> int:
    """Run every event before the trace sample at stop_ns (none after end_ns). Returns STOPPED at
    the sample, ENDED at the end, or FULL when the logs should be emptied first."""
    W, R, F, T, P, L, clock = borrow((W, R, F, T, P, L, clock))
    room, rec_room = len(L.t) // 2, len(P.rec_v) // 2
    log_n, rec_n, counters, fstate = L.n, P.rec_n, L.counters, F.state
    tt, ts, tn, tstart, tlen, tcur, tper, tkind, tlive, tstate = (T.t, T.seq, T.node, T.start, T.length, T.cur,
                                                                 T.period, T.kind, T.live, T.state)
    io, motion, prog, slot, cvel, chead, alive = P.io, P.motion, P.prog, P.slot, W.cvel, W.chead, W.alive
    states, gens, params, rec_i, rec_v, msg, dist = P.states, P.gens, P.params, P.rec_i, P.rec_v, P.msg, P.dist
    while True:
        ring = next_timer(tt, ts, tstart, tcur, tlive)
        t_ring = tt[tstart[ring] + tcur[ring]] if ring >= 0 else INF
        tq, pq, which = _head(t_ring, clock)
        if tq > end_ns:
            tq, which = INF, -1
        stop = stop_ns <= end_ns and (stop_ns < tq or (stop_ns == tq and SAMPLE_PRIORITY < pq))
        head = stop_ns if stop else tq
        fa = fstate[4]
        if fa <= head and fa <= end_ns:
            _deliver(W, F, P, L, fa)
            continue
        if stop:
            return STOPPED
        if which < 0:
            return ENDED
        if log_n[0] > room or rec_n[0] > rec_room:
            return FULL
        counters[4] += 1
        if which == 0:
            _tick(W, R, clock, L)
        elif which == 1:
            i = advance_ring(tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, ring, alive)
            kind = tkind[ring]
            if i < 0:
                continue
            if kind == MOVE:
                _move(io, motion, prog, cvel, chead, i)
                counters[4] += _moves(tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, ring, alive,
                                      _limit(clock, fstate, end_ns, stop_ns), io, motion, prog, cvel, chead)
            elif kind == LOOP:  # this ring's next loops too, while nothing else comes first
                limit, (bt, bs) = _limit(clock, fstate, end_ns, stop_ns), _others(tt, ts, tstart, tcur, tlive, ring)
                while True:
                    if i >= 0:
                        _call_loop(prog[i], slot[i], i, t_ring, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist)
                    if not tlive[ring] or rec_n[0] > rec_room:
                        break
                    k = tstart[ring] + tcur[ring]
                    t_ring = tt[k]
                    if t_ring > limit or t_ring > bt or (t_ring == bt and ts[k] > bs):
                        break
                    i = advance_ring(tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, ring, alive)
                    counters[4] += 1
            else:
                _transmit(W, R, F, P, L, i, t_ring)
        else:
            latch(W)
            clock[1] = -1
