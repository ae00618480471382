"""The fused loop's steps that call no program, group or controller: compiled once and cached for
every scenario (cosim.fused_engine.loop, compiled anew for each set of program classes, calls them).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from controllers.compiled.core import TIMERS
from controllers.kilolib.arithmetic import crc_update
from cosim.core.timeline import Priority
from cosim.core.timer_rings import INF, advance_ring, other_rings
from cosim.core.trace_codes import ACK, DELIVER, DROP, DROP_REASONS, NOACK
from cosim.fused_engine.kernels import TWO_PI, physics_step
from cosim.fused_engine.log_rows import DELIVERED, DROPPED, STEPS, log_row
from cosim.fused_engine.records import DONE, DT, END, FULL, LATCH_AT, NEWTIMER, NEXT_TICK, QUANTUM
from jit.borrow import borrow
from netstack.fast.air import EARLIEST, room, sync
from physics.kinematic.kernels import remainder

TICK_PRIORITY = int(Priority.PHYSICS_STEP)
TIMER_PRIORITY = int(Priority.TIMER)
LATCH_PRIORITY = int(Priority.LATCH)
LOST, UNREACHED, DST_DEAD = (DROP_REASONS.index(r) for r in ("loss", "out_of_range", "dead"))


@njit(cache=True, inline="always")
def move(io: np.ndarray, motion: np.ndarray, prog: np.ndarray, cvel: np.ndarray, chead: np.ndarray, i: int) -> None:
    """KiloProgram._move: the motors as a velocity and a turn for the next motion step."""
    r = io[i]
    m = prog[i]
    if r.motor_l and r.motor_r:
        cvel[i, 0] = motion[m, 0]
        cvel[i, 1] = 0.0
        cvel[i, 2] = 0.0
        r.moving = True
        return
    if not (r.motor_l or r.motor_r):
        if r.moving:
            cvel[i, 0] = 0.0
            cvel[i, 1] = 0.0
            cvel[i, 2] = 0.0
            r.moving = False
        return
    o = 1 if r.motor_l else 4
    chead[i] = remainder(chead[i] + motion[m, o], TWO_PI)
    cvel[i, 0] = motion[m, o + 1]
    cvel[i, 1] = motion[m, o + 2]
    cvel[i, 2] = 0.0
    r.moving = True


@njit(cache=True)
def moves(tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive, tstate, ring: int, alive, limit: int, io, motion, prog,
          cvel, chead) -> int:
    """The motion ring's next timers, as long as nothing else comes first: no other ring's timer, and
    nothing at or before `limit` (the next tick, latch, arrival or sample). Returns how many ran."""
    tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive, tstate = borrow((tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive,
                                                                        tstate))
    alive, io, motion, prog, cvel, chead = borrow((alive, io, motion, prog, cvel, chead))
    bt, bs = other_rings(tt, ts, tstart, tcur, tlive, ring)
    fired = 0
    while tlive[ring]:
        k = tstart[ring] + tcur[ring]
        t = tt[k]
        q = ts[k]
        if t > limit or t > bt or (t == bt and q > bs):
            return fired
        k = advance_ring(tt, ts, tn, toff, tstart, tlen, tcur, tper, tlive, tstate, ring, alive)
        fired += 1
        if k >= 0:
            move(io, motion, prog, cvel, chead, tn[k])
    return fired


@njit(cache=True)
def crc_ok(payload: np.ndarray) -> bool:
    """message_t.parse's check: the CRC of the data and type bytes is the frame's last two bytes."""
    crc = 0xFFFF
    for j in range(10):
        crc = crc_update(crc, np.int64(payload[j]))
    return crc == np.int64(payload[10]) | (np.int64(payload[11]) << 8)


@njit(cache=True)
def drops(flights, netlog, alive, slots, t: int) -> None:
    """FastBackend._events' drops, frame by frame: the losses, then a unicast that reached no one;
    then each unicast's status (acked when its receiver got it)."""
    flights, netlog, alive, slots = borrow((flights, netlog, alive, slots))
    c = netlog.counters
    start = flights.start
    count = flights.count
    lost = flights.lost
    node = flights.node
    src = flights.src
    tx = flights.tx
    dst = flights.dst
    for s in slots:
        got = 0
        dropped = 0
        for q in range(start[s], start[s] + count[s]):
            if lost[q]:
                log_row(netlog, t, DROP, src[s], node[q], tx[s], np.nan, 0, LOST)
                c[DROPPED] += 1
                dropped += 1
            elif alive[node[q]]:
                got += 1
        if dst[s] >= 0 and got == 0 and dropped == 0:
            log_row(netlog, t, DROP, src[s], dst[s], tx[s], np.nan, 0, UNREACHED if alive[dst[s]] else DST_DEAD)
            c[DROPPED] += 1
    for s in slots:
        if dst[s] < 0:
            continue
        got = 0
        for q in range(start[s], start[s] + count[s]):
            got += not lost[q] and alive[node[q]]
        log_row(netlog, t, ACK if got == 1 else NOACK, src[s], dst[s], tx[s], np.nan, 0, 0)
        c[5 if got == 1 else 6] += 1


