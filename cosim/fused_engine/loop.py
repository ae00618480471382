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

from collections import namedtuple

import numpy as np
from numba import njit

from controllers.compiled.core import TIMERS
from controllers.kilolib.arithmetic import gains
from cosim.core.timer_rings import INF, advance_ring, next_timer, other_rings
from cosim.core.trace_codes import SEND
from cosim.fused_engine.commands import apply  # noqa: F401 (the generated dispatchers call these)
from cosim.fused_engine.controllers import apply_ctl, inbound  # noqa: F401
from cosim.fused_engine.groups import take  # noqa: F401
from cosim.fused_engine.kernels import latch
from cosim.fused_engine.log_rows import EVENTS, SENT, log_row
from cosim.fused_engine.steps import before, crc_ok, delivery_rows, move, moves, next_event, tick, timer_limit
from jit.borrow import borrow
from netstack.fast.air import arriving, landed, launch, room

Programs = namedtuple("Programs", ["prog", "slot", "states", "io", "gens", "params", "motion", "noise", "period", "msg",
                                   "dist", "rec_i", "rec_v", "rec_n", "air"])
"""Per robot: its program class (index), its row in that class's state array, its timer periods
(loop, transmit, motion); per class: the Kilobot motion and distance noise; buffers for one call;
the airtime of a kilolib frame (a 12-byte broadcast, ns)."""

Log = namedtuple("Log", ["t", "kind", "src", "dst", "tx", "dist", "size", "reason", "n", "counters", "room"])
"""Network rows for the trace (distance for receptions: the RSSI is computed from it in Python; the
trace's drop reason codes), and the counters: sent, delivered, dropped, physics steps, events, acked,
not acked. `room`: the rows a delivery's first part wants (0: none waiting), then what one call may
leave at most (records, network rows, frames: cosim.fused_engine.build.call_room); every call waits until
the buffers have that much room, so none overflows."""

Groups = namedtuple("Groups", ["parts", "group_of", "index", "always", "cursor", "full"])
"""The compiled groups (a tuple of cosim.fused_engine.groups.Parts), each node's group (-1: none) and index
in it, and an alive flag per group for their tick timers (a group's timers outlive its robots); the
step being applied (group, instant, stage, robot; group -1: none) when it paused for frames' room,
and the group whose inbox is full (-1: none), for Python to grow."""

LOOP = 1
TRANSMIT = 2
MOVE = 3
GROUP = 4
CTIMER = 5
"""The kinds of the rings the loop runs (timer_rings.PYTHON, 0, is Python's)."""
STOPPED = 0
ENDED = 1
FULL = 2
NEWTIMER = 3
DONE = 0


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
def _room(flights, progs, ctls, netlog, n: int) -> int:
    """DONE when every buffer has the room one call may need (Log.room), else FULL (emptied or grown
    by Python first) or NEWTIMER (the timer requests started first)."""
    lim = netlog.room
    if netlog.n[0] + lim[2] > len(netlog.t) or progs.rec_n[0] + lim[1] > len(progs.rec_v):
        return FULL
    if not room(flights, lim[3], n):
        return FULL
    if ctls.pend_n[0] + TIMERS > len(ctls.pend):
        return NEWTIMER
    return DONE


@njit(cache=True)
def _hand_over(bodies, radio, flights, progs, compiled_groups, ctls, netlog, slots: np.ndarray, t: int) -> int:
    """Each reception handed over in row order from where flights.state[6:8] says: message_rx for a program,
    the inbox for a compiled group, on_message for a compiled controller. Before each it makes sure
    of the call's room; without it, it keeps its place and returns FULL or NEWTIMER."""
    bodies, radio, flights, progs, compiled_groups, ctls, netlog, slots = borrow((bodies, radio, flights, progs, compiled_groups,
                                                                                  ctls, netlog, slots))
    st = flights.state
    node = flights.node
    lost = flights.lost
    alive = bodies.alive
    src = flights.src
    size = flights.size
    dist = flights.dist
    pos = bodies.pos
    payload = flights.payload
    prog = progs.prog
    slot = progs.slot
    noise = progs.noise
    gens = progs.gens
    states = progs.states
    io = progs.io
    params = progs.params
    rec_i = progs.rec_i
    rec_v = progs.rec_v
    rec_n = progs.rec_n
    msg = progs.msg
    mdist = progs.dist
    group_of = compiled_groups.group_of
    index = compiled_groups.index
    n = len(alive)
    for k in range(st[6], len(slots)):
        s = slots[k]
        for j in range(st[7], flights.count[s]):
            q = flights.start[s] + j  # read at each reception: a reply's launch may compact the receivers
            me = node[q]
            if lost[q] or not alive[me]:
                continue
            status = DONE
            if prog[me] >= 0:
                if size[s] == 12:  # message_t.parse: a kilolib frame is 12 bytes
                    if rec_n[0] + netlog.room[1] > len(rec_v):
                        status = FULL
                    else:
                        _receive(pos, payload[s], prog, slot, noise, gens, states, io, params, rec_i, rec_v, rec_n, msg,
                                 mdist, me, src[s], t)
            elif group_of[me] >= 0:
                if not _call_take(group_of[me], compiled_groups, index[me], src[s], t, size[s], payload[s]):
                    compiled_groups.full[0] = group_of[me]
                    status = FULL
            elif ctls.ctl[me] >= 0:
                status = _room(flights, progs, ctls, netlog, n)
                if status == DONE:  # (its compaction may have moved the receivers: q read again)
                    d = dist[flights.start[s] + j]
                    rssi = ctls.friis[0] - 20.0 * np.log10(4.0 * np.pi * max(d, 0.01) / ctls.friis[1])
                    _call_ctl_rx(ctls.ctl[me], bodies, radio, flights, netlog, progs, ctls, me, src[s], t, size[s], payload[s],
                                 rssi)
            if status != DONE:
                st[6] = k
                st[7] = j
                return status
        st[7] = 0
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
    if st[5] != t:
        st[5] = t
        st[6] = -1
        st[7] = 0
        st[8] = arriving(flights, t)
    slots = flights.due[:st[8]]
    if st[6] < 0:
        if not delivery_rows(bodies, flights, netlog, slots, t):
            return FULL
        st[6] = 0
    status = _hand_over(bodies, radio, flights, progs, compiled_groups, ctls, netlog, slots, t)
    if status != DONE:
        return status
    landed(flights, st[8])
    st[5] = -1
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
def _loops(ring, i, t_ring, limit, tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive, tstate, alive, progs, counters,
           rec_room):
    """A loop timer, then its ring's next ones while nothing else comes first (they may run up to `limit`)."""
    tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive, tstate, alive, progs, counters = borrow(
        (tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive, tstate, alive, progs, counters))
    bt, bs = other_rings(tt, ts, tstart, tcur, tlive, ring)
    prog = progs.prog
    slot = progs.slot
    states = progs.states
    io = progs.io
    gens = progs.gens
    params = progs.params
    rec_i = progs.rec_i
    rec_v = progs.rec_v
    rec_n = progs.rec_n
    msg = progs.msg
    dist = progs.dist
    while True:
        if i >= 0:
            _call_loop(prog[i], slot[i], i, t_ring, states, io, gens, params, rec_i, rec_v, rec_n, msg, dist)
        if not tlive[ring] or rec_n[0] > rec_room:  # (room for the next call's records: Log.room)
            return
        k = tstart[ring] + tcur[ring]
        t_ring = tt[k]
        if t_ring > limit or t_ring > bt or (t_ring == bt and ts[k] > bs):
            return
        k = advance_ring(tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive, tstate, ring, alive)
        i = tn[k] if k >= 0 else -1
        counters[EVENTS] += 1


