"""The fused engine's compiled pieces that call no program: the timer heap, and the world's step (its
own kernel, physics.kinematic_compiled.step) and the latch of commands. The radio and the frames in
the air are the fast radio's own records and kernels (netstack.fast.air).

Each does exactly what its event-engine counterpart does, operation by operation (named in each
docstring), so the trace is the same on either engine.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from jit.borrow import borrow
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