@njit(cache=True)
def tick(bodies, radio, clock: np.ndarray, netlog) -> None:
    """EventEngine.tick: the step, the position sync on a quantum, the latch queued after it."""
    bodies, radio, clock, netlog = borrow((bodies, radio, clock, netlog))
    t = clock[NEXT_TICK]
    physics_step(bodies, clock[DT] / 1e9)
    netlog.counters[STEPS] += 1
    if t % clock[QUANTUM] == 0:
        sync(radio, bodies.pos, bodies.vel, t)
    clock[LATCH_AT] = t
    clock[NEXT_TICK] = t + clock[DT] if t + clock[DT] <= clock[END] else -1


@njit(cache=True, inline="always")
def timer_limit(clock: np.ndarray, fstate: np.ndarray, end_ns: int, stop: np.ndarray) -> int:
    """The last instant a timer may run before anything else: before the next tick and the next
    arrival, and at the latch, the end or a sample at the latest (they come after timers); before a
    Python timer (which may come before a timer at its instant)."""
    st = stop[0] if stop[1] > TIMER_PRIORITY else stop[0] - 1
    before_tick = clock[NEXT_TICK] - 1 if clock[NEXT_TICK] >= 0 else INF
    latch = clock[LATCH_AT] if clock[LATCH_AT] >= 0 else INF
    return min(before_tick, fstate[EARLIEST] - 1, end_ns, latch, st if stop[0] <= end_ns else INF)


@njit(cache=True, inline="always")
def next_event(tq: int, sq: int, clock: np.ndarray) -> tuple:
    """(time, priority, sequence, which) of the next queued event: 0 tick, 1 the timer at tq (sequence
    sq), 2 latch; INF if none."""
    best_t = INF
    best_p = TICK_PRIORITY
    best_s = 0
    which = -1
    if clock[NEXT_TICK] >= 0:
        best_t = clock[NEXT_TICK]
        which = 0
    if tq < best_t or (tq == best_t and tq < INF and best_p > TIMER_PRIORITY):
        best_t = tq
        best_p = TIMER_PRIORITY
        best_s = sq
        which = 1
    if clock[LATCH_AT] >= 0 and (clock[LATCH_AT] < best_t or (clock[LATCH_AT] == best_t and best_p > LATCH_PRIORITY)):
        best_t = clock[LATCH_AT]
        best_p = LATCH_PRIORITY
        best_s = 0
        which = 2
    return best_t, best_p, best_s, which


@njit(cache=True, inline="always")
def before(stop: np.ndarray, t: int, p: int, q: int) -> bool:
    """Whether the stop (time, priority, sequence) comes before the event (t, p, q)."""
    return stop[0] < t or (stop[0] == t and (stop[1] < p or (stop[1] == p and stop[2] < q)))


@njit(cache=True)
def delivery_rows(bodies, flights, netlog, slots: np.ndarray, t: int) -> bool:
    """The delivery's rows: every reception (receivers still alive), then every drop and status. False
    (nothing written, netlog.room[0] the rows wanted) when the log lacks room for them."""
    bodies, flights, netlog, slots = borrow((bodies, flights, netlog, slots))
    start = flights.start
    count = flights.count
    lost = flights.lost
    node = flights.node
    dist = flights.dist
    alive = bodies.alive
    src = flights.src
    tx = flights.tx
    size = flights.size
    need = 0
    for s in slots:
        need += count[s] + 2  # a row per receiver, at most a drop and a status per frame
    if netlog.n[0] + need > len(netlog.t):
        netlog.room[0] = need
        return False
    for s in slots:
        for q in range(start[s], start[s] + count[s]):
            if not lost[q] and alive[node[q]]:
                log_row(netlog, t, DELIVER, src[s], node[q], tx[s], dist[q], size[s], 0)
                netlog.counters[DELIVERED] += 1
    drops(flights, netlog, alive, slots, t)
    return True


@njit(cache=True, inline="always")
def room_for_call(flights, progs, ctls, netlog, n: int) -> int:
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
