"""The contention model's air and reception, compiled: the handlers of each internal event and the
loop that runs them (medium access: netstack.fast.csma_access; state layout: netstack.fast.csma_compiled)."""

from __future__ import annotations

import numpy as np
from numba import njit

from netstack.fast import csma_access as access
from netstack.fast import csma_compiled as cc
from netstack.fast.csma_bounds import next_access, room, step_access


# -- the air ------------------------------------------------------------------------------------
@njit(cache=True)
def _new_flight(fl, src: int, t: int, frame: int, ack_for: int, key: int) -> int:
    """A free row of the frames in the air, taken by frame `frame` of `src` starting at t."""
    m = 0
    while m < len(fl) and fl[m, cc.L_USED]:
        m += 1
    if m == len(fl):
        raise IndexError("no free row for a frame in the air (netstack.fast.csma_bounds.room keeps one)")
    fl[m, cc.L_USED] = 1
    fl[m, cc.L_SRC] = src
    fl[m, cc.L_START] = t
    fl[m, cc.L_FRAME] = frame
    fl[m, cc.L_ACK_FOR] = ack_for
    fl[m, cc.L_KEY] = key
    return m


@njit(cache=True)
def _fly(S, solids, src: int, t: int, airtime: int, frame: int, ack_for: int) -> None:
    """A frame starts: its power everywhere; receivers idle enough to detect it lock onto it; a
    sender that was receiving loses that frame. `fw[m, i]` keeps why node i does not receive it."""
    ni = S[0]
    nf = S[1]
    fl = S[3]
    fp = S[4]
    pi = S[9]
    pf = S[10]
    ct = S[8]
    fw = S[14]
    m = _new_flight(fl, src, t, frame, ack_for, ct[cc.C_SEQ] + 1)
    cc.power_row(S, solids, src, t, fp[m])
    if ni[src, cc.LOCK] >= 0:
        fw[ni[src, cc.LOCK], src] = cc.HALF_DUPLEX
    ni[src, cc.LOCK] = -1
    ni[src, cc.SENDING] = 1
    ct[cc.C_TX] += 1
    noise = pf[cc.Q_NOISE]
    rx = pf[cc.Q_RX]
    pre = pf[cc.Q_PREAMBLE]
    for i in range(len(ni)):
        p = fp[m, i]
        nf[i, cc.TOTAL] += p
        fw[m, i] = cc.HALF_DUPLEX if ni[i, cc.SENDING] else cc.COLLISION
        if ni[i, cc.LOCK] >= 0 and ni[i, cc.LOCK_T] == t:
            _same_start(S, i, m, p)
        elif ni[i, cc.LOCK] >= 0:
            nf[i, cc.WORST] = max(nf[i, cc.WORST], nf[i, cc.TOTAL] - nf[i, cc.SIGNAL])
            fw[m, i] = cc.R_BUSY
        elif (i != src and ni[i, cc.ALIVE] and not ni[i, cc.SENDING] and p > 0.0 and p >= rx
              and p >= pre * (noise + nf[i, cc.TOTAL] - p)):
            ni[i, cc.LOCK] = m
            ni[i, cc.LOCK_T] = t
            nf[i, cc.SIGNAL], nf[i, cc.WORST] = p, nf[i, cc.TOTAL] - p
            fw[m, i] = 0
    cc.push(S, t + airtime, cc.E_END, m, 0, 0)
    if pi[cc.P_CCA] > 0:
        cc.push(S, t + pi[cc.P_CCA], cc.E_SENSE, 0, 0, 0)


@njit(cache=True)
def _same_start(S, i: int, m: int, p: float) -> None:
    """Frame m starts at the instant of the frame receiver i locked onto: the stronger one (the nearer
    sender's, which arrives first) keeps the receiver, busy for the other, if its preamble stands out
    of all the frames that started together; else its preamble is lost in them (a collision)."""
    ni = S[0]
    nf = S[1]
    pf = S[10]
    fw = S[14]
    held = ni[i, cc.LOCK]
    if p > nf[i, cc.SIGNAL]:
        fw[held, i] = cc.R_BUSY
        ni[i, cc.LOCK] = m
        nf[i, cc.SIGNAL] = p
    else:
        fw[m, i] = cc.R_BUSY
    signal = nf[i, cc.SIGNAL]
    nf[i, cc.WORST] = nf[i, cc.TOTAL] - signal
    if signal >= pf[cc.Q_PREAMBLE] * (pf[cc.Q_NOISE] + nf[i, cc.WORST]):
        fw[ni[i, cc.LOCK], i] = 0
    else:
        fw[ni[i, cc.LOCK], i] = cc.COLLISION
        ni[i, cc.LOCK] = -1


