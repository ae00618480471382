"""The kinematic world's latch and step in a few compiled calls, for worlds of point and
differential-drive robots among static scenery (KinematicWorld's step for them): the dozen kernel
calls of a step, each a few microseconds of overhead, become one call, and so do the steps of a
quiet stretch with the latches between them.

Each calls the very kernels the kernel-by-kernel step (worlds with quadrotors or omnidirectional
robots) calls, in the same order (tests/physics/kinematic/test_compiled.py compares them bit for bit).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from jit.calls import bound_overload
from physics.kinematic.kernels import drive_blocked, drive_step, drive_writeback, move_points, push_apart
from physics.kinematic.scenery import push_room
from physics.kinematic.scenery_kernels import push_all
from physics.kinematic.verlet import Verlet, touching
from physics.numpy_rules import np_clip

Drives = namedtuple("Drives", ["idx", "alive", "cmd_wheels", "steer", "cmd_speed", "cmd_heading", "base", "gain",
                               "max_wheel", "accel", "wheels", "pos", "heading"])
"""A differential-drive bank's arrays (its own, changed in place), `idx` the robot of each row and
`alive` room for their alive flags; empty arrays for a world without drives."""

Scene = namedtuple("Scene", ["count", "kinds", "params", "grid", "start", "items", "mark", "buf", "hit_shape",
                             "hit_robot"])
"""physics.kinematic.scenery.Scenery's arrays and room for one step's pushes; count 0 for a world without."""


def no_drives() -> Drives:
    """Drives for a world that has none (the kernels' argument types stay the same)."""
    f1 = np.zeros(0)
    f2 = np.zeros((0, 2))
    return Drives(np.zeros(0, np.int64), np.zeros(0, np.bool_), f2, np.zeros(0, np.bool_), f1, f1, f1, f1, f1, f1,
                  f2.copy(), np.zeros((0, 3)), f1.copy())


def drives_of(bank, idx: np.ndarray) -> Drives:
    """The Drives of a DiffDriveBank (or none) whose rows are robots idx."""
    if bank is None:
        return no_drives()
    return Drives(idx, np.zeros(len(idx), np.bool_), bank.cmd_wheels, bank.steer_by_heading, bank.cmd_speed,
                  bank.cmd_heading, bank.base, bank.heading_gain, bank.max_wheel, bank.accel, bank.wheels, bank.pos,
                  bank.heading)


def scene_of(scenery, n: int) -> Scene:
    """The Scene of a physics.kinematic.scenery.Scenery, with room for the pushes of n robots."""
    room = push_room(n)
    return Scene(len(scenery.kinds), scenery.kinds, scenery.params, scenery.grid, scenery.start, scenery.items,
                 scenery.mark, scenery.buf, np.empty(room, np.int64), np.empty(room, np.int64))


@njit(cache=True)
def latch(cmd_vel, cmd_heading, active_vel, active_heading, d: Drives) -> None:
    """CommandArrays.latch, then the drives steered by the generic commands (DiffDriveBank.steer) with
    their own headings as the active ones."""
    active_vel[:] = cmd_vel
    active_heading[:] = cmd_heading
    idx = d.idx
    steer = d.steer
    speed = d.cmd_speed
    head = d.cmd_heading
    own = d.heading
    for k in range(len(idx)):
        i = idx[k]
        if steer[k]:
            speed[k] = active_vel[i, 0]
            head[k] = active_heading[i]
        active_heading[i] = own[k]


@njit(cache=True)
def advance(dt, max_accel, heading, cmd, max_speed, alive, vel, pos, trig, at_rest: bool, d: Drives) -> bool:
    """KinematicWorld.step up to the collisions: the drives' wheels and arcs, the point motion, the
    drives' poses written back. False (and nothing done) when no robot moves or is told to."""
    idx = d.idx
    dalive = d.alive
    if len(idx):
        for k in range(len(idx)):
            dalive[k] = alive[idx[k]]
        drive_step(dt, dalive, d.cmd_wheels, d.steer, d.cmd_speed, d.cmd_heading, d.base, d.gain, d.max_wheel,
                   d.accel, d.wheels, d.pos, d.heading)
    elif at_rest and not cmd.any():
        return False
    move_points(dt, max_accel, heading, cmd, max_speed, alive, vel, pos, trig)
    if len(idx):
        drive_writeback(idx, d.pos, d.wheels, d.heading, pos, vel, heading)
    return True


@njit(cache=True, error_model="numpy")
def settle(pos, vel, radius, pairs, clip_lo, clip_hi, s: Scene, d: Drives) -> bool:
    """The rest of the step: overlapping pairs pushed apart, robots pushed out of the scenery, the
    arena's walls, blocked drives stopped. Returns whether every robot is at rest."""
    if len(pairs):
        push_apart(pos, radius, pairs[:, 0].copy(), pairs[:, 1].copy())
    if s.count:
        push_all(s.kinds, s.params, s.grid, s.start, s.items, s.mark, s.buf, pos, vel, radius, s.hit_shape,
                 s.hit_robot)
    for k in range(len(pos)):
        for a in range(3):
            pos[k, a] = np_clip(pos[k, a], clip_lo[k, a], clip_hi[k, a])
    if len(d.idx):
        drive_blocked(d.idx, pos, d.pos, d.wheels, vel)
    return not vel.any()


@njit(cache=True)
def step(dt, max_accel, heading, cmd, max_speed, alive, pos, vel, trig, radius, clip_lo, clip_hi, reach, at_rest: bool,
         d: Drives, s: Scene, v: Verlet) -> bool:
    """One KinematicWorld.step after its latch: motion, the pairs within `reach` (0: no collisions)
    pushed apart, scenery, walls. Returns whether every robot is at rest."""
    if not advance(dt, max_accel, heading, cmd, max_speed, alive, vel, pos, trig, at_rest, d):
        return at_rest
    pairs = touching(v, pos, reach)
    return settle(pos, vel, radius, pairs, clip_lo, clip_hi, s, d)


@njit(cache=True)
def run(m, dt, max_accel, at_rest: bool, latched: bool, cmd_vel, cmd_heading, active_vel, active_heading, max_speed,
        alive, pos, vel, trig, radius, clip_lo, clip_hi, reach, d: Drives, s: Scene, v: Verlet) -> bool:
    """m steps, each after a latch but the first when `latched` (a quiet stretch; m = 1, latched: one
    step). Returns whether every robot is at rest."""
    for k in range(m):
        if k or not latched:
            latch(cmd_vel, cmd_heading, active_vel, active_heading, d)
        at_rest = step(dt, max_accel, active_heading, active_vel, max_speed, alive, pos, vel, trig, radius, clip_lo,
                       clip_hi, reach, at_rest, d, s, v)
    return at_rest


class CompiledStep:
    """A kinematic world's latch and step through the kernels above, bound to its arrays (which the
    world changes in place, never replaces, after start). Only for worlds without quadrotors,
    omnidirectional robots, external robots or contact tracking (KinematicWorld checks)."""

    def __init__(self, arrays: tuple, collide: bool, max_r: float, drives: Drives, scene: Scene, verlet: Verlet) -> None:
        (self.cmd_vel, self.cmd_heading, self.active_vel, self.active_heading, self.max_speed, self.alive, self.pos,
         self.vel, self.trig, self.radius, self.clip_lo, self.clip_hi) = arrays
        self.reach = 2.0 * max_r if collide else 0.0
        self.drives = drives
        self.scene = scene
        self.bound = (*arrays, self.reach, drives, scene, verlet)  # run's arguments from cmd_vel on
        self._latch_args = (self.cmd_vel, self.cmd_heading, self.active_vel, self.active_heading, drives)
        self._latch = latch
        self._run = run  # the dispatchers until the first calls, then their machine code

    def latch(self) -> None:
        if self._latch is latch:
            latch(*self._latch_args)
            self._latch = bound_overload(latch, self._latch_args)
        else:
            self._latch(*self._latch_args)

    def step(self, dt_s: float, max_accel: float, at_rest: bool, m: int = 1, latched: bool = True) -> bool:
        """m steps of dt_s, each after a latch but the first when `latched`; returns whether every robot
        is now at rest (at_rest again if none moved)."""
        args = (m, dt_s, max_accel, at_rest, latched, *self.bound)
        at_rest = self._run(*args)
        if self._run is run:
            self._run = bound_overload(run, args)
        return bool(at_rest)
