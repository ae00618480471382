"""A group controller's `group` in a simulation (`controllers.Group`): the robots' state as array
views, an inbox filled by the coordinator at each delivery, and commands and sends as arrays."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from controllers import GroupController, Inbox
from cosim.core.clock import Clock
from cosim.core.geometry import bearings, ranges, read_only, wrap_angle
from cosim.core.recorder import Recorder, record_values
from cosim.core.timeunits import NS_PER_S
from cosim.core.transmitter import Transmitter
from netstack.backend import BROADCAST, IndexedPayloads, NetEvents
from physics.robot import FLY_MODES, check_ground_velocity, require_finite, require_speed
from physics.sensors.onboard import read_many
from physics.world import World

_EMPTY_I = np.zeros(0, dtype=np.int64)
_EMPTY_F = np.zeros(0)

class SimGroup:
    """Robots first..first+n-1 of a simulation, programmed together."""

    def __init__(self, world: World, clock: Clock, alive: np.ndarray, transmitter: Transmitter, recorder: Recorder,
                 first: int, n: int, robot_rng: Callable[[int], np.random.Generator], sensors: Sequence[dict] = ()) -> None:
        self._world = world
        self._clock = clock
        self._alive = alive
        self._transmitter = transmitter
        self._recorder = recorder
        self.sensors = tuple(sensors)
        self.first = first
        self.n = n
        self.ids = np.arange(first, first + n, dtype=np.int64)
        self.interfaces = transmitter.interface_names
        self._slice = slice(first, first + n)
        self._robot_rng = robot_rng
        self._chunks: list[tuple[np.ndarray, ...]] = []
        self._payloads: list[IndexedPayloads] = []
        self._wheeled_cache: bool | None = None  # known once the world has started

    # -- state -----------------------------------------------------------------------------------
    def positions(self) -> np.ndarray:
        return read_only(self._world.positions()[self._slice])

    def velocities(self) -> np.ndarray:
        return read_only(self._world.velocities()[self._slice])

    def headings(self) -> np.ndarray:
        return read_only(self._world.headings()[self._slice])

    def alive(self) -> np.ndarray:
        return read_only(self._alive[self._slice])

    def read(self, sensor: str, idx: np.ndarray | None = None) -> np.ndarray:
        """Each robot's `sensor` reading, stacked: what each robot's own sensor would read, with the
        arithmetic in arrays where the sensor class can (`read_many`)."""
        rows = range(self.n) if idx is None else (self._members(idx) - self.first).tolist()
        try:
            sensors = [self.sensors[k][sensor] for k in rows]
        except (KeyError, IndexError):
            raise RuntimeError(f"robots {self.first}..{self.first + self.n - 1} have no {sensor!r} sensor; "
                               f"add `sensors: {{{sensor}: {{}}}}` to their group") from None
        return read_many(sensors)

    def all_positions(self) -> np.ndarray:
        return read_only(self._world.positions())

    def all_headings(self) -> np.ndarray:
        return read_only(self._world.headings())

    def range_to(self, idx: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        me = self._members(idx)
        return ranges(self._world.positions(), me, np.asarray(nodes, dtype=np.int64))

    def bearing_to(self, idx: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        world = self._world
        me = self._members(idx)
        return bearings(world.positions(), world.headings(), me, np.asarray(nodes, dtype=np.int64))

    # -- the inbox -------------------------------------------------------------------------------
    def take(self, ev: NetEvents, rows: np.ndarray) -> None:
        """Keep rows of a delivery batch for the next inbox() (called by the coordinator)."""
        times = ev.row_times()[rows] if ev.rx_t_ns is not None else np.full(len(rows), ev.t_ns, dtype=np.int64)
        self._chunks.append((ev.dst[rows] - self.first, ev.src[rows], times, ev.rssi_dbm[rows], ev.snr_db[rows],
                             ev.row_ifaces()[rows]))
        payloads = ev.payloads
        if isinstance(payloads, IndexedPayloads):
            self._payloads.append(payloads.take(rows))
        else:
            self._payloads.append(IndexedPayloads(payloads, rows))

    def inbox(self) -> Inbox:
        chunks = self._chunks
        payloads = self._payloads
        self._chunks = []
        self._payloads = []
        if not chunks:
            return Inbox(_EMPTY_I, _EMPTY_I, _EMPTY_F, _EMPTY_F, _EMPTY_F, [], np.zeros(0, np.int8))
        cols = [np.concatenate(c) if len(chunks) > 1 else c[0] for c in zip(*chunks)]
        return Inbox(cols[0], cols[1], cols[2] / NS_PER_S, cols[3], cols[4],
                     payloads[0] if len(payloads) == 1 else IndexedPayloads.concat(payloads), cols[5])

    def end_tick(self) -> None:
        """Forget what the controller did not read this tick (the inbox holds one tick's messages)."""
        self._chunks = []
        self._payloads = []

    # -- commands --------------------------------------------------------------------------------
    def _wheeled(self) -> bool:
        if self._wheeled_cache is None:
            slots = self._world.drive_slot
            if not slots.size:
                return False  # before the world starts
            self._wheeled_cache = bool(np.all(slots[self._slice] >= 0))
        return self._wheeled_cache

    @property
    def moves_sideways(self) -> bool:
        return not self._wheeled()

    def _quads(self) -> bool:
        """Whether any robot of the group is a quadrotor (they fly the velocity and heading commands)."""
        slots = self._world.quad_slot
        return bool(slots.size) and bool(np.any(slots[self._slice] >= 0))

    def _members(self, idx: Any) -> np.ndarray:
        """The node ids of the group's robots `idx`: indices 0..n-1 into the group, or a boolean mask
        of n; anything else (fractions, ids past the group) is refused rather than truncated."""
        a = np.asarray(idx)
        if a.dtype == np.bool_:
            if a.shape != (self.n,):
                raise ValueError(f"idx: a boolean mask needs one entry per robot of the group ({self.n}), "
                                 f"got shape {a.shape}")
            return self.first + np.flatnonzero(a)
        if a.dtype.kind not in "iu" and a.size:
            raise ValueError(f"idx must be integer indices 0..{self.n - 1} into the group (or a boolean mask), "
                             f"got {a.dtype} values")
        a = np.atleast_1d(a).astype(np.int64, copy=False)
        if a.size and (a.min() < 0 or a.max() >= self.n):
            raise ValueError(f"idx must be indices 0..{self.n - 1} into the group, got values in {a.min()}..{a.max()}")
        return self.first + a

    def _rows(self, idx: np.ndarray | None) -> np.ndarray | slice:
        return self._slice if idx is None else self._members(idx)

    def set_velocity(self, vx: Any, vy: Any = 0.0, vz: Any = 0.0, idx: np.ndarray | None = None) -> None:
        require_speed("group.set_velocity", "vx vy vz", vx, vy, vz)
        rows = self._rows(idx)
        _require_per_robot("group.set_velocity", "vx vy vz", self.n if idx is None else len(rows), vx, vy, vz)
        if self._wheeled():
            check_ground_velocity(self._world, self.ids if idx is None else rows, vy, vz)
        cmd = self._world.cmd_vel
        cmd[rows, 0] = vx
        cmd[rows, 1] = vy
        cmd[rows, 2] = vz
        if self._wheeled():
            self._world.drive_many(self.ids if idx is None else rows, None, None)
        elif self._quads():
            self._world.quads_follow(self.ids if idx is None else rows)

    def set_heading(self, heading: Any, idx: np.ndarray | None = None) -> None:
        require_finite("group.set_heading (or turn)", "heading", heading)
        rows = self._rows(idx)
        _require_per_robot("group.set_heading (or turn)", "heading", self.n if idx is None else len(rows), heading)
        self._world.cmd_heading[rows] = wrap_angle(np.asarray(heading, dtype=np.float64))
        if self._quads():
            self._world.quads_steer(self.ids if idx is None else rows)
        elif self._wheeled():
            self._world.drive_many(self.ids if idx is None else rows, None, None)

    def turn(self, angle: Any, idx: np.ndarray | None = None) -> None:
        rows = self._rows(idx)
        self.set_heading(self._world.cmd_heading[rows] + angle, idx)

    def drive(self, v: Any, w: Any, idx: np.ndarray | None = None) -> None:
        if not self._wheeled():
            raise ValueError(f"drive: a robot of the group {self.first}..{self.first + self.n - 1} is not a wheeled robot "
                             "(robot.model: diff_drive, omni or urdf)")
        require_finite("group.drive", "v w", v, w)
        rows = self.ids if idx is None else self._rows(idx)
        count = len(rows)
        _require_per_robot("group.drive", "v w", count, v, w)
        self._world.drive_many(rows, np.broadcast_to(np.asarray(v, dtype=np.float64), (count,)),
                                   np.broadcast_to(np.asarray(w, dtype=np.float64), (count,)))

    def fly(self, mode: str, a: Any, b: Any, c: Any, d: Any = None, idx: np.ndarray | None = None) -> None:
        """Quadrotors: one setpoint per robot in a flight mode (see Robot.fly); each goes to the vehicle's
        cascaded PID, so this costs a call per robot."""
        world = self._world
        rows = self.ids if idx is None else self._members(idx)
        if not world.quad_slot.size or np.any(world.quad_slot[rows] < 0):
            raise ValueError(f"group of robots {self.first}..{self.first + self.n - 1} is not quadrotors "
                             "(robot.model: quadrotor)")
        try:
            m = FLY_MODES[mode]
        except KeyError:
            raise ValueError(f"unknown flight mode {mode!r}; expected one of: {', '.join(FLY_MODES)}") from None
        count = len(rows)
        cols = [np.broadcast_to(np.asarray(x, dtype=np.float64), (count,)).tolist()
                for x in (a, b, c, math.nan if d is None else d)]
        for i, va, vb, vc, vd in zip(rows.tolist(), *cols):
            world.fly(i, m, va, vb, vc, vd)

    # -- radio -----------------------------------------------------------------------------------
    def broadcast(self, idx: np.ndarray, payloads: bytes | Sequence[bytes] | np.ndarray,
                  interface: str | None = None) -> np.ndarray:
        src = self._members(idx)
        dst = np.full(len(src), BROADCAST, dtype=np.int64)
        return self._transmitter.send_many(src, dst, _payload_list(payloads, len(src)),
                                   self._transmitter.interface_index(interface))

    def send(self, idx: np.ndarray, dst: np.ndarray, payloads: bytes | Sequence[bytes] | np.ndarray,
             interface: str | None = None) -> np.ndarray:
        src = self._members(idx)
        dst = np.broadcast_to(np.asarray(dst, dtype=np.int64), (len(src),))
        if len(dst) and (dst.min() < 0 or dst.max() >= len(self._alive)):
            raise ValueError(f"dst must be node ids in 0..{len(self._alive) - 1}")
        return self._transmitter.send_many(src, dst, _payload_list(payloads, len(src)),
                                   self._transmitter.interface_index(interface))

    # -- randomness and metrics ------------------------------------------------------------------
    def robot_rng(self, i: int) -> np.random.Generator:
        return self._robot_rng(self.first + int(i))

    def record(self, name: str, values: Any, idx: np.ndarray | None = None) -> None:
        nodes = self.ids if idx is None else self._members(idx)
        values = np.broadcast_to(record_values(values), (len(nodes),))
        self._recorder.record_many(self._clock.now_ns, nodes, name, values)


def _require_per_robot(command: str, names: str, count: int, *values: Any) -> None:
    """Each value is one number for all `count` robots or one per robot: numpy would broadcast other
    shapes with a message naming neither the command nor the argument."""
    for name, v in zip(names.split(), values):
        shape = np.shape(v)
        if shape not in ((), (count,), (1,)):
            raise ValueError(f"{command}: {name} must be one number or one per robot ({count}), got shape {shape}")


def _payload_list(payloads: bytes | Sequence[bytes] | np.ndarray, count: int) -> list[bytes]:
    if count == 0:
        return []
    if isinstance(payloads, (bytes, bytearray, memoryview)):
        return [bytes(payloads)] * count
    if isinstance(payloads, np.ndarray):
        if payloads.ndim != 2 or len(payloads) != count:
            raise ValueError(f"payloads as an array must be ({count}, size) bytes, got shape {payloads.shape}")
        raw = np.ascontiguousarray(payloads).view(np.uint8).reshape(count, -1).tobytes()
        size = len(raw) // count if count else 0
        return [raw[k * size:(k + 1) * size] for k in range(count)]
    out = [bytes(p) for p in payloads]
    if len(out) != count:
        raise ValueError(f"expected {count} payloads, got {len(out)}")
    return out


class GroupTick:
    """One tick of a group controller: its step, then the messages it left unread are dropped."""

    __slots__ = ("controller", "group", "name")

    def __init__(self, controller: GroupController, group: SimGroup, name: str) -> None:
        self.controller = controller
        self.group = group
        self.name = name

    def __call__(self) -> None:
        try:
            self.controller.step()
        except Exception as exc:  # no one robot's code: say whose it is
            g = self.group
            exc.add_note(f"in {type(self.controller).__name__}.step, the group controller of {self.name} (robots "
                         f"{g.first}..{g.first + g.n - 1})")
            raise
        self.group.end_tick()


class GroupRouter:
    """Hands each delivery batch's rows to the groups whose robots received them."""

    def __init__(self, n_nodes: int, groups: Sequence[SimGroup]) -> None:
        self.groups = list(groups)
        self.group_of = np.full(n_nodes, -1, dtype=np.int64)
        for k, g in enumerate(self.groups):
            self.group_of[g.first:g.first + g.n] = k

    def deliver(self, ev: NetEvents, alive: np.ndarray) -> None:
        g = self.group_of[ev.dst]
        mine = (g >= 0) & alive[ev.dst]
        if not mine.any():
            return
        if len(self.groups) == 1:
            self.groups[0].take(ev, np.nonzero(mine)[0])
            return
        for k in np.unique(g[mine]).tolist():
            self.groups[k].take(ev, np.nonzero(mine & (g == k))[0])