@njit(cache=True)
def _land(S, m: int, t: int) -> int:
    """A flight ends: each receiver locked on it decoded it (RESULT = its key) or not (-key, and
    EIFS from now on); those that decoded a unicast frame for another node defer until its
    acknowledgement ends (NAV, with virtual carrier sense). Returns the key."""
    ni = S[0]
    nf = S[1]
    fl = S[3]
    fp = S[4]
    pi = S[9]
    pf = S[10]
    key = fl[m, cc.L_KEY]
    fl[m, cc.L_USED] = 0
    ni[fl[m, cc.L_SRC], cc.SENDING] = 0
    dst = S[2][fl[m, cc.L_FRAME], cc.F_DST]
    nav = t + pi[cc.P_SIFS] + pi[cc.P_ACK_AIR] if pi[cc.P_NAV] and fl[m, cc.L_ACK_FOR] < 0 and dst >= 0 else -1
    left = False
    deferred = False
    for k in range(len(fl)):
        left = left or fl[k, cc.L_USED] == 1
    for i in range(len(ni)):
        nf[i, cc.TOTAL] = max(0.0, nf[i, cc.TOTAL] - fp[m, i]) if left else 0.0
        if ni[i, cc.LOCK] == m:
            ok = nf[i, cc.SIGNAL] >= pf[cc.Q_SINR] * (pf[cc.Q_NOISE] + nf[i, cc.WORST])
            ni[i, cc.RESULT] = key if ok else -key
            S[14][m, i] = 0 if ok else cc.COLLISION
            ni[i, cc.IFS] = pi[cc.P_DIFS] if ok else pi[cc.P_DIFS] + pi[cc.P_EIFS]
            ni[i, cc.LOCK] = -1
            if ok and nav >= 0 and i != dst:
                ni[i, cc.NAV] = max(ni[i, cc.NAV], nav)
                deferred = True
    if deferred:  # the medium may turn idle for them when the NAV ends
        cc.push(S, nav, cc.E_SENSE, 0, 0, 0)
    return key


@njit(cache=True)
def _transmit(S, solids, i: int, t: int) -> None:
    ni = S[0]
    fr = S[2]
    pi = S[9]
    f = access.head(S, i, t)
    if f < 0:
        return
    _fly(S, solids, i, t, pi[cc.P_PREAMBLE] + fr[f, cc.F_AIR], f, -1)
    ni[i, cc.BLOCKED] = 1
    ni[i, cc.ACCESS] = cc.NEVER


@njit(cache=True)
def _resolve(S, i: int, t: int, acked: bool, reason: int) -> None:
    fr = S[2]
    f = S[0][i, cc.QHEAD]
    if access.finish(S, i, t, acked):
        cc.out(S, t, cc.O_STATUS, fr[f, cc.F_DST], f, 1 if acked else 0, np.nan)
        if not acked and not fr[f, cc.F_DELIVERED]:
            cc.out(S, t, cc.O_DROP, fr[f, cc.F_DST], f, reason, np.nan)


@njit(cache=True)
def _heard(S, m: int, i: int) -> bool:
    """Whether node i was within reach of flight m (the receive threshold)."""
    p = S[4][m, i]
    return p > 0.0 and p >= S[10][cc.Q_RX]


@njit(cache=True)
def _broadcast_end(S, m: int, key: int, t: int) -> None:
    ni = S[0]
    fl = S[3]
    oi = S[6]
    of = S[7]
    ct = S[8]
    pi = S[9]
    pf = S[10]
    rnd = S[11]
    src = fl[m, cc.L_SRC]
    f = fl[m, cc.L_FRAME]
    power = S[4][m]
    at = t + pi[cc.P_LATENCY]
    rx = pf[cc.Q_RX]
    loss = pf[cc.Q_LOSS]
    for i in range(len(ni)):
        if i == src or power[i] <= 0.0 or power[i] < rx:
            continue
        if not ni[i, cc.ALIVE]:
            cc.out_row(oi, of, ct, at, cc.O_DROP, i, f, cc.DEAD, np.nan)
        elif ni[i, cc.RESULT] != key:
            cc.out_row(oi, of, ct, at, cc.O_DROP, i, f, S[14][m, i] if S[14][m, i] > 0 else cc.COLLISION, np.nan)
        elif loss > 0.0 and cc.uniform(rnd, ct) < loss:
            cc.out_row(oi, of, ct, at, cc.O_DROP, i, f, cc.LOSS, np.nan)
        else:
            cc.out_row(oi, of, ct, at, cc.O_RX, i, f, 0, 10.0 * np.log10(power[i]))
    access.finish(S, src, t, True)


