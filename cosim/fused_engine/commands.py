"""The commands a compiled call left in its buffers (controllers.compiled.core), applied on the fused
engine's arrays as the event engine applies them through `robot`, `net` or a group: each row's
motion command, then the messages in the order they were made. One kernel for a robot's callback
(one row) and a group's step (a row per robot); a controller's timer requests are handed to Python
apart (cosim.fused_engine.controllers)."""

from __future__ import annotations

import numpy as np
from numba import njit

from controllers.compiled.core import DRIVE, NO_COMMAND, VELOCITY
from cosim.core.trace_codes import SEND
from cosim.fused_engine.kernels import DRIVE_CMD, STEER_CMD
from cosim.fused_engine.log_rows import SENT, log_row
from jit.borrow import borrow
from netstack.fast.air import launch, room


@njit(cache=True, inline="always")
def finite(v: float) -> bool:
    """Neither NaN nor infinite (a command's numbers must be)."""
    return not (np.isnan(v) or np.isinf(v))


@njit(cache=True)
def _motion(cmd: np.ndarray, first: int, cvel: np.ndarray, dslot: np.ndarray, dpend: np.ndarray, dcmd: np.ndarray) -> None:
    """Each row's command as Robot.drive or Robot.set_velocity, with their refusals (drive commands
    wait for the latch: World.dpend); the commands then cleared."""
    cmd, cvel, dslot, dpend, dcmd = borrow((cmd, cvel, dslot, dpend, dcmd))
    for r in range(len(cmd)):
        kind = cmd[r, 0]
        a = cmd[r, 1]
        b = cmd[r, 2]
        c = cmd[r, 3]
        if kind == NO_COMMAND:
            continue
        cmd[r, 0] = NO_COMMAND
        i = first + r
        k = dslot[i]
        if kind == DRIVE:
            if k < 0:
                raise ValueError("drive: the robot is not a wheeled robot (robot.model: diff_drive, omni or urdf)")
            if not (finite(a) and finite(b)):
                raise ValueError("drive: v and w must be finite numbers")
            dpend[k] = DRIVE_CMD
            dcmd[k, 0] = a
            dcmd[k, 1] = b
        elif kind == VELOCITY:
            if not (finite(a) and finite(b) and finite(c)):
                raise ValueError("set_velocity: vx, vy and vz must be finite numbers")
            if k >= 0 and c != 0.0:
                raise ValueError("set_velocity: the robot drives on wheels and cannot climb: vz must be 0")
            if k >= 0 and b != 0.0:
                raise ValueError("set_velocity: the robot has a left and a right wheel and cannot move sideways: vy must "
                                 "be 0 (turn with drive)")
            cvel[i, 0] = a
            cvel[i, 1] = b
            cvel[i, 2] = c
            if k >= 0:
                dpend[k] = STEER_CMD


@njit(cache=True)
def _messages(bodies, radio, flights, netlog, parts, first: int, t: int, start: int) -> int:
    """The outbox from message `start` on, in order, from the robots alive (Simulation.send_many).
    Returns the message that found no room for its frame or its log row (-1: all launched).
    (Borrowed: otherwise each launch counts references to every array of flights, radio and netlog.)"""
    bodies, radio, flights, netlog, parts = borrow((bodies, radio, flights, netlog, parts))
    alive = bodies.alive
    src = parts.out_src
    dst = parts.out_dst
    payload = parts.out_payload
    size = payload.shape[1]
    for q in range(start, parts.out_n[0]):
        to = dst[q]
        if to >= len(alive):
            raise ValueError("send: dst must be a node id of the scenario")
        me = first + src[q]
        if not alive[me]:
            continue
        if netlog.n[0] >= len(netlog.t) or not room(flights, 1, len(alive)):
            return q
        s = launch(flights, radio, alive, me, to, size, parts.air[1] if to >= 0 else parts.air[0], t)
        frame = flights.payload[s]
        for j in range(min(size, len(frame))):
            frame[j] = payload[q, j]
        log_row(netlog, t, SEND, me, to, flights.tx[s], np.nan, size, 0)
        netlog.counters[SENT] += 1
    return -1


@njit(cache=True)
def apply(bodies, radio, flights, netlog, parts, first: int, t: int, cursor: np.ndarray) -> None:
    """The commands in `parts`' buffers (its rows are nodes from `first`), from where `cursor` (owner,
    instant, stage, message) says: the motion, then the messages. It pauses, keeping its place, when
    a message finds no room (the loop resumes it once the buffers were emptied or grew); cursor[0] is
    -1 once done, with the outbox emptied."""
    bodies, radio, flights, netlog, parts, cursor = borrow((bodies, radio, flights, netlog, parts, cursor))
    if cursor[2] == 0:
        _motion(parts.cmd, first, bodies.cvel, bodies.dslot, bodies.dpend, bodies.dcmd)
        cursor[2] = 1
        cursor[3] = 0
    q = _messages(bodies, radio, flights, netlog, parts, first, t, cursor[3])
    if q >= 0:
        cursor[3] = q
        return
    parts.out_n[0] = 0
    cursor[0] = -1
