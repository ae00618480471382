"""Compiled group steps (controllers.compiled.CompiledGroup) on the fused engine: each group's parts,
and its inbox filled at its robots' receptions. The step is called by a dispatcher generated with
the scenario's classes (cosim.fused_engine.codegen.fused_module), and its commands are applied by
cosim.fused_engine.commands, as every compiled call's.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from jit.borrow import borrow

PART_FIELDS = ("first", "n", "state", "params", "gens", "io", "cmd", "out_src", "out_dst", "out_payload", "out_n",
               "in_dst", "in_src", "in_t", "in_len", "in_payload", "in_n", "air")
Parts = namedtuple("Parts", PART_FIELDS)
"""One compiled group: its first node and size, the controller's own state, parameters, random stream,
kilolib record and command buffers (its records go straight to the programs' record buffer); its
inbox (capacity rows, `in_n`[0] used); the airtime of its frames (broadcast, unicast; ns)."""


@njit(cache=True)
def take(gp: Parts, i: int, src: int, t_ns: int, size: int, frame: np.ndarray) -> bool:
    """A reception by robot i of the group into its inbox (SimGroup.take): the payload's first bytes,
    zero-padded. False, with nothing taken, when the inbox is full (Python grows it, then the loop
    hands the reception over again)."""
    gp = borrow(gp)
    m = gp.in_n[0]
    if m >= len(gp.in_dst):
        return False
    gp.in_dst[m] = i
    gp.in_src[m] = src
    gp.in_t[m] = t_ns / 1e9
    gp.in_len[m] = size
    row = gp.in_payload[m]
    width = len(row)
    for j in range(width):
        row[j] = frame[j] if j < size and j < len(frame) else 0
    gp.in_n[0] = m + 1
    return True
