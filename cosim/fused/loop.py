"""The fused engine's event loop, compiled with the scenario's programs (source of a generated module).

controllers.compiled.codegen copies this file into a module of its own and appends the dispatchers
`_call_loop`, `_call_rx`, `_call_tx` and `_call_txs` for the scenario's program classes and
`_call_group` and `_call_take` for its compiled groups; the ones below only stand in until then. The
loop keeps the coordinator's order exactly: at each instant the frames arriving, then the physics
step (and the position sync on a quantum), then timers in the order they were queued, then the trace
sample, then the latch of the commands. It stops before the next event Python runs (a sample, a
Python timer), given as (time, priority, sequence).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from controllers.compiled.kilolib import crc_update
from controllers.kilolib.api import HIGH_K, LOW_K
from cosim.fused.borrow import borrow
from cosim.fused.controllers import apply as apply_ctl  # noqa: F401
from cosim.fused.controllers import inbound  # noqa: F401
from cosim.fused.groups import apply as apply_group  # noqa: F401 (the generated dispatchers call these)
from cosim.fused.groups import take  # noqa: F401
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
from cosim.fused.rows import log_row
from physics.kernels_compiled import remainder

Programs = namedtuple("Programs", ["prog", "slot", "states", "io", "gens", "params", "motion", "noise", "period", "msg",
                                   "dist", "rec_i", "rec_v", "rec_n"])
"""Per robot: its program class (index), its row in that class's state array, its timer periods
(loop, transmit, motion); per class: the Kilobot motion and distance noise; buffers for one call."""

Log = namedtuple("Log", ["t", "kind", "src", "dst", "tx", "dist", "size", "reason", "n", "counters"])
"""Network rows for the trace (distance for receptions: the RSSI is computed from it in Python; the
trace's drop reason codes), and the counters: sent, delivered, dropped, physics steps, events, acked,
not acked."""

Groups = namedtuple("Groups", ["parts", "group_of", "index", "always"])
"""The compiled groups (a tuple of cosim.fused.groups.Parts), each node's group (-1: none) and index
in it, and an alive flag per group for their tick timers (a group's timers outlive its robots)."""

LOOP, TRANSMIT, MOVE, GROUP, CTIMER = 0, 1, 2, 3, 4
STOPPED, ENDED, FULL, NEWTIMER = 0, 1, 2, 3
TIMER_PRIORITY = 2
ACK, NOACK = 3, 4  # the trace's network kinds (cosim.core.recorder.NET_KINDS)
LOST, UNREACHED, DST_DEAD = 1, 2, 3  # the trace's drop reason codes (cosim.core.recorder.DROP_REASONS)


def _call_loop(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_rx(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_tx(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_txs(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_group(g, W, R, F, L, P, G, t):  # replaced when generated
    raise NotImplementedError


def _call_take(g, G, i, src, t, size, frame):  # replaced when generated
    raise NotImplementedError


def _call_ctl(q, number, W, R, F, L, P, C, i, t):  # replaced when generated
    raise NotImplementedError


def _call_ctl_rx(q, W, R, F, L, P, C, i, src, t, size, frame, rssi):  # replaced when generated
    raise NotImplementedError


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
def _drops(F, L, alive, slots, t: int) -> None:
    """FastBackend._events' drops, frame by frame: the losses, then a unicast that reached no one;
    then each unicast's status (acked when its receiver got it)."""
    F, L, alive, slots = borrow((F, L, alive, slots))
    c = L.counters
    start, count, lost, node, src, tx, dst = F.start, F.count, F.lost, F.node, F.src, F.tx, F.dst
    for s in slots:
        got, dropped = 0, 0
        for q in range(start[s], start[s] + count[s]):
            if lost[q]:
                log_row(L, t, DROP, src[s], node[q], tx[s], np.nan, 0, LOST)
                c[2] += 1
                dropped += 1
            elif alive[node[q]]:
                got += 1
        if dst[s] >= 0 and got == 0 and dropped == 0:
            log_row(L, t, DROP, src[s], dst[s], tx[s], np.nan, 0, UNREACHED if alive[dst[s]] else DST_DEAD)
            c[2] += 1
    for s in slots:
        if dst[s] < 0:
            continue
        got = 0
        for q in range(start[s], start[s] + count[s]):
            got += not lost[q] and alive[node[q]]
        log_row(L, t, ACK if got == 1 else NOACK, src[s], dst[s], tx[s], np.nan, 0, 0)
        c[5 if got == 1 else 6] += 1


@njit(cache=True)
def _deliver(W, R, F, P, G, C, L, t: int) -> None:
    """FastBackend._events and the coordinator's deliver: rows for every reception (receivers still
    alive), then every drop and status, then each reception handed over in row order: message_rx for
    a program, the inbox for a compiled group, on_message for a compiled controller."""
    W, R, F, P, G, C, L = borrow((W, R, F, P, G, C, L))
    slots = F.due[:arriving(F, t)]
    c = L.counters
    start, count, lost, node, dist, alive, src, tx, size = F.start, F.count, F.lost, F.node, F.dist, W.alive, F.src, F.tx, F.size
    for s in slots:
        for q in range(start[s], start[s] + count[s]):
            if not lost[q] and alive[node[q]]:
                log_row(L, t, DELIVER, src[s], node[q], tx[s], dist[q], size[s], 0)
                c[1] += 1
    _drops(F, L, alive, slots, t)
    pos, payload, prog, slot, noise, gens = W.pos, F.payload, P.prog, P.slot, P.noise, P.gens
    states, io, params, rec_i, rec_v, rec_n, msg, mdist = P.states, P.io, P.params, P.rec_i, P.rec_v, P.rec_n, P.msg, P.dist
    group_of, index = G.group_of, G.index
    for s in slots:
        for q in range(start[s], start[s] + count[s]):
            me = node[q]
            if lost[q] or not alive[me]:
                continue
            if prog[me] >= 0:
                if size[s] == 12:  # message_t.parse: a kilolib frame is 12 bytes
                    _receive(pos, payload[s], prog, slot, noise, gens, states, io, params, rec_i, rec_v, rec_n, msg,
                             mdist, me, src[s], t)
            elif group_of[me] >= 0:
                _call_take(group_of[me], G, index[me], src[s], t, size[s], payload[s])
            elif C.ctl[me] >= 0:
                rssi = R.tx_dbm - 20.0 * np.log10(4.0 * np.pi * max(dist[q], 0.01) / R.wavelength)
                _call_ctl_rx(C.ctl[me], W, R, F, L, P, C, me, src[s], t, size[s], payload[s], rssi)


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
    s = launch(F, R, W.alive, i, -1, 12, R.airtime_ns, t)
    frame = F.payload[s]
    for j in range(9):
        frame[j] = msg.data[j]
    frame[9], frame[10], frame[11] = msg.type, msg.crc & 0xFF, msg.crc >> 8
    log_row(L, t, SEND, i, -1, F.tx[s], np.nan, 12, 0)
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
def _limit(clock: np.ndarray, fstate: np.ndarray, end_ns: int, stop: np.ndarray) -> int:
    """The last instant a timer may run before anything else: before the next tick and the next
    arrival, and at the latch, the end or a sample at the latest (they come after timers); before a
    Python timer (which may come before a timer at its instant)."""
    st = stop[0] if stop[1] > TIMER_PRIORITY else stop[0] - 1
    return min(clock[0] - 1 if clock[0] >= 0 else INF, fstate[4] - 1, end_ns, clock[1] if clock[1] >= 0 else INF,
               st if stop[0] <= end_ns else INF)


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
def _head(tq: int, sq: int, clock: np.ndarray) -> tuple:
    """(time, priority, sequence, which) of the next queued event: 0 tick, 1 the timer at tq (sequence
    sq), 2 latch; INF if none."""
    best_t, best_p, best_s, which = INF, 0, 0, -1
    if clock[0] >= 0:
        best_t, which = clock[0], 0
    if tq < best_t or (tq == best_t and tq < INF and best_p > 2):
        best_t, best_p, best_s, which = tq, 2, sq, 1
    if clock[1] >= 0 and (clock[1] < best_t or (clock[1] == best_t and best_p > 9)):
        best_t, best_p, best_s, which = clock[1], 9, 0, 2
    return best_t, best_p, best_s, which


@njit(cache=True, inline="always")
def _before(stop: np.ndarray, t: int, p: int, q: int) -> bool:
    """Whether the stop (time, priority, sequence) comes before the event (t, p, q)."""
    return stop[0] < t or (stop[0] == t and (stop[1] < p or (stop[1] == p and stop[2] < q)))


@njit(cache=True, inline="always")
def _loops(ring, i, t_ring, limit, tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, alive, P, counters, rec_room):
    """A loop timer, then its ring's next ones while nothing else comes first (they may run up to `limit`)."""
    tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, alive, P, counters = borrow(
        (tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, alive, P, counters))
    bt, bs = _others(tt, ts, tstart, tcur, tlive, ring)
    prog, slot, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist = (P.prog, P.slot, P.states, P.io, P.gens,
                                                                           P.params, P.rec_i, P.rec_v, P.rec_n, P.msg,
                                                                           P.dist)
    while True:
        if i >= 0:
            _call_loop(prog[i], slot[i], i, t_ring, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist)
        if not tlive[ring] or rec_n[0] > rec_room:
            return
        k = tstart[ring] + tcur[ring]
        t_ring = tt[k]
        if t_ring > limit or t_ring > bt or (t_ring == bt and ts[k] > bs):
            return
        i = advance_ring(tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, ring, alive)
        counters[4] += 1


@njit(cache=True)
def advance(stop: np.ndarray, end_ns: int, W, R, F, T, P, G, C, L, clock: np.ndarray) -> int:
    """Run every event before `stop` (time, priority, sequence; none after end_ns). Returns STOPPED
    there, ENDED at the end, FULL when the logs should be emptied first, or NEWTIMER when a compiled
    controller asked for timers (C.pend) that Python starts before anything else happens."""
    W, R, F, T, P, G, C, L, clock, stop = borrow((W, R, F, T, P, G, C, L, clock, stop))
    room, rec_room = len(L.t) // 2, len(P.rec_v) // 2
    log_n, rec_n, counters, fstate = L.n, P.rec_n, L.counters, F.state
    tt, ts, tn, tstart, tlen, tcur, tper, tkind, tlive, tstate = (T.t, T.seq, T.node, T.start, T.length, T.cur,
                                                                 T.period, T.kind, T.live, T.state)
    io, motion, prog, cvel, chead, alive = P.io, P.motion, P.prog, W.cvel, W.chead, W.alive
    while True:
        ring = next_timer(tt, ts, tstart, tcur, tlive)
        t_ring, s_ring = (tt[tstart[ring] + tcur[ring]], ts[tstart[ring] + tcur[ring]]) if ring >= 0 else (INF, INF)
        tq, pq, sq, which = _head(t_ring, s_ring, clock)
        if tq > end_ns:
            tq, which = INF, -1
        stopped = stop[0] <= end_ns and _before(stop, tq, pq, sq)
        head = stop[0] if stopped else tq
        fa = fstate[4]
        if fa <= head and fa <= end_ns:
            _deliver(W, R, F, P, G, C, L, fa)
            if C.pend_n[0]:
                return NEWTIMER
            continue
        if stopped:
            return STOPPED
        if which < 0:
            return ENDED
        if log_n[0] > room or rec_n[0] > rec_room:
            return FULL
        counters[4] += 1
        if which == 0:
            _tick(W, R, clock, L)
        elif which == 1:
            kind = tkind[ring]
            i = advance_ring(tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, ring, G.always if kind == GROUP else alive)
            if i < 0:
                continue
            if kind == MOVE:
                _move(io, motion, prog, cvel, chead, i)
                counters[4] += _moves(tt, ts, tn, tstart, tlen, tcur, tper, tlive, tstate, ring, alive,
                                      _limit(clock, fstate, end_ns, stop), io, motion, prog, cvel, chead)
            elif kind == LOOP:
                _loops(ring, i, t_ring, _limit(clock, fstate, end_ns, stop), tt, ts, tn, tstart, tlen, tcur, tper, tlive,
                       tstate, alive, P, counters, rec_room)
            elif kind == GROUP:
                _call_group(i, W, R, F, L, P, G, t_ring)
            elif kind == CTIMER:
                _call_ctl(C.ctl[i], T.arg[ring], W, R, F, L, P, C, i, t_ring)
                if C.pend_n[0]:
                    return NEWTIMER
            else:
                _transmit(W, R, F, P, L, i, t_ring)
        else:
            latch(W)
            clock[1] = -1
