"""The contention model's event loop, compiled with numba (the rules are netstack.fast.medium.Csma's).

All state lives in arrays owned by netstack.fast.csma.CsmaBackend and passed in as one tuple `S`:

    ni  (N, 18) int64    per node: carrier sense, backoff, queue, lock, NAV (columns below)
    nf  (N, 9) float64   per node: power on the air (mW), locked signal, worst interference, pos, vel
    fr  (F, 6) int64     per frame (its index is its tx id): source, destination, airtime, queue link
    fl  (M, 6) int64     per flight slot: in use, sender, start, frame, the node an ACK answers, key
    fp  (M, N) float64   per flight slot: its power at every node (mW)
    hp  (H, 6) int64     binary heap of internal events: time, kind, sequence, three arguments
    oi  (R, 6) int64     outputs waiting for their time: time, kind, node, frame, code, spare
    of  (R,) float64     their received power (dBm)
    ct  int64            counters: heap size, sequence, outputs, random numbers used, sync time
    pi, pf               parameters (indices below), rnd: uniform draws from the run's stream
    pc  (N, N) float64   power rows of senders since the last sync, while nobody moves (or (0, N))
    pv  (N,) int64       the sync time each cached row is for

A backoff is counted lazily: while a node's medium is idle it has `slots - elapsed` left, where
elapsed counts whole slots since `idle_since + ifs`; nothing happens per slot.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from netstack.fast.crossings import crosses_box, crosses_cylinder

NEVER = np.iinfo(np.int64).max
# node ints
(BUSY, IDLE, IFS, SLOTS, CW, RETRIES, HAS, BLOCKED, ACCESS, SENDING, LOCK, LOCK_T, ALIVE, QHEAD, QTAIL, QLEN, RESULT,
 NAV) = range(18)
NODE_INTS = 18
NODE_FLOATS = 9
# node floats
TOTAL = 0
SIGNAL = 1
WORST = 2
PX = 3
# frame ints
F_SRC, F_DST, F_AIR, F_QUEUED, F_DELIVERED, F_NEXT = range(6)
FRAME_INTS = 6
# flight ints
L_USED, L_SRC, L_START, L_FRAME, L_ACK_FOR, L_KEY = range(6)
FLIGHT_INTS = 6
# internal events, run in this order at one instant
E_END, E_SENSE, E_ACK, E_RESOLVE, E_QUEUE = range(5)
# outputs
O_RX, O_DROP, O_STATUS = range(3)
# drop reasons: indices into netstack.backend.DROP_REASONS
LOSS, OUT_OF_RANGE, DEAD, COLLISION, QUEUE, BELOW_SENSITIVITY, R_BUSY, HALF_DUPLEX, R_RETRIES = range(9)
# counters
C_HEAP, C_SEQ, C_OUT, C_RND, C_SYNC, C_OUTMIN, C_STILL, C_TX, C_QUEUED = range(9)
COUNTERS = 9
# int params
(P_SLOT, P_SIFS, P_DIFS, P_EIFS, P_CCA, P_PREAMBLE, P_ACK_AIR, P_LATENCY, P_QUEUE, P_MAX_DELAY, P_RETRY, P_CW_MIN,
 P_CW_MAX, P_OVERHEAD, P_PATHLOSS, P_BLOCK, P_BACKOFF_FIRST, P_NAV) = range(18)
# float params
(Q_BITRATE, Q_NOISE, Q_RX, Q_ED, Q_PREAMBLE, Q_SINR, Q_LOSS, Q_TX_DBM, Q_A, Q_B, Q_C, Q_WALL_DB) = range(12)
# status of run()
REACHED, OUTPUT, NEED_ROOM = range(3)


@njit(cache=True)
def loss_db(model: int, a: float, b: float, c: float, d: float) -> float:
    """Path loss of netstack.fast.pathloss's models by code (0 log-distance, 1 Friis, 2 two-ray, 3 unit disk)."""
    if model == 0:  # a exponent, b reference loss, c reference distance
        return b + 10.0 * a * math.log10(max(d, c) / c)
    friis = 20.0 * math.log10(4.0 * math.pi * max(d, 0.01) / (299_792_458.0 / (a if model != 3 else b)))
    if model == 1:
        return friis
    if model == 3:  # a range, b frequency
        return friis if d <= a else np.inf
    crossover = 4.0 * math.pi * b * b / (299_792_458.0 / a)  # a frequency, b antenna height
    return friis if d <= crossover else 40.0 * math.log10(max(d, 0.01)) - 20.0 * math.log10(b * b)


@njit(cache=True)
def power_row(S, solids, src: int, t: int, out: np.ndarray) -> None:
    """_power_row, from the cache when every node stands still since the last sync."""
    pc = S[12]
    pv = S[13]
    ct = S[8]
    if not ct[C_STILL] or len(pc) == 0:
        _power_row(S, solids, src, t, out)
        return
    if pv[src] != ct[C_SYNC]:
        _power_row(S, solids, src, t, pc[src])
        pv[src] = ct[C_SYNC]
    out[:] = pc[src]


