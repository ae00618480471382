"""The fused engine's state at the start of its run, built from a set-up Simulation: the world's and
the radio's arrays, the frames in flight, the programs' and compiled groups' parts, and the queue's
timer rings told which of them the compiled loop runs itself (the rest stay Python's).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import MethodType
from typing import TYPE_CHECKING

import numpy as np

from controllers.compiled.controller import CompiledController, TimerCall
from controllers.compiled.core import OUTBOX, RECORDS
from controllers.compiled.group import RECORDS as GROUP_RECORDS
from controllers.compiled.group import CompiledGroup
from controllers.compiled.kilolib import DISTANCE_DTYPE, IO_DTYPE, MESSAGE_DTYPE
from controllers.compiled.program import Program
from cosim.core.group_handle import GroupTick
from cosim.core.timeline import Priority
from cosim.core.timer_rings import PYTHON
from cosim.core.timers import Timer
from cosim.fused_engine import records
from cosim.fused_engine.controllers import STEP, CtlParts, Ctls
from cosim.fused_engine.groups import PART_FIELDS, Parts
from cosim.fused_engine.kernels import World
from jit.streams import joined, own_stream
from netstack.backend import BROADCAST
from netstack.fast.backend import FastBackend
from netstack.fast.pathloss import SPEED_OF_LIGHT
from physics.kinematic.compiled import scene_of
from physics.kinematic.world import KinematicWorld

if TYPE_CHECKING:
    from cosim.core.coordinator import Simulation

LOG_ROWS = 1 << 18
INBOX_ROWS = 64
"""Inbox rows per robot of a compiled group at the start (it doubles whenever a reception finds it full)."""

log = logging.getLogger(__name__)


def world_of(world: KinematicWorld) -> World:
    pos, vel, radius, lo, hi, trig, at_rest, drives, verlet = world.step_arrays()
    reach = 2.0 * float(radius.max()) if world.collisions and len(radius) > 1 else 0.0
    return World(pos, vel, world.active_vel, world.cmd_vel, world.active_heading, world.cmd_heading, world.max_speed,
                 world.alive, radius, lo, hi, trig, at_rest, float(world.max_accel), reach, verlet, drives,
                 scene_of(world.scenery, len(pos)), world.drive_slot, np.zeros(len(drives.idx), np.int8),
                 np.zeros((len(drives.idx), 2)))


def call_room(programs: bool, controllers: bool, groups: list[CompiledGroup]) -> np.ndarray:
    """What one compiled call may leave at most, for Log.room: records (a program's or a controller's
    core.RECORDS, a group's record buffer), network rows and frames (a controller's OUTBOX; a group's
    step makes sure of its messages' room one at a time, cosim.fused_engine.commands)."""
    most = max([RECORDS if programs or controllers else 0, GROUP_RECORDS if groups else 0])
    frames = OUTBOX if controllers else 1
    return np.array([0, most, frames, frames], np.int64)


def log_of(room: np.ndarray, rows: int = 0) -> records.Log:
    """Room for the network rows between two drains (`rows`, 0: LOG_ROWS), at least twice what one
    call may log (written before read: not zeroed, a few ms saved)."""
    rows = max(rows or LOG_ROWS, 2 * int(room[2]))
    z = [np.empty(rows, np.int64) for _ in range(5)]
    return records.Log(*z, np.empty(rows), np.empty(rows, np.int64), np.empty(rows, np.int64),
                    np.zeros(1, np.int64), np.zeros(7, np.int64), room)


def wider_log(netlog: records.Log) -> records.Log:
    """`netlog` emptied and grown to twice the rows one delivery wants (netlog.room[0]), kept as it is if it holds them."""
    want = int(netlog.room[0])
    netlog.room[0] = 0
    if want <= len(netlog.t):
        return netlog
    log.info("the fused engine's network log grows to %d rows", 2 * want)
    wide = log_of(netlog.room, 2 * want)
    wide.counters[:] = netlog.counters
    return wide


def wider_inbox(compiled_groups: records.Groups) -> records.Groups:
    """`compiled_groups` with the inbox of the group compiled_groups.full names (if any) twice as large, its messages kept."""
    g = int(compiled_groups.full[0])
    if g < 0:
        return compiled_groups
    compiled_groups.full[0] = -1
    gp = compiled_groups.parts[g]
    rows = 2 * len(gp.in_dst)
    log.info("a compiled group's inbox grows to %d messages", rows)
    wide = {}
    for name in ("in_dst", "in_src", "in_t", "in_len", "in_payload"):
        a = getattr(gp, name)
        wide[name] = np.zeros((rows, *a.shape[1:]), a.dtype)
        wide[name][:len(a)] = a
    part = Parts(*(wide.get(name, value) for name, value in zip(PART_FIELDS, gp)))
    return records.Groups((*compiled_groups.parts[:g], part, *compiled_groups.parts[g + 1:]), compiled_groups.group_of,
                       compiled_groups.index, compiled_groups.always, compiled_groups.cursor, compiled_groups.full)


def _roles(groups: list[CompiledGroup], timer: Timer, kinds: dict[type, dict]) -> tuple | None:
    """(kind, node, argument) of a timer the loop runs itself, or None. `kinds` keeps, per Program
    class, its timers' functions and their kinds (a bound method's hash costs more than the lookup)."""
    cb = timer.callback
    if isinstance(cb, GroupTick):
        return next(((records.GROUP, g, 0) for g, c in enumerate(groups) if c is cb.controller), None)
    if isinstance(cb, TimerCall):
        return records.CTIMER, cb.controller.id, cb.number
    owner = cb.__self__ if isinstance(cb, MethodType) else None
    if isinstance(owner, Program):
        own = kinds.get(type(owner))
        if own is None:
            own = kinds[type(owner)] = {m.__func__: k for m, k in zip(owner.timer_callbacks(),
                                                                        (records.LOOP, records.TRANSMIT, records.MOVE))}
        kind = own.get(cb.__func__)
        return None if kind is None else (kind, owner.id, 0)
    if isinstance(owner, CompiledController) and cb == owner.step:
        return records.CTIMER, owner.id, STEP
    return None


def own_timers(sim: Simulation, groups: list[CompiledGroup]) -> None:
    """The loop's own events (ticks, latches, reports) off the queue, and its rings given the kinds of
    the timers it runs itself (programs', compiled groups' and compiled controllers'); Python's stay."""
    sim.clock.queue.take(lambda entry: entry[1] != Priority.TIMER)
    kinds: dict[type, dict] = {}

    def role(action: Callable[[], None], node: int) -> tuple[int, int, int]:
        found = _roles(groups, action, kinds) if isinstance(action, Timer) else None
        return (PYTHON, node, 0) if found is None else found

    sim.clock.queue.run_as(role)


def _stack(rows: list[np.ndarray]) -> np.ndarray:
    """One-row structured arrays of one dtype as one array (np.concatenate promotes each row's fields:
    a second for 10,000 robots)."""
    return np.frombuffer(b"".join(r.tobytes() for r in rows), dtype=rows[0].dtype).copy()


def programs_of(controllers: list, variants: list[tuple], per_call: int, net: FastBackend) -> records.Programs:
    """The Programs' parts, by robot (prog -1 for a robot that runs none); room for the records of at
    least two calls (`per_call` each at most) between drains; the airtime of a kilolib frame on `net`."""
    index = {v: q for q, v in enumerate(variants)}
    n = len(controllers)
    prog = np.full(n, -1, dtype=np.int64)
    slot = np.zeros(n, dtype=np.int64)
    rows: list[list[np.ndarray]] = [[] for _ in variants]
    io = np.zeros(n, IO_DTYPE)
    idle = own_stream(np.random.default_rng(0))  # for robots without compiled code: never drawn from
    streams = []
    for i, h in enumerate(controllers):
        if isinstance(h, Program):
            prog[i] = index[(type(h), h.values.tobytes())]
            slot[i] = len(rows[prog[i]])
            rows[prog[i]].append(h.state)
            io[i] = h.io[0]
        elif isinstance(h, CompiledController):
            io[i] = h.io[0]
        streams.append(h.stream if isinstance(h, (Program, CompiledController)) else idle)  # what compiled code draws from
    first = [controllers[int(np.nonzero(prog == q)[0][0])] for q in range(len(variants))]
    motion = np.array([h.motion.row() for h in first]).reshape(-1, 7)
    room = max(2 * per_call, 4 * n)
    return records.Programs(
        prog, slot, tuple(_stack(r) for r in rows), io, joined(streams), tuple(h.values for h in first), motion,
        np.array([float(h.params.distance_noise_mm) for h in first]), np.zeros((len(first), 3), np.int64),
        np.zeros(1, MESSAGE_DTYPE), np.zeros(1, DISTANCE_DTYPE), np.zeros((room, 3), np.int64), np.zeros(room),
        np.zeros(1, np.int64), np.array([net.config.airtime_to_ns(BROADCAST, 12)], np.int64))


def groups_of(sim: Simulation, groups: list[CompiledGroup], net: FastBackend) -> records.Groups:
    """The compiled groups' parts (their controllers' own state and buffers), and who belongs to which."""
    n = len(sim.population.controllers)
    group_of = np.full(n, -1, np.int64)
    index = np.zeros(n, np.int64)
    parts = []
    cfg = net.config
    for g, ctrl in enumerate(groups):
        grp = ctrl.group
        first = int(grp.ids[0])
        size = grp.n
        group_of[first:first + size] = g
        index[first:first + size] = np.arange(size)
        state, values, gens, io, *out, _rec_i, _rec_v, _rec_n = ctrl.fused_parts()
        width = type(ctrl).payload_bytes
        rows = max(INBOX_ROWS * size, 1)
        air = np.array([cfg.airtime_to_ns(BROADCAST, width), cfg.airtime_to_ns(0, width)], np.int64)
        parts.append(Parts(first, size, state, values, gens, io, *out, np.zeros(rows, np.int64), np.zeros(rows, np.int64),
                           np.zeros(rows), np.zeros(rows, np.int64), np.zeros((rows, width), np.uint8), np.zeros(1, np.int64),
                           air))
    return records.Groups(tuple(parts), group_of, index, np.ones(max(len(groups), 1), np.bool_),
                       np.array([-1, 0, 0, 0], np.int64), np.array([-1], np.int64))


def controllers_of(controllers: list, variants: list[tuple], net: FastBackend) -> Ctls:
    """The compiled controllers' parts by class and parameters (`variants`): every robot's state in one
    array per variant (each controller keeps a view of its row), and one call's buffers per variant."""
    index = {v: q for q, v in enumerate(variants)}
    n = len(controllers)
    ctl = np.full(n, -1, np.int64)
    slot = np.zeros(n, np.int64)
    members: list[list] = [[] for _ in variants]
    for i, h in enumerate(controllers):
        if isinstance(h, CompiledController):
            ctl[i] = index[(type(h), h.values.tobytes())]
            slot[i] = len(members[ctl[i]])
            members[ctl[i]].append(h)
    parts = []
    cfg = net.config
    for hosts in members:
        states = _stack([h.state for h in hosts])
        for k, h in enumerate(hosts):
            h.adopt_state(states[k:k + 1])
        width = type(hosts[0]).payload_bytes
        air = np.array([cfg.airtime_to_ns(BROADCAST, width), cfg.airtime_to_ns(0, width)], np.int64)
        parts.append(CtlParts(states, hosts[0].values, *hosts[0].fused_parts(), air, np.array([-1, 0, 0, 0], np.int64)))
    room = 16 * n + 64
    friis = np.array([cfg.tx_power_dbm, SPEED_OF_LIGHT / cfg.pathloss.frequency_hz])  # the unit disk's (cosim.fused_engine.plan)
    return Ctls(ctl, slot, tuple(parts), np.zeros((room, 4)), np.zeros(1, np.int64), np.zeros(1, np.int64), friis)

