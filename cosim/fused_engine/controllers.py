"""Compiled general controllers (controllers.compiled.CompiledController) on the fused engine: each
callback's commands applied as CompiledController._apply applies them through `robot` and `net`
(cosim.fused_engine.commands: the motion command, then messages in the order made; records are written
where the trace collects them during the call), and its timer requests handed to Python.

A timer a callback starts is handed to Python (the loop stops right after the callback, or after
the instant's deliveries), which starts it as the event engine would, numbered where it would be;
it joins the queue's rings, and the loop runs it from then on.
The callbacks themselves are called by dispatchers generated with the scenario's classes.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cosim.fused_engine.commands import apply
from jit.borrow import borrow

CtlParts = namedtuple("CtlParts", ["states", "params", "cmd", "out_src", "out_dst", "out_payload", "out_n", "timers",
                                   "timer_n", "inbound", "air", "cursor"])
"""One compiled controller class (with one set of parameters): every robot's state (each robot's
controller keeps a view of its row), the parameters, one call's command buffers (as
CompiledController's; its records go straight to the programs' record buffer, cosim.fused_engine.records.Programs),
the airtime of its frames (broadcast, unicast; ns), and the place of the commands being applied
(commands.apply's cursor)."""

Ctls = namedtuple("Ctls", ["ctl", "slot", "parts", "pend", "pend_n", "pend_t", "friis"])
"""Each robot's controller class (-1: none) and row, the classes' parts (a tuple of CtlParts), the
timer requests waiting for Python: (robot, number, period, phase) rows, their count and instant; the
transmit power (dBm) and wavelength (m) for the RSSI a message reports (the unit disk's Friis loss).
(What only controllers use goes into their parts: an eighth field here, the apply cursor, made the
compiled loop of Kilombo's follow example, which has no controller at all, 22% slower.)"""

STEP = -1
"""The timer number of a controller's step."""


@njit(cache=True)
def apply_ctl(bodies, radio, flights, netlog, ctls, cp: CtlParts, i: int, t: int) -> None:
    """The commands robot i's callback left in `cp`'s buffers, applied (see the module docstring). The
    loop gave the call room for a whole outbox first (Log.room), so its messages never wait."""
    bodies, radio, flights, netlog, ctls, cp = borrow((bodies, radio, flights, netlog, ctls, cp))
    cursor = cp.cursor
    cursor[0] = i
    cursor[1] = t
    cursor[2] = 0
    cursor[3] = 0
    apply(bodies, radio, flights, netlog, cp, i, t, cursor)
    if cursor[0] >= 0:
        raise ValueError("the fused engine gave a controller's call less room than its outbox holds")
    for q in range(cp.timer_n[0]):
        n = ctls.pend_n[0]
        if n >= len(ctls.pend):
            raise ValueError("the fused engine's buffer of timer requests is full")
        ctls.pend[n, 0] = i
        ctls.pend[n, 1] = cp.timers[q, 0]
        ctls.pend[n, 2] = cp.timers[q, 1]
        ctls.pend[n, 3] = cp.timers[q, 2]
        ctls.pend_n[0] = n + 1
        ctls.pend_t[0] = t
    cp.timer_n[0] = 0


@njit(cache=True, inline="always")
def inbound(cp: CtlParts, size: int, frame: np.ndarray) -> np.ndarray:
    """The message's first bytes copied into the class's inbound row, zero-padded (its true length apart)."""
    row = cp.inbound
    row[:] = 0
    for j in range(min(size, len(frame), len(row))):
        row[j] = frame[j]
    return row