@njit(cache=True)
def _power_row(S, solids, src: int, t: int, out: np.ndarray) -> None:
    """Power (mW) at every node of a frame src sends at t: path loss over dead-reckoned positions,
    then the obstacles on each line of sight."""
    nf = S[1]
    pi = S[9]
    pf = S[10]
    ct = S[8]
    dt = (t - ct[C_SYNC]) / 1e9
    n = len(out)
    a = np.empty(3)
    b = np.empty(3)
    for k in range(3):
        a[k] = nf[src, PX + k] + nf[src, PX + 3 + k] * dt
    for j in range(n):
        for k in range(3):
            b[k] = nf[j, PX + k] + nf[j, PX + 3 + k] * dt
        d = math.sqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2 + (b[2] - a[2]) ** 2)
        dbm = pf[Q_TX_DBM] - loss_db(pi[P_PATHLOSS], pf[Q_A], pf[Q_B], pf[Q_C], d)
        if j != src and np.isfinite(dbm) and (len(solids[2]) + len(solids[4])) > 0:
            crossed = _walls(solids, a, b)
            if pi[P_BLOCK] and crossed:
                dbm = -np.inf
            dbm -= crossed * pf[Q_WALL_DB]
        out[j] = 0.0 if j == src or not np.isfinite(dbm) else 10.0 ** (dbm / 10.0)


@njit(cache=True)
def _walls(solids, a, b) -> int:
    box_c, box_h, box_yaw, cyl_c, cyl_r, cyl_hh = solids
    n = 0
    for j in range(len(box_yaw)):
        if crosses_box(a, b, box_c[j], box_h[j], box_yaw[j]):
            n += 1
    for j in range(len(cyl_r)):
        if crosses_cylinder(a, b, cyl_c[j], cyl_r[j], cyl_hh[j]):
            n += 1
    return n


# -- the event heap -------------------------------------------------------------------------------
@njit(cache=True)
def _less(hp, i: int, j: int) -> bool:
    for k in range(3):
        if hp[i, k] != hp[j, k]:
            return hp[i, k] < hp[j, k]
    return False


@njit(cache=True)
def _swap(hp, i: int, j: int) -> None:
    for k in range(6):
        hp[i, k], hp[j, k] = hp[j, k], hp[i, k]


@njit(cache=True)
def push(S, t: int, kind: int, a: int, b: int, c: int) -> None:
    hp = S[5]
    ct = S[8]
    i = ct[C_HEAP]
    hp[i, 0] = t
    hp[i, 1] = kind
    hp[i, 2] = ct[C_SEQ]
    hp[i, 3] = a
    hp[i, 4] = b
    hp[i, 5] = c
    ct[C_HEAP] += 1
    ct[C_SEQ] += 1
    while i > 0 and _less(hp, i, (i - 1) // 2):
        _swap(hp, i, (i - 1) // 2)
        i = (i - 1) // 2


@njit(cache=True)
def pop(S) -> None:
    hp = S[5]
    ct = S[8]
    ct[C_HEAP] -= 1
    n = ct[C_HEAP]
    _swap(hp, 0, n)
    i = 0
    while True:
        low = i
        left = 2 * i + 1
        right = 2 * i + 2
        if left < n and _less(hp, left, low):
            low = left
        if right < n and _less(hp, right, low):
            low = right
        if low == i:
            return
        _swap(hp, i, low)
        i = low


@njit(cache=True)
def out(S, t: int, kind: int, node: int, frame: int, code: int, dbm: float) -> None:
    """An output row (for calls outside loops: passing the state tuple costs ~0.1 us per call)."""
    out_row(S[6], S[7], S[8], t, kind, node, frame, code, dbm)


@njit(cache=True)
def out_row(oi, of, ct, t: int, kind: int, node: int, frame: int, code: int, dbm: float) -> None:
    r = ct[C_OUT]
    oi[r, 0] = t
    oi[r, 1] = kind
    oi[r, 2] = node
    oi[r, 3] = frame
    oi[r, 4] = code
    oi[r, 5] = 0
    of[r] = dbm
    ct[C_OUT] += 1
    ct[C_OUTMIN] = min(ct[C_OUTMIN], t)


@njit(cache=True)
def uniform(rnd, ct) -> float:
    u = rnd[ct[C_RND]]
    ct[C_RND] += 1
    return u


@njit(cache=True)
def take_due(S, t: int):
    """The output rows due at t, removed in their order: receptions by live nodes as columns (dst,
    src, tx id, dBm, and whether they are all one frame), and the other rows; the rest move up."""
    ni = S[0]
    fr = S[2]
    oi = S[6]
    of = S[7]
    ct = S[8]
    count = ct[C_OUT]
    dst = np.empty(count, np.int64)
    src = np.empty(count, np.int64)
    tx = np.empty(count, np.int64)
    dbm = np.empty(count)
    other = np.empty((count, 6), dtype=np.int64)
    n_rx = 0
    n_other = 0
    kept = 0
    low = NEVER
    for r in range(count):
        if oi[r, 0] != t:
            oi[kept] = oi[r]
            of[kept] = of[r]
            low = min(low, oi[r, 0])
            kept += 1
        elif oi[r, 1] != O_RX:
            other[n_other] = oi[r]
            n_other += 1
        elif ni[oi[r, 2], ALIVE]:
            dst[n_rx] = oi[r, 2]
            src[n_rx] = fr[oi[r, 3], F_SRC]
            tx[n_rx] = oi[r, 3]
            dbm[n_rx] = of[r]
            n_rx += 1
    ct[C_OUT] = kept
    ct[C_OUTMIN] = low
    one = n_rx == 0 or np.all(tx[:n_rx] == tx[0])
    return dst[:n_rx], src[:n_rx], tx[:n_rx], dbm[:n_rx], one, other[:n_other]
