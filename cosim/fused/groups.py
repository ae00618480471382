"""Compiled group steps (controllers.compiled.CompiledGroup) on the fused engine: each group's inbox
filled at its robots' receptions, and its step's commands applied as CompiledGroup._apply applies
them through the group (drives, velocities, broadcasts, sends, each in robot order, then records).

The step itself is called by a dispatcher generated with the scenario's classes (cosim.fused.codegen.fused_module).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from controllers.compiled.group import BROADCAST_DST, DRIVE, VELOCITY
from cosim.core.trace_codes import SEND
from cosim.fused.kernels import DRIVE_CMD, STEER_CMD
from cosim.fused.rows import finite, log_row
from jit.borrow import borrow
from netstack.fast.air import launch, room

PART_FIELDS = ("first", "n", "state", "params", "ids", "motion", "cmd", "out", "payload", "in_dst", "in_src", "in_t",
               "in_len", "in_payload", "in_n", "air", "wheeled")
Parts = namedtuple("Parts", PART_FIELDS)
"""One compiled group: its first node and size, the controller's own state, parameters, command
buffers and payload rows (its records go straight to the programs' record buffer); its inbox
(capacity rows, `in_n`[0] used); the airtime of its frames (broadcast, unicast; ns); whether every
robot is differential-drive."""


@njit(cache=True)
def take(gp: Parts, i: int, src: int, t_ns: int, size: int, frame: np.ndarray) -> bool:
    """A reception by robot i of the group into its inbox (SimGroup.take): the payload's first bytes,
    zero-padded. False, with nothing taken, when the inbox is full (Python grows it, then the loop
    hands the reception over again)."""
    gp = borrow(gp)
    m = gp.in_n[0]
    if m >= len(gp.in_dst):
        return False
    gp.in_dst[m], gp.in_src[m], gp.in_t[m], gp.in_len[m] = i, src, t_ns / 1e9, size
    row = gp.in_payload[m]
    width = len(row)
    for j in range(width):
        row[j] = frame[j] if j < size and j < len(frame) else 0
    gp.in_n[0] = m + 1
    return True


@njit(cache=True)
def _motion(gp: Parts, cvel: np.ndarray, dslot: np.ndarray, dpend: np.ndarray, dcmd: np.ndarray) -> None:
    """Drives, then velocities, in robot order (Group.drive's and Group.set_velocity's refusals); drive
    commands wait for the latch (World.dpend)."""
    gp, cvel, dslot, dpend, dcmd = borrow((gp, cvel, dslot, dpend, dcmd))
    motion, cmd = gp.motion, gp.cmd
    for i in range(gp.n):
        if motion[i] != DRIVE:
            continue
        v, w = cmd[i, 0], cmd[i, 1]
        if not gp.wheeled:
            raise ValueError("group.drive: the group's robots are not differential-drive (robot.model: diff_drive)")
        if not (finite(v) and finite(w)):
            raise ValueError("group.drive: v and w must be finite numbers")
        k = dslot[gp.first + i]
        dpend[k], dcmd[k, 0], dcmd[k, 1] = DRIVE_CMD, v, w
    for i in range(gp.n):
        if motion[i] != VELOCITY:
            continue
        vx, vy, vz = cmd[i, 0], cmd[i, 1], cmd[i, 2]
        if not (finite(vx) and finite(vy) and finite(vz)):
            raise ValueError("group.set_velocity: vx, vy and vz must be finite numbers")
        if gp.wheeled and vz != 0.0:
            raise ValueError("set_velocity: the group's robots drive on wheels and cannot climb: vz must be 0")
        if gp.wheeled and vy != 0.0:
            raise ValueError("set_velocity: the group's robots have a left and a right wheel and cannot move sideways: "
                             "vy must be 0 (turn with drive)")
        row = gp.first + i
        cvel[row, 0], cvel[row, 1], cvel[row, 2] = vx, vy, vz
        if gp.wheeled:
            dpend[dslot[row]] = STEER_CMD


@njit(cache=True)
def _frames(W, R, F, L, gp: Parts, t: int, unicast: bool, first: int) -> int:
    """The step's broadcasts (or its sends), in robot order from robot `first`, from the robots alive
    (Simulation.send_many). Returns the robot whose frame found no room (-1: all launched).
    (Borrowed: otherwise each launch counts references to every array of F, R and L, about 75 calls.)"""
    W, R, F, L, gp = borrow((W, R, F, L, gp))
    out, alive, payload = gp.out, W.alive, gp.payload
    size = payload.shape[1]
    for i in range(first, gp.n):
        dst = out[i]
        if (unicast and dst < 0) or (not unicast and dst != BROADCAST_DST):
            continue
        if unicast and dst >= len(alive):
            raise ValueError("send(k, i, dst): dst must be a node id of the scenario")
        src = gp.first + i
        if not alive[src]:
            continue
        if not room(F, 1, len(alive)):
            return i
        s = launch(F, R, alive, src, dst if unicast else -1, size, gp.air[1] if unicast else gp.air[0], t)
        frame = F.payload[s]
        for j in range(min(size, len(frame))):
            frame[j] = payload[i, j]
        log_row(L, t, SEND, src, dst if unicast else -1, F.tx[s], np.nan, size, 0)
        L.counters[0] += 1
    return -1


@njit(cache=True)
def apply(W, R, F, L, P, gp: Parts, t: int, cursor: np.ndarray) -> None:
    """CompiledGroup._apply on the fused engine's arrays, then the inbox emptied (SimGroup.end_tick),
    from where `cursor` (group, instant, stage, robot) says. It pauses, keeping its place, when a
    frame finds no room (the loop resumes it once they grew); cursor[0] is -1 once done. The records
    and rows fit: the loop gave the call Log.room first."""
    W, R, F, L, P, gp, cursor = borrow((W, R, F, L, P, gp, cursor))
    if cursor[2] == 0:
        _motion(gp, W.cvel, W.dslot, W.dpend, W.dcmd)
        cursor[2], cursor[3] = 1, 0
    while cursor[2] <= 2:
        i = _frames(W, R, F, L, gp, t, cursor[2] == 2, cursor[3])
        if i >= 0:
            cursor[3] = i
            return
        cursor[2], cursor[3] = cursor[2] + 1, 0
    gp.in_n[0] = 0
    cursor[0] = -1
