"""The fused engine's compiled pieces that call no program: the world's step (its own kernel,
physics.kinematic.compiled.step) and the latch of commands. The radio and the frames in the air are
the fast radio's own records and kernels (netstack.fast.air); the timers are the event queue's rings
(cosim.core.timer_rings).

Each does exactly what its event-engine counterpart does, operation by operation (named in each
docstring), so the trace is the same on either engine.
"""

from __future__ import annotations

import math
from collections import namedtuple

from numba import njit

from jit.borrow import borrow
from physics.kinematic.compiled import latch as latch_world
from physics.kinematic.compiled import step as step_world

TWO_PI = 2.0 * math.pi

World = namedtuple("World", ["pos", "vel", "avel", "cvel", "ahead", "chead", "max_speed", "alive", "radius", "clip_lo",
                             "clip_hi", "trig", "at_rest", "max_accel", "reach", "verlet", "drives", "scene", "dslot",
                             "dpend", "dcmd"])
"""The kinematic world's arrays (the world's own, changed in place); at_rest is a 1-element array;
reach the distance within which robots push apart (0: no collisions) and verlet the world's own
list of the pairs that may touch (physics.kinematic.verlet);
drives and scene as physics.kinematic.compiled's (no scenery: the fused engine takes no obstacles),
dslot each robot's row in the drives (-1: none); dpend and dcmd the drive commands given since the
last latch (DriveCommands): per drive 0 none, DRIVE_CMD (v, w in dcmd) or STEER_CMD (generic commands)."""
DRIVE_CMD = 1
STEER_CMD = 2

@njit(cache=True)
def physics_step(w: World, dt_s: float) -> None:
    """KinematicWorld.step: the world's own compiled step (physics.kinematic.compiled.step)."""
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
    d = w.drives
    pend = w.dpend
    cmd = w.dcmd
    for k in range(len(pend)):
        if pend[k] == DRIVE_CMD:
            half = 0.5 * d.base[k] * cmd[k, 1]
            d.cmd_wheels[k, 0] = cmd[k, 0] - half
            d.cmd_wheels[k, 1] = cmd[k, 0] + half
            d.steer[k] = False
        elif pend[k] == STEER_CMD:
            d.steer[k] = True
        pend[k] = 0
    latch_world(w.cvel, w.chead, w.avel, w.ahead, w.drives)
