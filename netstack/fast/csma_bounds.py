"""What one step of the contention loop (netstack.fast.csma_loop) may write at most, so that its
arrays are grown before the step rather than written past: the loop checks it, the backend's
grower (netstack.fast.csma) sizes by it."""

from __future__ import annotations

from numba import njit

from netstack.fast import csma_compiled as cc


@njit(cache=True)
def next_access(ni) -> int:
    """The earliest instant a node may start to transmit (NEVER: none is counting down)."""
    t = cc.NEVER
    for i in range(len(ni)):
        t = min(t, ni[i, cc.ACCESS])
    return t


@njit(cache=True)
def step_access(S) -> int:
    """When the loop's next step is a round of transmissions, their instant; NEVER when it is an
    internal event (the heap's first event goes first at an equal time)."""
    ni = S[0]
    hp = S[5]
    ct = S[8]
    t_heap = hp[0, 0] if ct[cc.C_HEAP] > 0 else cc.NEVER
    t_access = next_access(ni)
    return t_access if t_access < t_heap else cc.NEVER


@njit(cache=True)
def step_needs(S, t_access: int) -> tuple[int, int, int, int]:
    """The most the next step can use (t_access: step_access): free flight slots, heap rows, output
    rows and random numbers. A step is one internal event (at most a row per node, two heap pushes,
    a draw per node), or the transmissions of the nodes whose access comes at t_access (a flight and
    two pushes each; each first drops the frames of its queue that are too old to send, or all of
    them if it is dead, two rows each: a unicast's status and its drop)."""
    ni = S[0]
    ct = S[8]
    n = len(ni)
    starts = 0
    queued = 0
    if t_access != cc.NEVER:
        for i in range(n):
            if ni[i, cc.ACCESS] == t_access:
                starts += 1
                queued += ni[i, cc.QLEN]
    starts = max(1, starts)
    return starts, ct[cc.C_HEAP] + 2 * starts + 8, ct[cc.C_OUT] + 2 * n + 4 + 2 * queued, ct[cc.C_RND] + n + 2


@njit(cache=True)
def room(S, t_access: int) -> bool:
    """Whether the arrays can take the next step (else the caller grows them: netstack.fast.csma)."""
    fl = S[3]
    hp = S[5]
    oi = S[6]
    rnd = S[11]
    starts, heap, out, draws = step_needs(S, t_access)
    free = 0
    for m in range(len(fl)):
        free += fl[m, cc.L_USED] == 0
    return free >= starts and heap <= len(hp) and out <= len(oi) and draws <= len(rnd)
