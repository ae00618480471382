"""The fused engine's event loop, compiled with the scenario's programs (source of a generated module).

controllers.compiled.codegen copies this file into a module of its own and appends the dispatchers
`_call_loop`, `_call_rx`, `_call_tx` and `_call_txs` for the scenario's program classes and
`_call_group` and `_call_take` for its compiled groups; the ones below only stand in until then. The
loop keeps the coordinator's order exactly: at each instant the frames arriving, then the physics
step (and the position sync on a quantum), then timers in the order they were queued, then the trace
sample, then the latch of the commands. It stops before the next event Python runs (a sample, a
Python timer), given as (time, priority, sequence). What calls no program, group or controller is in
cosim.fused_engine.steps, compiled once for every scenario.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from controllers.kilolib.arithmetic import gains
from cosim.core.timer_rings import INF, advance_ring, next_timer, other_rings
from cosim.core.trace_codes import SEND
from cosim.fused_engine.commands import apply  # noqa: F401 (the generated dispatchers call these)
from cosim.fused_engine.controllers import apply_ctl, inbound  # noqa: F401
from cosim.fused_engine.groups import take  # noqa: F401
from cosim.fused_engine.kernels import latch
from cosim.fused_engine.log_rows import EVENTS, SENT, log_row
from cosim.fused_engine.records import CTIMER, DONE, ENDED, FULL, GROUP, LATCH_AT, LOOP, MOVE, NEWTIMER, STOPPED
from cosim.fused_engine.steps import (
    before,
    crc_ok,
    delivery_rows,
    move,
    moves,
    next_event,
    room_for_call,
    tick,
    timer_limit,
)
from jit.borrow import borrow
from netstack.fast.air import (
    DELIVERING,
    DUE_COUNT,
    DUE_ROW,
    DUE_SLOT,
    EARLIEST,
    POOL_USED,
    SLOTS_USED,
    arriving,
    landed,
    launch,
)


def _call_loop(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_rx(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_tx(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_txs(p, slot, i, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist):  # replaced when generated
    raise NotImplementedError


def _call_group(g, bodies, radio, flights, netlog, progs, compiled_groups, t):  # replaced when generated
    raise NotImplementedError


def _call_take(g, compiled_groups, i, src, t, size, frame):  # replaced when generated
    raise NotImplementedError


def _call_resume(g, bodies, radio, flights, netlog, progs, compiled_groups):  # replaced when generated
    raise NotImplementedError


def _call_ctl(q, number, bodies, radio, flights, netlog, progs, ctls, i, t):  # replaced when generated
    raise NotImplementedError


def _call_ctl_rx(q, bodies, radio, flights, netlog, progs, ctls, i, src, t, size, frame, rssi):  # replaced when generated
    raise NotImplementedError


@njit(cache=True)
def _receive(pos, payload, prog, slot, noise, gens, states, io, params, rec_i, rec_v, rec_n, msg, dist, me: int, src: int,
             t: int) -> None:
    """KiloProgram.on_message: the frame's message, its infrared measurement, then message_rx.
    (Arrays one by one: a tuple's field read costs a reference count, and this runs per reception.)"""
    pos, payload, prog, slot, noise, gens, states, io, params, rec_i, rec_v, rec_n, msg, dist = borrow(
        (pos, payload, prog, slot, noise, gens, states, io, params, rec_i, rec_v, rec_n, msg, dist))
    if not crc_ok(payload):
        return
    dx = pos[src, 0] - pos[me, 0]
    dy = pos[src, 1] - pos[me, 1]
    dz = pos[src, 2] - pos[me, 2]
    mm = np.sqrt(dx * dx + dy * dy + dz * dz) * 1000.0
    sigma = noise[prog[me]]
    if sigma:
        mm += sigma * gens[me].standard_normal()
    mm = max(mm, 1.0)
    d = dist[0]
    d.high_gain, d.low_gain = gains(mm)
    m = msg[0]
    for j in range(9):
        m.data[j] = payload[j]
    m.type = payload[9]
    m.crc = np.uint16(payload[10]) | (np.uint16(payload[11]) << 8)
    _call_rx(prog[me], slot[me], me, t, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist)


@njit(cache=True, inline="always")
def _hand_one(bodies, radio, flights, progs, compiled_groups, ctls, netlog, s: int, j: int, me: int, t: int) -> int:
    """Reception j of slot s handed to node me: message_rx for a program, the inbox for a compiled
    group, on_message for a compiled controller, once the call has its room (else FULL or NEWTIMER)."""
    size = flights.size[s]
    if progs.prog[me] >= 0:
        if size != 12:  # message_t.parse: a kilolib frame is 12 bytes
            return DONE
        if progs.rec_n[0] + netlog.room[1] > len(progs.rec_v):
            return FULL
        _receive(bodies.pos, flights.payload[s], progs.prog, progs.slot, progs.noise, progs.gens, progs.states, progs.io,
                 progs.params, progs.rec_i, progs.rec_v, progs.rec_n, progs.msg, progs.dist, me, flights.src[s], t)
        return DONE
    group = compiled_groups.group_of[me]
    if group >= 0:
        if not _call_take(group, compiled_groups, compiled_groups.index[me], flights.src[s], t, size, flights.payload[s]):
            compiled_groups.full[0] = group
            return FULL
        return DONE
    if ctls.ctl[me] < 0:
        return DONE
    status = room_for_call(flights, progs, ctls, netlog, len(bodies.alive))
    if status == DONE:  # (its compaction may have moved the receivers: the row read again)
        d = flights.dist[flights.start[s] + j]
        rssi = ctls.friis[0] - 20.0 * np.log10(4.0 * np.pi * max(d, 0.01) / ctls.friis[1])
        _call_ctl_rx(ctls.ctl[me], bodies, radio, flights, netlog, progs, ctls, me, flights.src[s], t, size,
                     flights.payload[s], rssi)
    return status


@njit(cache=True)
def _hand_over(bodies, radio, flights, progs, compiled_groups, ctls, netlog, slots: np.ndarray, t: int) -> int:
    """Each reception handed over in row order from where flights.state[DUE_SLOT] and [DUE_ROW] say
    (_hand_one); where one lacks room it keeps its place and returns FULL or NEWTIMER."""
    bodies, radio, flights, progs, compiled_groups, ctls, netlog, slots = borrow((bodies, radio, flights, progs, compiled_groups,
                                                                                  ctls, netlog, slots))
    st = flights.state
    node = flights.node
    lost = flights.lost
    alive = bodies.alive
    for k in range(st[DUE_SLOT], len(slots)):
        s = slots[k]
        for j in range(st[DUE_ROW], flights.count[s]):
            q = flights.start[s] + j  # read at each reception: a reply's launch may compact the receivers
            me = node[q]
            if lost[q] or not alive[me]:
                continue
            status = _hand_one(bodies, radio, flights, progs, compiled_groups, ctls, netlog, s, j, me, t)
            if status != DONE:
                st[DUE_SLOT] = k
                st[DUE_ROW] = j
                return status
        st[DUE_ROW] = 0
    return DONE


@njit(cache=True)
def _deliver(bodies, radio, flights, progs, compiled_groups, ctls, netlog, t: int) -> int:
    """FastBackend._events and the coordinator's deliver: the frames arriving at t, their rows, then
    each reception handed over. Returns DONE, or FULL or NEWTIMER where it paused for room (flights.state
    keeps its place; `advance` resumes it before anything else). The frames leave the air at the end,
    so replies sent meanwhile take other slots."""
    bodies, radio, flights, progs, compiled_groups, ctls, netlog = borrow((bodies, radio, flights, progs, compiled_groups, ctls,
                                                                           netlog))
    st = flights.state
    if st[DELIVERING] != t:
        st[DELIVERING] = t
        st[DUE_SLOT] = -1
        st[DUE_ROW] = 0
        st[DUE_COUNT] = arriving(flights, t)
    slots = flights.due[:st[DUE_COUNT]]
    if st[DUE_SLOT] < 0:
        if not delivery_rows(bodies, flights, netlog, slots, t):
            return FULL
        st[DUE_SLOT] = 0
    status = _hand_over(bodies, radio, flights, progs, compiled_groups, ctls, netlog, slots, t)
    if status != DONE:
        return status
    landed(flights, st[DUE_COUNT])
    st[DELIVERING] = -1
    return DONE


@njit(cache=True)
def _transmit(bodies, radio, flights, progs, netlog, i: int, t: int) -> None:
    """KiloProgram._transmit: message_tx, the broadcast, message_tx_success."""
    bodies, radio, flights, progs, netlog = borrow((bodies, radio, flights, progs, netlog))
    msg = progs.msg[0]
    msg.data[:] = 0
    msg.type = 0
    msg.crc = 0
    if not _call_tx(progs.prog[i], progs.slot[i], i, t, progs.states, progs.io, progs.gens, progs.params, progs.rec_i,
                    progs.rec_v, progs.rec_n, progs.msg, progs.dist):
        return
    s = launch(flights, radio, bodies.alive, i, -1, 12, progs.air[0], t)
    frame = flights.payload[s]
    for j in range(9):
        frame[j] = msg.data[j]
    frame[9] = msg.type
    frame[10] = msg.crc & 0xFF
    frame[11] = msg.crc >> 8
    log_row(netlog, t, SEND, i, -1, flights.tx[s], np.nan, 12, 0)
    netlog.counters[SENT] += 1
    _call_txs(progs.prog[i], progs.slot[i], i, t, progs.states, progs.io, progs.gens, progs.params, progs.rec_i, progs.rec_v,
              progs.rec_n, progs.msg, progs.dist)


@njit(cache=True, inline="always")
def _loops(ring, i, t_ring, limit, ring_timers, alive, progs, counters, rec_room):
    """A loop timer, then its ring's next ones while nothing else comes first (they may run up to `limit`)."""
    ring_timers, alive, progs, counters = borrow((ring_timers, alive, progs, counters))
    rt = ring_timers
    bt, bs = other_rings(rt.t, rt.seq, rt.start, rt.cur, rt.live, ring)
    rec_n = progs.rec_n
    while True:
        if i >= 0:
            _call_loop(progs.prog[i], progs.slot[i], i, t_ring, progs.states, progs.io, progs.gens, progs.params, progs.rec_i,
                       progs.rec_v, rec_n, progs.msg, progs.dist)
        if not rt.live[ring] or rec_n[0] > rec_room:  # (room for the next call's records: Log.room)
            return
        k = rt.start[ring] + rt.cur[ring]
        t_ring = rt.t[k]
        if t_ring > limit or t_ring > bt or (t_ring == bt and rt.seq[k] > bs):
            return
        k = _fire(ring_timers, ring, alive)
        i = rt.node[k] if k >= 0 else -1
        counters[EVENTS] += 1


@njit(cache=True)
def _resume(bodies, radio, flights, progs, compiled_groups, ctls, netlog) -> int:
    """A delivery or a group's step that paused for room, carried on (DONE once finished, else where
    it paused again)."""
    if flights.state[DELIVERING] >= 0:
        status = _deliver(bodies, radio, flights, progs, compiled_groups, ctls, netlog, flights.state[DELIVERING])
        return NEWTIMER if status == DONE and ctls.pend_n[0] else status
    _call_resume(compiled_groups.cursor[0], bodies, radio, flights, netlog, progs, compiled_groups)
    return FULL if compiled_groups.cursor[0] >= 0 else DONE


@njit(cache=True, inline="always")
def _fire(ring_timers, ring: int, alive: np.ndarray) -> int:
    """advance_ring on the record: ring's head fires (its slot, or -1 if it left the ring)."""
    rt = ring_timers
    return advance_ring(rt.t, rt.seq, rt.node, rt.off, rt.start, rt.length, rt.cur, rt.period, rt.live, rt.state, ring, alive)


@njit(cache=True, inline="always")
def _moves(ring: int, i: int, ring_timers, bodies, progs, limit: int) -> int:
    """A motion timer, then its ring's next ones while nothing else comes first (steps.moves): how many
    more ran."""
    rt = ring_timers
    move(progs.io, progs.motion, progs.prog, bodies.cvel, bodies.chead, i)
    return moves(rt.t, rt.seq, rt.node, rt.off, rt.start, rt.length, rt.cur, rt.period, rt.live, rt.state, ring, bodies.alive,
                 limit, progs.io, progs.motion, progs.prog, bodies.cvel, bodies.chead)


@njit(cache=True, inline="always")
def _timer(ring: int, t_ring: int, bodies, radio, flights, ring_timers, progs, compiled_groups, ctls, netlog, clock: np.ndarray,
           stop: np.ndarray, end_ns: int, rec_room: int) -> int:
    """The timer at the head of `ring` (then, for loops and motion, its ring's next ones while nothing
    else comes first), once the buffers have room for its call. DONE, or FULL or NEWTIMER."""
    kind = ring_timers.kind[ring]
    counters = netlog.counters
    if kind != MOVE:
        status = room_for_call(flights, progs, ctls, netlog, len(bodies.alive))
        if status != DONE:
            return status
    counters[EVENTS] += 1
    k = _fire(ring_timers, ring, compiled_groups.always if kind == GROUP else bodies.alive)
    if k < 0:
        return DONE
    i = ring_timers.node[k]
    if kind == MOVE:
        counters[EVENTS] += _moves(ring, i, ring_timers, bodies, progs, timer_limit(clock, flights.state, end_ns, stop))
    elif kind == LOOP:
        _loops(ring, i, t_ring, timer_limit(clock, flights.state, end_ns, stop), ring_timers, bodies.alive, progs, counters,
               rec_room)
    elif kind == GROUP:
        _call_group(i, bodies, radio, flights, netlog, progs, compiled_groups, t_ring)
        if compiled_groups.cursor[0] >= 0:
            return FULL
    elif kind == CTIMER:
        _call_ctl(ctls.ctl[i], ring_timers.arg[k], bodies, radio, flights, netlog, progs, ctls, i, t_ring)
        if ctls.pend_n[0]:
            return NEWTIMER
    else:
        _transmit(bodies, radio, flights, progs, netlog, i, t_ring)
    return DONE


@njit(cache=True, inline="always")
def _next(ring_timers, clock: np.ndarray, end_ns: int) -> tuple:
    """The loop's next event of its own before anything else comes: (ring, its head's time, then the
    event's time, priority, sequence and which: 0 tick, 1 timer, 2 latch, -1 none before end_ns)."""
    rt = ring_timers
    ring = next_timer(rt.t, rt.seq, rt.start, rt.cur, rt.live, rt.kind, False)
    head = rt.start[ring] + rt.cur[ring] if ring >= 0 else 0
    t_ring = rt.t[head] if ring >= 0 else INF
    s_ring = rt.seq[head] if ring >= 0 else INF
    tq, pq, sq, which = next_event(t_ring, s_ring, clock)
    if tq > end_ns:
        tq = INF
        which = -1
    return ring, t_ring, tq, pq, sq, which


@njit(cache=True)
def advance(stop: np.ndarray, end_ns: int, bodies, radio, flights, ring_timers, progs, compiled_groups, ctls, netlog,
            clock: np.ndarray) -> int:
    """Run every event before `stop` (time, priority, sequence; none after end_ns). Returns STOPPED
    there, ENDED at the end, FULL when the logs should be emptied or a buffer grown first (before a
    call without room for what it may leave, or at a physics step with the frames' room more than
    half used: netstack.fast.air.roomy), or NEWTIMER when a compiled controller asked for timers
    (ctls.pend) that Python starts before anything else happens."""
    bodies, radio, flights, ring_timers, progs, compiled_groups, ctls, netlog, clock, stop = borrow(
        (bodies, radio, flights, ring_timers, progs, compiled_groups, ctls, netlog, clock, stop))
    rec_room = len(progs.rec_v) - netlog.room[1]
    slot_room = len(flights.live) // 2
    pool_room = len(flights.node) // 2 - len(bodies.alive)  # half free: netstack.fast.air.roomy
    counters = netlog.counters
    fstate = flights.state
    while True:
        if fstate[DELIVERING] >= 0 or compiled_groups.cursor[0] >= 0:
            status = _resume(bodies, radio, flights, progs, compiled_groups, ctls, netlog)
            if status != DONE:
                return status
        ring, t_ring, tq, pq, sq, which = _next(ring_timers, clock, end_ns)
        stopped = stop[0] <= end_ns and before(stop, tq, pq, sq)
        head = stop[0] if stopped else tq
        fa = fstate[EARLIEST]
        if fa <= head and fa <= end_ns:
            status = _deliver(bodies, radio, flights, progs, compiled_groups, ctls, netlog, fa)
            if status != DONE:
                return status
            if ctls.pend_n[0]:
                return NEWTIMER
            continue
        if stopped:
            return STOPPED
        if which < 0:
            return ENDED
        if which == 0 and (fstate[SLOTS_USED] > slot_room or fstate[POOL_USED] > pool_room):
            return FULL  # the frames' room is looked at once a physics step (netstack.fast.air.roomy)
        if which == 1:
            status = _timer(ring, t_ring, bodies, radio, flights, ring_timers, progs, compiled_groups, ctls, netlog, clock, stop,
                            end_ns, rec_room)
            if status != DONE:
                return status
        elif which == 0:
            counters[EVENTS] += 1
            tick(bodies, radio, clock, netlog)
        else:
            counters[EVENTS] += 1
            latch(bodies)
            clock[LATCH_AT] = -1
