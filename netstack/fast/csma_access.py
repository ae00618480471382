"""Medium access of the contention model, compiled: each node's backoff and carrier sense (802.11's
DCF; 802.15.4's backoff before every frame) and its queue of frames (state layout in
netstack.fast.csma_compiled; netstack.fast.csma_loop runs the events that call these)."""

from __future__ import annotations

import numpy as np
from numba import njit

from netstack.fast import csma_compiled as cc


# -- backoff (802.11 DCF) ----------------------------------------------------------------------------
@njit(cache=True)
def elapsed(ni, i: int, t: int, slot: int) -> int:
    return max(0, (t - ni[i, cc.IDLE] - ni[i, cc.IFS]) // slot)


@njit(cache=True)
def schedule(ni, i: int, slot: int) -> None:
    if ni[i, cc.HAS] and not ni[i, cc.BUSY] and not ni[i, cc.BLOCKED]:
        ni[i, cc.ACCESS] = ni[i, cc.IDLE] + ni[i, cc.IFS] + ni[i, cc.SLOTS] * slot
    else:
        ni[i, cc.ACCESS] = cc.NEVER


@njit(cache=True)
def new_backoff(S, i: int, t: int) -> None:
    """0..CW slots for node i, counted from the next slot boundary (or from the end of its busy medium)."""
    ni = S[0]
    pi = S[9]
    slot = pi[cc.P_SLOT]
    draw = int(cc.uniform(S[11], S[8]) * (ni[i, cc.CW] + 1))
    if ni[i, cc.BUSY]:
        ni[i, cc.SLOTS] = draw
    else:
        ni[i, cc.SLOTS] = draw + max(0, -(-(t - ni[i, cc.IDLE] - ni[i, cc.IFS]) // slot))
    schedule(ni, i, slot)


@njit(cache=True)
def sense(S, t: int) -> None:
    """Each node's carrier sense from t on (sending, receiving, power above the detection threshold
    counting frames that started at least the CCA delay ago, or its NAV); backoffs freeze or resume."""
    ni = S[0]
    nf = S[1]
    fl = S[3]
    fp = S[4]
    pi = S[9]
    pf = S[10]
    lag = pi[cc.P_CCA]
    slot = pi[cc.P_SLOT]
    recent = [m for m in range(len(fl)) if fl[m, cc.L_USED] and fl[m, cc.L_START] > t - lag]
    for i in range(len(ni)):
        total = nf[i, cc.TOTAL]
        for m in recent:
            total -= fp[m, i]
        locked = ni[i, cc.LOCK] >= 0 and ni[i, cc.LOCK_T] <= t - lag
        busy = ni[i, cc.SENDING] or locked or total >= pf[cc.Q_ED] or ni[i, cc.NAV] > t
        if busy and not ni[i, cc.BUSY]:
            ni[i, cc.SLOTS] = max(0, ni[i, cc.SLOTS] - elapsed(ni, i, t, slot))
            ni[i, cc.BUSY] = 1
            ni[i, cc.ACCESS] = cc.NEVER
        elif not busy and ni[i, cc.BUSY]:
            ni[i, cc.BUSY] = 0
            ni[i, cc.IDLE] = t
            schedule(ni, i, slot)


@njit(cache=True)
def frame_arrives(S, i: int, t: int) -> None:
    """A frame reaches node i's empty queue. With no backoff left on an idle medium it goes after a
    DIFS from now if the medium stays idle (ns-3's DCF immediate access); on a busy medium (or
    with 802.15.4's backoff before every frame) a backoff is drawn unless one is counting."""
    ni = S[0]
    pi = S[9]
    ni[i, cc.HAS] = 1
    if ni[i, cc.BLOCKED]:
        return
    left = ni[i, cc.SLOTS] if ni[i, cc.BUSY] else max(0, ni[i, cc.SLOTS] - elapsed(ni, i, t, pi[cc.P_SLOT]))
    if left == 0 and not ni[i, cc.BUSY] and not pi[cc.P_BACKOFF_FIRST]:
        if t + pi[cc.P_DIFS] > ni[i, cc.IDLE] + ni[i, cc.IFS]:  # DIFS from now, or the EIFS still running
            ni[i, cc.IDLE] = t
            ni[i, cc.IFS] = pi[cc.P_DIFS]
        ni[i, cc.SLOTS] = 0
    elif left == 0:
        new_backoff(S, i, t)
        return
    schedule(ni, i, pi[cc.P_SLOT])


# -- queues --------------------------------------------------------------------------------------
@njit(cache=True)
def dequeue(S, i: int) -> None:
    ni = S[0]
    fr = S[2]
    ni[i, cc.QHEAD] = fr[ni[i, cc.QHEAD], cc.F_NEXT]
    ni[i, cc.QLEN] -= 1
    if ni[i, cc.QLEN] == 0:
        ni[i, cc.QTAIL] = -1


@njit(cache=True)
def enqueue(S, i: int, f: int, t: int) -> None:
    ni = S[0]
    fr = S[2]
    pi = S[9]
    if ni[i, cc.QLEN] >= pi[cc.P_QUEUE]:
        refuse(S, f, t, cc.QUEUE)
        return
    S[8][cc.C_QUEUED] += 1
    if ni[i, cc.QLEN] == 0:
        ni[i, cc.QHEAD] = f
    else:
        fr[ni[i, cc.QTAIL], cc.F_NEXT] = f
    ni[i, cc.QTAIL] = f
    ni[i, cc.QLEN] += 1
    if ni[i, cc.QLEN] == 1:
        frame_arrives(S, i, t)


@njit(cache=True)
def refuse(S, f: int, t: int, reason: int) -> None:
    """Frame f leaves its queue unsent (full, stale, or its sender dead): a drop row, and for a
    unicast of a live sender its TxStatus (not acknowledged), as when the MAC gives a frame up."""
    dst = S[2][f, cc.F_DST]
    if reason == cc.QUEUE and dst >= 0:
        cc.out(S, t, cc.O_STATUS, dst, f, 0, np.nan)
    cc.out(S, t, cc.O_DROP, dst, f, reason, np.nan)


@njit(cache=True)
def head(S, i: int, t: int) -> int:
    """The frame node i sends next, after dropping those too old to send (all of them if it is dead)."""
    ni = S[0]
    fr = S[2]
    pi = S[9]
    while ni[i, cc.QLEN] > 0 and (not ni[i, cc.ALIVE] or t - fr[ni[i, cc.QHEAD], cc.F_QUEUED] > pi[cc.P_MAX_DELAY]):
        f = ni[i, cc.QHEAD]
        refuse(S, f, t, cc.QUEUE if ni[i, cc.ALIVE] else cc.DEAD)
        dequeue(S, i)
    if ni[i, cc.QLEN] == 0:
        ni[i, cc.HAS] = 0
        ni[i, cc.ACCESS] = cc.NEVER
        return -1
    return ni[i, cc.QHEAD]


@njit(cache=True)
def finish(S, i: int, t: int, success: bool) -> bool:
    """Node i's head frame is done (sent, acknowledged, or given up: True, it leaves the queue) or
    to be tried again with a doubled window; a backoff follows either way."""
    ni = S[0]
    pi = S[9]
    ni[i, cc.BLOCKED] = 0
    done = success or ni[i, cc.RETRIES] >= pi[cc.P_RETRY]
    if done:
        ni[i, cc.CW] = pi[cc.P_CW_MIN]
        ni[i, cc.RETRIES] = 0
        ni[i, cc.HAS] = ni[i, cc.QLEN] > 1
        dequeue(S, i)
    else:
        ni[i, cc.CW] = min(2 * ni[i, cc.CW] + 1, pi[cc.P_CW_MAX])
        ni[i, cc.RETRIES] += 1
    new_backoff(S, i, t)
    return done