@njit(cache=True)
def _unicast_end(S, m: int, key: int, t: int) -> None:
    ni = S[0]
    fr = S[2]
    fl = S[3]
    fp = S[4]
    pi = S[9]
    pf = S[10]
    src = fl[m, cc.L_SRC]
    f = fl[m, cc.L_FRAME]
    dst = fr[f, cc.F_DST]
    if ni[dst, cc.RESULT] == key and ni[dst, cc.ALIVE] and not (pf[cc.Q_LOSS] > 0.0 and cc.uniform(S[11], S[8]) < pf[cc.Q_LOSS]):
        if not fr[f, cc.F_DELIVERED]:
            fr[f, cc.F_DELIVERED] = 1
            cc.out(S, t + pi[cc.P_LATENCY], cc.O_RX, dst, f, 0, 10.0 * np.log10(fp[m, dst]))
        cc.push(S, t + pi[cc.P_SIFS], cc.E_ACK, dst, src, f)
        return
    if not ni[dst, cc.ALIVE]:
        reason = cc.DEAD
    elif not _heard(S, m, dst):
        reason = cc.OUT_OF_RANGE
    elif ni[dst, cc.RESULT] == key:
        reason = cc.LOSS  # decoded, then lost to the loss draw
    else:
        reason = S[14][m, dst] if S[14][m, dst] > 0 else cc.COLLISION
    cc.push(S, t + pi[cc.P_SIFS] + pi[cc.P_SLOT] + pi[cc.P_PREAMBLE], cc.E_RESOLVE, src, 0, reason)


@njit(cache=True)
def _end(S, m: int, t: int) -> None:
    fr = S[2]
    fl = S[3]
    key = _land(S, m, t)
    access.sense(S, t)
    ack_for = fl[m, cc.L_ACK_FOR]
    if ack_for >= 0:
        _resolve(S, ack_for, t, S[0][ack_for, cc.RESULT] == key, cc.COLLISION)
    elif fr[fl[m, cc.L_FRAME], cc.F_DST] < 0:
        _broadcast_end(S, m, key, t)
    else:
        _unicast_end(S, m, key, t)


@njit(cache=True)
def _event(S, solids, t: int) -> None:
    """Run the earliest internal event (at t)."""
    hp = S[5]
    pi = S[9]
    kind = hp[0, 1]
    a = hp[0, 3]
    b = hp[0, 4]
    c = hp[0, 5]
    cc.pop(S)
    if kind == cc.E_END:
        _end(S, a, t)
    elif kind == cc.E_ACK:
        _fly(S, solids, a, t, pi[cc.P_ACK_AIR], c, b)
    elif kind == cc.E_RESOLVE:
        _resolve(S, a, t, b == 1, c)
    elif kind == cc.E_QUEUE:
        access.enqueue(S, a, b, t)
    # E_SENSE: the carrier sense below now counts a frame that started CCA delay ago


@njit(cache=True)
def run(S, solids, until: int) -> tuple[int, int]:
    """Run internal events up to `until`; stop before one that comes after an output is due.
    Returns (REACHED, until), (OUTPUT, its time) or (NEED_ROOM, time reached)."""
    ni = S[0]
    hp = S[5]
    ct = S[8]
    now = -1
    while True:
        t_heap = hp[0, 0] if ct[cc.C_HEAP] > 0 else cc.NEVER
        t_access = next_access(ni)
        t_in = min(t_heap, t_access)
        if ct[cc.C_OUT] > 0 and ct[cc.C_OUTMIN] < t_in and ct[cc.C_OUTMIN] <= until:
            return cc.OUTPUT, ct[cc.C_OUTMIN]
        if t_in > until:
            return cc.REACHED, until
        if not room(S, step_access(S)):
            return cc.NEED_ROOM, now
        now = t_in
        if t_heap <= t_access:
            _event(S, solids, t_in)
        else:
            for i in range(len(ni)):
                if ni[i, cc.ACCESS] == t_in:
                    _transmit(S, solids, i, t_in)
        access.sense(S, t_in)


@njit(cache=True)
def push_many(S, rows) -> None:
    """Frames handed to the radio: (time, node, frame) rows become queue events in this order."""
    for k in range(len(rows)):
        cc.push(S, rows[k, 0], cc.E_QUEUE, rows[k, 1], rows[k, 2], 0)
