"""Compiled general controllers (controllers.compiled.CompiledController) on the fused engine: each
callback's commands applied as CompiledController._apply applies them through `robot` and `net`
(the motion command, then timer requests, then messages in the order made; records are written
where the trace collects them during the call).

A timer a callback starts is handed to Python (the loop stops right after the callback, or after
the instant's deliveries), which starts it as the event engine would, numbered where it would be;
it joins the queue's rings, and the loop runs it from then on.
The callbacks themselves are called by dispatchers generated with the scenario's classes.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from controllers.compiled.core import DRIVE, VELOCITY
from cosim.core.trace_codes import SEND
from cosim.fused.kernels import DRIVE_CMD, STEER_CMD
from cosim.fused.rows import finite, log_row
from jit.borrow import borrow
from netstack.fast.air import launch

CtlParts = namedtuple("CtlParts", ["states", "params", "cmd", "out_dst", "out_payload", "out_n", "timers", "timer_n",
                                   "inbound", "air"])
"""One compiled controller class (with one set of parameters): every robot's state (each robot's
controller keeps a view of its row), the parameters, one call's command buffers (as
CompiledController's; its records go straight to the programs' record buffer, cosim.fused.loop.Programs),
and the airtime of its frames (broadcast, unicast; ns)."""

Ctls = namedtuple("Ctls", ["ctl", "slot", "parts", "pend", "pend_n", "pend_t", "friis"])
"""Each robot's controller class (-1: none) and row, the classes' parts (a tuple of CtlParts), the
timer requests waiting for Python: (robot, number, period, phase) rows, their count and instant; the
transmit power (dBm) and wavelength (m) for the RSSI a message reports (the unit disk's Friis loss)."""

STEP = -1
"""The timer number of a controller's step."""


@njit(cache=True)
def _motion(cmd: np.ndarray, i: int, cvel: np.ndarray, dslot: np.ndarray, dpend: np.ndarray, dcmd: np.ndarray) -> None:
    """Robot.drive or Robot.set_velocity, with their refusals (drive commands wait for the latch:
    World.dpend); the command then cleared."""
    kind, a, b, c = cmd[0], cmd[1], cmd[2], cmd[3]
    cmd[0] = 0.0
    k = dslot[i]
    if kind == DRIVE:
        if k < 0:
            raise ValueError("drive: the robot is not a wheeled robot (robot.model: diff_drive, omni or urdf)")
        if not (finite(a) and finite(b)):
            raise ValueError("drive: v and w must be finite numbers")
        dpend[k], dcmd[k, 0], dcmd[k, 1] = DRIVE_CMD, a, b
    elif kind == VELOCITY:
        if not (finite(a) and finite(b) and finite(c)):
            raise ValueError("set_velocity: vx, vy and vz must be finite numbers")
        if k >= 0 and c != 0.0:
            raise ValueError("set_velocity: the robot drives on wheels and cannot climb: vz must be 0")
        if k >= 0 and b != 0.0:
            raise ValueError("set_velocity: the robot has a left and a right wheel and cannot move sideways: vy must be "
                             "0 (turn with drive)")
        cvel[i, 0], cvel[i, 1], cvel[i, 2] = a, b, c
        if k >= 0:
            dpend[k] = STEER_CMD


@njit(cache=True)
def apply(W, R, F, L, P, C, cp: CtlParts, i: int, t: int) -> None:
    """The commands robot i's callback left in `cp`'s buffers, applied (see the module docstring)."""
    W, R, F, L, P, C, cp = borrow((W, R, F, L, P, C, cp))
    if cp.cmd[0] != 0.0:
        _motion(cp.cmd, i, W.cvel, W.dslot, W.dpend, W.dcmd)
    for q in range(cp.timer_n[0]):
        n = C.pend_n[0]
        if n >= len(C.pend):
            raise ValueError("the fused engine's buffer of timer requests is full")
        C.pend[n, 0], C.pend[n, 1], C.pend[n, 2], C.pend[n, 3] = i, cp.timers[q, 0], cp.timers[q, 1], cp.timers[q, 2]
        C.pend_n[0], C.pend_t[0] = n + 1, t
    cp.timer_n[0] = 0
    size = cp.out_payload.shape[1]
    for q in range(cp.out_n[0]):
        dst = cp.out_dst[q]
        if dst >= len(W.alive):
            raise ValueError("send(k, dst): unknown destination node")
        s = launch(F, R, W.alive, i, dst, size, cp.air[1] if dst >= 0 else cp.air[0], t)
        frame, row = F.payload[s], cp.out_payload[q]
        for j in range(min(size, len(frame))):
            frame[j] = row[j]
        log_row(L, t, SEND, i, dst, F.tx[s], np.nan, size, 0)
        L.counters[0] += 1
    cp.out_n[0] = 0


@njit(cache=True, inline="always")
def inbound(cp: CtlParts, size: int, frame: np.ndarray) -> np.ndarray:
    """The message's first bytes copied into the class's inbound row, zero-padded (its true length apart)."""
    row = cp.inbound
    row[:] = 0
    for j in range(min(size, len(frame), len(row))):
        row[j] = frame[j]
    return row