@njit(cache=True)
def _resume(bodies, radio, flights, progs, compiled_groups, ctls, netlog) -> int:
    """A delivery or a group's step that paused for room, carried on (DONE once finished, else where
    it paused again)."""
    if flights.state[5] >= 0:
        status = _deliver(bodies, radio, flights, progs, compiled_groups, ctls, netlog, flights.state[5])
        return NEWTIMER if status == DONE and ctls.pend_n[0] else status
    _call_resume(compiled_groups.cursor[0], bodies, radio, flights, netlog, progs, compiled_groups)
    return FULL if compiled_groups.cursor[0] >= 0 else DONE


@njit(cache=True, inline="always")
def _timer(ring: int, t_ring: int, bodies, radio, flights, ring_timers, progs, compiled_groups, ctls, netlog, clock: np.ndarray,
           stop: np.ndarray, end_ns: int,
           rec_room: int) -> int:
    """The timer at the head of `ring` (then, for loops and motion, its ring's next ones while nothing
    else comes first), once the buffers have room for its call. DONE, or FULL or NEWTIMER."""
    kind = ring_timers.kind[ring]
    counters = netlog.counters
    alive = bodies.alive
    fstate = flights.state
    if kind != MOVE:
        status = _room(flights, progs, ctls, netlog, len(alive))
        if status != DONE:
            return status
    counters[EVENTS] += 1
    tt = ring_timers.t
    ts = ring_timers.seq
    tn = ring_timers.node
    toff = ring_timers.off
    tstart = ring_timers.start
    tlen = ring_timers.length
    tcur = ring_timers.cur
    tper = ring_timers.period
    tlive = ring_timers.live
    tstate = ring_timers.state
    k = advance_ring(tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive, tstate, ring,
                     compiled_groups.always if kind == GROUP else alive)
    if k < 0:
        return DONE
    i = tn[k]
    if kind == MOVE:
        io = progs.io
        motion = progs.motion
        prog = progs.prog
        cvel = bodies.cvel
        chead = bodies.chead
        move(io, motion, prog, cvel, chead, i)
        counters[EVENTS] += moves(tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive, tstate, ring, alive,
                              timer_limit(clock, fstate, end_ns, stop), io, motion, prog, cvel, chead)
    elif kind == LOOP:
        _loops(ring, i, t_ring, timer_limit(clock, fstate, end_ns, stop), tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive,
               tstate, alive, progs, counters, rec_room)
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
    tt = ring_timers.t
    ts = ring_timers.seq
    tstart = ring_timers.start
    tcur = ring_timers.cur
    tlive = ring_timers.live
    tkind = ring_timers.kind
    while True:
        if fstate[5] >= 0 or compiled_groups.cursor[0] >= 0:
            status = _resume(bodies, radio, flights, progs, compiled_groups, ctls, netlog)
            if status != DONE:
                return status
        ring = next_timer(tt, ts, tstart, tcur, tlive, tkind, False)
        t_ring, s_ring = (tt[tstart[ring] + tcur[ring]], ts[tstart[ring] + tcur[ring]]) if ring >= 0 else (INF, INF)
        tq, pq, sq, which = next_event(t_ring, s_ring, clock)
        if tq > end_ns:
            tq = INF
            which = -1
        stopped = stop[0] <= end_ns and before(stop, tq, pq, sq)
        head = stop[0] if stopped else tq
        fa = fstate[4]
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
        if which == 0 and (fstate[0] > slot_room or fstate[1] > pool_room):
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
            clock[1] = -1
